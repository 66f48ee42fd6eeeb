// Child mode `store-coordinator ROOT` of the SDK's test program, for the kill -9 test
// (test_parallel.cpp): a coordinator of two agents over a prepared measurement. Agent `fast`
// proposes ever faster candidates (each a real gain), agent `wrong` only wrong ones, so every
// verdict is the same whatever order the proposals arrive in. Exit 0 when the campaign ended (all
// proposals gated), 1 on an error.
#include <cstdio>
#include <iostream>

#include "child_modes.hpp"
#include "store_fixtures.hpp"

namespace {

int store_coordinator_child(const std::vector<std::string>& args) {
  using namespace socratic;
  using namespace store_fixtures;
  if (args.size() != 1) {
    std::cerr << "usage: --child store-coordinator ROOT\n";
    return 2;
  }
  try {
    const std::filesystem::path root = args[0];
    PreparedMeasure measure;
    measure.delay = std::chrono::milliseconds(8);
    BaselineEvaluator evaluator{measure};
    NumberedQuestions questions;
    ParallelConfig config;
    config.drafts.plateau_attempts = 0;
    ParallelCampaign campaign(evaluator, PairMeasure(measure), questions, never_met, campaign_in(root), config);
    for (const std::string id : {"fast", "wrong"}) {
      ParallelAgentSpec spec;
      spec.id = id;
      spec.workspace = root / id;
      spec.candidate.source = root / id / "kernel.cu";
      spec.max_proposals = 8;
      ProposingAgent agent;
      for (int i = 0; i < 8; ++i)
        agent.contents.push_back(id == "fast" ? "ms " + std::to_string(1.0 - 0.08 * i) + "\n"
                                              : "ms 0.5\nwrong s" + std::to_string(1 + i % 3) + "\n// " + std::to_string(i) + "\n");
      agent.think = std::chrono::milliseconds(2);
      campaign.add_agent(spec, AnyAgent(std::move(agent)));
    }
    const ParallelResult r = campaign.run();
    std::cout << to_string(r.reason) << " " << r.records << "\n";
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "store-coordinator: " << e.what() << "\n";
    return 1;
  }
}

const bool store_coordinator_registered = socratic::test::register_child_mode("store-coordinator", store_coordinator_child);

}  // namespace
