#pragma once
/// @file
/// @brief CampaignEngine<E, Q, G>: the campaign core that every driver stands on. It owns the
/// campaign's state and trace (append-only JSONL, flushed per line, resumable), the candidate
/// snapshots, evaluation (with the give-up after repeated evaluator failures), detection, the
/// choice of the question and the messages sent back. Drivers decide only *when* things happen:
/// the in-process loop (campaign/campaign.hpp), the stop hook of an external agent
/// (campaign/stop_hook_runner.hpp), and drivers of several agents over one campaign.
///
/// Every step belongs to an agent id: turns, evaluations, questions and messages are recorded
/// with it, budgets hold for the campaign and for each agent. The engine is safe to call from
/// several threads (one lock over state and trace; calls to the evaluator are serialised, and a
/// driver with its own executor uses prepare_evaluation() / record_evaluation() instead).
///
/// @par A driver in a few lines
/// @code
/// socratic::CampaignEngine engine(evaluator, questions, goal, config);
/// socratic::OpenResult opened = engine.open();  // start, resume or continue
/// if (opened.ended) return engine.result(opened.end_reason, opened.end_detail);
/// socratic::Message m = opened.fresh ? engine.start_message("a") : engine.resume_message("a", opened);
/// while (!engine.exhausted("a")) {
///   engine.begin_turn("a", m);
///   socratic::Tools tools = engine.tools("a");
///   socratic::TurnResult r = my_agent.turn(m, tools);
///   engine.end_turn("a", r);
///   socratic::StopOutcome stop = engine.handle_stop("a", r.final_message);
///   if (stop.end_reason) return engine.end(*stop.end_reason, stop.end_detail);
///   if (!stop.send_back) break;  // this agent's own budget is spent
///   m = *stop.send_back;
/// }
/// @endcode

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "socratic/campaign/config.hpp"
#include "socratic/campaign/detail/campaign_id.hpp"
#include "socratic/campaign/messages.hpp"
#include "socratic/record/snapshots.hpp"
#include "socratic/record/summary.hpp"
#include "socratic/record/trace.hpp"
#include "socratic/record/trace_state.hpp"
#include "socratic/concepts.hpp"
#include "socratic/core/budget.hpp"
#include "socratic/core/campaign_state.hpp"
#include "socratic/core/tools.hpp"
#include "socratic/core/trace_events.hpp"
#include "socratic/questions/detection.hpp"

namespace socratic {

/// @brief How a driver opens a campaign.
struct OpenOptions {
  /// The driver's calls are separate processes that each handle one step (the stop hook): the
  /// campaign is taken up silently (no `campaign_resumed` line, no candidate restore) and its
  /// clock runs from the `campaign_started` event's wall time, not from this process's start.
  bool attach = false;
  std::string driver;  ///< recorded in `campaign_started` (e.g. `stop_hook`); empty: not recorded
};

/// @brief What open() found.
struct OpenResult {
  bool fresh = false;      ///< a new campaign: `campaign_started` was written now
  bool resumed = false;    ///< an interrupted campaign is taken up again
  bool continued = false;  ///< a campaign that had ended on an error (agent, evaluator) continues
  /// The trace already ends the campaign for good (or, in `goal_met_unrecorded`, should): the
  /// driver returns result(end_reason, end_detail) (or end()) without running again.
  bool ended = false;
  bool goal_met_unrecorded = false;  ///< killed between a met verdict and its `campaign_ended` line
  std::optional<StopReason> end_reason;  ///< the earlier ending (ended or continued)
  std::string end_detail;
  TraceSummary previous;             ///< what the trace held before this run
};

/// @brief An evaluation under way: the candidate read and snapshotted, not yet judged.
struct PreparedEvaluation {
  std::string agent;
  EvaluationOrigin origin = EvaluationOrigin::agent;
  int turn = 0;
  Candidate candidate;  ///< with `content_hash` and `snapshot` (empty when unreadable)
};

/// @brief How handle_stop() treats a stop.
struct StopOptions {
  bool ask = true;           ///< on an unmet goal, detect, ask and compose the send-back
  bool check_budget = true;  ///< a spent budget (or a cancellation) ends the campaign here
};

/// @brief What handle_stop() decided.
struct StopOutcome {
  EvaluationRecord check;  ///< the stop check (`reused_from` set when the content was judged before)
  std::optional<Verdict> verdict;  ///< none when the evaluator gave up before a verdict
  bool met = false;
  bool evaluator_gave_up = false;  ///< max_evaluator_failures in a row: the goal cannot be checked
  /// Set when the stop check judged nothing through no fault of the candidate (a harness or
  /// configuration fault, EvalReport::fault): the campaign ends with `evaluator_error` at once,
  /// no question is asked and the agent is not sent back; a driver tells the person.
  std::optional<EvalFault> judge_fault;
  /// Set when the campaign should end here: `goal_met`, `evaluator_error`, a budget of the
  /// campaign's, `cancelled`.
  std::optional<StopReason> end_reason;
  std::string end_detail;
  /// Set when this agent's own budget is spent (the campaign's is not): the agent is done, and a
  /// driver of several agents goes on with the others.
  std::optional<StopReason> agent_budget_spent;
  std::optional<Question> question;  ///< asked with the send-back
  std::optional<Message> send_back;  ///< the message that sends the agent back (unmet, asked)
};

/// @brief A budget that refuses more work: whose, and which.
struct BudgetStop {
  StopReason reason;
  std::string agent;  ///< empty: the campaign's budget; else the agent's own
};

/// @brief The campaign core. @tparam E an Evaluator, @tparam Q a QuestionSource, @tparam G a
/// GoalPredicate; the evaluator and the source are held by reference and must outlive it.
template <Evaluator E, QuestionSource Q, GoalPredicate G>
class CampaignEngine {
 public:
  CampaignEngine(E& evaluator, Q& questions, G goal, CampaignConfig config)
      : evaluator_(evaluator),
        questions_(questions),
        goal_(std::move(goal)),
        config_(std::move(config)),
        snapshots_(config_.state_dir / "candidates") {
    if (config_.state_dir.empty()) throw error("campaign: state_dir is required");
    if (config_.candidate.source.empty()) throw error("campaign: candidate.source is required");
    if (config_.campaign_id.empty()) config_.campaign_id = detail::default_campaign_id(config_.state_dir);
    if (!config_.summarize) config_.summarize = compact_summary;
    for (const auto& a : config_.agents) add_agent(a);
  }
  CampaignEngine(const CampaignEngine&) = delete;
  CampaignEngine& operator=(const CampaignEngine&) = delete;

  // ---- the campaign ------------------------------------------------------------------------

  /// @brief Starts the campaign, or takes up the one its trace holds. An interrupted campaign is
  /// resumed (`campaign_resumed`); one that ended on an agent or evaluator error continues
  /// (`campaign_continued`: same history, same budgets); one that ended otherwise is not run
  /// again (`ended`). Throws when `config.resume` is false and a trace exists.
  OpenResult open(OpenOptions options = {}) {
    std::lock_guard lock(mutex_);
    attach_ = options.attach;
    std::filesystem::create_directories(snapshots_.folder());
    const bool existing = std::filesystem::exists(trace_path()) && std::filesystem::file_size(trace_path()) > 0;
    if (existing && !config_.resume && !attach_)
      throw error("campaign: " + trace_path().string() +
                  " already holds a trace; resume it or choose another state folder");
    trace_ = std::make_unique<TraceWriter>(trace_path());
    history_ = existing ? read_trace(trace_path()).events : std::vector<json>{};
    opened_at_ = std::chrono::steady_clock::now();

    OpenResult out;
    out.previous = summarize_trace(history_);
    state_ = out.previous.state;
    agent_spent_ = out.previous.spent_by_agent;
    next_turn_ = out.previous.turns_started;
    base_elapsed_ = state_.elapsed_s;
    last_verdict_ = out.previous.last_verdict;
    started_unix_s_ = out.previous.started.is_object()
                          ? out.previous.started.value("started_unix_s", now_unix_s() - state_.elapsed_s)
                          : now_unix_s();
    if (out.previous.started.is_null()) {
      write_campaign_started(options.driver);
      out.fresh = true;
      trace_->sync();
      return out;
    }
    if (!out.previous.ended && !attach_ && last_verdict_ && last_verdict_->met) {
      out.ended = out.goal_met_unrecorded = true;
      out.end_reason = StopReason::goal_met;
      return out;
    }
    // The turns the last process left open were cut off when it died: the agent got nothing from
    // them, so they give their turn back to the budget (their tokens and cost stay spent).
    json cut = json::array();
    auto give_back_cut_turns = [&] {
      for (const auto& t : out.previous.open_turns) {
        --state_.spent.turns;
        --agent_spent_[t.agent].turns;
        cut.push_back({{"agent", t.agent}, {"turn", t.turn}});
      }
    };
    if (out.previous.ended) {
      out.end_reason = out.previous.end_reason;
      out.end_detail = out.previous.end_detail;
      if (!continuable(*out.end_reason)) {
        out.ended = true;
        return out;
      }
      out.continued = true;
      continuation_ = messages::Continuation{*out.end_reason, out.end_detail};
      give_back_cut_turns();
      emit_locked(config_.agent_id, TraceEventType::campaign_continued,
                  {{"previous_reason", *out.end_reason}, {"previous_detail", out.end_detail},
                   {"turns_so_far", out.previous.turns_started}, {"evaluations_so_far", state_.evaluations.size()},
                   {"cut_turns", cut}});
      progress_locked(CampaignStep::continued, config_.agent_id,
                      std::string(to_string(*out.end_reason)) + (out.end_detail.empty() ? "" : ": " + out.end_detail));
    } else if (!attach_) {
      out.resumed = true;
      give_back_cut_turns();
      emit_locked(config_.agent_id, TraceEventType::campaign_resumed,
                  {{"turns_so_far", out.previous.turns_started}, {"evaluations_so_far", state_.evaluations.size()},
                   {"cut_turns", cut}});
      progress_locked(CampaignStep::resumed, config_.agent_id, {});
    }
    if (!attach_) restore_candidate_if_missing();
    trace_->sync();
    return out;
  }

  /// @brief Whether a campaign that ended for `reason` continues when run again: an agent error
  /// (a key fixed, a server back) or an evaluator error (a GPU back) are not the campaign's end.
  static bool continuable(StopReason reason) {
    return reason == StopReason::agent_error || reason == StopReason::evaluator_error;
  }

  /// @brief Ends the campaign: writes `campaign_ended` with the reason and its detail.
  CampaignResult end(StopReason reason, const std::string& detail = {}) {
    std::lock_guard lock(mutex_);
    update_clock();
    json best = nullptr;
    if (const EvaluationRecord* b = state_.best()) best = b->index;
    emit_locked(config_.agent_id, TraceEventType::campaign_ended,
                {{"reason", reason}, {"detail", detail}, {"best_evaluation", best}, {"spent", state_.spent}});
    trace_->sync();
    const std::string name(to_string(reason));
    progress_locked(CampaignStep::ended, config_.agent_id, detail.empty() ? name : name + ": " + detail);
    return result(reason, detail);
  }

  /// @brief The result for an ending, without writing anything (a trace that already ended).
  CampaignResult result(StopReason reason, const std::string& detail = {}) const {
    std::lock_guard lock(mutex_);
    CampaignResult r;
    r.reason = reason;
    r.detail = detail;
    r.goal_met = reason == StopReason::goal_met;
    if (const EvaluationRecord* b = state_.best()) r.best = *b;
    r.last_verdict = last_verdict_;
    r.spent = state_.spent;
    r.turns = state_.spent.turns;
    r.trace_path = trace_path();
    return r;
  }

  /// @brief Registers one more agent (its workspace, candidate and budget).
  void add_agent(AgentSpec spec) {
    std::lock_guard lock(mutex_);
    if (spec.id.empty()) throw error("campaign: an agent needs an id");
    agents_[spec.id] = std::move(spec);
  }

  // ---- messages ----------------------------------------------------------------------------

  /// @brief The first message for `agent`: the task and the start question (detectors run at
  /// campaign_start; without any that fires, the campaign's own `start` trigger).
  Message start_message(std::string_view agent) {
    std::lock_guard lock(mutex_);
    Message m;
    m.turn = next_turn_;
    Detection d = detect_locked(agent, {Moment::campaign_start}, {}, nullptr);
    if (d.fired.empty())
      d = record_fallback_locked(agent, Moment::campaign_start,
                                 TriggerEvent{Trigger::start, "campaign", "first turn of the campaign", 0, json::object()});
    m.question = ask_locked(agent, *d.strongest(), -1);
    m.text = messages::start(config_.task, m.question);
    return m;
  }

  /// @brief The message that opens the first turn of a resumed or continued campaign.
  Message resume_message(std::string_view agent, const OpenResult& opened) {
    std::lock_guard lock(mutex_);
    Message m;
    m.turn = next_turn_;
    m.resumed = true;
    std::string best_snapshot;
    if (const EvaluationRecord* best = state_.best())
      best_snapshot = snapshots_.entry_of(best->candidate_hash, candidate_for(agent).source).string();
    if (opened.previous.last_verdict && !opened.previous.last_verdict->met) m.verdict = opened.previous.last_verdict;
    if (opened.previous.last_message && opened.previous.last_message->question)
      m.question = opened.previous.last_message->question;
    std::optional<int> cut_turn;
    for (const auto& t : opened.previous.open_turns)
      if (t.agent == agent) cut_turn = t.turn;
    m.text = messages::resumed(config_.task, state_, best_snapshot, opened.previous.last_verdict, m.question,
                               continuation_, cut_turn);
    return m;
  }

  // ---- turns -------------------------------------------------------------------------------

  /// @brief Opens a turn of `agent` with `message` (its `turn` is set): spends one turn of the
  /// campaign's and of the agent's budget and writes `turn_started` (plus `extra` members).
  int begin_turn(std::string_view agent, Message& message, json extra = json::object()) {
    std::lock_guard lock(mutex_);
    const int turn = next_turn_++;
    message.turn = turn;
    state_.turn = turn;
    agent_turn_[std::string(agent)] = turn;
    turn_usage_[std::string(agent)] = Usage{};
    ++state_.spent.turns;
    ++agent_spent_[std::string(agent)].turns;
    extra["turn"] = turn;
    extra["message"] = message;
    emit_locked(agent, TraceEventType::turn_started, std::move(extra));
    progress_locked(CampaignStep::turn_started, agent, {});
    return turn;
  }

  /// @brief Closes the turn of `agent`: counts the usage it reported but did not report live,
  /// keeps its last words for the detectors and writes `turn_ended` (plus `extra`).
  void end_turn(std::string_view agent, const TurnResult& result, json extra = json::object()) {
    std::unique_lock lock(mutex_);
    const Usage unreported = unreported_usage(turn_usage_[std::string(agent)], result.usage);
    add_spending_locked(agent, unreported);
    state_.last_agent_message = result.final_message;
    last_message_[std::string(agent)] = result.final_message;
    extra["turn"] = turn_of(agent);
    extra["result"] = result;
    extra["unreported_usage"] = unreported;
    extra["spent"] = state_.spent;
    emit_locked(agent, TraceEventType::turn_ended, std::move(extra));
    // fsync outside the lock: the other agents' steps need not wait for this agent's disk.
    TraceWriter* trace = trace_.get();
    lock.unlock();
    trace->sync();
  }

  /// @brief The tools lent to `agent` for its turn: workspace, candidate, the evaluate tool, and
  /// accounting that holds every budget mid-turn. Safe to use from several threads.
  Tools tools(std::string_view agent) {
    std::lock_guard lock(mutex_);
    const std::string id(agent);
    return Tools(
        workspace_for(id), candidate_for(id), [this, id] { return evaluate_tool(id); },
        [this, id](std::string_view tool) { return charge_tool(id, tool); },
        [this, id](const Usage& u) { return add_usage(id, u); },
        [this, id](const json& event) { record_agent_event(id, event); });
  }

  /// @brief Writes an event the agent records about its own work (`agent_event`).
  void record_agent_event(std::string_view agent, const json& event) {
    std::lock_guard lock(mutex_);
    emit_locked(agent, TraceEventType::agent_event, {{"turn", turn_of(agent)}, {"event", event}});
  }

  /// @brief Accounts for one tool call of `agent`; false when a budget (or a cancellation)
  /// refuses it. The turn under way may run to its end: the turn budget does not count here.
  bool charge_tool(std::string_view agent, std::string_view tool) {
    std::lock_guard lock(mutex_);
    if (exhausted_locked(agent, true) || cancelled()) return false;
    ++state_.spent.tool_calls;
    ++agent_spent_[std::string(agent)].tool_calls;
    emit_locked(agent, TraceEventType::tool_call, {{"turn", turn_of(agent)}, {"tool", std::string(tool)}});
    return true;
  }

  /// @brief Accounts for model usage reported live by `agent`; false once a budget is spent.
  bool add_usage(std::string_view agent, const Usage& u) {
    std::lock_guard lock(mutex_);
    turn_usage_[std::string(agent)] += u;
    add_spending_locked(agent, u);
    emit_locked(agent, TraceEventType::usage, {{"turn", turn_of(agent)}, {"usage", u}});
    return !exhausted_locked(agent, true);
  }

  /// @brief The agent's `evaluate` tool: refused when the evaluation budget is spent, else an
  /// evaluation of origin `agent`, its summary, and a question when a detector fired on it.
  EvaluateResult evaluate_tool(std::string_view agent) {
    EvaluateResult out;
    {
      std::lock_guard lock(mutex_);
      const Budget& b = budget_of(agent);
      const int agent_evals = agent_spent_[std::string(agent)].agent_evaluations;
      std::optional<int> limit;
      if (config_.budget.evaluations && state_.spent.agent_evaluations >= *config_.budget.evaluations)
        limit = config_.budget.evaluations;
      else if (b.evaluations && agent_evals >= *b.evaluations)
        limit = b.evaluations;
      if (limit) {
        out.refused = true;
        out.refusal = "evaluation budget spent (" + std::to_string(*limit) + "); end your turn";
        return out;
      }
    }
    const EvaluationRecord rec = evaluate(agent, EvaluationOrigin::agent);
    std::lock_guard lock(mutex_);
    out.report = rec.report;
    out.summary = config_.summarize(rec.report);
    if (rec.report.fault != EvalFault::none) return out;  // nothing judged: nothing to ask about
    Detection d = detect_locked(agent, {Moment::after_evaluation}, {}, nullptr);
    if (const TriggerEvent* top = d.strongest()) out.question = ask_locked(agent, *top, rec.index);
    return out;
  }

  // ---- evaluations -------------------------------------------------------------------------

  /// @brief Reads `agent`'s candidate (or `candidate`), snapshots it by content and returns what
  /// an evaluator needs. Pair with record_evaluation() or record_evaluator_failure().
  PreparedEvaluation prepare_evaluation(std::string_view agent, EvaluationOrigin origin,
                                        std::optional<Candidate> candidate = std::nullopt) {
    std::lock_guard lock(mutex_);
    PreparedEvaluation p;
    p.agent = std::string(agent);
    p.origin = origin;
    p.turn = turn_of(agent);
    p.candidate = snapshots_.take(candidate ? std::move(*candidate) : candidate_for(agent));
    return p;
  }

  /// @brief Records what the evaluator reported for a prepared evaluation.
  EvaluationRecord record_evaluation(const PreparedEvaluation& p, EvalReport report) {
    std::lock_guard lock(mutex_);
    EvaluationRecord rec = new_record_locked(p);
    rec.report = std::move(report);
    return push_record_locked(std::move(rec));
  }

  /// @brief Records that the evaluator threw on a prepared evaluation: every expected scenario
  /// missing, the error in the report (and counted toward max_evaluator_failures).
  EvaluationRecord record_evaluator_failure(const PreparedEvaluation& p, const std::string& what) {
    std::lock_guard lock(mutex_);
    EvaluationRecord rec = new_record_locked(p);
    rec.report.candidate = p.candidate;
    rec.report.expected = config_.scenario_ids;
    rec.report.error = "evaluator failed: " + what;
    return push_record_locked(std::move(rec));
  }

  /// @brief Evaluates `agent`'s candidate with the campaign's evaluator (exceptions caught and
  /// recorded) and records it with `origin`.
  EvaluationRecord evaluate(std::string_view agent, EvaluationOrigin origin) {
    return evaluate(prepare_evaluation(agent, origin));
  }

  /// @brief Evaluates a prepared evaluation with the campaign's evaluator and records it. A
  /// candidate file that does not exist is not handed to the evaluator (whose compiler would
  /// call it a build error): the report is a configuration fault that says so.
  EvaluationRecord evaluate(const PreparedEvaluation& p) {
    std::optional<EvalReport> report;
    std::string failure;
    if (std::error_code ec; !std::filesystem::exists(p.candidate.source, ec)) {
      EvalReport missing;
      missing.candidate = p.candidate;
      missing.expected = config_.scenario_ids;
      missing.fault = EvalFault::configuration;
      missing.error = "the candidate file " + p.candidate.source.string() +
                      " does not exist (deleted or moved?): nothing was judged";
      return record_evaluation(p, std::move(missing));
    }
    {
      std::lock_guard evaluating(evaluator_mutex_);
      try {
        report = evaluator_.evaluate(p.candidate);
      } catch (const std::exception& e) {
        failure = e.what();
      } catch (...) {
        failure = "unknown exception";
      }
    }
    return report ? record_evaluation(p, std::move(*report)) : record_evaluator_failure(p, failure);
  }

  /// @brief Evaluator failures in a row at the end of the history.
  int consecutive_evaluator_failures() const {
    std::lock_guard lock(mutex_);
    int n = 0;
    for (auto it = state_.evaluations.rbegin(); it != state_.evaluations.rend() && it->evaluator_failed(); ++it) ++n;
    return n;
  }

  // ---- the stop ----------------------------------------------------------------------------

  /// @brief `agent` tried to stop: the campaign judges the candidate itself (or repeats the
  /// judgement of unchanged content), applies the goal to every scenario, and, when the goal
  /// does not hold and the campaign goes on, runs the detectors, asks the strongest trigger's
  /// question and composes the send-back message.
  StopOutcome handle_stop(std::string_view agent, std::string_view final_message, StopOptions options = {}) {
    StopOutcome out;
    const PreparedEvaluation p = prepare_evaluation(agent, EvaluationOrigin::stop_check);
    if (auto earlier = repeat_judgement(p))
      out.check = std::move(*earlier);
    else
      out.check = evaluate(p);
    std::lock_guard lock(mutex_);
    // A judge fault is no verdict on the candidate: the campaign ends here and says why, rather
    // than send the agent back to change a candidate that was never judged.
    if (out.check.report.fault != EvalFault::none) {
      out.judge_fault = out.check.report.fault;
      out.end_reason = StopReason::evaluator_error;
      out.end_detail = out.check.report.error;
      return out;
    }
    if (consecutive_evaluator_failures() >= config_.max_evaluator_failures) {
      out.evaluator_gave_up = true;
      out.end_reason = StopReason::evaluator_error;
      out.end_detail = out.check.report.error;
      return out;
    }
    out.verdict = Verdict(goal_(out.check.report));
    out.met = out.verdict->met;
    last_verdict_ = out.verdict;
    emit_locked(agent, TraceEventType::verdict, {{"turn", turn_of(agent)}, {"evaluation_index", out.check.index}, {"verdict", *out.verdict}});
    progress_locked(CampaignStep::verdict, agent, {});
    if (out.met) {
      out.end_reason = StopReason::goal_met;
      return out;
    }
    if (options.check_budget) {
      if (auto b = exhausted_locked(agent, false)) {
        if (b->agent.empty())
          out.end_reason = b->reason;
        else
          out.agent_budget_spent = b->reason;
        return out;
      }
      if (cancelled()) {
        out.end_reason = StopReason::cancelled;
        return out;
      }
    }
    if (!options.ask) return out;
    Detection d = detect_locked(agent, moments_at_stop(), final_message, &*out.verdict);
    if (d.fired.empty())
      d = record_fallback_locked(agent, Moment::turn_end,
                                 TriggerEvent{Trigger::claimed_limit, "campaign",
                                              "the agent ended its turn and the goal does not hold", 10, json::object()});
    out.question = ask_locked(agent, *d.strongest(), out.check.index);
    Message m;
    m.turn = next_turn_;
    m.verdict = out.verdict;
    m.question = out.question;
    m.text = messages::send_back(describe_goal(goal_), *out.verdict, out.check, config_.summarize(out.check.report),
                                 out.question);
    out.send_back = std::move(m);
    return out;
  }

  // ---- budgets and state -------------------------------------------------------------------

  /// @brief The first budget that refuses more work for `agent` (the campaign's, then its own).
  /// Within a turn the turn budget does not count: the turn under way may use its tools.
  std::optional<BudgetStop> exhausted(std::string_view agent, bool within_turn = false) {
    std::lock_guard lock(mutex_);
    return exhausted_locked(agent, within_turn);
  }
  /// @brief exhausted() as a stop reason, whoever's budget it is.
  std::optional<StopReason> budget_reason(std::string_view agent, bool within_turn = false) {
    auto b = exhausted(agent, within_turn);
    return b ? std::optional<StopReason>(b->reason) : std::nullopt;
  }
  /// @brief Whether the campaign's `cancelled` callback says stop.
  bool cancelled() const { return config_.cancelled && config_.cancelled(); }

  /// @brief Writes a driver's own event (e.g. the stop hook's `hook_call`) for `agent`.
  void record_event(std::string_view agent, TraceEventType type, json payload) {
    std::lock_guard lock(mutex_);
    emit_locked(agent, type, std::move(payload));
  }
  /// @brief Records a question a driver asked `agent` itself (e.g. a parallel coordinator's
  /// question after a gate, or a draft at a plateau) as the engine records its own: a `question`
  /// event with the AskedQuestion (the agent's turn, the evaluation it followed), in the state's
  /// questions, so the report and the credit rule see it. @returns what was recorded.
  AskedQuestion record_question(std::string_view agent, const Question& question, int after_evaluation) {
    std::lock_guard lock(mutex_);
    update_clock();
    AskedQuestion asked{question, turn_of(agent), after_evaluation, state_.elapsed_s, std::string(agent)};
    state_.asked.push_back(asked);
    emit_locked(agent, TraceEventType::question, {{"asked", asked}});
    progress_locked(CampaignStep::question, agent, {});
    return asked;
  }
  /// @brief Forces the trace to disk.
  void sync() {
    std::lock_guard lock(mutex_);
    if (trace_) trace_->sync();
  }

  /// @brief The campaign's memory (a copy: other threads may be changing it).
  CampaignState state() const {
    std::lock_guard lock(mutex_);
    return state_;
  }
  /// @brief What `agent` has spent.
  Spent spent(std::string_view agent) const {
    std::lock_guard lock(mutex_);
    auto it = agent_spent_.find(agent);
    Spent s = it == agent_spent_.end() ? Spent{} : it->second;
    s.wall_seconds = state_.spent.wall_seconds;
    return s;
  }
  /// @brief The trace's events as open() read them (before anything this run wrote).
  const std::vector<json>& history() const noexcept { return history_; }
  const CampaignConfig& config() const noexcept { return config_; }
  std::filesystem::path trace_path() const { return config_.state_dir / "trace.jsonl"; }
  const CandidateSnapshots& snapshots() const noexcept { return snapshots_; }
  std::string goal_description() const { return describe_goal(goal_); }
  /// @brief Seconds since the campaign began (resumed time included).
  double elapsed() const {
    if (attach_) return std::max(0.0, now_unix_s() - started_unix_s_);
    return base_elapsed_ + std::chrono::duration<double>(std::chrono::steady_clock::now() - opened_at_).count();
  }

 private:
  static double now_unix_s() {
    return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
  }

  // ---- agents ------------------------------------------------------------------------------
  const AgentSpec* spec_of(std::string_view agent) const {
    auto it = agents_.find(agent);
    return it == agents_.end() ? nullptr : &it->second;
  }
  Candidate candidate_for(std::string_view agent) const {
    const AgentSpec* s = spec_of(agent);
    return s && !s->candidate.source.empty() ? s->candidate : config_.candidate;
  }
  std::filesystem::path workspace_for(std::string_view agent) const {
    const AgentSpec* s = spec_of(agent);
    return s && !s->workspace.empty() ? s->workspace : config_.workspace;
  }
  const Budget& budget_of(std::string_view agent) const {
    const AgentSpec* s = spec_of(agent);
    return s && s->budget ? *s->budget : config_.agent_budget;
  }
  int turn_of(std::string_view agent) const {
    auto it = agent_turn_.find(agent);
    return it == agent_turn_.end() ? state_.turn : it->second;
  }

  // ---- trace, clock, progress ----------------------------------------------------------------
  void update_clock() {
    state_.elapsed_s = elapsed();
    state_.spent.wall_seconds = state_.elapsed_s;
  }

  void emit_locked(std::string_view agent, TraceEventType type, json payload) {
    if (!trace_) throw error("campaign: the trace is not open (call open() first)");
    update_clock();
    payload["type"] = std::string(to_string(type));
    payload["elapsed_s"] = state_.elapsed_s;
    payload["agent"] = std::string(agent);
    trace_->write(std::move(payload));
  }

  void write_campaign_started(const std::string& driver) {
    state_.campaign_id = config_.campaign_id;
    state_.arch = config_.arch;
    state_.has_reference = config_.has_reference;
    json started{{"campaign_id", config_.campaign_id},
                 {"task", config_.task},
                 {"goal", describe_goal(goal_)},
                 {"budget", config_.budget},
                 {"scenario_ids", config_.scenario_ids},
                 {"arch", config_.arch},
                 {"has_reference", config_.has_reference},
                 {"workspace", config_.workspace.string()},
                 {"candidate", config_.candidate},
                 {"started_unix_s", started_unix_s_}};
    if (config_.agent_budget != Budget{}) started["agent_budget"] = config_.agent_budget;
    if (!driver.empty()) started["driver"] = driver;
    emit_locked(config_.agent_id, TraceEventType::campaign_started, std::move(started));
  }

  void progress_locked(CampaignStep event, std::string_view agent, std::string detail) {
    if (!config_.on_progress) return;
    CampaignProgress p;
    p.event = event;
    p.agent = std::string(agent);
    p.turn = state_.turn;
    p.evaluations = static_cast<int>(state_.evaluations.size());
    p.best_score = state_.best_score();
    if (!state_.asked.empty()) p.last_question = state_.asked.back().question;
    p.spent = state_.spent;
    p.detail = std::move(detail);
    config_.on_progress(p);
  }

  void restore_candidate_if_missing() {
    if (std::filesystem::exists(config_.candidate.source)) return;
    const EvaluationRecord* from = state_.best() ? state_.best() : state_.last_evaluation();
    if (!from || !snapshots_.restore(from->candidate_hash, config_.candidate.source)) return;
    emit_locked(config_.agent_id, TraceEventType::candidate_restored, {{"from_evaluation", from->index}, {"hash", from->candidate_hash}});
  }

  // ---- budgets -----------------------------------------------------------------------------
  std::optional<BudgetStop> exhausted_locked(std::string_view agent, bool within_turn) {
    update_clock();
    if (auto r = exhausted_budget(config_.budget, state_.spent, !within_turn)) return BudgetStop{*r, {}};
    Spent mine = agent_spent_[std::string(agent)];
    mine.wall_seconds = state_.spent.wall_seconds;
    if (auto r = exhausted_budget(budget_of(agent), mine, !within_turn)) return BudgetStop{*r, std::string(agent)};
    return std::nullopt;
  }

  void add_spending_locked(std::string_view agent, const Usage& u) {
    Spent& mine = agent_spent_[std::string(agent)];
    state_.spent.tokens += u.total_tokens();
    state_.spent.cost_usd += u.cost_usd;
    mine.tokens += u.total_tokens();
    mine.cost_usd += u.cost_usd;
  }

  // An agent reports usage live (Tools::add_usage) and in its TurnResult; count the larger.
  static Usage unreported_usage(const Usage& live, const Usage& reported) {
    Usage extra;
    if (reported.total_tokens() > live.total_tokens()) {
      extra.input_tokens = reported.input_tokens - live.input_tokens;
      extra.output_tokens = reported.output_tokens - live.output_tokens;
      extra.cache_read_tokens = reported.cache_read_tokens - live.cache_read_tokens;
      extra.cache_write_tokens = reported.cache_write_tokens - live.cache_write_tokens;
    }
    if (reported.cost_usd > live.cost_usd) extra.cost_usd = reported.cost_usd - live.cost_usd;
    return extra;
  }

  // ---- evaluations -------------------------------------------------------------------------
  EvaluationRecord new_record_locked(const PreparedEvaluation& p) const {
    EvaluationRecord rec;
    rec.turn = p.turn;
    rec.agent_id = p.agent;
    rec.origin = p.origin;
    rec.candidate_hash = p.candidate.content_hash;
    rec.judge = config_.judge;
    return rec;
  }

  EvaluationRecord push_record_locked(EvaluationRecord rec) {
    rec.index = static_cast<int>(state_.evaluations.size());
    if (rec.report.expected.empty()) rec.report.expected = config_.scenario_ids;
    update_clock();
    rec.elapsed_s = state_.elapsed_s;
    ++state_.spent.evaluations;
    Spent& mine = agent_spent_[rec.agent_id];
    ++mine.evaluations;
    if (rec.origin == EvaluationOrigin::agent) ++state_.spent.agent_evaluations, ++mine.agent_evaluations;
    state_.evaluations.push_back(rec);
    emit_locked(rec.agent_id, TraceEventType::evaluation, {{"record", rec}});
    // A judge changed since the campaign's start is named in the trace, not only in a report.
    if (!rec.report.judge_modified.empty())
      emit_locked(rec.agent_id, TraceEventType::judge_modified, {{"evaluation_index", rec.index}, {"files", rec.report.judge_modified}});
    progress_locked(CampaignStep::evaluation, rec.agent_id, {});
    return rec;
  }

  // The stop check of content judged before: a copy of the latest usable judgement of the same
  // bytes, recorded as a stop check that says where it came from.
  std::optional<EvaluationRecord> repeat_judgement(const PreparedEvaluation& p) {
    if (!config_.reuse_unchanged_judgement) return std::nullopt;
    std::lock_guard lock(mutex_);
    if (p.candidate.content_hash.empty()) return std::nullopt;
    for (auto it = state_.evaluations.rbegin(); it != state_.evaluations.rend(); ++it) {
      if (it->candidate_hash != p.candidate.content_hash || it->judge != config_.judge || !it->report.error.empty())
        continue;
      EvaluationRecord rec = new_record_locked(p);
      rec.report = it->report;
      rec.report.candidate = p.candidate;
      rec.reused_from = it->reused_from ? *it->reused_from : it->index;
      return push_record_locked(std::move(rec));
    }
    return std::nullopt;
  }

  // ---- triggers and questions --------------------------------------------------------------
  Detection detect_locked(std::string_view agent, const std::vector<Moment>& moments, std::string_view message,
                          const Verdict* verdict) {
    Detection d = detect_triggers(config_.detectors, moments, state_, message, verdict, agent);
    for (const auto& f : d.failures) emit_locked(agent, TraceEventType::detector_error, {{"detector", f.detector}, {"error", f.error}});
    for (const auto& f : d.fired) {
      state_.triggers.push_back(f.event);
      emit_locked(agent, TraceEventType::trigger, {{"event", f.event}, {"moment", std::string(to_string(f.moment))}});
    }
    return d;
  }

  Detection record_fallback_locked(std::string_view agent, Moment moment, TriggerEvent event) {
    Detection d;
    state_.triggers.push_back(event);
    emit_locked(agent, TraceEventType::trigger, {{"event", event}, {"moment", std::string(to_string(moment))}});
    d.fired.push_back({moment, std::move(event)});
    d.chosen = 0;
    return d;
  }

  std::optional<Question> ask_locked(std::string_view agent, const TriggerEvent& event, int after_evaluation) {
    std::optional<Question> q;
    try {
      q = questions_.ask(event, state_);
    } catch (const std::exception& e) {
      emit_locked(agent, TraceEventType::question_source_error, {{"error", e.what()}, {"trigger", event.trigger}});
      return std::nullopt;
    }
    if (!q) return std::nullopt;
    q->trigger = event.trigger;
    if (q->evidence.empty()) q->evidence = event.evidence;
    AskedQuestion asked{*q, turn_of(agent), after_evaluation, state_.elapsed_s, std::string(agent)};
    state_.asked.push_back(asked);
    emit_locked(agent, TraceEventType::question, {{"asked", asked}});
    progress_locked(CampaignStep::question, agent, {});
    return q;
  }

  E& evaluator_;
  Q& questions_;
  G goal_;
  CampaignConfig config_;
  CandidateSnapshots snapshots_;
  mutable std::recursive_mutex mutex_;
  std::mutex evaluator_mutex_;
  CampaignState state_;
  std::unique_ptr<TraceWriter> trace_;
  std::vector<json> history_;
  std::map<std::string, AgentSpec, std::less<>> agents_;
  std::map<std::string, Spent, std::less<>> agent_spent_;
  std::map<std::string, int, std::less<>> agent_turn_;
  std::map<std::string, Usage, std::less<>> turn_usage_;
  std::map<std::string, std::string, std::less<>> last_message_;
  std::optional<Verdict> last_verdict_;
  std::optional<messages::Continuation> continuation_;
  bool attach_ = false;
  int next_turn_ = 0;
  double base_elapsed_ = 0;
  double started_unix_s_ = 0;
  std::chrono::steady_clock::time_point opened_at_ = std::chrono::steady_clock::now();
};

}  // namespace socratic
