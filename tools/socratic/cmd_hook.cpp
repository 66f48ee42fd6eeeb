// socratic hook stop --campaign FILE: the Stop hook of Claude Code and Codex (docs/tool.md).
// Reads the hook JSON on stdin, evaluates the candidate with the campaign's evaluator, applies the
// goal, and blocks with the unmet scenarios and a question, or lets the agent stop. Any failure
// blocks with the error: a broken hook never lets an agent stop with the goal unverified.
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <iterator>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "campaign_file.hpp"
#include "campaign_parts.hpp"
#include "command.hpp"
#include "socratic/campaign/stop_hook_runner.hpp"

namespace {

using namespace socratic;
using namespace socratic::tool;

std::filesystem::path find_campaign(const std::string& given, const std::string& stdin_text) {
  if (!given.empty()) return given;
  if (const char* env = std::getenv("SOCRATIC_CAMPAIGN"); env && *env) return env;
  std::filesystem::path dir = std::filesystem::current_path();
  try {  // the client's cwd, when the input names one
    const json j = json::parse(stdin_text);
    if (j.is_object() && j.contains("cwd") && j["cwd"].is_string()) dir = j["cwd"].get<std::string>();
  } catch (const std::exception&) {
  }
  for (auto d = dir; !d.empty(); d = d.parent_path()) {
    if (std::filesystem::exists(d / "campaign.json")) return d / "campaign.json";
    if (d == d.root_path()) break;
  }
  throw error("no campaign file: pass --campaign FILE (socratic init writes it into the hook command)");
}

int print(const StopHookOutcome& out) {
  std::cout << out.stdout_text << std::flush;
  std::cerr << out.stderr_text << std::flush;
  return out.exit_code;
}

std::string read_stdin() {
  return std::string((std::istreambuf_iterator<char>(std::cin)), std::istreambuf_iterator<char>());
}

/// `given`: --campaign; `usage_problem`: what was wrong with the command line (it blocks).
int hook_stop(const std::string& given, const std::string& usage_problem) {
  const std::string stdin_text = read_stdin();
  if (const char* loop = std::getenv("SOCRATIC_IN_CAMPAIGN_LOOP"); loop && std::string(loop) == "1") {
    std::cerr << "socratic hook stop: inside a campaign loop (socratic agent): the loop judges the "
                 "candidate when the turn ends\n";
    return exit_ok;
  }
  std::optional<CampaignFile> campaign;
  try {
    if (!usage_problem.empty()) throw error("socratic hook stop: " + usage_problem);
    campaign = load_campaign_file(find_campaign(given, stdin_text));
    const CampaignFile& c = *campaign;
    CampaignConfig config = campaign_config(c, campaign_scenario_ids(c));
    CampaignEvaluator evaluator = make_evaluator(c, config.scenario_ids);
    ToolQuestionSource questions = make_question_source(c);
    StopHookRunner runner(evaluator, questions, c.goal, std::move(config));
    return print(runner.handle(stdin_text));
  } catch (const configuration_error& e) {
    // The campaign's parts do not fit together: the person's to fix, so the agent is let go at
    // once with the verdict (not verified) rather than blocked for what it cannot change.
    StopHookPolicy policy;
    std::optional<std::filesystem::path> trace;
    if (campaign) {
      policy.max_consecutive_blocks = campaign->max_consecutive_blocks;
      trace = campaign->trace_path();
    }
    return print(stop_hook_configuration_fault(e.what(), stdin_text, trace, policy));
  } catch (const std::exception& e) {
    // The parts of the campaign could not be built (bad campaign file, missing scenarios, an
    // evaluator that cannot start): block with the error, recorded in the campaign's trace when
    // the campaign file at least said where that is.
    StopHookPolicy policy;
    std::optional<std::filesystem::path> trace;
    if (campaign) {
      policy.max_consecutive_blocks = campaign->max_consecutive_blocks;
      trace = campaign->trace_path();
    }
    return print(stop_hook_setup_failure(e.what(), stdin_text, trace, policy));
  }
}

command_run hook_setup(CLI::App& app) {
  app.require_subcommand(1);
  CLI::App* stop = app.add_subcommand("stop", "the Stop hook: judge the candidate, block or let the agent stop");
  stop->footer(
      "The Stop hook for Claude Code (.claude/settings.json) and Codex (.codex/hooks.json); `socratic\n"
      "init --agent ...` registers it. Reads the hook's JSON on stdin, evaluates the candidate, applies\n"
      "the goal to every scenario and prints {\"decision\":\"block\",\"reason\":...} when it does not\n"
      "hold; when it lets the agent stop it prints {\"systemMessage\":...}, the verdict for the person\n"
      "(the goal met, or NOT met when the cap let the agent go). Always exits 0; any failure (a bad\n"
      "command line included) blocks with the error. The campaign file is --campaign, else\n"
      "$SOCRATIC_CAMPAIGN, else campaign.json in the hook's cwd or a folder above it. With\n"
      "SOCRATIC_IN_CAMPAIGN_LOOP=1 (set by `socratic agent`) it lets the agent stop at once: the\n"
      "campaign loop judges the candidate itself.\n");
  auto campaign = std::make_shared<std::string>();
  stop->add_option("-c,--campaign", *campaign, "the campaign file")->type_name("FILE");
  return [campaign] { return hook_stop(*campaign, ""); };
}

/// A bad `hook stop` command line blocks with the error (the agent is told; it never stops unjudged).
std::optional<int> hook_usage_error(const std::string& path, const std::string& message) {
  if (path != "socratic hook stop") return std::nullopt;
  return hook_stop("", message + " (see `socratic hook stop --help`)");
}

const command_registration hook_registration("hook", "hook stop: the Stop hook for Claude Code and Codex",
                                             "Campaigns", hook_setup, hook_usage_error);

}  // namespace
