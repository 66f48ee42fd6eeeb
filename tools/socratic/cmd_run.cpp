// socratic run CAMPAIGN.json: the whole campaign in process with the LLM agent (LlmAgent), the
// campaign's evaluator and the question bank; live progress; resumable from its trace.
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include "args.hpp"
#include "campaign_file.hpp"
#include "command.hpp"

#include "campaign_runner.hpp"
#include "llm_campaign.hpp"

namespace {

using namespace socratic;
using namespace socratic::tool;

constexpr const char* run_usage =
    "Usage: socratic run CAMPAIGN.json\n\n"
    "Runs the whole campaign in process: the reference LLM agent, the campaign's evaluator and the\n"
    "question bank, with live progress on the terminal (turn, evaluations, best geomean, last\n"
    "question). The backend is the campaign file's agent.backend (anthropic, openai, replay), else\n"
    "anthropic when ANTHROPIC_API_KEY is set, else openai when OPENAI_API_KEY is set; agent.model\n"
    "names the model; the key comes from agent.api_key_env, agent.api_key_file or the backend's\n"
    "usual variable (never from the campaign file). Killed, it resumes from its trace when run\n"
    "again. Exit 0 when the goal holds, 1 when the campaign ended otherwise, 2 on an error.\n";

int run_in_process(const CampaignFile& c) {
  std::cerr << "socratic run: " << llm_backend_name(c.agent, c.file.string()) << " backend, trace "
            << c.trace_path().string() << "\n";
  return print_result(run_llm_campaign(c, c.file.string()));
}

int run_command(const std::vector<std::string>& args) {
  parsed_args a(args, {"--help"}, {});
  if (a.flag("--help")) {
    std::cout << run_usage;
    return exit_ok;
  }
  if (a.positionals().size() != 1) throw usage_error("expected one campaign file");
  const CampaignFile c = load_campaign_file(a.positionals()[0]);
  (void)campaign_scenario_ids(c);
  return run_in_process(c);
}

const command_registration run_registration("run", "run a campaign in process with the LLM agent",
                                            run_command);

}  // namespace
