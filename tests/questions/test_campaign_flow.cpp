// The bank, the five detectors and BankQuestionSource inside a real Campaign, and the campaign's
// trace read back by the replay (`socratic detect`) and the credit rule (`socratic bank credit`).
#include "support.hpp"

#include <map>
#include <set>

#include "socratic/campaign.hpp"
#include "socratic/goals.hpp"
#include "socratic/questions/bank_question_source.hpp"
#include "socratic/questions/credit.hpp"
#include "socratic/questions/detectors.hpp"
#include "socratic/questions/trace_replay.hpp"

using namespace socratic;

namespace {

/// An evaluator whose report depends on the candidate file's content: "speedup=X" gives X on
/// both scenarios, with 1 % noise.
struct ContentEvaluator {
  EvalReport evaluate(const Candidate& c) {
    const std::string text = qtest::read_file(c.source);
    const double speedup = std::stod(text.substr(text.find('=') + 1));
    EvalReport r = qtest::evaluation(0, {speedup, speedup}, 0.01).report;
    r.candidate = c;
    return r;
  }
};

/// One turn: the candidates it writes and evaluates in order, then its last words.
struct Turn {
  std::vector<double> evaluations;
  double final_speedup;
  std::string final_message;
};

struct ScriptedTurnsAgent {
  std::vector<Turn> turns;
  std::vector<Message> received;
  std::vector<std::optional<Question>> evaluate_questions;
  std::size_t next = 0;
  TurnResult turn(const Message& m, Tools& tools) {
    received.push_back(m);
    const Turn& t = turns.at(std::min(next++, turns.size() - 1));
    for (double s : t.evaluations) {
      qtest::write_file(tools.candidate().source, "speedup=" + std::to_string(s));
      evaluate_questions.push_back(tools.evaluate().question);
    }
    qtest::write_file(tools.candidate().source, "speedup=" + std::to_string(t.final_speedup));
    return TurnResult{t.final_message, static_cast<int>(t.evaluations.size()), {}, ""};
  }
};

}  // namespace

TEST_CASE("a campaign asks bank questions at the moments the detectors find", "[questions][campaign]") {
  const auto dir = qtest::temp_dir("campaign_flow");
  const Bank bank = load_bank(std::filesystem::path(SOCRATIC_SOURCE_DIR) / "question_bank");
  ScriptedTurnsAgent agent;
  agent.turns = {
      // Flat within noise four times: a plateau; then a stop claiming a limit.
      {{1.2, 1.21, 1.2, 1.205, 1.2}, 1.2, "I believe the kernel is at the hardware limit now."},
      // A jump from 1.21 to 3.5: suspicious; then the goal holds at the stop.
      {{3.5}, 3.5, "Done."},
  };
  ContentEvaluator evaluator;
  BankQuestionSource questions(bank, BankSourceOptions{5, true, std::nullopt, 0.2, {}, std::nullopt});
  CampaignConfig config;
  config.task = "Make the kernel at least 2x faster on every scenario.";
  config.workspace = dir / "workspace";
  config.candidate.source = dir / "workspace" / "candidate.cu";
  config.state_dir = dir / "state";
  config.scenario_ids = {"s0", "s1"};
  config.arch = "sm_90";
  config.detectors = default_detectors();
  Campaign campaign(agent, evaluator, questions, goals::every_scenario_speedup_at_least{2.0}, config);
  const CampaignResult result = campaign.run();
  REQUIRE(result.goal_met);

  // The questions the campaign asked: from the bank, never repeated, fitting their moments.
  const CampaignState& state = campaign.state();
  std::vector<std::string> asked;
  for (const auto& a : state.asked) {
    const BankEntry* e = bank.find(a.question.id);
    REQUIRE(e);
    CHECK(e->serves(a.question.trigger));
    CHECK(e->fits_arch("sm_90"));
    CHECK_FALSE(e->requires_reference);
    asked.push_back(a.question.id);
  }
  CHECK(std::set<std::string>(asked.begin(), asked.end()).size() == asked.size());
  std::map<Trigger, std::vector<std::string>> by_trigger;
  for (const auto& a : state.asked) by_trigger[a.question.trigger].push_back(a.question.id);
  CHECK(by_trigger[Trigger::start].size() == 1);
  REQUIRE(by_trigger[Trigger::plateau].size() == 1);
  REQUIRE(by_trigger[Trigger::claimed_limit].size() == 1);
  CHECK(bank.find(by_trigger[Trigger::claimed_limit][0])->has_tag("limit"));
  REQUIRE(by_trigger[Trigger::suspicious_gain].size() == 1);
  const BankEntry* gain_q = bank.find(by_trigger[Trigger::suspicious_gain][0]);
  CHECK((gain_q->has_tag("cheat") || gain_q->has_tag("timing")));
  // The plateau and the suspicious gain came back with the evaluate tool's result.
  REQUIRE(agent.evaluate_questions.size() == 6);
  CHECK(agent.evaluate_questions[4]->trigger == Trigger::plateau);
  CHECK(agent.evaluate_questions[5]->trigger == Trigger::suspicious_gain);
  CHECK_THAT(agent.evaluate_questions[5]->evidence, Q_CONTAINS("times the previous best"));
  // The claimed-limit question opened the second turn.
  REQUIRE(agent.received.size() == 2);
  REQUIRE(agent.received[1].question);
  CHECK(agent.received[1].question->trigger == Trigger::claimed_limit);
  CHECK_THAT(agent.received[1].text, Q_CONTAINS(agent.received[1].question->text));

  // `socratic detect` on the campaign's trace sees what the campaign saw, moment by moment.
  const TraceContents trace = read_trace(campaign.trace_path());
  std::vector<std::string> recorded, replayed;
  for (const auto& e : trace.events)
    if (e["type"] == "trigger")
      recorded.push_back(e["moment"].get<std::string>() + " " + e["event"]["trigger"].get<std::string>() + " " +
                         std::to_string(e["event"]["priority"].get<int>()));
  for (const auto& f : replay_trace(trace.events, campaign.trace_path().string(), default_detectors()))
    replayed.push_back(std::string(to_string(f.moment)) + " " + std::string(to_string(f.event.trigger)) + " " +
                       std::to_string(f.event.priority));
  CHECK(replayed == recorded);
  CHECK(recorded.size() >= 4);
  // And it chooses as the campaign chose (the engine's own detection code): the trigger it marks
  // `chosen` at each moment is the trigger of the question the campaign asked there.
  std::vector<std::string> chosen, asked_for;
  for (const auto& f : replay_trace(trace.events, campaign.trace_path().string(), default_detectors()))
    if (f.chosen) chosen.emplace_back(to_string(f.event.trigger));
  for (const auto& a : state.asked) asked_for.emplace_back(to_string(a.question.trigger));
  CHECK(chosen == asked_for);

  // `socratic bank credit`: the plateau (#4) and claimed-limit (#5) questions were followed by
  // the 3.5x evaluation (#6) within 3 evaluations; the suspicious-gain question by no gain.
  const CampaignState rebuilt = summarize_trace(trace.events).state;
  std::map<std::string, CreditOutcome> credit;
  for (const auto& o : credit_questions(rebuilt, CreditRule{})) credit[o.question_id] = o;
  CHECK(credit.at(by_trigger[Trigger::claimed_limit][0]).credited_by == 6);
  CHECK(credit.at(by_trigger[Trigger::plateau][0]).credited_by == 6);
  CHECK_FALSE(credit.at(by_trigger[Trigger::suspicious_gain][0]).credited);
}
