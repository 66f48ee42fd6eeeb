#pragma once
/// @file
/// @brief ParallelCampaign: N agents at once over one campaign, coordinated through the candidate
/// store. Each agent (any type satisfying Agent, held as an AnyAgent: any.hpp) has its own workspace,
/// conversation and thread, optionally a role text and a preferred question group. When an
/// agent ends a turn its candidate is snapshotted and proposed to the coordinator, the one
/// writer of the store, which gates it against the incumbent (store/gate.hpp: measured
/// interleaved with it, in one run), appends the record, answers the agent with the verdict, the
/// store's view and a question, and asks agents for drafts when the incumbent has not moved
/// for a while (store/drafts.hpp). Turns, usage and evaluations go through CampaignEngine (trace,
/// budgets per agent and for the campaign); an admitted incumbent is judged against the
/// problem's baseline with the engine's evaluator and the goal applied to that report.
///
/// A coordinator killed at any point and run again resumes: the store cuts a torn line, the
/// engine resumes its trace, each agent's proposals are numbered from its records in the store,
/// and a proposal already stored (same key) is not gated or counted again.
///
/// @par Example
/// @code
/// socratic::ParallelCampaign campaign(evaluator, measure, questions, goal, campaign_config, parallel_config);
/// for (int i = 0; i < 4; ++i) campaign.add_agent(spec_i, socratic::AnyAgent(MyAgent{...}));
/// socratic::ParallelResult r = campaign.run();
/// @endcode

#include <atomic>
#include <cmath>
#include <cstdio>
#include <condition_variable>
#include <deque>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "socratic/any.hpp"
#include "socratic/campaign/engine.hpp"
#include "socratic/concepts.hpp"
#include "socratic/store/candidate_store.hpp"
#include "socratic/store/drafts.hpp"
#include "socratic/store/gate.hpp"

namespace socratic {

/// @brief One agent of a parallel campaign.
struct ParallelAgentSpec {
  std::string id;
  std::filesystem::path workspace;  ///< its own folder
  Candidate candidate;              ///< its candidate file, inside the workspace
  std::string role;                 ///< a role text put before its first message (empty: none)
  std::string preferred_group;      ///< the question group it prefers for drafts (empty: any)
  std::optional<Budget> budget;     ///< its engine budget (turns, tokens, cost, time)
  std::optional<int> max_proposals; ///< its gated proposals at most (counted in the store)
};

/// @brief The steps of one agent that the live progress reports.
enum class AgentStep {
  turn_started,
  proposed,
  gated,
  not_judged,  ///< a judge fault: the proposal or check was not judged
  draft,
  done,
};

constexpr std::string_view to_string(AgentStep s) noexcept {
  switch (s) {
    case AgentStep::turn_started: return "turn_started";
    case AgentStep::proposed: return "proposed";
    case AgentStep::gated: return "gated";
    case AgentStep::not_judged: return "not_judged";
    case AgentStep::draft: return "draft";
    case AgentStep::done: return "done";
  }
  return "unknown";
}

/// @brief A step of one agent, for live progress.
struct AgentProgress {
  std::string agent;
  AgentStep event = AgentStep::turn_started;
  std::string record;  ///< the record id (`gated`)
  std::optional<GateOutcome> verdict;
  std::string reason;
  std::string incumbent;  ///< the incumbent's id after this step
  int proposals = 0;      ///< this agent's records in the store
  std::string detail;
};

/// @brief How the coordinator runs.
struct ParallelConfig {
  std::filesystem::path store_dir;  ///< the candidate store (default: STATE_DIR/store)
  GateConfig gate;
  DraftConfig drafts;
  std::optional<int> max_proposals;  ///< gated proposals of the whole campaign (counted in the store)
  std::uint64_t seed = 0x5eed;       ///< the gate's base seed
  std::function<void(const AgentProgress&)> on_progress;
  StoreOptions store;
  /// A run whose agents are all done (each agent's proposals or budget spent), with no other
  /// ending, leaves the campaign open instead of ending it: no `campaign_ended`, so the next run
  /// resumes it (`campaign_resumed`), as after a kill. A suite campaign runs each problem's
  /// campaign in rounds this way (suite_campaign/suite_runner.hpp).
  bool leave_open_when_agents_done = false;
};

/// @brief How a parallel campaign ended.
struct ParallelResult {
  /// `goal_met`, `proposals_spent`, `agents_done`, a budget, `cancelled`, `waiting_for_agent`
  /// (paused, left open: an asynchronous agent has no answer yet for its next turn), or `agent_error` when
  /// an agent's work was cut by an error (a model call that failed after its retries, a CLI that
  /// could not start): like the engine's, that ending continues when run again.
  StopReason reason = StopReason::agents_done;
  std::string detail;  ///< for `agent_error`, each failed agent's error (`id: error; ...`)
  std::optional<RecordSummary> incumbent;
  std::size_t records = 0;  ///< candidate records in the store
  int gated_now = 0;        ///< proposals gated by this run (not counting resumed ones)
  int drafts = 0;           ///< drafts asked by this run
  /// The run ended `agents_done` and, as ParallelConfig::leave_open_when_agents_done asked, left
  /// the campaign open for a later run (no `campaign_ended` written).
  bool left_open = false;
};

/// @brief The coordinator. @tparam E the Evaluator that judges an incumbent against the
/// problem's baseline (for the goal), @tparam Q a QuestionSource, @tparam G a GoalPredicate.
template <Evaluator E, QuestionSource Q, GoalPredicate G>
class ParallelCampaign {
 public:
  ParallelCampaign(E& evaluator, PairMeasure measure, Q& questions, G goal, CampaignConfig campaign,
                   ParallelConfig config)
      : questions_(questions),
        goal_(goal),
        config_(prepare(std::move(config), campaign)),
        engine_(evaluator, questions, std::move(goal), std::move(campaign)),
        gate_(std::move(measure), config_.gate, config_.seed),
        store_(CandidateStore::open(config_.store_dir, config_.store)) {}

  /// @brief Adds an agent (before run()). @throws error on a duplicate or empty id.
  void add_agent(ParallelAgentSpec spec, AnyAgent agent) {
    if (spec.id.empty()) throw error("parallel campaign: an agent needs an id");
    for (const auto& s : slots_)
      if (s->spec.id == spec.id) throw error("parallel campaign: two agents named \"" + spec.id + "\"");
    if (spec.candidate.source.empty()) throw error("parallel campaign: agent \"" + spec.id + "\" has no candidate file");
    engine_.add_agent(AgentSpec{spec.id, spec.workspace, spec.candidate, spec.budget});
    auto slot = std::make_unique<Slot>(std::move(spec), std::move(agent));
    slots_.push_back(std::move(slot));
  }

  CandidateStore& store() noexcept { return store_; }
  /// @brief Leaves a note of `agent`'s for the others (safe from any thread: the store's lock
  /// keeps one writer); the others see it in their next answer.
  StoreNote note(const std::string& agent, const std::string& text) { return store_.note(agent, text); }
  CampaignEngine<E, Q, G>& engine() noexcept { return engine_; }

  /// @brief Runs every agent on its own thread and the coordinator on this one, until the goal
  /// holds on an incumbent, the proposals are spent, every agent is done, or a budget ends it.
  ParallelResult run() {
    if (slots_.empty()) throw error("parallel campaign: no agents");
    ParallelResult out;
    OpenResult opened = engine_.open(OpenOptions{false, "parallel"});
    if (opened.ended) {
      out.reason = *opened.end_reason;
      out.incumbent = store_.incumbent();
      out.records = store_.size();
      return out;
    }
    for (auto& s : slots_) s->proposals = count_of(s->spec.id);
    // What the question source sees: the campaign's identity and the questions asked, without
    // the evaluations (a copy of those per proposal would grow with the campaign).
    question_state_ = engine_.state();
    // The incumbent admitted just before a kill cut off its goal check, or whose check was not
    // judged (its judge or job failed): checked now, once. A check that judged it counts.
    if (const std::optional<RecordSummary> inc = store_.incumbent()) {
      bool checked = false;
      for (const auto& e : question_state_.evaluations)
        checked = checked || (e.origin == EvaluationOrigin::incumbent_check && e.candidate_hash == inc->hash &&
                              !e.evaluator_failed());
      if (!checked) {
        const StoreRecord r = store_.record(inc->id);
        const Candidate c{store_.dir() / r.snapshot.entry, inc->id, r.snapshot.hash, store_.dir() / r.snapshot.entry};
        if (goal_holds_on(inc->agent, c, inc->id)) {
          out.reason = StopReason::goal_met;
          out.detail = "incumbent " + inc->id;
          out.incumbent = inc;
          out.records = store_.size();
          engine_.end(out.reason, out.detail);
          return out;
        }
      }
    }
    question_state_.evaluations.clear();
    // A resumed agent is asked its last question again, so its next proposal still follows it.
    for (auto& s : slots_)
      for (auto it = question_state_.asked.rbegin(); it != question_state_.asked.rend(); ++it)
        if (it->agent_id == s->spec.id) {
          s->resumed_question = it->question;
          break;
        }
    std::vector<std::thread> threads;
    for (auto& s : slots_) threads.emplace_back([this, slot = s.get(), fresh = opened.fresh] { agent_loop(*slot, fresh); });
    coordinate(out);
    {
      std::lock_guard lock(queue_mutex_);
      stopping_ = true;
    }
    queue_cv_.notify_all();
    for (auto& s : slots_) s->answer_cv.notify_all();
    for (auto& t : threads) t.join();
    // Proposals still queued when the campaign ended are answered with the ending, not gated.
    out.incumbent = store_.incumbent();
    out.records = store_.size();
    // Paused: an agent waits for an answer it has not got (InboxAgent); the campaign stays open,
    // as after a kill, and resumes when run again. Each waiting agent is named in the trace.
    if (out.reason == StopReason::waiting_for_agent && !engine_.cancelled()) {
      for (const auto& s : slots_)
        if (!s->waiting.empty())
          engine_.record_event(s->spec.id, TraceEventType::agent_event,
                               {{"event", std::string(to_string(StopReason::waiting_for_agent))}, {"proposals", s->proposals},
                                {"detail", s->waiting}});
      out.left_open = true;
      return out;
    }
    if (config_.leave_open_when_agents_done && out.reason == StopReason::agents_done && !engine_.cancelled()) {
      out.left_open = true;
      return out;
    }
    engine_.end(out.reason, out.detail);
    return out;
  }

 private:
  struct Proposal {
    std::string agent;
    PreparedEvaluation prepared;
    Origin origin;
    std::vector<std::string> parents;
    std::string key;
  };
  struct Slot {
    Slot(ParallelAgentSpec s, AnyAgent a) : spec(std::move(s)), agent(std::move(a)) {}
    ParallelAgentSpec spec;
    AnyAgent agent;
    int proposals = 0;
    std::optional<Message> answer;  ///< the coordinator's answer to its last proposal
    bool done = false;
    std::string error;  ///< why its work was cut (empty: it ended normally)
    std::string waiting;  ///< what it waits for (an asynchronous agent paused before its turn)
    std::optional<DraftAssignment> draft;  ///< a draft asked of it, for its next turn
    std::optional<Question> last_question;
    std::optional<Question> resumed_question;  ///< the last question asked of it before this run
    std::string parent;  ///< the record its work started from
    std::int64_t notes_seen = -1;  ///< the last seq of the notes it was shown
    std::condition_variable answer_cv;
  };

  static ParallelConfig prepare(ParallelConfig c, const CampaignConfig& campaign) {
    if (c.store_dir.empty()) c.store_dir = campaign.state_dir / "store";
    return c;
  }

  int count_of(const std::string& agent) const { return store_.records_of(agent); }
  /// The index of `agent`'s last gate evaluation in this run (-1: none yet): what its question followed.
  int evaluation_of(const std::string& agent) const {
    auto it = last_evaluation_.find(agent);
    return it == last_evaluation_.end() ? -1 : it->second;
  }

  void progress(AgentProgress p) {
    if (!config_.on_progress) return;
    std::lock_guard lock(progress_mutex_);
    if (auto inc = store_.incumbent()) p.incumbent = inc->id;
    config_.on_progress(p);
  }

  bool proposals_spent() const {
    return config_.max_proposals && static_cast<int>(store_.size()) >= *config_.max_proposals;
  }

  // ---- an agent's thread ---------------------------------------------------------------------
  void agent_loop(Slot& slot, bool fresh) {
    const std::string& id = slot.spec.id;
    Message m;
    try {
      m = fresh || slot.proposals == 0 ? engine_.start_message(id) : resume_message(slot);
      if (!slot.spec.role.empty()) m.text = slot.spec.role + "\n\n" + m.text;
      slot.last_question = m.question;
      if (auto inc = store_.incumbent()) slot.parent = inc->id;
      for (;;) {
        {
          std::lock_guard lock(queue_mutex_);
          if (stopping_) break;
        }
        slot.agent.on_proposal(slot.proposals);
        // An asynchronous agent (InboxAgent) is given its next message even when this run takes
        // no more turns of it (a suite's round spent its share): the answer with the gate's
        // verdict is written out now, not lost to a later run's resume message.
        const std::optional<std::string> w = slot.agent.waiting_for(m);
        if (slot.spec.max_proposals && slot.proposals >= *slot.spec.max_proposals) break;
        if (proposals_spent() || engine_.exhausted(id) || engine_.cancelled()) break;
        // Without its answer yet it pauses before the turn begins: no turn, no proposal, no
        // error counted.
        if (w) {
          {
            std::lock_guard lock(queue_mutex_);
            slot.waiting = *w;
          }
          progress({id, AgentStep::done, {}, {}, {}, {}, slot.proposals, "waiting for " + *w});
          break;
        }
        engine_.begin_turn(id, m);
        progress({id, AgentStep::turn_started, {}, {}, {}, {}, slot.proposals, {}});
        Tools tools = engine_.tools(id);
        TurnResult r = slot.agent.turn(m, tools);
        engine_.end_turn(id, r);
        if (!r.error.empty()) {
          {
            std::lock_guard lock(queue_mutex_);
            slot.error = r.error;
          }
          progress({id, AgentStep::done, {}, {}, {}, {}, slot.proposals, "agent error: " + r.error});
          break;
        }
        Proposal p;
        p.agent = id;
        p.prepared = engine_.prepare_evaluation(id, EvaluationOrigin::gate);
        if (slot.draft) {
          p.origin = Origin{OriginKind::draft, slot.draft->question.id, slot.draft->question.text};
          if (!slot.draft->start_id.empty()) p.parents = {slot.draft->start_id};
          slot.draft.reset();
        } else {
          const bool first = slot.proposals == 0;
          p.origin = slot.last_question
                         ? Origin{first ? OriginKind::start : OriginKind::question, slot.last_question->id, slot.last_question->text}
                         : Origin{first ? OriginKind::start : OriginKind::user, {}, {}};
          if (!slot.parent.empty() && store_.summary(slot.parent)) p.parents = {slot.parent};
        }
        p.key = id + "/" + std::to_string(slot.proposals) + "/" + p.prepared.candidate.content_hash;
        progress({id, AgentStep::proposed, {}, {}, {}, {}, slot.proposals, p.key});
        std::unique_lock lock(queue_mutex_);
        queue_.push_back(std::move(p));
        queue_cv_.notify_all();
        slot.answer_cv.wait(lock, [&] { return slot.answer.has_value() || stopping_; });
        if (!slot.answer) break;
        m = std::move(*slot.answer);
        slot.answer.reset();
      }
    } catch (const std::exception& e) {
      {
        std::lock_guard lock(queue_mutex_);
        slot.error = e.what();
      }
      progress({id, AgentStep::done, {}, {}, {}, {}, slot.proposals, std::string("error: ") + e.what()});
    }
    std::lock_guard lock(queue_mutex_);
    slot.done = true;
    queue_cv_.notify_all();
  }

  Message resume_message(Slot& slot) {
    Message m;
    m.resumed = true;
    m.text = engine_.config().task + "\n\nThe campaign resumes. " + describe_view(store_.view());
    if (slot.resumed_question) {
      m.question = slot.resumed_question;
      m.text += "\nThe last question you were asked:\n" + render_question(*slot.resumed_question);
    }
    return m;
  }

  /// Each workload of a gated proposal as the gate measured it (against the incumbent it was
  /// gated against, or the problem's baseline for the first): what an agent that cannot read the
  /// store (a CLI agent in its sandbox, an inbox agent elsewhere) needs to know where it stands.
  static std::string proposal_figures(const StoreRecord& r) {
    const EvalReport& e = r.report;
    if (!e.built || e.scenarios.empty()) return {};
    std::string out = "Per workload (speedup over " +
                      (r.gate.incumbent.empty() ? std::string("the baseline") : "the incumbent " + r.gate.incumbent) + "):\n";
    char buf[160];
    for (const auto& id : e.expected) {
      const ScenarioResult* sr = e.find(id);
      if (!sr) out += "- " + id + ": no result\n";
      else if (!sr->correct) out += "- " + id + ": FAIL " + sr->reason + "\n";
      else if (std::isnan(sr->speedup)) out += "- " + id + ": correct, no speedup\n";
      else {
        std::snprintf(buf, sizeof buf, ": %.3fx (%.4g ms against %.4g ms)", sr->speedup, sr->candidate_ms, sr->baseline_ms);
        out += "- " + id + buf + "\n";
      }
    }
    return out;
  }

  std::string describe_view(const StoreView& v) const {
    std::string out;
    if (v.incumbent) {
      out += "The incumbent is " + v.incumbent->id + " (by " + v.incumbent->agent + ")";
      const auto r = store_.record(v.incumbent->id);
      out += ", its files at " + (store_.dir() / r.snapshot.entry).string() + ".\n";
    } else {
      out += "No candidate has been admitted yet.\n";
    }
    if (!v.recent_failures.empty()) {
      out += "Recent refusals and failures:\n";
      for (std::size_t i = 0; i < v.recent_failures.size() && i < 5; ++i)
        out += "- " + v.recent_failures[i].id + " (" + v.recent_failures[i].agent + ", " +
               std::string(to_string(v.recent_failures[i].verdict)) + "): " + v.recent_failures[i].reason + "\n";
    }
    for (const auto& n : v.notes) out += "Note from " + n.agent + ": " + n.text + "\n";
    return out;
  }

  // ---- the coordinator -----------------------------------------------------------------------
  void coordinate(ParallelResult& out) {
    for (;;) {
      std::optional<Proposal> next;
      {
        std::unique_lock lock(queue_mutex_);
        queue_cv_.wait(lock, [&] { return !queue_.empty() || all_done_locked(); });
        if (queue_.empty()) {
          out.reason = proposals_spent() ? StopReason::proposals_spent : StopReason::agents_done;
          // An agent cut by an error has not finished its work: the campaign ends as the
          // engine's does on a failed model call, continuable once the fault is fixed.
          if (!proposals_spent()) {
            std::string failed;
            for (const auto& s : slots_)
              if (!s->error.empty()) failed += (failed.empty() ? "" : "; ") + s->spec.id + ": " + s->error;
            std::string waiting;
            for (const auto& s : slots_)
              if (!s->waiting.empty()) waiting += (waiting.empty() ? "" : "; ") + s->spec.id + " waits for " + s->waiting;
            if (!failed.empty()) {
              out.reason = StopReason::agent_error;
              out.detail = failed + (waiting.empty() ? "" : "; " + waiting);
            } else if (!waiting.empty()) {
              out.reason = StopReason::waiting_for_agent;
              out.detail = waiting;
            }
          }
          return;
        }
        next = std::move(queue_.front());
        queue_.pop_front();
      }
      Slot& slot = slot_of(next->agent);
      Message answer;
      const bool ended = gate_and_answer(*next, slot, answer, out);
      {
        std::lock_guard lock(queue_mutex_);
        slot.answer = std::move(answer);
      }
      slot.answer_cv.notify_all();
      if (ended) return;
      if (proposals_spent()) {
        out.reason = StopReason::proposals_spent;
        return;
      }
      if (auto b = engine_.exhausted(next->agent); b && b->agent.empty()) {
        out.reason = b->reason;
        return;
      }
      if (engine_.cancelled()) {
        out.reason = StopReason::cancelled;
        return;
      }
    }
  }

  bool all_done_locked() const {
    for (const auto& s : slots_)
      if (!s->done) return false;
    return true;
  }
  Slot& slot_of(const std::string& id) {
    for (auto& s : slots_)
      if (s->spec.id == id) return *s;
    throw error("parallel campaign: no agent \"" + id + "\"");
  }

  /// The goal on `candidate` (the incumbent `record`) judged against the problem's own baseline
  /// by the engine's evaluator, recorded as `agent`'s `incumbent_check` and its verdict. A check
  /// that was not judged (its judge or job failed) is no verdict on the incumbent: the person is
  /// told, and the incumbent is checked again after the next proposal (and at a resume).
  bool goal_holds_on(const std::string& agent, const Candidate& candidate, const std::string& record) {
    const EvaluationRecord check = engine_.evaluate(engine_.prepare_evaluation(agent, EvaluationOrigin::incumbent_check, candidate));
    if (check.evaluator_failed()) {
      unchecked_incumbent_ = record;
      unmet_goal_.clear();
      const std::string why = "the goal check of incumbent " + record + " was not judged (" + check.report.error +
                              "); it runs again after the next proposal";
      progress({agent, AgentStep::not_judged, record, {}, why, {}, count_of(agent), why});
      return false;
    }
    unchecked_incumbent_.clear();
    const Verdict v = Verdict(goal_(check.report));
    engine_.record_event(agent, TraceEventType::verdict, {{"evaluation_index", check.index}, {"verdict", v}});
    if (!v.met) unmet_goal_ = "The goal does not hold yet on the incumbent " + record + " (checked against the "
                              "problem's baseline). Unmet conditions:\n" + v.describe();
    return v.met;
  }

  // Gates one proposal, appends its record and composes the agent's answer; true when the
  // campaign ends here (the goal holds on the new incumbent, or the judge cannot judge it).
  bool gate_and_answer(Proposal& p, Slot& slot, Message& answer, ParallelResult& out) {
    const std::string& id = p.agent;
    StoreRecord stored;
    bool check_goal = false;
    if (auto existing = store_.find_key(p.key)) {
      stored = store_.record(existing->id);  // gated before a kill: not again (its goal check: run())
    } else {
      std::optional<StoreRecord> gated = gate_proposal(p, slot, answer, out);
      if (!gated) return true;
      stored = std::move(*gated);
      ++out.gated_now;
      check_goal = stored.gate.verdict == GateOutcome::admitted;
    }
    slot.proposals = count_of(id);
    engine_.record_event(id, TraceEventType::gated, {{"record", stored.id}, {"verdict", std::string(to_string(stored.gate.verdict))},
                                       {"reason", stored.gate.reason}});
    progress({id, AgentStep::gated, stored.id, stored.gate.verdict, stored.gate.reason, {}, slot.proposals, {}});
    if (goal_reached(p, stored, check_goal, answer, out)) return true;
    compose_answer(slot, stored, answer, out);
    return false;
  }

  /// Judges a proposal against the incumbent and stores its record; none when no verdict could be
  /// had (the judge could not run, failed each try, or changed since the start): the campaign
  /// then stops, `out` and `answer` say why, and nothing is stored.
  std::optional<StoreRecord> gate_proposal(Proposal& p, Slot& slot, Message& answer, ParallelResult& out) {
    const std::string& id = p.agent;
    const std::optional<RecordSummary> inc = store_.incumbent();
    std::optional<Candidate> inc_candidate;
    if (inc) {
      const StoreRecord r = store_.record(inc->id);
      inc_candidate = Candidate{store_.dir() / r.snapshot.entry, inc->id, r.snapshot.hash, store_.dir() / r.snapshot.entry};
    }
    GateResult g;
    std::string judge_fault;  // no verdict on the candidate: the judge could not run, or failed each try
    bool fault_recorded = false;
    for (;;) {
      try {
        g = gate_.judge(p.prepared.candidate, inc_candidate);
      } catch (const std::exception& e) {
        judge_fault = std::string("evaluator failed: ") + e.what();
        break;
      }
      const EvalReport& judged = g.reports.back();
      if (judged.fault == EvalFault::none || !judged.judge_modified.empty()) break;
      // No verdict on the candidate (its job cancelled by the cluster, the runner not started on
      // the machine): in the trace with the reason, and judged again at once; the agent is not
      // sent back for the judge's fault. max_evaluator_failures in a row stop the campaign.
      last_evaluation_[id] = engine_.record_evaluation(p.prepared, judged).index;
      progress({id, AgentStep::not_judged, {}, {}, judged.error, {}, slot.proposals, judged.error});
      if (engine_.consecutive_evaluator_failures() >= engine_.config().max_evaluator_failures) {
        judge_fault = judged.error + " (" + std::to_string(engine_.config().max_evaluator_failures) +
                      " tries in a row)";
        fault_recorded = true;
        break;
      }
    }
    if (!judge_fault.empty()) {
      // The judge cannot run (no GPU, its set-up refused, it failed each try): not the
      // candidate's failure. No record is stored and the proposal's turn is not spent, so it
      // is judged when the campaign resumes; the person is told, the agent is not sent back
      // for it.
      if (!fault_recorded) {
        EvalReport failed;
        failed.candidate = p.prepared.candidate;
        failed.expected = engine_.config().scenario_ids;
        failed.error = judge_fault;
        failed.fault = EvalFault::harness;
        last_evaluation_[id] = engine_.record_evaluation(p.prepared, failed).index;
      }
      out.reason = StopReason::evaluator_error;
      out.detail = "the judge could not run on " + id + "'s proposal (" + judge_fault +
                   "); not the candidate's fault: nothing was stored, the proposal is judged when the campaign resumes";
      answer.text = "The judge could not run on your proposal (" + judge_fault +
                    "); it was not judged, and the campaign stops until the judge is fixed.";
      return std::nullopt;
    }
    last_evaluation_[id] = engine_.record_evaluation(p.prepared, g.reports.back()).index;
    if (const EvalReport& judged = g.reports.back(); !judged.judge_modified.empty()) {
      // The judge changed since the campaign began (its files edited, Socratic rebuilt, the
      // goal or the command changed): no retry changes that, and it is not the agent's to fix.
      progress({id, AgentStep::not_judged, {}, {}, judged.error, {}, slot.proposals, judged.error});
      out.reason = StopReason::evaluator_error;
      out.detail = "the judge changed since the campaign began (" + judged.judge_modified.front() +
                   "); not the candidate's fault: nothing was stored. Restore the judge, or start a new "
                   "campaign to judge with the changed one";
      answer.text = "Your proposal was not judged: the judge changed since the campaign began, which the "
                    "person running the campaign must settle; the campaign stops here.";
      return std::nullopt;
    }
    StoreRecord r;
    r.key = p.key;
    r.parents = p.parents;
    r.agent = id;
    r.origin = p.origin;
    if (!p.prepared.candidate.content_hash.empty()) {
      try {
        r.snapshot = store_.take_snapshot(p.prepared.candidate.judged_file());
      } catch (const std::exception&) {
      }
    }
    r.report = g.reports.back();
    if (r.report.expected.empty()) r.report.expected = engine_.config().scenario_ids;
    r.gate = g.record(config_.gate, inc ? inc->id : std::string());
    return store_.append(std::move(r)).record;
  }

  /// The goal, on a new incumbent (or one whose earlier check judged nothing) against the
  /// problem's own baseline; true when it holds and the campaign ends.
  bool goal_reached(const Proposal& p, const StoreRecord& stored, bool check_goal, Message& answer,
                    ParallelResult& out) {
    const std::string& id = p.agent;
    if (check_goal) {
      if (goal_holds_on(id, p.prepared.candidate, stored.id)) {
        out.reason = StopReason::goal_met;
        out.detail = "incumbent " + stored.id;
        answer.text = "The goal holds on " + stored.id + "; the campaign ends.";
        return true;
      }
    } else if (!unchecked_incumbent_.empty()) {
      // An earlier check of the incumbent was not judged: again, now that the judge ran once more.
      if (const std::optional<RecordSummary> inc = store_.incumbent(); inc && inc->id == unchecked_incumbent_) {
        const StoreRecord r = store_.record(inc->id);
        const Candidate c{store_.dir() / r.snapshot.entry, inc->id, r.snapshot.hash, store_.dir() / r.snapshot.entry};
        if (goal_holds_on(inc->agent, c, inc->id)) {
          out.reason = StopReason::goal_met;
          out.detail = "incumbent " + inc->id;
          answer.text = "The goal holds on the incumbent " + inc->id + "; the campaign ends.";
          return true;
        }
      } else {
        unchecked_incumbent_.clear();
      }
    }
    return false;
  }

  /// The agent's answer: the verdict, where the store stands, and a question (or a draft at a plateau).
  void compose_answer(Slot& slot, const StoreRecord& stored, Message& answer, ParallelResult& out) {
    const std::string& id = slot.spec.id;
    const StoreView view = store_.view(slot.notes_seen);
    slot.notes_seen = view.next_seq - 1;
    answer.text = "Your proposal " + stored.id + " was " + std::string(to_string(stored.gate.verdict)) + ": " +
                  stored.gate.reason + "\n" + proposal_figures(stored) + describe_view(view);
    // Why the campaign goes on: the goal's own check of the incumbent, when it found a condition unmet.
    if (!unmet_goal_.empty()) answer.text += unmet_goal_ + "\n";
    if (view.incumbent) slot.parent = view.incumbent->id;
    if (plateau_reached(view.attempts_since_admission, config_.drafts) && drafted_at_ != static_cast<int>(view.candidates)) {
      drafted_at_ = static_cast<int>(view.candidates);
      ask_for_drafts(view, out);
    }
    std::optional<DraftAssignment> draft;
    {
      std::lock_guard lock(queue_mutex_);
      if (auto it = pending_drafts_.find(id); it != pending_drafts_.end()) {
        draft = std::move(it->second);
        pending_drafts_.erase(it);
      }
    }
    if (draft) {
      if (!draft->start_id.empty()) {
        const StoreRecord start = store_.record(draft->start_id);
        CandidateSnapshots(store_.snapshot_folder()).restore(start.snapshot.hash, slot.spec.candidate.source);
      }
      slot.draft = std::move(draft);
    }
    if (slot.draft) {
      answer.question = slot.draft->question;
      answer.text += "\nThe incumbent has not moved for " + std::to_string(view.attempts_since_admission) +
                     " attempts: draft a new direction. Start from " + slot.draft->start_id + " (" +
                     std::string(to_string(slot.draft->start)) + "), restored into your candidate file.\n" +
                     render_question(slot.draft->question);
    } else {
      TriggerEvent e{stored.gate.verdict == GateOutcome::failed ? Trigger::correctness_explained_away : Trigger::claimed_limit,
                     "gate", stored.gate.reason, 10, json::object()};
      std::optional<Question> q;
      try {
        q = questions_.ask(e, question_state_);
      } catch (const std::exception&) {
      }
      if (q) {
        q->trigger = e.trigger;
        answer.question = q;
        answer.text += render_question(*q);
        question_state_.asked.push_back(engine_.record_question(id, *q, evaluation_of(id)));
      }
      slot.last_question = q;
    }
  }

  void ask_for_drafts(const StoreView& view, ParallelResult& out) {
    std::vector<std::string> agents, groups;
    std::lock_guard lock(queue_mutex_);
    for (const auto& s : slots_) {
      if (s->done) continue;
      if (config_.drafts.agents_per_plateau > 0 && static_cast<int>(agents.size()) >= config_.drafts.agents_per_plateau) break;
      agents.push_back(s->spec.id);
      groups.push_back(s->spec.preferred_group);
    }
    const auto plan = plan_drafts(questions_, question_state_, agents, groups, store_.summaries(), view.attempts_since_admission);
    for (const auto& a : plan) {
      question_state_.asked.push_back(engine_.record_question(a.agent, a.question, evaluation_of(a.agent)));
      // Given with the agent's next answer, when it waits and does not touch its files.
      pending_drafts_[a.agent] = a;
      ++out.drafts;
      engine_.record_event(a.agent, TraceEventType::draft, {{"question", a.question}, {"start", std::string(to_string(a.start))},
                                              {"start_id", a.start_id}});
      progress({a.agent, AgentStep::draft, a.start_id, {}, {}, {}, count_of(a.agent), a.question.id});
    }
  }

  Q& questions_;
  G goal_;
  ParallelConfig config_;
  CampaignEngine<E, Q, G> engine_;
  GateRunner gate_;
  CandidateStore store_;
  std::vector<std::unique_ptr<Slot>> slots_;
  std::mutex queue_mutex_, progress_mutex_;
  std::condition_variable queue_cv_;
  std::deque<Proposal> queue_;
  bool stopping_ = false;
  int drafted_at_ = -1;
  std::string unchecked_incumbent_;  ///< the incumbent whose goal check was not judged (the coordinator's thread)
  std::string unmet_goal_;  ///< what the incumbent's last judged goal check found unmet (empty: none)
  CampaignState question_state_;
  std::map<std::string, DraftAssignment, std::less<>> pending_drafts_;
  std::map<std::string, int, std::less<>> last_evaluation_;  ///< the coordinator's thread only
};

}  // namespace socratic
