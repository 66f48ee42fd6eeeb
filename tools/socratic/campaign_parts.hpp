#pragma once
// Builds the parts of a campaign from its campaign file: the goal, the evaluator, the question
// source and the detectors. Shared by `hook stop`, `run`, `agent` and `demo`.
// Heavy (Boost.Process, the CUDA evaluator's host side): include only in commands that evaluate.

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "campaign_file.hpp"
#include "data_dir.hpp"
#include "gpu_check.hpp"
#include "question_setup.hpp"
#include "socratic/campaign/config.hpp"
#include "socratic/concepts.hpp"
#include "socratic/core/detail/sha256.hpp"
#include "socratic/eval/command_evaluator.hpp"
#include "socratic/eval/cuda_evaluator.hpp"
#include "socratic/eval/default_ban_scan.hpp"
#include "socratic/eval/integrity.hpp"
#include "socratic/goals/goal_spec.hpp"
#include "socratic/process/run_process.hpp"

namespace socratic::tool {

/// The evaluator a campaign file names (its kind chosen at run time, owned here, unlike
/// socratic::AnyEvaluator, which refers to an evaluator of the caller's), with its judge: what the
/// agent must not change (`judge`) and must not even see (`hidden`).
struct CampaignEvaluator {
  std::function<EvalReport(const Candidate&)> fn;
  std::string description;
  std::vector<std::filesystem::path> judge;
  std::vector<std::filesystem::path> hidden;
  /// Kind cuda, evaluated in this process: the evaluator's settings (the parallel run's gate times
  /// a candidate against the incumbent with them, interleaved in one run: store/cuda_gate.hpp).
  std::optional<CudaEvaluatorConfig> cuda_config;
  EvalReport evaluate(const Candidate& c) { return fn(c); }
};
static_assert(Evaluator<CampaignEvaluator>);

namespace detail {

inline std::string substitute(std::string arg, const std::string& key, const std::string& value) {
  for (auto pos = arg.find(key); pos != std::string::npos; pos = arg.find(key, pos + value.size()))
    arg.replace(pos, key.size(), value);
  return arg;
}

/// The evaluator command's argv with the campaign's paths substituted (`{candidate}` is left for
/// the evaluator, which knows the candidate). `{baseline}`: the campaign's evaluator.baseline when
/// set; `baseline` instead (the gate's incumbent, socratic mcp's propose) when given.
inline std::vector<std::string> evaluator_argv(const CampaignFile& c, const std::optional<std::filesystem::path>& baseline = {}) {
  std::vector<std::string> argv;
  const std::optional<std::filesystem::path> against = baseline ? baseline : c.evaluator.baseline;
  for (std::string a : c.evaluator.command) {
    if (against) a = substitute(a, "{baseline}", against->string());
    argv.push_back(substitute(substitute(a, "{scenarios}", c.scenarios.string()), "{workspace}", c.workspace.string()));
  }
  return argv;
}

}  // namespace detail

namespace detail {

/// The judge's manifest is recorded once per campaign, at its first evaluator, and kept in the
/// state folder (out of the agent's reach), so that each later process (a hook call, a resumed
/// run) checks against the campaign's start, not against a fresh record.
inline std::filesystem::path integrity_file(const CampaignFile& c) { return c.state_dir / "integrity.json"; }

/// Saves the evaluator's manifest with the goal's digest, when the campaign has none yet.
inline IntegrityManifest keep_manifest(const CampaignFile& c, IntegrityManifest m) {
  const auto file = integrity_file(c);
  if (std::filesystem::exists(file)) return load_integrity_manifest(file);
  record_value(m, "goal", c.goal.spec().dump());
  std::filesystem::create_directories(c.state_dir);
  save_integrity_manifest(m, file);
  return m;
}

/// Wraps an evaluator: a goal changed since the campaign's start stops the evaluation too.
inline std::function<EvalReport(const Candidate&)> goal_guarded(std::function<EvalReport(const Candidate&)> inner,
                                                                 const IntegrityManifest& m, const CampaignFile& c) {
  if (!m.values.count("goal")) return inner;  // a manifest from before goals were recorded
  const std::string goal = c.goal.spec().dump();
  return [inner = std::move(inner), m, goal](const Candidate& cand) {
    std::vector<std::string> changed = verify_values(m, {{"goal", goal}});
    if (changed.empty()) return inner(cand);
    EvalReport r;
    r.candidate = cand;
    r.error = "integrity check failed: " + changed.front() +
              " (restore the campaign file's goal, or start a new campaign to judge by another goal)";
    r.judge_modified = std::move(changed);
    r.fault = EvalFault::configuration;
    return r;
  };
}

}  // namespace detail

/// The executor of these settings, one per run folder in this process: the campaigns of a suite
/// (socratic suite), whose settings name the suite's one run folder, share it while any holds it.
inline std::shared_ptr<AnyExecutor> shared_executor(const ExecutorSettings& s, const std::filesystem::path& default_run_dir) {
  static std::mutex mutex;
  static std::map<std::string, std::weak_ptr<AnyExecutor>> held;
  const std::string key = std::string(s.kind ? to_string(*s.kind) : "none") + ":" + (s.run_dir.empty() ? default_run_dir : s.run_dir).lexically_normal().string();
  std::lock_guard lock(mutex);
  if (auto e = held[key].lock()) return e;
  auto e = std::make_shared<AnyExecutor>(make_executor(s, default_run_dir));
  held[key] = e;
  return e;
}

/// The campaign's evaluations as jobs of its executor (the `executor` section): the same
/// evaluator settings as a job template, submitted and waited for (exec/executor_evaluator.hpp).
inline std::function<EvalReport(const Candidate&)> executor_fn(const CampaignFile& c, exec::EvaluatorSpec spec,
                                                               std::string& description) {
  exec::JobTemplate t;
  t.problem = c.problem;
  t.scenarios = c.scenarios;
  t.evaluator = std::move(spec);
  auto executor = shared_executor(c.executor, c.state_dir / "executor");
  auto evaluator = std::make_shared<exec::ExecutorEvaluator<AnyExecutor>>(*executor, t, c.executor.cascade);
  description += " through the " + executor->description;
  return [executor, evaluator](const Candidate& cand) { return evaluator->evaluate(cand); };
}

/// The evaluator the campaign file names, with its judge checked before every evaluation.
inline CampaignEvaluator make_evaluator(const CampaignFile& c, const std::vector<std::string>& scenario_ids) {
  const std::filesystem::path manifest = detail::integrity_file(c);
  if (c.evaluator.kind == exec::EvaluatorKind::command) {
    CommandEvaluatorConfig config;
    config.command = detail::evaluator_argv(c);
    config.timeout = std::chrono::milliseconds(static_cast<long long>(c.evaluator.timeout_s * 1000));
    config.working_dir = c.file.parent_path();
    config.expected = scenario_ids;
    config.baseline = c.evaluator.baseline;
    config.workspace = c.workspace;
    if (std::filesystem::exists(manifest)) config.integrity_manifest = manifest;
    auto evaluator = std::make_shared<CommandEvaluator>(std::move(config));
    const IntegrityManifest m = detail::keep_manifest(c, evaluator->integrity_manifest());
    CampaignEvaluator out{detail::goal_guarded([evaluator](const Candidate& cand) { return evaluator->evaluate(cand); }, m, c),
                     "command evaluator (" + c.evaluator.command.front() + ")", evaluator->judge_paths(), {},
                     std::nullopt};
    // The agent sees the scenarios (it optimises for them); the script and its files, not.
    for (const auto& p : out.judge)
      if (std::filesystem::weakly_canonical(p) != std::filesystem::weakly_canonical(c.scenarios)) out.hidden.push_back(p);
    if (c.executor) {
      // Jobs of the executor; the judge is checked here against the campaign's record before
      // each one is submitted (a job's own worker judges a cascade's subset file).
      exec::EvaluatorSpec spec;
      spec.kind = exec::EvaluatorKind::command;
      for (const auto& a : c.evaluator.command)  // `{scenarios}` stays for the worker
        spec.command.command.push_back(detail::substitute(a, "{workspace}", c.workspace.string()));
      spec.command.timeout_s = c.evaluator.timeout_s;
      spec.command.working_dir = c.file.parent_path();
      spec.command.baseline = c.evaluator.baseline;
      auto jobs = executor_fn(c, std::move(spec), out.description);
      out.fn = detail::goal_guarded(
          [evaluator, jobs, expected = scenario_ids](const Candidate& cand) {
            std::vector<std::string> changed = evaluator->judge_changes();
            if (changed.empty()) return jobs(cand);
            EvalReport r;
            r.candidate = cand;
            r.expected = expected;
            r.error = "integrity check failed: " + changed.front() + " (restore the files or start a new campaign)";
            r.judge_modified = std::move(changed);
            r.fault = EvalFault::configuration;
            return r;
          },
          m, c);
    }
    return out;
  }
  CudaEvaluatorConfig config;
  config.data_dir = data_dir();
  config.problem = c.problem;
  config.scenarios = c.scenarios;
  config.baseline = c.evaluator.baseline;
  config.arch = c.evaluator.arch.value_or("");
  config.cache_dir = c.state_dir / "build-cache";
  if (c.evaluator.extra.contains("k")) config.k = c.evaluator.extra["k"].get<double>();
  if (c.evaluator.extra.contains("nvcc_flags"))
    config.nvcc_flags = c.evaluator.extra["nvcc_flags"].get<std::vector<std::string>>();
  config.libraries = c.evaluator.libraries;
  config.ban_scan = default_ban_scan();
  if (std::filesystem::exists(manifest)) config.integrity_manifest = manifest;
  auto evaluator = std::make_shared<CudaEvaluator>(std::move(config));
  const IntegrityManifest m = detail::keep_manifest(c, evaluator->integrity_manifest());
  CampaignEvaluator out{detail::goal_guarded(
                       [evaluator](const Candidate& cand) {
                         // Without a GPU the runner cannot start: say so before a minute of building.
                         if (const std::string missing = missing_cuda_gpu(); !missing.empty())
                           throw error("the CUDA evaluator needs a GPU: " + missing);
                         return evaluator->evaluate(cand);
                       },
                       m, c),
                   "CUDA evaluator", {}, {}, std::nullopt};
  // The agent compiles against the problem's folder (its args header): visible, read-only. The
  // harness is the judge's own: hidden.
  for (const auto& f : m.folders) out.judge.push_back(f);
  for (const auto& [file, digest] : m.files)
    if (std::none_of(m.folders.begin(), m.folders.end(), [&](const std::string& d) { return file.rfind(d + "/", 0) == 0; }))
      out.judge.push_back(file);
  out.hidden.push_back(data_dir() / "kernels" / "harness");
  if (!c.executor) out.cuda_config = evaluator->config();
  if (c.executor) {
    // Validated and the judge recorded here; each job's worker checks against that record.
    const CudaEvaluatorConfig& v = evaluator->config();
    exec::EvaluatorSpec spec;
    spec.kind = exec::EvaluatorKind::cuda;
    spec.cuda.data_dir = v.data_dir;
    spec.cuda.baseline = v.baseline;
    spec.cuda.arch = v.arch;
    spec.cuda.cache_dir = v.cache_dir;
    spec.cuda.nvcc = v.nvcc.string();
    spec.cuda.nvcc_flags = v.nvcc_flags;
    spec.cuda.libraries = v.libraries;
    spec.cuda.k = v.k;
    spec.cuda.timeout_s = c.evaluator.timeout_s;
    spec.cuda.manifest = manifest;
    if (evaluator->suite_problem()) spec.cuda.reference_python = v.reference_python.string();
    out.fn = detail::goal_guarded(executor_fn(c, std::move(spec), out.description), m, c);
  }
  return out;
}

/// The one CampaignConfig a campaign file describes, for every driver (`run`, `agent`, `hook stop`).
inline CampaignConfig campaign_config(const CampaignFile& c, std::vector<std::string> scenario_ids) {
  try {  // a goal over scenarios the set lacks: the person's to fix, before any agent works for it
    c.goal.check_scenarios(scenario_ids);
  } catch (const input_error& e) {
    throw configuration_error(c.file.string(), e.where() + " (scenario set " + c.scenarios.string() + ")", e.message());
  }
  // What the user's judge reads of every scenario: a scenario without it, or with another type,
  // is the person's to fix, said before any agent works (never a build that failed at a stop).
  if (c.evaluator.kind == exec::EvaluatorKind::command && !c.evaluator.scenario_fields.empty())
    require_scenario_fields<configuration_error>(load_scenario_set(c.scenarios), c.evaluator.scenario_fields,
                                                 c.scenarios.string(), "evaluator.scenario_fields of " + c.file.string());
  CampaignConfig config;
  config.campaign_id = c.campaign_id;
  config.task = c.task;
  config.workspace = c.workspace;
  config.candidate.source = c.candidate;
  config.state_dir = c.state_dir;
  config.budget = c.budget;
  config.scenario_ids = std::move(scenario_ids);
  config.arch = c.arch;
  config.has_reference = c.questions.has_reference;
  config.detectors = make_detectors(c);
  config.stop_hook.max_consecutive_blocks = c.max_consecutive_blocks;
  // The judge: what the evaluator is and what it judges on. An edit of any of it (the evaluator's
  // command or settings, the scenario set) means earlier judgements are not repeated.
  std::string scenarios_hash;
  try {
    scenarios_hash = socratic::detail::sha256_file(c.scenarios);
  } catch (const std::exception&) {
  }
  const json judge{{"problem", c.problem},
                   {"scenarios", c.scenarios.string()},
                   {"scenarios_sha256", scenarios_hash},
                   {"evaluator", campaign_file_json(c, c.file.parent_path())["evaluator"]}};
  config.judge = socratic::detail::sha256_hex(judge.dump()).substr(0, 16);
  return config;
}

}  // namespace socratic::tool
