#pragma once
/// @file
/// @brief Definitions for socratic/core/report.hpp: included there in header-only builds, and by
/// socratic/src.hpp (compiled once) with SOCRATIC_SEPARATE_COMPILATION.

#include "socratic/core/report.hpp"

namespace socratic {

SOCRATIC_DECL double speedup_relative_error(const ScenarioResult& s) {
  const bool c = std::isfinite(s.candidate_noise) && s.candidate_noise >= 0;
  const bool b = std::isfinite(s.baseline_noise) && s.baseline_noise >= 0;
  if (!c && !b) return detail::nan;
  const double sc = c ? s.candidate_noise : 0, sb = b ? s.baseline_noise : 0;
  const double n = std::max(1, s.samples);
  const double within = 1.2533 * std::sqrt(sc * sc + sb * sb) / std::sqrt(n);
  const double between = speedup_systematic_error(s);
  return std::sqrt(within * within + between * between);
}

SOCRATIC_DECL double speedup_systematic_error(const ScenarioResult& s) {
  if (!s.has_flag("short_call")) return 0;
  const double shorter = std::min(s.candidate_ms, s.baseline_ms);
  return std::isfinite(shorter) && shorter >= 0.005 ? 0.015 : 0.03;
}

SOCRATIC_DECL double speedup_lower_bound(const ScenarioResult& s, double z) {
  if (!std::isfinite(s.speedup)) return detail::nan;
  const double e = speedup_relative_error(s);
  return std::isfinite(e) ? s.speedup * std::exp(-z * e) : s.speedup;
}

SOCRATIC_DECL double EvalReport::geomean_speedup_lower_bound(double z) const {
  const double g = geomean_speedup();
  if (!std::isfinite(g)) return detail::nan;
  double sum_sq = 0;
  for (const auto& id : expected) {
    const double e = speedup_relative_error(*find(id));
    if (std::isfinite(e)) sum_sq += e * e;
  }
  return g * std::exp(-z * std::sqrt(sum_sq) / static_cast<double>(expected.size()));
}

SOCRATIC_DECL void to_json(json& j, const ScenarioResult& r) {
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
  // The suite's own score, the host's (the runner writes the members above, in this order).
  if (std::isfinite(r.sol_time_ms)) j["sol_time_ms"] = r.sol_time_ms;
  if (std::isfinite(r.sol_score)) j["sol_score"] = r.sol_score;
}

SOCRATIC_DECL void from_json(const json& j, ScenarioResult& r) {
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
  r.sol_time_ms = number_or_nan(j, "sol_time_ms");
  r.sol_score = number_or_nan(j, "sol_score");
  r.flags = optional_field<std::vector<std::string>>(j, "flags", {});
}

SOCRATIC_DECL void to_json(json& j, const BannedFinding& f) {
  j = json{{"file", f.file}, {"library", f.library}, {"evidence", f.evidence}};
}

SOCRATIC_DECL void from_json(const json& j, BannedFinding& f) {
  f.file = optional_field<std::string>(j, "file", "");
  f.library = required<std::string>(j, "library", "banned finding");
  f.evidence = optional_field<std::string>(j, "evidence", "");
}

SOCRATIC_DECL void to_json(json& j, const EvalTimings& t) {
  j = json{{"build_s", t.build_s}, {"check_s", t.check_s}, {"timing_s", t.timing_s},
           {"total_s", t.total_s}, {"build_cached", t.build_cached}};
}

SOCRATIC_DECL void from_json(const json& j, EvalTimings& t) {
  t.build_s = optional_field<double>(j, "build_s", 0);
  t.check_s = optional_field<double>(j, "check_s", 0);
  t.timing_s = optional_field<double>(j, "timing_s", 0);
  t.total_s = optional_field<double>(j, "total_s", 0);
  t.build_cached = optional_field<bool>(j, "build_cached", false);
}

SOCRATIC_DECL void to_json(json& j, const EvalReport& r) {
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
  if (!r.allowed_libraries.empty()) j["allowed_libraries"] = r.allowed_libraries;
  if (!r.library_policy.empty()) j["library_policy"] = r.library_policy;
  if (!r.judge_modified.empty()) j["judge_modified"] = r.judge_modified;
  if (r.fault != EvalFault::none) j["fault"] = to_string(r.fault);
  if (!r.sol_score_baseline.empty()) {
    // Derived like geomean_speedup: the mean over the workloads with a T_SOL, or why it is absent.
    j["sol_score_baseline"] = r.sol_score_baseline;
    if (!r.sol_score_absent.empty()) j["sol_score"] = "absent", j["sol_score_absent"] = r.sol_score_absent;
    else j["sol_score"] = r.mean_sol_score();
  }
}

SOCRATIC_DECL void from_json(const json& j, EvalReport& r) {
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
  r.allowed_libraries = optional_field<std::vector<BannedFinding>>(j, "allowed_libraries", {});
  r.library_policy = optional_field<std::string>(j, "library_policy", "", "report");
  r.timings = optional_field<EvalTimings>(j, "timings", {});
  r.identical_to_baseline = optional_field<bool>(j, "identical_to_baseline", false, "report");
  r.judge_modified = optional_field<std::vector<std::string>>(j, "judge_modified", {});
  r.sol_score_baseline = optional_field<std::string>(j, "sol_score_baseline", "");
  r.sol_score_absent = optional_field<std::string>(j, "sol_score_absent", "");
  const std::string fault = optional_field<std::string>(j, "fault", "none", "report");
  if (fault == "none")
    r.fault = EvalFault::none;
  else if (fault == "harness")
    r.fault = EvalFault::harness;
  else if (fault == "configuration")
    r.fault = EvalFault::configuration;
  else
    throw input_error({}, "report field \"fault\"", "\"" + fault + "\" is not none, harness or configuration");
}

SOCRATIC_DECL std::string_view to_string(EvalFault f) noexcept {
  switch (f) {
    case EvalFault::none: return "none";
    case EvalFault::harness: return "harness";
    case EvalFault::configuration: return "configuration";
  }
  return "none";
}

}  // namespace socratic
