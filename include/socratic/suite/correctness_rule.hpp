#pragma once
/// @file
/// @brief Each suite's correctness rule for one output of one workload, as a pure function of the
/// expected and the produced values (converted to float, as the suites compare in fp32):
///
/// - **SOL-ExecBench**: any inf or NaN in the output fails; an element matches when
///   |got - ref| <= atol + rtol * |ref| (a non-finite error, e.g. where the reference is -inf or
///   NaN, never matches); the workload passes when the matched ratio >= required_matched_ratio and
///   no error exceeds max_error_cap when one is given; an all-zero output fails when the reference
///   is not all zero. Relative error is |got - ref| / max(|ref|, atol).
/// - **FlashInfer-Bench**: any inf or NaN in the output fails; an element fails only when both
///   |got - ref| > atol and |got - ref| / (|ref| + 1e-8) > rtol; matched ratio as above.
/// - **KernelBench**: `torch.allclose(ref, got, atol, rtol)`: every element must satisfy
///   |ref - got| <= atol + rtol * |got| (the tolerance scales with the *produced* value), equal
///   infinities match, NaN never does.

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <limits>
#include <span>
#include <string>

#include "socratic/suite/tolerance.hpp"

namespace socratic::suite {

/// @brief The verdict on one output, with the figures the suites report.
struct OutputVerdict {
  bool ok = true;
  double matched_ratio = 1.0;
  double max_abs_error = 0.0;  ///< NaN when an error is NaN (as torch's max reports it)
  double max_rel_error = 0.0;
  std::size_t mismatched = 0;  ///< elements outside the tolerance
  std::string reason;          ///< why it failed; empty when ok
};

namespace detail {

inline std::string format_value(double x) {
  if (std::isnan(x)) return "nan";
  if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.6g", x);
  return buffer;
}

inline double max_propagating_nan(double current, double x) {
  if (std::isnan(current) || std::isnan(x)) return std::numeric_limits<double>::quiet_NaN();
  return std::max(current, x);
}

}  // namespace detail

/// @brief Judges `got` against `expected` by `rule` with tolerance `t` (see the file comment).
inline OutputVerdict judge_output(CorrectnessRule rule, const Tolerance& t, std::span<const float> expected,
                                  std::span<const float> got) {
  OutputVerdict v;
  using detail::format_value;
  if (expected.size() != got.size()) {
    v.ok = false;
    v.reason = "the output has " + std::to_string(got.size()) + " elements, the reference " +
               std::to_string(expected.size());
    return v;
  }
  const std::size_t n = got.size();
  if (n == 0) return v;
  const std::string suite(correctness_rule_name(rule));

  if (rule != CorrectnessRule::kernelbench) {
    // Both suites reject any inf, then any NaN, in the output, whatever the reference holds there.
    for (bool want_inf : {true, false})
      for (std::size_t i = 0; i < n; ++i) {
        const double g = got[i];
        if (want_inf ? std::isinf(g) : std::isnan(g)) {
          v.ok = false;
          v.max_abs_error = v.max_rel_error = want_inf ? std::numeric_limits<double>::infinity()
                                                       : std::numeric_limits<double>::quiet_NaN();
          v.reason = "output[" + std::to_string(i) + "] is " + format_value(g) + " (reference " +
                     format_value(expected[i]) + "): " + suite + " fails any non-finite output value";
          return v;
        }
      }
  }

  std::size_t first_bad = n;
  for (std::size_t i = 0; i < n; ++i) {
    const double r = expected[i], g = got[i];
    // Equal values (equal infinities included) have no error; inf - inf would read as NaN.
    const double abs_error = r == g ? 0.0 : std::fabs(g - r);
    bool mismatch = false;
    double rel_error = 0;
    switch (rule) {
      case CorrectnessRule::sol_execbench:
        mismatch = !std::isfinite(abs_error) || abs_error > t.atol + t.rtol * std::fabs(r);
        rel_error = abs_error / std::max(std::fabs(r), t.atol);
        break;
      case CorrectnessRule::flashinfer_bench:
        rel_error = abs_error / (std::fabs(r) + 1e-8);
        mismatch = abs_error > t.atol && rel_error > t.rtol;  // NaN compares false, as in torch
        break;
      case CorrectnessRule::kernelbench:
        mismatch = r != g && !(std::isfinite(abs_error) && abs_error <= t.atol + t.rtol * std::fabs(g));
        rel_error = abs_error == 0 ? 0.0 : abs_error / std::max(std::fabs(g), t.atol);
        break;
    }
    v.max_abs_error = detail::max_propagating_nan(v.max_abs_error, abs_error);
    v.max_rel_error = detail::max_propagating_nan(v.max_rel_error, rel_error);
    if (mismatch) {
      ++v.mismatched;
      if (first_bad == n) first_bad = i;
    }
  }
  v.matched_ratio = std::clamp(1.0 - static_cast<double>(v.mismatched) / static_cast<double>(n), 0.0, 1.0);
  const std::string first =
      first_bad < n ? " (first: output[" + std::to_string(first_bad) + "] = " + format_value(got[first_bad]) +
                          ", reference " + format_value(expected[first_bad]) + ")"
                    : std::string();

  if (rule == CorrectnessRule::sol_execbench) {
    const bool got_all_zero = std::all_of(got.begin(), got.end(), [](float x) { return x == 0.0f; });
    const bool ref_all_zero = std::all_of(expected.begin(), expected.end(), [](float x) { return x == 0.0f; });
    if (got_all_zero && !ref_all_zero) {
      v.ok = false;
      v.reason = "the output is all zero and the reference is not";
      return v;
    }
  }
  if (v.matched_ratio < t.required_matched_ratio) {
    v.ok = false;
    v.reason = std::to_string(v.mismatched) + " of " + std::to_string(n) + " elements outside atol " +
               format_value(t.atol) + " rtol " + format_value(t.rtol) + ": matched ratio " +
               format_value(v.matched_ratio) + " < required " + format_value(t.required_matched_ratio) + first;
    return v;
  }
  if (t.max_error_cap && !(v.max_abs_error <= *t.max_error_cap)) {
    v.ok = false;
    v.reason = "max absolute error " + format_value(v.max_abs_error) + " exceeds the cap " +
               format_value(*t.max_error_cap);
    return v;
  }
  return v;
}

}  // namespace socratic::suite
