#pragma once
/// @file
/// @brief Definitions for socratic/goals/goal_spec.hpp: included there in header-only builds,
/// and by socratic/src.hpp (compiled once) with SOCRATIC_SEPARATE_COMPILATION.

#include "socratic/goals/goal_spec.hpp"

namespace socratic::goals::detail {

SOCRATIC_DECL speedup_spec spec_speedup(const json& arg, const std::string& where) {
  speedup_spec out;
  if (arg.is_number()) {
    out.minimum = arg.get<double>();
    return out;
  }
  if (!arg.is_object() || !arg.contains("minimum") || !arg["minimum"].is_number())
    throw input_error({}, where,
                      "expected a number or {\"minimum\": number, \"estimate\": \"lower_bound\"|\"point\", "
                      "\"z\": number}, found " + arg.dump());
  reject_unknown_fields(arg, {"minimum", "estimate", "z"}, {}, where);
  out.minimum = arg["minimum"].get<double>();
  const std::string estimate = optional_field<std::string>(arg, "estimate", "lower_bound", where);
  if (estimate != "lower_bound" && estimate != "point")
    throw input_error({}, where + ".estimate", "\"" + estimate + "\" is not \"lower_bound\" or \"point\"");
  out.reading.point_estimate = estimate == "point";
  out.reading.z = optional_field<double>(arg, "z", default_speedup_z, where);
  if (!(out.reading.z >= 0) || !std::isfinite(out.reading.z))
    throw input_error({}, where + ".z", "must be a non-negative number");
  return out;
}

SOCRATIC_DECL void expect_empty_object(const json& arg, const std::string& where) {
  if (!(arg.is_object() && arg.empty()) && !arg.is_null())
    throw input_error({}, where, "takes no argument (write {}), found " + arg.dump());
}

}  // namespace socratic::goals::detail

namespace socratic::goals {

SOCRATIC_DECL AnyGoal goal_from_spec(const json& spec, const std::string& where) {
  if (!spec.is_object() || spec.size() != 1)
    throw input_error({}, where,
                      "a goal is an object with exactly one member naming it (all_correct, "
                      "no_banned_libraries, every_scenario_speedup_at_least, "
                      "geomean_speedup_at_least, all_of, any_of, not, on_scenarios), found " +
                          spec.dump());
  const std::string name = spec.begin().key();
  const json& arg = spec.begin().value();
  const std::string here = where + "." + name;
  if (name == "all_correct") {
    detail::expect_empty_object(arg, here);
    return all_correct{};
  }
  if (name == "no_banned_libraries") {
    detail::expect_empty_object(arg, here);
    return no_banned_libraries{};
  }
  if (name == "every_scenario_speedup_at_least") {
    const auto spec = detail::spec_speedup(arg, here);
    return every_scenario_speedup_at_least{spec.minimum, spec.reading};
  }
  if (name == "geomean_speedup_at_least") {
    const auto spec = detail::spec_speedup(arg, here);
    return geomean_speedup_at_least{spec.minimum, spec.reading};
  }
  if (name == "all_of" || name == "any_of") {
    if (!arg.is_array() || arg.empty())
      throw input_error({}, here, "expected a non-empty array of goals");
    detail::goal_list list;
    list.any = name == "any_of";
    for (std::size_t i = 0; i < arg.size(); ++i)
      list.parts.push_back(goal_from_spec(arg[i], here + "[" + std::to_string(i) + "]"));
    return list;
  }
  if (name == "not") return negate(goal_from_spec(arg, here));
  if (name == "on_scenarios") {
    if (!arg.is_object() || !arg.contains("ids") || !arg.contains("goal"))
      throw input_error({}, here, "expected {\"ids\": [...], \"goal\": {...}}");
    std::vector<std::string> ids;
    try {
      ids = arg["ids"].get<std::vector<std::string>>();
    } catch (const std::exception&) {
      throw input_error({}, here + ".ids", "expected an array of scenario ids");
    }
    if (ids.empty()) throw input_error({}, here + ".ids", "is empty: a goal over nothing is never met");
    return scenario_filter(std::move(ids), goal_from_spec(arg["goal"], here + ".goal"));
  }
  throw input_error({}, where, "unknown goal \"" + name + "\"");
}

SOCRATIC_DECL void check_goal_scenarios(const json& spec, const std::vector<std::string>& scenario_ids,
                                        const std::string& where) {
  if (!spec.is_object() || spec.size() != 1) return;  // goal_from_spec names malformed specs
  const std::string name = spec.begin().key();
  const json& arg = spec.begin().value();
  const std::string here = where + "." + name;
  if ((name == "all_of" || name == "any_of") && arg.is_array())
    for (std::size_t i = 0; i < arg.size(); ++i) check_goal_scenarios(arg[i], scenario_ids, here + "[" + std::to_string(i) + "]");
  if (name == "not") check_goal_scenarios(arg, scenario_ids, here);
  if (name != "on_scenarios" || !arg.is_object()) return;
  if (arg.contains("ids") && arg["ids"].is_array())
    for (std::size_t i = 0; i < arg["ids"].size(); ++i) {
      const json& id = arg["ids"][i];
      if (!id.is_string() || std::find(scenario_ids.begin(), scenario_ids.end(), id.get<std::string>()) != scenario_ids.end())
        continue;
      std::string known;
      for (const auto& k : scenario_ids) known += (known.empty() ? "" : ", ") + k;
      throw input_error({}, here + ".ids[" + std::to_string(i) + "]",
                        "scenario \"" + id.get<std::string>() + "\" is not in the scenario set (its ids: " + known +
                            "): a goal over it could never be met");
    }
  if (arg.contains("goal")) check_goal_scenarios(arg["goal"], scenario_ids, here + ".goal");
}

SOCRATIC_DECL json default_goal_spec() {
  return json{{"all_of", json::array({json{{"all_correct", json::object()}},
                                      json{{"every_scenario_speedup_at_least", 1.0}},
                                      json{{"no_banned_libraries", json::object()}}})}};
}

SOCRATIC_DECL ParsedGoal::ParsedGoal() : ParsedGoal(default_goal_spec()) {}

SOCRATIC_DECL ParsedGoal::ParsedGoal(json spec, const std::string& where)
    : spec_(std::move(spec)), predicate_(goal_from_spec(spec_, where)) {}

SOCRATIC_DECL void ParsedGoal::check_scenarios(const std::vector<std::string>& scenario_ids,
                                               const std::string& where) const {
  check_goal_scenarios(spec_, scenario_ids, where);
}

SOCRATIC_DECL ParsedGoal parse_goal(const json& spec, const std::string& where,
                                    const std::optional<std::vector<std::string>>& scenario_ids) {
  ParsedGoal goal(spec, where);
  if (scenario_ids) goal.check_scenarios(*scenario_ids, where);
  return goal;
}

}  // namespace socratic::goals
