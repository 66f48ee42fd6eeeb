#pragma once
/// @file
/// @brief Definitions for socratic/campaign/messages.hpp: included there in header-only builds,
/// and by socratic/src.hpp (compiled once) with SOCRATIC_SEPARATE_COMPILATION.

#include "socratic/campaign/messages.hpp"

namespace socratic::messages::detail {

SOCRATIC_DECL std::string fixed3(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.3f", v);
  return buf;
}

}  // namespace socratic::messages::detail

namespace socratic::messages {

SOCRATIC_DECL std::string start(const std::string& task, const std::optional<Question>& question) {
  std::string out = task;
  if (question) out += "\n\n" + render_question(*question);
  return out;
}

SOCRATIC_DECL std::string unchanged_note(const EvaluationRecord& check) {
  if (!check.reused_from) return {};
  return "The candidate has not changed since evaluation #" + std::to_string(*check.reused_from) +
         " (same content, sha256 " + check.candidate_hash.substr(0, 12) +
         "): that judgement stands, and it is not measured again until the candidate changes.\n";
}

SOCRATIC_DECL std::string send_back(const std::string& goal_description, const Verdict& verdict,
                                    const EvaluationRecord& check, const std::string& evaluation_summary,
                                    const std::optional<Question>& question) {
  std::string out = "Socratic evaluated your candidate: the goal (" + goal_description +
                    ") does not hold yet. Unmet conditions:\n" + verdict.describe();
  out += unchanged_note(check);
  if (!evaluation_summary.empty()) out += "\nThe evaluation:\n" + evaluation_summary;
  if (question) out += "\n" + render_question(*question);
  out += "\nKeep working: change the candidate, measure, and end your turn when the goal holds.";
  return out;
}

SOCRATIC_DECL std::string resumed(const std::string& task, const CampaignState& state, const std::string& best_snapshot,
                                  const std::optional<Verdict>& last_verdict, const std::optional<Question>& last_question,
                                  const std::optional<Continuation>& continuation, std::optional<int> cut_turn) {
  std::string out = task + "\n\n";
  const std::string so_far = std::to_string(state.evaluations.size()) + " evaluations so far";
  if (continuation)
    out += "This campaign had ended (" + std::string(to_string(continuation->reason)) +
           (continuation->detail.empty() ? "" : ": " + continuation->detail) + ") and now continues (" + so_far + ").";
  else
    out += "This campaign was interrupted and has been resumed (" + so_far + ").";
  if (cut_turn)
    out += " Turn " + std::to_string(*cut_turn) +
           " was cut off before it ended: this is a new conversation (the earlier one is not kept), the files in "
           "the workspace are as that turn left them, and the cut turn does not count against the turn budget.";
  if (const EvaluationRecord* best = state.best())
    out += " The best so far is evaluation #" + std::to_string(best->index) + " with a geomean speedup of " +
           detail::fixed3(best->score()) + "; its source is saved as " + best_snapshot + ".";
  if (last_verdict && !last_verdict->met)
    out += "\nThe last goal check found these unmet conditions:\n" + last_verdict->describe();
  if (last_question) out += "\n" + render_question(*last_question);
  return out;
}

}  // namespace socratic::messages
