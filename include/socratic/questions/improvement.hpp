#pragma once
/// @file
/// @brief When a new score counts as an improvement: beyond the measured noise. Shared by the
/// plateau detector and the adaptive mode's credit rule, so both agree on what a gain is.

#include <algorithm>
#include <cmath>
#include <optional>
#include <vector>

#include "socratic/core/campaign_state.hpp"
#include "socratic/core/detail/separate_compilation.hpp"

namespace socratic {

/// @brief Relative noise of an evaluation's score: the mean over its scenarios of
/// sqrt(candidate_noise^2 + baseline_noise^2), the relative spread of a ratio of two medians.
///
/// The mean is not divided by sqrt(scenario count): drift between runs (clocks, temperature) is
/// shared by all scenarios, so averaging does not cancel it. Scenarios without a measured noise
/// are skipped; `fallback` is returned when none has one.
SOCRATIC_DECL double score_noise(const EvaluationRecord& record, double fallback);

/// @brief The rule: `new` improves on `old` when new > old * (1 + margin), with
/// margin = max(min_relative, noise_multiple * max(noise(new), noise(old))).
///
/// Defaults: twice the measured noise, and never less than 0.5 %; an evaluation that reports no
/// noise is assumed to have 1 %.
struct ImprovementRule {
  double noise_multiple = 2.0;  ///< how many noise widths a gain must exceed
  double min_relative = 0.005;  ///< the smallest relative gain that ever counts
  double default_noise = 0.01;  ///< assumed noise of an evaluation that reports none

  /// @brief The relative margin between two evaluations (`old_record` may be null: the baseline).
  double margin(const EvaluationRecord& new_record, const EvaluationRecord* old_record) const {
    double noise = score_noise(new_record, default_noise);
    if (old_record) noise = std::max(noise, score_noise(*old_record, default_noise));
    return std::max(min_relative, noise_multiple * noise);
  }
  /// @brief Whether `new_record` improves on `old_score` (measured by `old_record`, or the
  /// baseline's parity 1.0 when `old_record` is null).
  bool improves(const EvaluationRecord& new_record, double old_score,
                const EvaluationRecord* old_record) const {
    const double s = new_record.score();
    if (!std::isfinite(s)) return false;
    if (!std::isfinite(old_score)) return true;
    return s > old_score * (1 + margin(new_record, old_record));
  }
};

/// @brief The incumbents of a history: indices of the evaluations that each improved on the
/// previous incumbent by the rule (the first scored evaluation is always one). A score that is
/// higher than the incumbent only within noise does not replace it.
SOCRATIC_DECL std::vector<std::size_t> significant_improvements(const std::vector<EvaluationRecord>& history,
                                                                const ImprovementRule& rule, std::size_t end);

SOCRATIC_DECL std::vector<std::size_t> significant_improvements(const std::vector<EvaluationRecord>& history,
                                                                const ImprovementRule& rule);

}  // namespace socratic

#ifndef SOCRATIC_SEPARATE_COMPILATION
#include "socratic/questions/impl/improvement.ipp"
#endif
