#pragma once
/// @file
/// @brief CampaignState: what a campaign knows so far. Question sources and trigger detectors
/// read it; the campaign owns it and rebuilds it from the trace on resume.

#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "socratic/core/budget.hpp"
#include "socratic/core/json.hpp"
#include "socratic/core/question.hpp"
#include "socratic/core/report.hpp"
#include "socratic/core/detail/separate_compilation.hpp"

namespace socratic {

/// @brief Who asked for an evaluation (an EvaluationRecord's `origin` in the trace).
enum class EvaluationOrigin {
  agent,            ///< the agent, through its evaluate tool: what `Budget::evaluations` bounds
  stop_check,       ///< the campaign, when the agent stopped: does the goal hold?
  gate,             ///< a coordinator of several agents, before a candidate enters the store
  incumbent_check,  ///< a coordinator, measuring the store's best again beside a challenger
};

constexpr std::string_view to_string(EvaluationOrigin o) noexcept {
  switch (o) {
    case EvaluationOrigin::agent: return "agent";
    case EvaluationOrigin::stop_check: return "stop_check";
    case EvaluationOrigin::gate: return "gate";
    case EvaluationOrigin::incumbent_check: return "incumbent_check";
  }
  return "unknown";
}

/// @brief The origin of `name`; none for a name this version does not know.
constexpr std::optional<EvaluationOrigin> parse_evaluation_origin(std::string_view name) noexcept {
  for (EvaluationOrigin o : {EvaluationOrigin::agent, EvaluationOrigin::stop_check, EvaluationOrigin::gate,
                             EvaluationOrigin::incumbent_check})
    if (to_string(o) == name) return o;
  return std::nullopt;
}

/// @brief Written as its name; reading an unknown name throws an input_error naming it.
SOCRATIC_DECL void to_json(json& j, EvaluationOrigin o);
SOCRATIC_DECL void from_json(const json& j, EvaluationOrigin& o);

/// @brief One evaluation in a campaign's history.
struct EvaluationRecord {
  int index = 0;             ///< 0-based position in the campaign's history
  int turn = 0;              ///< the turn it happened in
  std::string agent_id;      ///< which agent's candidate (campaigns may run several agents)
  EvaluationOrigin origin = EvaluationOrigin::agent;  ///< who asked for it
  double elapsed_s = 0;      ///< seconds since the campaign began
  std::string candidate_hash;  ///< key of the candidate's snapshot in the campaign's state folder
  EvalReport report;
  /// A stop check of content already judged: the index of the evaluation whose report this one
  /// repeats (the candidate was not measured again, so judging it again is not a lottery).
  std::optional<int> reused_from;
  /// Which judge measured it (the campaign's `judge` fingerprint: evaluator, settings, scenarios;
  /// empty when none was given): a judgement is repeated only for the same judge.
  std::string judge;

  /// @brief The score used for "best" and plateaus: the geomean speedup when every scenario is
  /// correct and nothing banned was found; NaN otherwise.
  double score() const {
    if (!report.all_correct() || !report.banned.empty()) return std::nan("");
    return report.geomean_speedup();
  }
  /// @brief Whether it judged nothing: the evaluator threw, or its report is a judge fault
  /// (EvalReport::fault). Such a record is no verdict on the candidate.
  bool evaluator_failed() const {
    return report.fault != EvalFault::none || (!report.built && report.error.rfind("evaluator failed: ", 0) == 0);
  }
  friend bool operator==(const EvaluationRecord&, const EvaluationRecord&) = default;
};

/// @brief A question that was asked, and when.
struct AskedQuestion {
  Question question;
  int turn = 0;
  int after_evaluation = -1;  ///< index of the evaluation it followed, -1 if none
  double elapsed_s = 0;
  /// The agent it was asked of (campaigns may run several): its gains alone earn it credit.
  /// Empty in traces from before it was recorded: read from the `question` event's agent.
  std::string agent_id;
  friend bool operator==(const AskedQuestion&, const AskedQuestion&) = default;
};

/// @brief The campaign's memory: evaluations, questions, triggers, spending.
struct CampaignState {
  std::string campaign_id;
  std::string arch;            ///< GPU architecture in use, e.g. `sm_90` (empty when unknown)
  bool has_reference = false;  ///< another implementation exists to compare with
  int turn = 0;                ///< the current (or last) turn, 0-based
  double elapsed_s = 0;        ///< seconds since the campaign began, resumed time included
  std::vector<EvaluationRecord> evaluations;
  std::vector<AskedQuestion> asked;
  std::vector<TriggerEvent> triggers;  ///< every trigger that fired, in order
  std::string last_agent_message;      ///< the agent's last words at its last turn end
  Spent spent;

  /// @brief Index of the best evaluation by score, if any evaluation has a score.
  std::optional<std::size_t> best_index() const {
    std::optional<std::size_t> best;
    for (std::size_t i = 0; i < evaluations.size(); ++i) {
      const double s = evaluations[i].score();
      if (std::isfinite(s) && (!best || s > evaluations[*best].score())) best = i;
    }
    return best;
  }
  const EvaluationRecord* best() const {
    auto i = best_index();
    return i ? &evaluations[*i] : nullptr;
  }
  /// @brief Best score so far, NaN when none.
  double best_score() const {
    auto b = best();
    return b ? b->score() : std::nan("");
  }
  const EvaluationRecord* last_evaluation() const {
    return evaluations.empty() ? nullptr : &evaluations.back();
  }
  /// @brief Whether the question with this id was already asked.
  bool was_asked(std::string_view question_id) const {
    for (const auto& a : asked)
      if (a.question.id == question_id) return true;
    return false;
  }
};

SOCRATIC_DECL void to_json(json& j, const EvaluationRecord& e);
SOCRATIC_DECL void from_json(const json& j, EvaluationRecord& e);
SOCRATIC_DECL void to_json(json& j, const AskedQuestion& a);
SOCRATIC_DECL void from_json(const json& j, AskedQuestion& a);

}  // namespace socratic

#ifndef SOCRATIC_SEPARATE_COMPILATION
#include "socratic/core/impl/campaign_state.ipp"
#endif
