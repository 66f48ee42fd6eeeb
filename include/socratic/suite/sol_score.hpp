#pragma once
/// @file
/// @brief SOL-ExecBench's own score beside the speedup (issue 38 item 5).
///
/// SOL-ExecBench ranks a kernel by how much of the gap between a scoring baseline and the
/// hardware's speed of light it closes: S = 1 / (1 + (T - T_SOL) / (T_b - T_SOL)), with T the
/// candidate's time, T_b the baseline's and T_SOL the speed-of-light time (SOLAR's analytic bound
/// on a B200, published on the suite's leaderboard, not in its problem files). S = 0.5 at the
/// baseline's time, 1 at the bound, and tends to 0 as the candidate slows down.
///
/// Where Socratic differs, and why: T_b is the baseline this evaluation timed (eager PyTorch by
/// default; the suite's T_b is its own "optimized PyTorch" release baseline), and T_SOL is the
/// problem's (a B200 figure when it comes from the leaderboard) while T is measured on the judge's
/// GPU; the number is the suite's formula on these times, not the leaderboard's value.

#include <cmath>
#include <string>

#include "socratic/core/report.hpp"
#include "socratic/suite/problem_description.hpp"

namespace socratic::suite {

/// @brief S for one workload, from times in the same unit. NaN when a time is not a positive
/// finite number. The edge cases, as SOL-ExecBench's sol_score.py decides them, except one:
/// - T_b <= T_SOL (the baseline at or below the bound, no gap to close): 1 when T <= T_SOL, else 0;
/// - T < T_SOL with a gap (faster than the bound: the bound is another GPU's, or the time is
///   wrong): the formula exceeds 1; SOL's code returns it as it is, Socratic clamps it to 1 (its
///   docstring's range) and the scenario is flagged `below_sol`.
inline double sol_score(double t, double t_b, double t_sol) {
  auto positive = [](double x) { return std::isfinite(x) && x > 0; };
  if (!positive(t) || !positive(t_b) || !positive(t_sol)) return std::nan("");
  const double gap = t_b - t_sol;
  if (gap <= 0) return t <= t_sol ? 1.0 : 0.0;
  if (t <= t_sol) return 1.0;
  return 1.0 / (1.0 + (t - t_sol) / gap);
}

/// @brief Fills each scenario's `sol_time_ms` and `sol_score` from `p`'s workloads (scenario id =
/// workload uuid) and says what T_b is (`baseline`: pytorch_eager, pytorch_compile, native_cuda)
/// or why the score is absent. Only a correct scenario whose speedup counts (both times measured,
/// neither `below_roofline` nor `above_peak`) gets a score.
/// Flags: `below_sol` (T < T_SOL, clamped to 1), `baseline_below_sol` (T_b <= T_SOL).
inline void apply_sol_scores(EvalReport& report, const ProblemDescription& p, const std::string& baseline) {
  if (p.origin != ProblemOrigin::sol_execbench && p.origin != ProblemOrigin::flashinfer_bench) return;
  report.sol_score_baseline = baseline;
  bool any = false;
  for (const auto& w : p.workloads) any = any || w.t_sol_ms.has_value();
  if (!any) {
    report.sol_score_absent =
        "the problem gives no T_SOL (no workload has t_sol_ms and there is no sol_times.json beside workload.jsonl)";
    return;
  }
  for (auto& s : report.scenarios) {
    const Workload* w = nullptr;
    for (const auto& x : p.workloads)
      if (x.uuid == s.id) w = &x;
    if (!w || !w->t_sol_ms) continue;
    s.sol_time_ms = *w->t_sol_ms;
    // A time that does not count (no speedup: below_roofline, above_peak, not timed) gets no score either.
    if (!s.correct || !std::isfinite(s.speedup)) continue;
    s.sol_score = sol_score(s.candidate_ms, s.baseline_ms, s.sol_time_ms);
    if (!std::isfinite(s.sol_score)) continue;
    auto flag = [&s](const char* f) {
      if (!s.has_flag(f)) s.flags.push_back(f);
    };
    if (s.baseline_ms <= s.sol_time_ms) flag("baseline_below_sol");
    else if (s.candidate_ms < s.sol_time_ms) flag("below_sol");
  }
}

}  // namespace socratic::suite
