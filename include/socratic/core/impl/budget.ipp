#pragma once
/// @file
/// @brief Definitions for socratic/core/budget.hpp: included there in header-only builds, and by
/// socratic/src.hpp (compiled once) with SOCRATIC_SEPARATE_COMPILATION.

#include "socratic/core/budget.hpp"

namespace socratic {

SOCRATIC_DECL std::optional<StopReason> parse_stop_reason(std::string_view s) noexcept {
  for (auto r : {StopReason::goal_met, StopReason::turn_budget, StopReason::tool_call_budget,
                 StopReason::evaluation_budget, StopReason::token_budget,
                 StopReason::wall_time_budget, StopReason::cost_budget, StopReason::agent_error,
                 StopReason::evaluator_error, StopReason::cancelled,
                 StopReason::proposals_spent, StopReason::agents_done, StopReason::waiting_for_agent})
    if (to_string(r) == s) return r;
  return std::nullopt;
}

SOCRATIC_DECL void to_json(json& j, StopReason r) { j = std::string(to_string(r)); }

SOCRATIC_DECL void from_json(const json& j, StopReason& r) {
  if (!j.is_string()) throw input_error({}, "stop reason", "expected a string, got " + j.dump());
  const auto parsed = parse_stop_reason(j.get_ref<const std::string&>());
  if (!parsed)
    throw input_error({}, "stop reason",
                      "unknown stop reason \"" + j.get<std::string>() +
                          "\" (goal_met, turn_budget, tool_call_budget, evaluation_budget, token_budget, "
                          "wall_time_budget, cost_budget, agent_error, evaluator_error, cancelled, proposals_spent, "
                          "agents_done, waiting_for_agent)");
  r = *parsed;
}

SOCRATIC_DECL std::optional<StopReason> exhausted_budget(const Budget& b, const Spent& s, bool count_turns) noexcept {
  if (count_turns && b.turns && s.turns >= *b.turns) return StopReason::turn_budget;
  if (b.tool_calls && s.tool_calls >= *b.tool_calls) return StopReason::tool_call_budget;
  if (b.evaluations && s.agent_evaluations >= *b.evaluations) return StopReason::evaluation_budget;
  if (b.tokens && s.tokens >= *b.tokens) return StopReason::token_budget;
  if (b.wall_seconds && s.wall_seconds >= *b.wall_seconds) return StopReason::wall_time_budget;
  if (b.cost_usd && s.cost_usd >= *b.cost_usd) return StopReason::cost_budget;
  return std::nullopt;
}

SOCRATIC_DECL void to_json(json& j, const Budget& b) {
  j = json::object();
  auto put = [&](const char* k, const auto& v) { j[k] = v ? json(*v) : json(nullptr); };
  put("turns", b.turns);
  put("tool_calls", b.tool_calls);
  put("evaluations", b.evaluations);
  put("tokens", b.tokens);
  put("wall_seconds", b.wall_seconds);
  put("cost_usd", b.cost_usd);
}

SOCRATIC_DECL void from_json(const json& j, Budget& b) {
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

SOCRATIC_DECL void to_json(json& j, const Spent& s) {
  j = json{{"turns", s.turns},         {"tool_calls", s.tool_calls},
           {"evaluations", s.evaluations}, {"agent_evaluations", s.agent_evaluations},
           {"tokens", s.tokens},       {"wall_seconds", s.wall_seconds},
           {"cost_usd", s.cost_usd}};
}

SOCRATIC_DECL void from_json(const json& j, Spent& s) {
  s.turns = optional_field<int>(j, "turns", 0);
  s.tool_calls = optional_field<int>(j, "tool_calls", 0);
  s.evaluations = optional_field<int>(j, "evaluations", 0);
  s.agent_evaluations = optional_field<int>(j, "agent_evaluations", 0);
  s.tokens = optional_field<long long>(j, "tokens", 0);
  s.wall_seconds = optional_field<double>(j, "wall_seconds", 0);
  s.cost_usd = optional_field<double>(j, "cost_usd", 0);
}

}  // namespace socratic
