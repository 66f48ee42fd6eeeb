#pragma once
/// @file
/// @brief Definitions for socratic/goals/predicates.hpp: included there in header-only builds,
/// and by socratic/src.hpp (compiled once) with SOCRATIC_SEPARATE_COMPILATION.

#include "socratic/goals/predicates.hpp"

namespace socratic::goals::detail {

SOCRATIC_DECL void check_not_the_baseline(const EvalReport& r, double minimum, std::vector<UnmetCondition>& unmet) {
  if (r.identical_to_baseline && minimum >= 1.0)
    unmet.push_back({"", "differs_from_baseline", "a candidate that is not the baseline",
                     "byte-identical to the baseline (identical_to_baseline)"});
}

}  // namespace socratic::goals::detail

namespace socratic::goals {

SOCRATIC_DECL std::string SpeedupReading::measured(double read, double point) const {
  if (point_estimate || !std::isfinite(read) || !std::isfinite(point) || read == point)
    return detail::format_number(read);
  return detail::format_number(read) + " (lower bound, " + detail::format_number(z, 1) +
         " standard errors below the measured " + detail::format_number(point) + ")";
}

SOCRATIC_DECL Verdict all_correct::operator()(const EvalReport& r) const {
  auto unmet = detail::report_integrity(r);
  for (const auto& s : r.scenarios)
    if (!s.correct)
      unmet.push_back({s.id, "correct", "correct", s.reason.empty() ? "incorrect" : s.reason});
  return unmet.empty() ? Verdict::pass() : Verdict::fail(std::move(unmet));
}

SOCRATIC_DECL Verdict every_scenario_speedup_at_least::operator()(const EvalReport& r) const {
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

SOCRATIC_DECL Verdict geomean_speedup_at_least::operator()(const EvalReport& r) const {
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

SOCRATIC_DECL Verdict no_banned_libraries::operator()(const EvalReport& r) const {
  auto unmet = detail::report_integrity(r);
  for (const auto& f : r.banned)
    unmet.push_back({"", "no_banned_libraries", "no " + f.library, f.file + ": " + f.evidence});
  return unmet.empty() ? Verdict::pass() : Verdict::fail(std::move(unmet));
}

}  // namespace socratic::goals
