#pragma once
/// @file
/// @brief The five reference trigger detectors and default_detectors().
///
/// Each detector is a small type whose thresholds are public config members, documented where
/// they are declared. Every event carries its evidence in words (`evidence`) and in numbers
/// (`details`); `details.prefer_tags` names bank tags that fit the finding (the question source
/// prefers entries with them). docs/question-bank.md tabulates the thresholds.

#include <cmath>
#include <cstdio>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "socratic/core/campaign_state.hpp"
#include "socratic/core/question.hpp"
#include "socratic/core/verdict.hpp"
#include "socratic/core/detail/separate_compilation.hpp"
#include "socratic/questions/anchors.hpp"
#include "socratic/questions/claim_classifier.hpp"
#include "socratic/questions/detail/phrase_matcher.hpp"
#include "socratic/questions/detection.hpp"
#include "socratic/questions/detector.hpp"
#include "socratic/questions/improvement.hpp"

namespace socratic {

namespace detail::detectors {

/// A number with a few significant digits, for evidence text.
SOCRATIC_DECL std::string num(double v, int digits = 3);

/// The first unmet condition of a verdict, in words, with a count of the others.
SOCRATIC_DECL std::string unmet_summary(const Verdict* verdict);

}  // namespace detail::detectors

// ---- 1. start ---------------------------------------------------------------------------------

/// @brief Fires once, at the campaign's start (priority 0).
class StartDetector : public TriggerDetector {
 public:
  std::string name() const override { return "start"; }
  std::optional<TriggerEvent> detect(const DetectionContext& c) override {
    if (c.moment != Moment::campaign_start) return std::nullopt;
    TriggerEvent e{Trigger::start, name(), "the campaign's first turn", 0, json::object()};
    if (!c.state.campaign_id.empty()) e.details["campaign_id"] = c.state.campaign_id;
    return e;
  }
};

// ---- 2. plateau -------------------------------------------------------------------------------

/// @brief Thresholds of PlateauDetector.
struct PlateauConfig {
  /// K: fire after this many evaluations in a row that did not improve the best score beyond
  /// noise (again after 2K, 3K, ...). Values under `min_evaluations` are raised to it.
  int window_evaluations = 4;
  /// T: also fire when this many minutes passed since the last improvement (again after 2T, ...);
  /// 0 turns the time window off.
  double window_minutes = 30;
  /// Never fire with fewer evaluations since the last improvement, whatever the time: a single
  /// flat step is no plateau.
  int min_evaluations = 2;
  /// What counts as an improvement (noise-aware; see improvement.hpp).
  ImprovementRule rule;
};

/// @brief Fires when the best score has not improved beyond the measured noise over the last K
/// evaluations or T minutes (priority 20).
///
/// The incumbent is the last evaluation that improved on its predecessor incumbent by the
/// ImprovementRule; scores above it only within noise do not reset the count. After an
/// evaluation, the detector fires when the count (or the time) crosses a multiple of K (or T),
/// so a long plateau is reported once per window, not at every evaluation. At a turn end it
/// fires whenever the plateau holds, so that the stop is asked about as a plateau. Failed
/// evaluations count as attempts. Without any scored evaluation there is no best to stall.
class PlateauDetector : public TriggerDetector {
 public:
  PlateauConfig config;
  explicit PlateauDetector(PlateauConfig cfg = {}) : config(cfg) {}
  std::string name() const override { return "plateau"; }

  std::optional<TriggerEvent> detect(const DetectionContext& c) override {
    if (c.moment == Moment::campaign_start) return std::nullopt;
    const auto& evals = c.state.evaluations;
    const auto incumbents = significant_improvements(evals, config.rule);
    if (incumbents.empty()) return std::nullopt;
    const std::size_t inc = incumbents.back();
    const int since = static_cast<int>(evals.size() - 1 - inc);
    const int k = std::max(config.window_evaluations, std::max(config.min_evaluations, 2));
    const double window_s = config.window_minutes * 60;

    auto level = [&](int n, double seconds) {
      if (n < std::max(config.min_evaluations, 2)) return 0;
      int l = n / k;
      if (window_s > 0) l = std::max(l, static_cast<int>(seconds / window_s));
      return l;
    };
    double seconds = 0;
    if (c.moment == Moment::after_evaluation) {
      if (since == 0) return std::nullopt;
      seconds = evals.back().elapsed_s - evals[inc].elapsed_s;
      const double prev_seconds = evals[evals.size() - 2].elapsed_s - evals[inc].elapsed_s;
      if (level(since, seconds) <= level(since - 1, prev_seconds)) return std::nullopt;
    } else {  // turn_end
      seconds = c.state.elapsed_s - evals[inc].elapsed_s;
      if (level(since, seconds) == 0) return std::nullopt;
    }

    const auto& best = evals[inc];
    const double margin = config.rule.margin(best, &best);
    double best_since = std::nan("");
    for (std::size_t i = inc + 1; i < evals.size(); ++i) {
      const double s = evals[i].score();
      if (std::isfinite(s) && !(s <= best_since)) best_since = s;
    }
    using detail::detectors::num;
    std::string evidence = "best score " + num(best.score()) + "x (evaluation #" +
                           std::to_string(best.index) + ") not improved by more than " +
                           num(margin * 100, 2) + "% over the last " + std::to_string(since) +
                           " evaluations and " + num(seconds / 60, 3) + " minutes";
    if (std::isfinite(best_since)) evidence += "; best since: " + num(best_since) + "x";
    TriggerEvent e{Trigger::plateau, name(), evidence, 20, json::object()};
    e.details = {{"incumbent_evaluation", best.index},
                 {"best_score", best.score()},
                 {"evaluations_since", since},
                 {"minutes_since", seconds / 60},
                 {"margin", margin},
                 {"window_evaluations", k},
                 {"window_minutes", config.window_minutes}};
    if (std::isfinite(best_since)) e.details["best_score_since"] = best_since;
    return e;
  }
};

// ---- 3. claimed limit or completion -----------------------------------------------------------

/// @brief Thresholds of ClaimedLimitDetector.
struct ClaimedLimitConfig {
  int claim_priority = 30;         ///< an explicit claim of a limit or of completion
  int plain_stop_priority = 10;    ///< a stop without the goal and without a claim
  bool report_plain_stop = true;   ///< fire on plain stops too (the campaign does it otherwise)
};

/// @brief At a turn end without the goal met: fires with the claim the classifier found
/// (priority 30, `details.claim` = limit or completion, `prefer_tags` = that kind), or as a plain
/// stop (priority 10). Silent when the verdict says the goal is met: the predicate decides.
class ClaimedLimitDetector : public TriggerDetector {
 public:
  ClaimedLimitConfig config;
  explicit ClaimedLimitDetector(std::shared_ptr<const ClaimClassifier> classifier =
                                    std::make_shared<RuleBasedClaimClassifier>(),
                                ClaimedLimitConfig cfg = {})
      : config(cfg), classifier_(std::move(classifier)) {}
  std::string name() const override { return "claimed_limit"; }
  const ClaimClassifier& classifier() const { return *classifier_; }

  std::optional<TriggerEvent> detect(const DetectionContext& c) override {
    if (c.moment != Moment::turn_end) return std::nullopt;
    if (c.verdict && c.verdict->met) return std::nullopt;
    const std::string unmet = detail::detectors::unmet_summary(c.verdict);
    const int unmet_count = c.verdict ? static_cast<int>(c.verdict->unmet.size()) : -1;
    if (auto claim = classifier_ ? classifier_->classify(c.agent_message) : std::nullopt) {
      const std::string kind(to_string(claim->kind));
      TriggerEvent e{Trigger::claimed_limit, name(),
                     "the agent stopped claiming " + std::string(claim->kind == ClaimKind::limit ? "a limit" : "completion") +
                         " (\"" + claim->phrase + "\") while " + unmet,
                     config.claim_priority, json::object()};
      e.details = {{"claim", kind}, {"phrase", claim->phrase}, {"rule", claim->rule},
                   {"unmet", unmet_count}, {"prefer_tags", json::array({kind})}};
      return e;
    }
    if (!config.report_plain_stop) return std::nullopt;
    TriggerEvent e{Trigger::claimed_limit, name(), "the agent stopped while " + unmet,
                   config.plain_stop_priority, json::object()};
    e.details = {{"claim", "none"}, {"unmet", unmet_count}};
    return e;
  }

 private:
  std::shared_ptr<const ClaimClassifier> classifier_;
};

// ---- 4. suspicious gain -----------------------------------------------------------------------

/// @brief Thresholds of SuspiciousGainDetector.
struct SuspiciousGainConfig {
  /// The new score is at least this factor over the previous best score.
  double jump_factor = 1.5;
  /// One scenario's speedup is at least this factor over its speedup in the previous best
  /// evaluation (a single shape cheating hides in a geometric mean).
  double scenario_jump_factor = 3.0;
  /// A correct scenario reaches this fraction of its roofline (roofline_ms / candidate_ms) for
  /// the first time in the campaign. At 1 or above (time at or under the physical floor) it
  /// fires every time.
  double roofline_fraction = 0.9;
  /// Report flags that always make a gain suspicious.
  std::vector<std::string> suspicious_flags = {"below_roofline", "side_stream"};
  /// Best known TFLOP/s per scenario; none: no anchor check.
  std::optional<AnchorTable> anchors;
  /// A scenario's TFLOP/s above anchor * this margin is implausible.
  double anchor_margin = 1.15;
};

/// @brief After an evaluation: fires when its gain is too good to trust (priority 40): a jump
/// over the previous best (the baseline's 1x when there is none yet), a scenario at or under its roofline, a flag such as a side stream,
/// or a throughput past the best known anchors. Only correct scenarios are considered: a wrong
/// answer is a correctness failure, not a gain.
class SuspiciousGainDetector : public TriggerDetector {
 public:
  SuspiciousGainConfig config;
  explicit SuspiciousGainDetector(SuspiciousGainConfig cfg = {}) : config(std::move(cfg)) {}
  std::string name() const override { return "suspicious_gain"; }

  std::optional<TriggerEvent> detect(const DetectionContext& c) override {
    if (c.moment != Moment::after_evaluation || c.state.evaluations.empty()) return std::nullopt;
    using detail::detectors::num;
    const auto& evals = c.state.evaluations;
    const auto& last = evals.back();
    const EvaluationRecord* prev_best = nullptr;
    for (std::size_t i = 0; i + 1 < evals.size(); ++i)
      if (std::isfinite(evals[i].score()) && (!prev_best || evals[i].score() > prev_best->score()))
        prev_best = &evals[i];

    std::vector<std::string> reasons;
    std::set<std::string> tags;
    json found = json::array();
    const double score = last.score();
    // Before any correct evaluation the baseline itself is the best there is (speedup 1): a first
    // candidate at twice the baseline is as suspicious as a later jump of the same size.
    const double before_score = prev_best ? prev_best->score() : 1.0;
    const std::string before_name =
        prev_best ? "the previous best " + num(before_score) + "x (evaluation #" + std::to_string(prev_best->index) + ")"
                  : std::string("the baseline (no earlier correct evaluation)");
    if (std::isfinite(score) && score >= before_score * config.jump_factor) {
      reasons.push_back("score " + num(score) + "x is " + num(score / before_score) + " times " + before_name);
      found.push_back({{"kind", "jump"}, {"score", score}, {"previous_best", before_score}});
      tags.insert({"timing", "cheat"});
    }
    for (const auto& s : last.report.scenarios) {
      if (!s.correct) continue;
      const ScenarioResult* before_result = prev_best ? prev_best->report.find(s.id) : nullptr;
      const double before = prev_best ? (before_result ? before_result->speedup : NAN) : 1.0;
      if (std::isfinite(before) && before > 0 && std::isfinite(s.speedup) &&
          s.speedup >= before * config.scenario_jump_factor) {
        reasons.push_back(s.id + " speedup " + num(s.speedup) + "x is " + num(s.speedup / before) + " times its " +
                          num(before) + "x in " +
                          (prev_best ? "evaluation #" + std::to_string(prev_best->index) : std::string("the baseline")));
        found.push_back({{"kind", "scenario_jump"}, {"scenario", s.id}, {"speedup", s.speedup}, {"previous", before}});
        tags.insert("cheat");
      }
      for (const auto& flag : config.suspicious_flags)
        if (s.has_flag(flag)) {
          reasons.push_back(s.id + " is flagged " + flag);
          found.push_back({{"kind", "flag"}, {"scenario", s.id}, {"flag", flag}});
          tags.insert(flag == "side_stream" ? "timing" : "roofline");
        }
      if (std::isfinite(s.roofline_fraction) && s.roofline_fraction >= config.roofline_fraction &&
          (s.roofline_fraction >= 1 || first_time_near_roofline(evals, s.id))) {
        reasons.push_back(s.id + " runs at " + num(s.roofline_fraction) + " of its roofline (" +
                          num(s.candidate_ms) + " ms against a floor of " + num(s.roofline_ms) + " ms)");
        found.push_back({{"kind", "roofline"}, {"scenario", s.id}, {"roofline_fraction", s.roofline_fraction}});
        tags.insert("roofline");
      }
      if (config.anchors && std::isfinite(s.tflops))
        if (auto anchor = config.anchors->find(s.id); anchor && s.tflops > *anchor * config.anchor_margin) {
          reasons.push_back(s.id + " reaches " + num(s.tflops) + " TFLOP/s, " + num(s.tflops / *anchor) +
                            " times the best known " + num(*anchor));
          found.push_back({{"kind", "anchor"}, {"scenario", s.id}, {"tflops", s.tflops}, {"anchor", *anchor}});
          tags.insert("roofline");
        }
    }
    if (reasons.empty()) return std::nullopt;
    std::string evidence = "evaluation #" + std::to_string(last.index) + ": ";
    for (std::size_t i = 0; i < reasons.size() && i < 3; ++i) evidence += (i ? "; " : "") + reasons[i];
    if (reasons.size() > 3) evidence += "; and " + std::to_string(reasons.size() - 3) + " more";
    TriggerEvent e{Trigger::suspicious_gain, name(), evidence, 40, json::object()};
    e.details = {{"evaluation", last.index}, {"findings", found},
                 {"prefer_tags", std::vector<std::string>(tags.begin(), tags.end())}};
    return e;
  }

 private:
  bool first_time_near_roofline(const std::vector<EvaluationRecord>& evals, const std::string& id) const {
    for (std::size_t i = 0; i + 1 < evals.size(); ++i)
      if (const ScenarioResult* r = evals[i].report.find(id);
          r && r->correct && std::isfinite(r->roofline_fraction) && r->roofline_fraction >= config.roofline_fraction)
        return false;
    return true;
  }
};

// ---- 5. correctness explained away ------------------------------------------------------------

/// @brief Phrases of ExplainedAwayDetector. Each label is also the bank tag preferred when it
/// matches.
struct ExplainedAwayConfig {
  /// Phrases that explain a failure away instead of fixing it.
  std::vector<detail::Phrase> rationalisations = {
      {"tolerance", R"(\b(just|slightly|barely|marginally|a bit|only) (outside|above|over|beyond|exceeds?|exceeding|past) (the )?(tolerances?|threshold|limit)\b)"},
      {"tolerance", R"(\b(tolerances?|threshold|check|test) (is|are|seems?|looks?) (too )?(strict|tight|harsh|conservative|pedantic)\b)"},
      {"tolerance", R"(\b(acceptable|tolerable|negligible|insignificant|harmless|benign|immaterial)\b)"},
      {"tolerance", R"(\b(numerical|numeric|floating[- ]point|rounding|precision|bf16|fp16) (noise|error|errors|differences?|artifacts?|issues?|jitter)\b)"},
      {"tolerance", R"(\bwithin (the )?(noise|expected error|rounding|bf16 precision|precision)\b)"},
      {"tolerance", R"(\b(close enough|good enough|minor (difference|discrepancy|mismatch|deviation)s?)\b)"},
      {"flaky", R"(\b(flaky|flakiness|intermittent|sporadic|non-?deterministic|random (failure|fluctuation)s?|just noise|measurement noise)\b)"},
      {"edge-case", R"(\b(edge|corner|rare|degenerate|pathological) cases?\b)"},
      {"tolerance", R"(\b(false positive|can be ignored|safe to ignore|not a real (bug|problem|issue|error)|not a (correctness|real) (issue|problem))\b)"},
      {"tolerance", R"(\b(reference|baseline|harness|checker|test) (itself )?(is|was|might be|may be|could be) (wrong|buggy|incorrect|broken|inaccurate)\b)"},
  };
  /// Phrases that move the goalposts: change the tolerance or the check.
  std::vector<detail::Phrase> tolerance_changes = {
      {"tolerance", R"(\b(raise|raising|increase|increasing|relax|relaxing|loosen|loosening|widen|widening|bump|bumping|adjust|adjusting|change|changing|double|doubling) (the )?(atol|rtol|tolerances?|thresholds?|error bound)\b)"},
      {"tolerance", R"(\b(atol|rtol|tolerance) (of|to|=) ?[0-9])"},
      {"tolerance", R"(\b(skip|skipping|disable|disabling|remove|removing|drop|dropping) (the )?(failing )?(check|checks|scenario|scenarios|test|tests)\b)"},
  };
  /// Fire also when the agent stops with a failing evaluation and says nothing about it.
  bool fire_on_silent_stop = true;
  int priority = 50;
};

/// @brief At a turn end, when the last evaluation built but failed a scenario (wrong, missing or
/// crashed): fires (priority 50) when the agent's message rationalises the failure, proposes to
/// change the tolerance or the check, or (by default) simply stops with the failure in place.
/// Silent when the last evaluation is correct, whatever the message says, and on build failures.
class ExplainedAwayDetector : public TriggerDetector {
 public:
  ExplainedAwayConfig config;
  explicit ExplainedAwayDetector(ExplainedAwayConfig cfg = {}) : config(std::move(cfg)) {}
  std::string name() const override { return "correctness_explained_away"; }

  std::optional<TriggerEvent> detect(const DetectionContext& c) override {
    if (c.moment != Moment::turn_end) return std::nullopt;
    const EvaluationRecord* last = c.state.last_evaluation();
    if (!last || !last->report.built) return std::nullopt;
    using detail::detectors::num;
    std::vector<std::string> failed;
    json failed_json = json::array();
    for (const auto& s : last->report.scenarios)
      if (!s.correct) {
        std::string d = s.id;
        if (std::isfinite(s.max_abs_error))
          d += " (max_abs_error " + num(s.max_abs_error) + ", tolerance " + num(s.tolerance) + ")";
        else if (!s.reason.empty())
          d += " (" + s.reason.substr(0, 80) + ")";
        failed.push_back(d);
        failed_json.push_back(s.id);
      }
    for (const auto& id : last->report.missing()) {
      failed.push_back(id + " (missing)");
      failed_json.push_back(id);
    }
    if (failed.empty() && last->report.error.empty()) return std::nullopt;
    if (failed.empty()) failed.push_back("harness error: " + last->report.error.substr(0, 80));

    std::string kind, phrase, tag;
    if (auto m = detail::find_phrases(c.agent_message, config.tolerance_changes, 1); !m.empty()) {
      kind = "tolerance_change";
      phrase = m.front().text;
      tag = m.front().label;
    } else if (auto r = detail::find_phrases(c.agent_message, config.rationalisations, 1); !r.empty()) {
      kind = "rationalised";
      phrase = r.front().text;
      tag = r.front().label;
    } else if (config.fire_on_silent_stop) {
      kind = "stopped_with_failure";
    } else {
      return std::nullopt;
    }
    std::string evidence = "evaluation #" + std::to_string(last->index) + " failed " +
                           std::to_string(failed.size()) + " scenario(s): ";
    for (std::size_t i = 0; i < failed.size() && i < 3; ++i) evidence += (i ? ", " : "") + failed[i];
    if (failed.size() > 3) evidence += ", ...";
    if (kind == "tolerance_change")
      evidence += "; the agent proposes to change the check: \"" + phrase + "\"";
    else if (kind == "rationalised")
      evidence += "; the agent explains it away: \"" + phrase + "\"";
    else
      evidence += "; the agent stopped without fixing it";
    TriggerEvent e{Trigger::correctness_explained_away, name(), evidence, config.priority, json::object()};
    e.details = {{"kind", kind}, {"evaluation", last->index}, {"failed", failed_json}};
    if (!phrase.empty()) e.details["phrase"] = phrase;
    if (!tag.empty()) e.details["prefer_tags"] = json::array({tag});
    return e;
  }
};

// ---- all five ---------------------------------------------------------------------------------

/// @brief The five reference detectors with default thresholds, in priority order of the
/// triggers they serve. Pass `anchors` to enable the suspicious-gain anchor check.
SOCRATIC_DECL std::vector<std::shared_ptr<TriggerDetector>> default_detectors(std::optional<AnchorTable> anchors = std::nullopt);

}  // namespace socratic

#ifndef SOCRATIC_SEPARATE_COMPILATION
#include "socratic/questions/impl/detectors.ipp"
#endif
