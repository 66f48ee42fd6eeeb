#pragma once
/// @file
/// @brief The records of a campaign's candidate store: one per gated candidate (who proposed it,
/// from which parents, led by which question or direction, the bytes judged, the full report,
/// the gate's verdict and why) and one per note an agent leaves for the others. Their JSON form
/// is the store's line format (docs/store.md).

#include <cmath>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "socratic/core/error.hpp"
#include "socratic/core/json.hpp"
#include "socratic/core/candidate_origin.hpp"
#include "socratic/core/gate_outcome.hpp"
#include "socratic/core/store_line_type.hpp"
#include "socratic/core/report.hpp"

namespace socratic {

/// @brief Version of the store's line format (`"v"` of every line).
inline constexpr int store_version = 1;

/// @brief The question or direction that led to a candidate.
struct Origin {
  OriginKind kind = OriginKind::question;
  std::string question_id;    ///< the bank entry's id (empty: none)
  std::string question_text;  ///< the question or the direction as the agent was given it
  friend bool operator==(const Origin&, const Origin&) = default;
};

/// @brief One file of a snapshot.
struct SnapshotFile {
  std::string path;    ///< relative to the candidate's entry folder (the entry first)
  std::string sha256;  ///< of its bytes
  std::size_t bytes = 0;
  friend bool operator==(const SnapshotFile&, const SnapshotFile&) = default;
};

/// @brief The bytes judged: the candidate's content hash (core/candidate_files.hpp), its files,
/// and where the store keeps the copy (relative to the store's folder).
struct SnapshotInfo {
  std::string hash;
  std::string entry;  ///< the copy of the entry, relative to the store folder (`candidates/HASH.cu`)
  std::vector<SnapshotFile> files;
  friend bool operator==(const SnapshotInfo&, const SnapshotInfo&) = default;
};

/// @brief The gate's verdict on a candidate, why, and the figures it decided on
/// (store/gate.hpp writes them: speedup over the incumbent, its bound, the noise, remeasures).
struct GateRecord {
  GateOutcome verdict = GateOutcome::failed;
  std::string reason;             ///< one sentence a human can check
  std::string incumbent;          ///< id of the incumbent it was measured against (empty: none)
  json figures = json::object();  ///< GateFigures as JSON
  friend bool operator==(const GateRecord&, const GateRecord&) = default;
};

/// @brief A candidate as the store keeps it.
struct StoreRecord {
  std::int64_t seq = -1;  ///< position in the store (0, 1, ...), given by the store
  std::string id;         ///< `c<seq>`, given by the store
  /// A key that names the proposal (e.g. agent, its proposal number, content hash): a record
  /// whose key is in the store already is not appended again, so a coordinator that resumes
  /// after a kill counts nothing twice. Empty: no key.
  std::string key;
  std::vector<std::string> parents;  ///< ids of the records it was made from
  std::string agent;                 ///< the agent that proposed it
  Origin origin;
  SnapshotInfo snapshot;
  EvalReport report;  ///< the full report of the gate's (last) measurement
  GateRecord gate;
  std::string time;      ///< ISO 8601, given by the store
  double unix_s = 0;     ///< given by the store
  friend bool operator==(const StoreRecord&, const StoreRecord&) = default;
};

/// @brief A note an agent leaves for the others (what it tried, what it found).
struct StoreNote {
  std::int64_t seq = -1;
  std::string id;  ///< `n<seq>`
  std::string agent;
  std::string text;
  std::string time;
  double unix_s = 0;
  friend bool operator==(const StoreNote&, const StoreNote&) = default;
};

/// @brief One scenario of a record, in its summary.
struct ScenarioFigure {
  bool correct = false;
  double candidate_ms = detail::nan;
  double speedup = detail::nan;  ///< against the baseline of that record's run (the incumbent)
  friend bool operator==(const ScenarioFigure&, const ScenarioFigure&) = default;
};

/// @brief What the index keeps of a candidate record: enough for a view without reading reports.
struct RecordSummary {
  std::int64_t seq = -1;
  std::string id;
  std::string key;
  std::string agent;
  std::vector<std::string> parents;
  OriginKind origin = OriginKind::question;
  std::string question_id;
  std::string hash;
  GateOutcome verdict = GateOutcome::failed;
  std::string reason;
  std::map<std::string, ScenarioFigure> scenarios;
  double unix_s = 0;
  friend bool operator==(const RecordSummary&, const RecordSummary&) = default;
};

// ---- JSON -----------------------------------------------------------------------------------

inline void to_json(json& j, const Origin& o) {
  j = json{{"kind", std::string(to_string(o.kind))}, {"question_id", o.question_id}, {"question_text", o.question_text}};
}
inline void from_json(const json& j, Origin& o) {
  o.kind = parse_origin_kind(required<std::string>(j, "kind", "origin"), "origin");
  o.question_id = optional_field<std::string>(j, "question_id", "");
  o.question_text = optional_field<std::string>(j, "question_text", "");
}
inline void to_json(json& j, const SnapshotFile& f) { j = json{{"path", f.path}, {"sha256", f.sha256}, {"bytes", f.bytes}}; }
inline void from_json(const json& j, SnapshotFile& f) {
  f.path = required<std::string>(j, "path", "snapshot file");
  f.sha256 = required<std::string>(j, "sha256", "snapshot file");
  f.bytes = optional_field<std::size_t>(j, "bytes", 0);
}
inline void to_json(json& j, const SnapshotInfo& s) { j = json{{"hash", s.hash}, {"entry", s.entry}, {"files", s.files}}; }
inline void from_json(const json& j, SnapshotInfo& s) {
  s.hash = optional_field<std::string>(j, "hash", "");
  s.entry = optional_field<std::string>(j, "entry", "");
  s.files = optional_field<std::vector<SnapshotFile>>(j, "files", {});
}
inline void to_json(json& j, const GateRecord& g) {
  j = json{{"verdict", std::string(to_string(g.verdict))}, {"reason", g.reason}, {"incumbent", g.incumbent},
           {"figures", g.figures}};
}
inline void from_json(const json& j, GateRecord& g) {
  g.verdict = parse_gate_outcome(required<std::string>(j, "verdict", "gate"), "gate");
  g.reason = optional_field<std::string>(j, "reason", "");
  g.incumbent = optional_field<std::string>(j, "incumbent", "");
  g.figures = optional_field<json>(j, "figures", json::object());
}
inline void to_json(json& j, const StoreRecord& r) {
  j = json{{"v", store_version}, {"type", std::string(to_string(StoreLineType::candidate))}, {"seq", r.seq},       {"id", r.id},
           {"key", r.key},       {"parents", r.parents},  {"agent", r.agent},   {"origin", r.origin},
           {"snapshot", r.snapshot}, {"report", r.report}, {"gate", r.gate},   {"time", r.time},
           {"unix_s", r.unix_s}};
}
inline void from_json(const json& j, StoreRecord& r) {
  r.seq = required<std::int64_t>(j, "seq", "candidate record");
  r.id = required<std::string>(j, "id", "candidate record");
  const std::string where = "candidate record \"" + r.id + "\"";
  r.key = optional_field<std::string>(j, "key", "");
  r.parents = optional_field<std::vector<std::string>>(j, "parents", {}, where);
  r.agent = optional_field<std::string>(j, "agent", "");
  r.origin = required<Origin>(j, "origin", where);
  r.snapshot = optional_field<SnapshotInfo>(j, "snapshot", {}, where);
  r.report = required<EvalReport>(j, "report", where);
  r.gate = required<GateRecord>(j, "gate", where);
  r.time = optional_field<std::string>(j, "time", "");
  r.unix_s = optional_field<double>(j, "unix_s", 0);
}
inline void to_json(json& j, const StoreNote& n) {
  j = json{{"v", store_version}, {"type", std::string(to_string(StoreLineType::note))}, {"seq", n.seq},   {"id", n.id},
           {"agent", n.agent},   {"text", n.text}, {"time", n.time}, {"unix_s", n.unix_s}};
}
inline void from_json(const json& j, StoreNote& n) {
  n.seq = required<std::int64_t>(j, "seq", "note");
  n.id = required<std::string>(j, "id", "note");
  n.agent = optional_field<std::string>(j, "agent", "");
  n.text = required<std::string>(j, "text", "note \"" + n.id + "\"");
  n.time = optional_field<std::string>(j, "time", "");
  n.unix_s = optional_field<double>(j, "unix_s", 0);
}
inline void to_json(json& j, const ScenarioFigure& f) {
  j = json{{"correct", f.correct}, {"candidate_ms", f.candidate_ms}, {"speedup", f.speedup}};
}
inline void from_json(const json& j, ScenarioFigure& f) {
  f.correct = optional_field<bool>(j, "correct", false);
  f.candidate_ms = number_or_nan(j, "candidate_ms");
  f.speedup = number_or_nan(j, "speedup");
}

/// @brief The summary the index keeps of a record.
inline RecordSummary summarize(const StoreRecord& r) {
  RecordSummary s;
  s.seq = r.seq;
  s.id = r.id;
  s.key = r.key;
  s.agent = r.agent;
  s.parents = r.parents;
  s.origin = r.origin.kind;
  s.question_id = r.origin.question_id;
  s.hash = r.snapshot.hash;
  s.verdict = r.gate.verdict;
  s.reason = r.gate.reason;
  s.unix_s = r.unix_s;
  for (const auto& sc : r.report.scenarios) s.scenarios[sc.id] = ScenarioFigure{sc.correct, sc.candidate_ms, sc.speedup};
  return s;
}

inline void to_json(json& j, const RecordSummary& s) {
  j = json{{"seq", s.seq},         {"id", s.id},           {"key", s.key},
           {"agent", s.agent},     {"parents", s.parents}, {"origin", std::string(to_string(s.origin))},
           {"question_id", s.question_id}, {"hash", s.hash}, {"verdict", std::string(to_string(s.verdict))},
           {"reason", s.reason},   {"scenarios", s.scenarios}, {"unix_s", s.unix_s}};
}
inline void from_json(const json& j, RecordSummary& s) {
  s.seq = required<std::int64_t>(j, "seq", "summary");
  s.id = required<std::string>(j, "id", "summary");
  s.key = optional_field<std::string>(j, "key", "");
  s.agent = optional_field<std::string>(j, "agent", "");
  s.parents = optional_field<std::vector<std::string>>(j, "parents", {});
  s.origin = parse_origin_kind(optional_field<std::string>(j, "origin", "question"), "summary");
  s.question_id = optional_field<std::string>(j, "question_id", "");
  s.hash = optional_field<std::string>(j, "hash", "");
  s.verdict = parse_gate_outcome(required<std::string>(j, "verdict", "summary"), "summary");
  s.reason = optional_field<std::string>(j, "reason", "");
  s.scenarios = optional_field<std::map<std::string, ScenarioFigure>>(j, "scenarios", {});
  s.unix_s = optional_field<double>(j, "unix_s", 0);
}

}  // namespace socratic
