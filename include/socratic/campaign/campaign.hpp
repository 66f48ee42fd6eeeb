#pragma once
/// @file
/// @brief Campaign<A, E, Q, G>: the loop that composes an agent, an evaluator, a question source
/// and a goal, with stop-hook semantics, budgets, an append-only trace and resume.
///
/// When the agent ends its turn the campaign evaluates the candidate itself (it never trusts the
/// agent's claim), applies the goal to every scenario, and either ends or sends the agent back
/// with the unmet conditions and a question for the moment its detectors saw.

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "socratic/campaign/detail/campaign_id.hpp"
#include "socratic/campaign/summary.hpp"
#include "socratic/campaign/tools.hpp"
#include "socratic/campaign/trace.hpp"
#include "socratic/campaign/trace_state.hpp"
#include "socratic/concepts.hpp"
#include "socratic/core/budget.hpp"
#include "socratic/core/campaign_state.hpp"
#include "socratic/detail/sha256.hpp"
#include "socratic/questions/detector.hpp"

namespace socratic {

/// @brief What the live-progress callback sees after each notable step.
struct CampaignProgress {
  std::string event;  ///< `turn_started`, `evaluation`, `question`, `verdict`, `ended`
  int turn = 0;
  int evaluations = 0;
  double best_score = std::nan("");
  std::optional<Question> last_question;
  Spent spent;
};

/// @brief How a campaign runs. Only `workspace`, `candidate` and `state_dir` are required.
struct CampaignConfig {
  std::string campaign_id;  ///< default: the state folder's name (its parent's when hidden) (its parent's when hidden)
  std::string task;         ///< what the agent is asked to do (first message)
  std::filesystem::path workspace;  ///< the agent's folder
  Candidate candidate;              ///< the file the campaign evaluates (inside the workspace)
  std::filesystem::path state_dir;  ///< trace.jsonl and candidates/ snapshots live here
  Budget budget;
  std::vector<std::string> scenario_ids;  ///< expected scenarios (for reports when evaluation fails)
  std::string arch;                       ///< GPU architecture in use, for question filtering
  bool has_reference = false;             ///< another implementation exists to compare with
  std::string agent_id = "main";
  /// Detectors consulted at the campaign start, after evaluations and at unmet stops. The
  /// campaign itself fires `start` on the first turn and a plain `claimed_limit` at an unmet stop
  /// when no detector fires. questions/detectors.hpp has the reference ones.
  std::vector<std::shared_ptr<TriggerDetector>> detectors;
  bool resume = true;  ///< continue from an existing trace in state_dir
  /// Consecutive evaluator exceptions after which the campaign gives up.
  int max_evaluator_failures = 3;
  std::function<void(const CampaignProgress&)> on_progress;
  std::function<bool()> cancelled;  ///< polled between steps; true ends the campaign
  /// Formats a report for the agent; default compact_summary().
  std::function<std::string(const EvalReport&)> summarize;
};

/// @brief How a campaign ended.
struct CampaignResult {
  std::string reason;  ///< a StopReason name (see to_string(StopReason))
  bool goal_met = false;
  std::optional<EvaluationRecord> best;
  std::optional<Verdict> last_verdict;
  Spent spent;
  int turns = 0;
  std::filesystem::path trace_path;
};

/// @brief The campaign loop.
///
/// @tparam A an Agent, @tparam E an Evaluator, @tparam Q a QuestionSource, @tparam G a
/// GoalPredicate. The agent, evaluator and source are held by reference and must outlive it.
///
/// @par Example
/// @code
/// socratic::Campaign campaign(agent, evaluator, questions,
///                             socratic::goals::every_scenario_speedup_at_least{1.1}, config);
/// socratic::CampaignResult result = campaign.run();
/// @endcode
template <Agent A, Evaluator E, QuestionSource Q, GoalPredicate G>
class Campaign {
 public:
  Campaign(A& agent, E& evaluator, Q& questions, G goal, CampaignConfig config)
      : agent_(agent),
        evaluator_(evaluator),
        questions_(questions),
        goal_(std::move(goal)),
        config_(std::move(config)) {
    if (config_.state_dir.empty()) throw error("campaign: state_dir is required");
    if (config_.workspace.empty()) throw error("campaign: workspace is required");
    if (config_.candidate.source.empty()) throw error("campaign: candidate.source is required");
    if (config_.campaign_id.empty()) config_.campaign_id = detail::default_campaign_id(config_.state_dir);
    if (!config_.summarize) config_.summarize = compact_summary;
  }

  /// @brief The trace file.
  std::filesystem::path trace_path() const { return config_.state_dir / "trace.jsonl"; }
  /// @brief The campaign's memory (valid during and after run()).
  const CampaignState& state() const noexcept { return state_; }

  /// @brief Runs until the goal holds, a budget is spent, the agent fails or it is cancelled.
  /// A campaign whose trace already ends returns that ending without running again.
  CampaignResult run() {
    std::filesystem::create_directories(config_.state_dir / "candidates");
    const bool existing = std::filesystem::exists(trace_path()) &&
                          std::filesystem::file_size(trace_path()) > 0;
    if (existing && !config_.resume)
      throw error("campaign: " + trace_path().string() +
                  " already holds a trace; resume it or choose another state folder");
    trace_ = std::make_unique<TraceWriter>(trace_path());
    started_ = std::chrono::steady_clock::now();

    Message message;
    if (existing) {
      TraceSummary previous = summarize_trace(read_trace(trace_path()).events);
      state_ = std::move(previous.state);
      base_elapsed_ = state_.elapsed_s;
      last_verdict_ = previous.last_verdict;
      if (previous.ended) return finished(previous.end_reason);
      // Killed between a met verdict and its campaign_ended line: the goal already holds.
      if (last_verdict_ && last_verdict_->met) return finish(std::string(to_string(StopReason::goal_met)));
      emit("campaign_resumed", {{"turns_so_far", previous.turns_started},
                                {"evaluations_so_far", state_.evaluations.size()}});
      restore_candidate_if_missing();
      message = resume_message(previous);
    } else {
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
                                {"candidate", config_.candidate}});
      state_.turn = 0;
      message = start_message();
    }
    trace_->sync();

    while (true) {
      if (auto reason = budget_reason()) return finish(*reason);
      if (config_.cancelled && config_.cancelled()) return finish("cancelled");

      message.turn = state_.turn;
      ++state_.spent.turns;
      emit("turn_started", {{"turn", state_.turn}, {"message", message}});
      progress("turn_started");

      turn_live_usage_ = Usage{};
      Tools tools = make_tools();
      TurnResult result;
      try {
        result = agent_.turn(message, tools);
      } catch (const std::exception& e) {
        result.error = std::string("agent threw: ") + e.what();
      }
      const Usage unreported = unreported_usage(result.usage);
      add_spending(unreported);
      state_.last_agent_message = result.final_message;
      emit("turn_ended", {{"turn", state_.turn},
                          {"result", result},
                          {"unreported_usage", unreported},
                          {"spent", state_.spent}});
      trace_->sync();
      if (!result.error.empty()) return finish(std::string(to_string(StopReason::agent_error)), result.error);

      // The stop hook: judge the candidate ourselves.
      const EvaluationRecord& check = evaluate("stop_check");
      if (evaluator_failures_ >= config_.max_evaluator_failures)
        return finish(std::string(to_string(StopReason::evaluator_error)), check.report.error);
      Verdict verdict = goal_(check.report);
      last_verdict_ = verdict;
      emit("verdict", {{"turn", state_.turn}, {"evaluation_index", check.index}, {"verdict", verdict}});
      progress("verdict");
      if (verdict.met) return finish(std::string(to_string(StopReason::goal_met)));
      if (auto reason = budget_reason()) return finish(*reason);
      if (config_.cancelled && config_.cancelled()) return finish("cancelled");

      std::optional<Question> question = question_at_stop(result.final_message, verdict, check.index);
      ++state_.turn;
      message = send_back_message(verdict, question, check.report);
      trace_->sync();
    }
  }

 private:
  // ---- trace and progress ------------------------------------------------------------------
  double elapsed() const {
    return base_elapsed_ +
           std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
  }

  void emit(const std::string& type, json payload) {
    payload["type"] = type;
    payload["elapsed_s"] = elapsed();
    payload["agent"] = config_.agent_id;
    trace_->write(std::move(payload));
  }

  void progress(const std::string& event) {
    if (!config_.on_progress) return;
    CampaignProgress p;
    p.event = event;
    p.turn = state_.turn;
    p.evaluations = static_cast<int>(state_.evaluations.size());
    p.best_score = state_.best_score();
    if (!state_.asked.empty()) p.last_question = state_.asked.back().question;
    p.spent = state_.spent;
    config_.on_progress(p);
  }

  // ---- budgets -----------------------------------------------------------------------------
  // Between turns every budget counts. Within a turn the turn budget does not: the turn under
  // way was already counted when it started, and it may use its tools to the end.
  std::optional<std::string> budget_reason(bool within_turn = false) {
    state_.spent.wall_seconds = elapsed();
    state_.elapsed_s = state_.spent.wall_seconds;
    Budget budget = config_.budget;
    if (within_turn) budget.turns.reset();
    if (auto r = exhausted_budget(budget, state_.spent)) return std::string(to_string(*r));
    return std::nullopt;
  }

  void add_spending(const Usage& u) {
    state_.spent.tokens += u.total_tokens();
    state_.spent.cost_usd += u.cost_usd;
  }

  // The agent reports usage live (Tools::add_usage) and in its TurnResult; count the larger.
  Usage unreported_usage(const Usage& reported) const {
    Usage extra;
    if (reported.total_tokens() > turn_live_usage_.total_tokens()) {
      extra.input_tokens = reported.input_tokens - turn_live_usage_.input_tokens;
      extra.output_tokens = reported.output_tokens - turn_live_usage_.output_tokens;
      extra.cache_read_tokens = reported.cache_read_tokens - turn_live_usage_.cache_read_tokens;
      extra.cache_write_tokens = reported.cache_write_tokens - turn_live_usage_.cache_write_tokens;
    }
    if (reported.cost_usd > turn_live_usage_.cost_usd)
      extra.cost_usd = reported.cost_usd - turn_live_usage_.cost_usd;
    return extra;
  }

  // Tools may be used from several threads (an agent running tool calls in parallel): every
  // callback takes the campaign's lock, so state and trace see one call at a time.
  Tools make_tools() {
    auto charge = [this](std::string_view tool) {
      std::lock_guard lock(tools_mutex_);
      if (budget_reason(true)) return false;
      if (config_.cancelled && config_.cancelled()) return false;
      ++state_.spent.tool_calls;
      emit("tool_call", {{"turn", state_.turn}, {"tool", std::string(tool)}});
      return true;
    };
    auto usage = [this](const Usage& u) {
      std::lock_guard lock(tools_mutex_);
      turn_live_usage_ += u;
      add_spending(u);
      emit("usage", {{"turn", state_.turn}, {"usage", u}});
      return !budget_reason(true).has_value();
    };
    auto record = [this](const json& event) {
      std::lock_guard lock(tools_mutex_);
      emit("agent_event", {{"turn", state_.turn}, {"event", event}});
    };
    auto evaluate_tool = [this]() {
      std::lock_guard lock(tools_mutex_);
      EvaluateResult out;
      if (config_.budget.evaluations && state_.spent.agent_evaluations >= *config_.budget.evaluations) {
        out.refused = true;
        out.refusal = "evaluation budget spent (" + std::to_string(*config_.budget.evaluations) +
                      "); end your turn";
        return out;
      }
      const EvaluationRecord& rec = evaluate("agent");
      out.report = rec.report;
      out.summary = config_.summarize(rec.report);
      out.question = question_after_evaluation(rec.index);
      return out;
    };
    return Tools(config_.workspace, config_.candidate, evaluate_tool, charge, usage, record);
  }

  // ---- evaluations -------------------------------------------------------------------------
  const EvaluationRecord& evaluate(const std::string& origin) {
    EvaluationRecord rec;
    rec.index = static_cast<int>(state_.evaluations.size());
    rec.turn = state_.turn;
    rec.agent_id = config_.agent_id;
    rec.origin = origin;
    rec.candidate_hash = snapshot_candidate();
    Candidate candidate = config_.candidate;
    candidate.content_hash = rec.candidate_hash;
    try {
      rec.report = evaluator_.evaluate(candidate);
      evaluator_failures_ = 0;
    } catch (const std::exception& e) {
      ++evaluator_failures_;
      rec.report = EvalReport{};
      rec.report.candidate = candidate;
      rec.report.expected = config_.scenario_ids;
      rec.report.error = std::string("evaluator failed: ") + e.what();
    }
    if (rec.report.expected.empty()) rec.report.expected = config_.scenario_ids;
    rec.elapsed_s = elapsed();
    ++state_.spent.evaluations;
    if (origin == "agent") ++state_.spent.agent_evaluations;
    state_.evaluations.push_back(std::move(rec));
    emit("evaluation", {{"record", state_.evaluations.back()}});
    progress("evaluation");
    return state_.evaluations.back();
  }

  // Content-addressed copy of the candidate, so any evaluated version can be restored.
  std::string snapshot_candidate() {
    std::string bytes;
    try {
      bytes = detail::read_file_bytes(config_.candidate.source);
    } catch (const std::exception&) {
      return {};  // the evaluator reports the missing file
    }
    const std::string hash = detail::sha256_hex(bytes);
    const auto path = snapshot_path(hash);
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

  std::filesystem::path snapshot_path(const std::string& hash) const {
    return config_.state_dir / "candidates" / (hash + config_.candidate.source.extension().string());
  }

  void restore_candidate_if_missing() {
    if (std::filesystem::exists(config_.candidate.source)) return;
    const EvaluationRecord* from = state_.best() ? state_.best() : state_.last_evaluation();
    if (!from || from->candidate_hash.empty()) return;
    const auto snap = snapshot_path(from->candidate_hash);
    if (!std::filesystem::exists(snap)) return;
    std::filesystem::create_directories(config_.candidate.source.parent_path());
    std::filesystem::copy_file(snap, config_.candidate.source,
                               std::filesystem::copy_options::overwrite_existing);
    emit("candidate_restored", {{"from_evaluation", from->index}, {"hash", from->candidate_hash}});
  }

  // ---- triggers and questions --------------------------------------------------------------
  std::vector<TriggerEvent> detect(Moment moment, std::string_view message, const Verdict* verdict) {
    std::vector<TriggerEvent> fired;
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
      fired.push_back(*ev);
    }
    for (const auto& ev : fired) {
      state_.triggers.push_back(ev);
      emit("trigger", {{"event", ev}, {"moment", moment_name(moment)}});
    }
    return fired;
  }

  static const char* moment_name(Moment m) {
    switch (m) {
      case Moment::campaign_start: return "campaign_start";
      case Moment::after_evaluation: return "after_evaluation";
      case Moment::turn_end: return "turn_end";
    }
    return "unknown";
  }

  static const TriggerEvent* strongest(const std::vector<TriggerEvent>& events) {
    const TriggerEvent* best = nullptr;
    for (const auto& e : events)
      if (!best || e.priority > best->priority) best = &e;
    return best;
  }

  std::optional<Question> ask(const TriggerEvent& event, int after_evaluation) {
    std::optional<Question> q;
    try {
      q = questions_.ask(event, state_);
    } catch (const std::exception& e) {
      emit("question_source_error", {{"error", e.what()}, {"trigger", event.trigger}});
      return std::nullopt;
    }
    if (!q) return std::nullopt;
    q->trigger = event.trigger;
    if (q->evidence.empty()) q->evidence = event.evidence;
    AskedQuestion asked{*q, state_.turn, after_evaluation, elapsed()};
    state_.asked.push_back(asked);
    emit("question", {{"asked", asked}});
    progress("question");
    return q;
  }

  std::optional<Question> question_after_evaluation(int evaluation_index) {
    auto fired = detect(Moment::after_evaluation, {}, nullptr);
    const TriggerEvent* top = strongest(fired);
    if (!top) return std::nullopt;
    return ask(*top, evaluation_index);
  }

  std::optional<Question> question_at_stop(const std::string& final_message, const Verdict& verdict,
                                           int evaluation_index) {
    auto fired = detect(Moment::turn_end, final_message, &verdict);
    // The stop check's own evaluation may have fired too (a suspicious gain, a plateau).
    auto after_eval = detect(Moment::after_evaluation, {}, nullptr);
    fired.insert(fired.end(), after_eval.begin(), after_eval.end());
    if (fired.empty()) {
      TriggerEvent plain{Trigger::claimed_limit, "campaign",
                         "the agent ended its turn and the goal does not hold", 10, json::object()};
      state_.triggers.push_back(plain);
      emit("trigger", {{"event", plain}, {"moment", "turn_end"}});
      fired.push_back(plain);
    }
    return ask(*strongest(fired), evaluation_index);
  }

  // ---- messages ----------------------------------------------------------------------------
  static std::string question_block(const Question& q) {
    std::string out = "\nQuestion: " + q.text + "\n";
    if (!q.checks.empty()) out += "(Answer it with a measurement: " + q.checks + ")\n";
    return out;
  }

  Message start_message() {
    Message m;
    m.turn = 0;
    m.text = config_.task;
    auto fired = detect(Moment::campaign_start, {}, nullptr);
    if (fired.empty()) {
      TriggerEvent start{Trigger::start, "campaign", "first turn of the campaign", 0, json::object()};
      state_.triggers.push_back(start);
      emit("trigger", {{"event", start}, {"moment", "campaign_start"}});
      fired.push_back(start);
    }
    if (auto q = ask(*strongest(fired), -1)) {
      m.question = q;
      m.text += "\n" + question_block(*q);
    }
    return m;
  }

  Message send_back_message(const Verdict& verdict, const std::optional<Question>& question,
                            const EvalReport& report) {
    Message m;
    m.turn = state_.turn;
    m.verdict = verdict;
    m.question = question;
    m.text = "The campaign evaluated your candidate: the goal (" + describe_goal(goal_) +
             ") does not hold yet. Unmet conditions:\n" + verdict.describe() +
             "\nThe evaluation:\n" + config_.summarize(report);
    if (question) m.text += question_block(*question);
    m.text += "\nKeep working: change the candidate, measure, and end your turn when the goal holds.";
    return m;
  }

  Message resume_message(const TraceSummary& previous) {
    Message m;
    m.turn = state_.turn + 1;
    m.resumed = true;
    state_.turn = m.turn;
    m.text = config_.task + "\n\nThis campaign was interrupted and has been resumed (" +
             std::to_string(state_.evaluations.size()) + " evaluations so far).";
    if (const EvaluationRecord* best = state_.best()) {
      char buf[64];
      std::snprintf(buf, sizeof buf, "%.3f", best->score());
      m.text += " The best so far is evaluation #" + std::to_string(best->index) +
                " with a geomean speedup of " + buf + "; its source is saved as " +
                snapshot_path(best->candidate_hash).string() + ".";
    }
    if (previous.last_verdict && !previous.last_verdict->met) {
      m.verdict = previous.last_verdict;
      m.text += "\nThe last goal check found these unmet conditions:\n" + previous.last_verdict->describe();
    }
    if (previous.last_message && previous.last_message->question) {
      m.question = previous.last_message->question;
      m.text += question_block(*m.question);
    }
    return m;
  }

  // ---- ending ------------------------------------------------------------------------------
  CampaignResult finish(const std::string& reason, const std::string& detail = {}) {
    state_.spent.wall_seconds = elapsed();
    json best = nullptr;
    if (const EvaluationRecord* b = state_.best()) best = b->index;
    emit("campaign_ended", {{"reason", reason}, {"detail", detail}, {"best_evaluation", best},
                            {"spent", state_.spent}});
    trace_->sync();
    progress("ended");
    return finished(reason);
  }

  CampaignResult finished(const std::string& reason) const {
    CampaignResult r;
    r.reason = reason;
    r.goal_met = reason == to_string(StopReason::goal_met);
    if (const EvaluationRecord* b = state_.best()) r.best = *b;
    r.last_verdict = last_verdict_;
    r.spent = state_.spent;
    r.turns = state_.spent.turns;
    r.trace_path = trace_path();
    return r;
  }

  A& agent_;
  E& evaluator_;
  Q& questions_;
  G goal_;
  CampaignConfig config_;
  CampaignState state_;
  std::unique_ptr<TraceWriter> trace_;
  std::chrono::steady_clock::time_point started_;
  double base_elapsed_ = 0;
  Usage turn_live_usage_;
  std::optional<Verdict> last_verdict_;
  int evaluator_failures_ = 0;
  std::mutex tools_mutex_;
};

}  // namespace socratic
