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

extern char** environ;

namespace socratic {

/// @brief The current environment ("NAME=value" entries) without secret variables.
inline std::vector<std::string> scrubbed_environment() {
  std::vector<std::string> out;
  for (char** e = environ; e && *e; ++e) {
    std::string_view entry(*e);
    const auto eq = entry.find('=');
    if (eq == std::string_view::npos) continue;
    if (is_secret_variable(entry.substr(0, eq))) continue;
    out.emplace_back(entry);
  }
  return out;
}

}  // namespace socratic
