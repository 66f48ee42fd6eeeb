#pragma once
/// @file
/// @brief Goal specs: goals written as JSON in a campaign file, built from the reference
/// predicates and combinators into an AnyGoal (any.hpp).
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
#include <optional>
#include <utility>
#include <vector>

#include "socratic/any.hpp"
#include "socratic/concepts.hpp"
#include "socratic/core/error.hpp"
#include "socratic/core/json.hpp"
#include "socratic/core/detail/separate_compilation.hpp"
#include "socratic/goals/combinators.hpp"
#include "socratic/goals/predicates.hpp"

namespace socratic::goals {

namespace detail {

/// The argument of a speedup goal: a minimum, and how the speedup is read.
struct speedup_spec {
  double minimum = 1.0;
  SpeedupReading reading;
};

SOCRATIC_DECL speedup_spec spec_speedup(const json& arg, const std::string& where);

SOCRATIC_DECL void expect_empty_object(const json& arg, const std::string& where);

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
SOCRATIC_DECL AnyGoal goal_from_spec(const json& spec, const std::string& where = "goal");

/// @brief Checks a goal spec against the scenario set it will judge: every id an `on_scenarios`
/// node names must be in `scenario_ids` (a goal over a scenario the set lacks is never met).
/// Throws input_error naming the node (e.g. `goal.all_of[1].on_scenarios.ids[0]`), the id and
/// the set's ids. `spec` must be valid (goal_from_spec).
SOCRATIC_DECL void check_goal_scenarios(const json& spec, const std::vector<std::string>& scenario_ids,
                                        const std::string& where = "goal");

/// @brief A goal parsed once, where its spec is read: the spec as written (what the trace, the
/// report and the judge's record keep) with the predicate built from it. Itself a GoalPredicate,
/// so it travels with a campaign's configuration to every driver; nobody builds it again.
class ParsedGoal {
 public:
  /// @brief The default goal (default_goal_spec()).
  ParsedGoal();
  /// @brief Builds the predicate of `spec`; throws input_error naming the node under `where`.
  explicit ParsedGoal(json spec, const std::string& where = "goal");

  /// @brief The verdict of the goal on a report.
  Verdict operator()(const EvalReport& r) const { return predicate_(r); }
  std::string describe() const { return predicate_.describe(); }
  /// @brief The spec as written.
  const json& spec() const noexcept { return spec_; }
  const AnyGoal& predicate() const noexcept { return predicate_; }
  /// @brief check_goal_scenarios() of this goal against the set it will judge.
  void check_scenarios(const std::vector<std::string>& scenario_ids, const std::string& where = "goal") const;

 private:
  json spec_;
  AnyGoal predicate_;
};

static_assert(GoalPredicate<ParsedGoal>);

/// @brief Parses a goal spec, and, when the scenario set it will judge is known, checks that every
/// scenario it names is in the set (check_goal_scenarios). Throws input_error naming the node.
SOCRATIC_DECL ParsedGoal parse_goal(const json& spec, const std::string& where = "goal",
                                    const std::optional<std::vector<std::string>>& scenario_ids = std::nullopt);

/// @brief The goal `socratic init` writes: every scenario correct, none slower than the
/// baseline, no banned library.
SOCRATIC_DECL json default_goal_spec();

}  // namespace socratic::goals

#ifndef SOCRATIC_SEPARATE_COMPILATION
#include "socratic/goals/impl/goal_spec.ipp"
#endif
