#pragma once
/// @file
/// @brief Which environment variables hold secrets, and their values: what child processes must
/// not inherit (process/environment.hpp) and what traces, logs and reports must never show
/// (core/redact.hpp). Light: the standard library.

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <string>
#include <string_view>
#include <vector>

#include "socratic/core/detail/separate_compilation.hpp"

extern char** environ;

namespace socratic {

/// @brief True for variable names that hold credentials by convention (`*KEY*`, `*TOKEN*`,
/// `*SECRET*`, `*PASSWORD*`, `*CREDENTIAL*`, `*_AUTH*`, `*COOKIE*`). Identifiers are not
/// secrets: a session id (`CLAUDE_CODE_SESSION_ID`, `XDG_SESSION_ID`) names a session, and
/// redacting it broke what must match it (the stop hook's chain of blocks); a session's token
/// (`AWS_SESSION_TOKEN`) is caught by `TOKEN`.
SOCRATIC_DECL bool is_secret_variable(std::string_view name);

/// @brief Values of the current environment's secret variables (at least 8 characters long),
/// for redaction.
SOCRATIC_DECL std::vector<std::string> secret_values_from_environment();

}  // namespace socratic

#ifndef SOCRATIC_SEPARATE_COMPILATION
#include "socratic/core/impl/secrets.ipp"
#endif
