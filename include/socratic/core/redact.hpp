#pragma once
/// @file
/// @brief Secret redaction for everything Socratic writes (traces, logs, reports).
///
/// Two nets: the values of secret environment variables and of secrets registered at run time
/// (an API key read from a file), and token-shaped patterns (`sk-...`, `Bearer ...`). Applied to
/// every string in a JSON document before it is written.

#include <mutex>
#include <regex>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "socratic/core/json.hpp"
#include "socratic/core/secrets.hpp"

namespace socratic {

namespace detail {
inline std::mutex& secret_mutex() {
  static std::mutex m;
  return m;
}
inline std::set<std::string>& registered_secrets() {
  static std::set<std::string> s;
  return s;
}
}  // namespace detail

/// @brief Registers a secret value (at least 8 characters) so that no trace or log shows it.
inline void register_secret(std::string value) {
  if (value.size() < 8) return;  // too short to redact without mangling ordinary text
  std::lock_guard lock(detail::secret_mutex());
  detail::registered_secrets().insert(std::move(value));
}

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

  std::string redact(std::string text) const {
    for (const auto& s : secrets_) {
      for (auto pos = text.find(s); pos != std::string::npos; pos = text.find(s, pos))
        text.replace(pos, s.size(), mask);
    }
    if (looks_tokenish(text)) text = std::regex_replace(text, patterns(), std::string(mask));
    return text;
  }

  /// @brief Redacts every string (keys included) of a JSON document, in place.
  void redact(json& j) const {
    switch (j.type()) {
      case json::value_t::string: {
        auto& s = j.get_ref<std::string&>();
        s = redact(std::move(s));
        break;
      }
      case json::value_t::array:
        for (auto& e : j) redact(e);
        break;
      case json::value_t::object: {
        json out = json::object();
        for (auto it = j.begin(); it != j.end(); ++it) {
          json value = it.value();
          redact(value);
          out[redact(it.key())] = std::move(value);
        }
        j = std::move(out);
        break;
      }
      default:
        break;
    }
  }

 private:
  // Cheap pre-check so the regex runs only on strings that could hold a token.
  static bool looks_tokenish(std::string_view t) {
    return t.find("sk-") != std::string_view::npos || t.find("Bearer ") != std::string_view::npos ||
           t.find("bearer ") != std::string_view::npos || t.find("key-") != std::string_view::npos;
  }
  static const std::regex& patterns() {
    static const std::regex re(
        R"((sk-(ant-)?[A-Za-z0-9_\-]{16,})|([Bb]earer [A-Za-z0-9_\-\.=]{16,})|(key-[A-Za-z0-9]{16,}))");
    return re;
  }
  std::vector<std::string> secrets_;
};

}  // namespace socratic
