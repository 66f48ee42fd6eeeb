#pragma once
/// @file
/// @brief The gate's measurement through the executor (exec/, a local GPU pool or Slurm): each
/// gate run is a job of the template whose evaluator's baseline is the incumbent's judged file
/// (the store's content-addressed copy, so its path names its bytes) and whose seed is the
/// gate's. On a cluster the store's folder must be on storage the nodes read.

#include <chrono>
#include <optional>

#include "socratic/exec/executor_evaluator.hpp"
#include "socratic/store/gate.hpp"

namespace socratic {

/// @brief A PairMeasure that submits each run to `executor` (which must outlive it) and waits.
template <exec::Executor X>
PairMeasure executor_pair_measure(X& executor, exec::JobTemplate tmpl,
                                  std::chrono::milliseconds timeout = std::chrono::hours(24)) {
  return [&executor, tmpl = std::move(tmpl), timeout](const Candidate& candidate, const std::optional<Candidate>& incumbent,
                                                      const GateRunRequest& request) {
    exec::JobTemplate t = tmpl;
    if (incumbent) {
      if (t.evaluator.kind == exec::EvaluatorKind::command)
        t.evaluator.command.baseline = incumbent->judged_file();
      else
        t.evaluator.cuda.baseline = incumbent->judged_file();
    }
    // A command evaluator draws its inputs from the job's seed: a different one each run. The
    // CUDA runner draws a fresh secret key per run by itself; a seed from the gate (derived from
    // a public base and the candidate's own hash) would let the candidate compute its inputs.
    if (t.evaluator.kind == exec::EvaluatorKind::command) t.seed = request.seed;
    // Each run of the gate is a measurement of its own: without this, a CUDA job (no seed)
    // of a remeasure or a pooled run has the first run's key, and the executor hands back the
    // first run's report instead of measuring again.
    t.measurement = request.attempt;
    exec::ExecutorEvaluator<X> evaluator(executor, std::move(t), {}, timeout);
    return evaluator.evaluate(candidate);
  };
}

}  // namespace socratic
