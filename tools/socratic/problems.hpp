#pragma once
// The problems the tool knows: the data folder's kernels/problems.json (eval/problem_registry.hpp).

#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "data_dir.hpp"
#include "socratic/core/detail/sha256.hpp"
#include "socratic/core/files.hpp"
#include "socratic/core/scenario.hpp"
#include "socratic/eval/problem_registry.hpp"
#include "socratic/eval/suite_problem.hpp"

namespace socratic::tool {

/// @brief The registry of the data folder's kernels/ (errors name the file).
inline ProblemRegistry problem_registry() { return ProblemRegistry::load(data_dir() / "kernels"); }

/// @brief A scenario set as `eval` and `init` take it: a file, or a name under the data folder's
/// scenarios/ (with or without .json).
inline std::filesystem::path resolve_scenario_set(const std::string& given) {
  namespace fs = std::filesystem;
  if (fs::is_regular_file(given)) return fs::absolute(given).lexically_normal();
  const fs::path scenarios = data_dir() / "scenarios";
  for (const fs::path& candidate : {scenarios / given, scenarios / (given + ".json")})
    if (fs::is_regular_file(candidate)) return fs::absolute(candidate).lexically_normal();
  std::string known;
  if (fs::is_directory(scenarios))
    for (const auto& e : fs::directory_iterator(scenarios))
      if (e.path().extension() == ".json") known += (known.empty() ? "" : ", ") + e.path().stem().string();
  throw error("scenario set \"" + given + "\" not found (as a path or under " + scenarios.string() + ": " +
              (known.empty() ? std::string("none there") : known) + ")");
}

/// @brief The Python that runs a suite problem's reference worker and the KernelBench describer:
/// $SOCRATIC_REFERENCE_PYTHON, else python3 on PATH.
inline std::filesystem::path reference_python() {
  const char* env = std::getenv("SOCRATIC_REFERENCE_PYTHON");
  return find_on_path(env && *env ? env : "python3");
}

/// @brief Whether `problem` is a suite problem's path (a SOL-ExecBench/FlashInfer-Bench folder or
/// a KernelBench file), not a registry name nor a folder in Socratic's own format. Throws
/// input_error for a path that is no problem.
inline bool is_suite_problem(const std::string& problem) {
  return is_problem_path(problem) && problem_path_format(problem) != ProblemPathFormat::native_folder;
}

/// @brief A problem as `eval`, `init` and the campaign file take it: a registry name as given, a
/// path made absolute against `base` (the campaign file's folder, or the working folder).
inline std::string resolve_problem(const std::string& problem, const std::filesystem::path& base = {}) {
  if (!is_problem_path(problem)) return problem;
  const std::filesystem::path p(problem);
  return (p.is_absolute() ? p : (base.empty() ? std::filesystem::absolute(p) : base / p)).lexically_normal().string();
}

/// @brief The suite problem at `problem` (errors name the file, the field and the line).
inline SuiteProblem load_suite(const std::string& problem) {
  return load_suite_problem(problem, data_dir(), reference_python());
}

/// @brief The uuids of a suite problem's workloads, in its order: its scenario ids.
inline std::vector<std::string> suite_workload_ids(const std::string& problem) {
  std::vector<std::string> out;
  for (const auto& w : load_suite(problem).description.workloads) out.push_back(w.uuid);
  return out;
}

/// @brief A scenario set that selects workloads of a suite problem by uuid (its parameters are
/// left out: the judge resolves each workload afresh from the description), written
/// content-addressed under `folder`: what an executor's job or a campaign names as its scenarios.
inline std::filesystem::path suite_selection_file(const std::string& problem, const std::vector<std::string>& ids,
                                                  const std::filesystem::path& folder) {
  ScenarioSet set;
  set.name = std::filesystem::path(problem).filename().string();
  set.problem = "suite";
  set.description = "workloads of " + problem + " (the judge resolves each from the description)";
  for (const auto& id : ids) set.scenarios.push_back(Scenario{id, json::object(), ""});
  const std::string text = json(set).dump(1) + "\n";
  const auto file = folder / ("workloads-" + socratic::detail::sha256_hex(text).substr(0, 16) + ".json");
  write_file_atomically(file, text);
  return file;
}

/// @brief The kinds a campaign's questions are chosen for: the campaign's own list when it has
/// one, else the registered problem's, else none (only questions for any problem are asked).
inline std::vector<std::string> campaign_problem_kinds(const std::optional<std::vector<std::string>>& configured,
                                                       const std::string& problem) {
  if (configured) return *configured;
  const ProblemRegistry registry = problem_registry();
  if (const ProblemSpec* spec = registry.find(problem)) return spec->kinds;
  return {};
}

}  // namespace socratic::tool
