#pragma once
/// @file
/// @brief ExecutorEvaluator: an Evaluator over any Executor (submit, wait, collect), so a
/// campaign's evaluations run on a GPU pool or a Slurm cluster unchanged; and the cascade:
/// correctness on a few scenarios first, the full timed evaluation only when they pass, so a
/// broken candidate costs a short correctness run. docs/executor.md, "Campaigns and the cascade".

#include <algorithm>
#include <chrono>
#include <map>
#include <string>
#include <vector>

#include "socratic/concepts.hpp"
#include "socratic/core/report.hpp"
#include "socratic/core/scenario.hpp"
#include "socratic/exec/executor.hpp"
#include "socratic/exec/job.hpp"
#include "socratic/exec/make_job.hpp"

namespace socratic::exec {

/// @brief The correctness-first stage.
struct CascadeOptions {
  bool enabled = false;
  std::vector<std::string> scenarios;  ///< the first stage's ids; empty: `count` spread over the set
  std::size_t count = 2;               ///< scenarios of the first stage when none are named
};

/// @brief `count` ids spread evenly over `ids` (first and last included), in order.
inline std::vector<std::string> spread_ids(const std::vector<std::string>& ids, std::size_t count) {
  if (count == 0 || ids.empty()) return {};
  if (count >= ids.size()) return ids;
  std::vector<std::string> out;
  for (std::size_t i = 0; i < count; ++i) {
    const std::size_t at = count == 1 ? 0 : i * (ids.size() - 1) / (count - 1);
    if (out.empty() || out.back() != ids[at]) out.push_back(ids[at]);
  }
  return out;
}

/// @brief The report of a cascade stopped after its first stage, over every scenario of the
/// set: the first stage's results, and the others failed as not run (so a goal predicate sees
/// every scenario, never a shorter list).
inline EvalReport cascade_stopped_report(EvalReport first, const std::vector<std::string>& all_ids) {
  std::string failed;
  for (const auto& s : first.scenarios)
    if (!s.correct) failed += (failed.empty() ? "" : ", ") + s.id;
  std::string why = "not run: the correctness stage failed";
  if (!first.built) why = "not run: the candidate did not build";
  else if (!first.error.empty()) why = "not run: the correctness stage ended with an error";
  else if (!first.banned.empty()) why = "not run: the correctness stage found banned libraries";
  else if (!failed.empty()) why += " on " + failed;
  std::vector<ScenarioResult> results;
  for (const auto& id : all_ids) {
    if (const ScenarioResult* r = first.find(id)) {
      results.push_back(*r);
    } else if (first.built) {
      ScenarioResult r;
      r.id = id;
      r.correct = false;
      r.reason = why;
      results.push_back(std::move(r));
    }
  }
  first.expected = all_ids;
  first.scenarios = std::move(results);
  return first;
}

/// @brief An Evaluator whose evaluations are jobs of `X`. Each `evaluate` makes a job of the
/// candidate under the template (the n-th evaluation of the same bytes in this object is job
/// repeat n, so re-measuring is a fresh job while a new process picks up the job its
/// predecessor left, finished or not), submits it and waits. The executor must outlive it.
template <Executor X>
class ExecutorEvaluator {
 public:
  ExecutorEvaluator(X& executor, JobTemplate tmpl, CascadeOptions cascade = {},
                    std::chrono::milliseconds timeout = std::chrono::hours(24 * 30))
      : executor_(executor), tmpl_(std::move(tmpl)), cascade_(std::move(cascade)), timeout_(timeout) {
    const ScenarioSet set = load_scenario_set(tmpl_.scenarios);
    all_ids_ = set.ids();
    if (cascade_.enabled) {
      first_ids_ = cascade_.scenarios.empty() ? spread_ids(all_ids_, cascade_.count) : cascade_.scenarios;
      for (const auto& id : first_ids_)
        if (!set.find(id))
          throw input_error(tmpl_.scenarios.string(), "cascade scenario \"" + id + "\"", "not in the scenario set");
      if (first_ids_.empty()) throw input_error({}, "cascade", "the first stage has no scenarios");
    }
  }

  EvalReport evaluate(const Candidate& candidate) {
    EvalJob probe;
    try {
      probe = make_eval_job(candidate, tmpl_);
    } catch (const std::exception& e) {
      EvalReport r;
      r.candidate = candidate;
      r.expected = all_ids_;
      r.build_log = std::string("cannot read the candidate: ") + e.what();
      return r;
    }
    int repeat = repeats_[probe.key()]++;
    // The executor may know this job from an earlier evaluator (a killed process, an earlier round
    // of a suite): a live or completed one is taken as it is (a resume), but one the executor or
    // its cluster ended (cancelled, preempted, ...) is no verdict to repeat: the next repeat runs.
    const bool staged = cascade_.enabled && first_ids_.size() < all_ids_.size();
    JobTemplate first = tmpl_;
    first.purpose = JobPurpose::correctness;
    while (ended_by_executor_before(make_eval_job(candidate, tmpl_, {}, repeat)) ||
           (staged && ended_by_executor_before(make_eval_job(candidate, first, first_ids_, repeat))))
      repeat = repeats_[probe.key()]++;
    if (staged) {
      EvalReport quick = run(make_eval_job(candidate, first, first_ids_, repeat));
      const bool passed = quick.all_correct() && quick.banned.empty();
      last_cascade_stopped_ = !passed;
      if (!passed) return cascade_stopped_report(std::move(quick), all_ids_);
    }
    return run(make_eval_job(candidate, tmpl_, {}, repeat));
  }

  /// @brief Whether the last evaluation stopped after the cascade's first stage.
  bool last_cascade_stopped() const noexcept { return last_cascade_stopped_; }
  const std::vector<std::string>& first_stage_scenarios() const noexcept { return first_ids_; }

 private:
  bool ended_by_executor_before(const EvalJob& job) {
    try {
      const JobStatus s = executor_.poll(job.id);
      return is_terminal(s.state) && ended_by_executor(s.state);
    } catch (const std::exception&) {
      return false;  // not known to the executor: a new job
    }
  }

  EvalReport run(const EvalJob& job) {
    const std::string id = executor_.submit(job);
    const JobStatus s = wait_for(executor_, id, timeout_);
    if (auto report = executor_.collect(id)) return *report;
    executor_.cancel(id);
    return failure_report(job, s.state, "no report within " + std::to_string(timeout_.count() / 1000) +
                                            " s (last seen: " + s.detail + "); cancelled");
  }

  X& executor_;
  JobTemplate tmpl_;
  CascadeOptions cascade_;
  std::chrono::milliseconds timeout_;
  std::vector<std::string> all_ids_, first_ids_;
  std::map<std::string, int> repeats_;
  bool last_cascade_stopped_ = false;
};

namespace detail {
/// The least an Executor has: checks that the adapter compiles over any of them.
struct executor_archetype {
  std::string submit(const EvalJob&);
  JobStatus poll(const std::string&);
  bool cancel(const std::string&);
  std::optional<EvalReport> collect(const std::string&);
};
static_assert(Executor<executor_archetype>);
}  // namespace detail

static_assert(Evaluator<ExecutorEvaluator<detail::executor_archetype>>,
              "ExecutorEvaluator must satisfy the Evaluator concept");

}  // namespace socratic::exec
