#pragma once
/// @file
/// @brief mcp::StoreTools: the tools of an agent of a campaign with a candidate store
/// (store/candidate_store.hpp, docs/store.md): `propose` (a candidate gated against the
/// incumbent and appended to the store, as a job), `notes` (what the others found: the
/// incumbent, the best per scenario, recent failures, their notes) and `note` (one for them).
///
/// The store has one writer at a time (an flock). Each MCP server is an agent; `propose` and
/// `note` take the writer's lock for the time of one gate (waiting while another agent's server
/// or a coordinator holds it), so several clients share one store without a coordinator process.
/// A proposal's key is `AGENT/N/HASH` (N: the agent's records so far), so a proposal repeated
/// after a kill is not gated or counted twice. docs/mcp.md.

#include <chrono>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "socratic/eval/report_table.hpp"
#include "socratic/mcp/jobs.hpp"
#include "socratic/mcp/server.hpp"
#include "socratic/store/candidate_store.hpp"
#include "socratic/store/gate.hpp"

namespace socratic::mcp {

/// @brief What the store tools need from their campaign.
struct StoreToolsConfig {
  std::filesystem::path store_dir;
  std::string agent = "main";
  std::filesystem::path workspace;     ///< relative candidate paths start here
  std::filesystem::path candidate;     ///< the default candidate
  PairMeasure measure;                 ///< the candidate timed against the incumbent
  /// Non-empty: why this campaign's evaluator cannot time against an incumbent (propose refuses).
  std::string measure_unavailable;
  GateConfig gate;
  /// The candidate read and snapshotted by the campaign (content hash set).
  std::function<Candidate(const Candidate&)> snapshot;
  /// Records the gate's report as one of the campaign's evaluations; returns its index (or -1).
  std::function<int(const Candidate&, const EvalReport&)> record_evaluation;
  double lock_wait_s = 900;  ///< how long propose and note wait for another writer
};

namespace detail {

/// Opens the store as its writer, waiting while another holds it.
inline CandidateStore open_store_writer(const std::filesystem::path& dir, double wait_s) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(static_cast<long long>(wait_s * 1000));
  for (;;) {
    try {
      return CandidateStore::open(dir);
    } catch (const std::exception& e) {
      const std::string what = e.what();
      if (what.find("held by another writer") == std::string::npos || std::chrono::steady_clock::now() >= deadline) throw;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
}

inline std::string summary_line(const RecordSummary& s) {
  return s.id + " by " + s.agent + " (" + std::string(to_string(s.verdict)) + "): " + s.reason;
}

}  // namespace detail

/// @brief The store tools; jobs run on the campaign tools' queue (one worker, one shutdown).
class StoreTools {
 public:
  StoreTools(StoreToolsConfig config, JobQueue& jobs) : config_(std::move(config)), jobs_(jobs) {}

  std::vector<ToolDefinition> definitions() {
    std::vector<ToolDefinition> out;
    out.push_back(propose_tool());
    out.push_back(notes_tool());
    out.push_back(note_tool());
    return out;
  }

 private:
  std::filesystem::path in_workspace(const std::string& p) const {
    const std::filesystem::path path(p);
    return (path.is_absolute() ? path : config_.workspace / path).lexically_normal();
  }

  ToolDefinition propose_tool() {
    ToolDefinition t;
    t.name = "propose";
    t.title = "Propose a candidate to the campaign's store";
    t.description =
        "Propose a candidate to the campaign shared with other agents: the gate times it against the "
        "incumbent and admits it only when it is faster beyond the noise (correct, no banned library). "
        "Returns a job id at once; `result` gives the gate's verdict and the store's record.";
    t.input_schema = json{
        {"type", "object"},
        {"properties",
         {{"candidate", {{"type", "string"}, {"description", "the candidate's path (default the campaign's)"}}},
          {"origin", {{"type", "string"}, {"enum", json::array({"question", "draft", "mutation", "crossover", "user"})}}},
          {"question_id", {{"type", "string"}, {"description", "the bank question that led to it"}}},
          {"question_text", {{"type", "string"}}},
          {"parents", {{"type", "array"}, {"items", {{"type", "string"}}}, {"description", "store records it was made from"}}}}},
        {"additionalProperties", false}};
    t.call = [this](const json& args, const CallContext&) { return propose(args); };
    return t;
  }

  ToolResult propose(const json& args) {
    if (!config_.measure_unavailable.empty()) return ToolResult::error("propose is not available: " + config_.measure_unavailable);
    for (const auto& [key, value] : args.items())
      if (key != "candidate" && key != "origin" && key != "question_id" && key != "question_text" && key != "parents")
        return ToolResult::error("unknown argument \"" + key + "\" (candidate, origin, question_id, question_text, parents)");
    Candidate candidate;
    candidate.source = config_.candidate;
    if (args.contains("candidate")) {
      if (!args["candidate"].is_string()) return ToolResult::error("argument \"candidate\" must be a string");
      candidate.source = in_workspace(args["candidate"].get<std::string>());
    }
    if (!std::filesystem::is_regular_file(candidate.source))
      return ToolResult::error("no candidate file at " + candidate.source.string());
    Origin origin;
    origin.kind = OriginKind::user;
    if (args.contains("origin")) {
      if (!args["origin"].is_string()) return ToolResult::error("argument \"origin\" must be a string");
      try {
        origin.kind = parse_origin_kind(args["origin"].get<std::string>(), "argument \"origin\"");
      } catch (const std::exception& e) {
        return ToolResult::error(e.what());
      }
    }
    for (const char* k : {"question_id", "question_text"})
      if (args.contains(k) && !args[k].is_string()) return ToolResult::error(std::string("argument \"") + k + "\" must be a string");
    origin.question_id = args.value("question_id", std::string());
    origin.question_text = args.value("question_text", std::string());
    std::vector<std::string> parents;
    if (args.contains("parents")) {
      if (!args["parents"].is_array()) return ToolResult::error("argument \"parents\" must be an array of record ids");
      for (const auto& p : args["parents"]) {
        if (!p.is_string()) return ToolResult::error("argument \"parents\" must be an array of record ids");
        parents.push_back(p.get<std::string>());
      }
    }
    const json request{{"kind", "propose"}, {"candidate", candidate.source.string()}, {"agent", config_.agent}};
    const std::string id = jobs_.submit(request, [this, candidate, origin, parents] { return gate(candidate, origin, parents); });
    ToolResult r;
    r.text = "Proposal job " + id + " queued for " + candidate.source.filename().string() +
             ". Call `result` with {\"job\": \"" + id + "\"} for the gate's verdict.";
    r.structured = json{{"job", id}, {"status", "queued"}};
    return r;
  }

  JobQueue::Commit gate(const Candidate& candidate, const Origin& origin, const std::vector<std::string>& parents) {
    const Candidate prepared = config_.snapshot ? config_.snapshot(candidate) : candidate;
    auto store = std::make_shared<CandidateStore>(detail::open_store_writer(config_.store_dir, config_.lock_wait_s));
    for (const auto& p : parents)
      if (!store->summary(p)) throw error("parent \"" + p + "\" is not a record of the store " + config_.store_dir.string());
    int mine = 0;
    for (const auto& s : store->summaries()) mine += s.agent == config_.agent ? 1 : 0;
    const std::string key = config_.agent + "/" + std::to_string(mine) + "/" + prepared.content_hash;
    if (auto existing = store->find_key(key))
      return [existing, key]() -> json {
        return json{{"record", existing->id}, {"verdict", std::string(to_string(existing->verdict))},
                    {"reason", existing->reason}, {"key", key}, {"appended", false}};
      };
    const std::optional<RecordSummary> inc = store->incumbent();
    std::optional<Candidate> inc_candidate;
    if (inc) {
      const StoreRecord r = store->record(inc->id);
      inc_candidate = Candidate{store->dir() / r.snapshot.entry, inc->id, r.snapshot.hash, store->dir() / r.snapshot.entry};
    }
    GateResult g;
    try {
      g = GateRunner(config_.measure, config_.gate).judge(prepared, inc_candidate);
    } catch (const std::exception& e) {
      EvalReport failed;
      failed.candidate = prepared;
      failed.error = std::string("evaluator failed: ") + e.what();
      g.reports = {failed};
      g.decision = decide(g.reports, inc.has_value(), false, config_.gate);
    }
    return [this, store, g, inc, prepared, origin, parents, key]() -> json {
      const int evaluation = config_.record_evaluation ? config_.record_evaluation(prepared, g.reports.back()) : -1;
      StoreRecord r;
      r.key = key;
      r.parents = parents;
      r.agent = config_.agent;
      r.origin = origin;
      if (!prepared.content_hash.empty()) r.snapshot = store->take_snapshot(prepared.judged_file());
      r.report = g.reports.back();
      r.gate = g.record(config_.gate, inc ? inc->id : std::string());
      const AppendResult a = store->append(std::move(r));
      return json{{"record", a.record.id},
                  {"verdict", std::string(to_string(a.record.gate.verdict))},
                  {"reason", a.record.gate.reason},
                  {"incumbent_before", inc ? json(inc->id) : json(nullptr)},
                  {"key", key},
                  {"appended", a.appended},
                  {"evaluation_index", evaluation},
                  {"summary", format_report_compact(a.record.report)}};
    };
  }

  ToolDefinition notes_tool() {
    ToolDefinition t;
    t.name = "notes";
    t.title = "Read the store: the incumbent and the other agents' notes";
    t.description =
        "What the agents of this campaign found so far: the incumbent, the best time per scenario, the "
        "recent failures with the gate's reasons, and the notes left by agents (after `since`, a sequence "
        "number from an earlier call).";
    t.input_schema = json{{"type", "object"},
                          {"properties", {{"since", {{"type", "integer"}, {"description", "only notes after this seq"}}}}},
                          {"additionalProperties", false}};
    t.annotations = json{{"readOnlyHint", true}};
    t.call = [this](const json& args, const CallContext&) { return notes(args); };
    return t;
  }

  ToolResult notes(const json& args) {
    std::int64_t since = -1;
    if (args.contains("since")) {
      if (!args["since"].is_number_integer()) return ToolResult::error("argument \"since\" must be an integer");
      since = args["since"].get<std::int64_t>();
    }
    if (!std::filesystem::exists(config_.store_dir / "store.jsonl"))
      return ToolResult{"The store " + config_.store_dir.string() + " holds nothing yet.",
                        json{{"next_seq", 0}, {"candidates", 0}, {"notes", json::array()}}, false};
    StoreOptions options;
    options.read_only = true;
    const CandidateStore store = CandidateStore::open(config_.store_dir, options);
    const StoreView v = store.view(since);
    std::string text = std::to_string(v.candidates) + " candidates in the store; ";
    text += v.incumbent ? "incumbent " + detail::summary_line(*v.incumbent) + "\n" : "no incumbent yet\n";
    json best = json::object();
    if (!v.best_per_scenario.empty()) text += "Best per scenario:\n";
    for (const auto& [scenario, b] : v.best_per_scenario) {
      best[scenario] = json{{"record", b.id}, {"candidate_ms", b.candidate_ms}};
      text += "  " + scenario + ": " + std::to_string(b.candidate_ms) + " ms (" + b.id + ")\n";
    }
    if (!v.recent_failures.empty()) text += "Recent failures:\n";
    for (const auto& f : v.recent_failures) text += "  " + detail::summary_line(f) + "\n";
    text += v.notes.empty() ? "No notes" + std::string(since >= 0 ? " since " + std::to_string(since) : "") + ".\n" : "Notes:\n";
    for (const auto& n : v.notes) text += "  [" + n.id + "] " + n.agent + ": " + n.text + "\n";
    text += "(next since: " + std::to_string(v.next_seq - 1) + ")";
    json failures = json::array();
    for (const auto& f : v.recent_failures) failures.push_back(f);
    ToolResult out{text, json{{"next_seq", v.next_seq},
                              {"candidates", v.candidates},
                              {"incumbent", v.incumbent ? json(*v.incumbent) : json(nullptr)},
                              {"best_per_scenario", best},
                              {"recent_failures", failures},
                              {"notes", v.notes},
                              {"attempts_since_admission", v.attempts_since_admission}},
                   false};
    return out;
  }

  ToolDefinition note_tool() {
    ToolDefinition t;
    t.name = "note";
    t.title = "Leave a note for the other agents";
    t.description = "Leave a short note in the campaign's store (what you tried, what you measured) for the other agents.";
    t.input_schema = json{{"type", "object"},
                          {"properties", {{"text", {{"type", "string"}, {"maxLength", 4000}}}}},
                          {"required", json::array({"text"})},
                          {"additionalProperties", false}};
    t.call = [this](const json& args, const CallContext&) { return note(args); };
    return t;
  }

  ToolResult note(const json& args) {
    if (!args.contains("text") || !args["text"].is_string() || args["text"].get<std::string>().empty())
      return ToolResult::error("argument \"text\" (a non-empty string) is required");
    const std::string text = args["text"].get<std::string>();
    if (text.size() > 4000) return ToolResult::error("a note is at most 4000 characters, this one " + std::to_string(text.size()));
    CandidateStore store = detail::open_store_writer(config_.store_dir, 30);
    const StoreNote n = store.note(config_.agent, text);
    return ToolResult{"Note " + n.id + " left for the other agents.", json{{"note", n}}, false};
  }

  StoreToolsConfig config_;
  JobQueue& jobs_;
};

}  // namespace socratic::mcp
