#pragma once
/// @file
/// @brief SuiteRunner: a campaign over a suite of problems, in rounds. Each round the policy
/// (policy.hpp) assigns the suite's agents to the open problems, each agent is given a number of
/// proposals on its problem (its records in that problem's store may grow by at most
/// `proposals_per_round`), and every problem with agents runs its own campaign for the round,
/// all at once (a callback: the tool runs a ParallelCampaign over the problem's own state, trace
/// and store, left open between rounds). Between rounds the standings are read again from each
/// problem's record, the suite's budgets and goal are checked, and the next round is planned.
///
/// What the suite keeps of its own is small: `STATE/suite.json` (the round under way, its
/// assignment and its per-agent targets, the time spent; written atomically, before the round
/// runs) and `STATE/suite_trace.jsonl` (the suite's events: each round's plan and every move with
/// its reason, each problem's end, the suite's end). Killed at any point and run again, the round
/// under way runs again with the same targets: every problem's campaign resumes from its own
/// trace and store (a proposal already stored is not gated again), so nothing is counted twice,
/// and a round's plan is logged once (its `round_planned` line is looked for before it is written).

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "socratic/core/error.hpp"
#include "socratic/core/files.hpp"
#include "socratic/core/json.hpp"
#include "socratic/record/trace.hpp"
#include "socratic/suite_campaign/policy.hpp"
#include "socratic/suite_campaign/standing.hpp"
#include "socratic/suite_campaign/suite_trace_events.hpp"

namespace socratic {

/// @brief Why a suite campaign ended.
enum class SuiteEndReason {
  goal_met,         ///< every problem's goal holds
  problems_done,    ///< every problem's campaign ended (goals, budgets), not all goals met
  proposals_spent,  ///< the suite's proposals (records in all stores) are spent
  turn_budget,      ///< the suite's turns (all problems' traces) are spent
  token_budget,
  cost_budget,
  wall_time_budget,
  no_progress,  ///< a whole round added no record to any store: every assigned agent is done or failing
  /// paused, not ended: a round added no record and an asynchronous agent (InboxAgent) waits for
  /// its answer; the suite resumes when run again (suite.json keeps no ending)
  waiting_for_agent,
};

constexpr std::string_view to_string(SuiteEndReason r) noexcept {
  switch (r) {
    case SuiteEndReason::goal_met: return "goal_met";
    case SuiteEndReason::problems_done: return "problems_done";
    case SuiteEndReason::proposals_spent: return "proposals_spent";
    case SuiteEndReason::turn_budget: return "turn_budget";
    case SuiteEndReason::token_budget: return "token_budget";
    case SuiteEndReason::cost_budget: return "cost_budget";
    case SuiteEndReason::wall_time_budget: return "wall_time_budget";
    case SuiteEndReason::no_progress: return "no_progress";
    case SuiteEndReason::waiting_for_agent: return "waiting_for_agent";
  }
  return "unknown";
}

inline SuiteEndReason parse_suite_end_reason(const std::string& s, const std::string& where) {
  for (auto r : {SuiteEndReason::goal_met, SuiteEndReason::problems_done, SuiteEndReason::proposals_spent,
                 SuiteEndReason::turn_budget, SuiteEndReason::token_budget, SuiteEndReason::cost_budget,
                 SuiteEndReason::wall_time_budget, SuiteEndReason::no_progress, SuiteEndReason::waiting_for_agent})
    if (to_string(r) == s) return r;
  throw input_error({}, where, "\"" + s + "\" is not a suite ending");
}

/// @brief The suite's own limits, over all its problems (absent: none). Checked between rounds.
struct SuiteBudget {
  std::optional<int> proposals;  ///< candidate records in all the problems' stores
  std::optional<int> turns;
  std::optional<long long> tokens;
  std::optional<double> cost_usd;
  std::optional<double> wall_seconds;  ///< the suite's own running time, over all its runs
};

inline void to_json(json& j, const SuiteBudget& b) {
  j = json::object();
  j["proposals"] = b.proposals ? json(*b.proposals) : json(nullptr);
  j["turns"] = b.turns ? json(*b.turns) : json(nullptr);
  j["tokens"] = b.tokens ? json(*b.tokens) : json(nullptr);
  j["cost_usd"] = b.cost_usd ? json(*b.cost_usd) : json(nullptr);
  j["wall_seconds"] = b.wall_seconds ? json(*b.wall_seconds) : json(nullptr);
}

/// @brief How the suite runs.
struct SuiteConfig {
  std::filesystem::path state_dir;       ///< suite.json and suite_trace.jsonl
  std::vector<std::string> agents;       ///< the agents' ids, in order
  std::vector<std::string> problems;     ///< the problems' names, in order
  SuitePolicy policy;
  int proposals_per_round = 2;           ///< each agent's proposals on its problem per round
  SuiteBudget budget;
};

/// @brief One problem's share of a round: its agents and, for each, the store records it may
/// reach this round (its records there so far plus its share).
struct SuiteRoundWork {
  int round = 0;
  std::string problem;
  std::vector<std::string> agents;
  std::map<std::string, int> targets;
};

/// @brief What one problem's round did.
struct SuiteRoundOutcome {
  std::optional<StopReason> reason;  ///< how its campaign's run ended
  bool left_open = false;            ///< its campaign goes on in a later round
  std::string detail;
  std::string error;  ///< the round could not run (an exception): said, the suite goes on
};

/// @brief How the suite ended.
struct SuiteResult {
  SuiteEndReason reason = SuiteEndReason::no_progress;
  std::string detail;
  int rounds = 0;        ///< rounds planned, over all runs
  int rounds_now = 0;    ///< rounds run by this run
  std::vector<ProblemStanding> standings;
  bool already_ended = false;  ///< the suite had ended before this run; nothing ran
  /// `waiting_for_agent`: this run paused, the suite has not ended (run it again to resume)
  bool paused = false;
};

/// @brief The suite's own state (`STATE/suite.json`).
struct SuiteState {
  int round = 0;          ///< the last round planned (0: none)
  bool in_progress = false;  ///< that round has not finished
  std::map<std::string, std::string> assignment;         ///< agent -> problem
  std::map<std::string, std::map<std::string, int>> targets;  ///< problem -> agent -> records
  std::vector<AgentMove> moves;  ///< the round's moves (for its log line)
  int records_at_plan = 0;       ///< records in all stores when the round was planned
  double elapsed_s = 0;          ///< time spent in rounds, over all runs
  std::optional<SuiteEndReason> ended;
  std::string end_detail;
};

inline void to_json(json& j, const AgentMove& m) {
  j = json{{"agent", m.agent}, {"from", m.from}, {"to", m.to}, {"reason", m.reason}};
}
inline void from_json(const json& j, AgentMove& m) {
  m.agent = j.at("agent").get<std::string>();
  m.from = j.value("from", "");
  m.to = j.at("to").get<std::string>();
  m.reason = j.value("reason", "");
}

inline void to_json(json& j, const SuiteState& s) {
  j = json{{"schema_version", 1}, {"round", s.round}, {"in_progress", s.in_progress}, {"assignment", s.assignment},
           {"targets", s.targets}, {"moves", s.moves}, {"records_at_plan", s.records_at_plan},
           {"elapsed_s", s.elapsed_s},
           {"ended", s.ended ? json(std::string(to_string(*s.ended))) : json(nullptr)}, {"end_detail", s.end_detail}};
}
inline void from_json(const json& j, SuiteState& s) {
  check_schema_version(j, "suite state");
  s.round = j.value("round", 0);
  s.in_progress = j.value("in_progress", false);
  s.assignment = j.value("assignment", std::map<std::string, std::string>{});
  s.targets = j.value("targets", std::map<std::string, std::map<std::string, int>>{});
  s.moves = j.value("moves", std::vector<AgentMove>{});
  s.records_at_plan = j.value("records_at_plan", 0);
  s.elapsed_s = j.value("elapsed_s", 0.0);
  if (j.contains("ended") && j["ended"].is_string())
    s.ended = parse_suite_end_reason(j["ended"].get<std::string>(), "suite state field \"ended\"");
  s.end_detail = j.value("end_detail", "");
}

/// @brief Runs a suite (see the file comment). The callbacks: `standing(problem)` reads a
/// problem's standing from its record; `run_round(work)` runs one problem's round (called from
/// one thread per problem, all at once); `on_round(result so far, state)` after each plan and
/// each round, for progress.
class SuiteRunner {
 public:
  using StandingFn = std::function<ProblemStanding(const std::string& problem)>;
  using RoundFn = std::function<SuiteRoundOutcome(const SuiteRoundWork& work)>;
  using ProgressFn = std::function<void(SuiteEventType event, const SuiteState& state,
                                        const std::vector<ProblemStanding>& standings)>;

  SuiteRunner(SuiteConfig config, StandingFn standing, RoundFn run_round, ProgressFn on_progress = {})
      : config_(std::move(config)), standing_(std::move(standing)), run_round_(std::move(run_round)),
        on_progress_(std::move(on_progress)) {
    if (config_.state_dir.empty()) throw error("suite: state_dir is required");
    if (config_.agents.empty()) throw error("suite: no agents");
    if (config_.problems.empty()) throw error("suite: no problems");
    if (config_.proposals_per_round < 1) throw error("suite: proposals_per_round must be at least 1");
  }

  std::filesystem::path state_path() const { return config_.state_dir / "suite.json"; }
  std::filesystem::path trace_path() const { return config_.state_dir / "suite_trace.jsonl"; }

  /// @brief The suite's state as its file holds it (a fresh state when there is none).
  SuiteState load_state() const {
    if (!std::filesystem::exists(state_path())) return {};
    return read_json_file(state_path()).get<SuiteState>();
  }

  SuiteResult run() {
    std::filesystem::create_directories(config_.state_dir);
    SuiteState state = load_state();
    TraceWriter trace(trace_path());
    SuiteResult out;
    if (state.ended) {
      out.reason = *state.ended;
      out.detail = state.end_detail;
      out.rounds = state.round;
      out.standings = standings();
      out.already_ended = true;
      return out;
    }
    if (state.round == 0 && !state.in_progress && !trace_has(SuiteEventType::suite_started, -1))
      trace.write(suite_event(SuiteEventType::suite_started, {{"agents", config_.agents}, {"problems", config_.problems},
                   {"policy", std::string(to_string(config_.policy.kind))}, {"proposals_per_round", config_.proposals_per_round},
                   {"budget", config_.budget}}));
    const auto began = std::chrono::steady_clock::now();
    const double elapsed_before = state.elapsed_s;
    auto elapsed = [&] {
      return elapsed_before + std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
    };
    for (;;) {
      std::vector<ProblemStanding> st = standings();
      if (!state.in_progress) {
        // Between rounds: the endings, then the next plan, saved before it runs.
        if (auto end = ending(st, elapsed())) {
          finish(state, trace, *end, st, out, elapsed());
          return out;
        }
        SuitePlan plan = plan_round(config_.policy, config_.agents, st, state.assignment);
        if (plan.assignment.empty()) {
          finish(state, trace, {SuiteEndReason::problems_done, "no open problem"}, st, out, elapsed());
          return out;
        }
        start_round(state, std::move(plan), st, elapsed());
      }
      log_plan(trace, state);
      if (on_progress_) on_progress_(SuiteEventType::round_planned, state, st);

      // The round: every problem with agents at once.
      const std::vector<SuiteRoundWork> work = round_work(state);
      const std::vector<SuiteRoundOutcome> outcomes = run_round_work(work);
      ++out.rounds_now;
      st = standings();
      const auto [errors, waiting] = close_round(trace, state, work, outcomes, st);
      trace.write(suite_event(SuiteEventType::round_ended, {{"round", state.round}, {"records", total_records(st)},
                   {"errors", errors}}));
      const bool progressed = total_records(st) > state.records_at_plan;
      state.in_progress = false;
      state.elapsed_s = elapsed();
      save(state);
      if (on_progress_) on_progress_(SuiteEventType::round_ended, state, st);
      if (!progressed && !waiting.empty() && !ending(st, elapsed())) {
        // Paused: nothing more happens until an outside agent answers. No ending is saved, so
        // the same command resumes; the round is over, the next run plans a new one.
        trace.write(suite_event(SuiteEventType::suite_paused, {{"round", state.round},
                     {"reason", std::string(to_string(SuiteEndReason::waiting_for_agent))}, {"detail", waiting}}));
        out.reason = SuiteEndReason::waiting_for_agent;
        out.detail = waiting;
        out.rounds = state.round;
        out.standings = std::move(st);
        out.paused = true;
        return out;
      }
      if (!progressed && !work.empty() &&
          std::all_of(outcomes.begin(), outcomes.end(), [](const SuiteRoundOutcome& o) {
            return !o.error.empty() || o.reason == StopReason::evaluator_error;
          })) {
        // No problem's campaign could run at all (a campaign file, an evaluator's settings, a
        // machine without what the judge needs, a judge that could not run): the setup's fault,
        // not the agents'. Nothing is ended, so the same command goes on once it is fixed.
        trace.write(suite_event(SuiteEventType::suite_stopped, {{"round", state.round}, {"detail", errors}}));
        throw std::runtime_error("no problem of the suite could run (" + errors +
                                 "); nothing was ended: fix it and run the same command again");
      }
      if (!progressed && !ending(st, elapsed())) {
        finish(state, trace,
               {SuiteEndReason::no_progress, "round " + std::to_string(state.round) +
                                                 " added no proposal to any store" + (errors.empty() ? "" : ": " + errors)},
               st, out, elapsed());
        return out;
      }
    }
  }

  /// Saves the next round's plan: each assigned agent's target of records on its problem, within
  /// the suite's proposal budget (a kill after the save resumes the same round).
  void start_round(SuiteState& state, SuitePlan plan, const std::vector<ProblemStanding>& st, double elapsed_s) {
    int remaining = config_.budget.proposals ? *config_.budget.proposals - total_records(st) : 1 << 30;
    std::map<std::string, std::map<std::string, int>> targets;
    for (const auto& agent : config_.agents) {
      auto it = plan.assignment.find(agent);
      if (it == plan.assignment.end()) continue;
      const int share = std::min(config_.proposals_per_round, std::max(remaining, 0));
      if (share <= 0) break;
      remaining -= share;
      const ProblemStanding& s = st[index_of(it->second)];
      auto have = s.records_by_agent.find(agent);
      targets[it->second][agent] = (have == s.records_by_agent.end() ? 0 : have->second) + share;
    }
    state.round += 1;
    state.in_progress = true;
    state.assignment = plan.assignment;
    state.targets = std::move(targets);
    state.moves = std::move(plan.moves);
    state.records_at_plan = total_records(st);
    state.elapsed_s = elapsed_s;
    save(state);
  }

  /// The plan's log lines, once (a kill between the save and these lines writes them now).
  void log_plan(TraceWriter& trace, const SuiteState& state) const {
    if (trace_has(SuiteEventType::round_planned, state.round)) return;
    for (const auto& m : state.moves)
      trace.write(suite_event(SuiteEventType::agent_moved, {{"round", state.round}, {"agent", m.agent}, {"from", m.from},
                                                           {"to", m.to}, {"reason", m.reason}}));
    trace.write(suite_event(SuiteEventType::round_planned,
                            {{"round", state.round}, {"assignment", state.assignment}, {"targets", state.targets}}));
  }

  /// The round's work: every problem with agents.
  std::vector<SuiteRoundWork> round_work(const SuiteState& state) const {
    std::vector<SuiteRoundWork> work;
    for (const auto& name : config_.problems) {
      auto t = state.targets.find(name);
      if (t == state.targets.end() || t->second.empty()) continue;
      SuiteRoundWork w;
      w.round = state.round;
      w.problem = name;
      for (const auto& [agent, target] : t->second) w.agents.push_back(agent);
      w.targets = t->second;
      work.push_back(std::move(w));
    }
    return work;
  }

  /// Every problem's work at once, one thread each; a problem whose work throws has its error.
  std::vector<SuiteRoundOutcome> run_round_work(const std::vector<SuiteRoundWork>& work) {
    std::vector<SuiteRoundOutcome> outcomes(work.size());
    std::vector<std::thread> threads;
    for (std::size_t i = 0; i < work.size(); ++i)
      threads.emplace_back([&, i] {
        try {
          outcomes[i] = run_round_(work[i]);
        } catch (const std::exception& e) {
          outcomes[i].error = e.what();
        }
      });
    for (auto& t : threads) t.join();
    return outcomes;
  }

  /// After a round: each problem that ended is logged once; returns what failed (errors) and who
  /// waits for an outside agent (waiting), one clause per problem.
  std::pair<std::string, std::string> close_round(TraceWriter& trace, const SuiteState& state,
                                                  const std::vector<SuiteRoundWork>& work,
                                                  const std::vector<SuiteRoundOutcome>& outcomes,
                                                  const std::vector<ProblemStanding>& st) const {
    std::string errors, waiting;
    for (std::size_t i = 0; i < work.size(); ++i) {
      const SuiteRoundOutcome& o = outcomes[i];
      if (o.reason == StopReason::waiting_for_agent)
        waiting += (waiting.empty() ? "" : "; ") + work[i].problem + ": " + o.detail;
      if (!o.error.empty()) errors += (errors.empty() ? "" : "; ") + work[i].problem + ": " + o.error;
      else if (o.reason == StopReason::agent_error || o.reason == StopReason::evaluator_error)
        errors += (errors.empty() ? "" : "; ") + work[i].problem + ": " + std::string(to_string(*o.reason)) +
                  (o.detail.empty() ? "" : " (" + o.detail + ")");
      const ProblemStanding& s = st[index_of(work[i].problem)];
      if (s.finished && !trace_has(SuiteEventType::problem_ended, -1, work[i].problem))
        trace.write(suite_event(SuiteEventType::problem_ended,
                                {{"round", state.round}, {"problem", s.name},
                                 {"reason", s.end_reason ? std::string(to_string(*s.end_reason)) : std::string()},
                                 {"detail", s.end_detail}}));
    }
    return {errors, waiting};
  }

  /// @brief Every problem's standing, in the suite's order.
  std::vector<ProblemStanding> standings() const {
    std::vector<ProblemStanding> out;
    for (const auto& p : config_.problems) out.push_back(standing_(p));
    return out;
  }

 private:
  struct Ending {
    SuiteEndReason reason;
    std::string detail;
  };

  static int total_records(const std::vector<ProblemStanding>& st) {
    int n = 0;
    for (const auto& s : st) n += s.records;
    return n;
  }

  std::size_t index_of(const std::string& problem) const {
    for (std::size_t i = 0; i < config_.problems.size(); ++i)
      if (config_.problems[i] == problem) return i;
    throw error("suite: no problem \"" + problem + "\"");
  }

  std::optional<Ending> ending(const std::vector<ProblemStanding>& st, double elapsed_s) const {
    int met = 0, done = 0, turns = 0;
    long long tokens = 0;
    double cost = 0;
    for (const auto& s : st) {
      met += s.goal_met ? 1 : 0;
      done += (s.goal_met || s.finished) ? 1 : 0;
      turns += s.spent.turns;
      tokens += s.spent.tokens;
      cost += s.spent.cost_usd;
    }
    const std::string of = std::to_string(met) + " of " + std::to_string(st.size()) + " goals met";
    if (met == static_cast<int>(st.size())) return Ending{SuiteEndReason::goal_met, of};
    if (done == static_cast<int>(st.size())) return Ending{SuiteEndReason::problems_done, of};
    const SuiteBudget& b = config_.budget;
    if (b.proposals && total_records(st) >= *b.proposals)
      return Ending{SuiteEndReason::proposals_spent, std::to_string(total_records(st)) + " proposals; " + of};
    if (b.turns && turns >= *b.turns) return Ending{SuiteEndReason::turn_budget, std::to_string(turns) + " turns; " + of};
    if (b.tokens && tokens >= *b.tokens) return Ending{SuiteEndReason::token_budget, of};
    if (b.cost_usd && cost >= *b.cost_usd) return Ending{SuiteEndReason::cost_budget, of};
    if (b.wall_seconds && elapsed_s >= *b.wall_seconds) return Ending{SuiteEndReason::wall_time_budget, of};
    return std::nullopt;
  }

  void finish(SuiteState& state, TraceWriter& trace, const Ending& e, std::vector<ProblemStanding> st, SuiteResult& out,
              double elapsed_s) {
    state.ended = e.reason;
    state.end_detail = e.detail;
    state.elapsed_s = elapsed_s;
    save(state);
    if (!trace_has(SuiteEventType::suite_ended, -1))
      trace.write(suite_event(SuiteEventType::suite_ended, {{"reason", std::string(to_string(e.reason))}, {"detail", e.detail},
                   {"rounds", state.round}}));
    out.reason = e.reason;
    out.detail = e.detail;
    out.rounds = state.round;
    out.standings = std::move(st);
  }

  void save(const SuiteState& s) const { write_json_atomically(state_path(), json(s)); }

  /// Whether the suite's trace holds an event of `type` (for `round` when >= 0, about `problem`
  /// when given).
  bool trace_has(SuiteEventType type, int round, const std::string& problem = {}) const {
    if (!std::filesystem::exists(trace_path())) return false;
    for (const auto& e : read_trace(trace_path()).events)
      if (e.value("type", "") == to_string(type) && (round < 0 || e.value("round", -1) == round) &&
          (problem.empty() || e.value("problem", "") == problem))
        return true;
    return false;
  }

  SuiteConfig config_;
  StandingFn standing_;
  RoundFn run_round_;
  ProgressFn on_progress_;
};

/// @brief The suite's trace events, as read_trace reads them (for reports and tests).
inline std::vector<json> read_suite_trace(const std::filesystem::path& state_dir) {
  const auto p = state_dir / "suite_trace.jsonl";
  if (!std::filesystem::exists(p)) return {};
  return read_trace(p).events;
}

}  // namespace socratic
