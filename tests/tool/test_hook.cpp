// The stop-hook protocol (pure logic and StopHookRunner in process), goal specs, CliAgent's stream
// parsing and the replay evaluator.
#include "catch.hpp"

#include <cmath>
#include <filesystem>
#include <stdexcept>

#include "socratic/agents/cli_agent.hpp"
#include "socratic/goals/goal_spec.hpp"
#include "socratic/goals/stop_hook.hpp"
#include "socratic/campaign/stop_hook_runner.hpp"
#include "socratic/replay/replay_evaluator.hpp"
#include "tool_fixtures.hpp"

using namespace socratic;
using namespace tool_fixtures;

namespace {

EvalReport report_with(std::vector<std::pair<std::string, double>> speedups) {
  EvalReport r;
  r.built = true;
  for (auto& [id, s] : speedups) {
    r.expected.push_back(id);
    ScenarioResult res;
    res.id = id;
    res.correct = !std::isnan(s);
    res.reason = res.correct ? "" : "max abs error 0.3 > tolerance 0.01";
    res.speedup = s;
    r.scenarios.push_back(res);
  }
  return r;
}

/// Answers with the report prepared for the candidate's content; throws on "explode".
struct ContentEvaluator {
  int calls = 0;
  EvalReport evaluate(const Candidate& c) {
    ++calls;
    const std::string content = read_text(c.source);
    if (content == "explode") throw std::runtime_error("runner crashed: no GPU in this test");
    if (content == "fast") return report_with({{"a", 1.5}, {"b", 1.2}});
    return report_with({{"a", 1.5}, {"b", std::nan("")}});  // b incorrect
  }
};

struct NumberedQuestions {
  std::optional<Question> ask(const TriggerEvent& e, const CampaignState& s) {
    Question q;
    q.id = "q" + std::to_string(s.asked.size());
    q.text = "Which input makes scenario b differ from the reference?";
    q.trigger = e.trigger;
    return q;
  }
};

struct HookSetup {
  fs::path dir;
  ContentEvaluator evaluator;
  NumberedQuestions questions;
  CampaignConfig config;
  explicit HookSetup(const std::string& name, int cap = 8) : dir(fresh_dir(name)) {
    config.task = "make it fast";
    config.workspace = dir / "ws";
    config.candidate.source = dir / "ws" / "candidate.cu";
    config.state_dir = dir / "state";
    config.scenario_ids = {"a", "b"};
    config.stop_hook.max_consecutive_blocks = cap;
    write_text(config.candidate.source, "slow");
  }
  StopHookOutcome call(const std::string& input) {
    StopHookRunner runner(evaluator, questions, goals::all_of(goals::all_correct{}), config);
    return runner.handle(input);
  }
  fs::path trace() const { return config.state_dir / "trace.jsonl"; }
};

}  // namespace

TEST_CASE("goal specs build the reference predicates and name the bad node", "[tool][goal]") {
  const auto g = goals::goal_from_spec(goals::default_goal_spec());
  CHECK(g(report_with({{"a", 1.2}, {"b", 1.0}})).met);
  const Verdict v = g(report_with({{"a", 1.2}, {"b", 0.9}}));
  CHECK_FALSE(v.met);
  REQUIRE(v.unmet.size() == 1);
  CHECK(v.unmet[0].scenario == "b");
  CHECK(g.describe().find("every scenario speedup >= 1.000") != std::string::npos);

  const auto geo = goals::goal_from_spec(json::parse(R"({"geomean_speedup_at_least": {"minimum": 1.1}})"));
  CHECK_FALSE(geo(report_with({{"a", 1.0}, {"b", 1.1}})).met);
  const auto any = goals::goal_from_spec(json::parse(R"({"any_of": [{"not": {"all_correct": {}}}, {"all_correct": {}}]})"));
  CHECK(any(report_with({{"a", 1.0}})).met);
  const auto some = goals::goal_from_spec(
      json::parse(R"({"on_scenarios": {"ids": ["a"], "goal": {"every_scenario_speedup_at_least": 1.1}}})"));
  CHECK(some(report_with({{"a", 1.2}, {"b", 0.5}})).met);

  CHECK_THROWS_WITH(goals::goal_from_spec(json::parse(R"({"all_of": [{"all_correct": {}}, {"fastest": 2}]})")),
                    Catch::Matchers::Contains("goal.all_of[1]") && Catch::Matchers::Contains("unknown goal \"fastest\""));
  CHECK_THROWS_WITH(goals::goal_from_spec(json::parse(R"({"every_scenario_speedup_at_least": "fast"})")),
                    Catch::Matchers::Contains("goal.every_scenario_speedup_at_least"));
  CHECK_THROWS_WITH(goals::goal_from_spec(json::parse(R"({"all_correct": {}, "no_banned_libraries": {}})")),
                    Catch::Matchers::Contains("exactly one member"));
}

TEST_CASE("a goal is checked against the scenario set it judges: an id the set lacks is named", "[tool][goal]") {
  const json spec = json::parse(
      R"({"all_of": [{"all_correct": {}}, {"not": {"on_scenarios": {"ids": ["a", "nosuch"], "goal": {"all_correct": {}}}}}]})");
  CHECK_NOTHROW(goals::check_goal_scenarios(spec, {"a", "nosuch", "b"}));
  CHECK_THROWS_WITH(goals::check_goal_scenarios(spec, {"a", "b"}),
                    Catch::Matchers::Contains("goal.all_of[1].not.on_scenarios.ids[1]") &&
                        Catch::Matchers::Contains("scenario \"nosuch\" is not in the scenario set (its ids: a, b)"));
  CHECK_NOTHROW(goals::check_goal_scenarios(goals::default_goal_spec(), {}));
}

TEST_CASE("stop-hook input: fields read, malformed input named", "[tool][hook]") {
  const StopHookInput in = parse_stop_hook_input(
      R"({"session_id":"s1","cwd":"/w","hook_event_name":"Stop","stop_hook_active":true,
          "last_assistant_message":"done","turn_id":"t9","extra":1})");
  CHECK(in.session_id == "s1");
  CHECK(in.stop_hook_active);
  CHECK(in.last_assistant_message == "done");
  CHECK(in.turn_id == "t9");
  CHECK(in.raw["extra"] == 1);
  CHECK_THROWS_WITH(parse_stop_hook_input("not json"), Catch::Matchers::Contains("not valid JSON"));
  CHECK_THROWS_WITH(parse_stop_hook_input("[1]"), Catch::Matchers::Contains("expected a JSON object"));
  CHECK_THROWS_WITH(parse_stop_hook_input(R"({"stop_hook_active":"yes"})"),
                    Catch::Matchers::Contains("stop_hook_active"));
  CHECK_THROWS_WITH(parse_stop_hook_input(R"({"hook_event_name":"PreToolUse"})"),
                    Catch::Matchers::Contains("not a Stop event"));
}

TEST_CASE("consecutive blocks are counted per chain and session, and the cap lets the stop through", "[tool][hook]") {
  auto call = [](const char* session, bool active, const char* decision) {
    return json{{"type", "hook_call"}, {"session_id", session}, {"stop_hook_active", active}, {"decision", decision}};
  };
  std::vector<json> events{call("s", false, "block"), call("s", true, "block"), json{{"type", "verdict"}},
                           call("s", true, "block")};
  StopHookInput in;
  in.session_id = "s";
  in.stop_hook_active = true;
  CHECK(consecutive_blocks_before(events, in) == 3);
  in.stop_hook_active = false;
  CHECK(consecutive_blocks_before(events, in) == 0);  // the agent stopped of its own accord
  in.stop_hook_active = true;
  in.session_id = "other";
  CHECK(consecutive_blocks_before(events, in) == 0);
  events.push_back(call("s", true, "allow"));
  in.session_id = "s";
  CHECK(consecutive_blocks_before(events, in) == 0);

  StopHookPolicy policy{3};
  CHECK(decide_stop(true, false, 2, policy, "x").kind == HookVerdict::goal_met);
  const auto last = decide_stop(false, false, 2, policy, "x");
  CHECK(last.block);
  CHECK(last.cap_reached);
  const auto capped = decide_stop(false, false, 3, policy, "x");
  CHECK_FALSE(capped.block);
  CHECK(capped.kind == HookVerdict::block_cap);
  CHECK(capped.reason.find("NOT met") != std::string::npos);
  CHECK(decide_stop(true, true, 0, policy, "err").block);  // a hook error never allows
  // A stop let through prints no decision, and the verdict for the person: the clients show a
  // hook's `systemMessage` and keep its stderr to their debug output.
  const json let_through = json::parse(stop_hook_stdout(capped));
  CHECK_FALSE(let_through.contains("decision"));
  CHECK(let_through.size() == 1);
  CHECK(std::string(let_through["systemMessage"]).rfind("Socratic let the agent stop: ", 0) == 0);
  CHECK(std::string(let_through["systemMessage"]).find("the goal was NOT met") != std::string::npos);
  CHECK(std::string(let_through["systemMessage"]).find("3 consecutive blocks reached the cap") != std::string::npos);
  const json met = json::parse(stop_hook_stdout(decide_stop(true, false, 2, policy, "x")));
  CHECK_FALSE(met.contains("decision"));
  CHECK(met["systemMessage"] == "Socratic judged the candidate: the goal holds on every scenario, so the agent stopped.");
  const json printed = json::parse(stop_hook_stdout(last));
  CHECK(printed["decision"] == "block");
  CHECK(printed["reason"] == "x");  // what the model reads
  // What the person watching reads beside Claude Code's "Stop hook error occurred".
  CHECK(printed["systemMessage"] == "Socratic judged the candidate: the goal does not hold yet, so the agent was sent "
                                    "back with the unmet conditions and a question (block 3 in a row). Claude Code "
                                    "shows this as a stop hook error; nothing failed.");
  CHECK(printed.size() == 3);
  const json error = json::parse(stop_hook_stdout(decide_stop(true, true, 0, policy, "err")));
  CHECK(std::string(error["systemMessage"]).rfind("Socratic could not verify the goal", 0) == 0);
}

TEST_CASE("the hook blocks an unmet goal with the unmet scenarios and a question, and records every step",
          "[tool][hook]") {
  HookSetup h("hook_block");
  const StopHookOutcome out = h.call(hook_input("I am done: this is optimal.", false, h.config.workspace));
  REQUIRE(out.decision.block);
  CHECK(out.exit_code == 0);
  const json printed = json::parse(out.stdout_text);
  CHECK(printed["decision"] == "block");
  const std::string reason = printed["reason"];
  CHECK(reason.find("- b: correct required correct") != std::string::npos);
  CHECK(reason.find("Question (claimed_limit): Which input makes scenario b differ") != std::string::npos);
  CHECK(reason.find("block 1 of at most 8") != std::string::npos);
  CHECK(out.stderr_text.find("blocked") != std::string::npos);

  const auto ended = events_of(h.trace(), "turn_ended");
  REQUIRE(ended.size() == 1);
  CHECK(ended[0]["result"]["final_message"] == "I am done: this is optimal.");
  const auto evals = events_of(h.trace(), "evaluation");
  REQUIRE(evals.size() == 1);
  CHECK(evals[0]["record"]["origin"] == "stop_check");
  CHECK(fs::exists(h.config.state_dir / "candidates" / (evals[0]["record"]["candidate_hash"].get<std::string>() + ".cu")));
  CHECK(events_of(h.trace(), "verdict").at(0)["verdict"]["met"] == false);
  CHECK(events_of(h.trace(), "trigger").size() == 1);
  CHECK(events_of(h.trace(), "question").size() == 1);
  const auto calls = events_of(h.trace(), "hook_call");
  REQUIRE(calls.size() == 1);
  CHECK(calls[0]["decision"] == "block");
  CHECK(calls[0]["consecutive_blocks"] == 1);
  CHECK(calls[0]["stop_hook_active"] == false);
  CHECK(events_of(h.trace(), "campaign_started").size() == 1);

  // The same trace reads back as a campaign: one turn, one evaluation, one question.
  const TraceSummary s = summarize_trace(read_trace(h.trace()).events);
  CHECK(s.turns_started == 1);
  CHECK(s.state.evaluations.size() == 1);
  CHECK(s.state.asked.size() == 1);

  // Fixed: the next stop is allowed, and the turn opened by the block carries its reason.
  write_text(h.config.candidate.source, "fast");
  const StopHookOutcome ok = h.call(hook_input("Fixed b.", true, h.config.workspace));
  CHECK_FALSE(ok.decision.block);
  CHECK(ok.decision.kind == HookVerdict::goal_met);
  CHECK_FALSE(json::parse(ok.stdout_text).contains("decision"));
  CHECK(json::parse(ok.stdout_text)["systemMessage"].get<std::string>().find("the goal holds") != std::string::npos);
  const auto started = events_of(h.trace(), "turn_started");
  REQUIRE(started.size() == 2);
  CHECK(started[1]["message"]["text"] == reason);
  CHECK(events_of(h.trace(), "hook_call").back()["decision"] == "allow");
  CHECK(events_of(h.trace(), "campaign_started").size() == 1);
}

TEST_CASE("malformed hook input blocks with the error and is recorded", "[tool][hook]") {
  HookSetup h("hook_malformed");
  const StopHookOutcome out = h.call("{\"session_id\": ");
  REQUIRE(out.decision.block);
  CHECK(out.decision.kind == HookVerdict::error);
  const std::string reason = json::parse(out.stdout_text)["reason"];
  CHECK(reason.find("could not verify the goal") != std::string::npos);
  CHECK(reason.find("not valid JSON") != std::string::npos);
  CHECK(h.evaluator.calls == 0);
  const auto calls = events_of(h.trace(), "hook_call");
  REQUIRE(calls.size() == 1);
  CHECK(calls[0]["kind"] == "error");
}

TEST_CASE("unreadable hook input blocks but never counts toward the cap", "[tool][hook]") {
  HookSetup h("hook_unreadable_cap", 2);
  // Ten unreadable calls in a row: every one blocks; none is let through by repetition.
  for (int i = 0; i < 10; ++i) {
    const StopHookOutcome out = h.call(i % 2 ? "" : "{\"session_id\": ");
    REQUIRE(out.decision.block);
    CHECK(out.decision.kind == HookVerdict::error);
    CHECK(json::parse(out.stdout_text)["reason"].get<std::string>().find("does not count toward the cap") != std::string::npos);
  }
  CHECK(h.evaluator.calls == 0);
  for (const auto& c : events_of(h.trace(), "hook_call")) CHECK(c["counts_toward_cap"] == false);
  // Nor does one in the middle of a chain break it: block 1, unreadable, block 2, then the cap.
  const StopHookOutcome first = h.call(hook_input("done", false, h.config.workspace));
  CHECK(first.decision.consecutive_blocks == 1);
  CHECK(h.call("not json").decision.block);
  const StopHookOutcome second = h.call(hook_input("done", true, h.config.workspace));
  CHECK(second.decision.consecutive_blocks == 2);
  CHECK(second.decision.cap_reached);
  const StopHookOutcome capped = h.call(hook_input("done", true, h.config.workspace));
  CHECK_FALSE(capped.decision.block);
  CHECK(capped.decision.kind == HookVerdict::block_cap);
  // The turn opened by the last block carries that block's reason, not the unreadable call's.
  const auto started = events_of(h.trace(), "turn_started");
  REQUIRE(started.size() == 3);
  CHECK(started[2]["message"]["text"] == json::parse(second.stdout_text)["reason"]);
}

TEST_CASE("repeated evaluator failures end the hook's campaign as they end the loop's, saying the goal was "
          "not verified", "[tool][hook]") {
  HookSetup h("hook_evaluator_gives_up");
  write_text(h.config.candidate.source, "explode");
  for (int i = 1; i <= 2; ++i) {
    const StopHookOutcome out = h.call(hook_input("done", i > 1, h.config.workspace));
    REQUIRE(out.decision.block);
    CHECK(out.decision.consecutive_blocks == i);
  }
  const StopHookOutcome gave_up = h.call(hook_input("done", true, h.config.workspace));
  CHECK_FALSE(gave_up.decision.block);
  CHECK(gave_up.decision.kind == HookVerdict::evaluator_error);
  CHECK(gave_up.stderr_text.find("NOT verified") != std::string::npos);
  CHECK(json::parse(gave_up.stdout_text)["systemMessage"].get<std::string>().find("NOT verified") != std::string::npos);
  CHECK(gave_up.stderr_text.find("runner crashed: no GPU in this test") != std::string::npos);
  auto ended = events_of(h.trace(), "campaign_ended");
  REQUIRE(ended.size() == 1);
  CHECK(ended[0]["reason"] == "evaluator_error");
  // Fixed: the campaign continues at the next stop, and judges it.
  write_text(h.config.candidate.source, "fast");
  const StopHookOutcome fixed = h.call(hook_input("Fixed.", false, h.config.workspace));
  CHECK(fixed.decision.kind == HookVerdict::goal_met);
  CHECK(events_of(h.trace(), "campaign_continued").size() == 1);
}

TEST_CASE("an evaluator failure blocks with the error text", "[tool][hook]") {
  HookSetup h("hook_evaluator_failure");
  write_text(h.config.candidate.source, "explode");
  const StopHookOutcome out = h.call(hook_input("done", false, h.config.workspace));
  REQUIRE(out.decision.block);
  const std::string reason = json::parse(out.stdout_text)["reason"];
  CHECK(reason.find("evaluator failed: runner crashed: no GPU in this test") != std::string::npos);
  // Every expected scenario is reported missing, so nothing can pass by omission.
  CHECK(reason.find("- a: present required a result, measured missing") != std::string::npos);
}

TEST_CASE("an unwritable state folder still blocks, never allows", "[tool][hook]") {
  HookSetup h("hook_unwritable");
  write_text(h.config.state_dir, "a file where the state folder should be");
  const StopHookOutcome out = h.call(hook_input("done", false, h.config.workspace));
  REQUIRE(out.decision.block);
  CHECK(out.decision.kind == HookVerdict::error);
  CHECK(!out.stdout_text.empty());
}

TEST_CASE("the consecutive-block cap: said in the reason, recorded, then the stop goes through", "[tool][hook]") {
  HookSetup h("hook_cap", 3);
  for (int i = 1; i <= 3; ++i) {
    const StopHookOutcome out = h.call(hook_input("still done", i > 1, h.config.workspace));
    REQUIRE(out.decision.block);
    CHECK(out.decision.consecutive_blocks == i);
    const std::string reason = json::parse(out.stdout_text)["reason"];
    CHECK(reason.find("block " + std::to_string(i) + " of at most 3") != std::string::npos);
    CHECK((reason.find("This is the last one") != std::string::npos) == (i == 3));
  }
  const StopHookOutcome capped = h.call(hook_input("still done", true, h.config.workspace));
  CHECK_FALSE(capped.decision.block);
  CHECK(capped.decision.kind == HookVerdict::block_cap);
  // The person reads the verdict: not met, and what was unmet.
  const json shown = json::parse(capped.stdout_text);
  CHECK_FALSE(shown.contains("decision"));
  CHECK(shown["systemMessage"].get<std::string>().find("was NOT met") != std::string::npos);
  CHECK(shown["systemMessage"].get<std::string>().find("- b: correct required correct") != std::string::npos);
  CHECK(capped.stderr_text.find("NOT met") != std::string::npos);
  // Plainly: the goal was not met, and what was unmet, in the message and in the trace.
  CHECK(capped.decision.reason.find("The goal (all of (all scenarios correct; )) was NOT met") != std::string::npos);
  CHECK(capped.decision.reason.find("- b: correct required correct") != std::string::npos);
  CHECK(capped.stderr_text.find("- b: correct required correct") != std::string::npos);
  auto calls = events_of(h.trace(), "hook_call");
  REQUIRE(calls.size() == 4);
  CHECK(calls[2]["cap_reached"] == true);
  CHECK(calls[3]["kind"] == "block_cap");
  CHECK(calls[3]["decision"] == "allow");
  CHECK(calls[3]["goal_met"] == false);
  CHECK(calls[3]["reason"].get<std::string>().find("was NOT met") != std::string::npos);
  // A new stop of the agent's own accord starts a new chain.
  const StopHookOutcome again = h.call(hook_input("done again", false, h.config.workspace));
  CHECK(again.decision.block);
  CHECK(again.decision.consecutive_blocks == 1);
}

TEST_CASE("identifiers are not secrets: Claude Code's session id in the environment keeps the chain counting",
          "[tool][hook][secrets]") {
  CHECK_FALSE(is_secret_variable("CLAUDE_CODE_SESSION_ID"));
  CHECK_FALSE(is_secret_variable("XDG_SESSION_ID"));
  CHECK(is_secret_variable("AWS_SESSION_TOKEN"));  // a secret still, by its other marker
  CHECK(is_secret_variable("ANTHROPIC_API_KEY"));
  const std::string session = "0f2d6a1c-9b7e-4c55-8d0a-2e6f4b1a7c39";
  ::setenv("CLAUDE_CODE_SESSION_ID", session.c_str(), 1);  // as Claude Code exports it to its hooks
  HookSetup h("hook_session_id", 3);
  std::vector<int> counted;
  for (int i = 0; i < 4; ++i)
    counted.push_back(h.call(hook_input("still done", i > 0, h.config.workspace, session)).decision.consecutive_blocks);
  ::unsetenv("CLAUDE_CODE_SESSION_ID");
  CHECK(counted == std::vector<int>{1, 2, 3, 3});
  const auto calls = events_of(h.trace(), "hook_call");
  REQUIRE(calls.size() == 4);
  CHECK(calls[0]["session_id"] == session);  // stored as it is, so the next call can match it
  CHECK(calls[3]["kind"] == "block_cap");
}

TEST_CASE("CliAgent reads Claude Code's stream-json and Codex's JSONL", "[tool][cli-agent]") {
  const std::string claude =
      R"({"type":"system","subtype":"init","session_id":"s-1","tools":["Bash"]})" "\n"
      R"({"type":"assistant","message":{"content":[{"type":"tool_use","id":"t1","name":"Bash","input":{}}]},"session_id":"s-1"})" "\n"
      R"({"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":"ok"}]}})" "\n"
      R"({"type":"assistant","message":{"content":[{"type":"text","text":"All done."}]},"session_id":"s-1"})" "\n"
      "not json at all\n"
      R"({"type":"result","subtype":"success","is_error":false,"num_turns":2,"result":"All done.","session_id":"s-1","total_cost_usd":0.0125,"usage":{"input_tokens":100,"output_tokens":20,"cache_read_input_tokens":5,"cache_creation_input_tokens":7}})" "\n";
  const CliTurnOutput c = socratic::detail::parse_claude_stream(claude);
  CHECK(c.session_id == "s-1");
  CHECK(c.tool_uses == 1);
  CHECK(c.tool_names == std::vector<std::string>{"Bash"});
  CHECK(c.final_text == "All done.");
  CHECK(c.usage.total_tokens() == 132);
  CHECK(c.usage.cost_usd == Approx(0.0125));
  CHECK(c.error.empty());
  const CliTurnOutput max = socratic::detail::parse_claude_stream(
      R"({"type":"result","subtype":"error_max_turns","is_error":true,"session_id":"s-2"})" "\n");
  CHECK(max.max_turns_reached);
  CHECK(max.error.empty());  // the turn simply ended
  CHECK(socratic::detail::parse_claude_stream("").error == "claude printed no result event");
  CHECK(socratic::detail::parse_claude_stream(R"({"type":"result","subtype":"error_during_execution","is_error":true})" "\n")
            .error.find("error_during_execution") != std::string::npos);

  const std::string codex =
      R"({"type":"thread.started","thread_id":"th-9"})" "\n"
      R"({"type":"item.completed","item":{"id":"i0","type":"error","message":"warning"}})" "\n"
      R"({"type":"turn.started"})" "\n"
      R"({"type":"item.completed","item":{"id":"i1","type":"command_execution","command":"ls","exit_code":0}})" "\n"
      R"({"type":"item.completed","item":{"id":"i2","type":"agent_message","text":"Fixed."}})" "\n"
      R"({"type":"turn.completed","usage":{"input_tokens":300,"cached_input_tokens":100,"output_tokens":80}})" "\n";
  const CliTurnOutput x = socratic::detail::parse_codex_stream(codex);
  CHECK(x.session_id == "th-9");
  CHECK(x.tool_uses == 1);
  CHECK(x.final_text == "Fixed.");
  CHECK(x.usage.input_tokens == 200);
  CHECK(x.usage.cache_read_tokens == 100);
  CHECK(x.usage.output_tokens == 80);
  CHECK(x.error.empty());
  CHECK(socratic::detail::parse_codex_stream(R"({"type":"turn.failed","error":{"message":"quota"}})" "\n").error ==
        "codex turn failed: quota");

  CliAgentOptions o;
  o.kind = CliKind::codex;
  CliAgent agent(o);
  const auto argv = agent.command_line("do it");
  CHECK(argv.front() == "codex");
  CHECK(argv[1] == "exec");
  CHECK(argv.back() == "do it");
}

TEST_CASE("ReplayEvaluator answers recorded versions by content hash and refuses others", "[tool][replay]") {
  const fs::path dir = fresh_dir("replay_evaluator");
  write_text(dir / "c.cu", "version one");
  EvaluationRecord rec;
  rec.candidate_hash = socratic::detail::sha256_hex("version one");
  rec.report = report_with({{"a", 1.3}});
  ReplayEvaluator ev({rec});
  Candidate c;
  c.source = dir / "c.cu";
  CHECK(ev.evaluate(c).find("a")->speedup == Approx(1.3));
  write_text(dir / "c.cu", "an unrecorded version");
  CHECK_THROWS_WITH(ev.evaluate(c), Catch::Matchers::Contains("no recorded evaluation of the candidate with sha256"));
}
