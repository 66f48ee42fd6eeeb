#pragma once
/// @file
/// @brief Budget (limits), Spent (what a campaign used) and StopReason.

#include <optional>
#include <string>
#include <string_view>

#include "socratic/core/json.hpp"

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
  }
  return "unknown";
}

inline std::optional<StopReason> parse_stop_reason(std::string_view s) noexcept {
  for (auto r : {StopReason::goal_met, StopReason::turn_budget, StopReason::tool_call_budget,
                 StopReason::evaluation_budget, StopReason::token_budget,
                 StopReason::wall_time_budget, StopReason::cost_budget, StopReason::agent_error,
                 StopReason::evaluator_error, StopReason::cancelled})
    if (to_string(r) == s) return r;
  return std::nullopt;
}

/// @brief The first budget that `spent` has reached, if any. Without `count_turns` the turn
/// budget is left out (a turn under way may use its tools to its end).
inline std::optional<StopReason> exhausted_budget(const Budget& b, const Spent& s, bool count_turns = true) noexcept {
  if (count_turns && b.turns && s.turns >= *b.turns) return StopReason::turn_budget;
  if (b.tool_calls && s.tool_calls >= *b.tool_calls) return StopReason::tool_call_budget;
  if (b.evaluations && s.agent_evaluations >= *b.evaluations) return StopReason::evaluation_budget;
  if (b.tokens && s.tokens >= *b.tokens) return StopReason::token_budget;
  if (b.wall_seconds && s.wall_seconds >= *b.wall_seconds) return StopReason::wall_time_budget;
  if (b.cost_usd && s.cost_usd >= *b.cost_usd) return StopReason::cost_budget;
  return std::nullopt;
}

inline void to_json(json& j, const Budget& b) {
  j = json::object();
  auto put = [&](const char* k, const auto& v) { j[k] = v ? json(*v) : json(nullptr); };
  put("turns", b.turns);
  put("tool_calls", b.tool_calls);
  put("evaluations", b.evaluations);
  put("tokens", b.tokens);
  put("wall_seconds", b.wall_seconds);
  put("cost_usd", b.cost_usd);
}
inline void from_json(const json& j, Budget& b) {
  if (!j.is_object()) throw input_error({}, "budget", "expected an object");
  b.turns = optional_value<int>(j, "turns", "budget");
  b.tool_calls = optional_value<int>(j, "tool_calls", "budget");
  b.evaluations = optional_value<int>(j, "evaluations", "budget");
  b.tokens = optional_value<long long>(j, "tokens", "budget");
  b.wall_seconds = optional_value<double>(j, "wall_seconds", "budget");
  b.cost_usd = optional_value<double>(j, "cost_usd", "budget");
  reject_unknown_fields(j, {"turns", "tool_calls", "evaluations", "tokens", "wall_seconds", "cost_usd"}, {},
                        "budget");
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (it->is_number() && it->get<double>() < 0)
      throw input_error({}, "budget", "field \"" + it.key() + "\" is negative");
  }
}

inline void to_json(json& j, const Spent& s) {
  j = json{{"turns", s.turns},         {"tool_calls", s.tool_calls},
           {"evaluations", s.evaluations}, {"agent_evaluations", s.agent_evaluations},
           {"tokens", s.tokens},       {"wall_seconds", s.wall_seconds},
           {"cost_usd", s.cost_usd}};
}
inline void from_json(const json& j, Spent& s) {
  s.turns = optional_field<int>(j, "turns", 0);
  s.tool_calls = optional_field<int>(j, "tool_calls", 0);
  s.evaluations = optional_field<int>(j, "evaluations", 0);
  s.agent_evaluations = optional_field<int>(j, "agent_evaluations", 0);
  s.tokens = optional_field<long long>(j, "tokens", 0);
  s.wall_seconds = optional_field<double>(j, "wall_seconds", 0);
  s.cost_usd = optional_field<double>(j, "cost_usd", 0);
}

}  // namespace socratic
