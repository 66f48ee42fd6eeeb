#pragma once
/// @file
/// @brief SOCRATIC_DECL, the linkage of a function whose definition sits in an `impl/*.ipp` file:
/// `inline` in header-only builds, where the header includes its .ipp; nothing with
/// `SOCRATIC_SEPARATE_COMPILATION`, where only socratic/src.hpp includes the .ipp files and each
/// definition is compiled once. Write it on the declaration and on the definition.

#ifdef SOCRATIC_SEPARATE_COMPILATION
#define SOCRATIC_DECL
#else
#define SOCRATIC_DECL inline
#endif
