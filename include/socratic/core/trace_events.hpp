#pragma once
/// @file
/// @brief The closed sets a campaign trace is written in: its event types and the stop hook's
/// verdict kinds. One definition each, used by the writer and every reader (docs/trace.md is the
/// contract; the names on disk are the enumerators' names).
///
/// A name this version does not know is handled explicitly: an event type is reported as absent
/// (readers skip such events: a newer writer's), a verdict kind read through from_json throws an
/// input_error naming the value and the known names. Nothing is mapped silently to a known value.

#include <array>
#include <optional>
#include <string>
#include <string_view>

#include "socratic/core/error.hpp"
#include "socratic/core/json.hpp"

namespace socratic {

/// @brief The type of a trace line (its `type` member).
enum class TraceEventType {
  campaign_started,
  campaign_resumed,
  campaign_continued,
  candidate_restored,
  turn_started,
  tool_call,
  usage,
  agent_event,
  evaluation,
  judge_modified,
  trigger,
  question,
  turn_ended,
  verdict,
  detector_error,
  question_source_error,
  hook_call,
  mcp_call,
  mcp_job,
  gated,  ///< a campaign of several agents: a proposal went through the gate
  draft,  ///< a campaign of several agents: a new direction asked at a plateau
  campaign_ended,
};

inline constexpr std::array<TraceEventType, 22> all_trace_event_types{
    TraceEventType::campaign_started,   TraceEventType::campaign_resumed, TraceEventType::campaign_continued,
    TraceEventType::candidate_restored, TraceEventType::turn_started,     TraceEventType::tool_call,
    TraceEventType::usage,              TraceEventType::agent_event,      TraceEventType::evaluation,
    TraceEventType::judge_modified,     TraceEventType::trigger,          TraceEventType::question,
    TraceEventType::turn_ended,         TraceEventType::verdict,          TraceEventType::detector_error,
    TraceEventType::question_source_error, TraceEventType::hook_call,     TraceEventType::mcp_call,
    TraceEventType::mcp_job,            TraceEventType::gated,            TraceEventType::draft,
    TraceEventType::campaign_ended};

constexpr std::string_view to_string(TraceEventType t) noexcept {
  switch (t) {
    case TraceEventType::campaign_started: return "campaign_started";
    case TraceEventType::campaign_resumed: return "campaign_resumed";
    case TraceEventType::campaign_continued: return "campaign_continued";
    case TraceEventType::candidate_restored: return "candidate_restored";
    case TraceEventType::turn_started: return "turn_started";
    case TraceEventType::tool_call: return "tool_call";
    case TraceEventType::usage: return "usage";
    case TraceEventType::agent_event: return "agent_event";
    case TraceEventType::evaluation: return "evaluation";
    case TraceEventType::judge_modified: return "judge_modified";
    case TraceEventType::trigger: return "trigger";
    case TraceEventType::question: return "question";
    case TraceEventType::turn_ended: return "turn_ended";
    case TraceEventType::verdict: return "verdict";
    case TraceEventType::detector_error: return "detector_error";
    case TraceEventType::question_source_error: return "question_source_error";
    case TraceEventType::hook_call: return "hook_call";
    case TraceEventType::mcp_call: return "mcp_call";
    case TraceEventType::mcp_job: return "mcp_job";
    case TraceEventType::gated: return "gated";
    case TraceEventType::draft: return "draft";
    case TraceEventType::campaign_ended: return "campaign_ended";
  }
  return "unknown";
}

/// @brief The event type of `name`; none for a name this version does not know.
constexpr std::optional<TraceEventType> parse_trace_event_type(std::string_view name) noexcept {
  for (TraceEventType t : all_trace_event_types)
    if (to_string(t) == name) return t;
  return std::nullopt;
}

/// @brief The type of a trace line: none when it has no string `type` or one this version does
/// not know (docs/trace.md: readers skip such events, so a newer writer's traces still read).
inline std::optional<TraceEventType> trace_event_type(const json& event) {
  if (!event.is_object()) return std::nullopt;
  const auto it = event.find("type");
  if (it == event.end() || !it->is_string()) return std::nullopt;
  return parse_trace_event_type(it->get_ref<const std::string&>());
}

/// @brief Whether a trace line is of type `t`.
inline bool is_event(const json& event, TraceEventType t) { return trace_event_type(event) == t; }

inline void to_json(json& j, TraceEventType t) { j = std::string(to_string(t)); }
inline void from_json(const json& j, TraceEventType& t) {
  if (!j.is_string()) throw input_error({}, "trace event \"type\"", "expected a string, got " + j.dump());
  const auto parsed = parse_trace_event_type(j.get_ref<const std::string&>());
  if (!parsed) throw input_error({}, "trace event \"type\"", "unknown event type \"" + j.get<std::string>() + "\"");
  t = *parsed;
}

/// @brief What one call of the stop hook decided (`hook_call`'s `kind`).
enum class HookVerdict {
  goal_met,         ///< the goal holds: the agent stops
  goal_unmet,       ///< the goal does not hold: the agent is sent back
  error,            ///< the hook failed: the agent is held
  block_cap,        ///< the cap on blocks in a row let the agent stop without the goal
  evaluator_error,  ///< the evaluator failed too often in a row: the campaign ended unverified
  judge_fault,      ///< a harness or configuration fault: nothing judged, the agent let go
};

inline constexpr std::array<HookVerdict, 6> all_hook_verdicts{HookVerdict::goal_met,   HookVerdict::goal_unmet,
                                                              HookVerdict::error,      HookVerdict::block_cap,
                                                              HookVerdict::evaluator_error, HookVerdict::judge_fault};

constexpr std::string_view to_string(HookVerdict v) noexcept {
  switch (v) {
    case HookVerdict::goal_met: return "goal_met";
    case HookVerdict::goal_unmet: return "goal_unmet";
    case HookVerdict::error: return "error";
    case HookVerdict::block_cap: return "block_cap";
    case HookVerdict::evaluator_error: return "evaluator_error";
    case HookVerdict::judge_fault: return "judge_fault";
  }
  return "unknown";
}

/// @brief The verdict kind of `name`; none for a name this version does not know.
constexpr std::optional<HookVerdict> parse_hook_verdict(std::string_view name) noexcept {
  for (HookVerdict v : all_hook_verdicts)
    if (to_string(v) == name) return v;
  return std::nullopt;
}

inline void to_json(json& j, HookVerdict v) { j = std::string(to_string(v)); }
inline void from_json(const json& j, HookVerdict& v) {
  if (!j.is_string()) throw input_error({}, "hook_call \"kind\"", "expected a string, got " + j.dump());
  const auto parsed = parse_hook_verdict(j.get_ref<const std::string&>());
  if (!parsed)
    throw input_error({}, "hook_call \"kind\"",
                      "unknown verdict kind \"" + j.get<std::string>() +
                          "\" (goal_met, goal_unmet, error, block_cap, evaluator_error, judge_fault)");
  v = *parsed;
}

}  // namespace socratic
