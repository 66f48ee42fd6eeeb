#pragma once
/// @file
/// @brief Definitions for socratic/questions/credit.hpp: included there in header-only builds,
/// and by socratic/src.hpp (compiled once) with SOCRATIC_SEPARATE_COMPILATION.

#include "socratic/questions/credit.hpp"

namespace socratic {

SOCRATIC_DECL std::vector<CreditOutcome> credit_questions(const CampaignState& state, const CreditRule& rule) {
  std::vector<CreditOutcome> out;
  const auto& evals = state.evaluations;
  for (const auto& asked : state.asked) {
    if (asked.question.id.empty()) continue;  // ad-hoc questions have no entry to credit
    CreditOutcome o;
    o.question_id = asked.question.id;
    o.after_evaluation = asked.after_evaluation;
    // The best evaluation up to and including `after_evaluation`.
    const EvaluationRecord* ref = nullptr;
    for (const auto& e : evals)
      if (e.index <= asked.after_evaluation && std::isfinite(e.score()) && (!ref || e.score() > ref->score()))
        ref = &e;
    o.reference_score = ref ? ref->score() : 1.0;
    for (const auto& e : evals) {
      if (e.index <= asked.after_evaluation || e.index > asked.after_evaluation + rule.window_evaluations) continue;
      if (rule.improvement.improves(e, o.reference_score, ref)) {
        o.credited = true;
        o.credited_by = e.index;
        o.gain = e.score() / o.reference_score - 1;
        break;
      }
    }
    out.push_back(o);
  }
  return out;
}

}  // namespace socratic
