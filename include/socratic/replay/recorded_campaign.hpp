#pragma once
/// @file
/// @brief A recorded campaign on disk (a folder with `trace.jsonl` in the Campaign trace schema,
/// `candidates/<sha256>.<ext>` snapshots, and `recording.json` describing it), read into the
/// turns and evaluations that ReplayAgent and ReplayEvaluator play back.

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "socratic/record/trace.hpp"
#include "socratic/record/trace_state.hpp"
#include "socratic/core/error.hpp"
#include "socratic/core/json.hpp"
#include "socratic/core/scenario.hpp"
#include "socratic/core/detail/sha256.hpp"

namespace socratic {

/// @brief One recorded turn: the candidate versions the agent evaluated, the version it ended
/// with, and its last words.
struct RecordedTurn {
  int turn = 0;
  std::vector<std::string> evaluated_hashes;  ///< candidate versions the agent evaluated, in order
  std::string final_hash;                     ///< the candidate when the turn ended (stop check)
  std::string final_message;
};

/// @brief A recorded campaign, loaded.
struct RecordedCampaign {
  std::filesystem::path folder;
  json description = json::object();  ///< recording.json
  TraceSummary summary;               ///< the recorded trace, folded
  std::vector<RecordedTurn> turns;
  std::vector<EvaluationRecord> evaluations;  ///< every recorded evaluation, in order
  std::string candidate_extension;            ///< e.g. `.cu`

  /// @brief The bytes of a recorded candidate version. Throws input_error when absent.
  std::string candidate_bytes(const std::string& hash) const {
    const auto path = folder / "candidates" / (hash + candidate_extension);
    try {
      return read_file_bytes(path);
    } catch (const std::exception&) {
      throw input_error(path.string(), {}, "recorded candidate version missing");
    }
  }
};

/// @brief Loads a recording folder. Errors name the file and what is missing.
inline RecordedCampaign load_recorded_campaign(const std::filesystem::path& folder) {
  RecordedCampaign rc;
  rc.folder = folder;
  const auto trace = folder / "trace.jsonl";
  if (!std::filesystem::exists(trace)) throw input_error(trace.string(), {}, "no recorded trace in this folder");
  if (std::filesystem::exists(folder / "recording.json")) rc.description = read_json_file(folder / "recording.json");
  const std::vector<json> events = read_trace(trace).events;
  rc.summary = summarize_trace(events);
  rc.evaluations = rc.summary.state.evaluations;
  if (rc.evaluations.empty()) throw input_error(trace.string(), {}, "the recorded campaign has no evaluation");
  if (rc.summary.started.is_object() && rc.summary.started.contains("candidate")) {
    const std::filesystem::path source = rc.summary.started["candidate"].value("source", "");
    rc.candidate_extension = source.extension().string();
  }

  std::map<int, RecordedTurn> turns;
  for (const auto& e : events) {
    const std::optional<TraceEventType> type = trace_event_type(e);
    if (type == TraceEventType::turn_started) {
      const int t = e.value("turn", 0);
      turns[t].turn = t;
    } else if (type == TraceEventType::turn_ended) {
      const int t = e.value("turn", 0);
      turns[t].turn = t;
      if (e.contains("result") && e["result"].is_object()) turns[t].final_message = e["result"].value("final_message", "");
    } else if (type == TraceEventType::evaluation) {
      const EvaluationRecord rec = e.at("record").get<EvaluationRecord>();
      RecordedTurn& rt = turns[rec.turn];
      rt.turn = rec.turn;
      if (rec.origin == EvaluationOrigin::agent)
        rt.evaluated_hashes.push_back(rec.candidate_hash);
      else
        rt.final_hash = rec.candidate_hash;
    }
  }
  for (auto& [t, rt] : turns) {
    if (rt.final_hash.empty() && !rt.evaluated_hashes.empty()) rt.final_hash = rt.evaluated_hashes.back();
    rc.turns.push_back(rt);
  }
  // Every version the replay will write must be present.
  for (const auto& ev : rc.evaluations)
    if (!ev.candidate_hash.empty()) (void)rc.candidate_bytes(ev.candidate_hash);
  return rc;
}

}  // namespace socratic
