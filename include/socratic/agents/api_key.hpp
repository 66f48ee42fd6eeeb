#pragma once
/// @file
/// @brief ApiKey: a credential read from the environment or a file (never from the command
/// line), which cannot be printed or serialised. Every key loaded is registered with
/// register_secret(), so the Redactor removes it from traces, logs and child environments. Light.

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>

#include "socratic/core/redact.hpp"
#include "socratic/core/error.hpp"
#include "socratic/http/detail/text.hpp"

namespace socratic {

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
