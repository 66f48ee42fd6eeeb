#pragma once
/// @file
/// @brief Definitions for socratic/core/redact.hpp: included there in header-only builds, and by
/// socratic/src.hpp (compiled once) with SOCRATIC_SEPARATE_COMPILATION.

#include <regex>

#include "socratic/core/redact.hpp"

namespace socratic::detail {

SOCRATIC_DECL std::mutex& secret_mutex() {
  static std::mutex m;
  return m;
}

SOCRATIC_DECL std::set<std::string>& registered_secrets() {
  static std::set<std::string> s;
  return s;
}

}  // namespace socratic::detail

namespace socratic {

SOCRATIC_DECL void register_secret(std::string value) {
  if (value.size() < 8) return;  // too short to redact without mangling ordinary text
  std::lock_guard lock(detail::secret_mutex());
  detail::registered_secrets().insert(std::move(value));
}

SOCRATIC_DECL std::string Redactor::redact(std::string text) const {
  // Tokens of the usual shapes: OpenAI and Anthropic keys, bearer tokens, key-... keys.
  static const std::regex patterns(
      R"((sk-(ant-)?[A-Za-z0-9_\-]{16,})|([Bb]earer [A-Za-z0-9_\-\.=]{16,})|(key-[A-Za-z0-9]{16,}))");
  for (const auto& s : secrets_) {
    for (auto pos = text.find(s); pos != std::string::npos; pos = text.find(s, pos))
      text.replace(pos, s.size(), mask);
  }
  if (looks_tokenish(text)) text = std::regex_replace(text, patterns, std::string(mask));
  return text;
}

SOCRATIC_DECL void Redactor::redact(json& j) const {
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

}  // namespace socratic
