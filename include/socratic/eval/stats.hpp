#pragma once
/// @file
/// @brief Small statistics over timing samples and speedups: median, relative spread, geometric
/// mean, and whether two noisy times differ by more than their noise. Light: standard library.

#include <algorithm>
#include <cmath>
#include <limits>
#include <span>
#include <vector>

namespace socratic::stats {

/// @brief Median of `samples` (the mean of the two middle values for an even count); NaN when
/// empty or when any sample is NaN.
inline double median(std::span<const double> samples) {
  if (samples.empty()) return std::numeric_limits<double>::quiet_NaN();
  std::vector<double> v(samples.begin(), samples.end());
  if (std::any_of(v.begin(), v.end(), [](double x) { return std::isnan(x); }))
    return std::numeric_limits<double>::quiet_NaN();
  const std::size_t mid = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid), v.end());
  const double upper = v[mid];
  if (v.size() % 2 == 1) return upper;
  const double lower = *std::max_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid));
  return (lower + upper) / 2;
}

/// @brief Arithmetic mean; NaN when empty.
inline double mean(std::span<const double> samples) {
  if (samples.empty()) return std::numeric_limits<double>::quiet_NaN();
  double sum = 0;
  for (double x : samples) sum += x;
  return sum / static_cast<double>(samples.size());
}

/// @brief Sample standard deviation (n - 1); NaN with fewer than two samples.
inline double stdev(std::span<const double> samples) {
  if (samples.size() < 2) return std::numeric_limits<double>::quiet_NaN();
  const double m = mean(samples);
  double sq = 0;
  for (double x : samples) sq += (x - m) * (x - m);
  return std::sqrt(sq / static_cast<double>(samples.size() - 1));
}

/// @brief Relative spread: standard deviation over mean (NVBench's "noise"), e.g. 0.004 for
/// 0.4 %. NaN with fewer than two samples or a non-positive mean.
inline double relative_spread(std::span<const double> samples) {
  const double m = mean(samples);
  if (!(m > 0)) return std::numeric_limits<double>::quiet_NaN();
  return stdev(samples) / m;
}

/// @brief Geometric mean of positive finite values; NaN when empty or when any value is
/// non-finite or non-positive (one broken value must not vanish into a mean).
inline double geomean(std::span<const double> values) {
  if (values.empty()) return std::numeric_limits<double>::quiet_NaN();
  double log_sum = 0;
  for (double x : values) {
    if (!std::isfinite(x) || x <= 0) return std::numeric_limits<double>::quiet_NaN();
    log_sum += std::log(x);
  }
  return std::exp(log_sum / static_cast<double>(values.size()));
}

/// @brief Geometric mean of the positive finite values only, and how many were skipped; for
/// summaries where a missing value is shown separately (never for scores).
inline double geomean_of_finite(std::span<const double> values, std::size_t* skipped = nullptr) {
  std::vector<double> kept;
  for (double x : values)
    if (std::isfinite(x) && x > 0) kept.push_back(x);
  if (skipped) *skipped = values.size() - kept.size();
  return geomean(kept);
}

/// @brief True when `a_ms` is faster than `b_ms` by more than their combined relative noise
/// (each noise a relative spread; a NaN noise counts as zero). `margin` adds a floor, e.g. 0.01.
inline bool faster_beyond_noise(double a_ms, double a_noise, double b_ms, double b_noise,
                                double margin = 0) {
  if (!(a_ms > 0) || !(b_ms > 0)) return false;
  const double noise = (std::isnan(a_noise) ? 0 : a_noise) + (std::isnan(b_noise) ? 0 : b_noise);
  return b_ms / a_ms > 1 + noise + margin;
}

}  // namespace socratic::stats
