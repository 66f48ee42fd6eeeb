// socratic run CAMPAIGN.json: the whole campaign in process with the LLM agent (LlmAgent), the
// campaign's evaluator and the question bank; live progress; resumable from its trace.
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include "campaign_file.hpp"
#include "command.hpp"

#include "campaign_runner.hpp"
#include "interrupt_notice.hpp"
#include "llm_drivers.hpp"

namespace {

using namespace socratic;
using namespace socratic::tool;

int run_in_process(const CampaignFile& c) {
  const std::string backend = llm_backend_name(c.agent, c.file.string());  // may throw: before any output
  std::cerr << "socratic run: " << backend << " backend, trace " << c.trace_path().string() << "\n";
  return print_result(run_campaign_file_with_llm_agent(c, c.file.string()));
}

int run_command(const std::string& campaign_file) {
  const CampaignFile c = load_campaign_file(campaign_file);
  (void)campaign_scenario_ids(c);
  const interrupt_notice_on_signal notice([&c](int sig) {
    return interruption_notice(sig == SIGINT ? "Ctrl-C (SIGINT)" : "SIGTERM", c.trace_path(), c.workspace,
                               "socratic run " + c.file.string());
  });
  if (c.agents.present) return run_parallel_campaign(c, c.file.string());
  return run_in_process(c);
}

command_run run_setup(CLI::App& app) {
  auto file = std::make_shared<std::string>();
  app.footer(
      "Runs the whole campaign in process: the reference LLM agent, the campaign's evaluator and the\n"
      "question bank, with live progress on the terminal (turn, evaluations, best geomean, last\n"
      "question). The backend is the campaign file's agent.backend (anthropic, openai, replay; `init\n"
      "--backend`), else anthropic when ANTHROPIC_API_KEY is set, else openai when OPENAI_API_KEY is\n"
      "set; agent.model names the model; the key comes from agent.api_key_env, agent.api_key_file or\n"
      "the backend's usual variable (never from the campaign file). Killed, it resumes from its trace\n"
      "when run again; Ctrl-C says what was kept and the command that resumes (the cut turn does not\n"
      "count against the turn budget). With an `agents` section (docs/parallel.md) it runs that many\n"
      "agents at once (llm, claude-code, codex, replay, inbox), each in its own workspace and sandbox, on one\n"
      "candidate store: a coordinator gates every proposal against the incumbent and appends it; one\n"
      "progress line per agent; the last line says why the campaign ended.\n"
      "Exit: 0 when the goal holds, 1 when the campaign ended otherwise, 2 on an error.\n");
  app.add_option("CAMPAIGN", *file, "the campaign file (WS/campaign.json from `socratic init`)")
      ->type_name("")
      ->required();
  return [file] { return run_command(*file); };
}

const command_registration run_registration("run", "run a campaign in process with the LLM agent", "Campaigns",
                                            run_setup);

}  // namespace
