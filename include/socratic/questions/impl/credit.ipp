#pragma once
/// @file
/// @brief Definitions for socratic/questions/credit.hpp: included there in header-only builds,
/// and by socratic/src.hpp (compiled once) with SOCRATIC_SEPARATE_COMPILATION.

#include "socratic/questions/credit.hpp"

namespace socratic {

namespace detail {

/// Whether an evaluation was made by the agent a question was asked of (a trace without agent
/// ids is one agent's).
inline bool same_agent(const AskedQuestion& q, const EvaluationRecord& e) {
  return q.agent_id.empty() || e.agent_id.empty() || q.agent_id == e.agent_id;
}

}  // namespace detail

SOCRATIC_DECL std::vector<CreditOutcome> credit_questions(const CampaignState& state, const CreditRule& rule) {
  const auto& evals = state.evaluations;
  std::vector<const AskedQuestion*> asked;
  std::vector<CreditOutcome> out;
  for (const auto& q : state.asked) {
    if (q.question.id.empty()) continue;  // ad-hoc questions have no entry to credit
    CreditOutcome o;
    o.question_id = q.question.id;
    o.after_evaluation = q.after_evaluation;
    o.agent = q.agent_id;
    // The best score known when it was asked: the best evaluation up to `after_evaluation`.
    const EvaluationRecord* ref = nullptr;
    for (const auto& e : evals)
      if (e.index <= q.after_evaluation && std::isfinite(e.score()) && (!ref || e.score() > ref->score())) ref = &e;
    o.reference_score = ref ? ref->score() : 1.0;
    asked.push_back(&q);
    out.push_back(o);
  }
  // The gains, in order; each credits the questions of its agent asked since that agent's last gain.
  const EvaluationRecord* incumbent = nullptr;
  std::map<std::string, int> last_gain;  // agent -> index of its previous gain
  for (const auto& g : evals) {
    if (!std::isfinite(g.score()) || !rule.improvement.improves(g, incumbent ? incumbent->score() : 1.0, incumbent))
      continue;
    incumbent = &g;
    const auto previous = last_gain.find(g.agent_id);
    const int since = previous == last_gain.end() ? -1 : previous->second;
    std::vector<std::size_t> sharing;
    for (std::size_t i = 0; i < asked.size(); ++i) {
      const AskedQuestion& q = *asked[i];
      if (out[i].credited || !detail::same_agent(q, g)) continue;
      if (q.after_evaluation >= g.index || (previous != last_gain.end() && q.after_evaluation < since)) continue;
      int followed = 0;  // the agent's evaluations from the question to the gain, the gain included
      for (const auto& e : evals)
        if (e.index > q.after_evaluation && e.index <= g.index && detail::same_agent(q, e)) ++followed;
      if (followed <= rule.window_evaluations) sharing.push_back(i);
    }
    for (std::size_t i : sharing) {
      out[i].credited = true;
      out[i].credited_by = g.index;
      out[i].gain = g.score() / out[i].reference_score - 1;
      out[i].shared_by = static_cast<int>(sharing.size());
    }
    last_gain[g.agent_id] = g.index;
  }
  return out;
}

}  // namespace socratic
