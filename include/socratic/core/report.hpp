#pragma once
/// @file
/// @brief EvalReport: what one evaluation of a candidate found, per scenario and overall.

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "socratic/core/candidate.hpp"
#include "socratic/core/json.hpp"

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
  EvalTimings timings;
  /// The candidate's bytes are the baseline's (the evaluator knows its baseline): whatever the
  /// timings say, such a candidate is not faster, and no goal of being faster holds on it.
  bool identical_to_baseline = false;

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
/// A noise that was not measured counts as 0; NaN when neither was measured.
inline double speedup_relative_error(const ScenarioResult& s) {
  const bool c = std::isfinite(s.candidate_noise) && s.candidate_noise >= 0;
  const bool b = std::isfinite(s.baseline_noise) && s.baseline_noise >= 0;
  if (!c && !b) return detail::nan;
  const double sc = c ? s.candidate_noise : 0, sb = b ? s.baseline_noise : 0;
  const double n = std::max(1, s.samples);
  return 1.2533 * std::sqrt(sc * sc + sb * sb) / std::sqrt(n);
}

/// @brief The lower confidence bound of a scenario's speedup: speedup * exp(-z * e), with e from
/// speedup_relative_error(). A goal on speedups holds on this bound, not on the point estimate,
/// so that noise alone cannot pass it. When no noise was measured the bound is the point
/// estimate; NaN when the speedup is.
inline double speedup_lower_bound(const ScenarioResult& s, double z = default_speedup_z) {
  if (!std::isfinite(s.speedup)) return detail::nan;
  const double e = speedup_relative_error(s);
  return std::isfinite(e) ? s.speedup * std::exp(-z * e) : s.speedup;
}

inline double EvalReport::geomean_speedup_lower_bound(double z) const {
  const double g = geomean_speedup();
  if (!std::isfinite(g)) return detail::nan;
  double sum_sq = 0;
  for (const auto& id : expected) {
    const double e = speedup_relative_error(*find(id));
    if (std::isfinite(e)) sum_sq += e * e;
  }
  return g * std::exp(-z * std::sqrt(sum_sq) / static_cast<double>(expected.size()));
}

inline void to_json(json& j, const ScenarioResult& r) {
  j = json{{"id", r.id},
           {"correct", r.correct},
           {"reason", r.reason},
           {"max_abs_error", r.max_abs_error},
           {"rel_l2_error", r.rel_l2_error},
           {"baseline_max_abs_error", r.baseline_max_abs_error},
           {"tolerance", r.tolerance},
           {"candidate_ms", r.candidate_ms},
           {"baseline_ms", r.baseline_ms},
           {"candidate_noise", r.candidate_noise},
           {"baseline_noise", r.baseline_noise},
           {"samples", r.samples},
           {"speedup", r.speedup},
           {"tflops", r.tflops},
           {"roofline_ms", r.roofline_ms},
           {"roofline_fraction", r.roofline_fraction},
           {"sm_clock_mhz", r.sm_clock_mhz},
           {"flags", r.flags}};
}

inline void from_json(const json& j, ScenarioResult& r) {
  r.id = required<std::string>(j, "id", "scenario result");
  r.correct = required<bool>(j, "correct", "scenario result \"" + r.id + "\"");
  r.reason = optional_field<std::string>(j, "reason", "");
  r.max_abs_error = number_or_nan(j, "max_abs_error");
  r.rel_l2_error = number_or_nan(j, "rel_l2_error");
  r.baseline_max_abs_error = number_or_nan(j, "baseline_max_abs_error");
  r.tolerance = number_or_nan(j, "tolerance");
  r.candidate_ms = number_or_nan(j, "candidate_ms");
  r.baseline_ms = number_or_nan(j, "baseline_ms");
  r.candidate_noise = number_or_nan(j, "candidate_noise");
  r.baseline_noise = number_or_nan(j, "baseline_noise");
  r.samples = optional_field<int>(j, "samples", 0);
  r.speedup = number_or_nan(j, "speedup");
  r.tflops = number_or_nan(j, "tflops");
  r.roofline_ms = number_or_nan(j, "roofline_ms");
  r.roofline_fraction = number_or_nan(j, "roofline_fraction");
  r.sm_clock_mhz = number_or_nan(j, "sm_clock_mhz");
  r.flags = optional_field<std::vector<std::string>>(j, "flags", {});
}

inline void to_json(json& j, const BannedFinding& f) {
  j = json{{"file", f.file}, {"library", f.library}, {"evidence", f.evidence}};
}
inline void from_json(const json& j, BannedFinding& f) {
  f.file = optional_field<std::string>(j, "file", "");
  f.library = required<std::string>(j, "library", "banned finding");
  f.evidence = optional_field<std::string>(j, "evidence", "");
}

inline void to_json(json& j, const EvalTimings& t) {
  j = json{{"build_s", t.build_s}, {"check_s", t.check_s}, {"timing_s", t.timing_s},
           {"total_s", t.total_s}, {"build_cached", t.build_cached}};
}
inline void from_json(const json& j, EvalTimings& t) {
  t.build_s = optional_field<double>(j, "build_s", 0);
  t.check_s = optional_field<double>(j, "check_s", 0);
  t.timing_s = optional_field<double>(j, "timing_s", 0);
  t.total_s = optional_field<double>(j, "total_s", 0);
  t.build_cached = optional_field<bool>(j, "build_cached", false);
}

inline void to_json(json& j, const EvalReport& r) {
  j = json{{"schema_version", schema_version},
           {"problem", r.problem},
           {"scenario_set", r.scenario_set},
           {"candidate", r.candidate},
           {"gpu", r.gpu},
           {"arch", r.arch},
           {"built", r.built},
           {"build_log", r.build_log},
           {"error", r.error},
           {"expected", r.expected},
           {"scenarios", r.scenarios},
           {"banned", r.banned},
           {"timings", r.timings},
           {"identical_to_baseline", r.identical_to_baseline},
           // Derived, written for readers in other languages; recomputed on read.
           {"all_correct", r.all_correct()},
           {"geomean_speedup", r.geomean_speedup()}};
  if (!r.judge_modified.empty()) j["judge_modified"] = r.judge_modified;
}

inline void from_json(const json& j, EvalReport& r) {
  check_schema_version(j, "report");
  r.problem = optional_field<std::string>(j, "problem", "");
  r.scenario_set = optional_field<std::string>(j, "scenario_set", "");
  r.candidate = optional_field<Candidate>(j, "candidate", {});
  r.gpu = optional_field<std::string>(j, "gpu", "");
  r.arch = optional_field<std::string>(j, "arch", "");
  r.built = required<bool>(j, "built", "report");
  r.build_log = optional_field<std::string>(j, "build_log", "");
  r.error = optional_field<std::string>(j, "error", "");
  r.expected = required<std::vector<std::string>>(j, "expected", "report");
  r.scenarios = optional_field<std::vector<ScenarioResult>>(j, "scenarios", {});
  r.banned = optional_field<std::vector<BannedFinding>>(j, "banned", {});
  r.timings = optional_field<EvalTimings>(j, "timings", {});
  r.identical_to_baseline = optional_field<bool>(j, "identical_to_baseline", false, "report");
  r.judge_modified = optional_field<std::vector<std::string>>(j, "judge_modified", {});
}

}  // namespace socratic
