#pragma once
/// @file
/// @brief Scenario and ScenarioSet: the shapes a candidate is judged on.
///
/// A scenario is an id plus problem-specific parameters (for attention: batch, heads, sequence
/// lengths, head dim, causal, dtype). The SDK treats the parameters as opaque JSON; each problem
/// validates its own (see eval/problem.hpp).

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "socratic/core/files.hpp"
#include "socratic/core/json.hpp"
#include "socratic/core/detail/separate_compilation.hpp"

namespace socratic {

/// @brief One shape to judge a candidate on.
struct Scenario {
  std::string id;  ///< stable, unique within its set; used in reports and verdicts
  json params = json::object();  ///< problem-specific parameters
  std::string description;       ///< optional note (e.g. the model a shape comes from)

  friend bool operator==(const Scenario&, const Scenario&) = default;
};

/// @brief A named list of scenarios of one problem, as loaded from `scenarios/*.json`.
///
/// File format (`schema_version` optional):
/// @code{.json}
/// { "name": "attention_edge", "problem": "attention", "description": "...",
///   "defaults": { "dtype": "bf16" },
///   "scenarios": [ { "id": "tiny", "batch": 1, "seqlen_q": 1, ... } ] }
/// @endcode
/// Every member of a scenario object other than `id` and `description` is a parameter;
/// `defaults` fill the ones a scenario leaves out.
struct ScenarioSet {
  std::string name;
  std::string problem;
  std::string description;
  std::vector<Scenario> scenarios;

  /// @brief The ids in order.
  std::vector<std::string> ids() const {
    std::vector<std::string> out;
    out.reserve(scenarios.size());
    for (const auto& s : scenarios) out.push_back(s.id);
    return out;
  }
  /// @brief The scenario with that id, or nullptr.
  const Scenario* find(std::string_view id) const {
    for (const auto& s : scenarios)
      if (s.id == id) return &s;
    return nullptr;
  }
  friend bool operator==(const ScenarioSet&, const ScenarioSet&) = default;
};

SOCRATIC_DECL void to_json(json& j, const Scenario& s);

SOCRATIC_DECL void from_json(const json& j, Scenario& s);

SOCRATIC_DECL void to_json(json& j, const ScenarioSet& s);

SOCRATIC_DECL void from_json(const json& j, ScenarioSet& s);

/// @brief Loads and validates a scenario set file. Errors name the file, the scenario and the field.
SOCRATIC_DECL ScenarioSet load_scenario_set(const std::filesystem::path& path);

}  // namespace socratic

#ifndef SOCRATIC_SEPARATE_COMPILATION
#include "socratic/core/impl/scenario.ipp"
#endif
