// The runner's arithmetic on timings: medians, spreads, when to stop sampling, the judge's clock
// against a worker's events, the quiet check and the roofline floor. Plain C++17, unit-tested without a GPU.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <vector>

namespace socratic::harness {

inline constexpr double not_measured = std::numeric_limits<double>::quiet_NaN();

/// Median of `v` (NaN when empty).
inline double median(std::vector<double> v) {
  if (v.empty()) return not_measured;
  const std::size_t mid = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid), v.end());
  const double upper = v[mid];
  if (v.size() % 2 == 1) return upper;
  const double lower = *std::max_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid));
  return (lower + upper) / 2;
}

/// Robust relative spread: 1.4826 x median absolute deviation / median, i.e. the relative
/// standard deviation for normal samples, but blind to a few outliers (a preempted sample).
/// This is what the report calls `noise`. NaN with fewer than 2 samples.
inline double relative_spread(const std::vector<double>& v) {
  if (v.size() < 2) return not_measured;
  const double m = median(v);
  if (!(m > 0)) return not_measured;
  std::vector<double> dev;
  dev.reserve(v.size());
  for (double x : v) dev.push_back(std::fabs(x - m));
  return 1.4826 * median(dev) / m;
}

/// Relative standard error of the median (about 1.2533 x spread / sqrt(n) for normal samples):
/// it shrinks as samples accumulate, so "until < target" terminates, unlike the spread itself.
inline double median_relative_error(const std::vector<double>& v) {
  const double s = relative_spread(v);
  if (std::isnan(s)) return not_measured;
  return 1.2533 * s / std::sqrt(static_cast<double>(v.size()));
}

/// Why the sampling loop stopped.
enum class StopReason { keep_going, converged, sample_cap, time_cap };

/// The stopping rule: at least `min_samples`; then stop when both medians are known to
/// `target_noise` (relative error), or at `max_samples`, or after `max_ms` of wall time.
inline StopReason stop_rule(int samples, double error_candidate, double error_baseline,
                            double elapsed_ms, int min_samples, int max_samples,
                            double target_noise, double max_ms) {
  if (samples >= min_samples && error_candidate < target_noise && error_baseline < target_noise)
    return StopReason::converged;
  if (samples >= max_samples) return StopReason::sample_cap;
  if (samples >= 1 && elapsed_ms >= max_ms) return StopReason::time_cap;
  return StopReason::keep_going;
}

/// The judge's clock against a worker's events (docs/harness.md, "The judge's clock"). For each
/// timed call the judge measures `wall` on its own clock, from its request to the moment its own
/// fence completes after the answer (the GPU has then finished the worker's work, or preempted
/// it: the output check sees that); the worker reports `event` from its own events. The residual
/// wall - event is the path's overhead (messages, two context switches, the fence), the same for
/// any implementation; the baseline's residuals (its worker holds trusted code) measure it in the
/// same run. A candidate whose median residual exceeds the baseline's by more than the allowance
/// reported a time its work did not take: forged, or work left running on another stream.
struct ClockRule {
  /// Fixed allowance. Measured on an H200 (2026-12-01, the FA3 grid, honest kernels and the
  /// baseline against itself): the two median residuals of a scenario differ by -46..+64 us,
  /// from host scheduling that more samples do not average away.
  double abs_us = 60;
  double rel = 0.01;   ///< of the longer of the two medians: the overhead's jitter grows with a call's length
  double k_noise = 5;  ///< standard errors of the difference of the two median residuals
};

struct ClockVerdict {
  bool mismatch = false;
  double candidate_residual_us = not_measured, baseline_residual_us = not_measured;
  double excess_us = not_measured;     ///< candidate's residual minus the baseline's
  double allowance_us = not_measured;  ///< what the rule allows
};

inline double median_standard_error(const std::vector<double>& v) {
  if (v.size() < 2) return not_measured;
  const double m = median(v);
  std::vector<double> dev;
  for (double x : v) dev.push_back(std::fabs(x - m));
  return 1.2533 * 1.4826 * median(dev) / std::sqrt(static_cast<double>(v.size()));
}

/// Times in milliseconds, one per timed call of each side.
inline ClockVerdict clock_check(const std::vector<double>& event_c, const std::vector<double>& wall_c,
                                const std::vector<double>& event_b, const std::vector<double>& wall_b,
                                ClockRule rule = {}) {
  ClockVerdict v;
  if (event_c.empty() || event_b.empty() || event_c.size() != wall_c.size() ||
      event_b.size() != wall_b.size())
    return v;
  std::vector<double> rc, rb;
  for (std::size_t i = 0; i < event_c.size(); ++i) rc.push_back(1e3 * (wall_c[i] - event_c[i]));
  for (std::size_t i = 0; i < event_b.size(); ++i) rb.push_back(1e3 * (wall_b[i] - event_b[i]));
  v.candidate_residual_us = median(rc);
  v.baseline_residual_us = median(rb);
  v.excess_us = v.candidate_residual_us - v.baseline_residual_us;
  const double se_c = median_standard_error(rc), se_b = median_standard_error(rb);
  const double se = std::sqrt((std::isnan(se_c) ? 0 : se_c * se_c) + (std::isnan(se_b) ? 0 : se_b * se_b));
  const double longer_us = 1e3 * std::max(median(event_b), median(event_c));
  v.allowance_us = rule.abs_us + rule.rel * longer_us + rule.k_noise * se;
  v.mismatch = v.excess_us > v.allowance_us;
  return v;
}

/// The quiet check: before every timed call the judge times its own fence (microseconds),
/// which is fast when no other context has work and waits a context switch or a time slice when
/// one does. Grouped by which worker ran the timed call before: work a candidate leaves running
/// on the GPU (to slow the call after it) shows as fences that wait after its calls and not
/// after the baseline's.
struct QuietRule {
  double abs_us = 50;  ///< a context switch costs about 150 us on an H200; a quiet fence about 12
};

inline bool gpu_busy_after_candidate(const std::vector<double>& after_candidate_us,
                                     const std::vector<double>& after_baseline_us,
                                     QuietRule rule = {}) {
  if (after_candidate_us.empty() || after_baseline_us.empty()) return false;
  return median(after_candidate_us) > median(after_baseline_us) + rule.abs_us;
}

/// Physical lower bound on one call's time, milliseconds: max(flops / peak, bytes / bandwidth).
/// Outputs up to the L2's size can be absorbed by the L2 (write-back) before the kernel ends,
/// so they are not charged to DRAM; inputs were flushed out of L2 and must come from DRAM.
inline double roofline_floor_ms(double flops, double min_bytes, double output_bytes,
                                double l2_bytes, double peak_tflops, double peak_gbps) {
  double floor_s = 0;
  if (peak_tflops > 0 && flops > 0) floor_s = std::max(floor_s, flops / (peak_tflops * 1e12));
  if (peak_gbps > 0 && min_bytes > 0) {
    const double absorbed = std::min(std::max(output_bytes, 0.0), std::max(l2_bytes, 0.0));
    const double dram_bytes = std::max(min_bytes - absorbed, 0.0);
    floor_s = std::max(floor_s, dram_bytes / (peak_gbps * 1e9));
  }
  return floor_s * 1e3;
}

/// Fraction of clock samples below `threshold` x the maximum SM clock (NaN when unknown).
inline double throttled_fraction(const std::vector<double>& clocks_mhz, double max_mhz,
                                 double threshold = 0.75) {
  if (!(max_mhz > 0)) return not_measured;
  std::size_t known = 0, low = 0;
  for (double c : clocks_mhz) {
    if (!(c > 0)) continue;
    ++known;
    if (c < threshold * max_mhz) ++low;
  }
  if (known == 0) return not_measured;
  return static_cast<double>(low) / static_cast<double>(known);
}

}  // namespace socratic::harness
