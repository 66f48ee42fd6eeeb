// The runner's reading of a scenario-set file (format: include/socratic/core/scenario.hpp):
// members other than "id" and "description" are parameters; "defaults" fill what a scenario
// leaves out.
// The host validated the file against problem.json already; the runner re-checks the shape so
// that it never runs on something it misread. Plain C++17 + nlohmann/json.
#pragma once

#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace socratic::harness {

struct RunnerScenario {
  std::string id;
  nlohmann::json params = nlohmann::json::object();  ///< defaults merged
};

struct RunnerScenarioSet {
  std::string name;
  std::string problem;
  std::vector<RunnerScenario> scenarios;
};

/// Parses a scenario-set document; errors name `file`, the scenario and the field.
inline RunnerScenarioSet parse_scenario_set(const nlohmann::json& j, const std::string& file) {
  auto fail = [&](const std::string& where, const std::string& what) {
    throw std::runtime_error(file + ": " + (where.empty() ? "" : where + ": ") + what);
  };
  if (!j.is_object()) fail("", "expected a JSON object");
  RunnerScenarioSet set;
  if (!j.contains("name") || !j["name"].is_string()) fail("", "field \"name\": expected a string");
  if (!j.contains("problem") || !j["problem"].is_string())
    fail("", "field \"problem\": expected a string");
  set.name = j["name"].get<std::string>();
  set.problem = j["problem"].get<std::string>();
  const nlohmann::json defaults = j.value("defaults", nlohmann::json::object());
  if (!defaults.is_object()) fail("", "field \"defaults\": expected an object");
  if (!j.contains("scenarios") || !j["scenarios"].is_array() || j["scenarios"].empty())
    fail("", "field \"scenarios\": expected a non-empty array");
  std::set<std::string> seen;
  const auto& list = j["scenarios"];
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string where = "scenario #" + std::to_string(i);
    const auto& s = list[i];
    if (!s.is_object()) fail(where, "expected an object");
    if (!s.contains("id") || !s["id"].is_string() || s["id"].get<std::string>().empty())
      fail(where, "field \"id\": expected a non-empty string");
    RunnerScenario sc;
    sc.id = s["id"].get<std::string>();
    if (!seen.insert(sc.id).second) fail(where + " \"" + sc.id + "\"", "duplicate scenario id");
    if (s.contains("description") && !s["description"].is_string())
      fail(where + " \"" + sc.id + "\"", "field \"description\": expected a string");
    sc.params = s;
    sc.params.erase("id");
    sc.params.erase("description");  // a note, not a parameter (core/scenario.hpp)
    for (auto it = defaults.begin(); it != defaults.end(); ++it)
      if (!sc.params.contains(it.key())) sc.params[it.key()] = it.value();
    set.scenarios.push_back(std::move(sc));
  }
  return set;
}

/// Reads and parses a scenario-set file.
inline RunnerScenarioSet load_scenario_set_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(path + ": cannot open the scenario file");
  std::stringstream text;
  text << in.rdbuf();
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text.str());
  } catch (const nlohmann::json::parse_error& e) {
    throw std::runtime_error(path + ": invalid JSON: " + e.what());
  }
  return parse_scenario_set(j, path);
}

/// The scenarios named by --only, in the file's order (all when `only` is empty). An id that
/// the file lacks is an error: running fewer scenarios than asked must never look like success.
inline std::vector<RunnerScenario> select_scenarios(const RunnerScenarioSet& set,
                                                    const std::vector<std::string>& only) {
  if (only.empty()) return set.scenarios;
  for (const auto& id : only) {
    bool found = false;
    for (const auto& s : set.scenarios) found = found || s.id == id;
    if (!found)
      throw std::runtime_error("--only: scenario \"" + id + "\" is not in scenario set \"" +
                               set.name + "\"");
  }
  std::vector<RunnerScenario> out;
  for (const auto& s : set.scenarios)
    for (const auto& id : only)
      if (s.id == id) {
        out.push_back(s);
        break;
      }
  return out;
}

}  // namespace socratic::harness
