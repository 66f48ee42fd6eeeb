#pragma once
/// @file
/// @brief Replays a campaign trace's events through trigger detectors, rebuilding the campaign's
/// state event by event, and consulting them with the campaign engine's own code
/// (questions/detection.hpp, as campaign/engine.hpp does), so that it sees what the campaign saw.
/// `socratic detect` prints what fires. Pure: read the events with read_trace()
/// (record/trace.hpp); summarize_trace() (record/trace_state.hpp) folds a whole trace at once.
///
/// Events (docs/trace.md): `campaign_started` (campaign_id, arch, has_reference) runs the
/// detectors at campaign_start; `turn_started`/`turn_ended` set the turn (and, at turn_ended, keep
/// the agent's final message); an `evaluation` by the agent appends its record and runs them at
/// after_evaluation; a `stop_check` evaluation waits for its `verdict`: when unmet, the detectors
/// run at turn_end (with the message and the verdict) and then at after_evaluation for the stop
/// check, as the campaign does, and the strongest of both is `chosen`. `question` and `trigger`
/// events extend `asked` and `triggers`. Other types are skipped, so newer traces still replay.
/// A detector that throws is skipped as in the campaign, and listed in failures().
/// Budgets are not modelled: at a stop that exhausted a budget the campaign asks nothing, while
/// the replay still reports what the detectors see.

#include <memory>
#include <optional>
#include <utility>
#include <string>
#include <vector>

#include "socratic/core/campaign_state.hpp"
#include "socratic/core/error.hpp"
#include "socratic/core/json.hpp"
#include "socratic/core/trace_events.hpp"
#include "socratic/core/message.hpp"
#include "socratic/core/verdict.hpp"
#include "socratic/questions/detection.hpp"
#include "socratic/questions/detector.hpp"

namespace socratic {

/// @brief A trigger a detector fired during replay.
struct FiredTrigger {
  long seq = -1;               ///< seq of the trace event it fired at
  std::string at;              ///< that event's type
  Moment moment = Moment::campaign_start;
  TriggerEvent event;
  int turn = 0;
  int evaluation_index = -1;   ///< the last evaluation at that point, -1 if none
  long message_seq = -1;       ///< turn_end: seq of the turn_ended event holding the message
  bool chosen = false;         ///< the highest priority among those fired at the same moment
};

inline void to_json(json& j, const FiredTrigger& f) {
  j = json{{"seq", f.seq},          {"at", f.at},
           {"moment", std::string(to_string(f.moment))},
           {"trigger", f.event.trigger}, {"detector", f.event.detector},
           {"priority", f.event.priority}, {"chosen", f.chosen},
           {"turn", f.turn},        {"evaluation_index", f.evaluation_index},
           {"evidence", f.event.evidence}, {"details", f.event.details}};
  if (f.message_seq >= 0) j["message_seq"] = f.message_seq;
}

/// @brief Feeds trace lines one at a time, keeping the campaign state, running the detectors.
class TraceReplayer {
 public:
  explicit TraceReplayer(std::vector<std::shared_ptr<TriggerDetector>> detectors = {})
      : detectors_(std::move(detectors)) {}

  const CampaignState& state() const noexcept { return state_; }
  /// @brief The detectors that threw during the replay, with the seq of the event.
  const std::vector<std::pair<long, DetectorFailure>>& failures() const noexcept { return failures_; }

  /// @brief Applies one line; returns the triggers fired at it. Errors name the line's field;
  /// the caller adds the file and line number.
  std::vector<FiredTrigger> feed(const json& line) {
    const std::string type = required<std::string>(line, "type", "trace event");
    const long seq = optional_field<long>(line, "seq", -1);
    if (auto t = optional_value<double>(line, "elapsed_s")) state_.elapsed_s = *t;
    const std::string where = "trace event \"" + type + "\"";
    const std::optional<TraceEventType> kind = parse_trace_event_type(type);  // none: a newer writer's, skipped
    agent_ = optional_field<std::string>(line, "agent", "", where);

    if (kind == TraceEventType::campaign_started) {
      state_.campaign_id = optional_field<std::string>(line, "campaign_id", "", where);
      state_.arch = optional_field<std::string>(line, "arch", "", where);
      state_.has_reference = optional_field<bool>(line, "has_reference", false, where);
      return run({Moment::campaign_start}, seq, type, "", nullptr, -1);
    }
    if (kind == TraceEventType::turn_started) {
      state_.turn = optional_field<int>(line, "turn", state_.turn, where);
    } else if (kind == TraceEventType::evaluation) {
      state_.evaluations.push_back(required<EvaluationRecord>(line, "record", where));
      if (state_.evaluations.back().origin == EvaluationOrigin::stop_check) {
        pending_stop_check_ = true;  // judged at its verdict, as the campaign does
        return {};
      }
      return run({Moment::after_evaluation}, seq, type, "", nullptr, -1);
    } else if (kind == TraceEventType::question) {
      AskedQuestion asked = required<AskedQuestion>(line, "asked", where);
      if (asked.agent_id.empty()) asked.agent_id = optional_field<std::string>(line, "agent", "", where);
      state_.asked.push_back(std::move(asked));
    } else if (kind == TraceEventType::trigger) {
      state_.triggers.push_back(required<TriggerEvent>(line, "event", where));
    } else if (kind == TraceEventType::turn_ended) {
      state_.turn = optional_field<int>(line, "turn", state_.turn, where);
      const TurnResult result = optional_field<TurnResult>(line, "result", {}, where);
      state_.last_agent_message = result.final_message;
      pending_turn_end_ = seq;
    } else if (kind == TraceEventType::verdict) {
      const Verdict verdict = required<Verdict>(line, "verdict", where);
      const long message_seq = pending_turn_end_.value_or(-1);
      const bool stop_check = pending_stop_check_;
      pending_turn_end_.reset();
      pending_stop_check_ = false;
      if (!verdict.met && message_seq >= 0) {
        const std::vector<Moment> moments =
            stop_check ? moments_at_stop() : std::vector<Moment>{Moment::turn_end};
        return run(moments, seq, type, state_.last_agent_message, &verdict, message_seq);
      }
    }
    return {};
  }

 private:
  /// Runs the detectors at each moment in turn, as the engine does; its choice is marked `chosen`.
  std::vector<FiredTrigger> run(const std::vector<Moment>& moments, long seq, const std::string& type,
                                const std::string& message, const Verdict* verdict, long message_seq) {
    const Detection d = detect_triggers(detectors_, moments, state_, message, verdict, agent_);
    for (const auto& f : d.failures) failures_.emplace_back(seq, f);
    std::vector<FiredTrigger> fired;
    for (std::size_t i = 0; i < d.fired.size(); ++i) {
      FiredTrigger f;
      f.seq = seq;
      f.at = type;
      f.moment = d.fired[i].moment;
      f.event = d.fired[i].event;
      f.turn = state_.turn;
      f.evaluation_index = state_.evaluations.empty() ? -1 : state_.evaluations.back().index;
      f.message_seq = f.moment == Moment::turn_end ? message_seq : -1;
      f.chosen = d.chosen && *d.chosen == i;
      fired.push_back(std::move(f));
    }
    return fired;
  }

  std::vector<std::shared_ptr<TriggerDetector>> detectors_;
  CampaignState state_;
  std::vector<std::pair<long, DetectorFailure>> failures_;
  std::string agent_;
  std::optional<long> pending_turn_end_;
  bool pending_stop_check_ = false;
};

/// @brief Replays trace events (as read_trace() returns them). Returns every fired trigger;
/// `state` (when given) receives the rebuilt campaign state. Errors name `file` and the event's
/// seq.
inline std::vector<FiredTrigger> replay_trace(const std::vector<json>& events, const std::string& file,
                                              std::vector<std::shared_ptr<TriggerDetector>> detectors,
                                              CampaignState* state = nullptr) {
  TraceReplayer replayer(std::move(detectors));
  std::vector<FiredTrigger> all;
  for (const json& event : events) {
    try {
      auto fired = replayer.feed(event);
      all.insert(all.end(), fired.begin(), fired.end());
    } catch (const input_error& e) {
      const std::string where = "trace event seq " + std::to_string(event.value("seq", -1L));
      throw input_error(file, where + (e.where().empty() ? "" : ": " + e.where()), e.message());
    }
  }
  if (state) *state = replayer.state();
  return all;
}

}  // namespace socratic
