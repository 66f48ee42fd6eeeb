#pragma once
/// @file
/// @brief Definitions for socratic/core/secrets.hpp: included there in header-only builds, and by
/// socratic/src.hpp (compiled once) with SOCRATIC_SEPARATE_COMPILATION.

#include "socratic/core/secrets.hpp"

namespace socratic {

SOCRATIC_DECL bool is_secret_variable(std::string_view name) {
  std::string upper(name);
  std::transform(upper.begin(), upper.end(), upper.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  for (std::string_view marker : {"KEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "CREDENTIAL",
                                  "_AUTH", "COOKIE"})
    if (upper.find(marker) != std::string::npos) return true;
  return false;
}

SOCRATIC_DECL std::vector<std::string> secret_values_from_environment() {
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
