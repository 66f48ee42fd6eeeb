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
#include "socratic/core/detail/separate_compilation.hpp"

namespace socratic::messages {

namespace detail {
SOCRATIC_DECL std::string fixed3(double v);
}  // namespace detail

/// @brief The first message: the task, and the start question when there is one.
SOCRATIC_DECL std::string start(const std::string& task, const std::optional<Question>& question);

/// @brief The note on a stop check that repeated an earlier judgement of the same content.
SOCRATIC_DECL std::string unchanged_note(const EvaluationRecord& check);

/// @brief The send-back after an unmet stop: the goal, every unmet condition, the evaluation,
/// the question, and what to do next. The stop hook appends where the agent stands against its
/// cap (goals/stop_hook.hpp, block_count_note()).
SOCRATIC_DECL std::string send_back(const std::string& goal_description, const Verdict& verdict,
                                    const EvaluationRecord& check, const std::string& evaluation_summary,
                                    const std::optional<Question>& question);

/// @brief How a campaign that had ended is taken up again (an agent error fixed, say).
struct Continuation {
  StopReason reason = StopReason::agent_error;  ///< the earlier ending's reason
  std::string detail;  ///< and its detail
};

/// @brief The message that opens the first turn after a resume (the campaign was killed) or a
/// continuation (it had ended on an error that a new run may not meet): the task, what was
/// achieved so far, the last unmet conditions and the last question; and, when the process died
/// mid-turn, that `cut_turn` was cut off (its conversation is gone, its changes are not).
SOCRATIC_DECL std::string resumed(const std::string& task, const CampaignState& state, const std::string& best_snapshot,
                                  const std::optional<Verdict>& last_verdict, const std::optional<Question>& last_question,
                                  const std::optional<Continuation>& continuation,
                                  std::optional<int> cut_turn = std::nullopt);

}  // namespace socratic::messages

#ifndef SOCRATIC_SEPARATE_COMPILATION
#include "socratic/campaign/impl/messages.ipp"
#endif
