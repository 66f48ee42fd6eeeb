#pragma once
/// @file
/// @brief Definitions for socratic/questions/detection.hpp: included there in header-only builds,
/// and by socratic/src.hpp (compiled once) with SOCRATIC_SEPARATE_COMPILATION.

#include "socratic/questions/detection.hpp"

namespace socratic {

SOCRATIC_DECL const std::vector<Moment>& moments_at_stop() {
  static const std::vector<Moment> moments = {Moment::turn_end, Moment::after_evaluation};
  return moments;
}

SOCRATIC_DECL std::optional<std::size_t> strongest_event(const std::vector<FiredEvent>& fired) {
  std::optional<std::size_t> best;
  for (std::size_t i = 0; i < fired.size(); ++i)
    if (!best || fired[i].event.priority > fired[*best].event.priority) best = i;
  return best;
}

SOCRATIC_DECL Detection detect_triggers(const std::vector<std::shared_ptr<TriggerDetector>>& detectors,
                                        const std::vector<Moment>& moments, const CampaignState& state,
                                        std::string_view agent_message, const Verdict* verdict,
                                        std::string_view agent_id) {
  Detection out;
  for (Moment moment : moments) {
    const bool at_turn_end = moment == Moment::turn_end;
    const DetectionContext context{moment, state, at_turn_end ? agent_message : std::string_view(),
                                   at_turn_end ? verdict : nullptr, agent_id};
    for (const auto& d : detectors) {
      if (!d) continue;
      std::optional<TriggerEvent> event;
      try {
        event = d->detect(context);
      } catch (const std::exception& e) {
        out.failures.push_back({d->name(), e.what()});
        continue;
      }
      if (!event) continue;
      if (event->detector.empty()) event->detector = d->name();
      out.fired.push_back({moment, std::move(*event)});
    }
  }
  out.chosen = strongest_event(out.fired);
  return out;
}

}  // namespace socratic
