#pragma once
/// @file
/// @brief mcp::CampaignTools<E, Q, G>: Socratic's judge and questions as MCP tools over one
/// campaign (its engine, evaluator, question source and goal): `evaluate` (a job, answered at
/// once), `result` (a compact per-scenario table; the full report in a file), `ask` (the next
/// question for a trigger), `scan` (banned libraries in a binary) and `standing` (the goal's
/// verdict, the incumbent, the best per scenario). Every call and every job's end is an event
/// of the campaign's trace with the agent's id (`mcp_call`, `mcp_job`); evaluations are the
/// campaign's own `evaluation` events. docs/mcp.md.
///
/// The trace may be written by other processes too (the stop hook of the same client): every
/// step opens the campaign afresh (the engine's attach mode, as the hook does), so that it
/// counts what the others wrote; evaluations run with no engine open, and are recorded after.

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "socratic/campaign/engine.hpp"
#include "socratic/record/trace_state.hpp"
#include "socratic/core/files.hpp"
#include "socratic/eval/report_table.hpp"
#include "socratic/mcp/detail/child_groups.hpp"
#include "socratic/mcp/jobs.hpp"
#include "socratic/mcp/server.hpp"
#include "socratic/scan/ban_policy.hpp"
#include "socratic/scan/scanner.hpp"

namespace socratic::mcp {

/// @brief How the tools work on their campaign.
struct CampaignToolsOptions {
  std::string agent = "main";              ///< the agent id every event is recorded with
  std::filesystem::path jobs_dir;          ///< job records; default STATE_DIR/mcp/jobs
  std::filesystem::path reports_dir;       ///< full reports the agent may read; default WORKSPACE/socratic-reports
  BanPolicy ban_policy = default_ban_policy();
  std::size_t max_text_chars = 12000;      ///< a tool's text beyond it is cut (clients cap output)
  double max_wait_s = 30;                  ///< `result`'s longest wait (clients cap a call's time)
};

namespace detail {

inline std::string cut(std::string text, std::size_t max) {
  if (text.size() <= max) return text;
  text.resize(max);
  return text + "\n[... cut at " + std::to_string(max) + " characters]";
}

inline std::optional<std::string> string_argument(const json& args, const std::string& name, bool required) {
  if (!args.contains(name) || args[name].is_null()) {
    if (required) throw input_error({}, "argument \"" + name + "\"", "is required");
    return std::nullopt;
  }
  if (!args[name].is_string()) throw input_error({}, "argument \"" + name + "\"", "must be a string");
  return args[name].get<std::string>();
}

inline std::string verdict_text(const Verdict& v) {
  if (v.met) return "the goal holds";
  std::string out = "the goal does not hold:";
  for (const auto& u : v.unmet)
    out += "\n  " + (u.scenario.empty() ? std::string() : u.scenario + ": ") + u.condition + " required " + u.required +
           ", measured " + u.measured;
  return out;
}

}  // namespace detail

/// @brief The Socratic tools over one campaign. @tparam E an Evaluator, @tparam Q a
/// QuestionSource, @tparam G a GoalPredicate (copyable); the evaluator and the source are held
/// by reference and must outlive the tools.
template <Evaluator E, QuestionSource Q, GoalPredicate G>
class CampaignTools {
 public:
  using Engine = CampaignEngine<E, Q, G>;

  CampaignTools(E& evaluator, Q& questions, G goal, CampaignConfig config, CampaignToolsOptions options = {})
      : evaluator_(evaluator),
        questions_(questions),
        goal_(std::move(goal)),
        config_(std::move(config)),
        options_(std::move(options)) {
    if (options_.jobs_dir.empty()) options_.jobs_dir = config_.state_dir / "mcp" / "jobs";
    if (options_.reports_dir.empty()) options_.reports_dir = config_.workspace / "socratic-reports";
    jobs_ = std::make_unique<JobQueue>(options_.jobs_dir);
    jobs_->on_change = [this](const JobRecord& r) { record_job(r); };
  }

  /// @brief The tools, in the order tools/list gives them.
  std::vector<ToolDefinition> definitions() {
    std::vector<ToolDefinition> out;
    out.push_back(evaluate_tool());
    out.push_back(result_tool());
    out.push_back(ask_tool());
    out.push_back(scan_tool());
    out.push_back(standing_tool());
    return out;
  }

  /// @brief Records one tools/call as an `mcp_call` event of the trace.
  void record_call(const std::string& tool, const json& arguments, const ToolResult& result, const CallContext& ctx) {
    std::string args = arguments.dump();
    json event{{"tool", tool},
               {"arguments", args.size() > 4096 ? json(args.substr(0, 4096) + "...") : arguments},
               {"is_error", result.is_error},
               {"protocol_version", ctx.protocol_version},
               {"client", ctx.client_info.value("name", std::string())},
               {"text", result.text.substr(0, 600)}};
    if (result.structured.is_object() && result.structured.contains("job")) event["job"] = result.structured["job"];
    with_engine([&](Engine& e) {
      e.record_event(options_.agent, TraceEventType::mcp_call, std::move(event));
      return 0;
    });
  }

  /// @brief What shutdown() holds: the queue's lock and the trace's, so that nothing commits or
  /// writes after it.
  struct Stopped {
    std::unique_lock<std::mutex> jobs, trace;
  };

  /// @brief The client went away: every queued and running job ends as cancelled (recorded in
  /// its file and in the trace), and the children of this process are killed with their groups.
  /// Returns holding the locks; the caller exits.
  Stopped shutdown(const std::string& why) {
    Stopped s;
    s.jobs = jobs_->cancel_all(why);
    detail::kill_child_process_groups();
    s.trace = std::unique_lock<std::mutex>(trace_mutex_);
    return s;
  }

  JobQueue& jobs() noexcept { return *jobs_; }
  const CampaignConfig& config() const noexcept { return config_; }
  const CampaignToolsOptions& options() const noexcept { return options_; }

  /// @brief Runs `f` on the campaign opened afresh (serialised within this process).
  template <class F>
  auto with_engine(F&& f) {
    std::lock_guard lock(trace_mutex_);
    Engine engine(evaluator_, questions_, goal_, config_);
    engine.open(OpenOptions{true, "mcp"});
    return f(engine);
  }

 private:
  std::filesystem::path in_workspace(const std::string& path) const {
    const std::filesystem::path p(path);
    return (p.is_absolute() ? p : config_.workspace / p).lexically_normal();
  }

  void record_job(const JobRecord& r) {
    if (r.status == "queued") return;  // the mcp_call that queued it names the job
    json event{{"job", r.id}, {"status", r.status}, {"request", r.request}};
    if (!r.error.empty()) event["error"] = r.error;
    if (r.result.is_object() && r.result.contains("evaluation_index")) event["evaluation_index"] = r.result["evaluation_index"];
    with_engine([&](Engine& e) {
      e.record_event(options_.agent, TraceEventType::mcp_job, std::move(event));
      e.sync();
      return 0;
    });
  }

  // ---- evaluate ----------------------------------------------------------------------------

  ToolDefinition evaluate_tool() {
    ToolDefinition t;
    t.name = "evaluate";
    t.title = "Evaluate a candidate";
    t.description =
        "Judge a candidate with the campaign's evaluator (correctness on every scenario against the "
        "reference, time against the baseline). Returns a job id at once; the evaluation takes seconds to "
        "minutes: call `result` with the id to get the per-scenario table. Without `candidate`, the "
        "campaign's candidate file is judged.";
    t.input_schema = json{
        {"type", "object"},
        {"properties",
         {{"candidate", {{"type", "string"}, {"description", "the candidate's path (relative to the workspace); default the campaign's"}}},
          {"label", {{"type", "string"}, {"description", "a name for this version, kept with the evaluation"}}}}},
        {"additionalProperties", false}};
    t.call = [this](const json& args, const CallContext&) { return evaluate(args); };
    return t;
  }

  ToolResult evaluate(const json& args) {
    for (const auto& [key, value] : args.items())
      if (key != "candidate" && key != "label") return ToolResult::error("unknown argument \"" + key + "\" (candidate, label)");
    Candidate candidate = config_.candidate;
    if (auto c = detail::string_argument(args, "candidate", false)) candidate.source = in_workspace(*c);
    if (auto l = detail::string_argument(args, "label", false)) candidate.label = *l;
    if (!std::filesystem::is_regular_file(candidate.source))
      return ToolResult::error("no candidate file at " + candidate.source.string());
    const std::optional<std::string> refusal = with_engine([&](Engine& e) -> std::optional<std::string> {
      const CampaignState s = e.state();
      if (config_.budget.evaluations && s.spent.agent_evaluations >= *config_.budget.evaluations)
        return "the campaign's evaluation budget is spent (" + std::to_string(*config_.budget.evaluations) + ")";
      if (auto b = e.exhausted(options_.agent, true)) return "the campaign's budget is spent (" + std::string(to_string(b->reason)) + ")";
      return std::nullopt;
    });
    if (refusal) return ToolResult::error(*refusal + ": no evaluation was started");
    const json request{{"candidate", candidate.source.string()}, {"label", candidate.label}, {"agent", options_.agent}};
    const std::string id = jobs_->submit(request, [this, candidate] { return run_evaluation(candidate); });
    ToolResult r;
    r.text = "Evaluation job " + id + " queued for " + candidate.source.filename().string() +
             ". Call `result` with {\"job\": \"" + id + "\"} (and \"wait_s\" up to " +
             std::to_string(static_cast<int>(options_.max_wait_s)) + ") for the per-scenario table.";
    r.structured = json{{"job", id}, {"status", "queued"}, {"candidate", candidate.source.string()}};
    return r;
  }

  /// The long part of a job (no lock held); the returned commit records it.
  JobQueue::Commit run_evaluation(const Candidate& candidate) {
    const PreparedEvaluation p =
        with_engine([&](Engine& e) { return e.prepare_evaluation(options_.agent, EvaluationOrigin::agent, candidate); });
    std::optional<EvalReport> report;
    std::string failure;
    try {
      std::lock_guard one_at_a_time(evaluator_mutex_);
      report = evaluator_.evaluate(p.candidate);
    } catch (const std::exception& e) {
      failure = e.what();
    } catch (...) {
      failure = "unknown exception";
    }
    return [this, p, report, failure]() -> json {
      const EvaluationRecord rec = with_engine([&](Engine& e) {
        EvaluationRecord r = report ? e.record_evaluation(p, *report) : e.record_evaluator_failure(p, failure);
        e.sync();
        return r;
      });
      const std::filesystem::path file = options_.reports_dir / ("evaluation-" + std::to_string(rec.index) + ".json");
      std::string report_file;
      try {
        write_json_atomically(file, json(rec.report));
        report_file = file.string();
      } catch (const std::exception&) {  // the trace holds the report too
      }
      const Verdict v(goal_(rec.report));
      return json{{"evaluation_index", rec.index},
                  {"candidate_hash", rec.candidate_hash},
                  {"score", std::isfinite(rec.score()) ? json(rec.score()) : json(nullptr)},
                  {"all_correct", rec.report.all_correct()},
                  {"error", rec.report.error},
                  {"goal_met", v.met},
                  {"verdict", v},
                  {"summary", format_report_compact(rec.report)},
                  {"report_file", report_file}};
    };
  }

  // ---- result ------------------------------------------------------------------------------

  ToolDefinition result_tool() {
    ToolDefinition t;
    t.name = "result";
    t.title = "Get an evaluation's result";
    t.description =
        "The state of an evaluation job started by `evaluate`: queued, running, or its outcome as a compact "
        "per-scenario table with the goal's verdict, and the path of the full JSON report. `wait_s` waits "
        "for the job to finish, up to the limit.";
    t.input_schema =
        json{{"type", "object"},
             {"properties",
              {{"job", {{"type", "string"}, {"description", "the id `evaluate` returned"}}},
               {"wait_s", {{"type", "number"}, {"minimum", 0}, {"description", "seconds to wait for the end"}}}}},
             {"required", json::array({"job"})},
             {"additionalProperties", false}};
    t.annotations = json{{"readOnlyHint", true}};
    t.call = [this](const json& args, const CallContext&) { return result(args); };
    return t;
  }

  ToolResult result(const json& args) {
    const std::string id = *detail::string_argument(args, "job", true);
    double wait = 0;
    if (args.contains("wait_s")) {
      if (!args["wait_s"].is_number() || args["wait_s"].get<double>() < 0)
        return ToolResult::error("argument \"wait_s\" must be a number of seconds, at least 0");
      wait = std::min(args["wait_s"].get<double>(), options_.max_wait_s);
    }
    const std::optional<JobRecord> r =
        wait > 0 ? jobs_->wait(id, std::chrono::milliseconds(static_cast<long long>(wait * 1000))) : jobs_->get(id);
    if (!r) return ToolResult::error("no job \"" + id + "\" in this campaign (" + jobs_->folder().string() + ")");
    ToolResult out;
    out.structured = json{{"job", r->id}, {"status", r->status}};
    if (!r->finished()) {
      out.text = "Job " + r->id + " is " + r->status + " (queued at " + r->queued_at +
                 (r->started_at.empty() ? std::string() : ", started at " + r->started_at) +
                 "). Call `result` again, with \"wait_s\" to wait.";
      return out;
    }
    if (r->status != "done") {
      out.is_error = true;
      out.text = "Job " + r->id + " " + r->status + ": " + r->error;
      out.structured["error"] = r->error;
      return out;
    }
    const json& res = r->result;
    if (r->request.value("kind", std::string()) == "propose") {  // store_tools.hpp
      out.text = detail::cut("Proposal (job " + r->id + "): record " + res.value("record", std::string()) + " " +
                                 res.value("verdict", std::string()) + ": " + res.value("reason", std::string()) + "\n" +
                                 res.value("summary", std::string()),
                             options_.max_text_chars);
      json structured = res;
      structured["job"] = r->id;
      structured["status"] = r->status;
      out.structured = structured;
      return out;
    }
    const Verdict v = res.value("verdict", json::object()).get<Verdict>();
    out.text = "Evaluation " + std::to_string(res.value("evaluation_index", -1)) + " (job " + r->id + "): " +
               detail::verdict_text(v) + "\n" + res.value("summary", std::string()) +
               (res.value("report_file", std::string()).empty() ? std::string()
                                                              : "\nFull report: " + res.value("report_file", std::string()));
    out.text = detail::cut(out.text, options_.max_text_chars);
    // The table stays in the structured content too: a client may hand the model that alone
    // (Claude Code does), not the text.
    json structured = res;
    structured["job"] = r->id;
    structured["status"] = r->status;
    out.structured = structured;
    return out;
  }

  // ---- ask ---------------------------------------------------------------------------------

  ToolDefinition ask_tool() {
    ToolDefinition t;
    t.name = "ask";
    t.title = "Ask the next question";
    t.description =
        "The campaign's next question for a trigger, from its question bank (never one already asked in this "
        "campaign): start (planning), plateau (no progress), claimed_limit (you believe it cannot go faster), "
        "suspicious_gain (a gain too large to trust), correctness_explained_away (a mismatch called noise).";
    t.input_schema = json{
        {"type", "object"},
        {"properties",
         {{"trigger",
           {{"type", "string"},
            {"enum", json::array({"start", "plateau", "claimed_limit", "suspicious_gain", "correctness_explained_away"})}}},
          {"evidence", {{"type", "string"}, {"description", "why you ask now (kept with the question)"}}}}},
        {"required", json::array({"trigger"})},
        {"additionalProperties", false}};
    t.call = [this](const json& args, const CallContext&) { return ask(args); };
    return t;
  }

  ToolResult ask(const json& args) {
    const std::string name = *detail::string_argument(args, "trigger", true);
    const std::optional<Trigger> trigger = parse_trigger(name);
    if (!trigger)
      return ToolResult::error("unknown trigger \"" + name +
                               "\" (start, plateau, claimed_limit, suspicious_gain, correctness_explained_away)");
    const std::string evidence = detail::string_argument(args, "evidence", false).value_or("asked through MCP");
    return with_engine([&](Engine& e) -> ToolResult {
      const CampaignState state = e.state();
      const TriggerEvent event{*trigger, "mcp", evidence, 0, json::object()};
      std::optional<Question> q = questions_.ask(event, state);
      if (!q) return ToolResult{"No question of the bank fits trigger " + name + " that was not asked already.", nullptr, false};
      q->trigger = *trigger;
      if (q->evidence.empty()) q->evidence = evidence;
      const int after = state.evaluations.empty() ? -1 : state.evaluations.back().index;
      e.record_event(options_.agent, TraceEventType::trigger, {{"event", event}, {"moment", "mcp_ask"}});
      e.record_event(options_.agent, TraceEventType::question, {{"asked", AskedQuestion{*q, state.turn, after, state.elapsed_s, options_.agent}}});
      e.sync();
      return ToolResult{render_question(*q), json{{"question", *q}}, false};
    });
  }

  // ---- scan --------------------------------------------------------------------------------

  ToolDefinition scan_tool() {
    ToolDefinition t;
    t.name = "scan";
    t.title = "Scan a binary for banned libraries";
    t.description =
        "Scan a built binary (executable, shared library, object, cubin) for the libraries the campaign bans "
        "(cuBLAS, cuDNN, CUTLASS, ...): linked libraries, symbols, kernel names, library file names.";
    t.input_schema = json{{"type", "object"},
                          {"properties", {{"binary", {{"type", "string"}, {"description", "the binary's path (relative to the workspace)"}}}}},
                          {"required", json::array({"binary"})},
                          {"additionalProperties", false}};
    t.annotations = json{{"readOnlyHint", true}};
    t.call = [this](const json& args, const CallContext&) { return scan(args); };
    return t;
  }

  ToolResult scan(const json& args) {
    const std::filesystem::path binary = in_workspace(*detail::string_argument(args, "binary", true));
    if (!std::filesystem::is_regular_file(binary)) return ToolResult::error("no file at " + binary.string());
    const BinaryScan s = scan_binary_report(binary, options_.ban_policy, ScanOptions{});
    ToolResult out;
    for (const auto& f : s.findings) out.text += f.file + ": " + f.library + ": " + f.evidence + "\n";
    if (s.clean()) out.text += binary.string() + ": clean\n";
    for (const auto& n : s.notes) out.text += "note: " + n + "\n";
    out.text = detail::cut(out.text, options_.max_text_chars);
    out.structured = json{{"binary", binary.string()}, {"clean", s.clean()}, {"findings", s.findings}, {"notes", s.notes}};
    return out;
  }

  // ---- standing ----------------------------------------------------------------------------

  ToolDefinition standing_tool() {
    ToolDefinition t;
    t.name = "standing";
    t.title = "The campaign's standing";
    t.description =
        "Where the campaign stands: the goal and whether the best evaluation meets it, the incumbent (best "
        "evaluation: score, where its source is kept), the best result per scenario, and what was spent.";
    t.input_schema = json{{"type", "object"}, {"properties", json::object()}, {"additionalProperties", false}};
    t.annotations = json{{"readOnlyHint", true}};
    t.call = [this](const json&, const CallContext&) { return standing(); };
    return t;
  }

  ToolResult standing() {
    return with_engine([&](Engine& e) -> ToolResult {
      const CampaignState s = e.state();
      const TraceSummary summary = summarize_trace(e.history());
      json out{{"goal", e.goal_description()}, {"evaluations", s.evaluations.size()}, {"spent", s.spent},
               {"budget", config_.budget}};
      std::string text = "Goal: " + e.goal_description() + "\nEvaluations: " + std::to_string(s.evaluations.size()) + "\n";
      if (const EvaluationRecord* best = s.best()) {
        const Verdict v(goal_(best->report));
        out["incumbent"] = json{{"evaluation_index", best->index},
                                {"agent", best->agent_id},
                                {"score", best->score()},
                                {"candidate_hash", best->candidate_hash},
                                {"goal_met", v.met},
                                {"verdict", v}};
        text += "Incumbent: evaluation " + std::to_string(best->index) + " by " + best->agent_id + ", score " +
                std::to_string(best->score()) + " (geomean speedup): " + detail::verdict_text(v) + "\n";
      } else {
        out["incumbent"] = nullptr;
        text += "Incumbent: none yet (no evaluation with every scenario correct and timed)\n";
      }
      if (const EvaluationRecord* last = s.last_evaluation()) {
        const Verdict v(goal_(last->report));
        out["last"] = json{{"evaluation_index", last->index}, {"goal_met", v.met}, {"verdict", v}};
        text += "Last evaluation " + std::to_string(last->index) + ": " + detail::verdict_text(v) + "\n";
      }
      if (summary.last_verdict) out["last_stop_verdict"] = *summary.last_verdict;
      // Per scenario: the fastest correct result of any evaluation.
      std::map<std::string, json> best_by_scenario;
      for (const auto& rec : s.evaluations)
        for (const auto& sc : rec.report.scenarios) {
          if (!sc.correct || !std::isfinite(sc.speedup)) continue;
          auto it = best_by_scenario.find(sc.id);
          if (it == best_by_scenario.end() || sc.speedup > it->second.value("speedup", 0.0))
            best_by_scenario[sc.id] = json{{"scenario", sc.id}, {"evaluation_index", rec.index}, {"speedup", sc.speedup},
                                           {"candidate_ms", std::isfinite(sc.candidate_ms) ? json(sc.candidate_ms) : json(nullptr)}};
        }
      json per = json::array();
      if (!best_by_scenario.empty()) text += "Best per scenario:\n";
      for (const auto& [id, b] : best_by_scenario) {
        per.push_back(b);
        text += "  " + id + ": " + std::to_string(b.value("speedup", 0.0)) + "x (evaluation " +
                std::to_string(b.value("evaluation_index", -1)) + ")\n";
      }
      out["best_per_scenario"] = per;
      return ToolResult{detail::cut(text, options_.max_text_chars), out, false};
    });
  }

  E& evaluator_;
  Q& questions_;
  G goal_;
  CampaignConfig config_;
  CampaignToolsOptions options_;
  std::mutex trace_mutex_;      ///< one engine open at a time in this process
  std::mutex evaluator_mutex_;  ///< one evaluation at a time
  std::unique_ptr<JobQueue> jobs_;
};

}  // namespace socratic::mcp
