#pragma once
/// @file
/// @brief Rebuilds a campaign's state from its trace events: what resume, `socratic detect` and
/// reports read. Pure: no I/O.

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "socratic/core/budget.hpp"
#include "socratic/core/campaign_state.hpp"
#include "socratic/core/json.hpp"
#include "socratic/core/message.hpp"
#include "socratic/core/trace_events.hpp"
#include "socratic/core/verdict.hpp"
#include "socratic/core/detail/separate_compilation.hpp"

namespace socratic {

/// @brief What a trace says about its campaign.
struct TraceSummary {
  CampaignState state;                  ///< evaluations, questions, triggers, spending, turn
  json started;                         ///< the `campaign_started` event, or null
  std::optional<Verdict> last_verdict;  ///< the last goal check at a turn end
  std::optional<Message> last_message;  ///< the last message that opened a turn
  bool ended = false;                   ///< a `campaign_ended` event ends the trace
  std::optional<StopReason> end_reason;  ///< its reason (set when `ended`)
  std::string end_detail;               ///< its detail
  int turns_started = 0;
  /// @brief A turn that started and never ended.
  struct OpenTurn {
    std::string agent;
    int turn = 0;
  };
  /// Turns started and not ended when the trace ends: in progress, or cut off by a process that
  /// died (a resume says which: `campaign_resumed`'s `cut_turns`). Counted in `state.spent.turns`.
  std::vector<OpenTurn> open_turns;
  /// Turns cut off by a process that died, as the resumes after them found them: not counted in
  /// `state.spent.turns` (the agent got nothing from them; their tokens and cost do count).
  std::vector<OpenTurn> cut_turns;
  /// Spending per agent (each event's `agent`); `wall_seconds` is the campaign's elapsed time.
  std::map<std::string, Spent, std::less<>> spent_by_agent;
};

/// @brief Folds trace events (as read by read_trace) into a TraceSummary. Events of unknown
/// type are ignored (forward compatibility); malformed known events (a stop reason or an
/// evaluation origin this version does not know among them) throw input_error naming the
/// event's seq.
SOCRATIC_DECL TraceSummary summarize_trace(const std::vector<json>& events);

}  // namespace socratic

#ifndef SOCRATIC_SEPARATE_COMPILATION
#include "socratic/record/impl/trace_state.ipp"
#endif
