// The one translation unit that instantiates the LLM agent and its HTTP stack for the tool.
#include "llm_campaign.hpp"

#include <iostream>

#include "campaign_runner.hpp"
#include "llm_parts.hpp"

namespace socratic::tool {

std::string llm_backend_name(const AgentSettings& agent, const std::string& where) {
  return chosen_backend(agent, where);
}

CampaignResult run_llm_campaign(const CampaignFile& c, const std::string& where) {
  AnyEvaluator evaluator = make_evaluator(c, campaign_scenario_ids(c));
  const AgentBoundary boundary{evaluator.judge, evaluator.hidden};
  return with_llm_agent(c, boundary, where, [&](auto& agent) {
    // Said at the start, before any model call: the shell's sandbox works here, or the user
    // chose none. (The agent checks again at its first turn and records it in the trace.)
    const AgentToolOptions& tools = agent.options().tools;
    std::filesystem::create_directories(c.workspace);
    if (tools.sandbox.kind == ShellSandboxKind::none) {
      std::cerr << where << ": agent.sandbox is \"none\": the agent's shell runs without an OS sandbox and can reach "
                           "whatever you can (recorded in the trace)\n";
    } else if (const std::string problem = shell_sandbox_problem(tools.sandbox, {c.workspace, tools.read_only, tools.hidden});
               !problem.empty()) {
      throw error(where + ": the agent's shell cannot be sandboxed here: " + problem +
                  ". To run without an OS sandbox (the agent can then reach whatever you can), set agent.sandbox to "
                  "\"none\" in " + c.file.string());
    }
    return run_campaign_file(agent, c, evaluator);
  });
}

}  // namespace socratic::tool
