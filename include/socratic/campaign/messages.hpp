#pragma once
/// @file
/// @brief The texts a campaign sends an agent, written once for every driver: the first message,
/// the send-back after an unmet stop (the in-process loop's next turn and the stop hook's block
/// reason alike), the message after a resume or a continuation. Questions are rendered by
/// render_question() (core/question.hpp). Pure: strings in, strings out.

#include <cstdio>
#include <optional>
#include <string>

#include "socratic/core/campaign_state.hpp"
#include "socratic/core/question.hpp"
#include "socratic/core/verdict.hpp"

namespace socratic::messages {

namespace detail {
inline std::string fixed3(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.3f", v);
  return buf;
}
}  // namespace detail

/// @brief The first message: the task, and the start question when there is one.
inline std::string start(const std::string& task, const std::optional<Question>& question) {
  std::string out = task;
  if (question) out += "\n\n" + render_question(*question);
  return out;
}

/// @brief The note on a stop check that repeated an earlier judgement of the same content.
inline std::string unchanged_note(const EvaluationRecord& check) {
  if (!check.reused_from) return {};
  return "The candidate has not changed since evaluation #" + std::to_string(*check.reused_from) +
         " (same content, sha256 " + check.candidate_hash.substr(0, 12) +
         "): that judgement stands, and it is not measured again until the candidate changes.\n";
}

/// @brief The send-back after an unmet stop: the goal, every unmet condition, the evaluation,
/// the question, and what to do next. The stop hook appends where the agent stands against its
/// cap (goals/stop_hook.hpp, block_count_note()).
inline std::string send_back(const std::string& goal_description, const Verdict& verdict,
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

/// @brief How a campaign that had ended is taken up again (an agent error fixed, say).
struct Continuation {
  std::string reason;  ///< the earlier ending's reason, e.g. `agent_error`
  std::string detail;  ///< and its detail
};

/// @brief The message that opens the first turn after a resume (the campaign was killed) or a
/// continuation (it had ended on an error that a new run may not meet): the task, what was
/// achieved so far, the last unmet conditions and the last question.
inline std::string resumed(const std::string& task, const CampaignState& state, const std::string& best_snapshot,
                           const std::optional<Verdict>& last_verdict, const std::optional<Question>& last_question,
                           const std::optional<Continuation>& continuation) {
  std::string out = task + "\n\n";
  const std::string so_far = std::to_string(state.evaluations.size()) + " evaluations so far";
  if (continuation)
    out += "This campaign had ended (" + continuation->reason +
           (continuation->detail.empty() ? "" : ": " + continuation->detail) + ") and now continues (" + so_far + ").";
  else
    out += "This campaign was interrupted and has been resumed (" + so_far + ").";
  if (const EvaluationRecord* best = state.best())
    out += " The best so far is evaluation #" + std::to_string(best->index) + " with a geomean speedup of " +
           detail::fixed3(best->score()) + "; its source is saved as " + best_snapshot + ".";
  if (last_verdict && !last_verdict->met)
    out += "\nThe last goal check found these unmet conditions:\n" + last_verdict->describe();
  if (last_question) out += "\n" + render_question(*last_question);
  return out;
}

}  // namespace socratic::messages
