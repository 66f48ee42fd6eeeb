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

inline void to_json(json& j, const Scenario& s) {
  j = s.params.is_object() ? s.params : json::object();
  j["id"] = s.id;
  if (!s.description.empty()) j["description"] = s.description;
}

inline void from_json(const json& j, Scenario& s) {
  if (!j.is_object()) throw input_error({}, "scenario", "expected an object, found " + std::string(j.type_name()));
  s.id = required<std::string>(j, "id", "scenario");
  if (s.id.empty()) throw input_error({}, "scenario", "field \"id\" is empty");
  s.description = optional_field<std::string>(j, "description", "", "scenario \"" + s.id + "\"");
  s.params = j;
  s.params.erase("id");
  s.params.erase("description");
}

inline void to_json(json& j, const ScenarioSet& s) {
  j = json{{"schema_version", schema_version}, {"name", s.name}, {"problem", s.problem},
           {"description", s.description}, {"scenarios", s.scenarios}};
}

inline void from_json(const json& j, ScenarioSet& s) {
  check_schema_version(j, "scenario set");
  s.name = required<std::string>(j, "name", "scenario set");
  s.problem = required<std::string>(j, "problem", "scenario set");
  s.description = optional_field<std::string>(j, "description", "");
  const json defaults = optional_field<json>(j, "defaults", json::object());
  if (!defaults.is_object()) throw input_error({}, "scenario set", "field \"defaults\": expected an object");
  const json& list = j.contains("scenarios") ? j.at("scenarios") : json();
  if (!list.is_array() || list.empty())
    throw input_error({}, "scenario set", "field \"scenarios\": expected a non-empty array");
  s.scenarios.clear();
  std::set<std::string> seen;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string where = "scenario #" + std::to_string(i);
    Scenario sc;
    try {
      sc = list[i].get<Scenario>();
    } catch (const input_error& e) {
      throw input_error({}, where, e.message());
    }
    for (auto it = defaults.begin(); it != defaults.end(); ++it)
      if (!sc.params.contains(it.key())) sc.params[it.key()] = it.value();
    if (!seen.insert(sc.id).second)
      throw input_error({}, where + " \"" + sc.id + "\"", "duplicate scenario id");
    s.scenarios.push_back(std::move(sc));
  }
}

/// @brief Loads and validates a scenario set file. Errors name the file, the scenario and the field.
inline ScenarioSet load_scenario_set(const std::filesystem::path& path) {
  const json j = read_json_file(path);
  try {
    return j.get<ScenarioSet>();
  } catch (const input_error& e) {
    throw input_error(path.string(), e.where(), e.message());
  }
}

}  // namespace socratic
