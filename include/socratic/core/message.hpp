#pragma once
/// @file
/// @brief What the campaign says to an agent (Message) and what a turn returns (TurnResult, Usage).

#include <optional>
#include <string>

#include "socratic/core/json.hpp"
#include "socratic/core/question.hpp"
#include "socratic/core/verdict.hpp"

namespace socratic {

/// @brief Tokens and money spent on model calls. Failed calls that were billed count too.
struct Usage {
  long long input_tokens = 0;
  long long output_tokens = 0;
  long long cache_read_tokens = 0;
  long long cache_write_tokens = 0;
  double cost_usd = 0;
  int requests = 0;         ///< model requests made (retries included)
  int failed_requests = 0;  ///< of which failed

  long long total_tokens() const noexcept {
    return input_tokens + output_tokens + cache_read_tokens + cache_write_tokens;
  }
  Usage& operator+=(const Usage& o) noexcept {
    input_tokens += o.input_tokens;
    output_tokens += o.output_tokens;
    cache_read_tokens += o.cache_read_tokens;
    cache_write_tokens += o.cache_write_tokens;
    cost_usd += o.cost_usd;
    requests += o.requests;
    failed_requests += o.failed_requests;
    return *this;
  }
  friend bool operator==(const Usage&, const Usage&) = default;
};

inline void to_json(json& j, const Usage& u) {
  j = json{{"input_tokens", u.input_tokens},         {"output_tokens", u.output_tokens},
           {"cache_read_tokens", u.cache_read_tokens}, {"cache_write_tokens", u.cache_write_tokens},
           {"cost_usd", u.cost_usd},                 {"requests", u.requests},
           {"failed_requests", u.failed_requests}};
}
inline void from_json(const json& j, Usage& u) {
  u.input_tokens = optional_field<long long>(j, "input_tokens", 0);
  u.output_tokens = optional_field<long long>(j, "output_tokens", 0);
  u.cache_read_tokens = optional_field<long long>(j, "cache_read_tokens", 0);
  u.cache_write_tokens = optional_field<long long>(j, "cache_write_tokens", 0);
  u.cost_usd = optional_field<double>(j, "cost_usd", 0);
  u.requests = optional_field<int>(j, "requests", 0);
  u.failed_requests = optional_field<int>(j, "failed_requests", 0);
}

/// @brief What the campaign tells the agent at the start of a turn.
///
/// `text` is complete and self-contained (task, unmet conditions, question); `question` and
/// `verdict` repeat its parts in structured form for agents that want them.
struct Message {
  int turn = 0;
  std::string text;
  std::optional<Question> question;  ///< the question asked with this message, if any
  std::optional<Verdict> verdict;    ///< the failed goal check that sent the agent back, if any
  bool resumed = false;              ///< the campaign was resumed from its trace
  friend bool operator==(const Message&, const Message&) = default;
};

inline void to_json(json& j, const Message& m) {
  j = json{{"turn", m.turn}, {"text", m.text}, {"resumed", m.resumed}};
  j["question"] = m.question ? json(*m.question) : json(nullptr);
  j["verdict"] = m.verdict ? json(*m.verdict) : json(nullptr);
}
inline void from_json(const json& j, Message& m) {
  m.turn = required<int>(j, "turn", "message");
  m.text = required<std::string>(j, "text", "message");
  m.resumed = optional_field<bool>(j, "resumed", false);
  m.question = optional_value<Question>(j, "question", "message");
  m.verdict = optional_value<Verdict>(j, "verdict", "message");
}

/// @brief What one agent turn ends with. The campaign never trusts `final_message` as a result:
/// it evaluates the candidate itself.
struct TurnResult {
  std::string final_message;  ///< the agent's last words (its claim, if any)
  int tool_calls = 0;         ///< tool calls made in the turn
  Usage usage;                ///< model usage in the turn
  std::string error;          ///< non-empty when the agent could not go on (backend down, ...)
  friend bool operator==(const TurnResult&, const TurnResult&) = default;
};

inline void to_json(json& j, const TurnResult& t) {
  j = json{{"final_message", t.final_message}, {"tool_calls", t.tool_calls},
           {"usage", t.usage}, {"error", t.error}};
}
inline void from_json(const json& j, TurnResult& t) {
  t.final_message = optional_field<std::string>(j, "final_message", "");
  t.tool_calls = optional_field<int>(j, "tool_calls", 0);
  t.usage = optional_field<Usage>(j, "usage", {});
  t.error = optional_field<std::string>(j, "error", "");
}

}  // namespace socratic
