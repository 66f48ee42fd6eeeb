#pragma once
/// @file
/// @brief The Stop-hook protocol of Claude Code and Codex, as pure logic: parse the hook's JSON,
/// count consecutive blocks, decide, and format what the hook prints. No I/O, so it is testable
/// without a client; campaign/stop_hook_runner.hpp wires it to an evaluator, a goal and a trace.
///
/// Protocol (both clients): the hook gets a JSON object on stdin with `session_id`,
/// `transcript_path`, `cwd`, `hook_event_name`, `stop_hook_active` (true when the agent is
/// continuing because a Stop hook blocked it) and `last_assistant_message` (Codex adds
/// `turn_id`). To keep the agent working the hook exits 0 and prints
/// `{"decision":"block","reason":"..."}`; the client hands the reason to the model (Claude Code
/// as a user message beginning "Stop hook feedback:"). Printing no decision and exiting 0 lets it
/// stop; the hook then prints `{"systemMessage": ...}`, the verdict for the person. Claude Code forces a stop after 8 consecutive blocks, so the cap defaults to 8.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "socratic/core/error.hpp"
#include "socratic/core/json.hpp"
#include "socratic/core/trace_events.hpp"
#include "socratic/core/question.hpp"
#include "socratic/core/report.hpp"
#include "socratic/core/verdict.hpp"
#include "socratic/core/detail/separate_compilation.hpp"

namespace socratic {

/// @brief What a Stop hook receives on stdin.
struct StopHookInput {
  std::string session_id;
  std::string transcript_path;
  std::string cwd;
  std::string hook_event_name;  ///< `Stop` (empty when the client did not say)
  std::string turn_id;          ///< Codex only
  bool stop_hook_active = false;
  std::string last_assistant_message;
  json raw = json::object();  ///< the whole document, for fields this version does not read
};

/// @brief Parses the hook's stdin. Throws input_error naming the field when the document is not
/// a JSON object or a known field has the wrong type. Unknown fields are kept in `raw`.
SOCRATIC_DECL StopHookInput parse_stop_hook_input(std::string_view text);

/// @brief How the hook treats repeated blocks.
struct StopHookPolicy {
  /// Blocks in a row after which the hook lets the agent stop (and records that the cap, not
  /// the goal, ended it). Claude Code itself forces a stop after 8.
  int max_consecutive_blocks = 8;
};

/// @brief The blocks in a row that precede this call, read from earlier `hook_call` trace events.
///
/// A chain of blocks starts at a call with `stop_hook_active` false (the agent stopped of its own
/// accord) and continues through calls with it true in the same session; an allowed stop ends it.
/// So a call with `stop_hook_active` false starts at 0. Calls whose input could not be read
/// (`counts_toward_cap: false`) are not part of any chain: they neither count nor break it.
SOCRATIC_DECL int consecutive_blocks_before(const std::vector<json>& trace_events, const StopHookInput& in);

/// @brief What the hook decided.
struct StopHookDecision {
  bool block = false;
  /// Why (core/trace_events.hpp): the goal met or unmet, the hook's own error, the cap on blocks,
  /// an evaluator that gave up, or a judge fault (nothing judged: the agent let go at once).
  HookVerdict kind = HookVerdict::goal_unmet;
  std::string reason;          ///< shown to the model when blocking; a note otherwise
  int consecutive_blocks = 0;  ///< blocks in a row, this one included
  bool cap_reached = false;    ///< this call is at or past the cap
};

/// @brief Says where the agent stands against the cap, for the end of a block reason.
SOCRATIC_DECL std::string block_count_note(int this_block, const StopHookPolicy& policy);

/// @brief A send-back text (campaign/messages.hpp, the same text the in-process loop sends) as a
/// block's reason: the text, then where the agent stands against the cap.
SOCRATIC_DECL std::string with_block_count(std::string send_back_text, int this_block, const StopHookPolicy& policy);

/// @brief The text of a stop let through without the goal because the cap was reached: it says
/// plainly that the goal was not met, and what was unmet.
SOCRATIC_DECL std::string format_cap_reason(const std::string& goal_description, const Verdict& verdict, int blocks,
                                            const StopHookPolicy& policy);

/// @brief The text of a stop let through because the evaluator failed too often in a row to
/// check the goal: the goal was not verified, and the campaign ended.
SOCRATIC_DECL std::string format_evaluator_gave_up_reason(const std::string& error_text, int failures);

/// @brief The text of a stop let through because nothing could be judged through no fault of the
/// candidate (`fault`: harness or configuration, or the campaign's set-up when `fault` is
/// configuration and the campaign could not even be built): the goal was NOT verified, and what to
/// fix. Said to the person; the agent is not sent back for it.
SOCRATIC_DECL std::string format_judge_fault_reason(EvalFault fault, const std::string& error_text);

/// @brief The text of a block on input the hook could not read: such a block never counts toward
/// the cap (a hook that cannot read its input must not let the agent stop by repetition).
SOCRATIC_DECL std::string format_input_error_reason(const std::string& error_text);

/// @brief The text of a block caused by a failure of the hook itself: the agent is held, never
/// let go with the goal unverified.
SOCRATIC_DECL std::string format_error_reason(const std::string& error_text, int this_block,
                                              const StopHookPolicy& policy);

/// @brief Decides, given how many blocks precede this call and whether the goal holds.
/// `reason_if_blocked` is the text to show when blocking (from format_block_reason or
/// format_error_reason).
SOCRATIC_DECL StopHookDecision decide_stop(bool goal_met, bool hook_error, int blocks_before,
                                           const StopHookPolicy& policy, std::string reason_if_blocked);

/// @brief The line the person watching reads (the client's `systemMessage`): what happened, in a
/// few words. Claude Code labels every blocking Stop hook "Stop hook error occurred", whatever it
/// prints (checked with Claude Code 2.1.197: a block object with or without stderr, with
/// `systemMessage`, `suppressOutput` or `additionalContext`, and exit code 2 all showed it), so a
/// block's line says that nothing failed when that is so. An allowed stop's line is the verdict:
/// the goal holds, or it was NOT met (the cap, an evaluator that gave up) and why.
SOCRATIC_DECL std::string stop_hook_system_message(const StopHookDecision& d);

/// @brief What the hook prints on stdout: the block object (with a line for the person watching),
/// or, when it lets the agent stop, `{"systemMessage": ...}` with the verdict. Both clients show a
/// `systemMessage` to the user and ignore a hook's stderr outside their debug output, so the final
/// verdict goes there.
SOCRATIC_DECL std::string stop_hook_stdout(const StopHookDecision& d);

}  // namespace socratic

#ifndef SOCRATIC_SEPARATE_COMPILATION
#include "socratic/goals/impl/stop_hook.ipp"
#endif
