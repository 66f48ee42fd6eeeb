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
  std::string measured(double read, double point) const {
    if (point_estimate || !std::isfinite(read) || !std::isfinite(point) || read == point)
      return detail::format_number(read);
    return detail::format_number(read) + " (lower bound, " + detail::format_number(z, 1) +
           " standard errors below the measured " + detail::format_number(point) + ")";
  }
};

namespace detail {

/// A goal of being at least `minimum` times as fast as the baseline is a goal of being faster
/// when `minimum` >= 1: a candidate byte-identical to the baseline never meets it.
inline void check_not_the_baseline(const EvalReport& r, double minimum, std::vector<UnmetCondition>& unmet) {
  if (r.identical_to_baseline && minimum >= 1.0)
    unmet.push_back({"", "differs_from_baseline", "a candidate that is not the baseline",
                     "byte-identical to the baseline (identical_to_baseline)"});
}

}  // namespace detail

/// @brief Every scenario is correct and at least `minimum` times faster than the baseline, beyond
/// the measured noise (see SpeedupReading).
struct every_scenario_speedup_at_least {
  double minimum = 1.0;
  SpeedupReading reading{};

  Verdict operator()(const EvalReport& r) const {
    auto unmet = detail::report_integrity(r);
    detail::check_not_the_baseline(r, minimum, unmet);
    const std::string required = ">= " + detail::format_number(minimum);
    for (const auto& s : r.scenarios) {
      const double read = reading.of(s);
      if (!s.correct)
        unmet.push_back({s.id, "speedup", required, "incorrect, speedup not counted"});
      else if (!std::isfinite(read) || read < minimum)
        unmet.push_back({s.id, "speedup", required, reading.measured(read, s.speedup)});
    }
    return unmet.empty() ? Verdict::pass() : Verdict::fail(std::move(unmet));
  }
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

  Verdict operator()(const EvalReport& r) const {
    auto unmet = detail::report_integrity(r);
    detail::check_not_the_baseline(r, minimum, unmet);
    for (const auto& s : r.scenarios)
      if (!s.correct)
        unmet.push_back({s.id, "correct", "correct", s.reason.empty() ? "incorrect" : s.reason});
    const double g = reading.of_geomean(r);
    if (!std::isfinite(g) || g < minimum)
      unmet.push_back({"", "geomean_speedup", ">= " + detail::format_number(minimum),
                       reading.measured(g, r.geomean_speedup())});
    return unmet.empty() ? Verdict::pass() : Verdict::fail(std::move(unmet));
  }
  std::string describe() const {
    return "geomean speedup >= " + detail::format_number(minimum) + " with every scenario correct" +
           (reading.point_estimate ? " (point estimate)" : "");
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
