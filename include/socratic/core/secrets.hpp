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

extern char** environ;

namespace socratic {

/// @brief True for variable names that hold credentials by convention (`*KEY*`, `*TOKEN*`,
/// `*SECRET*`, `*PASSWORD*`, `*CREDENTIAL*`, `*_AUTH*`, `*COOKIE*`). Identifiers are not
/// secrets: a session id (`CLAUDE_CODE_SESSION_ID`, `XDG_SESSION_ID`) names a session, and
/// redacting it broke what must match it (the stop hook's chain of blocks); a session's token
/// (`AWS_SESSION_TOKEN`) is caught by `TOKEN`.
inline bool is_secret_variable(std::string_view name) {
  std::string upper(name);
  std::transform(upper.begin(), upper.end(), upper.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  for (std::string_view marker : {"KEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "CREDENTIAL",
                                  "_AUTH", "COOKIE"})
    if (upper.find(marker) != std::string::npos) return true;
  return false;
}

/// @brief Values of the current environment's secret variables (at least 8 characters long),
/// for redaction.
inline std::vector<std::string> secret_values_from_environment() {
  std::vector<std::string> out;
  for (char** e = environ; e && *e; ++e) {
    std::string_view entry(*e);
    const auto eq = entry.find('=');
    if (eq == std::string_view::npos) continue;
    if (!is_secret_variable(entry.substr(0, eq))) continue;
    auto value = entry.substr(eq + 1);
    if (value.size() >= 8) out.emplace_back(value);
  }
  return out;
}

}  // namespace socratic
