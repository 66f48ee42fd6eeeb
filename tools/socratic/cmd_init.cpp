// socratic init DIR --problem NAME --scenarios FILE [--agent claude-code|codex|none]: creates a
// campaign folder: its campaign file, its state folder and, beside them, the agent's workspace
// (the candidate and the agent's Stop-hook config). The state never lies in the workspace.
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "campaign_file.hpp"
#include "command.hpp"
#include "data_dir.hpp"
#include "gpu_check.hpp"
#include "problems.hpp"
#include "socratic/suite/entry_point_header.hpp"
#include "socratic/suite/judgeable.hpp"
#include "question_setup.hpp"
#include "socratic/record/trace.hpp"
#include "socratic/record/trace_state.hpp"
#include "socratic/core/files.hpp"
#include "socratic/goals/goal_spec.hpp"
#include "socratic/questions/anchors.hpp"

namespace {

using namespace socratic;
using namespace socratic::tool;
namespace fs = std::filesystem;

/// What `socratic init` is given.
struct InitCommandOptions {
  std::string dir, problem, scenarios, agent = "none", baseline, evaluator_command, goal, task, turns, arch, anchors,
      anchor_id, campaign_id, scenario_fields;
  std::vector<std::string> kinds;
  CLI::Option* kinds_option = nullptr;
  std::string backend, model, base_url, api_key_env, api_key_file;
  std::string agents, agents_kind = "llm";  ///< --agents N: an agents section (docs/parallel.md)
  bool force = false, has_reference = false;
};

std::string read_text(const fs::path& p) { return read_file_bytes(p); }

void write_text(const fs::path& p, const std::string& text) { write_file_atomically(p, text); }

/// --scenario-fields: `{"rows": "integer"}` or `rows:integer,cols:integer`.
std::vector<ScenarioFieldNeed> parse_scenario_fields_option(const std::string& text) {
  json j = json::object();
  if (!text.empty() && text.front() == '{') {
    j = json::parse(text, nullptr, false);
    if (j.is_discarded()) throw usage_error("--scenario-fields: not a JSON object: " + text);
  } else {
    std::istringstream in(text);
    for (std::string item; std::getline(in, item, ',');) {
      const auto colon = item.find(':');
      if (colon == std::string::npos || colon == 0)
        throw usage_error("--scenario-fields: \"" + item + "\" is not NAME:TYPE (e.g. rows:integer,dtype:string)");
      j[item.substr(0, colon)] = item.substr(colon + 1);
    }
  }
  try {
    return parse_scenario_fields(j, "--scenario-fields");
  } catch (const input_error& e) {
    throw usage_error(e.what());
  }
}

/// What judges the campaign's candidates, checked before anything is written: the problem is
/// registered (the CUDA evaluator judges only those) or has its own evaluator command, and the
/// scenario set is the problem's, with the parameters it declares (the same check as `eval`).
struct JudgeCheck {
  std::optional<ProblemSpec> registered;  ///< the problem in kernels/problems.json, when it is there
  ScenarioSet set;
};

JudgeCheck check_judge(const InitCommandOptions& o, const fs::path& scenarios) {
  JudgeCheck out;
  out.set = load_scenario_set(scenarios);  // its own shape first: ids, fields
  const ProblemRegistry registry = problem_registry();
  if (const ProblemSpec* spec = registry.find(o.problem)) out.registered = *spec;
  std::string known;
  for (const auto& p : registry.problems()) known += (known.empty() ? "" : ", ") + p.name;
  if (!out.registered && o.evaluator_command.empty())
    throw usage_error("unknown problem \"" + o.problem + "\" (known: " + known +
                      "): the CUDA evaluator judges only the problems of " + registry.index_file().string() +
                      "; for a problem of your own pass --evaluator-command and --baseline (examples/command_evaluator/)");
  if (!out.registered && o.baseline.empty())
    throw usage_error("problem \"" + o.problem + "\" is not registered (known: " + known +
                      "), so it has no baseline of its own: pass --baseline FILE");
  if (out.set.problem != o.problem)
    throw input_error(scenarios.string(), "field \"problem\"",
                      "the set is for problem \"" + out.set.problem + "\", not \"" + o.problem + "\"");
  if (out.registered) {
    out.set = load_scenarios_for(*out.registered, scenarios);  // the parameters, as eval checks
  } else if (const auto issues = check_parameter_types_agree(out.set); !issues.empty()) {
    // The user's judge declares nothing; at least one parameter must not change type mid-set.
    std::string message = issues.front().message;
    for (std::size_t i = 1; i < issues.size() && i < 10; ++i)
      message += "\n  " + scenarios.string() + ": " + issues[i].where + ": " + issues[i].message;
    throw input_error(scenarios.string(), issues.front().where, message);
  }
  if (out.set.scenarios.empty()) throw input_error(scenarios.string(), "field \"scenarios\"", "is empty");
  if (!o.scenario_fields.empty()) {
    if (o.evaluator_command.empty())
      throw usage_error("--scenario-fields declares what an --evaluator-command reads; problem \"" + o.problem +
                        "\" declares its parameters in its problem.json");
    // What the user's judge reads, in every scenario: refused here, not at the agent's first stop.
    require_scenario_fields(out.set, parse_scenario_fields_option(o.scenario_fields), scenarios.string(),
                            "--scenario-fields");
  }
  return out;
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

/// Claude Code's project MCP configuration (.mcp.json: mcpServers.socratic = `socratic mcp
/// --campaign FILE`), and in its settings the server enabled (project servers otherwise wait for
/// the user's approval) with its tools allowed: they are the judge's, and change no file of the agent's.
void write_claude_mcp_config(const fs::path& ws, const fs::path& exe, const fs::path& campaign) {
  const fs::path file = ws / ".mcp.json";
  json config = fs::exists(file) ? read_json_file(file) : json::object();
  if (!config.is_object()) throw input_error(file.string(), {}, "expected a JSON object");
  config["mcpServers"]["socratic"] = json{{"type", "stdio"},
                                          {"command", exe.string()},
                                          {"args", json::array({"mcp", "--campaign", campaign.string()})}};
  write_text(file, config.dump(2) + "\n");
  const fs::path settings_file = ws / ".claude" / "settings.json";
  json settings = fs::exists(settings_file) ? read_json_file(settings_file) : json::object();
  if (!settings.is_object()) throw input_error(settings_file.string(), {}, "expected a JSON object");
  json& enabled = settings["enabledMcpjsonServers"];
  if (!enabled.is_array()) enabled = json::array();
  if (std::find(enabled.begin(), enabled.end(), "socratic") == enabled.end()) enabled.push_back("socratic");
  json& allow = settings["permissions"]["allow"];
  if (!allow.is_array()) allow = json::array();
  // Each tool by name: the server-wide rule (`mcp__socratic`) did not grant them to a headless
  // `claude -p` (tests/mcp/test_real_mcp_clients.cpp).
  for (const char* tool : {"evaluate", "result", "ask", "scan", "standing", "propose", "notes", "note"}) {
    const std::string rule = std::string("mcp__socratic__") + tool;
    if (std::find(allow.begin(), allow.end(), rule) == allow.end()) allow.push_back(rule);
  }
  write_text(settings_file, settings.dump(2) + "\n");
}

/// A TOML basic string.
std::string toml_string(const std::string& s) {
  std::string out = "\"";
  for (char ch : s) {
    if (ch == '"' || ch == '\\') out.push_back('\\');
    out.push_back(ch);
  }
  return out + "\"";
}

/// Codex's project configuration (.codex/config.toml, beside the hook's .codex/hooks.json): the
/// table [mcp_servers.socratic]; an earlier one of ours is replaced, the rest of the file kept.
void write_codex_mcp_config(const fs::path& ws, const fs::path& exe, const fs::path& campaign) {
  const fs::path file = ws / ".codex" / "config.toml";
  const std::string header = "[mcp_servers.socratic]";
  std::string text = fs::exists(file) ? read_text(file) : std::string();
  if (const auto at = text.find(header); at != std::string::npos) {
    auto next = text.find("\n[", at + header.size());
    text.erase(at, next == std::string::npos ? std::string::npos : next + 1 - at);
  }
  if (!text.empty() && text.back() != '\n') text += "\n";
  text += header + "\ncommand = " + toml_string(exe.string()) + "\nargs = [" + toml_string("mcp") + ", " +
          toml_string("--campaign") + ", " + toml_string(campaign.string()) + "]\n";
  write_text(file, text);
}

/// The start question, asked once per campaign when the workspace is made for a coding agent
/// under the Stop hook (the hook asks at stops only): recorded in the trace as the campaign's
/// first question, as the in-process campaign records its own, so that the report shows it and
/// no later stop asks it again. Already asked (init --force): the recorded one.
std::optional<Question> record_start_question(const CampaignFile& c) {
  const TraceSummary before = fs::exists(c.trace_path()) ? summarize_trace(read_trace(c.trace_path()).events)
                                                         : TraceSummary{};
  for (const auto& a : before.state.asked)
    if (a.question.trigger == Trigger::start) return a.question;
  ToolQuestionSource source = make_question_source(c);
  CampaignState state = before.state;
  state.campaign_id = c.campaign_id;
  state.arch = c.arch;
  state.has_reference = c.questions.has_reference;
  const TriggerEvent start{Trigger::start, "campaign", "first turn of the campaign", 0, json::object()};
  std::optional<Question> q = source.ask(start, state);
  if (!q) return std::nullopt;
  q->trigger = Trigger::start;
  if (q->evidence.empty()) q->evidence = start.evidence;
  TraceWriter trace(c.trace_path());
  trace.write({{"type", TraceEventType::trigger}, {"event", start}, {"moment", "campaign_start"}, {"elapsed_s", 0.0}, {"agent", "main"}});
  trace.write({{"type", TraceEventType::question}, {"asked", AskedQuestion{*q, 0, -1, 0.0, "main"}}, {"elapsed_s", 0.0}, {"agent", "main"}});
  return q;
}

/// The workspace's instructions file (CLAUDE.md for Claude Code, AGENTS.md for Codex), which the
/// client puts before the session's first prompt: the task, how stops are judged, the start
/// question. Only the part between the markers is ours; the rest of the file is kept.
void write_instructions(const fs::path& file, const CampaignFile& c, const ScenarioSet& set,
                        const std::optional<Question>& start) {
  static const std::string begin = "<!-- socratic:begin (written by `socratic init`; edit outside these markers) -->";
  static const std::string end = "<!-- socratic:end -->";
  std::string ours = begin + "\n## The Socratic campaign in this folder\n\n" + c.task + "\n\n" +
                     "How it is judged: every time you stop, `socratic hook stop` builds and evaluates " +
                     c.candidate.filename().string() + " on every scenario of " + set.name + " (" +
                     std::to_string(set.scenarios.size()) + " scenarios) against the baseline and checks the goal: " +
                     c.goal.describe() +
                     ". When it does not hold you are sent back with the unmet conditions and a question. "
                     "The campaign's file and its state, outside this folder, belong to the judge.\n";
  if (start) {
    ours += "\nQuestion (start): " + start->text + "\n";
    if (!start->checks.empty()) ours += "(Answer it with a measurement: " + start->checks + ")\n";
  }
  ours += end + "\n";
  std::string text = fs::exists(file) ? read_text(file) : std::string();
  const auto b = text.find(begin), e = text.find(end);
  if (b != std::string::npos && e != std::string::npos && e > b) {
    std::size_t after = e + end.size();
    if (after < text.size() && text[after] == '\n') ++after;
    text.replace(b, after - b, ours);
  } else {
    text += (text.empty() || text.back() == '\n' ? "" : "\n") + std::string(text.empty() ? "" : "\n") + ours;
  }
  write_text(file, text);
}

int init_command(const InitCommandOptions& o) {
  const fs::path dir = fs::absolute(o.dir).lexically_normal();
  const std::string& agent = o.agent;
  if (agent != "claude-code" && agent != "codex" && agent != "none")
    throw usage_error("--agent must be claude-code, codex or none, not \"" + agent + "\"");
  const fs::path campaign_path = dir / "campaign.json";
  if (fs::exists(campaign_path) && !o.force)
    throw error(campaign_path.string() + " already exists (pass --force to write a new campaign over it)");

  CampaignFile c;
  c.file = campaign_path;
  c.problem = resolve_problem(o.problem);
  std::optional<SuiteProblem> suite_problem;
  JudgeCheck judge;
  fs::path baseline;
  std::string baseline_text;
  if (o.evaluator_command.empty() && is_suite_problem(c.problem)) {
    // A problem where it lies: its workloads are the scenarios (a selection set beside the
    // campaign file), its baseline --baseline or baseline.cu beside it, else the candidate starts
    // from the entry point's skeleton.
    suite_problem = load_suite(c.problem);
    if (auto why = suite::not_judgeable_reason(suite_problem->description))
      throw input_error(suite_problem->path.string(), {}, "cannot be judged on the GPU: " + *why);
    std::vector<std::string> ids;
    if (o.scenarios.empty()) {
      for (const auto& w : suite_problem->description.workloads) ids.push_back(w.uuid);
    } else if (fs::is_regular_file(o.scenarios)) {
      ids = load_scenario_set(o.scenarios).ids();
    } else {
      std::istringstream in(o.scenarios);
      for (std::string id; std::getline(in, id, ',');)
        if (!id.empty()) ids.push_back(id);
    }
    for (const auto& id : ids)
      if (std::none_of(suite_problem->description.workloads.begin(), suite_problem->description.workloads.end(),
                       [&](const suite::Workload& w) { return w.uuid == id; }))
        throw input_error(suite_problem->path.string(), "workload \"" + id + "\"", "no such workload");
    fs::create_directories(dir);
    c.scenarios = suite_selection_file(c.problem, ids, dir);
    judge.set = load_scenario_set(c.scenarios);
    if (!o.baseline.empty()) c.evaluator.baseline = baseline = fs::absolute(o.baseline).lexically_normal();
    else if (suite_problem->baseline) baseline = *suite_problem->baseline;
    baseline_text = baseline.empty() ? suite::entry_point_skeleton(suite_problem->description) : read_text(baseline);
  } else {
    if (o.scenarios.empty()) throw usage_error("missing required option --scenarios");  // optional for a suite problem's path
    c.scenarios = resolve_scenario_set(o.scenarios);  // a file, or a name as `eval` takes it
    judge = check_judge(o, c.scenarios);  // validate before writing anything
    baseline = !o.baseline.empty() ? fs::absolute(o.baseline) : judge.registered->baseline_path();
    baseline_text = read_text(baseline);
  }
  const ScenarioSet& set = judge.set;
  c.workspace = dir / "workspace";
  c.candidate = c.workspace / ("candidate" + (baseline.empty() ? std::string(".cu") : baseline.extension().string()));
  c.state_dir = dir / "state";
  c.arch = o.arch;
  c.questions.has_reference = o.has_reference;
  // The problem's kinds choose the questions: --kind, else the registered problem's, else none.
  c.questions.kinds = o.kinds_option->count() ? o.kinds
                      : judge.registered      ? judge.registered->kinds
                                              : std::vector<std::string>{};
  // The banned libraries are GPU libraries: a problem of other kinds is not told of them.
  const bool gpu = c.questions.kinds->empty() || std::find(c.questions.kinds->begin(), c.questions.kinds->end(),
                                                           "gpu") != c.questions.kinds->end();
  c.task = !o.task.empty() ? o.task
                          : "Make the candidate " + c.candidate.filename().string() + " (problem \"" + c.problem +
                          "\") faster than the baseline on every scenario of " + set.name + ", correct on each" +
                          (gpu && !suite_problem ? ", without banned libraries (CUTLASS, CuTe, cuBLAS, cuDNN)"
                           : gpu ? " (the suite's rule allows cuBLAS, cuDNN and CUTLASS; evaluator.settings.libraries "
                                   "in the campaign file changes it)"
                                 : "") +
                          ". " +
                          (judge.registered ? "It exports the C function " + judge.registered->entry_point +
                                                  ", declared in " + judge.registered->args_header_path().string() +
                                                  " (the runner calls it). "
                           : suite_problem ? "It defines the entry point " + suite::entry_point_name(suite_problem->description) +
                                                 " that `socratic problem header " + c.problem + "` prints. "
                                           : std::string()) +
                          "The goal is checked on every scenario each time you stop.";
  if (!o.goal.empty()) {
    json spec;
    try {
      spec = json::parse(o.goal);
    } catch (const std::exception& e) {
      throw usage_error("--goal: not valid JSON: " + std::string(e.what()));
    }
    c.goal = goals::parse_goal(spec, "--goal", set.ids());  // a goal over absent scenarios: never met
  }
  c.budget.turns = o.turns.empty() ? 30 : static_cast<int>(parse_whole_number("--turns", o.turns, 1));
  for (const auto& k : *c.questions.kinds)
    if (!known_problem_kinds().count(k))
      std::cerr << "socratic init: warning: --kind \"" << k << "\" is not a kind the bank's questions use ("
                << known_kinds_list() << ")\n";
  // The id goes into evidence references (ID#SEQ): default to the campaign folder's name.
  c.campaign_id = !o.campaign_id.empty() ? o.campaign_id : fs::absolute(dir).lexically_normal().filename().string();
  if (!o.anchors.empty()) {
    c.questions.anchors = fs::absolute(o.anchors).lexically_normal();
    c.questions.anchor_id = o.anchor_id;
    (void)AnchorTable::load(*c.questions.anchors, c.questions.anchor_id);  // validate before writing
  } else if (!o.anchor_id.empty()) {
    throw usage_error("--anchor-id needs --anchors FILE");
  }
  if (!o.evaluator_command.empty()) {
    c.evaluator.kind = exec::EvaluatorKind::command;
    c.evaluator.command = parse_command(o.evaluator_command);
    c.evaluator.timeout_s = 600;
    if (!o.scenario_fields.empty()) c.evaluator.scenario_fields = parse_scenario_fields_option(o.scenario_fields);
  } else {
    c.evaluator.kind = exec::EvaluatorKind::cuda;
  }
  // The model of `socratic run` (and `socratic agent`): no hand edit of the campaign file needed.
  if (!o.backend.empty()) {
    try {
      c.agent.backend = llm_provider_named(o.backend, "--backend");
    } catch (const input_error&) {
      throw usage_error("--backend must be anthropic, openai or replay, not \"" + o.backend + "\"");
    }
  }
  c.agent.model = o.model;
  if (!o.base_url.empty()) c.agent.base_url = o.base_url;
  if (!o.api_key_env.empty()) {
    const bool variable_name = std::all_of(o.api_key_env.begin(), o.api_key_env.end(), [](char ch) {
      return std::isupper(static_cast<unsigned char>(ch)) || std::isdigit(static_cast<unsigned char>(ch)) || ch == '_';
    });
    if (!variable_name || std::isdigit(static_cast<unsigned char>(o.api_key_env.front())))
      throw usage_error("--api-key-env takes the name of the variable that holds the key (e.g. MY_API_KEY), "
                        "never the key itself");
    c.agent.api_key_env = o.api_key_env;
  }
  if (!o.api_key_file.empty()) c.agent.api_key_file = fs::absolute(o.api_key_file).lexically_normal();

  if (!o.agents.empty()) {
    const int n = static_cast<int>(parse_whole_number("--agents", o.agents, 1));
    if (n > 64) throw usage_error("--agents takes at most 64 agents, not " + std::to_string(n));
    const std::optional<AgentKind> kind = parse_agent_kind(o.agents_kind);
    if (!kind || !(*kind == AgentKind::llm || runs_cli(*kind)))
      throw usage_error("--agents-kind must be llm, claude-code or codex, not \"" + o.agents_kind + "\"");
    c.agents.present = true;
    c.agents.folder = fs::absolute(dir).lexically_normal() / "agents";
    for (int i = 1; i <= n; ++i) {
      AgentEntry a;
      a.id = "agent-" + std::to_string(i);
      a.kind = *kind;
      a.workspace = c.agents.folder / a.id;
      c.agents.agents.push_back(std::move(a));
    }
  } else if (o.agents_kind != "llm") {
    throw usage_error("--agents-kind needs --agents N");
  }

  fs::create_directories(c.state_dir / "candidates");
  if (!fs::exists(c.candidate) || o.force) write_text(c.candidate, baseline_text);
  write_text(campaign_path, campaign_file_json(c, dir).dump(2) + "\n");
  (void)load_campaign_file(campaign_path);  // what we wrote must read back

  const std::string command = shell_quote(self_executable().string()) + " hook stop --campaign " +
                              shell_quote(campaign_path.string());
  const int timeout = static_cast<int>(c.evaluator.timeout_s) + 120;
  const std::vector<std::string>& kinds = *c.questions.kinds;
  std::string kinds_text;
  for (const auto& k : kinds) kinds_text += (kinds_text.empty() ? "" : ", ") + k;
  std::cout << "socratic init: campaign " << dir.string() << "\n"
            << "  workspace   " << c.workspace.string() << " (the agent's)\n"
            << "  candidate   " << c.candidate.string()
            << (baseline.empty() ? std::string(" (the entry point's skeleton: no baseline yet)")
                                 : " (copy of " + baseline.string() + ")") << "\n"
            << "  campaign    " << campaign_path.string() << "\n"
            << "  state       " << c.state_dir.string() << " (outside the workspace)\n"
            << "  scenarios   " << c.scenarios.string() << " (" << set.scenarios.size() << ")\n"
            << "  evaluator   " << to_string(c.evaluator.kind) << "\n"
            << "  questions   "
            << (kinds.empty() ? std::string("for any problem (no --kind, and the problem declares none)")
                              : "for a problem of kinds " + kinds_text)
            << "\n";
  std::string gpu_note;
  if (c.evaluator.kind == exec::EvaluatorKind::cuda)
    if (const std::string missing = missing_cuda_gpu(); !missing.empty())
      gpu_note = "\nNote: " + missing + ": the CUDA evaluator judges only on a machine with a GPU; start the agent "
                 "there, or judge with your own --evaluator-command.\n";
  if (agent == "claude-code" || agent == "codex") {
    const bool claude = agent == "claude-code";
    const fs::path ws = c.workspace;
    const fs::path hooks = claude ? ws / ".claude" / "settings.json" : ws / ".codex" / "hooks.json";
    write_hook_config(hooks, command, timeout, claude, campaign_path, c.state_dir);
    const fs::path mcp_config = claude ? ws / ".mcp.json" : ws / ".codex" / "config.toml";
    if (claude)
      write_claude_mcp_config(ws, self_executable(), campaign_path);
    else
      write_codex_mcp_config(ws, self_executable(), campaign_path);
    const std::optional<Question> start = record_start_question(c);
    const fs::path instructions = ws / (claude ? "CLAUDE.md" : "AGENTS.md");
    write_instructions(instructions, c, set, start);
    std::cout << "  hook        " << hooks.string() << " (Stop -> socratic hook stop)\n"
              << "  mcp         " << mcp_config.string() << " (the server socratic: socratic mcp)\n"
              << "  brief       " << instructions.string() << " (the task, how stops are judged"
              << (start ? ", the start question " + start->id : std::string()) << ")\n"
              << gpu_note;
    if (claude)
      std::cout << "\nStart the agent in the workspace: cd " << ws.string() << " && claude\n";
    else
      std::cout << "\nStart the agent in the workspace: cd " << ws.string() << " && codex --enable hooks\n"
                << "(Codex reads the project's .codex/ only when you trust the project; headless: codex exec --trust "
                   "--enable hooks ...)\n";
  } else {
    std::cout << gpu_note;
    if (c.agent.model.empty() && c.agent.backend != LlmProvider::replay)
      std::cout << "\nTo run the campaign in process, name the model (no need to edit the campaign file):\n"
                << "  socratic init " << dir.string() << " ... --backend anthropic|openai --model NAME [--base-url URL] "
                   "--force\n"
                << "or let a coding agent work under the Stop hook: socratic init " << dir.string()
                << " ... --agent claude-code|codex --force\n";
    else
      std::cout << "\nRun the campaign in process: socratic run " << campaign_path.string() << "\n";
  }
  return exit_ok;
}

command_run init_setup(CLI::App& app) {
  auto o = std::make_shared<InitCommandOptions>();
  app.footer(
      "Creates a campaign in DIR: DIR/campaign.json (problem, scenarios, goal, budgets, question\n"
      "settings, evaluator), the state folder DIR/state (trace, snapshots, the judge's hashes) and the\n"
      "agent's workspace DIR/workspace with the candidate (a copy of the problem's baseline, or of\n"
      "--baseline); the state lies outside the workspace, where the agent's tools cannot reach it.\n"
      "With --agent, writes the agent's hook configuration and brief in the workspace\n"
      "(.claude/settings.json and CLAUDE.md, or .codex/hooks.json and AGENTS.md) so that every stop\n"
      "runs `socratic hook stop`, and the client's MCP configuration (.mcp.json, or .codex/config.toml)\n"
      "for `socratic mcp`: the judge and the questions as tools. Without --evaluator-command the CUDA evaluator judges candidates;\n"
      "with it, the command (split on spaces; or a JSON array) prints an EvalReport JSON.\n"
      "The default goal: every scenario correct, at least as fast as the baseline, no banned library.\n");
  app.add_option("DIR", o->dir, "the workspace folder (created)")->type_name("")->required();
  app.add_option("-p,--problem", o->problem,
                 "a problem of kernels/problems.json (or yours, with --baseline), or a suite problem's path (a "
                 "SOL-ExecBench / FlashInfer-Bench folder, a KernelBench file: docs/problems.md)")
      ->type_name("NAME|PATH")
      ->required();
  app.add_option("-s,--scenarios", o->scenarios,
                 "the scenario set every goal check runs on: a file, or a name under scenarios/ (as eval takes it); "
                 "for a suite problem optional (default every workload): workload uuids, comma-separated")
      ->type_name("SET");
  app.add_option("-a,--agent", o->agent, "claude-code, codex or none (default): whose Stop hook to register")
      ->type_name("NAME");
  app.add_option("--baseline", o->baseline, "the baseline source (default: the problem's own)")->type_name("FILE");
  app.add_option("--evaluator-command", o->evaluator_command,
                 "judge with a command: 'PROGRAM ARG... {candidate} {scenarios}' or a JSON array")
      ->type_name("CMD");
  app.add_option("--scenario-fields", o->scenario_fields,
                 "what the --evaluator-command reads of every scenario, checked in every scenario now and at every "
                 "load: 'rows:integer,dtype:string' or a JSON object (types: integer, number, string, boolean, "
                 "array, object)")
      ->type_name("FIELDS");
  app.add_option("--goal", o->goal, "a goal spec (docs/tool.md)")->type_name("JSON");
  app.add_option("--task", o->task, "the task text the agent reads")->type_name("TEXT");
  app.add_option("--turns", o->turns, "turn budget (default 30)")->type_name("N");
  app.add_option("--arch", o->arch, "the GPU's architecture, for question filtering (sm_90, ...)")->type_name("ARCH");
  app.add_flag("--has-reference", o->has_reference, "another implementation exists (comparison questions apply)");
  app.add_option("--anchors", o->anchors, "best known TFLOP/s per scenario, for the suspicious-gain check")
      ->type_name("FILE");
  app.add_option("--anchor-id", o->anchor_id, "id template for row-shaped anchor files")->type_name("TEMPLATE");
  app.add_option("--campaign-id", o->campaign_id, "the campaign's id (default: DIR's name)")->type_name("ID");
  o->kinds_option = add_repeatable(app, "--kind", o->kinds,
                                   "the problem's kind, for the questions (gpu, matmul, attention, cpu; repeatable; "
                                   "default: the registered problem's)")
                        ->type_name("KIND");
  app.add_option("--backend", o->backend, "socratic run's model API: anthropic, openai (any compatible server) or replay")
      ->type_name("NAME")
      ->group("The model (socratic run, socratic agent)");
  app.add_option("--model", o->model, "the model's name, as the API knows it")
      ->type_name("NAME")
      ->group("The model (socratic run, socratic agent)");
  app.add_option("--base-url", o->base_url, "the API's address (a local server, a proxy)")
      ->type_name("URL")
      ->group("The model (socratic run, socratic agent)");
  app.add_option("--api-key-env", o->api_key_env, "the variable holding the key (default: the backend's usual one)")
      ->type_name("VAR")
      ->group("The model (socratic run, socratic agent)");
  app.add_option("--api-key-file", o->api_key_file, "a file holding the key instead")
      ->type_name("FILE")
      ->group("The model (socratic run, socratic agent)");
  app.add_option("--agents", o->agents,
                 "write an agents section: N agents in parallel on one store for `socratic run` (docs/parallel.md)")
      ->type_name("N");
  app.add_option("--agents-kind", o->agents_kind, "their kind: llm (default), claude-code or codex")->type_name("KIND");
  app.add_flag("-f,--force", o->force, "write a new campaign over an existing one");
  return [o] { return init_command(*o); };
}

const command_registration init_registration(
    "init", "create a campaign workspace (candidate, campaign file, hook config)", "Campaigns", init_setup);

}  // namespace
