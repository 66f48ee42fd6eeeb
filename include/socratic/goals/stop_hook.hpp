#pragma once
/// @file
/// @brief The Stop-hook protocol of Claude Code and Codex, as pure logic: parse the hook's JSON,
/// count consecutive blocks, decide, and format what the hook prints. No I/O, so it is testable
/// without a client; goals/stop_hook_runner.hpp wires it to an evaluator, a goal and a trace.
///
/// Protocol (both clients): the hook gets a JSON object on stdin with `session_id`,
/// `transcript_path`, `cwd`, `hook_event_name`, `stop_hook_active` (true when the agent is
/// continuing because a Stop hook blocked it) and `last_assistant_message` (Codex adds
/// `turn_id`). To keep the agent working the hook exits 0 and prints
/// `{"decision":"block","reason":"..."}`; the client hands the reason to the model (Claude Code
/// as a user message beginning "Stop hook feedback:"). Printing nothing and exiting 0 lets it
/// stop. Claude Code forces a stop after 8 consecutive blocks, so the cap defaults to 8.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "socratic/core/error.hpp"
#include "socratic/core/json.hpp"
#include "socratic/core/question.hpp"
#include "socratic/core/verdict.hpp"

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
inline StopHookInput parse_stop_hook_input(std::string_view text) {
  static const std::string where = "stop hook input";
  json j;
  try {
    j = json::parse(text);
  } catch (const json::parse_error& e) {
    std::string excerpt(text.substr(0, 120));
    throw input_error({}, where,
                      std::string("not valid JSON (") + e.what() + "); received: \"" + excerpt +
                          (text.size() > 120 ? "...\"" : "\""));
  }
  if (!j.is_object())
    throw input_error({}, where, std::string("expected a JSON object, found ") + j.type_name());
  StopHookInput in;
  in.session_id = optional_field<std::string>(j, "session_id", "", where);
  in.transcript_path = optional_field<std::string>(j, "transcript_path", "", where);
  in.cwd = optional_field<std::string>(j, "cwd", "", where);
  in.hook_event_name = optional_field<std::string>(j, "hook_event_name", "", where);
  in.stop_hook_active = optional_field<bool>(j, "stop_hook_active", false, where);
  in.last_assistant_message = optional_field<std::string>(j, "last_assistant_message", "", where);
  if (j.contains("turn_id") && !j["turn_id"].is_null())
    in.turn_id = j["turn_id"].is_string() ? j["turn_id"].get<std::string>() : j["turn_id"].dump();
  if (!in.hook_event_name.empty() && in.hook_event_name != "Stop" && in.hook_event_name != "SubagentStop")
    throw input_error({}, where + " field \"hook_event_name\"",
                      "\"" + in.hook_event_name + "\" is not a Stop event; register `socratic hook stop` "
                      "under hooks.Stop only");
  in.raw = std::move(j);
  return in;
}

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
inline int consecutive_blocks_before(const std::vector<json>& trace_events, const StopHookInput& in) {
  if (!in.stop_hook_active) return 0;
  int blocks = 0;
  for (auto it = trace_events.rbegin(); it != trace_events.rend(); ++it) {
    if (it->value("type", "") != "hook_call") continue;
    if (!it->value("counts_toward_cap", true)) continue;
    if (it->value("session_id", "") != in.session_id) break;
    if (it->value("decision", "") != "block") break;
    ++blocks;
    if (!it->value("stop_hook_active", false)) break;  // the chain's first call
  }
  return blocks;
}

/// @brief What the hook decided.
struct StopHookDecision {
  bool block = false;
  /// `goal_met`, `goal_unmet`, `error`, `block_cap` (the cap let the agent stop) or
  /// `evaluator_error` (the evaluator failed too often in a row: the campaign ended unverified).
  std::string kind;
  std::string reason;          ///< shown to the model when blocking; a note otherwise
  int consecutive_blocks = 0;  ///< blocks in a row, this one included
  bool cap_reached = false;    ///< this call is at or past the cap
};

/// @brief Says where the agent stands against the cap, for the end of a block reason.
inline std::string block_count_note(int this_block, const StopHookPolicy& policy) {
  std::string out = "(Stop hook block " + std::to_string(this_block) + " of at most " +
                    std::to_string(policy.max_consecutive_blocks) + " in a row.";
  if (this_block >= policy.max_consecutive_blocks)
    out += " This is the last one: the cap is reached, your next stop will be let through and the "
           "campaign will record that the goal was not met.";
  return out + ")";
}

/// @brief A send-back text (campaign/messages.hpp, the same text the in-process loop sends) as a
/// block's reason: the text, then where the agent stands against the cap.
inline std::string with_block_count(std::string send_back_text, int this_block, const StopHookPolicy& policy) {
  return send_back_text + " " + block_count_note(this_block, policy);
}

/// @brief The text of a stop let through without the goal because the cap was reached: it says
/// plainly that the goal was not met, and what was unmet.
inline std::string format_cap_reason(const std::string& goal_description, const Verdict& verdict, int blocks,
                                     const StopHookPolicy& policy) {
  return "The goal (" + goal_description + ") was NOT met: Socratic let this stop through only because " +
         std::to_string(blocks) + " consecutive blocks reached the cap (" +
         std::to_string(policy.max_consecutive_blocks) + "). Unmet conditions:\n" + verdict.describe();
}

/// @brief The text of a stop let through because the evaluator failed too often in a row to
/// check the goal: the goal was not verified, and the campaign ended.
inline std::string format_evaluator_gave_up_reason(const std::string& error_text, int failures) {
  return "The goal was NOT verified, so it was NOT met: the evaluator failed " + std::to_string(failures) +
         " times in a row (last: " + error_text +
         "). Socratic lets this stop through and records the campaign as ended (evaluator_error); fix the "
         "evaluator and the next stop is judged again.";
}

/// @brief The text of a block on input the hook could not read: such a block never counts toward
/// the cap (a hook that cannot read its input must not let the agent stop by repetition).
inline std::string format_input_error_reason(const std::string& error_text) {
  return "Socratic's stop hook could not verify the goal, so it does not let you stop: it could not read "
         "its input: " + error_text +
         "\n(This block does not count toward the cap on consecutive blocks: nothing was evaluated.)";
}

/// @brief The text of a block caused by a failure of the hook itself: the agent is held, never
/// let go with the goal unverified.
inline std::string format_error_reason(const std::string& error_text, int this_block,
                                       const StopHookPolicy& policy) {
  return "Socratic's stop hook could not verify the goal, so it does not let you stop: " +
         error_text +
         "\nFix what the error names if it is in your workspace (the candidate, a command), or "
         "report it. " +
         block_count_note(this_block, policy);
}

/// @brief Decides, given how many blocks precede this call and whether the goal holds.
/// `reason_if_blocked` is the text to show when blocking (from format_block_reason or
/// format_error_reason).
inline StopHookDecision decide_stop(bool goal_met, bool hook_error, int blocks_before,
                                    const StopHookPolicy& policy, std::string reason_if_blocked) {
  StopHookDecision d;
  if (goal_met && !hook_error) {
    d.kind = "goal_met";
    d.reason = "the goal holds on every scenario";
    return d;
  }
  if (blocks_before >= policy.max_consecutive_blocks) {
    d.kind = "block_cap";
    d.consecutive_blocks = blocks_before;
    d.cap_reached = true;
    d.reason = "stop let through: " + std::to_string(blocks_before) +
               " consecutive blocks reached the cap (" +
               std::to_string(policy.max_consecutive_blocks) + "); the goal was NOT met";
    return d;
  }
  d.block = true;
  d.kind = hook_error ? "error" : "goal_unmet";
  d.consecutive_blocks = blocks_before + 1;
  d.cap_reached = d.consecutive_blocks >= policy.max_consecutive_blocks;
  d.reason = std::move(reason_if_blocked);
  return d;
}

/// @brief The line a block shows the person watching (the client's `systemMessage`): what
/// happened, in a few words. Claude Code labels every blocking Stop hook "Stop hook error
/// occurred", whatever it prints (checked with Claude Code 2.1.197: a block object with or without
/// stderr, with `systemMessage`, `suppressOutput` or `additionalContext`, and exit code 2 all
/// showed it), so the line says that nothing failed when that is so.
inline std::string stop_hook_system_message(const StopHookDecision& d) {
  const std::string count = "block " + std::to_string(d.consecutive_blocks) + " in a row";
  if (d.kind == "error")
    return "Socratic could not verify the goal, so the agent was sent back (" + count +
           "); the reason it was given names the error.";
  return "Socratic judged the candidate: the goal does not hold yet, so the agent was sent back with the "
         "unmet conditions and a question (" + count + "). Claude Code shows this as a stop hook error; "
         "nothing failed.";
}

/// @brief What the hook prints on stdout: the block object (with a line for the person watching),
/// or nothing when it lets the agent stop.
inline std::string stop_hook_stdout(const StopHookDecision& d) {
  if (!d.block) return {};
  return json{{"decision", "block"}, {"reason", d.reason}, {"systemMessage", stop_hook_system_message(d)}}.dump(
             -1, ' ', false, json::error_handler_t::replace) +
         "\n";
}

}  // namespace socratic
