#pragma once
/// @file
/// @brief ApiKey: a credential read from the environment or a file (never from the command
/// line), which cannot be printed or serialised; and the process-wide list of loaded secrets
/// that every log line, trace event and child environment is scrubbed of. Light.

#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "socratic/core/error.hpp"
#include "socratic/http/detail/text.hpp"
#include "socratic/process/environment.hpp"

namespace socratic {

namespace detail {

struct secret_registry {
  std::mutex mutex;
  std::vector<std::string> values;
  static secret_registry& instance() {
    static secret_registry r;
    return r;
  }
};

}  // namespace detail

/// @brief Adds a value to the secrets that redact_secrets() removes (keys loaded from files,
/// proxy passwords, ...). Values shorter than 8 characters are ignored: redacting them would
/// mangle ordinary text.
inline void register_secret(std::string_view value) {
  if (value.size() < 8) return;
  auto& r = detail::secret_registry::instance();
  std::lock_guard lock(r.mutex);
  for (const auto& v : r.values)
    if (v == value) return;
  r.values.emplace_back(value);
}

/// @brief Every secret known to the process: registered values and the values of the
/// environment's secret variables (see is_secret_variable()).
inline std::vector<std::string> known_secrets() {
  std::vector<std::string> out = secret_values_from_environment();
  auto& r = detail::secret_registry::instance();
  std::lock_guard lock(r.mutex);
  out.insert(out.end(), r.values.begin(), r.values.end());
  return out;
}

/// @brief `text` with every known secret replaced by `[REDACTED]`.
inline std::string redact_secrets(std::string text) {
  for (const auto& secret : known_secrets()) {
    for (auto pos = text.find(secret); pos != std::string::npos; pos = text.find(secret, pos))
      text.replace(pos, secret.size(), "[REDACTED]");
  }
  return text;
}

/// @brief An API key. It has no stream operator and no JSON conversion: the only way to read
/// it is reveal(), which the transport calls when it builds a request header.
///
/// @par Example
/// @code
/// auto key = ApiKey::from_environment_or_file("OPENAI_API_KEY");  // or OPENAI_API_KEY_FILE
/// if (key.empty()) { std::cerr << "set OPENAI_API_KEY\n"; return 2; }
/// @endcode
class ApiKey {
 public:
  /// @brief No key (local servers such as vLLM or llama.cpp often need none).
  ApiKey() = default;

  /// @brief The value of environment variable `variable`; empty when unset.
  static ApiKey from_environment(std::string_view variable) {
    ApiKey key;
    key.source_ = "environment variable " + std::string(variable);
    if (const char* v = std::getenv(std::string(variable).c_str())) key.value_ = trimmed(v);
    register_secret(key.value_);
    return key;
  }

  /// @brief The contents of `file`, surrounding whitespace removed.
  /// @throws input_error naming the file when it cannot be read or is empty (never its content).
  static ApiKey from_file(const std::filesystem::path& file) {
    std::ifstream in(file, std::ios::binary);
    if (!in) throw input_error(file.string(), "API key file", "cannot be read");
    std::ostringstream text;
    text << in.rdbuf();
    ApiKey key;
    key.source_ = "file " + file.string();
    key.value_ = trimmed(text.str());
    if (key.value_.empty()) throw input_error(file.string(), "API key file", "is empty");
    if (key.value_.find_first_of("\r\n") != std::string::npos)
      throw input_error(file.string(), "API key file", "holds more than one line");
    register_secret(key.value_);
    return key;
  }

  /// @brief `$VARIABLE` when set, else the file named by `$VARIABLE_FILE` when set, else empty.
  static ApiKey from_environment_or_file(std::string_view variable) {
    ApiKey key = from_environment(variable);
    if (!key.empty()) return key;
    const std::string file_variable = std::string(variable) + "_FILE";
    if (const char* path = std::getenv(file_variable.c_str()); path && *path) return from_file(path);
    key.source_ = "environment variable " + std::string(variable) + " or " + file_variable;
    return key;
  }

  bool empty() const noexcept { return value_.empty(); }
  /// @brief The key itself, for an Authorization header. Never log it.
  const std::string& reveal() const noexcept { return value_; }
  /// @brief Where the key came from (or was looked for), safe to print.
  const std::string& source() const noexcept { return source_; }

 private:
  static std::string trimmed(std::string_view s) { return std::string(http::detail::trim(s)); }
  std::string value_;
  std::string source_ = "no key given";
};

}  // namespace socratic
