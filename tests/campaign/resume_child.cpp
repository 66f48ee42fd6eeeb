// Child mode `resume-campaign DIR READY_FILE` of the SDK's test program, for the resume test
// (test_trace.cpp): runs a campaign and blocks mid-turn (after writing the ready file) so that
// the parent can kill it with SIGKILL at a known point.
#include <cstdio>
#include <thread>

#include "child_modes.hpp"
#include "fixtures.hpp"

namespace {

int resume_campaign_child(const std::vector<std::string>& args) {
  using namespace fixtures;
  if (args.size() != 2) {
    std::fprintf(stderr, "usage: --child resume-campaign DIR READY_FILE\n");
    return 2;
  }
  const std::filesystem::path dir = args[0];
  const std::string ready = args[1];
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

const bool resume_campaign_registered = socratic::test::register_child_mode("resume-campaign", resume_campaign_child);

}  // namespace
