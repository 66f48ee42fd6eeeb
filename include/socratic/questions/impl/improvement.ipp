#pragma once
/// @file
/// @brief Definitions for socratic/questions/improvement.hpp: included there in header-only builds,
/// and by socratic/src.hpp (compiled once) with SOCRATIC_SEPARATE_COMPILATION.

#include "socratic/questions/improvement.hpp"

namespace socratic {

SOCRATIC_DECL double score_noise(const EvaluationRecord& record, double fallback) {
  double sum = 0;
  int n = 0;
  for (const auto& s : record.report.scenarios) {
    const double c = std::isfinite(s.candidate_noise) ? s.candidate_noise : 0;
    const double b = std::isfinite(s.baseline_noise) ? s.baseline_noise : 0;
    if (!std::isfinite(s.candidate_noise) && !std::isfinite(s.baseline_noise)) continue;
    sum += std::sqrt(c * c + b * b);
    ++n;
  }
  return n ? sum / n : fallback;
}

SOCRATIC_DECL std::vector<std::size_t> significant_improvements(const std::vector<EvaluationRecord>& history,
                                                                const ImprovementRule& rule, std::size_t end) {
  std::vector<std::size_t> out;
  end = std::min(end, history.size());
  for (std::size_t i = 0; i < end; ++i) {
    const double s = history[i].score();
    if (!std::isfinite(s)) continue;
    if (out.empty()) {
      out.push_back(i);
      continue;
    }
    const auto& inc = history[out.back()];
    if (rule.improves(history[i], inc.score(), &inc)) out.push_back(i);
  }
  return out;
}

SOCRATIC_DECL std::vector<std::size_t> significant_improvements(const std::vector<EvaluationRecord>& history,
                                                                const ImprovementRule& rule) {
  return significant_improvements(history, rule, history.size());
}

}  // namespace socratic
