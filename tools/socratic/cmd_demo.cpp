// socratic demo: the README's main job. With a GPU, the live parts in this build and an LLM key, a
// short live campaign; otherwise a recorded campaign replayed through the real campaign machinery
// (detectors, question bank, goal, Campaign, trace, report), saying plainly what is live and what
// is replayed. Ends by writing the HTML report and printing its path.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "campaign_runner.hpp"
#include "llm_drivers.hpp"
#include "socratic/core/files.hpp"
#include "socratic/replay/recorded_campaign.hpp"
#include "socratic/replay/replay_agent.hpp"
#include "report_setup.hpp"
#include "socratic/replay/replay_evaluator.hpp"
#include "socratic/replay/replay_questions.hpp"
#include "socratic/report/html_report.hpp"

namespace {

using namespace socratic;
using namespace socratic::tool;
namespace fs = std::filesystem;

struct DemoCommandOptions {
  std::string recording, output = "socratic-demo", model;
  bool live = false, replay = false;
};

/// Why live mode is not possible here (empty when it is).
std::vector<std::string> live_blockers(const std::string& model) {
  std::vector<std::string> why;
  ProcessOptions po;
  po.timeout = std::chrono::seconds(20);
  const ProcessResult smi = run_process({"nvidia-smi", "-L"}, po);
  if (!smi.ok() || smi.stdout_text.find("GPU") == std::string::npos)
    why.push_back("no GPU (nvidia-smi -L: " + (smi.started ? smi.describe() : smi.error) + ")");
  const char* a = std::getenv("ANTHROPIC_API_KEY");
  const char* o = std::getenv("OPENAI_API_KEY");
  if (!(a && *a) && !(o && *o)) why.push_back("no LLM key (ANTHROPIC_API_KEY or OPENAI_API_KEY)");
  if (model.empty()) why.push_back("no model named (--model or SOCRATIC_DEMO_MODEL)");
  return why;
}

/// A short live campaign on the attention problem: every part live.
int live(const fs::path& out, const std::string& model) {
  const fs::path data = data_dir();
  CampaignFile c;
  c.problem = "attention";
  c.file = out / "live" / "campaign.json";
  c.scenarios = data / "scenarios" / "attention_production.json";
  c.workspace = out / "live" / "workspace";
  c.candidate = c.workspace / "candidate.cu";
  c.state_dir = out / "live" / "state";
  c.arch = "sm_90";
  c.task = "Make candidate.cu (attention forward, problem \"attention\") faster than the baseline on every "
           "scenario, correct on each, without CUTLASS, CuTe, cuBLAS or cuDNN.";
  c.budget.turns = 3;
  c.budget.wall_seconds = 1800;
  c.evaluator.kind = exec::EvaluatorKind::cuda;
  c.agent.model = model;
  fs::remove_all(out / "live");
  fs::create_directories(c.workspace);
  fs::copy_file(data / "kernels" / "attention" / "baseline.cu", c.candidate);
  std::cout << "socratic demo: a live campaign on the attention problem (" << c.scenarios.filename().string()
            << ", 3 turns): every part is live (LLM agent, CUDA evaluator, detectors, bank, goal, trace, report)\n"
            << std::flush;
  const CampaignResult result = run_campaign_file_with_llm_agent(c, "socratic demo");
  print_result(result);
  HtmlReportOptions options;
  options.title = "Socratic demo: attention (live)";
  options.notes = {"Everything in this run was live: the LLM agent, the CUDA evaluator on this GPU, the trigger "
                   "detectors, the question bank, the goal predicate."};
  options.goal = c.goal.spec();
  complete_report_options(options, read_trace(result.trace_path).events, c);
  const fs::path report = out / "report.html";
  write_html_report(result.trace_path, report, options);
  std::cout << "\nreport: " << fs::absolute(report).string() << "\n";
  return exit_ok;
}

/// The recordings to try, best first: the project's kernel campaign, then the CPU one (demo/,
/// installed with the tool).
std::vector<fs::path> default_recordings() {
  const fs::path root = data_dir() / "demo";
  return {root / "attention-h200", root / "softmax-cpu"};
}

/// Loads a recording, with the goal spec the replay needs. Throws input_error naming the problem.
RecordedCampaign load_replayable(const fs::path& dir) {
  RecordedCampaign rec = load_recorded_campaign(dir);
  if (!rec.description.contains("goal"))
    throw input_error((dir / "recording.json").string(), {}, "missing (it names the goal spec the replay applies)");
  return rec;
}

/// How far a replay got through its recording.
struct ReplayCoverage {
  std::size_t turns_played = 0, turns_recorded = 0;
  /// The replayed evaluations that are the recorded ones, from the first on (same version, a
  /// recorded measurement), of the recorded count; and all the replay made.
  std::size_t evaluations = 0, evaluations_recorded = 0, evaluations_replayed = 0;
  std::string end_reason;  ///< how the replayed campaign ended
  int goal_first_met_at = -1;  ///< the evaluation whose stop first met the goal (-1: none)
  bool whole() const {
    return turns_played == turns_recorded && evaluations == evaluations_recorded &&
           evaluations_replayed == evaluations_recorded;
  }
};

/// Runs the replay on the campaign engine, as Campaign::run() does, with one difference the
/// recording asks for: a campaign recorded under the stop hook may go on past its goal (the hook
/// let each met stop through and the agent carried on), and so does its replay, each later stop
/// judged again, until the recording's last turn. The campaign ends on its goal only there.
template <class C>
CampaignResult replay_every_turn(C& campaign, ReplayAgent& agent, ReplayCoverage& coverage) {
  auto& engine = campaign.engine();
  const std::string id = engine.config().agent_id;
  engine.open();  // a fresh campaign (resume is off)
  Message message = engine.start_message(id);
  while (true) {
    if (auto b = engine.exhausted(id)) return engine.end(b->reason);
    engine.begin_turn(id, message);
    Tools tools = engine.tools(id);
    TurnResult result;
    try {
      result = agent.turn(message, tools);
    } catch (const std::exception& e) {
      result.error = std::string("agent threw: ") + e.what();
    }
    engine.end_turn(id, result);
    if (!result.error.empty()) return engine.end(StopReason::agent_error, result.error);
    StopOutcome stop = engine.handle_stop(id, result.final_message);
    if (stop.met && coverage.goal_first_met_at < 0) coverage.goal_first_met_at = stop.check.index;
    if (stop.met && agent.turns_played() < coverage.turns_recorded) {
      message = Message{};
      message.text = "The goal holds at evaluation " + std::to_string(stop.check.index) +
                     "; the recorded agent went on past it: its next version.";
      continue;
    }
    if (stop.end_reason) return engine.end(*stop.end_reason, stop.end_detail);
    if (stop.agent_budget_spent) return engine.end(*stop.agent_budget_spent);
    message = std::move(*stop.send_back);
  }
}

/// What the replay covered and what it left out, in sentences for the console and the report.
std::vector<std::string> coverage_lines(const RecordedCampaign& rec, const ReplayCoverage& c, double last_best) {
  std::vector<std::string> lines;
  const auto& last = rec.evaluations.back();
  char reached[64];
  std::snprintf(reached, sizeof reached, "%.2fx", last_best);
  if (c.whole()) {
    lines.push_back("Replayed the whole recording: all " + std::to_string(c.turns_recorded) + " recorded turns and " +
                    std::to_string(c.evaluations_recorded) + " evaluations, to its last version (evaluation " +
                    std::to_string(last.index) + "; best geomean " + reached + ").");
  } else {
    lines.push_back("Replayed " + std::to_string(c.evaluations) + " of " + std::to_string(c.evaluations_recorded) +
                    " recorded evaluations (" + std::to_string(c.turns_played) + " of " +
                    std::to_string(c.turns_recorded) + " turns begun): left out evaluations " +
                    std::to_string(c.evaluations) + " to " + std::to_string(last.index) + ", because " +
                    (c.evaluations_replayed > c.evaluations
                         ? "evaluation " + std::to_string(c.evaluations) +
                               " of the replay is not the recorded version (the recording has no measurement of it)"
                         : "the replayed campaign ended before them (" + c.end_reason + ")") +
                    ".");
  }
  if (c.goal_first_met_at >= 0 && c.goal_first_met_at < last.index)
    lines.push_back("The goal was first met at evaluation " + std::to_string(c.goal_first_met_at) +
                    "; the recorded agent went on past it, and the replay with it: every later stop was judged again.");
  return lines;
}

int replay(const RecordedCampaign& rec, const fs::path& out, const std::vector<std::string>& not_live) {
  const fs::path recording_dir = rec.folder;
  const json& d = rec.description;
  const json started = rec.summary.started.is_object() ? rec.summary.started : json::object();

  // A fresh workspace and state folder: the replay is a new campaign, not a resume.
  fs::create_directories(out);
  fs::remove_all(out / "workspace");
  fs::remove_all(out / "state");
  const fs::path candidate = out / "workspace" / ("candidate" + rec.candidate_extension);
  fs::create_directories(candidate.parent_path());
  {
    const std::string first = d.contains("baseline") ? socratic::read_file_bytes(recording_dir / d["baseline"].get<std::string>())
                                                     : rec.candidate_bytes(rec.evaluations.front().candidate_hash);
    write_file_atomically(candidate, first);
  }

  std::cout << "socratic demo: replaying the recorded campaign in " << recording_dir.string() << "\n";
  if (d.contains("description")) std::cout << "  recording: " << d["description"].get<std::string>() << "\n";
  std::cout << "  not live because: ";
  for (std::size_t i = 0; i < not_live.size(); ++i) std::cout << (i ? "; " : "") << not_live[i];
  const std::string goal_text = started.value("goal", std::string("(not recorded)"));
  std::cout << "\n  goal:          " << goal_text;
  if (d.contains("goal_note")) std::cout << "\n                 why: " << d["goal_note"].get<std::string>();
  std::cout << "\n  LIVE here:     campaign loop, trigger detectors, goal predicate, trace, HTML report\n"
               "  REPLAYED:      the agent's candidate versions and final messages, the evaluator's measurements, and "
               "the questions the recorded agent was asked (at the same moments)\n\n"
            << std::flush;  // before the run's progress lines on stderr, also when both go to one pipe

  CampaignFile settings;  // the detectors as a campaign file would choose them
  ReplayAgent agent(rec);
  ReplayEvaluator evaluator(rec.evaluations);
  // The recording's own questions: a live pick would pair its gains with questions never asked.
  ReplayQuestionSource questions(rec.summary.state.asked);
  CampaignConfig config;
  config.campaign_id = "demo-replay-" + recording_dir.filename().string();
  config.task = started.value("task", std::string("replayed campaign"));
  config.workspace = candidate.parent_path();
  config.candidate.source = candidate;
  config.state_dir = out / "state";
  config.scenario_ids = started.value("scenario_ids", std::vector<std::string>{});
  config.arch = started.value("arch", std::string());
  config.has_reference = started.value("has_reference", false);
  config.budget.turns = static_cast<int>(rec.turns.size());
  config.detectors = make_detectors(settings);
  config.on_progress = terminal_progress();
  config.resume = false;
  Campaign campaign(agent, evaluator, questions, goals::parse_goal(d["goal"], "recording.json goal"), config);
  ReplayCoverage coverage;
  coverage.turns_recorded = rec.turns.size();
  coverage.evaluations_recorded = rec.evaluations.size();
  const CampaignResult result = replay_every_turn(campaign, agent, coverage);
  coverage.turns_played = agent.turns_played();
  const CampaignState replayed = campaign.state();
  coverage.evaluations_replayed = replayed.evaluations.size();
  while (coverage.evaluations < std::min(replayed.evaluations.size(), rec.evaluations.size()) &&
         replayed.evaluations[coverage.evaluations].candidate_hash == rec.evaluations[coverage.evaluations].candidate_hash &&
         replayed.evaluations[coverage.evaluations].report.error.empty())
    ++coverage.evaluations;
  coverage.end_reason = std::string(to_string(result.reason));
  print_result(result);
  const EvaluationRecord* best = replayed.best();
  const std::vector<std::string> covered = coverage_lines(rec, coverage, best ? best->score() : std::nan(""));
  for (const auto& line : covered) std::cout << line << "\n";
  for (const auto& q : questions.unasked())
    std::cout << "note: the recorded question " << q.question.id << " (" << to_string(q.question.trigger)
              << ", after evaluation " << q.after_evaluation << ") had no moment in the replay\n";

  HtmlReportOptions options;
  options.title = "Socratic demo: " + d.value("title", recording_dir.filename().string()) + " (replayed)";
  options.notes = {"Replayed from " + recording_dir.string() + ". " + d.value("description", std::string()),
                   "Live in this run: the campaign loop, the trigger detectors, the goal predicate, the trace and "
                   "this report.",
                   "Replayed: the agent's candidate versions and final messages, the evaluator's measurements, and the "
                   "questions: the ones the recorded agent was asked, at the moments it was asked them, so what "
                   "followed each is what followed it in the recording."};
  if (d.contains("goal_note")) options.notes.push_back("Why this goal: " + d["goal_note"].get<std::string>());
  options.notes.insert(options.notes.end(), covered.begin(), covered.end());
  options.goal = d["goal"];
  if (d.contains("baseline") && d["baseline"].is_string()) options.baseline = fs::path(d["baseline"].get<std::string>()).filename().string();
  complete_report_options(options, read_trace(campaign.trace_path()).events, std::nullopt);
  const fs::path report = out / "report.html";
  write_html_report(campaign.trace_path(), report, options);
  std::cout << "\nreport: " << fs::absolute(report).string() << "\n";
  return exit_ok;
}

int demo_command(const DemoCommandOptions& o) {
  if (o.live && o.replay) throw usage_error("--live and --replay exclude each other");
  const fs::path out = fs::absolute(o.output);
  const char* env_model = std::getenv("SOCRATIC_DEMO_MODEL");
  const std::string model = !o.model.empty() ? o.model : env_model ? env_model : "";
  const std::vector<std::string> blockers =
      o.replay ? std::vector<std::string>{"--replay was asked for"} : live_blockers(model);
  if (blockers.empty()) return live(out, model);
  if (o.live) {
    std::cerr << "socratic demo --live: cannot run live here:\n";
    for (const auto& b : blockers) std::cerr << "  - " << b << "\n";
    return exit_error;
  }
  if (!o.recording.empty()) return replay(load_replayable(fs::absolute(o.recording)), out, blockers);
  std::string skipped;
  for (const auto& dir : default_recordings()) {
    if (!fs::exists(dir)) continue;
    try {
      const RecordedCampaign rec = load_replayable(dir);
      if (!skipped.empty()) std::cout << skipped;
      return replay(rec, out, blockers);
    } catch (const input_error& e) {
      skipped += "socratic demo: " + dir.string() + " is not a replayable recording (" + e.what() + "); next one\n";
    }
  }
  throw error(skipped + "no replayable recording found; pass --recording DIR");
}

command_run demo_setup(CLI::App& app) {
  auto o = std::make_shared<DemoCommandOptions>();
  app.footer(
      "Runs a short campaign and writes its HTML report (path printed last). Live (a GPU, the CUDA\n"
      "evaluator and the LLM agent in this build, ANTHROPIC_API_KEY or OPENAI_API_KEY set, and a model\n"
      "named by --model or SOCRATIC_DEMO_MODEL): a short live campaign on the attention problem\n"
      "(production shapes, 3 turns, 30 minutes at most). Otherwise a recorded campaign (--recording\n"
      "DIR: trace.jsonl, candidates/, recording.json; default the data folder's demo/attention-h200,\n"
      "else demo/softmax-cpu) is replayed: the agent's actions and the evaluator's measurements\n"
      "come from the recording, while the campaign loop, trigger detectors, goal predicate, trace and\n"
      "report run live.\n");
  app.add_option("--recording", o->recording, "the recorded campaign to replay")->type_name("DIR");
  add_output_option(app, o->output, "the folder for the workspace, the state and report.html (default "
                                    "./socratic-demo)");
  add_hidden_alias(app, "--out", o->output);
  app.add_flag("--live", o->live, "run live or fail with what is missing");
  app.add_flag("--replay", o->replay, "replay even where live is possible");
  app.add_option("--model", o->model, "the model of a live run (default $SOCRATIC_DEMO_MODEL)")->type_name("NAME");
  return [o] { return demo_command(*o); };
}

const command_registration demo_registration(
    "demo", "a short campaign (live with a GPU and a key, else replayed) and its report", "Campaigns", demo_setup);

}  // namespace
