#pragma once
/// @file
/// @brief The environment handed to child processes, with secrets removed (which names are
/// secrets: core/secrets.hpp). Light: no Boost.

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <string>
#include <string_view>
#include <vector>

#include "socratic/core/secrets.hpp"
#include "socratic/core/detail/separate_compilation.hpp"

extern char** environ;

namespace socratic {

/// @brief The current environment ("NAME=value" entries) without secret variables.
SOCRATIC_DECL std::vector<std::string> scrubbed_environment();

}  // namespace socratic

#ifndef SOCRATIC_SEPARATE_COMPILATION
#include "socratic/process/impl/environment.ipp"
#endif
