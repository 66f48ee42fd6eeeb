#pragma once
/// @file
/// @brief Definitions for socratic/goals/stop_hook.hpp: included there in header-only builds,
/// and by socratic/src.hpp (compiled once) with SOCRATIC_SEPARATE_COMPILATION.

#include "socratic/goals/stop_hook.hpp"

namespace socratic {

SOCRATIC_DECL StopHookInput parse_stop_hook_input(std::string_view text) {
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

SOCRATIC_DECL int consecutive_blocks_before(const std::vector<json>& trace_events, const StopHookInput& in) {
  if (!in.stop_hook_active) return 0;
  int blocks = 0;
  for (auto it = trace_events.rbegin(); it != trace_events.rend(); ++it) {
    if (!is_event(*it, TraceEventType::hook_call)) continue;
    if (!it->value("counts_toward_cap", true)) continue;
    if (it->value("session_id", "") != in.session_id) break;
    if (it->value("decision", "") != "block") break;
    ++blocks;
    if (!it->value("stop_hook_active", false)) break;  // the chain's first call
  }
  return blocks;
}

SOCRATIC_DECL std::string block_count_note(int this_block, const StopHookPolicy& policy) {
  std::string out = "(Stop hook block " + std::to_string(this_block) + " of at most " +
                    std::to_string(policy.max_consecutive_blocks) + " in a row.";
  if (this_block >= policy.max_consecutive_blocks)
    out += " This is the last one: the cap is reached, your next stop will be let through and the "
           "campaign will record that the goal was not met.";
  return out + ")";
}

SOCRATIC_DECL std::string with_block_count(std::string send_back_text, int this_block, const StopHookPolicy& policy) {
  return send_back_text + " " + block_count_note(this_block, policy);
}

SOCRATIC_DECL std::string format_cap_reason(const std::string& goal_description, const Verdict& verdict, int blocks,
                                            const StopHookPolicy& policy) {
  return "The goal (" + goal_description + ") was NOT met: Socratic let this stop through only because " +
         std::to_string(blocks) + " consecutive blocks reached the cap (" +
         std::to_string(policy.max_consecutive_blocks) + "). Unmet conditions:\n" + verdict.describe();
}

SOCRATIC_DECL std::string format_evaluator_gave_up_reason(const std::string& error_text, int failures) {
  return "The goal was NOT verified, so it was NOT met: the evaluator failed " + std::to_string(failures) +
         " times in a row (last: " + error_text +
         "). Socratic lets this stop through and records the campaign as ended (evaluator_error); fix the "
         "evaluator and the next stop is judged again.";
}

SOCRATIC_DECL std::string format_judge_fault_reason(EvalFault fault, const std::string& error_text) {
  const std::string whose = fault == EvalFault::configuration ? "the campaign's configuration" : "the evaluator (harness)";
  return "The goal was NOT verified, so it was NOT met: the candidate could not be judged, through a fault of " +
         whose + ", not of the candidate: " + error_text +
         "\nSocratic lets this stop through (the agent cannot fix this) and records the campaign as ended "
         "(evaluator_error); fix what the error names and the next stop is judged again.";
}

SOCRATIC_DECL std::string format_input_error_reason(const std::string& error_text) {
  return "Socratic's stop hook could not verify the goal, so it does not let you stop: it could not read "
         "its input: " + error_text +
         "\n(This block does not count toward the cap on consecutive blocks: nothing was evaluated.)";
}

SOCRATIC_DECL std::string format_error_reason(const std::string& error_text, int this_block,
                                              const StopHookPolicy& policy) {
  return "Socratic's stop hook could not verify the goal, so it does not let you stop: " +
         error_text +
         "\nFix what the error names if it is in your workspace (the candidate, a command), or "
         "report it. " +
         block_count_note(this_block, policy);
}

SOCRATIC_DECL StopHookDecision decide_stop(bool goal_met, bool hook_error, int blocks_before,
                                           const StopHookPolicy& policy, std::string reason_if_blocked) {
  StopHookDecision d;
  if (goal_met && !hook_error) {
    d.kind = HookVerdict::goal_met;
    d.reason = "the goal holds on every scenario";
    return d;
  }
  if (blocks_before >= policy.max_consecutive_blocks) {
    d.kind = HookVerdict::block_cap;
    d.consecutive_blocks = blocks_before;
    d.cap_reached = true;
    d.reason = "stop let through: " + std::to_string(blocks_before) +
               " consecutive blocks reached the cap (" +
               std::to_string(policy.max_consecutive_blocks) + "); the goal was NOT met";
    return d;
  }
  d.block = true;
  d.kind = hook_error ? HookVerdict::error : HookVerdict::goal_unmet;
  d.consecutive_blocks = blocks_before + 1;
  d.cap_reached = d.consecutive_blocks >= policy.max_consecutive_blocks;
  d.reason = std::move(reason_if_blocked);
  return d;
}

SOCRATIC_DECL std::string stop_hook_system_message(const StopHookDecision& d) {
  const std::string count = "block " + std::to_string(d.consecutive_blocks) + " in a row";
  if (!d.block) {
    if (d.kind == HookVerdict::goal_met) return "Socratic judged the candidate: the goal holds on every scenario, so the agent stopped.";
    // Let through without the goal (the cap, an evaluator that gave up, a judge fault): the reason
    // says plainly that the goal was NOT met, and why.
    return "Socratic let the agent stop: " + d.reason;
  }
  if (d.kind == HookVerdict::error)
    return "Socratic could not verify the goal, so the agent was sent back (" + count +
           "); the reason it was given names the error.";
  return "Socratic judged the candidate: the goal does not hold yet, so the agent was sent back with the "
         "unmet conditions and a question (" + count + "). Claude Code shows this as a stop hook error; "
         "nothing failed.";
}

SOCRATIC_DECL std::string stop_hook_stdout(const StopHookDecision& d) {
  json out;
  if (d.block) {
    out = json{{"decision", "block"}, {"reason", d.reason}, {"systemMessage", stop_hook_system_message(d)}};
  } else {
    // An allowed stop prints no decision (that lets the agent stop) but a line for the person: the
    // clients show a hook's stderr only in their debug output.
    out = json{{"systemMessage", stop_hook_system_message(d)}};
  }
  return out.dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
}

}  // namespace socratic
