#pragma once
/// @file
/// @brief TriggerDetector: the interface of the pluggable detectors that notice the five moments.
///
/// The campaign runs its detectors at three kinds of moment: the start of the campaign, after
/// every evaluation, and when the agent ends a turn without the goal met. Each detector may
/// return a TriggerEvent; the campaign records every event and asks its question source about
/// the one with the highest priority. Reference detectors live in questions/detectors.hpp.

#include <optional>
#include <string>
#include <string_view>

#include "socratic/core/campaign_state.hpp"
#include "socratic/core/question.hpp"
#include "socratic/core/verdict.hpp"

namespace socratic {

/// @brief When a detector is consulted.
enum class Moment {
  campaign_start,    ///< before the first turn
  after_evaluation,  ///< after any evaluation (the agent's or the campaign's stop check)
  turn_end,          ///< the agent ended its turn and the goal does not hold
};

/// @brief What a detector sees. `agent_message` is the agent's last words at a turn end (empty
/// otherwise); `verdict` is the goal check at a turn end; `agent_id` the agent whose step it is
/// (campaigns may run several agents over one state; empty when unknown).
struct DetectionContext {
  Moment moment;
  const CampaignState& state;
  std::string_view agent_message;
  const Verdict* verdict = nullptr;
  std::string_view agent_id = {};
};

/// @brief A detector of one of the five moments. Implementations document their thresholds.
class TriggerDetector {
 public:
  virtual ~TriggerDetector() = default;
  /// @brief Short stable name, recorded with each event.
  virtual std::string name() const = 0;
  /// @brief The event, when this detector's moment has come.
  virtual std::optional<TriggerEvent> detect(const DetectionContext& context) = 0;
};

}  // namespace socratic
