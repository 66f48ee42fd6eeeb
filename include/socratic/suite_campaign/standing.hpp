#pragma once
/// @file
/// @brief Where one problem of a suite campaign stands, read from its own record (its trace and
/// its candidate store), never kept twice: whether its campaign ended and why, its incumbent, the
/// incumbent's report against the problem's baseline (the coordinator's `incumbent_check`), the
/// goal's verdict on it, how far it is from the goal, and whether it is on a plateau. The suite's
/// planner (policy.hpp) and its report (suite_report.hpp) read these.

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "socratic/core/budget.hpp"
#include "socratic/core/report.hpp"
#include "socratic/core/verdict.hpp"
#include "socratic/record/trace.hpp"
#include "socratic/record/trace_state.hpp"
#include "socratic/store/candidate_store.hpp"

namespace socratic {

/// @brief A goal as the suite applies it: any GoalPredicate behind a function.
using SuiteGoal = std::function<Verdict(const EvalReport&)>;

/// @brief One problem's standing, from its trace and its store.
struct ProblemStanding {
  std::string name;
  bool finished = false;               ///< its campaign ended for good (goal, budget, proposals)
  std::optional<StopReason> end_reason;  ///< the last `campaign_ended` (finished or continuable)
  std::string end_detail;
  bool goal_met = false;
  std::optional<RecordSummary> incumbent;  ///< the store's incumbent
  /// The incumbent judged against the problem's own baseline (the coordinator's check after its
  /// admission, matched by content); absent when that check was never recorded.
  std::optional<EvaluationRecord> incumbent_check;
  std::optional<Verdict> verdict;  ///< the goal on `incumbent_check`
  /// How far from the goal: 0 when met; the sum over unmet conditions of log(required/measured)
  /// where both are numbers, 1 for each other unmet condition (incorrect, missing); infinity
  /// without an incumbent judged against the baseline.
  double distance = std::numeric_limits<double>::infinity();
  int attempts_since_admission = 0;  ///< store records since the incumbent's (all, without one)
  int records = 0;                   ///< candidate records in the store
  std::map<std::string, int> records_by_agent;
  std::vector<RecordSummary> admitted;  ///< every admitted record, in order (the incumbent's history)
  Spent spent;  ///< the campaign's spending (its trace)
  CampaignState state;  ///< the trace's state (evaluations, questions), for the report's credit

  bool on_plateau(int plateau) const { return plateau > 0 && incumbent && attempts_since_admission >= plateau; }
};

namespace detail {
/// The first number in `s` ("> = 1.10", "0.97 (lower bound 0.95)"); NaN when none.
inline double first_number(const std::string& s) {
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if ((c >= '0' && c <= '9') || (c == '.' && i + 1 < s.size() && s[i + 1] >= '0' && s[i + 1] <= '9')) {
      char* end = nullptr;
      const double v = std::strtod(s.c_str() + i, &end);
      if (end != s.c_str() + i) return v;
    }
  }
  return std::nan("");
}
}  // namespace detail

/// @brief How far a verdict is from its goal (see ProblemStanding::distance).
inline double goal_distance(const Verdict& v) {
  if (v.met) return 0;
  double d = 0;
  for (const auto& u : v.unmet) {
    const double required = detail::first_number(u.required), measured = detail::first_number(u.measured);
    if (std::isfinite(required) && std::isfinite(measured) && required > 0 && measured > 0)
      d += std::max(std::log(required / measured), 1e-3);  // unmet though equal in print: a little short
    else
      d += 1;
  }
  return d;
}

/// @brief Reads a problem's standing from its trace (`trace`, may be missing: not started) and
/// its store folder (`store_dir`, may be missing), judging the incumbent's check with `goal`.
inline ProblemStanding read_standing(const std::string& name, const std::filesystem::path& trace,
                                     const std::filesystem::path& store_dir, const SuiteGoal& goal) {
  namespace fs = std::filesystem;
  ProblemStanding s;
  s.name = name;
  if (fs::exists(trace)) {
    const TraceSummary t = summarize_trace(read_trace(trace).events);
    s.state = t.state;
    s.spent = t.state.spent;
    if (t.ended) {
      s.end_reason = t.end_reason;
      s.end_detail = t.end_detail;
      s.finished = t.end_reason && *t.end_reason != StopReason::agent_error && *t.end_reason != StopReason::evaluator_error;
      s.goal_met = t.end_reason == StopReason::goal_met;
    }
  }
  if (fs::exists(store_dir / "store.jsonl")) {
    StoreOptions read_only;
    read_only.read_only = true;
    const CandidateStore store = CandidateStore::open(store_dir, read_only);
    s.incumbent = store.incumbent();
    s.attempts_since_admission = store.attempts_since_admission();
    for (const auto& r : store.summaries()) {
      ++s.records;
      ++s.records_by_agent[r.agent];
      if (r.verdict == GateOutcome::admitted) s.admitted.push_back(r);
    }
  }
  if (s.incumbent) {
    for (auto it = s.state.evaluations.rbegin(); it != s.state.evaluations.rend(); ++it)
      if (it->origin == EvaluationOrigin::incumbent_check && it->candidate_hash == s.incumbent->hash &&
          !it->evaluator_failed()) {  // a check that judged nothing is no verdict on the incumbent
        s.incumbent_check = *it;
        break;
      }
  }
  if (s.incumbent_check) {
    s.verdict = goal(s.incumbent_check->report);
    s.distance = goal_distance(*s.verdict);
    if (s.verdict->met) s.goal_met = true;
  }
  if (s.goal_met) s.distance = 0;
  return s;
}

}  // namespace socratic
