#pragma once
/// @file
/// @brief StopHookRunner<E, Q, G>: one call of an external agent's Stop hook, a driver on the
/// campaign engine (campaign/engine.hpp). The engine judges the stop exactly as the in-process
/// loop does (evaluate or repeat the judgement of unchanged content, the goal on every scenario,
/// detectors, the question, the send-back text); the runner adds the hook's protocol
/// (goals/stop_hook.hpp): the block cap, the JSON on stdout, and a `hook_call` trace event.
///
/// Failures inside (unreadable input, an unwritable trace) block the stop with the error text: a
/// broken hook never lets an agent stop with the goal unverified. Input that cannot be read does
/// not count toward the cap. Three evaluator failures in a row (the campaign's
/// `max_evaluator_failures`) end the campaign as the in-process loop does: the stop is let
/// through with the plain statement that the goal was not verified. A judge fault (a harness or
/// configuration fault: EvalReport::fault, a campaign file that does not fit together) lets the
/// stop through at once with the same statement and what to fix: no agent can fix it.

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "socratic/campaign/config.hpp"
#include "socratic/campaign/engine.hpp"
#include "socratic/record/trace.hpp"
#include "socratic/concepts.hpp"
#include "socratic/goals/stop_hook.hpp"

namespace socratic {

/// @brief The hook's answer: what to print and with which exit code.
struct StopHookOutcome {
  StopHookDecision decision;
  std::string stdout_text;  ///< the block object, or empty
  std::string stderr_text;  ///< a one-paragraph mirror for humans (Codex shows stderr)
  int exit_code = 0;        ///< always 0: a block is said on stdout, not by exit code
};

namespace detail {

inline StopHookOutcome stop_hook_outcome(const StopHookDecision& d) {
  StopHookOutcome out;
  out.decision = d;
  out.stdout_text = stop_hook_stdout(d);
  out.stderr_text = "socratic hook stop: " + std::string(d.block ? "blocked" : "allowed") + " (" + std::string(to_string(d.kind)) + ")" +
                    (d.block ? ":\n" + d.reason : ": " + d.reason) + "\n";
  return out;
}

/// The `hook_call` event of a decision.
inline json hook_call_event(const StopHookDecision& d, const StopHookPolicy& policy,
                            const std::optional<StopHookInput>& input, std::optional<int> evaluation_index,
                            bool counts_toward_cap) {
  json call{{"decision", d.block ? "block" : "allow"},
            {"kind", std::string(to_string(d.kind))},
            {"goal_met", d.kind == HookVerdict::goal_met},
            {"consecutive_blocks", d.consecutive_blocks},
            {"max_consecutive_blocks", policy.max_consecutive_blocks},
            {"cap_reached", d.cap_reached},
            {"reason", d.reason},
            {"evaluation_index", evaluation_index ? json(*evaluation_index) : json(nullptr)}};
  if (!counts_toward_cap) call["counts_toward_cap"] = false;
  if (input) {
    call["stop_hook_active"] = input->stop_hook_active;
    call["session_id"] = input->session_id;
    if (!input->turn_id.empty()) call["turn_id"] = input->turn_id;
  }
  return call;
}

/// A block on input that could not be read: never counted toward the cap.
inline StopHookDecision input_error_block(const std::string& what) {
  StopHookDecision d;
  d.block = true;
  d.kind = HookVerdict::error;
  d.reason = format_input_error_reason(what);
  return d;
}

}  // namespace detail

/// @brief The hook could not even build the campaign's parts (a bad campaign file, an evaluator
/// that cannot start): blocks with the error, recorded in `trace` when one is named and writable,
/// with the same cap as any block (unreadable input never counts toward it). Never throws.
inline StopHookOutcome stop_hook_setup_failure(const std::string& what, std::string_view stdin_text,
                                               const std::optional<std::filesystem::path>& trace = std::nullopt,
                                               StopHookPolicy policy = {}, const std::string& agent_id = "main") noexcept {
  try {
    std::optional<StopHookInput> input;
    std::string input_problem;
    try {
      input = parse_stop_hook_input(stdin_text);
    } catch (const std::exception& e) {
      input_problem = e.what();
    }
    std::unique_ptr<TraceWriter> writer;
    int blocks_before = 0;
    if (trace) {
      try {
        writer = std::make_unique<TraceWriter>(*trace);
        if (input) blocks_before = consecutive_blocks_before(read_trace(*trace).events, *input);
      } catch (const std::exception&) {
        writer.reset();
      }
    }
    const std::string text = input ? what : what + " (and the hook input: " + input_problem + ")";
    const StopHookDecision d =
        input ? decide_stop(false, true, blocks_before, policy, format_error_reason(text, blocks_before + 1, policy))
              : detail::input_error_block(text);
    if (writer) {
      try {
        json call = detail::hook_call_event(d, policy, input, std::nullopt, input.has_value());
        call["type"] = "hook_call";
        call["agent"] = agent_id;
        writer->write(std::move(call));
        writer->sync();
      } catch (const std::exception&) {
      }
    }
    return detail::stop_hook_outcome(d);
  } catch (...) {
    StopHookDecision d = detail::input_error_block(what);
    d.reason = "Socratic's stop hook failed, so it does not let you stop: " + what;
    return detail::stop_hook_outcome(d);
  }
}

/// @brief The campaign's parts do not fit together (a configuration_error: a goal naming scenarios
/// its set lacks, ...): no agent can fix that, so the stop is let through at once with the plain
/// statement that the goal was NOT verified and what to fix (`kind: "judge_fault"`), recorded in
/// `trace` when one is named and writable. Never throws.
inline StopHookOutcome stop_hook_configuration_fault(const std::string& what, std::string_view stdin_text,
                                                     const std::optional<std::filesystem::path>& trace = std::nullopt,
                                                     StopHookPolicy policy = {},
                                                     const std::string& agent_id = "main") noexcept {
  StopHookDecision d;
  d.kind = HookVerdict::judge_fault;
  try {
    d.reason = format_judge_fault_reason(EvalFault::configuration, what);
    std::optional<StopHookInput> input;
    try {
      input = parse_stop_hook_input(stdin_text);
    } catch (const std::exception&) {
    }
    if (trace) {
      try {
        TraceWriter writer(*trace);
        json call = detail::hook_call_event(d, policy, input, std::nullopt, input.has_value());
        call["type"] = "hook_call";
        call["agent"] = agent_id;
        writer.write(std::move(call));
        writer.sync();
      } catch (const std::exception&) {
      }
    }
  } catch (...) {
  }
  return detail::stop_hook_outcome(d);
}

/// @brief Runs Stop-hook calls for one campaign (one object per process is typical).
template <Evaluator E, QuestionSource Q, GoalPredicate G>
class StopHookRunner {
 public:
  StopHookRunner(E& evaluator, Q& questions, G goal, CampaignConfig config)
      : evaluator_(evaluator), questions_(questions), goal_(std::move(goal)), config_(std::move(config)) {
    if (config_.state_dir.empty()) throw error("stop hook: state_dir is required");
    if (config_.candidate.source.empty()) throw error("stop hook: candidate.source is required");
  }

  std::filesystem::path trace_path() const { return config_.state_dir / "trace.jsonl"; }

  /// @brief Handles one call given the hook's stdin. Never throws; never allows on a failure.
  StopHookOutcome handle(std::string_view stdin_text) noexcept {
    try {
      return handle_or_throw(stdin_text);
    } catch (const std::exception& e) {
      return error_outcome(e.what());
    } catch (...) {
      return error_outcome("unknown exception");
    }
  }

 private:
  using Engine = CampaignEngine<E, Q, G>;

  StopHookOutcome handle_or_throw(std::string_view stdin_text) {
    engine_ = std::make_unique<Engine>(evaluator_, questions_, goal_, config_);
    engine_->open(OpenOptions{true, "stop_hook"});
    const std::vector<json>& events = engine_->history();
    const std::string agent = config_.agent_id;
    const StopHookPolicy& policy = config_.stop_hook;

    try {
      input_ = parse_stop_hook_input(stdin_text);
    } catch (const input_error& e) {
      input_.reset();
      return finish(detail::input_error_block(e.what()), std::nullopt, false);
    }
    const int blocks_before = consecutive_blocks_before(events, *input_);

    // The turn the agent just ended: opened by the task or by the last block's reason.
    Message opened;
    opened.text = last_block_reason(events).value_or(config_.task);
    engine_->begin_turn(agent, opened, {{"source", "stop_hook"}});
    TurnResult ended;
    ended.final_message = input_->last_assistant_message;
    engine_->end_turn(agent, ended, {{"session_id", input_->session_id}});

    const bool may_block = blocks_before < policy.max_consecutive_blocks;
    const StopOutcome stop = engine_->handle_stop(agent, input_->last_assistant_message, StopOptions{may_block, false});
    StopHookDecision d;
    if (stop.judge_fault) {
      // Nothing was judged, and no change to the candidate can fix that: the agent stops and the
      // person reads why (the campaign continues at the next stop once it is fixed).
      d.kind = HookVerdict::judge_fault;
      d.reason = format_judge_fault_reason(*stop.judge_fault, stop.end_detail);
      const StopHookOutcome out = finish(d, stop.check.index, true);
      engine_->end(*stop.end_reason, stop.end_detail);
      return out;
    }
    if (stop.evaluator_gave_up) {
      d.kind = HookVerdict::evaluator_error;
      d.reason = format_evaluator_gave_up_reason(stop.end_detail, engine_->consecutive_evaluator_failures());
      const StopHookOutcome out = finish(d, stop.check.index, true);
      engine_->end(*stop.end_reason, stop.end_detail);
      return out;
    }
    if (stop.met) {
      d = decide_stop(true, false, blocks_before, policy, {});
    } else if (may_block) {
      d = decide_stop(false, false, blocks_before, policy, with_block_count(stop.send_back->text, blocks_before + 1, policy));
    } else {
      d = decide_stop(false, false, blocks_before, policy, {});
      d.reason = format_cap_reason(engine_->goal_description(), *stop.verdict, blocks_before, policy);
    }
    return finish(d, stop.check.index, true);
  }

  static std::optional<std::string> last_block_reason(const std::vector<json>& events) {
    for (auto it = events.rbegin(); it != events.rend(); ++it)
      if (is_event(*it, TraceEventType::hook_call) && it->value("counts_toward_cap", true))
        return it->value("decision", "") == "block" ? std::optional(it->value("reason", "")) : std::nullopt;
    return std::nullopt;
  }

  StopHookOutcome finish(const StopHookDecision& d, std::optional<int> evaluation_index, bool counts_toward_cap) {
    if (engine_) {
      engine_->record_event(config_.agent_id, TraceEventType::hook_call,
                            detail::hook_call_event(d, config_.stop_hook, input_, evaluation_index, counts_toward_cap));
      engine_->sync();
    }
    return detail::stop_hook_outcome(d);
  }

  // Failure anywhere: still block, and record it when the trace can be written.
  StopHookOutcome error_outcome(const std::string& what) noexcept {
    try {
      if (engine_) {
        const int blocks_before = input_ ? consecutive_blocks_before(engine_->history(), *input_) : 0;
        const StopHookPolicy& p = config_.stop_hook;
        const StopHookDecision d =
            input_ ? decide_stop(false, true, blocks_before, p, format_error_reason(what, blocks_before + 1, p))
                   : detail::input_error_block(what);
        return finish(d, std::nullopt, input_.has_value());
      }
    } catch (...) {
    }
    const StopHookPolicy& p = config_.stop_hook;
    return detail::stop_hook_outcome(decide_stop(false, true, 0, p, format_error_reason(what, 1, p)));
  }

  E& evaluator_;
  Q& questions_;
  G goal_;
  CampaignConfig config_;
  std::unique_ptr<Engine> engine_;
  std::optional<StopHookInput> input_;
};

}  // namespace socratic
