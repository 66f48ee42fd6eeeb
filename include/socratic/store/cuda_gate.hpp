#pragma once
/// @file
/// @brief The gate's measurement on a GPU: a CudaEvaluator whose baseline is the incumbent's
/// judged file and whose runner seed is the gate's, so that one run times candidate and
/// incumbent interleaved (alternating which goes first, docs/harness.md) and each scenario's
/// `speedup` is candidate vs incumbent. A remeasure is another run with another seed: other
/// inputs, other placements.

#include <optional>

#include "socratic/eval/cuda_evaluator.hpp"
#include "socratic/store/gate.hpp"

namespace socratic {

/// @brief A PairMeasure over CUDA evaluators configured like `base` (its `baseline` is replaced
/// by the incumbent's file when there is one; the problem's own baseline otherwise). Builds are
/// cached by content in the evaluator's cache folder, so an incumbent is compiled once.
inline PairMeasure cuda_pair_measure(CudaEvaluatorConfig base) {
  return [base = std::move(base)](const Candidate& candidate, const std::optional<Candidate>& incumbent,
                                  const GateRunRequest& request) {
    CudaEvaluatorConfig config = base;
    if (incumbent) config.baseline = incumbent->judged_file();
    // No seed from the gate: the runner draws a fresh secret key per run (a gate seed derives
    // from a public base and the candidate's own hash, so the candidate could compute it). A
    // seed the configuration itself sets (a reproducible run) is kept.
    (void)request;
    CudaEvaluator evaluator(std::move(config));
    return evaluator.evaluate(candidate);
  };
}

}  // namespace socratic
