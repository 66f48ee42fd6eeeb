#pragma once
/// @file
/// @brief The gate: whether a candidate becomes the incumbent. A pure, deterministic rule over
/// figures measured with the candidate and the incumbent interleaved in one run (the incumbent
/// is that run's baseline, so a scenario's `speedup` is candidate vs incumbent), never against a
/// remembered number; and GateRunner, which asks for those runs and measures again, in another
/// run with other placements, a gain too large to trust. The rule, its thresholds and its
/// false-admission rate: docs/gate.md.
///
/// @par The rule
/// A candidate is admitted when every measurement of it (the first and each remeasure):
/// 1. is built, without harness error, judge change or missing scenario, correct on every
///    scenario, and clean of banned libraries (else `failed`);
/// 2. is not the incumbent's own bytes;
/// 3. shows, on the goal's terms (the geometric mean of the speedups, or every scenario), a
///    speedup G over the incumbent with G > 1 + m and a lower confidence bound L > 1, where
///    m = max(min_gain, noise_multiple * noise) (noise: the run's measured relative spread,
///    questions/improvement.hpp's score_noise) and L = G * exp(-z * e) (e: the standard error
///    from the samples, core/report.hpp). Else `refused`.
/// A first measurement with G >= suspicious_factor, or a suspicious flag on a scenario, needs
/// `remeasures` more runs before it is admitted; each of them must pass 1-3 as well.
///
/// @par The gray zone
/// A first measurement that is correct and clean, with G > 1 + min_gain and L > 1 but G not past
/// 1 + m, may be a real gain that one run cannot show apart from the run-to-run variation. It is
/// measured again, `pool_runs` runs in all, each with its own seed, and admitted only when the
/// pooled runs pass: their geometric-mean G_r > 1 + max(min_gain, noise_multiple * noise /
/// sqrt(r)), and the bound from the runs' own spread, exp(mean log G - t * sd / sqrt(r)) with t
/// Student's quantile at `pool_confidence` on r - 1 degrees of freedom, above 1.

#include <cmath>
#include <cstdint>
#include <functional>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "socratic/core/candidate.hpp"
#include "socratic/core/json.hpp"
#include "socratic/core/report.hpp"
#include "socratic/core/detail/student_t.hpp"
#include "socratic/store/store_record.hpp"

namespace socratic {

/// @brief On which terms a candidate must be faster.
enum class GateTerms {
  geomean,        ///< the geometric mean of the speedups over every scenario
  every_scenario  ///< each scenario by itself
};

/// @brief The gate's thresholds (docs/gate.md gives their reasons and the false-admission rate).
struct GateConfig {
  GateTerms terms = GateTerms::geomean;
  /// Standard errors the lower bound lies below the estimate: 3 is about 0.13 % one-sided for
  /// normal errors (the engine's goals use 2; the gate admits for good, so it asks more).
  double z = 3.0;
  /// Noise widths a gain must exceed (questions/improvement.hpp's ImprovementRule uses 2).
  double noise_multiple = 2.0;
  /// The smallest relative gain ever admitted, whatever the noise says (1 %).
  double min_gain = 0.01;
  /// Noise assumed for a run that measured none.
  double default_noise = 0.01;
  /// A first measurement this much faster than the incumbent is measured again before it is
  /// admitted (SuspiciousGainDetector's jump_factor).
  double suspicious_factor = 1.5;
  /// Scenario flags that make any gain suspicious (SuspiciousGainDetector's).
  std::vector<std::string> suspicious_flags = {"below_roofline", "side_stream"};
  /// How many more runs a suspicious gain needs, each one passing.
  int remeasures = 1;
  /// Runs pooled for a first measurement in the gray zone (a gain past min_gain and L > 1, but
  /// not past 1 + m); 1 or less: no pooling, such a gain is refused on its one run.
  int pool_runs = 4;
  /// One-sided confidence of the pooled runs' bound from their own spread (Student's t).
  double pool_confidence = 0.95;
  /// With no incumbent yet, a correct and clean candidate is admitted as the first one.
  bool admit_first_when_correct = true;
};

inline void to_json(json& j, const GateConfig& c) {
  j = json{{"terms", c.terms == GateTerms::geomean ? "geomean" : "every_scenario"},
           {"z", c.z},
           {"noise_multiple", c.noise_multiple},
           {"min_gain", c.min_gain},
           {"default_noise", c.default_noise},
           {"suspicious_factor", c.suspicious_factor},
           {"suspicious_flags", c.suspicious_flags},
           {"remeasures", c.remeasures},
           {"pool_runs", c.pool_runs},
           {"pool_confidence", c.pool_confidence},
           {"admit_first_when_correct", c.admit_first_when_correct}};
}
inline void from_json(const json& j, GateConfig& c) {
  reject_unknown_fields(j, {"terms", "z", "noise_multiple", "min_gain", "default_noise", "suspicious_factor",
                            "suspicious_flags", "remeasures", "pool_runs", "pool_confidence",
                            "admit_first_when_correct"}, "gate");
  const std::string terms = optional_field<std::string>(j, "terms", "geomean", "gate");
  if (terms == "geomean")
    c.terms = GateTerms::geomean;
  else if (terms == "every_scenario")
    c.terms = GateTerms::every_scenario;
  else
    throw input_error({}, "gate", "field \"terms\": \"" + terms + "\" is neither geomean nor every_scenario");
  c.z = optional_field<double>(j, "z", c.z, "gate");
  c.noise_multiple = optional_field<double>(j, "noise_multiple", c.noise_multiple, "gate");
  c.min_gain = optional_field<double>(j, "min_gain", c.min_gain, "gate");
  c.default_noise = optional_field<double>(j, "default_noise", c.default_noise, "gate");
  c.suspicious_factor = optional_field<double>(j, "suspicious_factor", c.suspicious_factor, "gate");
  c.suspicious_flags = optional_field<std::vector<std::string>>(j, "suspicious_flags", c.suspicious_flags, "gate");
  c.remeasures = optional_field<int>(j, "remeasures", c.remeasures, "gate");
  c.pool_runs = optional_field<int>(j, "pool_runs", c.pool_runs, "gate");
  c.pool_confidence = optional_field<double>(j, "pool_confidence", c.pool_confidence, "gate");
  c.admit_first_when_correct = optional_field<bool>(j, "admit_first_when_correct", c.admit_first_when_correct, "gate");
  if (!(c.z >= 0) || !(c.noise_multiple >= 0) || !(c.min_gain >= 0) || !(c.default_noise >= 0))
    throw input_error({}, "gate", "z, noise_multiple, min_gain and default_noise must be >= 0");
  if (!(c.suspicious_factor > 1)) throw input_error({}, "gate", "field \"suspicious_factor\": must be > 1");
  if (c.remeasures < 0) throw input_error({}, "gate", "field \"remeasures\": must be >= 0");
  if (c.pool_runs < 0 || c.pool_runs > 64) throw input_error({}, "gate", "field \"pool_runs\": must be 0 to 64");
  if (!(c.pool_confidence > 0.5 && c.pool_confidence < 1))
    throw input_error({}, "gate", "field \"pool_confidence\": must lie between 0.5 and 1");
}

/// @brief The figures of one measurement, as the gate read them.
struct GateMeasurement {
  bool clean = false;         ///< rule 1 holds
  std::string failure;        ///< why not
  double speedup = detail::nan;      ///< G: on the gate's terms (every_scenario: the smallest)
  double lower_bound = detail::nan;  ///< L
  double noise = detail::nan;        ///< the run's relative spread
  double margin = detail::nan;       ///< m
  bool faster = false;               ///< G > 1 + m and L > 1
  /// Not faster, but G > 1 + min_gain and L > 1: a gain one run cannot tell from the noise.
  bool gray = false;
  bool suspicious = false;
  std::string suspicious_why;
  friend bool operator==(const GateMeasurement&, const GateMeasurement&) = default;
};
inline void to_json(json& j, const GateMeasurement& m) {
  j = json{{"clean", m.clean},     {"failure", m.failure}, {"speedup", m.speedup},  {"lower_bound", m.lower_bound},
           {"noise", m.noise},     {"margin", m.margin},   {"faster", m.faster},    {"gray", m.gray},
           {"suspicious", m.suspicious}, {"suspicious_why", m.suspicious_why}};
}

/// @brief The figures of a gray-zone gain's pooled runs (on the gate's terms; every_scenario:
/// the least speedup and bound of the scenarios and the noisiest one's noise, margin and spread,
/// and `faster` only when every scenario passes).
struct GatePooled {
  int runs = 0;
  double speedup = detail::nan;      ///< G_r: the geometric mean over the runs
  double noise = detail::nan;        ///< the runs' mean relative spread
  double margin = detail::nan;       ///< max(min_gain, noise_multiple * noise / sqrt(runs))
  double run_spread = detail::nan;   ///< the standard deviation of log G between the runs
  double t = detail::nan;            ///< Student's quantile at pool_confidence, runs - 1 df
  double lower_bound = detail::nan;  ///< exp(mean log G - t * run_spread / sqrt(runs))
  bool faster = false;               ///< G_r > 1 + margin and lower_bound > 1
  friend bool operator==(const GatePooled&, const GatePooled&) = default;
};
inline void to_json(json& j, const GatePooled& p) {
  j = json{{"runs", p.runs},   {"speedup", p.speedup}, {"noise", p.noise},         {"margin", p.margin},
           {"run_spread", p.run_spread}, {"t", p.t}, {"lower_bound", p.lower_bound}, {"faster", p.faster}};
}

/// @brief What the rule decided over a candidate's measurements.
struct GateDecision {
  GateOutcome outcome = GateOutcome::failed;
  std::string reason;
  /// The first measurement is a suspicious gain and fewer than `remeasures` more were given:
  /// measure again before deciding (outcome is then `refused`, provisionally).
  bool needs_remeasure = false;
  std::vector<GateMeasurement> measurements;
  /// The pooled figures, when the first measurement was in the gray zone and its runs are in.
  std::optional<GatePooled> pooled;

  /// @brief The figures as the store records them.
  json figures(const GateConfig& config) const {
    json j{{"measurements", measurements}, {"config", config}};
    if (pooled) j["pooled"] = *pooled;
    return j;
  }
  GateRecord record(const GateConfig& config, std::string incumbent) const {
    return GateRecord{outcome, reason, std::move(incumbent), figures(config)};
  }
};

namespace detail::gate {

inline std::string percent(double x) {
  std::ostringstream o;
  o.precision(3);
  o << (x - 1) * 100 << " %";
  return o.str();
}
inline std::string fixed(double x, int digits = 4) {
  std::ostringstream o;
  o.setf(std::ios::fixed);
  o.precision(digits);
  o << x;
  return o.str();
}

inline double scenario_noise(const ScenarioResult& s, double fallback) {
  const bool c = std::isfinite(s.candidate_noise), b = std::isfinite(s.baseline_noise);
  if (!c && !b) return fallback;
  const double cn = c ? s.candidate_noise : 0, bn = b ? s.baseline_noise : 0;
  return std::sqrt(cn * cn + bn * bn);
}

}  // namespace detail::gate

/// @brief Reads one measurement (`report`: the candidate timed with the incumbent as baseline).
inline GateMeasurement measure(const EvalReport& report, const GateConfig& config) {
  using namespace detail::gate;
  GateMeasurement m;
  if (!report.judge_modified.empty())  // no verdict on the candidate, whatever the report's fault says
    m.failure = "not judged (configuration fault): the judge changed since the campaign began: " +
                report.judge_modified.front();
  else if (report.fault != EvalFault::none)  // no verdict on the candidate: its judge (or job) failed
    m.failure = "not judged (" + std::string(to_string(report.fault)) + " fault): " + report.error;
  else if (!report.built && report.build_log.empty() && !report.error.empty())
    m.failure = "harness error: " + report.error;  // no build ran: the judge or its job failed first
  else if (!report.built)
    m.failure = "did not build";
  else if (!report.error.empty())
    m.failure = "harness error: " + report.error;
  else if (report.expected.empty())
    m.failure = "no scenario was judged";
  else if (!report.missing().empty())
    m.failure = "scenario " + report.missing().front() + " has no result";
  else if (!report.banned.empty())
    m.failure = "banned library " + report.banned.front().library + " (" + report.banned.front().evidence + ")";
  else
    for (const auto& id : report.expected)
      if (const ScenarioResult* s = report.find(id); !s->correct) {
        m.failure = "wrong on scenario " + id + (s->reason.empty() ? "" : ": " + s->reason);
        break;
      }
  if (!m.failure.empty()) return m;
  m.clean = true;

  double noise_sum = 0;
  for (const auto& id : report.expected) {
    const ScenarioResult& s = *report.find(id);
    noise_sum += scenario_noise(s, config.default_noise);
    for (const auto& f : config.suspicious_flags)
      if (s.has_flag(f) && !m.suspicious) m.suspicious = true, m.suspicious_why = "scenario " + id + " is flagged " + f;
  }
  m.noise = noise_sum / static_cast<double>(report.expected.size());
  m.margin = std::max(config.min_gain, config.noise_multiple * m.noise);
  if (config.terms == GateTerms::geomean) {
    m.speedup = report.geomean_speedup();
    m.lower_bound = report.geomean_speedup_lower_bound(config.z);
    m.faster = std::isfinite(m.speedup) && std::isfinite(m.lower_bound) && m.speedup > 1 + m.margin && m.lower_bound > 1;
  } else {
    m.faster = true;
    for (const auto& id : report.expected) {
      const ScenarioResult& s = *report.find(id);
      const double margin = std::max(config.min_gain, config.noise_multiple * scenario_noise(s, config.default_noise));
      const double lb = speedup_lower_bound(s, config.z);
      if (!std::isfinite(m.speedup) || s.speedup < m.speedup) m.speedup = s.speedup;
      if (!std::isfinite(m.lower_bound) || lb < m.lower_bound) m.lower_bound = lb;
      if (!(std::isfinite(s.speedup) && s.speedup > 1 + margin && lb > 1)) m.faster = false;
    }
  }
  m.gray = !m.faster && std::isfinite(m.speedup) && std::isfinite(m.lower_bound) && m.speedup > 1 + config.min_gain &&
           m.lower_bound > 1;
  if (std::isfinite(m.speedup) && m.speedup >= config.suspicious_factor && !m.suspicious)
    m.suspicious = true, m.suspicious_why = "a gain of " + percent(m.speedup) + " is past the suspicious factor " + fixed(config.suspicious_factor, 2);
  return m;
}

namespace detail::gate {

/// The pooled test over one series of per-run log speedups and noises.
inline GatePooled pool_series(const std::vector<double>& logs, const std::vector<double>& noises, const GateConfig& config) {
  GatePooled p;
  p.runs = static_cast<int>(logs.size());
  const double r = static_cast<double>(p.runs);
  double mean = 0, noise = 0;
  for (std::size_t i = 0; i < logs.size(); ++i) mean += logs[i], noise += noises[i];
  mean /= r;
  p.noise = noise / r;
  double sq = 0;
  for (double x : logs) sq += (x - mean) * (x - mean);
  p.run_spread = p.runs > 1 ? std::sqrt(sq / (r - 1)) : detail::nan;
  p.speedup = std::exp(mean);
  p.margin = std::max(config.min_gain, config.noise_multiple * p.noise / std::sqrt(r));
  p.t = p.runs > 1 ? detail::student_t_quantile(config.pool_confidence, p.runs - 1) : detail::nan;
  p.lower_bound = std::exp(mean - p.t * p.run_spread / std::sqrt(r));
  p.faster = std::isfinite(p.speedup) && std::isfinite(p.lower_bound) && p.speedup > 1 + p.margin && p.lower_bound > 1;
  return p;
}

/// Pools clean runs on the gate's terms (every_scenario: each scenario's series by itself, the
/// least speedup and bound and the largest noise reported, faster only when every scenario is).
inline GatePooled pool(const std::vector<EvalReport>& reports, const std::vector<GateMeasurement>& measurements,
                       const GateConfig& config) {
  if (config.terms == GateTerms::geomean) {
    std::vector<double> logs, noises;
    for (std::size_t i = 0; i < reports.size(); ++i)
      logs.push_back(std::log(measurements[i].speedup)), noises.push_back(measurements[i].noise);
    return pool_series(logs, noises, config);
  }
  GatePooled least;
  least.faster = true;
  for (const auto& id : reports.front().expected) {
    std::vector<double> logs, noises;
    for (const auto& r : reports) {
      const ScenarioResult& s = *r.find(id);
      logs.push_back(std::log(s.speedup)), noises.push_back(scenario_noise(s, config.default_noise));
    }
    const GatePooled p = pool_series(logs, noises, config);
    if (!(p.speedup >= least.speedup)) least.speedup = p.speedup;
    if (!(p.lower_bound >= least.lower_bound)) least.lower_bound = p.lower_bound;
    if (!(p.noise <= least.noise)) least.noise = p.noise, least.margin = p.margin, least.run_spread = p.run_spread;
    least.runs = p.runs, least.t = p.t;
    least.faster = least.faster && p.faster;
  }
  return least;
}

}  // namespace detail::gate

/// @brief The rule over a candidate's measurements (the first, then its remeasures), each
/// against the incumbent in its own run. `has_incumbent` false: there is none yet, and the
/// reports' baseline is the problem's. `identical_to_incumbent`: the candidate's bytes are the
/// incumbent's. Same inputs, same decision.
inline GateDecision decide(const std::vector<EvalReport>& reports, bool has_incumbent, bool identical_to_incumbent,
                           const GateConfig& config) {
  using namespace detail::gate;
  GateDecision d;
  if (reports.empty()) {
    d.reason = "nothing was measured";
    return d;
  }
  for (const auto& r : reports) d.measurements.push_back(measure(r, config));
  for (std::size_t i = 0; i < d.measurements.size(); ++i)
    if (!d.measurements[i].clean) {
      d.outcome = GateOutcome::failed;
      d.reason = (i == 0 ? std::string() : "remeasure " + std::to_string(i) + ": ") + d.measurements[i].failure;
      return d;
    }
  const GateMeasurement& first = d.measurements.front();
  if (!has_incumbent) {
    d.outcome = config.admit_first_when_correct ? GateOutcome::admitted : GateOutcome::refused;
    d.reason = config.admit_first_when_correct ? "the first correct and clean candidate: the incumbent to beat"
                                               : "no incumbent, and the first candidate is not admitted by itself";
    return d;
  }
  if (identical_to_incumbent) {
    d.outcome = GateOutcome::refused;
    d.reason = "the incumbent's own bytes";
    return d;
  }
  const int asked = first.suspicious ? config.remeasures : 0;
  if (first.gray && config.pool_runs > 1) {
    const int runs = std::max(config.pool_runs, 1 + asked);
    if (static_cast<int>(d.measurements.size()) < runs) {
      d.outcome = GateOutcome::refused;
      d.needs_remeasure = true;
      d.reason = "a gain of " + percent(first.speedup) + " that one run cannot tell from the noise (needs > " +
                 fixed(1 + first.margin) + "): measured again, " + std::to_string(runs) + " runs pooled";
      return d;
    }
    d.pooled = pool(reports, d.measurements, config);
    const GatePooled& p = *d.pooled;
    const std::string figures = "over " + std::to_string(p.runs) + " runs: speedup " + fixed(p.speedup) +
                                ", lower bound from the runs' spread " + fixed(p.lower_bound) + ", needed > " +
                                fixed(1 + p.margin) + " and a lower bound > 1 (noise " + fixed(p.noise * 100, 2) + " %)";
    d.outcome = p.faster ? GateOutcome::admitted : GateOutcome::refused;
    d.reason = p.faster ? "faster than the incumbent by " + percent(p.speedup) + " " + figures
                        : "pooled speedup within the noise " + figures;
    return d;
  }
  for (std::size_t i = 0; i < d.measurements.size(); ++i) {
    const GateMeasurement& m = d.measurements[i];
    if (m.faster) continue;
    d.outcome = GateOutcome::refused;
    d.reason = (i == 0 ? std::string() : "remeasure " + std::to_string(i) + ": ") + "speedup over the incumbent " +
               fixed(m.speedup) + " (lower bound " + fixed(m.lower_bound) + ") is within the noise: it needs > " +
               fixed(1 + m.margin) + " and a lower bound > 1 (noise " + fixed(m.noise * 100, 2) + " %)";
    return d;
  }
  if (static_cast<int>(d.measurements.size()) - 1 < asked) {
    d.outcome = GateOutcome::refused;
    d.needs_remeasure = true;
    d.reason = "suspicious (" + first.suspicious_why + "): measured again before it is admitted";
    return d;
  }
  d.outcome = GateOutcome::admitted;
  d.reason = "faster than the incumbent by " + percent(first.speedup) + " (lower bound " + fixed(first.lower_bound) +
             ", needed > " + fixed(1 + first.margin) + ")";
  if (d.measurements.size() > 1)
    d.reason += "; confirmed by " + std::to_string(d.measurements.size() - 1) + " more run" +
                (d.measurements.size() > 2 ? "s" : "");
  return d;
}

/// @brief How one gate run is asked for.
struct GateRunRequest {
  int attempt = 0;          ///< 0: the first run; 1, 2, ...: remeasures
  /// A different seed each run, for measures that draw their inputs from it (a command
  /// evaluator); the CUDA measures ignore it: their runner draws a secret key of its own.
  std::uint64_t seed = 0;
};

/// @brief Measures `candidate` with `incumbent` as the run's baseline (none: the problem's own),
/// interleaved in one run. For the CUDA evaluator: a CudaEvaluator whose `baseline` is the
/// incumbent's judged file (store/cuda_gate.hpp).
using PairMeasure =
    std::function<EvalReport(const Candidate& candidate, const std::optional<Candidate>& incumbent, const GateRunRequest& request)>;

/// @brief What GateRunner found: the decision and every report it decided on (the last one is
/// the record's report).
struct GateResult {
  GateDecision decision;
  std::vector<EvalReport> reports;
  GateRecord record(const GateConfig& config, std::string incumbent_id) const {
    return decision.record(config, std::move(incumbent_id));
  }
};

/// @brief Runs the gate: measures, decides, and measures again while a suspicious gain or a
/// gain in the gray zone asks.
class GateRunner {
 public:
  GateRunner(PairMeasure measure, GateConfig config, std::uint64_t base_seed = 0x5eed)
      : measure_(std::move(measure)), config_(std::move(config)), base_seed_(base_seed) {
    if (!measure_) throw error("gate: no measurement function given");
  }
  const GateConfig& config() const noexcept { return config_; }

  /// @brief Judges `candidate` against `incumbent` (none: the first). The seeds derive from
  /// `base_seed` and the candidate's content hash, so the same candidate is measured alike.
  GateResult judge(const Candidate& candidate, const std::optional<Candidate>& incumbent) const {
    GateResult out;
    const bool identical = incumbent && !candidate.content_hash.empty() && candidate.content_hash == incumbent->content_hash;
    // decide() asks for at most max(remeasures + 1, pool_runs) runs; the bound is a backstop.
    const int most = std::max(config_.remeasures + 1, config_.pool_runs);
    for (int attempt = 0;; ++attempt) {
      out.reports.push_back(measure_(candidate, incumbent, GateRunRequest{attempt, seed_for(candidate, attempt)}));
      out.decision = decide(out.reports, incumbent.has_value(), identical, config_);
      if (!out.decision.needs_remeasure || attempt + 1 >= most) break;
    }
    return out;
  }

 private:
  std::uint64_t seed_for(const Candidate& c, int attempt) const {
    std::uint64_t h = base_seed_ ^ 0x9E3779B97F4A7C15ull;
    for (char ch : c.content_hash) h = (h ^ static_cast<unsigned char>(ch)) * 0x100000001B3ull;
    return h + static_cast<std::uint64_t>(attempt) * 0x9E3779B97F4A7C15ull;
  }

  PairMeasure measure_;
  GateConfig config_;
  std::uint64_t base_seed_;
};

}  // namespace socratic
