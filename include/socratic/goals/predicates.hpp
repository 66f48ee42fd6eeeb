#pragma once
/// @file
/// @brief The reference goal predicates. Each satisfies GoalPredicate, checks every scenario
/// (never only a mean) and never passes a report with missing scenarios, a failed build or a
/// harness error.

#include <cmath>
#include <string>
#include <vector>

#include "socratic/concepts.hpp"
#include "socratic/goals/detail/report_checks.hpp"

namespace socratic::goals {

/// @brief Every expected scenario ran and was correct.
struct all_correct {
  Verdict operator()(const EvalReport& r) const {
    auto unmet = detail::report_integrity(r);
    for (const auto& s : r.scenarios)
      if (!s.correct)
        unmet.push_back({s.id, "correct", "correct", s.reason.empty() ? "incorrect" : s.reason});
    return unmet.empty() ? Verdict::pass() : Verdict::fail(std::move(unmet));
  }
  std::string describe() const { return "all scenarios correct"; }
};

/// @brief Every scenario is correct and at least `minimum` times faster than the baseline.
struct every_scenario_speedup_at_least {
  double minimum = 1.0;

  Verdict operator()(const EvalReport& r) const {
    auto unmet = detail::report_integrity(r);
    const std::string required = ">= " + detail::format_number(minimum);
    for (const auto& s : r.scenarios) {
      if (!s.correct)
        unmet.push_back({s.id, "speedup", required, "incorrect, speedup not counted"});
      else if (!std::isfinite(s.speedup) || s.speedup < minimum)
        unmet.push_back({s.id, "speedup", required, detail::format_number(s.speedup)});
    }
    return unmet.empty() ? Verdict::pass() : Verdict::fail(std::move(unmet));
  }
  std::string describe() const {
    return "every scenario speedup >= " + detail::format_number(minimum);
  }
};

/// @brief Every scenario is correct and the geomean speedup over all of them is at least
/// `minimum`. Incorrect scenarios are named individually.
struct geomean_speedup_at_least {
  double minimum = 1.0;

  Verdict operator()(const EvalReport& r) const {
    auto unmet = detail::report_integrity(r);
    for (const auto& s : r.scenarios)
      if (!s.correct)
        unmet.push_back({s.id, "correct", "correct", s.reason.empty() ? "incorrect" : s.reason});
    const double g = r.geomean_speedup();
    if (!std::isfinite(g) || g < minimum)
      unmet.push_back({"", "geomean_speedup", ">= " + detail::format_number(minimum),
                       detail::format_number(g)});
    return unmet.empty() ? Verdict::pass() : Verdict::fail(std::move(unmet));
  }
  std::string describe() const {
    return "geomean speedup >= " + detail::format_number(minimum) + " with every scenario correct";
  }
};

/// @brief No banned library was found, in the binary or in the running process.
struct no_banned_libraries {
  Verdict operator()(const EvalReport& r) const {
    auto unmet = detail::report_integrity(r);
    for (const auto& f : r.banned)
      unmet.push_back({"", "no_banned_libraries", "no " + f.library, f.file + ": " + f.evidence});
    return unmet.empty() ? Verdict::pass() : Verdict::fail(std::move(unmet));
  }
  std::string describe() const { return "no banned libraries"; }
};

static_assert(GoalPredicate<all_correct>);
static_assert(GoalPredicate<every_scenario_speedup_at_least>);
static_assert(GoalPredicate<geomean_speedup_at_least>);
static_assert(GoalPredicate<no_banned_libraries>);

}  // namespace socratic::goals
