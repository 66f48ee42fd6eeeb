#pragma once
/// @file
/// @brief Secret redaction for everything Socratic writes (traces, logs, reports).
///
/// Two nets: the values of secret environment variables and of secrets registered at run time
/// (an API key read from a file), and token-shaped patterns (`sk-...`, `Bearer ...`). Applied to
/// every string in a JSON document before it is written.

#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "socratic/core/json.hpp"
#include "socratic/core/secrets.hpp"
#include "socratic/core/detail/separate_compilation.hpp"

namespace socratic {

namespace detail {
SOCRATIC_DECL std::mutex& secret_mutex();
SOCRATIC_DECL std::set<std::string>& registered_secrets();
}  // namespace detail

/// @brief Registers a secret value (at least 8 characters) so that no trace or log shows it.
SOCRATIC_DECL void register_secret(std::string value);

/// @brief Removes secrets from strings and JSON documents.
class Redactor {
 public:
  static constexpr std::string_view mask = "[redacted]";

  /// Collects the environment's secret values and the registered ones at construction.
  Redactor() : secrets_(secret_values_from_environment()) {
    std::lock_guard lock(detail::secret_mutex());
    for (const auto& s : detail::registered_secrets()) secrets_.push_back(s);
  }
  explicit Redactor(std::vector<std::string> secrets) : secrets_(std::move(secrets)) {}

  /// @brief Adds one more secret value.
  void add(std::string value) {
    if (value.size() >= 8) secrets_.push_back(std::move(value));
  }

  std::string redact(std::string text) const;

  /// @brief Redacts every string (keys included) of a JSON document, in place.
  void redact(json& j) const;

 private:
  // Cheap pre-check so the regex runs only on strings that could hold a token.
  static bool looks_tokenish(std::string_view t) {
    return t.find("sk-") != std::string_view::npos || t.find("Bearer ") != std::string_view::npos ||
           t.find("bearer ") != std::string_view::npos || t.find("key-") != std::string_view::npos;
  }
  std::vector<std::string> secrets_;
};

}  // namespace socratic

#ifndef SOCRATIC_SEPARATE_COMPILATION
#include "socratic/core/impl/redact.ipp"
#endif
