#pragma once
/// @file
/// @brief What the campaign says to an agent (Message) and what a turn returns (TurnResult, Usage).

#include <optional>
#include <string>

#include "socratic/core/json.hpp"
#include "socratic/core/question.hpp"
#include "socratic/core/verdict.hpp"
#include "socratic/core/detail/separate_compilation.hpp"

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

SOCRATIC_DECL void to_json(json& j, const Usage& u);
SOCRATIC_DECL void from_json(const json& j, Usage& u);

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

SOCRATIC_DECL void to_json(json& j, const Message& m);
SOCRATIC_DECL void from_json(const json& j, Message& m);

/// @brief What one agent turn ends with. The campaign never trusts `final_message` as a result:
/// it evaluates the candidate itself.
struct TurnResult {
  std::string final_message;  ///< the agent's last words (its claim, if any)
  int tool_calls = 0;         ///< tool calls made in the turn
  Usage usage;                ///< model usage in the turn
  std::string error;          ///< non-empty when the agent could not go on (backend down, ...)
  friend bool operator==(const TurnResult&, const TurnResult&) = default;
};

SOCRATIC_DECL void to_json(json& j, const TurnResult& t);
SOCRATIC_DECL void from_json(const json& j, TurnResult& t);

}  // namespace socratic

#ifndef SOCRATIC_SEPARATE_COMPILATION
#include "socratic/core/impl/message.ipp"
#endif
