#pragma once
/// @file
/// @brief AnyGoal (a type-erased GoalPredicate) and goal specs: goals written as JSON in a
/// campaign file, built from the reference predicates and combinators.
///
/// Grammar: a spec is an object with exactly one member, the goal's name:
/// @code{.json}
/// {"all_of": [{"all_correct": {}},
///             {"every_scenario_speedup_at_least": 1.0},
///             {"no_banned_libraries": {}}]}
/// @endcode
/// | name                              | argument                                     |
/// |-----------------------------------|----------------------------------------------|
/// | `all_correct`                     | `{}`                                         |
/// | `no_banned_libraries`             | `{}`                                         |
/// | `every_scenario_speedup_at_least` | a number, or `{"minimum": x, "estimate": e, "z": z}` |
/// | `geomean_speedup_at_least`        | a number, or `{"minimum": x, "estimate": e, "z": z}` |
/// | `all_of`, `any_of`                | a non-empty array of specs                   |
/// | `not`                             | a spec                                       |
/// | `on_scenarios`                    | `{"ids": ["a", "b"], "goal": spec}`          |
/// A speedup counts by its lower confidence bound (`"estimate": "lower_bound"`, the default, `z`
/// standard errors below the measured speedup, z = 2 by default) or, with `"estimate": "point"`,
/// by the point estimate (goals/predicates.hpp, SpeedupReading).
/// Errors name the path of the bad node (e.g. `goal.all_of[1]`).

#include <cmath>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "socratic/concepts.hpp"
#include "socratic/core/error.hpp"
#include "socratic/core/json.hpp"
#include "socratic/goals/combinators.hpp"
#include "socratic/goals/predicates.hpp"

namespace socratic::goals {

/// @brief Any GoalPredicate behind one type, so goals chosen at run time (from a file) can be
/// composed and handed to Campaign. Keeps the goal's description.
class AnyGoal {
 public:
  /// @brief Wraps any GoalPredicate. (The same_as test comes first: checking GoalPredicate<AnyGoal>
  /// would otherwise recurse into this constructor, which clang rejects.)
  template <class G>
    requires(!std::same_as<std::remove_cvref_t<G>, AnyGoal> && GoalPredicate<G>)
  AnyGoal(G goal)  // NOLINT: implicit on purpose, like std::function
      : check_(std::make_shared<const std::function<Verdict(const EvalReport&)>>(
            [g = goal](const EvalReport& r) { return Verdict(g(r)); })),
        description_(describe_goal(goal)) {}

  /// @brief The verdict of the wrapped goal.
  Verdict operator()(const EvalReport& r) const { return (*check_)(r); }
  /// @brief The wrapped goal's description.
  std::string describe() const { return description_; }

 private:
  std::shared_ptr<const std::function<Verdict(const EvalReport&)>> check_;
  std::string description_;
};

static_assert(GoalPredicate<AnyGoal>);

namespace detail {

/// The argument of a speedup goal: a minimum, and how the speedup is read.
struct speedup_spec {
  double minimum = 1.0;
  SpeedupReading reading;
};

inline speedup_spec spec_speedup(const json& arg, const std::string& where) {
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

inline void expect_empty_object(const json& arg, const std::string& where) {
  if (!(arg.is_object() && arg.empty()) && !arg.is_null())
    throw input_error({}, where, "takes no argument (write {}), found " + arg.dump());
}

/// Folds a runtime list of goals into one with all_of / any_of semantics.
struct goal_list {
  std::vector<AnyGoal> parts;
  bool any = false;
  Verdict operator()(const EvalReport& r) const {
    std::vector<UnmetCondition> unmet;
    for (const auto& g : parts) {
      Verdict v = g(r);
      if (any && v.met) return Verdict::pass();
      for (const auto& u : v.unmet)
        if (std::find(unmet.begin(), unmet.end(), u) == unmet.end()) unmet.push_back(u);
    }
    return unmet.empty() ? Verdict::pass() : Verdict::fail(std::move(unmet));
  }
  std::string describe() const {
    std::string out = any ? "any of (" : "all of (";
    for (std::size_t i = 0; i < parts.size(); ++i) out += (i ? "; " : "") + parts[i].describe();
    return out + ")";
  }
};

}  // namespace detail

/// @brief Builds a goal from its JSON spec (see the file comment). Throws input_error naming the
/// node (`where` is the path of `spec`, e.g. `goal`).
inline AnyGoal goal_from_spec(const json& spec, const std::string& where = "goal") {
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

/// @brief The goal `socratic init` writes: every scenario correct, none slower than the
/// baseline, no banned library.
inline json default_goal_spec() {
  return json{{"all_of", json::array({json{{"all_correct", json::object()}},
                                      json{{"every_scenario_speedup_at_least", 1.0}},
                                      json{{"no_banned_libraries", json::object()}}})}};
}

}  // namespace socratic::goals
