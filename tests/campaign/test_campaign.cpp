#include "catch.hpp"

#include <cmath>
#include <cstdlib>

#include "fixtures.hpp"
#include "socratic/report/html_report.hpp"

using namespace socratic;
using namespace fixtures;

namespace {

std::vector<json> trace_events(const CampaignResult& r) { return read_trace(r.trace_path).events; }

std::vector<json> events_of(const std::vector<json>& events, const std::string& type) {
  std::vector<json> out;
  for (const auto& e : events)
    if (e["type"] == type) out.push_back(e);
  return out;
}

// A detector that fires a suspicious gain after any evaluation whose score exceeds 5.
struct BigGainDetector : TriggerDetector {
  std::string name() const override { return "big_gain"; }
  std::optional<TriggerEvent> detect(const DetectionContext& c) override {
    if (c.moment != Moment::after_evaluation) return std::nullopt;
    const auto* last = c.state.last_evaluation();
    if (!last || !(last->score() > 5)) return std::nullopt;
    return TriggerEvent{Trigger::suspicious_gain, "", "score above 5", 40, json::object()};
  }
};

}  // namespace

TEST_CASE("a campaign of four user-written parts ends only when the goal holds on every scenario",
          "[campaign]") {
  auto dir = fresh_dir("compose");
  PreparedEvaluator evaluator;
  evaluator.reports["v1"] = report_with(1.5, 0.9);  // b is slower than the baseline
  evaluator.reports["v2"] = report_with(1.5, 1.3);
  ScriptedAgent agent;
  agent.steps = {Step{"v1", false, "All done: the kernel is optimal."}, Step{"v2", false, "Fixed b."}};
  FixedQuestionSource questions;

  Campaign campaign(agent, evaluator, questions, speedup_goal(), config_in(dir));
  CampaignResult result = campaign.run();

  CHECK(result.goal_met);
  CHECK(result.reason == StopReason::goal_met);
  CHECK(result.turns == 2);
  REQUIRE(agent.received.size() == 2);
  // Turn 0: the task and the start question.
  CHECK(agent.received[0].text.find("Make candidate.cu faster") != std::string::npos);
  REQUIRE(agent.received[0].question.has_value());
  CHECK(agent.received[0].question->trigger == Trigger::start);
  // Turn 1: sent back despite the claim, naming the unmet scenario and asking a question.
  const Message& back = agent.received[1];
  REQUIRE(back.verdict.has_value());
  REQUIRE(back.verdict->unmet.size() == 1);
  CHECK(back.verdict->unmet[0].scenario == "b");
  CHECK(back.text.find("b: speedup required >= 1.2") != std::string::npos);
  REQUIRE(back.question.has_value());
  CHECK(back.question->trigger == Trigger::claimed_limit);
  CHECK(back.text.find(back.question->text) != std::string::npos);
  // The campaign judged each stop itself.
  CHECK(evaluator.calls == 2);
  REQUIRE(result.best.has_value());
  CHECK(result.best->report.find("b")->speedup == 1.3);

  const auto events = trace_events(result);
  CHECK(events.front()["type"] == "campaign_started");
  CHECK(events.back()["type"] == "campaign_ended");
  CHECK(events.back()["reason"] == "goal_met");
  CHECK(events_of(events, "verdict").size() == 2);
  CHECK(events_of(events, "question").size() == 2);
  // seq numbers are dense and increasing
  for (std::size_t i = 0; i < events.size(); ++i) CHECK(events[i]["seq"] == static_cast<int>(i));
}

TEST_CASE("an evaluation that fails correctness is never met by the goal, whatever the agent says",
          "[campaign]") {
  auto dir = fresh_dir("claims");
  PreparedEvaluator evaluator;
  evaluator.reports["wrong"] = report_with(3.0, std::nan(""));
  ScriptedAgent agent;
  agent.steps = {Step{"wrong", false, "Scenario b fails only by noise; tolerance is too strict. Done."}};
  FixedQuestionSource questions;
  CampaignConfig cfg = config_in(dir);
  cfg.budget.turns = 3;
  Campaign campaign(agent, evaluator, questions, speedup_goal(), cfg);
  CampaignResult result = campaign.run();
  CHECK_FALSE(result.goal_met);
  CHECK(result.reason == StopReason::turn_budget);
  CHECK(result.turns == 3);
  CHECK_FALSE(result.best.has_value());  // nothing correct, so nothing best
}

TEST_CASE("budgets end the campaign with the reason recorded", "[campaign][budget]") {
  PreparedEvaluator evaluator;
  evaluator.reports["slow"] = report_with(0.8, 0.8);
  FixedQuestionSource questions;

  SECTION("turns") {
    auto dir = fresh_dir("budget_turns");
    ScriptedAgent agent;
    agent.steps = {Step{"slow"}};
    CampaignConfig cfg = config_in(dir);
    cfg.budget.turns = 2;
    agent.steps = {Step{"slow", true}};
    auto r = Campaign(agent, evaluator, questions, speedup_goal(), cfg).run();
    CHECK(r.reason == StopReason::turn_budget);
    CHECK(agent.received.size() == 2);
    // The last allowed turn may still use its tools: both turns evaluated.
    REQUIRE(agent.evaluate_results.size() == 2);
    CHECK_FALSE(agent.evaluate_results[1].refused);
    CHECK(read_trace(r.trace_path).events.back()["reason"] == "turn_budget");
  }
  SECTION("tool calls: the agent is refused mid-turn") {
    auto dir = fresh_dir("budget_tools");
    ScriptedAgent agent;
    agent.steps = {Step{"slow", false, "done", {}, 10}};
    CampaignConfig cfg = config_in(dir);
    cfg.budget.tool_calls = 5;
    auto r = Campaign(agent, evaluator, questions, speedup_goal(), cfg).run();
    CHECK(r.reason == StopReason::tool_call_budget);
    CHECK(r.spent.tool_calls == 5);
  }
  SECTION("evaluations the agent asks for") {
    auto dir = fresh_dir("budget_evals");
    ScriptedAgent agent;
    agent.steps = {Step{"slow", true}};
    CampaignConfig cfg = config_in(dir);
    cfg.budget.evaluations = 1;
    auto r = Campaign(agent, evaluator, questions, speedup_goal(), cfg).run();
    CHECK(r.reason == StopReason::evaluation_budget);
    REQUIRE(agent.evaluate_results.size() == 1);
    CHECK_FALSE(agent.evaluate_results[0].refused);
    CHECK(r.spent.agent_evaluations == 1);
    CHECK(r.spent.evaluations == 2);  // plus the campaign's own stop check
  }
  SECTION("tokens") {
    auto dir = fresh_dir("budget_tokens");
    ScriptedAgent agent;
    agent.steps = {Step{"slow", false, "done", Usage{600, 500, 0, 0, 0.0, 1, 0}}};
    CampaignConfig cfg = config_in(dir);
    cfg.budget.tokens = 2000;
    auto r = Campaign(agent, evaluator, questions, speedup_goal(), cfg).run();
    CHECK(r.reason == StopReason::token_budget);
    CHECK(r.spent.tokens == 2200);
    CHECK(r.turns == 2);
  }
  SECTION("cost") {
    auto dir = fresh_dir("budget_cost");
    ScriptedAgent agent;
    agent.steps = {Step{"slow", false, "done", Usage{10, 10, 0, 0, 0.75, 1, 0}}};
    CampaignConfig cfg = config_in(dir);
    cfg.budget.cost_usd = 1.0;
    auto r = Campaign(agent, evaluator, questions, speedup_goal(), cfg).run();
    CHECK(r.reason == StopReason::cost_budget);
    CHECK(r.spent.cost_usd == Approx(1.5));
  }
  SECTION("wall time") {
    auto dir = fresh_dir("budget_wall");
    ScriptedAgent agent;
    agent.steps = {Step{"slow"}};
    agent.steps[0].during = [] { std::this_thread::sleep_for(std::chrono::milliseconds(30)); };
    CampaignConfig cfg = config_in(dir);
    cfg.budget.wall_seconds = 0.05;
    auto r = Campaign(agent, evaluator, questions, speedup_goal(), cfg).run();
    CHECK(r.reason == StopReason::wall_time_budget);
    CHECK(r.spent.wall_seconds >= 0.05);
  }
}

TEST_CASE("a question raised after an evaluation is attached to the tool result", "[campaign]") {
  auto dir = fresh_dir("midturn");
  PreparedEvaluator evaluator;
  evaluator.reports["huge"] = report_with(9.0, 9.0);
  ScriptedAgent agent;
  agent.steps = {Step{"huge", true, "done"}};
  FixedQuestionSource questions;
  CampaignConfig cfg = config_in(dir);
  cfg.detectors.push_back(std::make_shared<BigGainDetector>());
  auto r = Campaign(agent, evaluator, questions, speedup_goal(), cfg).run();
  CHECK(r.goal_met);
  REQUIRE(agent.evaluate_results.size() == 1);
  REQUIRE(agent.evaluate_results[0].question.has_value());
  CHECK(agent.evaluate_results[0].question->trigger == Trigger::suspicious_gain);
  CHECK(agent.evaluate_results[0].summary.find("a: ok speedup 9.000") != std::string::npos);
  const auto events = read_trace(r.trace_path).events;
  const auto triggers = events_of(events, "trigger");
  bool saw = false;
  for (const auto& t : triggers) saw = saw || (t["event"]["detector"] == "big_gain" && t["moment"] == "after_evaluation");
  CHECK(saw);
}

TEST_CASE("an evaluator that throws never crashes the campaign", "[campaign]") {
  struct ThrowingEvaluator {
    EvalReport evaluate(const Candidate&) { throw socratic::error("harness file kernels/x.cu was modified"); }
  };
  auto dir = fresh_dir("throwing");
  ThrowingEvaluator evaluator;
  ScriptedAgent agent;
  agent.steps = {Step{"v"}};
  FixedQuestionSource questions;
  CampaignConfig cfg = config_in(dir);
  cfg.max_evaluator_failures = 2;
  auto r = Campaign(agent, evaluator, questions, speedup_goal(), cfg).run();
  CHECK(r.reason == StopReason::evaluator_error);
  CHECK(r.turns == 2);
  REQUIRE(agent.received.size() == 2);
  CHECK(agent.received[1].text.find("harness file kernels/x.cu was modified") != std::string::npos);
}

TEST_CASE("an agent error ends the campaign with the reason recorded", "[campaign]") {
  struct FailingAgent {
    TurnResult turn(const Message&, Tools&) { return TurnResult{"", 0, {}, "backend unreachable"}; }
  };
  auto dir = fresh_dir("agent_error");
  PreparedEvaluator evaluator;
  FailingAgent agent;
  FixedQuestionSource questions;
  auto r = Campaign(agent, evaluator, questions, speedup_goal(), config_in(dir)).run();
  CHECK(r.reason == StopReason::agent_error);
  CHECK(read_trace(r.trace_path).events.back()["detail"] == "backend unreachable");
}

TEST_CASE("secrets never enter the trace", "[campaign][trace]") {
  ::setenv("SOCRATIC_TEST_API_KEY", "sk-test-0123456789abcdefghijkl", 1);
  register_secret("file-held-secret-42424242");
  auto dir = fresh_dir("secrets");
  PreparedEvaluator evaluator;
  evaluator.reports["v"] = report_with(2, 2);
  ScriptedAgent agent;
  agent.steps = {Step{"v", false, "key is sk-test-0123456789abcdefghijkl and file-held-secret-42424242"}};
  agent.steps[0].record = "Authorization: Bearer abcdefghijklmnopqrstuvwxyz0123";
  FixedQuestionSource questions;
  auto r = Campaign(agent, evaluator, questions, speedup_goal(), config_in(dir)).run();
  const std::string text = read_text(r.trace_path);
  CHECK(text.find("sk-test-0123456789abcdefghijkl") == std::string::npos);
  CHECK(text.find("file-held-secret-42424242") == std::string::npos);
  CHECK(text.find("abcdefghijklmnopqrstuvwxyz0123") == std::string::npos);
  CHECK(text.find("[redacted]") != std::string::npos);
  ::unsetenv("SOCRATIC_TEST_API_KEY");
}

TEST_CASE("a finished campaign is not run again", "[campaign][resume]") {
  auto dir = fresh_dir("finished");
  PreparedEvaluator evaluator;
  evaluator.reports["v"] = report_with(2, 2);
  ScriptedAgent agent;
  agent.steps = {Step{"v"}};
  FixedQuestionSource questions;
  auto first = Campaign(agent, evaluator, questions, speedup_goal(), config_in(dir)).run();
  CHECK(first.goal_met);
  ScriptedAgent second_agent;
  second_agent.steps = {Step{"v"}};
  auto again = Campaign(second_agent, evaluator, questions, speedup_goal(), config_in(dir)).run();
  CHECK(again.goal_met);
  CHECK(second_agent.received.empty());
  CampaignConfig no_resume = config_in(dir);
  no_resume.resume = false;
  CHECK_THROWS_WITH(Campaign(second_agent, evaluator, questions, speedup_goal(), no_resume).run(),
                    Catch::Matchers::Contains("already holds a trace"));
}

TEST_CASE("report timeline: the goal just above the baseline keeps its label apart from the baseline's",
          "[campaign][report]") {
  // A goal of 1.02x on a scale up to 9x: the two lines are a few pixels apart.
  std::vector<json> events = {{{"type", "campaign_started"}, {"seq", 0}, {"goal", "geomean speedup >= 1.02"}}};
  for (int i = 0; i < 3; ++i) {
    EvaluationRecord rec;
    rec.index = i;
    rec.origin = EvaluationOrigin::agent;
    rec.candidate_hash = std::string(64, static_cast<char>('a' + i));
    const double speedup = i == 0 ? 0.9 : i == 1 ? 3.0 : 9.0;
    rec.report = fixtures::report_with(speedup, speedup);
    events.push_back({{"type", "evaluation"}, {"seq", i + 1}, {"record", rec}});
  }
  const std::string html = html_report(events);
  auto label_y = [&](const std::string& cls) {
    const std::size_t g = html.find("<g class=\"" + cls + "\"");
    REQUIRE(g != std::string::npos);
    const std::size_t text = html.find("<text x=\"", g);
    const std::size_t at = html.find("y=\"", text) + 3;
    return std::stod(html.substr(at, html.find('"', at) - at));
  };
  auto line_y = [&](const std::string& cls) {
    const std::size_t at = html.find("y1=\"", html.find("<g class=\"" + cls + "\"")) + 4;
    return std::stod(html.substr(at, html.find('"', at) - at));
  };
  CHECK(std::abs(line_y("goal-line") - line_y("baseline-line")) < 12);  // the case worth testing
  CHECK(std::abs(label_y("goal-line") - label_y("baseline-line")) >= 11.9);  // 12 px, printed to 0.1 px
}
