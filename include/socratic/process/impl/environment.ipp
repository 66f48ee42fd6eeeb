#pragma once
/// @file
/// @brief Definitions for socratic/process/environment.hpp: included there in header-only builds,
/// and by socratic/src.hpp (compiled once) with SOCRATIC_SEPARATE_COMPILATION.

#include "socratic/process/environment.hpp"

namespace socratic {

SOCRATIC_DECL std::vector<std::string> scrubbed_environment() {
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
