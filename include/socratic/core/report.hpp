#pragma once
/// @file
/// @brief EvalReport: what one evaluation of a candidate found, per scenario and overall.

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "socratic/core/candidate.hpp"
#include "socratic/core/json.hpp"
#include "socratic/core/detail/separate_compilation.hpp"

namespace socratic {

namespace detail {
inline constexpr double nan = std::numeric_limits<double>::quiet_NaN();
}

/// @brief How many standard errors a speedup's lower bound lies below its point estimate by
/// default: 2 (about 97.7 % one-sided, for normal errors).
inline constexpr double default_speedup_z = 2.0;

/// @brief The result of one scenario. Numbers that were not measured are NaN (null in JSON).
struct ScenarioResult {
  std::string id;        ///< the scenario's id
  bool correct = false;  ///< passed every correctness check
  std::string reason;    ///< why it failed (empty when correct)

  // Errors against the fp32 reference (absolute, on the output).
  double max_abs_error = detail::nan;           ///< candidate vs fp32 reference
  double rel_l2_error = detail::nan;            ///< candidate vs fp32 reference, relative L2
  double baseline_max_abs_error = detail::nan;  ///< baseline vs fp32 reference
  double tolerance = detail::nan;               ///< max |error| the rule allowed

  // Times (median of the samples, milliseconds) and their relative spread.
  double candidate_ms = detail::nan;
  double baseline_ms = detail::nan;
  double candidate_noise = detail::nan;  ///< relative spread of candidate samples (e.g. 0.004)
  double baseline_noise = detail::nan;
  int samples = 0;                       ///< timed samples per implementation

  double speedup = detail::nan;            ///< baseline_ms / candidate_ms
  double tflops = detail::nan;             ///< candidate throughput
  double roofline_ms = detail::nan;        ///< physical lower bound on the time
  double roofline_fraction = detail::nan;  ///< roofline_ms / candidate_ms (1 = at the bound)
  double sm_clock_mhz = detail::nan;       ///< SM clock while timing, where readable
  /// SOL-ExecBench's score of this workload (socratic/suite/sol_score.hpp): its speed-of-light
  /// time T_SOL when the problem gives one, and S = 1/(1 + (T - T_SOL)/(T_b - T_SOL)) with T the
  /// candidate's time and T_b this report's baseline time; NaN when not given or not judged.
  double sol_time_ms = detail::nan;
  double sol_score = detail::nan;

  /// Observations that qualify the numbers: `side_stream`, `below_roofline`, `throttled`,
  /// `noisy`, `sample_cap`, ... (documented in docs/report-schema.md).
  std::vector<std::string> flags;

  bool has_flag(std::string_view f) const {
    return std::find(flags.begin(), flags.end(), f) != flags.end();
  }
  friend bool operator==(const ScenarioResult&, const ScenarioResult&) = default;
};

/// @brief A banned library found in a built binary or in the running process.
struct BannedFinding {
  std::string file;      ///< the binary (or `process` for run-time findings)
  std::string library;   ///< lower case: cutlass, cute, cublas, cublaslt, cudnn, ...
  std::string evidence;  ///< what was seen, e.g. `DT_NEEDED libcublas.so.13`
  friend bool operator==(const BannedFinding&, const BannedFinding&) = default;
};

/// @brief Wall time spent in each phase of an evaluation, seconds.
struct EvalTimings {
  double build_s = 0, check_s = 0, timing_s = 0, total_s = 0;
  bool build_cached = false;
  friend bool operator==(const EvalTimings&, const EvalTimings&) = default;
};

/// @brief Whose fault an evaluation that judged nothing was. The candidate's own failures
/// (compile errors, crashes, wrong answers) are `none`: the report judges the candidate. A judge
/// fault means the candidate was NOT judged, and no agent can fix it by changing the candidate:
/// the campaign tells the person and never sends the agent back to change the candidate for it.
enum class EvalFault {
  none,           ///< the report judges the candidate (whatever it found)
  harness,        ///< the judge failed: its command exited with an error, printed no report, ...
  configuration,  ///< the campaign's set-up does not fit: the candidate file is missing, the
                  ///< scenario set is not what the judge reads, ...
};

SOCRATIC_DECL std::string_view to_string(EvalFault f) noexcept;

/// @brief Everything one evaluation found. Per-scenario detail is always present.
///
/// `expected` lists the scenarios the evaluator was asked to judge: a scenario that is expected
/// but has no result (the runner crashed before it, say) counts as failed everywhere.
struct EvalReport {
  std::string problem;
  std::string scenario_set;
  Candidate candidate;
  std::string gpu;   ///< device name, e.g. `NVIDIA H200`
  std::string arch;  ///< e.g. `sm_90`

  bool built = false;     ///< the candidate compiled
  std::string build_log;  ///< compiler output (capped)
  std::string error;      ///< harness-level failure (runner crash, hang, integrity), if any
  /// The judge's files (or settings) that changed since the campaign started, one sentence
  /// each, naming the file; when not empty nothing was judged and `error` says so.
  std::vector<std::string> judge_modified;

  std::vector<std::string> expected;     ///< scenario ids asked for
  std::vector<ScenarioResult> scenarios; ///< results, in order of `expected`
  std::vector<BannedFinding> banned;
  /// What the scanner found of a library the problem allows (docs/scanner.md, "Allowed
  /// libraries"): reported, never a violation.
  std::vector<BannedFinding> allowed_libraries;
  /// The library policy that applied, one line: `allowed: cublas, cudnn, cutlass; banned: none
  /// (the default for a KernelBench problem)`. Empty when the evaluator applied none.
  std::string library_policy;
  EvalTimings timings;
  /// The candidate's bytes are the baseline's (the evaluator knows its baseline): whatever the
  /// timings say, such a candidate is not faster, and no goal of being faster holds on it.
  bool identical_to_baseline = false;
  /// Set when nothing was judged through no fault of the candidate (`error` says what failed).
  EvalFault fault = EvalFault::none;
  /// A SOL-ExecBench / FlashInfer-Bench problem: what T_b of its score is (`pytorch_eager`,
  /// `pytorch_compile`, `native_cuda`); empty for other problems (no suite score applies).
  std::string sol_score_baseline;
  /// Why the SOL score is absent for such a problem (no workload gives T_SOL); empty otherwise.
  std::string sol_score_absent;

  /// @brief The result for scenario `id`, or nullptr when it is missing.
  const ScenarioResult* find(std::string_view id) const {
    for (const auto& s : scenarios)
      if (s.id == id) return &s;
    return nullptr;
  }

  /// @brief Expected scenarios without a result.
  std::vector<std::string> missing() const {
    std::vector<std::string> out;
    for (const auto& id : expected)
      if (!find(id)) out.push_back(id);
    return out;
  }

  /// @brief Built, no harness error, nothing missing, every scenario correct.
  bool all_correct() const {
    if (!built || !error.empty() || expected.empty() || !missing().empty()) return false;
    return std::all_of(scenarios.begin(), scenarios.end(), [](const auto& s) { return s.correct; });
  }

  /// @brief Geometric mean of the speedups over the expected scenarios; NaN when any is missing,
  /// non-finite or non-positive (one broken scenario must not vanish into a mean).
  double geomean_speedup() const {
    if (expected.empty()) return detail::nan;
    double log_sum = 0;
    for (const auto& id : expected) {
      const ScenarioResult* r = find(id);
      if (!r || !std::isfinite(r->speedup) || r->speedup <= 0) return detail::nan;
      log_sum += std::log(r->speedup);
    }
    return std::exp(log_sum / static_cast<double>(expected.size()));
  }

  /// @brief SOL-ExecBench's score of the problem: the mean of the scenarios' `sol_score` over the
  /// expected scenarios that have a T_SOL; NaN when none has one, or when one of them has no
  /// score (incorrect, missing, not timed): a failed workload must not vanish into a mean.
  double mean_sol_score() const {
    double sum = 0;
    int n = 0;
    for (const auto& id : expected) {
      const ScenarioResult* r = find(id);
      if (!r || !std::isfinite(r->sol_time_ms)) {
        if (!r) return detail::nan;
        continue;
      }
      if (!std::isfinite(r->sol_score)) return detail::nan;
      sum += r->sol_score, ++n;
    }
    return n ? sum / n : detail::nan;
  }

  /// @brief Lower confidence bound of the geometric mean of the speedups (see
  /// speedup_lower_bound(); the scenarios' log-errors add in quadrature over the count); NaN when
  /// the geomean is.
  double geomean_speedup_lower_bound(double z = default_speedup_z) const;

  friend bool operator==(const EvalReport&, const EvalReport&) = default;
};

/// @brief Relative standard error of a scenario's speedup (in log space), from its measured noise.
///
/// A speedup is the ratio of two medians of `samples` timings each, with relative robust spreads
/// s_c = `candidate_noise` and s_b = `baseline_noise`. The standard error of a median is
/// sqrt(pi/2) = 1.2533 times that of a mean, so the ratio's relative error is
///   e = 1.2533 * sqrt(s_c^2 + s_b^2) / sqrt(n),   n = max(samples, 1).
/// A noise that was not measured counts as 0; NaN when neither was measured. A scenario the
/// judge flagged `short_call` adds speedup_systematic_error() in quadrature.
SOCRATIC_DECL double speedup_relative_error(const ScenarioResult& s);

/// @brief What a run's own noise does not show for very short calls: the baseline against
/// itself moved from one run to the next by more than its within-run error. Measured on an H200
/// (docs/benchmarks.md, "The judge at suite scale", D143-D144): up to 6.2 % at 4.4 us, 2.9 % at
/// 6.5 us, within 2 % from 11 us on. 0 without the `short_call` flag; 0.03 under 5 us; 0.015
/// under 10 us (one standard error: the default z = 2 covers the measured spread).
SOCRATIC_DECL double speedup_systematic_error(const ScenarioResult& s);

/// @brief The lower confidence bound of a scenario's speedup: speedup * exp(-z * e), with e from
/// speedup_relative_error(). A goal on speedups holds on this bound, not on the point estimate,
/// so that noise alone cannot pass it. When no noise was measured the bound is the point
/// estimate; NaN when the speedup is.
SOCRATIC_DECL double speedup_lower_bound(const ScenarioResult& s, double z = default_speedup_z);

SOCRATIC_DECL void to_json(json& j, const ScenarioResult& r);

SOCRATIC_DECL void from_json(const json& j, ScenarioResult& r);

SOCRATIC_DECL void to_json(json& j, const BannedFinding& f);
SOCRATIC_DECL void from_json(const json& j, BannedFinding& f);

SOCRATIC_DECL void to_json(json& j, const EvalTimings& t);
SOCRATIC_DECL void from_json(const json& j, EvalTimings& t);

SOCRATIC_DECL void to_json(json& j, const EvalReport& r);

SOCRATIC_DECL void from_json(const json& j, EvalReport& r);

}  // namespace socratic

#ifndef SOCRATIC_SEPARATE_COMPILATION
#include "socratic/core/impl/report.ipp"
#endif
