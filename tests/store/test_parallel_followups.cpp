// The parallel coordinator's endings and questions as the engine's: agents that all fail on a
// model call end the campaign `agent_error` (continuable), and a second run once the fault is
// fixed continues with the history and the store; the coordinator's questions after a gate and
// its drafts at a plateau are `question` events with the agent, listed in the HTML report.
#include "catch.hpp"

#include <atomic>

#include "socratic/report/html_report.hpp"
#include "socratic/suite_campaign/standing.hpp"
#include "store_fixtures.hpp"

using namespace socratic;
using namespace store_fixtures;

namespace {

std::filesystem::path followup_root(const std::string& name) {
  auto d = std::filesystem::temp_directory_path() / ("socratic-parallel-followups-" + name + "-" + std::to_string(::getpid()));
  std::filesystem::remove_all(d);
  return d;
}

ParallelAgentSpec followup_spec(const std::filesystem::path& root, const std::string& id, int max_proposals) {
  ParallelAgentSpec s;
  s.id = id;
  s.workspace = root / id;
  s.candidate.source = root / id / "kernel.cu";
  s.max_proposals = max_proposals;
  return s;
}

/// A ProposingAgent whose model call fails while `broken` holds (a revoked key, a server down):
/// the turn ends with the error, as LlmAgent's does after its retries.
struct FlakyAgent {
  ProposingAgent inner;
  std::shared_ptr<std::atomic<bool>> broken;
  void on_proposal(int n) { inner.on_proposal(n); }
  TurnResult turn(const Message& m, Tools& tools) {
    if (*broken) {
      TurnResult out;
      out.error = "model call failed after 3 attempts: HTTP 401 (invalid key)";
      return out;
    }
    return inner.turn(m, tools);
  }
};
static_assert(Agent<FlakyAgent>);

std::vector<json> events_of_type(const std::filesystem::path& trace, const std::string& type) {
  std::vector<json> out;
  for (const auto& e : read_trace(trace).events)
    if (e.value("type", "") == type) out.push_back(e);
  return out;
}

}  // namespace

TEST_CASE("parallel: every agent failing on its model call ends agent_error; fixed, it continues", "[parallel][resume]") {
  const auto root = followup_root("agent-error");
  auto broken = std::make_shared<std::atomic<bool>>(true);
  auto run_once = [&] {
    PreparedMeasure measure;
    BaselineEvaluator evaluator{measure};
    NumberedQuestions questions;
    ParallelConfig config;
    config.drafts.plateau_attempts = 0;
    ParallelCampaign campaign(evaluator, PairMeasure(measure), questions, never_met, campaign_in(root), config);
    for (const char* id : {"a", "b"}) {
      FlakyAgent agent{ProposingAgent{}, broken};
      agent.inner.contents = {std::string("ms 0.9\n// ") + id + "\n", std::string("ms 0.8\n// ") + id + "\n"};
      campaign.add_agent(followup_spec(root, id, 2), AnyAgent(std::move(agent)));
    }
    ParallelResult r = campaign.run();
    return std::make_pair(r, campaign.store().size());
  };

  const auto [failed, records_after_failure] = run_once();
  CHECK(failed.reason == StopReason::agent_error);
  CHECK(CampaignEngine<BaselineEvaluator, NumberedQuestions, decltype(&never_met)>::continuable(failed.reason));
  CHECK(failed.detail.find("a: model call failed after 3 attempts: HTTP 401") != std::string::npos);
  CHECK(failed.detail.find("b: model call failed after 3 attempts: HTTP 401") != std::string::npos);
  CHECK(records_after_failure == 0);
  const auto trace = root / "state" / "trace.jsonl";
  const auto turns_before = events_of_type(trace, "turn_started").size();
  CHECK(turns_before == 2);

  // The key is fixed: the same store and trace, the campaign continues where it was.
  *broken = false;
  const auto [resumed, records] = run_once();
  CHECK(resumed.reason == StopReason::agents_done);
  CHECK(records == 4);
  CHECK(resumed.gated_now == 4);
  const auto continued = events_of_type(trace, "campaign_continued");
  REQUIRE(continued.size() == 1);
  CHECK(continued[0].value("previous_reason", "") == "agent_error");
  CHECK(continued[0].value("previous_detail", "").find("HTTP 401") != std::string::npos);
  CHECK(events_of_type(trace, "campaign_started").size() == 1);  // one campaign, its history kept
  CHECK(events_of_type(trace, "turn_started").size() == turns_before + 4);
  const auto ended = events_of_type(trace, "campaign_ended");
  REQUIRE(ended.size() == 2);
  CHECK(ended[0].value("reason", "") == "agent_error");
  CHECK(ended[1].value("reason", "") == "agents_done");

  // Ended normally now: a third run does nothing again.
  const auto [again, records_again] = run_once();
  CHECK(records_again == 4);
  CHECK(again.gated_now == 0);
}

TEST_CASE("parallel: the coordinator's questions and drafts are question events the report lists", "[parallel][drafts]") {
  const auto root = followup_root("questions");
  PreparedMeasure measure;
  BaselineEvaluator evaluator{measure};
  NumberedQuestions questions;
  ParallelConfig config;
  config.drafts.plateau_attempts = 3;
  ParallelCampaign campaign(evaluator, PairMeasure(measure), questions, never_met, campaign_in(root), config);
  // A improves once, then neither moves: a plateau after three attempts, drafts asked of both.
  ProposingAgent a, b;
  a.contents = {"ms 0.9\n// a\n", "ms 0.9\n// a1\n", "ms 0.9\n// a2\n", "ms 0.9\n// a3\n"};
  b.contents = {"ms 1.1\n// b\n", "ms 1.1\n// b1\n", "ms 1.1\n// b2\n", "ms 1.1\n// b3\n"};
  a.think = b.think = std::chrono::milliseconds(5);
  campaign.add_agent(followup_spec(root, "A", 4), AnyAgent(std::move(a)));
  campaign.add_agent(followup_spec(root, "B", 4), AnyAgent(std::move(b)));
  const ParallelResult r = campaign.run();
  CHECK(r.records == 8);
  REQUIRE(r.drafts >= 1);

  const auto trace = root / "state" / "trace.jsonl";
  int to_b_after_gate = 0, drafts_to_b = 0;
  for (const auto& e : events_of_type(trace, "question")) {
    REQUIRE(e.contains("asked"));
    const AskedQuestion asked = e["asked"].get<AskedQuestion>();
    if (e.value("agent", "") != "B") continue;
    if (asked.question.trigger == Trigger::plateau) {
      ++drafts_to_b;
      CHECK(asked.after_evaluation >= 0);
    } else if (asked.after_evaluation >= 0) {
      ++to_b_after_gate;
    }
  }
  CHECK(to_b_after_gate >= 1);
  CHECK(drafts_to_b >= 1);
  const auto summary = summarize_trace(read_trace(trace).events);
  CHECK(summary.state.asked.size() == events_of_type(trace, "question").size());

  const std::string html = html_report(read_trace(trace).events);
  CHECK(html.find("data-question-id=\"plateau.") != std::string::npos);
  CHECK(html.find("data-agent=\"B\"") != std::string::npos);
  CHECK(html.find(", to B</td><td class=\"trig text\">plateau") != std::string::npos);
  CHECK(html.find(", to A</td>") != std::string::npos);
}

namespace {
/// The engine's evaluator whose first `faults` calls (the incumbent's goal checks) are judge
/// faults: the job was cancelled by the cluster, say. Nothing was judged.
struct FaultingBaselineEvaluator {
  PreparedMeasure measure;
  std::shared_ptr<int> faults;
  EvalReport evaluate(const Candidate& c) {
    if (*faults > 0) {
      --*faults;
      EvalReport r;
      r.candidate = c;
      r.expected = measure.scenarios;
      r.fault = EvalFault::harness;
      r.error = "job cancelled by the cluster (preempted)";
      return r;
    }
    return measure(c, std::nullopt, GateRunRequest{0, 42});
  }
};
static_assert(Evaluator<FaultingBaselineEvaluator>);

Verdict twice_as_fast(const EvalReport& r) {
  if (r.all_correct() && r.geomean_speedup() >= 1.8) return Verdict::pass();
  return Verdict::fail({{"", "speedup", ">= 1.8", "less"}});
}

/// Runs the campaign in `root` again with `judge` (now working): it judges the proposal the last
/// run could not, and the goal holds on c0, admitted.
void check_resumes_to_goal(const std::filesystem::path& root, const PairMeasure& judge, const ProposingAgent& agent,
                           const ParallelConfig& config) {
  PreparedMeasure measure;
  BaselineEvaluator evaluator{measure};
  NumberedQuestions questions;
  ParallelCampaign again(evaluator, judge, questions, &twice_as_fast, campaign_in(root), config);
  again.add_agent(followup_spec(root, "a", 2), AnyAgent(agent));
  const ParallelResult r = again.run();
  CHECK(r.reason == StopReason::goal_met);
  REQUIRE(again.store().size() >= 1);
  CHECK(again.store().record("c0").gate.verdict == GateOutcome::admitted);
}
}  // namespace

TEST_CASE("parallel: an incumbent whose goal check was not judged is checked again, never taken as checked",
          "[parallel][resume]") {
  const auto root = followup_root("unjudged-check");
  PreparedMeasure measure;
  FaultingBaselineEvaluator evaluator{measure, std::make_shared<int>(1)};
  NumberedQuestions questions;
  ParallelConfig config;
  config.drafts.plateau_attempts = 0;
  std::vector<AgentProgress> seen;
  config.on_progress = [&](const AgentProgress& p) { seen.push_back(p); };
  ParallelCampaign campaign(evaluator, PairMeasure(measure), questions, &twice_as_fast, campaign_in(root), config);
  ProposingAgent agent;
  // The first proposal meets the goal (2x); the second, slower, is refused against it.
  agent.contents = {"ms 0.5\n", "ms 0.9\n", "ms 0.95\n", "ms 0.97\n"};
  campaign.add_agent(followup_spec(root, "a", 4), AnyAgent(std::move(agent)));
  const ParallelResult r = campaign.run();
  // The first check judged nothing; the second, after the next proposal, found the goal met.
  CHECK(r.reason == StopReason::goal_met);
  CHECK(r.detail == "incumbent c0");
  CHECK(campaign.store().size() == 2);
  bool told = false;
  for (const auto& p : seen)
    told = told || (p.event == AgentStep::not_judged && p.detail.find("goal check of incumbent c0 was not judged") != std::string::npos &&
                    p.detail.find("preempted") != std::string::npos);
  CHECK(told);
  // Both checks are in the trace; the verdict follows the one that judged the incumbent.
  const auto trace = root / "state" / "trace.jsonl";
  const auto verdicts = events_of_type(trace, "verdict");
  REQUIRE(verdicts.size() == 1);
  CHECK(verdicts[0].at("verdict").at("met") == true);
}

TEST_CASE("parallel: a campaign left open with its incumbent's check not judged checks it when it resumes",
          "[parallel][resume]") {
  const auto root = followup_root("unjudged-resume");
  auto run_once = [&](int faults) {
    PreparedMeasure measure;
    FaultingBaselineEvaluator evaluator{measure, std::make_shared<int>(faults)};
    NumberedQuestions questions;
    ParallelConfig config;
    config.drafts.plateau_attempts = 0;
    config.leave_open_when_agents_done = true;  // as a suite leaves each problem between rounds
    ParallelCampaign campaign(evaluator, PairMeasure(measure), questions, &twice_as_fast, campaign_in(root), config);
    ProposingAgent agent;
    agent.contents = {"ms 0.5\n"};
    campaign.add_agent(followup_spec(root, "a", 1), AnyAgent(std::move(agent)));
    return campaign.run();
  };
  const ParallelResult first = run_once(1);
  CHECK(first.reason == StopReason::agents_done);
  CHECK(first.left_open);
  // A suite's standing of the problem has no verdict from a check that judged nothing.
  const ProblemStanding s = read_standing("p", root / "state" / "trace.jsonl", root / "state" / "store", &twice_as_fast);
  REQUIRE(s.incumbent);
  CHECK_FALSE(s.incumbent_check);
  CHECK_FALSE(s.verdict);
  CHECK_FALSE(s.goal_met);
  // Resumed with the judge working: the incumbent is checked at once, and the goal holds.
  const ParallelResult resumed = run_once(0);
  CHECK(resumed.reason == StopReason::goal_met);
  CHECK(resumed.detail == "incumbent c0");
  const ProblemStanding after = read_standing("p", root / "state" / "trace.jsonl", root / "state" / "store", &twice_as_fast);
  REQUIRE(after.incumbent_check);
  CHECK(after.goal_met);
}

TEST_CASE("parallel: a judge changed since the start stops the campaign; the proposal is not the agent's failure",
          "[parallel][resume]") {
  // Found in the evidence suite: a judge rebuilt between two runs failed every agent's proposal
  // ("the judge changed since the campaign began") and sent the agents back to try again.
  const auto root = followup_root("judge-changed");
  PreparedMeasure measure;
  auto changed = std::make_shared<bool>(true);
  PairMeasure judge = [measure, changed](const Candidate& c, const std::optional<Candidate>& incumbent,
                                         const GateRunRequest& req) {
    if (!*changed) return measure(c, incumbent, req);
    EvalReport r;  // what the evaluators report when their integrity check fails
    r.candidate = c;
    r.expected = measure.scenarios;
    r.error = "integrity check failed: /judge/runner was modified since the campaign began";
    r.judge_modified = {"/judge/runner was modified since the campaign began"};
    r.fault = EvalFault::configuration;
    return r;
  };
  NumberedQuestions questions;
  ParallelConfig config;
  config.drafts.plateau_attempts = 0;
  std::vector<AgentProgress> seen;
  config.on_progress = [&](const AgentProgress& p) { seen.push_back(p); };
  ProposingAgent agent;
  agent.contents = {"ms 0.5\n", "ms 0.4\n"};
  {
    BaselineEvaluator evaluator{measure};
    ParallelCampaign campaign(evaluator, judge, questions, &twice_as_fast, campaign_in(root), config);
    campaign.add_agent(followup_spec(root, "a", 2), AnyAgent(agent));
    const ParallelResult r = campaign.run();
    CHECK(r.reason == StopReason::evaluator_error);  // at once: no retry changes a changed judge
    CHECK_THAT(r.detail, Catch::Matchers::Contains("the judge changed since the campaign began") &&
                             Catch::Matchers::Contains("/judge/runner") && Catch::Matchers::Contains("not the candidate's fault"));
    CHECK(campaign.store().size() == 0);  // no failed record against the agent
  }
  std::size_t gated = 0;
  for (const auto& p : seen) gated += p.event == AgentStep::gated;
  CHECK(gated == 0);
  // The judge restored: the campaign continues and judges the proposal.
  *changed = false;
  check_resumes_to_goal(root, judge, agent, config);
}

TEST_CASE("parallel: a proposal the judge could not run on is judged again at once, never sent back to the agent",
          "[parallel][resume]") {
  // Found in the evidence suite: on a machine whose runner cannot reach a GPU, every agent's first
  // proposal was stored as failed ("harness error: the runner did not start on the GPU").
  const auto root = followup_root("judge-fault");
  PreparedMeasure measure;
  auto faults = std::make_shared<int>(0);
  PairMeasure judge = [measure, faults](const Candidate& c, const std::optional<Candidate>& incumbent,
                                        const GateRunRequest& req) {
    if (*faults <= 0) return measure(c, incumbent, req);
    --*faults;
    EvalReport r;  // what the CUDA evaluator reports when its runner never says hello
    r.candidate = c;
    r.expected = measure.scenarios;
    r.built = true;
    r.error = "the runner did not start on the GPU; runner reported: cudaErrorInsufficientDriver";
    r.fault = EvalFault::harness;
    return r;
  };
  NumberedQuestions questions;
  ParallelConfig config;
  config.drafts.plateau_attempts = 0;
  ProposingAgent agent;
  agent.contents = {"ms 0.5\n", "ms 0.4\n"};
  SECTION("a passing fault: judged again, the agent's proposal stands on its own merit") {
    *faults = 2;  // below max_evaluator_failures (3)
    BaselineEvaluator evaluator{measure};
    ParallelCampaign campaign(evaluator, judge, questions, &twice_as_fast, campaign_in(root), config);
    campaign.add_agent(followup_spec(root, "a", 2), AnyAgent(agent));
    const ParallelResult r = campaign.run();
    CHECK(r.reason == StopReason::goal_met);
    REQUIRE(campaign.store().size() == 1);
    CHECK(campaign.store().record("c0").gate.verdict == GateOutcome::admitted);
    for (const Message& m : *agent.received)  // never told of the judge's faults, nor to propose again
      CHECK(m.text.find("not judged") == std::string::npos);
    CHECK(*faults == 0);
  }
  SECTION("a lasting fault: the campaign stops, nothing stored, and it judges the proposal when resumed") {
    *faults = 3;
    {
      BaselineEvaluator evaluator{measure};
      ParallelCampaign campaign(evaluator, judge, questions, &twice_as_fast, campaign_in(root), config);
      campaign.add_agent(followup_spec(root, "a", 2), AnyAgent(agent));
      const ParallelResult r = campaign.run();
      CHECK(r.reason == StopReason::evaluator_error);
      CHECK_THAT(r.detail, Catch::Matchers::Contains("the runner did not start on the GPU") &&
                               Catch::Matchers::Contains("3 tries in a row") &&
                               Catch::Matchers::Contains("not the candidate's fault"));
      CHECK(campaign.store().size() == 0);
    }
    check_resumes_to_goal(root, judge, agent, config);
  }
}

TEST_CASE("parallel: an agent is told what the goal check found unmet on the incumbent", "[parallel]") {
  // Found in the evidence suite: an admitted candidate whose goal check failed left the agents
  // with the gate's "admitted" and no word of why the problem was still open.
  const auto root = followup_root("unmet-goal");
  PreparedMeasure measure;
  BaselineEvaluator evaluator{measure};
  NumberedQuestions questions;
  ParallelConfig config;
  config.drafts.plateau_attempts = 0;
  ParallelCampaign campaign(evaluator, PairMeasure(measure), questions, &twice_as_fast, campaign_in(root), config);
  ProposingAgent agent;
  agent.contents = {"ms 0.8\n", "ms 0.45\n"};  // 1.25x: admitted, the goal (1.8x) unmet; then 2.2x
  campaign.add_agent(followup_spec(root, "a", 2), AnyAgent(agent));
  const ParallelResult r = campaign.run();
  CHECK(r.reason == StopReason::goal_met);
  REQUIRE(agent.received->size() >= 2);
  const std::string& after_first = (*agent.received)[1].text;
  CHECK_THAT(after_first, Catch::Matchers::Contains("Your proposal c0 was admitted") &&
                              Catch::Matchers::Contains("The goal does not hold yet on the incumbent c0") &&
                              Catch::Matchers::Contains("speedup"));
}
