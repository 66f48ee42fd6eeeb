#pragma once
/// @file
/// @brief StopHookRunner<E, Q, G>: one call of an external agent's Stop hook, done the campaign's
/// way. It evaluates the candidate with the real evaluator, applies the goal to every scenario,
/// asks a question for the moment its detectors see, decides (goals/stop_hook.hpp), and appends
/// every step to the campaign trace in Campaign's schema plus a `hook_call` event.
///
/// Any failure inside (unreadable input, evaluator exception, unwritable trace) blocks the stop
/// with the error text: a broken hook must never let an agent stop with the goal unverified.

#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "socratic/campaign/detail/campaign_id.hpp"
#include "socratic/campaign/summary.hpp"
#include "socratic/campaign/trace.hpp"
#include "socratic/campaign/trace_state.hpp"
#include "socratic/concepts.hpp"
#include "socratic/core/budget.hpp"
#include "socratic/detail/sha256.hpp"
#include "socratic/goals/stop_hook.hpp"
#include "socratic/questions/detector.hpp"

namespace socratic {

/// @brief The campaign a Stop hook belongs to. `state_dir`, `workspace` and `candidate` are
/// required.
struct StopHookConfig {
  std::string campaign_id;  ///< default: the state folder's name (its parent's when hidden)
  std::string task;
  std::filesystem::path workspace;
  Candidate candidate;
  std::filesystem::path state_dir;  ///< trace.jsonl and candidates/ live here
  Budget budget;                    ///< recorded in campaign_started (the client enforces its own)
  std::vector<std::string> scenario_ids;
  std::string arch;
  bool has_reference = false;
  std::string agent_id = "main";
  std::vector<std::shared_ptr<TriggerDetector>> detectors;
  StopHookPolicy policy;
  std::function<std::string(const EvalReport&)> summarize;  ///< default compact_summary
};

/// @brief The hook's answer: what to print and with which exit code.
struct StopHookOutcome {
  StopHookDecision decision;
  std::string stdout_text;  ///< the block object, or empty
  std::string stderr_text;  ///< a one-paragraph mirror for humans (Codex shows stderr)
  int exit_code = 0;        ///< always 0: a block is said on stdout, not by exit code
};

/// @brief Runs Stop-hook calls for one campaign (one object per process is typical).
template <Evaluator E, QuestionSource Q, GoalPredicate G>
class StopHookRunner {
 public:
  StopHookRunner(E& evaluator, Q& questions, G goal, StopHookConfig config)
      : evaluator_(evaluator), questions_(questions), goal_(std::move(goal)), config_(std::move(config)) {
    if (config_.state_dir.empty()) throw error("stop hook: state_dir is required");
    if (config_.candidate.source.empty()) throw error("stop hook: candidate.source is required");
    if (config_.campaign_id.empty()) config_.campaign_id = detail::default_campaign_id(config_.state_dir);
    if (!config_.summarize) config_.summarize = compact_summary;
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
  StopHookOutcome handle_or_throw(std::string_view stdin_text) {
    std::filesystem::create_directories(config_.state_dir / "candidates");
    trace_ = std::make_unique<TraceWriter>(trace_path());
    const std::vector<json> events = read_trace(trace_path()).events;
    TraceSummary summary = summarize_trace(events);
    state_ = std::move(summary.state);
    started_unix_s_ = summary.started.is_object() ? summary.started.value("started_unix_s", now_unix_s())
                                                  : now_unix_s();
    if (summary.started.is_null()) write_campaign_started();

    try {
      input_ = parse_stop_hook_input(stdin_text);
    } catch (const input_error& e) {
      input_.reset();
      // Without the input there is no chain to count: count the blocks of unreadable calls.
      return record_error(e.what(), count_trailing_error_blocks(events));
    }
    const int blocks_before = consecutive_blocks_before(events, *input_);

    // The turn the agent just ended: opened by the task or by the last block's reason.
    const int turn = summary.turns_started;
    state_.turn = turn;
    Message opened;
    opened.turn = turn;
    opened.text = last_block_reason(events).value_or(config_.task);
    emit("turn_started", {{"turn", turn}, {"message", opened}, {"source", "stop_hook"}});
    TurnResult ended;
    ended.final_message = input_->last_assistant_message;
    state_.last_agent_message = ended.final_message;
    emit("turn_ended", {{"turn", turn}, {"result", ended}, {"session_id", input_->session_id}});

    const EvaluationRecord& check = evaluate();
    const Verdict verdict = goal_(check.report);
    emit("verdict", {{"turn", turn}, {"evaluation_index", check.index}, {"verdict", verdict}});

    std::optional<Question> question;
    std::string reason;
    if (!verdict.met && blocks_before < config_.policy.max_consecutive_blocks) {
      question = question_at_stop(verdict, check.index);
      reason = format_block_reason(describe_goal(goal_), verdict, config_.summarize(check.report),
                                   question, blocks_before + 1, config_.policy);
    }
    return finish(decide_stop(verdict.met, false, blocks_before, config_.policy, std::move(reason)),
                  check.index);
  }

  // ---- trace -------------------------------------------------------------------------------
  static double now_unix_s() {
    return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
  }
  // Hook calls are separate processes: time runs from the campaign_started event's clock.
  double elapsed() const { return std::max(0.0, now_unix_s() - started_unix_s_); }

  void emit(const std::string& type, json payload) {
    state_.elapsed_s = elapsed();
    payload["type"] = type;
    payload["elapsed_s"] = state_.elapsed_s;
    payload["agent"] = config_.agent_id;
    trace_->write(std::move(payload));
  }

  void write_campaign_started() {
    state_.campaign_id = config_.campaign_id;
    state_.arch = config_.arch;
    state_.has_reference = config_.has_reference;
    emit("campaign_started", {{"campaign_id", config_.campaign_id},
                              {"task", config_.task},
                              {"goal", describe_goal(goal_)},
                              {"budget", config_.budget},
                              {"scenario_ids", config_.scenario_ids},
                              {"arch", config_.arch},
                              {"has_reference", config_.has_reference},
                              {"workspace", config_.workspace.string()},
                              {"candidate", config_.candidate},
                              {"driver", "stop_hook"},
                              {"started_unix_s", started_unix_s_}});
  }

  static std::optional<std::string> last_block_reason(const std::vector<json>& events) {
    for (auto it = events.rbegin(); it != events.rend(); ++it)
      if (it->value("type", "") == "hook_call")
        return it->value("decision", "") == "block" ? std::optional(it->value("reason", "")) : std::nullopt;
    return std::nullopt;
  }

  static int count_trailing_error_blocks(const std::vector<json>& events) {
    int n = 0;
    for (auto it = events.rbegin(); it != events.rend(); ++it) {
      if (it->value("type", "") != "hook_call") continue;
      if (it->value("kind", "") != "error") break;
      ++n;
    }
    return n;
  }

  StopHookOutcome finish(const StopHookDecision& d, int evaluation_index) {
    json call{{"decision", d.block ? "block" : "allow"},
              {"kind", d.kind},
              {"consecutive_blocks", d.consecutive_blocks},
              {"max_consecutive_blocks", config_.policy.max_consecutive_blocks},
              {"cap_reached", d.cap_reached},
              {"reason", d.reason},
              {"evaluation_index", evaluation_index >= 0 ? json(evaluation_index) : json(nullptr)}};
    if (input_) {
      call["stop_hook_active"] = input_->stop_hook_active;
      call["session_id"] = input_->session_id;
      if (!input_->turn_id.empty()) call["turn_id"] = input_->turn_id;
    }
    if (trace_) emit("hook_call", std::move(call));
    if (trace_) trace_->sync();
    return outcome(d);
  }

  StopHookOutcome outcome(const StopHookDecision& d) const {
    StopHookOutcome out;
    out.decision = d;
    out.stdout_text = stop_hook_stdout(d);
    out.stderr_text = "socratic hook stop: " + std::string(d.block ? "blocked" : "allowed") + " (" +
                      d.kind + ")" + (d.block ? ":\n" + d.reason : ": " + d.reason) + "\n";
    return out;
  }

  StopHookOutcome record_error(const std::string& what, int blocks_before) {
    StopHookDecision d = decide_stop(false, true, blocks_before, config_.policy,
                                     format_error_reason(what, blocks_before + 1, config_.policy));
    return finish(d, -1);
  }

  // Failure anywhere: still block, and record it when the trace can be written.
  StopHookOutcome error_outcome(const std::string& what) noexcept {
    try {
      if (trace_) return record_error(what, 0);
    } catch (...) {
    }
    StopHookPolicy p = config_.policy;
    return outcome(decide_stop(false, true, 0, p, format_error_reason(what, 1, p)));
  }

  // ---- evaluation --------------------------------------------------------------------------
  const EvaluationRecord& evaluate() {
    EvaluationRecord rec;
    rec.index = static_cast<int>(state_.evaluations.size());
    rec.turn = state_.turn;
    rec.agent_id = config_.agent_id;
    rec.origin = "stop_check";
    rec.candidate_hash = snapshot_candidate();
    Candidate candidate = config_.candidate;
    candidate.content_hash = rec.candidate_hash;
    try {
      rec.report = evaluator_.evaluate(candidate);
    } catch (const std::exception& e) {
      rec.report = EvalReport{};
      rec.report.candidate = candidate;
      rec.report.error = std::string("evaluator failed: ") + e.what();
    }
    if (rec.report.expected.empty()) rec.report.expected = config_.scenario_ids;
    state_.elapsed_s = elapsed();
    rec.elapsed_s = state_.elapsed_s;
    ++state_.spent.evaluations;
    state_.evaluations.push_back(std::move(rec));
    emit("evaluation", {{"record", state_.evaluations.back()}});
    return state_.evaluations.back();
  }

  std::string snapshot_candidate() {
    std::string bytes;
    try {
      bytes = detail::read_file_bytes(config_.candidate.source);
    } catch (const std::exception&) {
      return {};  // the evaluator reports the missing file
    }
    const std::string hash = detail::sha256_hex(bytes);
    const auto path = config_.state_dir / "candidates" / (hash + config_.candidate.source.extension().string());
    if (!std::filesystem::exists(path)) {
      const auto tmp = path.string() + ".tmp";
      {
        std::ofstream out(tmp, std::ios::binary);
        out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
      }
      std::filesystem::rename(tmp, path);
    }
    return hash;
  }

  // ---- triggers and questions --------------------------------------------------------------
  std::vector<TriggerEvent> detect(Moment moment, const Verdict* verdict) {
    std::vector<TriggerEvent> fired;
    const std::string_view message = moment == Moment::turn_end ? std::string_view(state_.last_agent_message) : "";
    DetectionContext ctx{moment, state_, message, verdict};
    for (const auto& d : config_.detectors) {
      if (!d) continue;
      std::optional<TriggerEvent> ev;
      try {
        ev = d->detect(ctx);
      } catch (const std::exception& e) {
        emit("detector_error", {{"detector", d->name()}, {"error", e.what()}});
        continue;
      }
      if (!ev) continue;
      if (ev->detector.empty()) ev->detector = d->name();
      state_.triggers.push_back(*ev);
      emit("trigger", {{"event", *ev}, {"moment", moment == Moment::turn_end ? "turn_end" : "after_evaluation"}});
      fired.push_back(*ev);
    }
    return fired;
  }

  std::optional<Question> question_at_stop(const Verdict& verdict, int evaluation_index) {
    std::vector<TriggerEvent> fired = detect(Moment::turn_end, &verdict);
    std::vector<TriggerEvent> after = detect(Moment::after_evaluation, nullptr);
    fired.insert(fired.end(), after.begin(), after.end());
    if (fired.empty()) {
      TriggerEvent plain{Trigger::claimed_limit, "stop_hook",
                         "the agent tried to stop and the goal does not hold", 10, json::object()};
      state_.triggers.push_back(plain);
      emit("trigger", {{"event", plain}, {"moment", "turn_end"}});
      fired.push_back(plain);
    }
    const TriggerEvent* top = &fired.front();
    for (const auto& e : fired)
      if (e.priority > top->priority) top = &e;
    std::optional<Question> q;
    try {
      q = questions_.ask(*top, state_);
    } catch (const std::exception& e) {
      emit("question_source_error", {{"error", e.what()}, {"trigger", top->trigger}});
      return std::nullopt;
    }
    if (!q) return std::nullopt;
    q->trigger = top->trigger;
    if (q->evidence.empty()) q->evidence = top->evidence;
    AskedQuestion asked{*q, state_.turn, evaluation_index, state_.elapsed_s};
    state_.asked.push_back(asked);
    emit("question", {{"asked", asked}});
    return q;
  }

  E& evaluator_;
  Q& questions_;
  G goal_;
  StopHookConfig config_;
  CampaignState state_;
  std::unique_ptr<TraceWriter> trace_;
  std::optional<StopHookInput> input_;
  double started_unix_s_ = now_unix_s();
};

}  // namespace socratic
