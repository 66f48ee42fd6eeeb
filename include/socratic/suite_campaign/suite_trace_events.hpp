#pragma once
/// @file
/// @brief The suite trace's event types (STATE/suite_trace.jsonl), one definition for its writer
/// (SuiteRunner) and every reader (the suite report, resume). docs/suite-campaign.md.

#include <optional>
#include <string>
#include <string_view>

#include "socratic/core/json.hpp"

namespace socratic {

/// @brief What a line of the suite trace records.
enum class SuiteEventType {
  suite_started,
  agent_moved,    ///< an agent assigned to another problem for the next round
  round_planned,  ///< a round's assignment, written once per round
  problem_ended,  ///< a problem's campaign ended (its goal met, or its budget spent)
  round_ended,
  suite_paused,   ///< left open: the next run resumes it
  suite_stopped,  ///< a round's work failed: the suite stops, its state kept
  suite_ended,
};

constexpr std::string_view to_string(SuiteEventType t) noexcept {
  switch (t) {
    case SuiteEventType::suite_started: return "suite_started";
    case SuiteEventType::agent_moved: return "agent_moved";
    case SuiteEventType::round_planned: return "round_planned";
    case SuiteEventType::problem_ended: return "problem_ended";
    case SuiteEventType::round_ended: return "round_ended";
    case SuiteEventType::suite_paused: return "suite_paused";
    case SuiteEventType::suite_stopped: return "suite_stopped";
    case SuiteEventType::suite_ended: return "suite_ended";
  }
  return "unknown";
}

/// @brief The event type named `name`; none for a name this version does not write.
constexpr std::optional<SuiteEventType> parse_suite_event_type(std::string_view name) noexcept {
  for (const SuiteEventType t :
       {SuiteEventType::suite_started, SuiteEventType::agent_moved, SuiteEventType::round_planned,
        SuiteEventType::problem_ended, SuiteEventType::round_ended, SuiteEventType::suite_paused,
        SuiteEventType::suite_stopped, SuiteEventType::suite_ended})
    if (to_string(t) == name) return t;
  return std::nullopt;
}

/// @brief A suite trace line: `fields` with the event's type.
inline json suite_event(SuiteEventType type, json fields) {
  fields["type"] = std::string(to_string(type));
  return fields;
}

}  // namespace socratic
