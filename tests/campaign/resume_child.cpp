// Child process of the resume test: runs a campaign and blocks mid-turn (after writing a
// ready file) so that the parent can kill it with SIGKILL at a known point.
#include <cstdio>
#include <thread>

#include "fixtures.hpp"

int main(int argc, char** argv) {
  using namespace fixtures;
  if (argc != 3) {
    std::fprintf(stderr, "usage: resume_child DIR READY_FILE\n");
    return 2;
  }
  const std::filesystem::path dir = argv[1];
  const std::string ready = argv[2];
  PreparedEvaluator evaluator;
  evaluator.reports["v1"] = report_with(1.0, 1.0);
  evaluator.reports["v2"] = report_with(1.1, 1.3);
  ScriptedAgent agent;
  agent.steps = {Step{"v1", true, "I think this is as fast as it gets."},
                 Step{"v2", true, "unreachable"}};
  agent.steps[1].during = [ready] {
    write_text(ready, "ready");
    std::this_thread::sleep_for(std::chrono::seconds(120));  // killed here
  };
  FixedQuestionSource questions;
  Campaign campaign(agent, evaluator, questions, speedup_goal(), config_in(dir));
  campaign.run();
  return 3;  // never reached in the test
}
