// socratic init DIR --problem NAME --scenarios FILE [--agent claude-code|codex|none]: creates a
// campaign folder: its campaign file, its state folder and, beside them, the agent's workspace
// (the candidate and the agent's Stop-hook config). The state never lies in the workspace.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "args.hpp"
#include "campaign_file.hpp"
#include "command.hpp"
#include "data_dir.hpp"
#include "socratic/core/files.hpp"
#include "socratic/questions/anchors.hpp"

namespace {

using namespace socratic;
using namespace socratic::tool;
namespace fs = std::filesystem;

constexpr const char* init_usage =
    "Usage: socratic init DIR --problem NAME --scenarios FILE [--agent claude-code|codex|none]\n"
    "                     [--baseline FILE] [--evaluator-command 'PROGRAM ARG... {candidate}']\n"
    "                     [--goal JSON] [--task TEXT] [--turns N] [--arch sm_90] [--has-reference]\n"
    "                     [--anchors FILE [--anchor-id TEMPLATE]] [--campaign-id ID] [--force]\n\n"
    "Creates a campaign in DIR: DIR/campaign.json (problem, scenarios, goal, budgets, question\n"
    "settings, evaluator), the state folder DIR/state (trace, snapshots, the judge's hashes) and\n"
    "the agent's workspace DIR/workspace with the candidate (a copy of the problem's baseline, or\n"
    "of --baseline). The state lies outside the workspace, where the agent's tools cannot reach\n"
    "it. With --agent, writes the agent's hook configuration in the workspace\n"
    "(.claude/settings.json or .codex/hooks.json) so that every stop runs `socratic hook stop`.\n"
    "Without --evaluator-command the CUDA evaluator judges candidates;\n"
    "with it, the command (split on spaces; or a JSON array) prints an EvalReport JSON.\n"
    "--goal takes a goal spec (docs/tool.md); the default is every scenario correct, at least as\n"
    "fast as the baseline, and no banned library. --has-reference: another implementation exists\n"
    "(the bank's comparison questions apply). --anchors: best known TFLOP/s per scenario, for the\n"
    "suspicious-gain check (formats in docs/question-bank.md).\n";

std::string read_text(const fs::path& p) { return read_file_bytes(p); }

void write_text(const fs::path& p, const std::string& text) { write_file_atomically(p, text); }

/// The problem's baseline source, from kernels/problems.json and its problem.json.
fs::path problem_baseline(const std::string& problem) {
  const fs::path kernels = data_dir() / "kernels";
  const json list = read_json_file(kernels / "problems.json");
  std::string known;
  for (const auto& p : list.value("problems", json::array())) {
    const std::string name = p.value("name", "");
    known += (known.empty() ? "" : ", ") + name;
    if (name != problem) continue;
    const fs::path folder = kernels / p.value("folder", name);
    const fs::path problem_json = folder / "problem.json";
    if (!fs::exists(problem_json))
      throw input_error(problem_json.string(), {}, "problem \"" + problem + "\" has no problem.json yet; pass --baseline FILE");
    const json pj = read_json_file(problem_json);
    const std::string baseline = required<std::string>(pj, "baseline", "problem \"" + problem + "\"");
    return folder / baseline;
  }
  throw input_error((kernels / "problems.json").string(), {},
                    "unknown problem \"" + problem + "\" (known: " + known + "); or pass --baseline FILE");
}

std::vector<std::string> parse_command(const std::string& text) {
  if (!text.empty() && text.front() == '[') {
    try {
      return json::parse(text).get<std::vector<std::string>>();
    } catch (const std::exception& e) {
      throw usage_error("--evaluator-command: not a JSON array of strings: " + std::string(e.what()));
    }
  }
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string word; in >> word;) out.push_back(word);
  if (out.empty()) throw usage_error("--evaluator-command is empty");
  return out;
}

fs::path self_executable() {
  std::error_code ec;
  fs::path p = fs::read_symlink("/proc/self/exe", ec);
  if (ec) throw error("cannot find the socratic executable's path (/proc/self/exe): " + ec.message());
  return p;
}

std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (char ch : s) out += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
  return out + "'";
}

/// The Stop-hook entry both clients read: hooks.Stop[].hooks[] with a command.
json stop_hook_entry(const std::string& command, int timeout_s) {
  return json{{"hooks", json::array({json{{"type", "command"}, {"command", command}, {"timeout", timeout_s}}})}};
}

/// Adds our Stop hook to a client's settings file, keeping whatever else it holds.
void write_hook_config(const fs::path& file, const std::string& command, int timeout_s, bool claude,
                       const fs::path& campaign, const fs::path& state_dir) {
  json settings = fs::exists(file) ? read_json_file(file) : json::object();
  if (!settings.is_object()) throw input_error(file.string(), {}, "expected a JSON object");
  json& hooks = settings["hooks"];
  if (hooks.is_null()) hooks = json::object();
  json& stop = hooks["Stop"];
  if (!stop.is_array()) stop = json::array();
  json kept = json::array();  // drop an earlier `socratic hook stop` entry, keep the user's own
  for (const auto& group : stop)
    if (group.dump().find("hook stop") == std::string::npos) kept.push_back(group);
  kept.push_back(stop_hook_entry(command, timeout_s));
  stop = kept;
  if (claude) {
    // The campaign's own files are not the agent's to touch: Claude Code's file tools are told so
    // (`//` starts an absolute path in its rules). Its shell obeys only its own sandbox, if on.
    json& deny = settings["permissions"]["deny"];
    if (!deny.is_array()) deny = json::array();
    const std::string file = "/" + campaign.string(), state = "/" + state_dir.string() + "/**";
    for (const std::string& rule : {"Edit(" + file + ")", "Write(" + file + ")", "Read(" + state + ")",
                                    "Edit(" + state + ")", "Write(" + state + ")"})
      if (std::find(deny.begin(), deny.end(), rule) == deny.end()) deny.push_back(rule);
  }
  write_text(file, settings.dump(2) + "\n");
}

int init_command(const std::vector<std::string>& args) {
  parsed_args a(args, {"--help", "--force", "--has-reference"},
                {"--problem", "--scenarios", "--agent", "--baseline", "--evaluator-command", "--goal", "--task",
                 "--turns", "--arch", "--anchors", "--anchor-id", "--campaign-id"});
  if (a.flag("--help")) {
    std::cout << init_usage;
    return exit_ok;
  }
  if (a.positionals().size() != 1) throw usage_error("expected one folder DIR");
  const fs::path dir = fs::absolute(a.positionals()[0]).lexically_normal();
  const std::string agent = a.value_or("--agent", "none");
  if (agent != "claude-code" && agent != "codex" && agent != "none")
    throw usage_error("--agent must be claude-code, codex or none, not \"" + agent + "\"");
  const fs::path campaign_path = dir / "campaign.json";
  if (fs::exists(campaign_path) && !a.flag("--force"))
    throw error(campaign_path.string() + " already exists (pass --force to write a new campaign over it)");

  CampaignFile c;
  c.file = campaign_path;
  c.problem = a.required("--problem");
  c.scenarios = fs::absolute(a.required("--scenarios")).lexically_normal();
  const ScenarioSet set = load_scenario_set(c.scenarios);  // validate before writing anything
  const fs::path baseline = a.value("--baseline") ? fs::absolute(*a.value("--baseline")) : problem_baseline(c.problem);
  const std::string baseline_text = read_text(baseline);
  c.workspace = dir / "workspace";
  c.candidate = c.workspace / ("candidate" + baseline.extension().string());
  c.state_dir = dir / "state";
  c.arch = a.value_or("--arch", "");
  c.task = a.value_or("--task",
                      "Make the candidate " + c.candidate.filename().string() + " (problem \"" + c.problem +
                          "\") faster than the baseline on every scenario of " + set.name +
                          ", correct on each, without banned libraries (CUTLASS, CuTe, cuBLAS, cuDNN). "
                          "The goal is checked on every scenario each time you stop.");
  if (auto g = a.value("--goal")) {
    try {
      c.goal_spec = json::parse(*g);
    } catch (const std::exception& e) {
      throw usage_error("--goal: not valid JSON: " + std::string(e.what()));
    }
    (void)goals::goal_from_spec(c.goal_spec, "--goal");
  }
  c.budget.turns = static_cast<int>(a.integer("--turns", 30, 1));
  c.questions.has_reference = a.flag("--has-reference");
  // The id goes into evidence references (ID#SEQ): default to the campaign folder's name.
  c.campaign_id = a.value_or("--campaign-id", fs::absolute(dir).lexically_normal().filename().string());
  if (auto anchors = a.value("--anchors")) {
    c.questions.anchors = fs::absolute(*anchors).lexically_normal();
    c.questions.anchor_id = a.value_or("--anchor-id", "");
    (void)AnchorTable::load(*c.questions.anchors, c.questions.anchor_id);  // validate before writing
  } else if (a.value("--anchor-id")) {
    throw usage_error("--anchor-id needs --anchors FILE");
  }
  if (auto cmd = a.value("--evaluator-command")) {
    c.evaluator.kind = "command";
    c.evaluator.command = parse_command(*cmd);
    c.evaluator.timeout_s = 600;
  } else {
    c.evaluator.kind = "cuda";
  }

  fs::create_directories(c.state_dir / "candidates");
  if (!fs::exists(c.candidate) || a.flag("--force")) write_text(c.candidate, baseline_text);
  write_text(campaign_path, campaign_file_json(c, dir).dump(2) + "\n");
  (void)load_campaign_file(campaign_path);  // what we wrote must read back

  const std::string command = shell_quote(self_executable().string()) + " hook stop --campaign " +
                              shell_quote(campaign_path.string());
  const int timeout = static_cast<int>(c.evaluator.timeout_s) + 120;
  std::cout << "socratic init: campaign " << dir.string() << "\n"
            << "  workspace   " << c.workspace.string() << " (the agent's)\n"
            << "  candidate   " << c.candidate.string() << " (copy of " << baseline.string() << ")\n"
            << "  campaign    " << campaign_path.string() << "\n"
            << "  state       " << c.state_dir.string() << " (outside the workspace)\n"
            << "  scenarios   " << c.scenarios.string() << " (" << set.scenarios.size() << ")\n"
            << "  evaluator   " << c.evaluator.kind << "\n";
  const fs::path ws = c.workspace;
  if (agent == "claude-code") {
    write_hook_config(ws / ".claude" / "settings.json", command, timeout, true, campaign_path, c.state_dir);
    std::cout << "  hook        " << (ws / ".claude" / "settings.json").string() << " (Stop -> socratic hook stop)\n"
              << "\nStart the agent in the workspace: cd " << ws.string() << " && claude\n";
  } else if (agent == "codex") {
    write_hook_config(ws / ".codex" / "hooks.json", command, timeout, false, campaign_path, c.state_dir);
    std::cout << "  hook        " << (ws / ".codex" / "hooks.json").string() << " (Stop -> socratic hook stop)\n"
              << "\nStart the agent in the workspace: cd " << ws.string() << " && codex --enable hooks\n"
              << "(Codex reads the project's .codex/ only when you trust the project; headless: codex exec --trust "
                 "--enable hooks ...)\n";
  } else {
    std::cout << "\nRun the campaign in process: socratic run " << campaign_path.string() << "\n";
  }
  return exit_ok;
}

const command_registration init_registration(
    "init", "create a campaign workspace (candidate, campaign file, hook config)", init_command);

}  // namespace
