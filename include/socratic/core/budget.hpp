#pragma once
/// @file
/// @brief Budget (limits), Spent (what a campaign used) and StopReason.

#include <optional>
#include <string>
#include <string_view>

#include "socratic/core/json.hpp"
#include "socratic/core/detail/separate_compilation.hpp"

namespace socratic {

/// @brief Limits on a campaign. An unset limit is unlimited.
struct Budget {
  std::optional<int> turns;
  std::optional<int> tool_calls;
  std::optional<int> evaluations;   ///< evaluations the agent may request (stop checks are bounded by turns)
  std::optional<long long> tokens;  ///< model tokens, all kinds
  std::optional<double> wall_seconds;
  std::optional<double> cost_usd;
  friend bool operator==(const Budget&, const Budget&) = default;
};

/// @brief What a campaign has used so far. Restored from the trace on resume.
struct Spent {
  int turns = 0;
  int tool_calls = 0;
  int evaluations = 0;  ///< all evaluations, the campaign's stop checks included
  int agent_evaluations = 0;  ///< evaluations the agent asked for (what `Budget::evaluations` bounds)
  long long tokens = 0;
  double wall_seconds = 0;
  double cost_usd = 0;
  friend bool operator==(const Spent&, const Spent&) = default;
};

/// @brief Why a campaign ended.
enum class StopReason {
  goal_met,
  turn_budget,
  tool_call_budget,
  evaluation_budget,
  token_budget,
  wall_time_budget,
  cost_budget,
  agent_error,
  evaluator_error,  ///< the evaluator threw on several evaluations in a row
  cancelled,
  proposals_spent,  ///< a campaign of several agents: the store holds its cap of gated proposals
  agents_done,      ///< a campaign of several agents: every agent's budget or proposals are spent
  /// a campaign of several agents paused: an asynchronous agent (InboxAgent) has no answer yet
  /// for its next turn; left open, it resumes when run again
  waiting_for_agent,
};

constexpr std::string_view to_string(StopReason r) noexcept {
  switch (r) {
    case StopReason::goal_met: return "goal_met";
    case StopReason::turn_budget: return "turn_budget";
    case StopReason::tool_call_budget: return "tool_call_budget";
    case StopReason::evaluation_budget: return "evaluation_budget";
    case StopReason::token_budget: return "token_budget";
    case StopReason::wall_time_budget: return "wall_time_budget";
    case StopReason::cost_budget: return "cost_budget";
    case StopReason::agent_error: return "agent_error";
    case StopReason::evaluator_error: return "evaluator_error";
    case StopReason::cancelled: return "cancelled";
    case StopReason::proposals_spent: return "proposals_spent";
    case StopReason::agents_done: return "agents_done";
    case StopReason::waiting_for_agent: return "waiting_for_agent";
  }
  return "unknown";
}

/// @brief The stop reason of `name`; none for a name this version does not know.
SOCRATIC_DECL std::optional<StopReason> parse_stop_reason(std::string_view s) noexcept;

/// @brief Writes a stop reason as its name; reading a name this version does not know throws an
/// input_error naming it and the known names (never mapped to another reason).
SOCRATIC_DECL void to_json(json& j, StopReason r);
SOCRATIC_DECL void from_json(const json& j, StopReason& r);

/// @brief The first budget that `spent` has reached, if any. Without `count_turns` the turn
/// budget is left out (a turn under way may use its tools to its end).
SOCRATIC_DECL std::optional<StopReason> exhausted_budget(const Budget& b, const Spent& s, bool count_turns = true) noexcept;

SOCRATIC_DECL void to_json(json& j, const Budget& b);
SOCRATIC_DECL void from_json(const json& j, Budget& b);

SOCRATIC_DECL void to_json(json& j, const Spent& s);
SOCRATIC_DECL void from_json(const json& j, Spent& s);

}  // namespace socratic

#ifndef SOCRATIC_SEPARATE_COMPILATION
#include "socratic/core/impl/budget.ipp"
#endif
