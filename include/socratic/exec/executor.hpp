#pragma once
/// @file
/// @brief The *Executor* concept: where evaluation jobs run (a local GPU pool, a Slurm cluster,
/// your own), and `wait_for`, which waits on any of them. docs/executor.md.

#include <chrono>
#include <concepts>
#include <optional>
#include <string>
#include <thread>

#include "socratic/core/report.hpp"
#include "socratic/exec/job.hpp"

namespace socratic::exec {

/// @brief *Executor*: takes evaluation jobs and runs them somewhere.
///
/// Requirements, for `x` an lvalue of X, `job` a `const EvalJob&` and `id` a `const std::string&`:
/// - `x.submit(job)` returns the job's id (`job.id`, or one derived from its key when empty).
///   It records the job durably before it returns. Submitting a job whose key (EvalJob::key)
///   an earlier job of the same executor had returns that job's id: a resumed caller finds its
///   work again, finished or not. A job that cannot run (bad input, a refused submission) is
///   still accepted, and ends `failed` with a report that says why.
/// - `x.poll(id)` returns its JobStatus now (never blocks on the job). An unknown id throws.
/// - `x.cancel(id)` asks for it to stop; true when it was not finished yet. It then ends
///   `cancelled` (or with its report, if that came first).
/// - `x.collect(id)` returns its EvalReport once the job is terminal, the same one every time;
///   nullopt while it is live. Every terminal state has a report: for one other than
///   `completed`, the report's `error` says what happened (time limit, crash, cancellation...).
/// Optionally `x.wait(id, timeout)` returns the JobStatus once terminal or at the timeout;
/// `wait_for` uses it when present.
template <class X>
concept Executor = requires(X& x, const EvalJob& job, const std::string& id) {
  { x.submit(job) } -> std::same_as<std::string>;
  { x.poll(id) } -> std::same_as<JobStatus>;
  { x.cancel(id) } -> std::same_as<bool>;
  { x.collect(id) } -> std::same_as<std::optional<EvalReport>>;
};

namespace detail {
template <class X>
concept has_wait = requires(X& x, const std::string& id, std::chrono::milliseconds t) {
  { x.wait(id, t) } -> std::same_as<JobStatus>;
};
}  // namespace detail

/// @brief Waits until job `id` is terminal or `timeout` has passed; returns its last status.
template <Executor X>
JobStatus wait_for(X& x, const std::string& id,
                   std::chrono::milliseconds timeout = std::chrono::hours(24 * 365)) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  if constexpr (detail::has_wait<X>) {
    return x.wait(id, timeout);
  } else {
    auto pause = std::chrono::milliseconds(20);
    while (true) {
      JobStatus s = x.poll(id);
      if (is_terminal(s.state) || std::chrono::steady_clock::now() >= deadline) return s;
      std::this_thread::sleep_for(pause);
      pause = std::min(pause * 2, std::chrono::milliseconds(1000));
    }
  }
}

}  // namespace socratic::exec
