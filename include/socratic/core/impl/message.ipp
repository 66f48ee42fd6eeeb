#pragma once
/// @file
/// @brief Definitions for socratic/core/message.hpp: included there in header-only builds, and by
/// socratic/src.hpp (compiled once) with SOCRATIC_SEPARATE_COMPILATION.

#include "socratic/core/message.hpp"

namespace socratic {

SOCRATIC_DECL void to_json(json& j, const Usage& u) {
  j = json{{"input_tokens", u.input_tokens},         {"output_tokens", u.output_tokens},
           {"cache_read_tokens", u.cache_read_tokens}, {"cache_write_tokens", u.cache_write_tokens},
           {"cost_usd", u.cost_usd},                 {"requests", u.requests},
           {"failed_requests", u.failed_requests}};
}

SOCRATIC_DECL void from_json(const json& j, Usage& u) {
  u.input_tokens = optional_field<long long>(j, "input_tokens", 0);
  u.output_tokens = optional_field<long long>(j, "output_tokens", 0);
  u.cache_read_tokens = optional_field<long long>(j, "cache_read_tokens", 0);
  u.cache_write_tokens = optional_field<long long>(j, "cache_write_tokens", 0);
  u.cost_usd = optional_field<double>(j, "cost_usd", 0);
  u.requests = optional_field<int>(j, "requests", 0);
  u.failed_requests = optional_field<int>(j, "failed_requests", 0);
}

SOCRATIC_DECL void to_json(json& j, const Message& m) {
  j = json{{"turn", m.turn}, {"text", m.text}, {"resumed", m.resumed}};
  j["question"] = m.question ? json(*m.question) : json(nullptr);
  j["verdict"] = m.verdict ? json(*m.verdict) : json(nullptr);
}

SOCRATIC_DECL void from_json(const json& j, Message& m) {
  m.turn = required<int>(j, "turn", "message");
  m.text = required<std::string>(j, "text", "message");
  m.resumed = optional_field<bool>(j, "resumed", false);
  m.question = optional_value<Question>(j, "question", "message");
  m.verdict = optional_value<Verdict>(j, "verdict", "message");
}

SOCRATIC_DECL void to_json(json& j, const TurnResult& t) {
  j = json{{"final_message", t.final_message}, {"tool_calls", t.tool_calls},
           {"usage", t.usage}, {"error", t.error}};
}

SOCRATIC_DECL void from_json(const json& j, TurnResult& t) {
  t.final_message = optional_field<std::string>(j, "final_message", "");
  t.tool_calls = optional_field<int>(j, "tool_calls", 0);
  t.usage = optional_field<Usage>(j, "usage", {});
  t.error = optional_field<std::string>(j, "error", "");
}

}  // namespace socratic
