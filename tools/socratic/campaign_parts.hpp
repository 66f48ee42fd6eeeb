#pragma once
// Builds the parts of a campaign from its campaign file: the goal, the evaluator, the question
// source and the detectors. Shared by `hook stop`, `run`, `agent` and `demo`.
// Heavy (Boost.Process, the CUDA evaluator's host side): include only in commands that evaluate.

#include <cstdio>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "campaign_file.hpp"
#include "data_dir.hpp"
#include "gpu_check.hpp"
#include "question_setup.hpp"
#include "socratic/campaign/config.hpp"
#include "socratic/concepts.hpp"
#include "socratic/detail/sha256.hpp"
#include "socratic/eval/command_evaluator.hpp"
#include "socratic/eval/cuda_evaluator.hpp"
#include "socratic/eval/default_ban_scan.hpp"
#include "socratic/eval/integrity.hpp"
#include "socratic/goals/goal_spec.hpp"
#include "socratic/process/run_process.hpp"

namespace socratic::tool {

/// Any evaluator behind one type (the campaign file chooses the kind at run time).
struct AnyEvaluator {
  std::function<EvalReport(const Candidate&)> fn;
  std::string description;
  EvalReport evaluate(const Candidate& c) { return fn(c); }
};
static_assert(Evaluator<AnyEvaluator>);

namespace detail {

inline std::string substitute(std::string arg, const std::string& key, const std::string& value) {
  for (auto pos = arg.find(key); pos != std::string::npos; pos = arg.find(key, pos + value.size()))
    arg.replace(pos, key.size(), value);
  return arg;
}

/// The evaluator command's argv with the campaign's paths substituted (`{candidate}` is left for
/// the evaluator, which knows the candidate).
inline std::vector<std::string> evaluator_argv(const CampaignFile& c) {
  std::vector<std::string> argv;
  for (const auto& a : c.evaluator.command)
    argv.push_back(substitute(substitute(a, "{scenarios}", c.scenarios.string()), "{workspace}", c.workspace.string()));
  return argv;
}

}  // namespace detail

/// The evaluator the campaign file names.
inline AnyEvaluator make_evaluator(const CampaignFile& c, const std::vector<std::string>& scenario_ids) {
  if (c.evaluator.kind == "command") {
    CommandEvaluatorConfig config;
    config.command = detail::evaluator_argv(c);
    config.timeout = std::chrono::milliseconds(static_cast<long long>(c.evaluator.timeout_s * 1000));
    config.working_dir = c.file.parent_path();
    config.expected = scenario_ids;
    config.baseline = c.evaluator.baseline;
    auto evaluator = std::make_shared<CommandEvaluator>(std::move(config));
    return AnyEvaluator{[evaluator](const Candidate& cand) { return evaluator->evaluate(cand); },
                        "command evaluator (" + c.evaluator.command.front() + ")"};
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
  config.ban_scan = default_ban_scan();
  // The judge's files are hashed once per campaign and verified at every evaluation, so each hook
  // call (a new process) checks against the campaign's first record, not a fresh one.
  const std::filesystem::path manifest = c.state_dir / "integrity.json";
  if (std::filesystem::exists(manifest)) config.integrity_manifest = manifest;
  auto evaluator = std::make_shared<CudaEvaluator>(std::move(config));
  if (!std::filesystem::exists(manifest)) {
    std::filesystem::create_directories(c.state_dir);
    save_integrity_manifest(evaluator->integrity_manifest(), manifest);
  }
  return AnyEvaluator{[evaluator](const Candidate& cand) {
                        // Without a GPU the runner cannot start: say so before a minute of building.
                        if (const std::string missing = missing_cuda_gpu(); !missing.empty())
                          throw error("the CUDA evaluator needs a GPU: " + missing);
                        return evaluator->evaluate(cand);
                      },
                      "CUDA evaluator"};
}

/// The one CampaignConfig a campaign file describes, for every driver (`run`, `agent`, `hook stop`).
inline CampaignConfig campaign_config(const CampaignFile& c, std::vector<std::string> scenario_ids) {
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
