#pragma once
// The campaign file (docs/tool.md): one JSON document that `socratic init` writes and `hook stop`,
// `run`, `agent` and `demo` read. Relative paths are relative to the file's folder. It never holds
// an API key: keys come from the environment or a key file named here.

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "agents_section.hpp"
#include "executor_settings.hpp"
#include "socratic/agents/llm_provider.hpp"
#include "socratic/agents/shell_sandbox.hpp"
#include "socratic/core/budget.hpp"
#include "socratic/core/error.hpp"
#include "socratic/core/json.hpp"
#include "socratic/core/scenario.hpp"
#include "socratic/eval/problem_registry.hpp"
#include "socratic/eval/scenario_fields.hpp"
#include "socratic/exec/job.hpp"
#include "socratic/goals/goal_spec.hpp"
#include "socratic/process/environment.hpp"
#include "socratic/scan/library_policy.hpp"

namespace socratic::tool {

/// How candidates are judged.
struct EvaluatorSettings {
  exec::EvaluatorKind kind = exec::EvaluatorKind::cuda;
  std::vector<std::string> command;   ///< kind command: argv; `{candidate}` `{scenarios}` `{workspace}` substituted
  double timeout_s = 1800;            ///< one evaluation
  std::optional<std::string> arch;    ///< kind cuda: e.g. `sm_90a`; default from the GPU
  /// kind cuda: override of the problem's baseline; kind command: the baseline the command judges
  /// against (a candidate byte-identical to it is reported `identical_to_baseline`)
  std::optional<std::filesystem::path> baseline;
  json extra = json::object();        ///< kind cuda: passed through to the CUDA evaluator's settings
  /// kind cuda: `settings.libraries`, changes to the problem's default library policy
  /// (`{"allow": ["cublas"], "ban": ["all"]}`; docs/scanner.md, "Allowed libraries")
  LibraryPolicyOverride libraries;
  /// kind command: the fields the command reads from every scenario, with their types; checked
  /// against the scenario set whenever the campaign is made or loaded (scenario_fields.hpp)
  std::vector<ScenarioFieldNeed> scenario_fields;
};

/// Where questions come from.
struct QuestionSettings {
  std::optional<std::filesystem::path> bank;  ///< default: the installed question_bank/
  std::uint64_t seed = 0;
  bool adaptive = false;
  std::optional<std::filesystem::path> credits;  ///< adaptive mode: the credit table
  double exploration_rate = 0.2;
  bool has_reference = false;  ///< another implementation exists to compare with
  /// Best known TFLOP/s per scenario (AnchorTable formats): enables the suspicious-gain
  /// detector's anchor check.
  std::optional<std::filesystem::path> anchors;
  std::string anchor_id;  ///< id template for row-shaped anchor files (anchors.hpp)
  /// The problem's kinds (gpu, matmul, attention, ...): only questions for these are asked.
  /// Absent: the registered problem's kinds (problem.json), else none.
  std::optional<std::vector<std::string>> kinds;
};

/// The in-process agent (`socratic run`) and the CLI agent (`socratic agent`).
struct AgentSettings {
  std::optional<LlmProvider> backend;  ///< none: chosen by the API key in the environment
  std::string model;
  std::optional<std::string> base_url;
  std::string api_key_env;            ///< name of the variable holding the key
  std::optional<std::filesystem::path> api_key_file;
  std::optional<std::filesystem::path> replay_trace;  ///< backend replay: the recorded trace
  int max_turns_per_cli_call = 40;    ///< `socratic agent`: --max-turns handed to the CLI
  double cli_timeout_s = 3600;        ///< `socratic agent`: one CLI call
  std::vector<std::string> cli_extra_args;  ///< appended to the CLI's command line
  /// `socratic run`: the agent's shell runs in an OS sandbox (`bubblewrap`), or, only when the
  /// user says so, in none (`none`, recorded in the trace).
  ShellSandboxKind sandbox = ShellSandboxKind::bubblewrap;
  bool network = false;  ///< the agent's shell may use the network
  std::vector<std::filesystem::path> sandbox_expose;  ///< made visible, read-only, in a hidden place (home)
  /// The model's context window in tokens; default: the price table's entry for the model, else 128k.
  std::optional<long long> context_window;
  std::optional<int> max_tokens;  ///< output limit per model call (default 8192)
  double retry_time_s = 600;      ///< how long one model call keeps retrying transient failures
  int max_retries = 100;          ///< retries of one model call, at most
  double retry_initial_delay_s = 0.5, retry_max_delay_s = 30;  ///< the backoff's first step and ceiling
  double connect_timeout_s = 10, read_timeout_s = 300, total_timeout_s = 600;  ///< one HTTP exchange
  /// The most bytes of one model answer held in memory (BackendOptions::max_response_bytes).
  std::size_t max_response_bytes = std::size_t(8) << 20;
};

/// The whole file, paths made absolute.
struct CampaignFile {
  std::filesystem::path file;  ///< where it was read from (absolute)
  std::string problem;
  std::filesystem::path scenarios;
  std::filesystem::path workspace;
  std::filesystem::path candidate;  ///< inside the workspace
  std::filesystem::path state_dir;
  std::string task;
  std::string campaign_id;  ///< default: the state folder's name (its parent's when hidden)
  std::string arch;         ///< GPU architecture for question filtering, e.g. `sm_90`
  /// The goal, parsed once here; every driver judges by this value (its spec kept as written).
  goals::ParsedGoal goal;
  Budget budget;
  QuestionSettings questions;
  EvaluatorSettings evaluator;
  AgentSettings agent;
  ExecutorSettings executor;  ///< where evaluations run; none: in this process
  AgentsSettings agents;      ///< several agents on one store (docs/parallel.md); absent: one
  int max_consecutive_blocks = 8;
  std::string description;  ///< free text for people; kept as written

  std::filesystem::path trace_path() const { return state_dir / "trace.jsonl"; }
};

namespace detail {

/// The shared unknown-field check (core/json.hpp), after one of its own: a field named like a
/// secret is an API key put where none belongs.
inline void reject_unknown(const json& j, const std::string& where, std::initializer_list<std::string_view> known) {
  for (const auto& key : unknown_fields(j, known))
    if (is_secret_variable(key) && key.find("env") == std::string::npos && key.find("file") == std::string::npos)
      throw input_error({}, where + " field \"" + key + "\"",
                        "API keys never go in a campaign file: name the variable in "
                        "agent.api_key_env or a key file in agent.api_key_file");
  reject_unknown_fields(j, known, {}, where);
}

inline std::filesystem::path resolve(const std::filesystem::path& base, const std::string& p) {
  std::filesystem::path path(p);
  return (path.is_absolute() ? path : base / path).lexically_normal();
}

inline std::string relative_or_absolute(const std::filesystem::path& p, const std::filesystem::path& base) {
  auto rel = p.lexically_relative(base);
  if (!rel.empty() && rel.native().rfind("..", 0) != 0) return rel.string();
  return p.string();
}

}  // namespace detail

/// Reads and validates a campaign file. Errors name the file and the field.
inline CampaignFile load_campaign_file(const std::filesystem::path& path) {
  const std::filesystem::path abs = std::filesystem::absolute(path).lexically_normal();
  const json j = read_json_file(abs);
  const std::filesystem::path base = abs.parent_path();
  CampaignFile c;
  c.file = abs;
  try {
    if (!j.is_object()) throw input_error({}, "campaign", "expected an object");
    check_schema_version(j, "campaign");
    detail::reject_unknown(j, "campaign",
                           {"schema_version", "problem", "scenarios", "workspace", "candidate", "state_dir",
                            "task", "campaign_id", "arch", "goal", "budget", "questions", "evaluator",
                            "executor", "agent", "agents", "hook", "description"});
    c.problem = required<std::string>(j, "problem", "campaign");
    // A problem's path (a suite problem's folder or file, a folder with problem.json) is taken
    // relative to the campaign file, like every path in it; its `scenarios` then select workloads.
    if (is_problem_path(c.problem)) c.problem = detail::resolve(base, c.problem).string();
    c.scenarios = detail::resolve(base, required<std::string>(j, "scenarios", "campaign"));
    c.workspace = detail::resolve(base, optional_field<std::string>(j, "workspace", ".", "campaign"));
    c.candidate = detail::resolve(c.workspace, required<std::string>(j, "candidate", "campaign"));
    c.state_dir = detail::resolve(base, optional_field<std::string>(j, "state_dir", ".socratic", "campaign"));
    c.task = optional_field<std::string>(j, "task", "", "campaign");
    c.campaign_id = optional_field<std::string>(j, "campaign_id", "", "campaign");
    c.arch = optional_field<std::string>(j, "arch", "", "campaign");
    c.description = optional_field<std::string>(j, "description", "", "campaign");
    if (j.contains("goal")) c.goal = goals::parse_goal(j["goal"], "goal");
    if (j.contains("budget") && !j["budget"].is_null()) {
      try {
        c.budget = j["budget"].get<Budget>();
      } catch (const input_error& e) {
        throw input_error({}, "budget", e.message());
      }
    }

    const json q = optional_field<json>(j, "questions", json::object(), "campaign");
    if (!q.is_object()) throw input_error({}, "questions", "expected an object");
    detail::reject_unknown(q, "questions", {"bank", "seed", "adaptive", "credits", "exploration_rate", "has_reference", "anchors",
                                           "anchor_id", "kinds"});
    if (auto bank = optional_value<std::string>(q, "bank", "questions")) c.questions.bank = detail::resolve(base, *bank);
    c.questions.seed = optional_field<std::uint64_t>(q, "seed", 0, "questions");
    c.questions.adaptive = optional_field<bool>(q, "adaptive", false, "questions");
    if (auto credits = optional_value<std::string>(q, "credits", "questions"))
      c.questions.credits = detail::resolve(base, *credits);
    c.questions.exploration_rate = optional_field<double>(q, "exploration_rate", 0.2, "questions");
    c.questions.has_reference = optional_field<bool>(q, "has_reference", false, "questions");
    if (auto anchors = optional_value<std::string>(q, "anchors", "questions"))
      c.questions.anchors = detail::resolve(base, *anchors);
    c.questions.anchor_id = optional_field<std::string>(q, "anchor_id", "", "questions");
    c.questions.kinds = optional_value<std::vector<std::string>>(q, "kinds", "questions");
    if (c.questions.adaptive && !c.questions.credits)
      throw input_error({}, "questions field \"adaptive\"", "the adaptive mode needs a credit table in \"credits\"");

    const json e = optional_field<json>(j, "evaluator", json{{"kind", "cuda"}}, "campaign");
    if (!e.is_object()) throw input_error({}, "evaluator", "expected an object");
    detail::reject_unknown(e, "evaluator", {"kind", "command", "timeout_s", "arch", "baseline", "settings", "scenario_fields"});
    c.evaluator.kind = exec::required_evaluator_kind(e, "evaluator");
    c.evaluator.timeout_s = optional_field<double>(e, "timeout_s", 1800, "evaluator");
    c.evaluator.arch = optional_value<std::string>(e, "arch", "evaluator");
    if (auto b = optional_value<std::string>(e, "baseline", "evaluator")) c.evaluator.baseline = detail::resolve(base, *b);
    c.evaluator.extra = optional_field<json>(e, "settings", json::object(), "evaluator");
    if (c.evaluator.extra.is_object() && c.evaluator.extra.contains("libraries")) {
      c.evaluator.libraries =
          library_policy_override_from_json(c.evaluator.extra["libraries"], {}, "evaluator field \"settings.libraries\"");
      c.evaluator.libraries.source = "the campaign file's evaluator.settings.libraries";
    }
    if (c.evaluator.kind == exec::EvaluatorKind::command) {
      c.evaluator.command = required<std::vector<std::string>>(e, "command", "evaluator");
      if (c.evaluator.command.empty()) throw input_error({}, "evaluator field \"command\"", "is empty");
      if (e.contains("scenario_fields"))
        c.evaluator.scenario_fields = parse_scenario_fields(e["scenario_fields"], "evaluator.scenario_fields");
    } else if (e.contains("scenario_fields")) {
      throw input_error({}, "evaluator field \"scenario_fields\"",
                        "is for kind command: the CUDA evaluator's problem declares its parameters in problem.json");
    }
    if (c.evaluator.timeout_s <= 0) throw input_error({}, "evaluator field \"timeout_s\"", "must be positive");

    if (j.contains("executor")) c.executor = parse_executor_section(j["executor"], base);

    const json a = optional_field<json>(j, "agent", json::object(), "campaign");
    if (!a.is_object()) throw input_error({}, "agent", "expected an object");
    detail::reject_unknown(a, "agent", {"backend", "model", "base_url", "api_key_env", "api_key_file", "replay_trace",
                                        "max_turns_per_cli_call", "cli_timeout_s", "cli_extra_args", "sandbox",
                                        "network", "sandbox_expose", "context_window", "max_tokens", "retry", "http"});
    if (const std::string backend = optional_field<std::string>(a, "backend", "", "agent"); !backend.empty())
      c.agent.backend = llm_provider_named(backend, "agent field \"backend\"");
    c.agent.model = optional_field<std::string>(a, "model", "", "agent");
    c.agent.base_url = optional_value<std::string>(a, "base_url", "agent");
    c.agent.api_key_env = optional_field<std::string>(a, "api_key_env", "", "agent");
    if (auto f = optional_value<std::string>(a, "api_key_file", "agent")) c.agent.api_key_file = detail::resolve(base, *f);
    if (auto f = optional_value<std::string>(a, "replay_trace", "agent")) c.agent.replay_trace = detail::resolve(base, *f);
    c.agent.max_turns_per_cli_call = optional_field<int>(a, "max_turns_per_cli_call", 40, "agent");
    c.agent.cli_timeout_s = optional_field<double>(a, "cli_timeout_s", 3600, "agent");
    c.agent.cli_extra_args = optional_field<std::vector<std::string>>(a, "cli_extra_args", {}, "agent");
    const std::string sandbox = optional_field<std::string>(a, "sandbox", "bubblewrap", "agent");
    const std::optional<ShellSandboxKind> sandbox_kind = parse_shell_sandbox_kind(sandbox);
    if (!sandbox_kind)
      throw input_error({}, "agent field \"sandbox\"",
                        "\"" + sandbox + "\" is not `bubblewrap` or `none` (no OS sandbox for the agent's shell)");
    c.agent.sandbox = *sandbox_kind;
    c.agent.network = optional_field<bool>(a, "network", false, "agent");
    for (const auto& p : optional_field<std::vector<std::string>>(a, "sandbox_expose", {}, "agent"))
      c.agent.sandbox_expose.push_back(detail::resolve(base, p));
    c.agent.context_window = optional_value<long long>(a, "context_window", "agent");
    if (c.agent.context_window && *c.agent.context_window < 1024)
      throw input_error({}, "agent field \"context_window\"", "must be at least 1024 tokens");
    c.agent.max_tokens = optional_value<int>(a, "max_tokens", "agent");
    if (c.agent.max_tokens && *c.agent.max_tokens < 1) throw input_error({}, "agent field \"max_tokens\"", "must be positive");
    const json retry = optional_field<json>(a, "retry", json::object(), "agent");
    if (!retry.is_object()) throw input_error({}, "agent field \"retry\"", "expected an object");
    detail::reject_unknown(retry, "agent.retry", {"max_time_s", "max_retries", "initial_delay_s", "max_delay_s"});
    c.agent.retry_time_s = optional_field<double>(retry, "max_time_s", 600, "agent.retry");
    c.agent.max_retries = optional_field<int>(retry, "max_retries", 100, "agent.retry");
    c.agent.retry_initial_delay_s = optional_field<double>(retry, "initial_delay_s", 0.5, "agent.retry");
    c.agent.retry_max_delay_s = optional_field<double>(retry, "max_delay_s", 30, "agent.retry");
    if (c.agent.retry_time_s < 0 || c.agent.max_retries < 0 || c.agent.retry_initial_delay_s < 0 ||
        c.agent.retry_max_delay_s < c.agent.retry_initial_delay_s)
      throw input_error({}, "agent.retry",
                        "max_time_s, max_retries and initial_delay_s must not be negative, nor max_delay_s below initial_delay_s");
    const json net = optional_field<json>(a, "http", json::object(), "agent");
    if (!net.is_object()) throw input_error({}, "agent field \"http\"", "expected an object");
    detail::reject_unknown(net, "agent.http",
                           {"connect_timeout_s", "read_timeout_s", "total_timeout_s", "max_response_bytes"});
    c.agent.connect_timeout_s = optional_field<double>(net, "connect_timeout_s", 10, "agent.http");
    c.agent.read_timeout_s = optional_field<double>(net, "read_timeout_s", 300, "agent.http");
    c.agent.total_timeout_s = optional_field<double>(net, "total_timeout_s", 600, "agent.http");
    if (c.agent.connect_timeout_s <= 0 || c.agent.read_timeout_s <= 0 || c.agent.total_timeout_s <= 0)
      throw input_error({}, "agent.http", "timeouts must be positive");
    const long long max_response = optional_field<long long>(net, "max_response_bytes", 8ll << 20, "agent.http");
    if (max_response < 4096)
      throw input_error({}, "agent.http field \"max_response_bytes\"", "must be at least 4096 (default 8388608, 8 MiB)");
    c.agent.max_response_bytes = static_cast<std::size_t>(max_response);

    if (j.contains("agents") && !j["agents"].is_null())
      c.agents = parse_agents_section(j["agents"], base, c.workspace, c.state_dir,
                                      [](const json& o, const std::string& where,
                                         std::initializer_list<std::string_view> known) {
                                        detail::reject_unknown(o, where, known);
                                      });

    const json h = optional_field<json>(j, "hook", json::object(), "campaign");
    if (!h.is_object()) throw input_error({}, "hook", "expected an object");
    detail::reject_unknown(h, "hook", {"max_consecutive_blocks"});
    c.max_consecutive_blocks = optional_field<int>(h, "max_consecutive_blocks", 8, "hook");
    if (c.max_consecutive_blocks < 1)
      throw input_error({}, "hook field \"max_consecutive_blocks\"", "must be at least 1");
  } catch (const input_error& err) {
    throw input_error(abs.string(), err.where(), err.message());
  }
  return c;
}

/// The JSON document of a campaign file, paths written relative to `base` (the file's folder)
/// where they lie under it, absolute elsewhere; `load_campaign_file` reads back every field.
inline json campaign_file_json(const CampaignFile& c, const std::filesystem::path& base) {
  const auto path = [&](const std::filesystem::path& p) { return detail::relative_or_absolute(p, base); };
  const auto optional_path = [&](const std::optional<std::filesystem::path>& p) {
    return p ? json(path(*p)) : json(nullptr);
  };
  json e{{"kind", std::string(to_string(c.evaluator.kind))}, {"timeout_s", c.evaluator.timeout_s}};
  if (c.evaluator.kind == exec::EvaluatorKind::command) e["command"] = c.evaluator.command;
  if (!c.evaluator.scenario_fields.empty()) e["scenario_fields"] = scenario_fields_json(c.evaluator.scenario_fields);
  if (c.evaluator.arch) e["arch"] = *c.evaluator.arch;
  if (c.evaluator.baseline) e["baseline"] = path(*c.evaluator.baseline);
  if (!c.evaluator.extra.empty()) e["settings"] = c.evaluator.extra;
  json q{{"seed", c.questions.seed}, {"adaptive", c.questions.adaptive},
         {"exploration_rate", c.questions.exploration_rate}, {"has_reference", c.questions.has_reference},
         {"bank", optional_path(c.questions.bank)}, {"credits", optional_path(c.questions.credits)}};
  if (c.questions.anchors) q["anchors"] = path(*c.questions.anchors);
  if (!c.questions.anchor_id.empty()) q["anchor_id"] = c.questions.anchor_id;
  if (c.questions.kinds) q["kinds"] = *c.questions.kinds;
  json a{{"backend", c.agent.backend ? std::string(provider_name(*c.agent.backend)) : std::string()},
         {"model", c.agent.model},
         {"api_key_env", c.agent.api_key_env},
         {"max_turns_per_cli_call", c.agent.max_turns_per_cli_call},
         {"cli_timeout_s", c.agent.cli_timeout_s},
         {"cli_extra_args", c.agent.cli_extra_args}};
  if (c.agent.base_url) a["base_url"] = *c.agent.base_url;
  if (c.agent.api_key_file) a["api_key_file"] = path(*c.agent.api_key_file);
  if (c.agent.replay_trace) a["replay_trace"] = path(*c.agent.replay_trace);
  a["sandbox"] = to_string(c.agent.sandbox);
  a["network"] = c.agent.network;
  if (!c.agent.sandbox_expose.empty()) {
    a["sandbox_expose"] = json::array();
    for (const auto& p : c.agent.sandbox_expose) a["sandbox_expose"].push_back(path(p));
  }
  if (c.agent.context_window) a["context_window"] = *c.agent.context_window;
  if (c.agent.max_tokens) a["max_tokens"] = *c.agent.max_tokens;
  a["retry"] = {{"max_time_s", c.agent.retry_time_s}, {"max_retries", c.agent.max_retries},
                {"initial_delay_s", c.agent.retry_initial_delay_s}, {"max_delay_s", c.agent.retry_max_delay_s}};
  a["http"] = {{"connect_timeout_s", c.agent.connect_timeout_s}, {"read_timeout_s", c.agent.read_timeout_s},
               {"total_timeout_s", c.agent.total_timeout_s}, {"max_response_bytes", c.agent.max_response_bytes}};
  // A problem's path stays one when written relative (`./rmsnorm`, not `rmsnorm`, a registry name).
  std::string problem = c.problem;
  if (is_problem_path(problem) && !is_problem_path(problem = path(c.problem))) problem = "./" + problem;
  json out{{"schema_version", schema_version},
           {"problem", problem},
           {"scenarios", path(c.scenarios)},
           {"workspace", path(c.workspace)},
           {"candidate", detail::relative_or_absolute(c.candidate, c.workspace)},
           {"state_dir", path(c.state_dir)},
           {"task", c.task},
           {"arch", c.arch},
           {"goal", c.goal.spec()},
           {"budget", c.budget},
           {"questions", q},
           {"evaluator", e},
           {"agent", a},
           {"hook", {{"max_consecutive_blocks", c.max_consecutive_blocks}}}};
  if (!c.campaign_id.empty()) out["campaign_id"] = c.campaign_id;
  if (!c.description.empty()) out["description"] = c.description;
  if (c.executor) out["executor"] = executor_section_json(c.executor);
  if (c.agents.present) out["agents"] = agents_section_json(c.agents, base);
  return out;
}

/// Writes `c` to `c.file` (atomically: a temporary beside it, then a rename).
inline void save_campaign_file(const CampaignFile& c) {
  const std::filesystem::path tmp = c.file.string() + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << campaign_file_json(c, c.file.parent_path()).dump(2) << "\n";
    if (!out) throw input_error(tmp.string(), {}, "cannot write the campaign file");
  }
  std::filesystem::rename(tmp, c.file);
}

/// The scenario ids of the campaign's scenario set (errors name the file).
inline std::vector<std::string> campaign_scenario_ids(const CampaignFile& c) {
  return load_scenario_set(c.scenarios).ids();
}

}  // namespace socratic::tool
