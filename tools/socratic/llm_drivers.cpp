// The one translation unit that instantiates the LLM agent and its HTTP stack for the tool.
#include "llm_drivers.hpp"

#include <iostream>

#include "campaign_runner.hpp"
#include "llm_parts.hpp"
#include "parallel_run.hpp"

namespace socratic::tool {

std::string llm_backend_name(const AgentSettings& agent, const std::string& where) {
  return std::string(provider_name(chosen_backend(agent, where)));
}

CampaignResult run_campaign_file_with_llm_agent(const CampaignFile& c, const std::string& where) {
  CampaignEvaluator evaluator = make_evaluator(c, campaign_scenario_ids(c));
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

namespace {

/// The in-process LLM agent the settings of `v` (one agent's view of the campaign file) describe.
AnyAgent make_llm_agent(const CampaignFile& v, const AgentBoundary& boundary, const std::string& where) {
  return with_llm_agent(v, boundary, where, [](auto& agent) { return AnyAgent(std::move(agent)); });
}

}  // namespace

namespace {

/// The agents of `c`'s section on the campaign's one store; `targets` caps each agent's records
/// (a suite's round); `quiet` says nothing on stderr but the sandbox warning.
ParallelResult run_agents_on_store(const CampaignFile& c, const std::string& where, ParallelConfig pc,
                                   const std::map<std::string, int>* targets, std::shared_ptr<std::mutex> shared_mutex,
                                   bool quiet) {
  const std::vector<std::string> ids = campaign_scenario_ids(c);
  CampaignEvaluator evaluator = make_evaluator(c, ids);
  const std::shared_ptr<std::mutex> one_at_a_time = serialise_evaluations(evaluator, std::move(shared_mutex));
  ToolQuestionSource questions = make_question_source(c);
  CampaignConfig config = campaign_config(c, ids);
  // Each agent's own budget is its entry's; the campaign's is the file's `budget`.
  pc.max_proposals = c.agents.max_proposals;
  ParallelCampaign campaign(evaluator, campaign_pair_measure(evaluator, one_at_a_time), questions, c.goal,
                            std::move(config), pc);
  const fs::path store_dir = campaign.store().dir();

  bool unsandboxed_said = false;
  for (const auto& a : c.agents.agents) {
    ParallelAgentSpec spec;
    spec.id = a.id;
    spec.workspace = a.workspace;
    spec.candidate.source = prepare_agent_workspace(c, a);
    spec.role = a.role;
    spec.preferred_group = a.question_group;
    spec.budget = a.budget;
    spec.max_proposals = a.max_proposals;
    if (targets) {
      auto t = targets->find(a.id);
      const int cap = t == targets->end() ? 0 : t->second;
      spec.max_proposals = spec.max_proposals ? std::min(*spec.max_proposals, cap) : cap;
    }
    const std::string who = where + " (agent " + a.id + ")";
    if (c.agent.sandbox == ShellSandboxKind::none && !unsandboxed_said && !quiet) {
      std::cerr << where << ": agent.sandbox is \"none\": the agents run without an OS sandbox and can reach whatever "
                           "you can (the store and the trace included)\n";
      unsandboxed_said = true;
    }
    if (a.kind == AgentKind::llm) {
      const CampaignFile v = agent_view_of(c, a);
      AgentBoundary boundary{evaluator.judge, agent_hidden_paths(c, evaluator, a)};
      AnyAgent agent = make_llm_agent(v, boundary, who);
      if (c.agent.sandbox != ShellSandboxKind::none) {
        ShellSandboxOptions box = sandbox_options(c.agent);
        if (const std::string problem = shell_sandbox_problem(box, {a.workspace, {}, boundary.hidden}); !problem.empty())
          throw error(who + ": the agent's shell cannot be sandboxed here: " + problem +
                      ". To run without an OS sandbox, set agent.sandbox to \"none\" in " + c.file.string());
      }
      campaign.add_agent(std::move(spec), std::move(agent));
    } else if (a.kind == AgentKind::replay) {
      campaign.add_agent(std::move(spec), AnyAgent(make_replay_agent(a)));
    } else if (a.kind == AgentKind::inbox) {
      InboxOptions box{*a.inbox, a.id, a.inbox_problem.empty() ? c.problem : a.inbox_problem, a.workspace,
                       spec.candidate.source.filename().string()};
      campaign.add_agent(std::move(spec), AnyAgent(InboxAgent(std::move(box))));
    } else {
      campaign.add_agent(std::move(spec), AnyAgent(make_cli_agent(c, a, evaluator)));
    }
  }
  if (!quiet)
    std::cerr << where << ": " << c.agents.agents.size() << " agents on one store (" << store_dir.string() << "), trace "
              << c.trace_path().string() << "\n";
  return campaign.run();
}

}  // namespace

int run_parallel_campaign(const CampaignFile& c, const std::string& where) {
  std::vector<std::string> agent_ids;
  for (const auto& a : c.agents.agents) agent_ids.push_back(a.id);
  auto progress = std::make_shared<AgentsProgress>(agent_ids);
  ParallelConfig pc;
  pc.on_progress = [progress](const AgentProgress& p) { (*progress)(p); };
  const ParallelResult r = run_agents_on_store(c, where, pc, nullptr, nullptr, false);
  return print_parallel_result(r, c.trace_path(), c.state_dir / "store" / "store.jsonl");
}

ParallelResult run_suite_problem_round(const CampaignFile& c, const std::string& where, const SuiteProblemRound& round) {
  ParallelConfig pc;
  pc.on_progress = round.on_progress;
  pc.leave_open_when_agents_done = true;
  return run_agents_on_store(c, where, pc, &round.targets, round.evaluations, true);
}

}  // namespace socratic::tool
