// Composing a campaign from four user-written parts: an evaluator that wraps your own harness,
// an agent that wraps your own stack, a question source, and a goal written as a lambda.
// Runs anywhere (no GPU): the "harness" here reads a number from the candidate file.
#include <fstream>
#include <iostream>

#include <socratic/socratic.hpp>

using namespace socratic;

// Your harness: here, the candidate file holds its own speedup.
struct FileSpeedupEvaluator {
  EvalReport evaluate(const Candidate& c) {
    double speedup = 0;
    std::ifstream(c.source) >> speedup;
    EvalReport r;
    r.built = true;
    r.expected = {"only"};
    ScenarioResult only;
    only.id = "only";
    only.correct = true;
    only.speedup = speedup;
    r.scenarios.push_back(only);
    return r;
  }
};
static_assert(Evaluator<FileSpeedupEvaluator>);

// Your agent: here, it improves the candidate by 10% per turn and always claims it is done.
struct StubbornAgent {
  double speedup = 1.0;
  TurnResult turn(const Message& m, Tools& tools) {
    std::cout << "turn " << m.turn << (m.question ? " asked: " + m.question->text : "") << "\n";
    if (!tools.charge("write_file")) return {};
    speedup *= 1.1;
    std::ofstream(tools.candidate().source) << speedup;
    TurnResult result;
    result.final_message = "Done: this is the hardware limit.";
    result.tool_calls = 1;
    return result;
  }
};
static_assert(Agent<StubbornAgent>);

// Your questions: one per trigger.
struct OneQuestionPerTrigger {
  std::optional<Question> ask(const TriggerEvent& e, const CampaignState&) {
    Question q;
    q.id = e.trigger == Trigger::claimed_limit ? "limit-1" : "start-1";
    q.text = e.trigger == Trigger::claimed_limit ? "Which measurement shows the limit you named?"
                                                 : "What bounds this kernel: memory or compute?";
    return q;
  }
};
static_assert(QuestionSource<OneQuestionPerTrigger>);

int main() {
  const auto dir = std::filesystem::temp_directory_path() / "socratic_example_compose";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir / "workspace");
  std::ofstream(dir / "workspace" / "candidate.txt") << 1.0;

  CampaignConfig config;
  config.task = "Make the candidate at least 1.3x faster than the baseline.";
  config.workspace = dir / "workspace";
  config.candidate.source = dir / "workspace" / "candidate.txt";
  config.state_dir = dir / "state";
  config.budget.turns = 10;

  StubbornAgent agent;
  FileSpeedupEvaluator evaluator;
  OneQuestionPerTrigger questions;
  auto goal = goals::all_of(goals::all_correct{}, goals::every_scenario_speedup_at_least{1.3});
  Campaign campaign(agent, evaluator, questions, goal, config);
  const CampaignResult result = campaign.run();
  std::cout << "ended: " << to_string(result.reason) << " after " << result.turns << " turns; trace "
            << result.trace_path << "\n";
  return result.goal_met ? 0 : 1;
}
