// The runner's arithmetic on timings: medians, spreads, when to stop sampling, the wall-clock
// cross-check and the roofline floor. Plain C++17, unit-tested without a GPU.
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

/// Wall-clock cross-check. `wall` includes the launch and a device-wide synchronisation, so it
/// exceeds the event time by a fixed overhead, measured on the (trusted) baseline in the same
/// run. Work that a candidate hides on another stream appears in the candidate's wall time but
/// not in its events. Suspect when wall > ratio x (events + overhead) + slack.
struct SideStreamRule {
  double ratio = 1.5;
  double slack_ms = 0.02;
};

inline bool side_stream_suspected(double candidate_wall_ms, double candidate_event_ms,
                                  double baseline_overhead_ms, SideStreamRule rule = {}) {
  if (!(candidate_wall_ms >= 0) || !(candidate_event_ms >= 0)) return false;
  const double overhead = baseline_overhead_ms > 0 ? baseline_overhead_ms : 0.0;
  return candidate_wall_ms > rule.ratio * (candidate_event_ms + overhead) + rule.slack_ms;
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
