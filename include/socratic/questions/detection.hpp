#pragma once
/// @file
/// @brief Running the trigger detectors at a moment and choosing the trigger to ask about: the one
/// piece of code that the campaign engine (campaign/engine.hpp) and the trace replay
/// (questions/trace_replay.hpp, `socratic detect`) share, so that a replay sees what the campaign
/// saw. Pure: it records nothing; the engine writes what fired into the trace.

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "socratic/core/campaign_state.hpp"
#include "socratic/core/question.hpp"
#include "socratic/core/verdict.hpp"
#include "socratic/core/detail/separate_compilation.hpp"
#include "socratic/questions/detector.hpp"

namespace socratic {

/// @brief Stable name of a moment, as traces and `socratic detect` write it.
constexpr std::string_view to_string(Moment m) noexcept {
  switch (m) {
    case Moment::campaign_start: return "campaign_start";
    case Moment::after_evaluation: return "after_evaluation";
    case Moment::turn_end: return "turn_end";
  }
  return "unknown";
}

/// @brief The moments consulted when an agent stops without the goal: first the stop itself
/// (with the agent's last words and the verdict), then the stop check's own evaluation (a
/// suspicious gain or a plateau can show only there).
SOCRATIC_DECL const std::vector<Moment>& moments_at_stop();

/// @brief One event a detector fired, with the moment it fired at.
struct FiredEvent {
  Moment moment = Moment::campaign_start;
  TriggerEvent event;
};

/// @brief A detector that threw: the campaign records it and goes on.
struct DetectorFailure {
  std::string detector;
  std::string error;
};

/// @brief What the detectors found at one step: every event, the failures, and which event to ask
/// about (`chosen`: the highest priority, the first of equals; none when nothing fired).
struct Detection {
  std::vector<FiredEvent> fired;
  std::vector<DetectorFailure> failures;
  std::optional<std::size_t> chosen;

  const TriggerEvent* strongest() const { return chosen ? &fired[*chosen].event : nullptr; }
};

/// @brief Index of the strongest event (the highest priority, the first of equals).
SOCRATIC_DECL std::optional<std::size_t> strongest_event(const std::vector<FiredEvent>& fired);

/// @brief Runs every detector at each moment in turn over the same state. The agent's message and
/// the verdict are shown at `turn_end` only. A detector that throws is listed in `failures`; an
/// event without a detector name gets the detector's.
SOCRATIC_DECL Detection detect_triggers(const std::vector<std::shared_ptr<TriggerDetector>>& detectors,
                                        const std::vector<Moment>& moments, const CampaignState& state,
                                        std::string_view agent_message = {}, const Verdict* verdict = nullptr,
                                        std::string_view agent_id = {});

}  // namespace socratic

#ifndef SOCRATIC_SEPARATE_COMPILATION
#include "socratic/questions/impl/detection.ipp"
#endif
