#pragma once
/// @file
/// @brief The HTTP client's definitions, for separate compilation: with
/// `SOCRATIC_SEPARATE_COMPILATION` defined everywhere, include this header in exactly one
/// translation unit of the program. Without that macro the definitions are inline in client.hpp
/// and this header must not be used.

#ifndef SOCRATIC_SEPARATE_COMPILATION
#error "socratic/http/src.hpp is for SOCRATIC_SEPARATE_COMPILATION builds; define it in every translation unit"
#endif

#include "socratic/http/client.hpp"
#include "socratic/http/impl/client.ipp"
