#pragma once
/// @file
/// @brief Replays a campaign trace (JSONL) through trigger detectors, rebuilding the campaign's
/// state event by event. `socratic detect` prints what fires; `socratic bank credit` uses the
/// rebuilt state to credit questions.
///
/// The lines read (format in docs/question-bank.md, written by campaign/trace.hpp):
/// `campaign_started` (campaign_id, arch, has_reference) runs the detectors at campaign_start;
/// `turn_started`/`turn_ended` set the turn (and, at turn_ended, keep the agent's final message);
/// `evaluation` appends its record and runs them at after_evaluation; `question` appends to
/// `asked`; `trigger` appends to `triggers`; a `verdict` that follows a `turn_ended` runs them at
/// turn_end when it is unmet. Other types are skipped, so newer traces still replay.

#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "socratic/core/campaign_state.hpp"
#include "socratic/core/error.hpp"
#include "socratic/core/json.hpp"
#include "socratic/core/message.hpp"
#include "socratic/core/verdict.hpp"
#include "socratic/questions/detector.hpp"
#include "socratic/questions/detectors.hpp"

namespace socratic {

/// @brief A trace read from disk: its lines, and warnings about what was skipped.
struct TraceLines {
  std::vector<json> lines;
  std::vector<std::size_t> line_numbers;  ///< 1-based, parallel to `lines`
  std::vector<std::string> warnings;
};

/// @brief Reads a JSONL trace. A last line that does not parse is a campaign killed while
/// writing: it is skipped with a warning. Any other bad line is an error naming the line.
inline TraceLines read_trace_lines(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw input_error(path.string(), {}, "cannot open trace");
  TraceLines t;
  std::string text;
  std::size_t number = 0;
  std::optional<std::pair<std::size_t, std::string>> pending_error;
  while (std::getline(in, text)) {
    ++number;
    if (text.find_first_not_of(" \t\r") == std::string::npos) continue;
    if (pending_error)
      throw input_error(path.string(), "line " + std::to_string(pending_error->first), pending_error->second);
    json j;
    try {
      j = json::parse(text);
    } catch (const json::parse_error& e) {
      pending_error = {number, std::string("invalid JSON: ") + e.what()};
      continue;
    }
    if (!j.is_object() || !j.contains("type") || !j["type"].is_string())
      throw input_error(path.string(), "line " + std::to_string(number), "expected an object with a string \"type\"");
    t.lines.push_back(std::move(j));
    t.line_numbers.push_back(number);
  }
  if (pending_error)
    t.warnings.push_back(path.string() + ": line " + std::to_string(pending_error->first) +
                         ": skipped (truncated last line?): " + pending_error->second);
  return t;
}

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

  /// @brief Applies one line; returns the triggers fired at it. Errors name the line's field;
  /// the caller adds the file and line number.
  std::vector<FiredTrigger> feed(const json& line) {
    const std::string type = required<std::string>(line, "type", "trace event");
    const long seq = optional_field<long>(line, "seq", -1);
    if (auto t = optional_value<double>(line, "elapsed_s")) state_.elapsed_s = *t;
    const std::string where = "trace event \"" + type + "\"";

    if (type == "campaign_started") {
      state_.campaign_id = optional_field<std::string>(line, "campaign_id", "", where);
      state_.arch = optional_field<std::string>(line, "arch", "", where);
      state_.has_reference = optional_field<bool>(line, "has_reference", false, where);
      return run(Moment::campaign_start, seq, type, "", nullptr, -1);
    }
    if (type == "turn_started") {
      state_.turn = optional_field<int>(line, "turn", state_.turn, where);
    } else if (type == "evaluation") {
      state_.evaluations.push_back(required<EvaluationRecord>(line, "record", where));
      return run(Moment::after_evaluation, seq, type, "", nullptr, -1);
    } else if (type == "question") {
      state_.asked.push_back(required<AskedQuestion>(line, "asked", where));
    } else if (type == "trigger") {
      state_.triggers.push_back(required<TriggerEvent>(line, "event", where));
    } else if (type == "turn_ended") {
      state_.turn = optional_field<int>(line, "turn", state_.turn, where);
      const TurnResult result = optional_field<TurnResult>(line, "result", {}, where);
      state_.last_agent_message = result.final_message;
      pending_turn_end_ = seq;
    } else if (type == "verdict") {
      const Verdict verdict = required<Verdict>(line, "verdict", where);
      if (pending_turn_end_) {
        const long message_seq = *pending_turn_end_;
        pending_turn_end_.reset();
        if (!verdict.met)
          return run(Moment::turn_end, seq, type, state_.last_agent_message, &verdict, message_seq);
      }
    }
    return {};
  }

 private:
  std::vector<FiredTrigger> run(Moment moment, long seq, const std::string& type, const std::string& message,
                                const Verdict* verdict, long message_seq) {
    std::vector<FiredTrigger> fired;
    DetectionContext context{moment, state_, message, verdict};
    for (auto& d : detectors_)
      if (auto e = d->detect(context)) {
        FiredTrigger f;
        f.seq = seq;
        f.at = type;
        f.moment = moment;
        f.event = std::move(*e);
        f.turn = state_.turn;
        f.evaluation_index = state_.evaluations.empty() ? -1 : state_.evaluations.back().index;
        f.message_seq = message_seq;
        fired.push_back(std::move(f));
      }
    std::size_t top = 0;
    for (std::size_t i = 1; i < fired.size(); ++i)
      if (fired[i].event.priority > fired[top].event.priority) top = i;
    if (!fired.empty()) fired[top].chosen = true;
    return fired;
  }

  std::vector<std::shared_ptr<TriggerDetector>> detectors_;
  CampaignState state_;
  std::optional<long> pending_turn_end_;
};

/// @brief Replays a whole trace file. Returns every fired trigger; `state` (when given) receives
/// the rebuilt campaign state. Errors name the file and the line.
inline std::vector<FiredTrigger> replay_trace(const TraceLines& trace, const std::string& file,
                                              std::vector<std::shared_ptr<TriggerDetector>> detectors,
                                              CampaignState* state = nullptr) {
  TraceReplayer replayer(std::move(detectors));
  std::vector<FiredTrigger> all;
  for (std::size_t i = 0; i < trace.lines.size(); ++i) {
    try {
      auto fired = replayer.feed(trace.lines[i]);
      all.insert(all.end(), fired.begin(), fired.end());
    } catch (const input_error& e) {
      throw input_error(file, "line " + std::to_string(trace.line_numbers[i]) + (e.where().empty() ? "" : ": " + e.where()),
                        e.message());
    }
  }
  if (state) *state = replayer.state();
  return all;
}

}  // namespace socratic
