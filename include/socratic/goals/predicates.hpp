#pragma once
/// @file
/// @brief The reference goal predicates. Each satisfies GoalPredicate, checks every scenario
/// (never only a mean) and never passes a report with missing scenarios, a failed build or a
/// harness error.

#include <cmath>
#include <string>
#include <vector>

#include "socratic/concepts.hpp"
#include "socratic/core/detail/separate_compilation.hpp"
#include "socratic/goals/detail/report_checks.hpp"

namespace socratic::goals {

/// @brief Every expected scenario ran and was correct.
struct all_correct {
  Verdict operator()(const EvalReport& r) const;
  std::string describe() const { return "all scenarios correct"; }
};

/// @brief How a speedup goal reads a measured speedup.
///
/// By default a speedup counts by its lower confidence bound (speedup_lower_bound() in
/// core/report.hpp: the point estimate less `z` standard errors of the measured noise), so that
/// noise alone cannot meet a goal: an unchanged kernel measured often enough lands above 1.000
/// by chance, never beyond its noise. `point_estimate` reads the measured speedup as it is.
struct SpeedupReading {
  bool point_estimate = false;   ///< use the point estimate instead of the lower bound
  double z = default_speedup_z;  ///< standard errors below the point estimate

  double of(const ScenarioResult& s) const { return point_estimate ? s.speedup : speedup_lower_bound(s, z); }
  double of_geomean(const EvalReport& r) const {
    return point_estimate ? r.geomean_speedup() : r.geomean_speedup_lower_bound(z);
  }
  /// What was measured, in words: the value read and, for a bound, the point estimate beside it.
  std::string measured(double read, double point) const;
};

namespace detail {

/// A goal of being at least `minimum` times as fast as the baseline is a goal of being faster
/// when `minimum` >= 1: a candidate byte-identical to the baseline never meets it.
SOCRATIC_DECL void check_not_the_baseline(const EvalReport& r, double minimum, std::vector<UnmetCondition>& unmet);

}  // namespace detail

/// @brief Every scenario is correct and at least `minimum` times faster than the baseline, beyond
/// the measured noise (see SpeedupReading).
struct every_scenario_speedup_at_least {
  double minimum = 1.0;
  SpeedupReading reading{};

  Verdict operator()(const EvalReport& r) const;
  std::string describe() const {
    return "every scenario speedup >= " + detail::format_number(minimum) +
           (reading.point_estimate ? " (point estimate)" : "");
  }
};

/// @brief Every scenario is correct and the geomean speedup over all of them is at least
/// `minimum`, beyond the measured noise (see SpeedupReading). Incorrect scenarios are named
/// individually.
struct geomean_speedup_at_least {
  double minimum = 1.0;
  SpeedupReading reading{};

  Verdict operator()(const EvalReport& r) const;
  std::string describe() const {
    return "geomean speedup >= " + detail::format_number(minimum) + " with every scenario correct" +
           (reading.point_estimate ? " (point estimate)" : "");
  }
};

/// @brief No banned library was found, in the binary or in the running process.
struct no_banned_libraries {
  Verdict operator()(const EvalReport& r) const;
  std::string describe() const { return "no banned libraries"; }
};

static_assert(GoalPredicate<all_correct>);
static_assert(GoalPredicate<every_scenario_speedup_at_least>);
static_assert(GoalPredicate<geomean_speedup_at_least>);
static_assert(GoalPredicate<no_banned_libraries>);

}  // namespace socratic::goals

#ifndef SOCRATIC_SEPARATE_COMPILATION
#include "socratic/goals/impl/predicates.ipp"
#endif
