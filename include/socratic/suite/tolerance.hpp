#pragma once
/// @file
/// @brief Which suite's correctness rule judges a problem, and its tolerances: the suite's defaults
/// and a workload's overrides.

#include <optional>
#include <string>
#include <string_view>

#include "socratic/suite/dtype.hpp"

namespace socratic::suite {

/// @brief The correctness rule of a suite (correctness_rule.hpp says what each one checks).
enum class CorrectnessRule {
  sol_execbench,     ///< |got-ref| <= atol + rtol*|ref| per element, a matched ratio, an error cap
  flashinfer_bench,  ///< an element fails when both its absolute and relative errors exceed theirs
  kernelbench,       ///< torch.allclose(ref, got): every element, relative to |got|
};

constexpr std::string_view correctness_rule_name(CorrectnessRule r) {
  switch (r) {
    case CorrectnessRule::sol_execbench: return "sol_execbench";
    case CorrectnessRule::flashinfer_bench: return "flashinfer_bench";
    case CorrectnessRule::kernelbench: return "kernelbench";
  }
  return "?";
}

/// @brief The tolerances one output of one workload is judged with.
struct Tolerance {
  double atol = 1e-2;
  double rtol = 1e-2;
  double required_matched_ratio = 1.0;  ///< share of elements that must be within tolerance
  std::optional<double> max_error_cap;  ///< no element's absolute error may exceed it
};

/// @brief What a workload's `correctness` (or `tolerance`) object sets; the rest keeps the suite's.
struct ToleranceOverride {
  std::optional<double> atol, rtol, required_matched_ratio, max_error_cap;

  bool empty() const { return !atol && !rtol && !required_matched_ratio && !max_error_cap; }
};

/// @brief The suite's own tolerances for an output of `dtype`: SOL-ExecBench and FlashInfer-Bench
/// 1e-2 / 1e-2 with every element required; KernelBench 1e-4 for fp32/fp64 and 1e-2 for the
/// narrower floats (its per-precision tolerances), and exact for integers and bool.
inline Tolerance suite_tolerance(CorrectnessRule rule, Dtype dtype) {
  Tolerance t;
  if (rule == CorrectnessRule::kernelbench) {
    const bool wide = dtype == Dtype::float32 || dtype == Dtype::float64;
    t.atol = t.rtol = !dtype_is_floating(dtype) ? 0.0 : wide ? 1e-4 : 1e-2;
  }
  return t;
}

/// @brief The suite's tolerance for `dtype` with a workload's overrides applied.
inline Tolerance apply_override(Tolerance t, const ToleranceOverride& o) {
  if (o.atol) t.atol = *o.atol;
  if (o.rtol) t.rtol = *o.rtol;
  if (o.required_matched_ratio) t.required_matched_ratio = *o.required_matched_ratio;
  if (o.max_error_cap) t.max_error_cap = *o.max_error_cap;
  return t;
}

}  // namespace socratic::suite
