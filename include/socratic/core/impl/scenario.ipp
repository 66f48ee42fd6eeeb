#pragma once
/// @file
/// @brief Definitions for socratic/core/scenario.hpp: included there in header-only builds, and by
/// socratic/src.hpp (compiled once) with SOCRATIC_SEPARATE_COMPILATION.

#include "socratic/core/scenario.hpp"

namespace socratic {

SOCRATIC_DECL void to_json(json& j, const Scenario& s) {
  j = s.params.is_object() ? s.params : json::object();
  j["id"] = s.id;
  if (!s.description.empty()) j["description"] = s.description;
}

SOCRATIC_DECL void from_json(const json& j, Scenario& s) {
  if (!j.is_object()) throw input_error({}, "scenario", "expected an object, found " + std::string(j.type_name()));
  s.id = required<std::string>(j, "id", "scenario");
  if (s.id.empty()) throw input_error({}, "scenario", "field \"id\" is empty");
  s.description = optional_field<std::string>(j, "description", "", "scenario \"" + s.id + "\"");
  s.params = j;
  s.params.erase("id");
  s.params.erase("description");
}

SOCRATIC_DECL void to_json(json& j, const ScenarioSet& s) {
  j = json{{"schema_version", schema_version}, {"name", s.name}, {"problem", s.problem},
           {"description", s.description}, {"scenarios", s.scenarios}};
}

SOCRATIC_DECL void from_json(const json& j, ScenarioSet& s) {
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

SOCRATIC_DECL ScenarioSet load_scenario_set(const std::filesystem::path& path) {
  const json j = read_json_file(path);
  try {
    return j.get<ScenarioSet>();
  } catch (const input_error& e) {
    throw input_error(path.string(), e.where(), e.message());
  }
}

}  // namespace socratic
