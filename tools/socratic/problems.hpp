#pragma once
// The problems the tool knows: the data folder's kernels/problems.json (eval/problem_registry.hpp).

#include <optional>
#include <string>
#include <vector>

#include "data_dir.hpp"
#include "socratic/eval/problem_registry.hpp"

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
