#pragma once
/// @file
/// @brief What a command evaluator needs of every scenario: the fields its judge reads and their
/// types (`CommandEvaluatorConfig::scenario_fields`, a campaign file's `evaluator.scenario_fields`,
/// `socratic init --scenario-fields`), and the check of a scenario set against them. A registered
/// problem declares its parameters in problem.json; a user's own judge declares what it reads
/// here, so a scenario without a field, or with a field of another type, is refused when the
/// campaign is made or loaded, naming the file, the scenario and the field, before any agent
/// works, and never reaches the judge as a build or a candidate that failed.

#include <string>
#include <string_view>
#include <vector>

#include "socratic/core/error.hpp"
#include "socratic/core/json.hpp"
#include "socratic/core/scenario.hpp"
#include "socratic/eval/problem_registry.hpp"

namespace socratic {

/// @brief One field a command evaluator reads from every scenario.
struct ScenarioFieldNeed {
  std::string name;
  std::string type;  ///< `integer`, `number`, `string`, `boolean`, `array` or `object`

  friend bool operator==(const ScenarioFieldNeed&, const ScenarioFieldNeed&) = default;
};

namespace detail {
inline bool scenario_field_has_type(const json& v, std::string_view type) {
  if (type == "integer") return v.is_number_integer() || (v.is_number_float() && v.get<double>() == static_cast<double>(static_cast<long long>(v.get<double>())));
  if (type == "number") return v.is_number();
  if (type == "string") return v.is_string();
  if (type == "boolean") return v.is_boolean();
  if (type == "array") return v.is_array();
  if (type == "object") return v.is_object();
  return false;
}
inline bool is_scenario_field_type(std::string_view type) {
  for (std::string_view t : {"integer", "number", "string", "boolean", "array", "object"})
    if (type == t) return true;
  return false;
}
}  // namespace detail

/// @brief Reads the needs from `{"rows": "integer", "dtype": "string"}`.
/// @throws input_error naming `where` and the field for a bad type or a reserved name.
inline std::vector<ScenarioFieldNeed> parse_scenario_fields(const json& j, const std::string& where) {
  if (!j.is_object())
    throw input_error({}, where, "expected an object of field names and types, e.g. {\"rows\": \"integer\"}");
  std::vector<ScenarioFieldNeed> out;
  for (auto it = j.begin(); it != j.end(); ++it) {
    const std::string field = where + " field " + detail::in_quotes(it.key());
    if (it.key() == "id" || it.key() == "description")
      throw input_error({}, field, "every scenario has it: name only the fields the judge reads beyond its id");
    if (!it.value().is_string() || !detail::is_scenario_field_type(it.value().get<std::string>()))
      throw input_error({}, field, "the type must be integer, number, string, boolean, array or object (found " +
                                       it.value().dump() + ")");
    out.push_back({it.key(), it.value().get<std::string>()});
  }
  return out;
}

/// @brief The needs as written in a campaign file.
inline json scenario_fields_json(const std::vector<ScenarioFieldNeed>& needs) {
  json out = json::object();
  for (const auto& n : needs) out[n.name] = n.type;
  return out;
}

/// @brief Every scenario of `set` against `needs`: one issue per scenario and field that is
/// missing or of another type (where: `scenario "id" field "f"`).
inline std::vector<ScenarioIssue> check_scenario_fields(const ScenarioSet& set, const std::vector<ScenarioFieldNeed>& needs) {
  std::vector<ScenarioIssue> issues;
  for (const auto& s : set.scenarios)
    for (const auto& n : needs) {
      const std::string where = "scenario " + detail::in_quotes(s.id) + " field " + detail::in_quotes(n.name);
      const std::string needed = "the evaluator command reads it as " + std::string(n.type == "integer" ? "an " : "a ") +
                                 n.type + " (its declared scenario_fields)";
      if (!s.params.contains(n.name))
        issues.push_back({where, "missing: " + needed});
      else if (!detail::scenario_field_has_type(s.params.at(n.name), n.type))
        issues.push_back({where, detail::describe_value(s.params.at(n.name)) + ", but " + needed});
    }
  return issues;
}

/// @brief check_scenario_fields as one error: the first issue, and up to nine more on their own
/// lines, each naming `file`. Returns normally when there is none.
/// @throws E (input_error or configuration_error) naming `file`, the scenario and the field.
template <class E = input_error>
void require_scenario_fields(const ScenarioSet& set, const std::vector<ScenarioFieldNeed>& needs,
                             const std::string& file, const std::string& declared_in = {}) {
  const auto issues = check_scenario_fields(set, needs);
  if (issues.empty()) return;
  std::string message = issues.front().message;
  for (std::size_t i = 1; i < issues.size() && i < 10; ++i)
    message += "\n  " + file + ": " + issues[i].where + ": " + issues[i].message;
  if (issues.size() > 10) message += "\n  ... and " + std::to_string(issues.size() - 10) + " more";
  if (!declared_in.empty()) message += "\n  (the fields are declared in " + declared_in + ")";
  throw E(file, issues.front().where, message);
}

}  // namespace socratic
