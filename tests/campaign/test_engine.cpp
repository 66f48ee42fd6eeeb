// The campaign engine as the drivers see it: a new driver written in a few lines, the stop hook
// and the in-process loop judging the same history alike, a campaign that continues after an
// agent error, unchanged content judged once, and goals that noise cannot pass.
#include "catch.hpp"

#include <cmath>
#include <cstdint>
#include <map>
#include <numbers>

#include "fixtures.hpp"
#include "socratic/campaign/engine.hpp"
#include "socratic/goals/goal_spec.hpp"
#include "socratic/campaign/stop_hook_runner.hpp"
#include "socratic/questions/detectors.hpp"

using namespace socratic;
using namespace fixtures;

namespace {

std::vector<json> engine_events(const std::filesystem::path& trace, const std::string& type) {
  std::vector<json> out;
  for (const auto& e : read_trace(trace).events)
    if (e["type"] == type) out.push_back(e);
  return out;
}

/// The same question for the same trigger, whatever the history: two drivers whose states differ
/// only in what the start asked get the same questions at their stops.
struct TriggerQuestions {
  std::optional<Question> ask(const TriggerEvent& e, const CampaignState&) {
    Question q;
    q.id = "q-" + std::string(to_string(e.trigger));
    q.text = "What does the measurement say about " + std::string(to_string(e.trigger)) + "?";
    q.checks = "one profile run";
    q.trigger = e.trigger;
    return q;
  }
};
static_assert(QuestionSource<TriggerQuestions>);

/// A Stop hook's stdin, as Claude Code sends it.
std::string stop_input(const std::string& message, bool active) {
  return json{{"session_id", "s-1"}, {"cwd", "/w"}, {"hook_event_name", "Stop"}, {"stop_hook_active", active},
              {"last_assistant_message", message}}
      .dump();
}

/// Times a candidate the way a real harness does, with honest noise: each scenario's speedup is
/// the true one times exp(eps), eps drawn with exactly the standard error the reported noise and
/// sample count imply (core/report.hpp, speedup_relative_error()). Content "baseline" is the
/// baseline's bytes; "same" is an edited copy as fast as the baseline; "fast" is 1.1x.
struct NoisyEvaluator {
  std::uint64_t state = 0x5eed;
  int calls = 0;
  double next_normal() {  // Box-Muller over splitmix64: the same draws on every platform
    auto unit = [this] {
      std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
      z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
      z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
      return (static_cast<double>((z ^ (z >> 31)) >> 11) + 0.5) * 0x1.0p-53;
    };
    const double u1 = unit(), u2 = unit();
    return std::sqrt(-2 * std::log(u1)) * std::cos(2 * std::numbers::pi * u2);
  }
  EvalReport evaluate(const Candidate& c) {
    ++calls;
    const std::string content = read_text(c.source);
    const double truth = content.rfind("fast", 0) == 0 ? 1.10 : 1.0;
    EvalReport r;
    r.built = true;
    r.candidate = c;
    r.identical_to_baseline = content == "baseline";
    for (const char* id : {"s0", "s1", "s2"}) {
      ScenarioResult s;
      s.id = id;
      s.correct = true;
      s.candidate_noise = 0.02;
      s.baseline_noise = 0.02;
      s.samples = 21;
      s.baseline_ms = 1.0;
      s.speedup = truth * std::exp(next_normal() * speedup_relative_error(s));
      s.candidate_ms = s.baseline_ms / s.speedup;
      r.expected.push_back(id);
      r.scenarios.push_back(s);
    }
    return r;
  }
};
static_assert(Evaluator<NoisyEvaluator>);

}  // namespace

TEST_CASE("a new driver on the engine in a few lines: two agents, one campaign, budgets each",
          "[campaign][engine]") {
  auto dir = fresh_dir("engine_driver");
  PreparedEvaluator evaluator;
  evaluator.reports["slow"] = report_with(1.0, 1.0);
  evaluator.reports["slow b"] = report_with(1.0, 1.0);
  evaluator.reports["fast"] = report_with(1.5, 1.5);
  FixedQuestionSource questions;
  CampaignConfig config = config_in(dir);
  config.agent_id = "a";
  config.agent_budget.turns = 2;  // each agent alone: two turns
  config.agents.push_back({"b", dir / "workspace_b", {dir / "workspace_b" / "candidate.cu"}, std::nullopt});
  std::map<std::string, ScriptedAgent> agents;
  agents["a"].steps = {Step{"slow", true, "at the limit"}};
  agents["b"].steps = {Step{"slow b"}, Step{"fast", false, "done"}};

  // The driver: round robin over the agents until the goal holds or every agent is spent.
  CampaignEngine engine(evaluator, questions, speedup_goal(), config);
  engine.open();
  std::map<std::string, Message> next{{"a", engine.start_message("a")}, {"b", engine.start_message("b")}};
  std::optional<CampaignResult> result;
  for (bool busy = true; busy && !result;) {
    busy = false;
    for (auto& [id, message] : next) {
      if (result || engine.exhausted(id)) continue;
      busy = true;
      engine.begin_turn(id, message);
      Tools tools = engine.tools(id);
      const TurnResult r = agents[id].turn(message, tools);
      engine.end_turn(id, r);
      StopOutcome stop = engine.handle_stop(id, r.final_message);
      if (stop.end_reason) result = engine.end(*stop.end_reason, stop.end_detail);
      else if (stop.send_back) message = *stop.send_back;
    }
  }

  REQUIRE(result.has_value());
  CHECK(result->goal_met);
  CHECK(agents["a"].received.size() == 2);  // a's own turn budget, while b went on
  CHECK(agents["b"].received.size() == 2);
  CHECK(read_text(dir / "workspace" / "candidate.cu") == "slow");
  CHECK(read_text(dir / "workspace_b" / "candidate.cu") == "fast");
  CHECK(engine.spent("a").turns == 2);
  CHECK(engine.spent("a").agent_evaluations == 2);
  CHECK(engine.spent("b").agent_evaluations == 0);
  // Every evaluation, turn and question belongs to its agent; a's stop checks of content it had
  // just measured repeat that judgement instead of measuring again.
  std::map<std::string, int> stop_checks;
  for (const auto& e : engine_events(engine.trace_path(), "evaluation")) {
    const std::string agent = e["agent"];
    CHECK(e["record"]["agent_id"] == agent);
    if (e["record"]["origin"] == "stop_check") ++stop_checks[agent];
    if (agent == "a" && e["record"]["origin"] == "stop_check") CHECK(e["record"].contains("reused_from"));
  }
  CHECK(stop_checks["a"] == 2);
  CHECK(stop_checks["b"] == 2);
  CHECK(evaluator.calls == 4);  // a: two of its own, b: two stop checks; a's stop checks reused
  for (const auto& e : engine_events(engine.trace_path(), "turn_started"))
    CHECK((e["agent"] == "a" || e["agent"] == "b"));
  const auto ended = engine_events(engine.trace_path(), "campaign_ended");
  REQUIRE(ended.size() == 1);
  CHECK(ended[0]["reason"] == "goal_met");
}

TEST_CASE("the stop hook and the in-process loop give the same verdicts and send-back messages on "
          "the same history", "[campaign][engine][hook]") {
  // The history: four stops. The first explains a wrong scenario away, the second claims a limit,
  // the third stops again on unchanged content, the fourth meets the goal.
  const std::vector<std::pair<std::string, std::string>> stops = {
      {"wrong", "The tolerance is too strict; the difference is just numerical noise. Done."},
      {"slow", "I believe this is at the hardware limit."},
      {"slow", "Still at the limit, nothing more to gain."},
      {"fast", "Done: every scenario is faster."}};
  PreparedEvaluator evaluator;
  evaluator.reports["wrong"] = report_with(1.5, std::nan(""));
  evaluator.reports["slow"] = report_with(1.5, 1.1);
  evaluator.reports["fast"] = report_with(1.5, 1.3);
  TriggerQuestions questions;

  // In process.
  auto loop_dir = fresh_dir("same_history_loop");
  ScriptedAgent agent;
  for (const auto& [content, words] : stops) agent.steps.push_back(Step{content, false, words});
  CampaignConfig loop_config = config_in(loop_dir);
  loop_config.detectors = default_detectors();
  const CampaignResult loop_result = Campaign(agent, evaluator, questions, speedup_goal(), loop_config).run();
  CHECK(loop_result.goal_met);
  REQUIRE(agent.received.size() == 4);

  // Through the stop hook: the agent's edits happen outside, each stop is one hook call.
  auto hook_dir = fresh_dir("same_history_hook");
  CampaignConfig hook_config = config_in(hook_dir);
  hook_config.detectors = default_detectors();
  std::vector<StopHookOutcome> calls;
  for (std::size_t i = 0; i < stops.size(); ++i) {
    write_text(hook_config.candidate.source, stops[i].first);
    StopHookRunner runner(evaluator, questions, speedup_goal(), hook_config);
    calls.push_back(runner.handle(stop_input(stops[i].second, i > 0)));
  }

  const auto loop_verdicts = engine_events(loop_result.trace_path, "verdict");
  const auto hook_verdicts = engine_events(hook_dir / "state" / "trace.jsonl", "verdict");
  REQUIRE(loop_verdicts.size() == 4);
  REQUIRE(hook_verdicts.size() == 4);
  for (std::size_t i = 0; i < 4; ++i) {
    INFO("stop " << i);
    CHECK(loop_verdicts[i]["verdict"] == hook_verdicts[i]["verdict"]);
  }
  for (std::size_t i = 0; i < 3; ++i) {
    INFO("stop " << i);
    REQUIRE(calls[i].decision.block);
    const std::string sent = agent.received[i + 1].text;  // what the loop sent back after stop i
    const std::string reason = json::parse(calls[i].stdout_text)["reason"];
    CHECK(reason == with_block_count(sent, static_cast<int>(i) + 1, StopHookPolicy{}));
    REQUIRE(agent.received[i + 1].question.has_value());
    CHECK(reason.find(render_question(*agent.received[i + 1].question)) != std::string::npos);
  }
  CHECK(agent.received[1].question->trigger == Trigger::correctness_explained_away);
  CHECK(agent.received[2].question->trigger == Trigger::claimed_limit);
  // The third stop repeats the second's judgement, and both drivers say so.
  CHECK(agent.received[3].text.find("has not changed since evaluation #1") != std::string::npos);
  CHECK_FALSE(calls[3].decision.block);
  CHECK(calls[3].decision.kind == HookVerdict::goal_met);
  CHECK(evaluator.calls == 6);  // three distinct contents, measured once by each driver
}

TEST_CASE("a campaign that ended on an agent error continues when run again, and says so",
          "[campaign][engine][resume]") {
  struct FlakyAgent {
    bool fail = true;
    std::vector<Message> received;
    TurnResult turn(const Message& m, Tools& tools) {
      received.push_back(m);
      if (fail) return TurnResult{"", 0, {}, "model call failed: HTTP 401 (key from SOCRATIC_TEST_KEY)"};
      tools.charge("write_file");
      write_text(tools.candidate().source, "fast");
      return TurnResult{"fixed", 1, {}, ""};
    }
  };
  auto dir = fresh_dir("agent_error_continues");
  PreparedEvaluator evaluator;
  evaluator.reports["fast"] = report_with(1.5, 1.5);
  FixedQuestionSource questions;
  CampaignConfig cfg = config_in(dir);
  cfg.budget.turns = 3;
  std::vector<CampaignProgress> progress;
  cfg.on_progress = [&](const CampaignProgress& p) { progress.push_back(p); };
  FlakyAgent agent;

  const CampaignResult first = Campaign(agent, evaluator, questions, speedup_goal(), cfg).run();
  CHECK(first.reason == StopReason::agent_error);
  CHECK(first.detail == "model call failed: HTTP 401 (key from SOCRATIC_TEST_KEY)");
  CHECK(first.turns == 1);

  agent.fail = false;  // the key is fixed
  const CampaignResult second = Campaign(agent, evaluator, questions, speedup_goal(), cfg).run();
  CHECK(second.goal_met);
  CHECK(second.turns == 2);  // the same budgets: the failed turn still counts
  REQUIRE(agent.received.size() == 2);
  CHECK(agent.received[1].resumed);
  CHECK(agent.received[1].text.find("had ended (agent_error: model call failed: HTTP 401") != std::string::npos);
  const auto continued = engine_events(second.trace_path, "campaign_continued");
  REQUIRE(continued.size() == 1);
  CHECK(continued[0]["previous_reason"] == "agent_error");
  CHECK(continued[0]["previous_detail"] == first.detail);
  bool said = false;
  for (const auto& p : progress) said = said || (p.event == CampaignStep::continued && p.detail.find("agent_error") == 0);
  CHECK(said);
  // The history is one campaign: both endings, in order, and the summary reads it as ended once more.
  const auto ended = engine_events(second.trace_path, "campaign_ended");
  REQUIRE(ended.size() == 2);
  CHECK(ended[1]["reason"] == "goal_met");
  const TraceSummary s = summarize_trace(read_trace(second.trace_path).events);
  CHECK(s.ended);
  CHECK(s.end_reason == StopReason::goal_met);
  // A campaign that ended for good (the goal met) is still not run again.
  const CampaignResult third = Campaign(agent, evaluator, questions, speedup_goal(), cfg).run();
  CHECK(third.goal_met);
  CHECK(agent.received.size() == 2);
}

TEST_CASE("the evaluator hands over the campaign's snapshot and hash", "[campaign][engine]") {
  struct SnapshotEvaluator {
    std::vector<Candidate> seen;
    EvalReport evaluate(const Candidate& c) {
      seen.push_back(c);
      EvalReport r = report_with(2, 2);
      r.candidate = c;
      return r;
    }
  };
  auto dir = fresh_dir("engine_snapshot");
  SnapshotEvaluator evaluator;
  FixedQuestionSource questions;
  ScriptedAgent agent;
  agent.steps = {Step{"v1"}};
  const CampaignResult r = Campaign(agent, evaluator, questions, speedup_goal(), config_in(dir)).run();
  CHECK(r.goal_met);
  REQUIRE(evaluator.seen.size() == 1);
  const Candidate& c = evaluator.seen[0];
  CHECK(c.has_snapshot());
  CHECK(c.content_hash == socratic::detail::sha256_hex("v1"));
  CHECK(c.snapshot == dir / "state" / "candidates" / (c.content_hash + ".cu"));
  CHECK(read_text(c.judged_file()) == "v1");
}

TEST_CASE("doing nothing never meets the default goal; a real gain beyond the noise does", "[campaign][engine][noise]") {
  const AnyGoal goal = goals::goal_from_spec(goals::default_goal_spec());
  FixedQuestionSource questions;

  SECTION("the baseline's own bytes, judged at 12 stops, even measured afresh every time") {
    auto dir = fresh_dir("noise_baseline_copy");
    NoisyEvaluator evaluator;
    CampaignConfig cfg = config_in(dir);
    cfg.reuse_unchanged_judgement = false;
    write_text(cfg.candidate.source, "baseline");
    int point_estimate_passes = 0;
    for (int stop = 0; stop < 12; ++stop) {
      StopHookRunner runner(evaluator, questions, goal, cfg);
      const StopHookOutcome out = runner.handle(stop_input("Nothing to improve.", false));
      CHECK(out.decision.block);
      const auto evals = engine_events(dir / "state" / "trace.jsonl", "evaluation");
      EvalReport last = evals.back()["record"]["report"].get<EvalReport>();
      CHECK(last.identical_to_baseline);
      last.identical_to_baseline = false;  // what the timings alone, read as point estimates, say
      if (goals::every_scenario_speedup_at_least{1.0, {true}}(last).met) ++point_estimate_passes;
    }
    CHECK(evaluator.calls == 12);
    CHECK(point_estimate_passes > 0);  // the lottery the point estimate would have been
    const auto verdicts = engine_events(dir / "state" / "trace.jsonl", "verdict");
    REQUIRE(verdicts.size() == 12);
    for (const auto& v : verdicts) CHECK(v["verdict"]["met"] == false);
    CHECK(verdicts[0]["verdict"].dump().find("differs_from_baseline") != std::string::npos);
  }
  SECTION("an edited copy as fast as the baseline, a new edit at each of 12 stops") {
    auto dir = fresh_dir("noise_same_speed");
    NoisyEvaluator evaluator;
    CampaignConfig cfg = config_in(dir);
    int point_estimate_passes = 0;
    for (int stop = 0; stop < 12; ++stop) {
      write_text(cfg.candidate.source, "same, edit " + std::to_string(stop));
      StopHookRunner runner(evaluator, questions, goal, cfg);
      CHECK(runner.handle(stop_input("Tuned it.", false)).decision.block);
      const auto evals = engine_events(dir / "state" / "trace.jsonl", "evaluation");
      const EvalReport last = evals.back()["record"]["report"].get<EvalReport>();
      CHECK_FALSE(last.identical_to_baseline);
      if (goals::every_scenario_speedup_at_least{1.0, {true}}(last).met) ++point_estimate_passes;
    }
    CHECK(point_estimate_passes > 0);
    for (const auto& v : engine_events(dir / "state" / "trace.jsonl", "verdict")) CHECK(v["verdict"]["met"] == false);
  }
  SECTION("unchanged content at 12 stops is judged once") {
    auto dir = fresh_dir("noise_unchanged");
    NoisyEvaluator evaluator;
    CampaignConfig cfg = config_in(dir);
    write_text(cfg.candidate.source, "same, untouched");
    for (int stop = 0; stop < 12; ++stop) {
      StopHookRunner runner(evaluator, questions, goal, cfg);
      const StopHookOutcome out = runner.handle(stop_input("Nothing to improve.", stop > 0 && stop % 4 != 0));
      CHECK(out.decision.block);
      if (stop > 0) CHECK(out.stdout_text.find("has not changed since evaluation #0") != std::string::npos);
    }
    CHECK(evaluator.calls == 1);
  }
  SECTION("a 10 % gain, beyond its noise, meets the goal at the first stop") {
    auto dir = fresh_dir("noise_real_gain");
    NoisyEvaluator evaluator;
    CampaignConfig cfg = config_in(dir);
    write_text(cfg.candidate.source, "fast version");
    StopHookRunner runner(evaluator, questions, goal, cfg);
    const StopHookOutcome out = runner.handle(stop_input("Done.", false));
    CHECK_FALSE(out.decision.block);
    CHECK(out.decision.kind == HookVerdict::goal_met);
  }
}

TEST_CASE("a candidate split into headers is hashed, snapshotted and restored with them",
          "[campaign][engine][snapshots]") {
  namespace fs = std::filesystem;
  auto dir = fresh_dir("engine_split_candidate");
  const fs::path ws = dir / "ws";
  fs::create_directories(ws / "detail");
  socratic::write_file_atomically(ws / "kernel.cu", "#include \"softmax.cuh\"\n#include <cuda_runtime.h>\nint main();\n");
  socratic::write_file_atomically(ws / "softmax.cuh", "#pragma once\n#include \"detail/ptx.cuh\"\n// v1\n");
  socratic::write_file_atomically(ws / "detail/ptx.cuh", "#pragma once\n// ptx v1\n");
  socratic::write_file_atomically(ws / "unrelated.cuh", "// not included\n");

  const socratic::CandidateFiles files = socratic::read_candidate_files(ws / "kernel.cu");
  REQUIRE(files.files.size() == 3);  // the entry, its header, the header's header; not unrelated.cuh
  CHECK(files.files[1].first == "softmax.cuh");
  CHECK(files.files[2].first == fs::path("detail") / "ptx.cuh");
  // A single file keeps the hash traces have always given it.
  CHECK(socratic::read_candidate_files(ws / "unrelated.cuh").hash() ==
        socratic::detail::sha256_hex("// not included\n"));

  socratic::CandidateSnapshots snaps(dir / "state" / "candidates");
  socratic::Candidate c;
  c.source = ws / "kernel.cu";
  const socratic::Candidate first = snaps.take(c);
  CHECK(first.snapshot == dir / "state" / "candidates" / first.content_hash / "kernel.cu");
  CHECK(read_text(first.snapshot.parent_path() / "detail" / "ptx.cuh") == "#pragma once\n// ptx v1\n");

  // An edit to a header two levels down is a new candidate, even though the entry is unchanged.
  socratic::write_file_atomically(ws / "detail/ptx.cuh", "#pragma once\n// ptx v2\n");
  const socratic::Candidate second = snaps.take(c);
  CHECK(second.content_hash != first.content_hash);
  CHECK(read_text(first.snapshot.parent_path() / "detail" / "ptx.cuh") == "#pragma once\n// ptx v1\n");

  // A workspace that lost its candidate gets every file of the snapshot back.
  fs::remove_all(ws);
  REQUIRE(snaps.restore(first.content_hash, ws / "kernel.cu"));
  CHECK(read_text(ws / "softmax.cuh") == "#pragma once\n#include \"detail/ptx.cuh\"\n// v1\n");
  CHECK(read_text(ws / "detail/ptx.cuh") == "#pragma once\n// ptx v1\n");
  CHECK(snaps.entry_of(first.content_hash, ws / "kernel.cu") == first.snapshot);
}
