#pragma once
/// @file
/// @brief Student's t distribution for small whole degrees of freedom: its CDF in closed form and
/// its quantile by bisection. The gate pools a handful of runs and bounds their mean with the
/// runs' own spread, where the normal quantile would be far too optimistic (t at 3 degrees of
/// freedom is 2.35 for 95 %, the normal's 1.64).

#include <cmath>
#include <numbers>
#include <stdexcept>

namespace socratic::detail {

/// @brief P(T <= t) for Student's t with `df` >= 1 degrees of freedom (the finite series in
/// theta = atan(t / sqrt(df)) that holds for whole df; Abramowitz and Stegun 26.7.3-4).
inline double student_t_cdf(double t, int df) {
  if (df < 1) throw std::invalid_argument("student_t_cdf: degrees of freedom must be >= 1");
  if (std::isnan(t)) return t;
  if (std::isinf(t)) return t > 0 ? 1.0 : 0.0;
  const double theta = std::atan(std::abs(t) / std::sqrt(static_cast<double>(df)));
  const double c2 = std::cos(theta) * std::cos(theta), s = std::sin(theta);
  double inside;  // P(|T| < |t|)
  if (df % 2 == 1) {
    double sum = 0, term = std::cos(theta);
    if (df > 1) sum = term;
    for (int k = 3; k <= df - 2; k += 2) sum += (term *= c2 * (k - 1) / k);
    inside = 2 / std::numbers::pi * (theta + s * sum);
  } else {
    double sum = 1, term = 1;
    for (int k = 2; k <= df - 2; k += 2) sum += (term *= c2 * (k - 1) / k);
    inside = s * sum;
  }
  return t >= 0 ? 0.5 + inside / 2 : 0.5 - inside / 2;
}

/// @brief The t with P(T <= t) = p, for 0 < p < 1 (bisection to 1e-10).
inline double student_t_quantile(double p, int df) {
  if (!(p > 0 && p < 1)) throw std::invalid_argument("student_t_quantile: p must lie in (0, 1)");
  if (p < 0.5) return -student_t_quantile(1 - p, df);
  double lo = 0, hi = 1;
  while (student_t_cdf(hi, df) < p) hi *= 2;
  while (hi - lo > 1e-10 * std::max(1.0, hi)) {
    const double mid = (lo + hi) / 2;
    (student_t_cdf(mid, df) < p ? lo : hi) = mid;
  }
  return (lo + hi) / 2;
}

}  // namespace socratic::detail
