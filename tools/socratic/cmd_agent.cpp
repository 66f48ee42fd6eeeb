// socratic agent CAMPAIGN.json --cli claude|codex: a coding-agent CLI driven headless through the
// campaign loop (CliAgent), judged by the campaign's evaluator and goal after every turn.
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "campaign_runner.hpp"
#include "cli_parts.hpp"

namespace {

using namespace socratic;
using namespace socratic::tool;

struct AgentCommandOptions {
  std::string campaign, cli, program;
};

int agent_command(const AgentCommandOptions& o) {
  const std::string& cli = o.cli;
  if (cli != "claude" && cli != "codex") throw usage_error("--cli must be claude or codex, not \"" + cli + "\"");
  const CampaignFile c = load_campaign_file(o.campaign);

  const CliAgentOptions options =
      cli_agent_options(c.agent, cli == "claude" ? CliKind::claude_code : CliKind::codex, o.program);
  CliAgent agent(options);
  return print_result(run_campaign_file(agent, c));
}

command_run agent_setup(CLI::App& app) {
  auto o = std::make_shared<AgentCommandOptions>();
  app.footer(
      "Runs the campaign with a coding-agent CLI as the agent: each turn is one headless call\n"
      "(`claude -p ... --output-format stream-json`, resumed with --resume; `codex exec --json`,\n"
      "resumed with `exec resume`) in the campaign's workspace; after it the campaign evaluates the\n"
      "candidate, applies the goal to every scenario and sends the CLI back with the unmet\n"
      "conditions and a question. Settings from the campaign file's \"agent\" object: model,\n"
      "base_url (ANTHROPIC_BASE_URL / OPENAI_BASE_URL for the CLI), api_key_env or api_key_file,\n"
      "max_turns_per_cli_call, cli_timeout_s, cli_extra_args. Resumes from the trace after a crash.\n"
      "Exit: 0 when the goal holds, 1 when the campaign ended otherwise, 2 on an error.\n");
  app.add_option("CAMPAIGN", o->campaign, "the campaign file (WS/campaign.json from `socratic init`)")
      ->type_name("")
      ->required();
  app.add_option("--cli", o->cli, "claude or codex")->type_name("NAME")->required();
  app.add_option("--program", o->program, "the CLI's executable (default: found on PATH)")->type_name("PATH");
  return [o] { return agent_command(*o); };
}

const command_registration agent_registration(
    "agent", "run a campaign with Claude Code or Codex headless as the agent", "Campaigns", agent_setup);

}  // namespace
