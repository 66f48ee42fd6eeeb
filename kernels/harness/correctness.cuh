// Correctness of one scenario: several trials with fresh inputs at several scales, the
// candidate run first on poisoned outputs and garbage-filled shared memory, every per-call
// check (guards, input checksums, unwritten outputs, side streams, persisting L2),
// a second call in the same buffers (memoisation), a re-run under other garbage
// (determinism), then the reference and the baseline, and the FA-style tolerance rule.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "context.cuh"
#include "result.hpp"

namespace socratic::harness {

/// Call indices under the judge's secret (secret.hpp): correctness trial t is call t; these bits
/// mark its re-run and the baseline's call, and timed sample s is call timed_call_base + s.
inline constexpr std::uint64_t rerun_call = 1ull << 40;
inline constexpr std::uint64_t baseline_call_bit = 1ull << 41;
inline constexpr std::uint64_t timed_call_base = 1ull << 32;

/// Hashes of the input tensors' contents, in order.
inline std::vector<unsigned long long> hash_inputs(RunnerContext& ctx, const ScenarioBuffers& b) {
  std::vector<unsigned long long> h;
  for (const auto& t : b.inputs) h.push_back(ctx.ops.hash(t.data(), t.bytes()));
  return h;
}

/// Guard bands of every tensor and (when `before` is given) the input checksums.
inline void check_memory(RunnerContext& ctx, ScenarioBuffers& b, RunnerResult& r,
                         const std::string& when, const std::vector<unsigned long long>* before) {
  for (auto* list : {&b.inputs, &b.candidate_outputs, &b.baseline_outputs})
    for (const auto& t : *list) {
      const std::string broken = t.check_guards(ctx.ops);
      if (!broken.empty()) r.fail("out_of_bounds", "out_of_bounds", broken + " (" + when + ")");
    }
  if (!before) return;
  const auto after = hash_inputs(ctx, b);
  for (std::size_t i = 0; i < after.size(); ++i)
    if (after[i] != (*before)[i])
      r.fail("inputs_modified", "inputs_modified",
             "input tensor \"" + b.inputs[i].spec().name +
                 "\" changed during the candidate's call (" + when + ")");
}

/// The poison seed of output `i` of a call whose seed is `seed` (output 0 keeps the call's own).
inline std::uint64_t output_poison_seed(std::uint64_t seed, std::size_t i) {
  return i == 0 ? seed : mix64(seed ^ (0x0A7ull + i));
}

/// Poisons every output of one side of a placement before a call.
inline void poison_outputs(RunnerContext& ctx, std::vector<GuardedTensor>& outs, PoisonMode mode,
                           std::uint64_t seed) {
  for (std::size_t i = 0; i < outs.size(); ++i)
    ctx.ops.poison(outs[i].data(), outs[i].spec().elements, outs[i].spec().dtype, mode,
                   output_poison_seed(seed, i));
}

/// How many output elements still hold the poison written before the call, per output.
inline void check_unwritten(RunnerContext& ctx, ScenarioBuffers& b, RunnerResult& r,
                            std::uint64_t poison_seed, const std::string& when) {
  for (std::size_t i = 0; i < b.output_count(); ++i) {
    const unsigned long long left =
        ctx.ops.count_poison(b.candidate_out(i).data(), b.out_elements(i), b.out_dtype(i),
                             PoisonMode::nan, output_poison_seed(poison_seed, i));
    if (left > 0)
      r.fail("unwritten", "unwritten",
             std::to_string(left) + " of " + std::to_string(b.out_elements(i)) +
                 " output elements were not written: they still hold the " +
                 (is_floating(b.out_dtype(i)) ? "NaN " : "") + "poison written before the call (" +
                 b.when_for(i, when) + ")");
  }
}

/// Turns a worker's account of its call into failures: a declined call, a CUDA error in its
/// context (which ends the run, as a crash does), persisting-L2 settings left behind.
/// Returns false when there is no output to look at.
inline bool accept_reply(Implementation& impl, const RemoteReply& rep, RunnerResult& r,
                         const std::string& when) {
  const bool candidate = impl.role() == "candidate";
  if (rep.ret != 0) {
    if (impl.role() == calibration_role)  // the judge's own null implementation: never declines
      throw std::runtime_error("the judge's null implementation declined (" + when + ")");
    if (candidate)
      r.fail("declined", "declined",
             "the candidate's entry point returned " + std::to_string(rep.ret) + " (" + when + ")");
    else
      r.fail("", "baseline",
             "the baseline declined this scenario (returned " + std::to_string(rep.ret) + ", " +
                 when + ")");
    return false;
  }
  if (rep.cuda_error != cudaSuccess)
    throw WorkerCudaError(impl.role() + " (" + when + "): " + cudaGetErrorName(rep.cuda_error) +
                              ": " + cudaGetErrorString(rep.cuda_error),
                          impl.role());
  if (rep.persisting_l2 != 0) {
    std::string what;
    if (rep.persisting_l2 & 1) what = "cudaLimitPersistingL2CacheSize was set";
    if (rep.persisting_l2 & 2)
      what += std::string(what.empty() ? "" : " and ") + "an access-policy window was set on its stream";
    r.fail("persisting_l2", "persisting_l2", what + " during the " + impl.role() + "'s call (" + when + ")");
  }
  return true;
}

/// One candidate call with every per-call check; each output is converted into its scratch's
/// member `out_f32` (candidate_f32 or rerun_f32). Returns false when the candidate declined
/// (then there is no output to look at).
inline bool checked_candidate_call(RunnerContext& ctx, ScenarioBuffers& b, RunnerResult& r,
                                   const std::string& when, PoisonMode mode, std::uint64_t seed,
                                   const std::vector<unsigned long long>& input_hashes,
                                   DeviceBuffer OutputScratch::*out_f32) {
  poison_outputs(ctx, b.candidate_outputs, mode, seed);
  cuda_check(cudaStreamSynchronize(ctx.stream),
             "cudaStreamSynchronize (before the candidate's call)");
  // The worker fills its SMs' shared memory with garbage, calls, and stops when its stream is
  // done: the judge snapshots the outputs then; anything that still changes them afterwards ran
  // somewhere else (another stream of the worker's context).
  const RemoteReply rep = ctx.candidate->checked(b.candidate_placement, mix64(seed ^ ctx.seed(SecretUse::garbage, 0)), [&] {
    for (std::size_t i = 0; i < b.output_count(); ++i)
      cuda_check(cudaMemcpyAsync(b.scratch_of(i).snapshot_raw.get(), b.candidate_out(i).data(), b.out_bytes(i),
                                 cudaMemcpyDeviceToDevice, ctx.stream),
                 "cudaMemcpyAsync (output snapshot)");
    cuda_check(cudaStreamSynchronize(ctx.stream), "cudaStreamSynchronize (output snapshot)");
  });
  if (!accept_reply(*ctx.candidate, rep, r, when)) return false;
  for (std::size_t i = 0; i < b.output_count(); ++i) {
    const unsigned long long words =
        DeviceOps::unit_count(b.scratch_of(i).snapshot_raw.get(), b.candidate_out(i).data(), b.out_bytes(i));
    const unsigned long long same =
        ctx.ops.count_equal(b.scratch_of(i).snapshot_raw.get(), b.candidate_out(i).data(), b.out_bytes(i));
    if (same != words)
      r.fail("side_stream", "side_stream",
             std::to_string(words - same) + " of " + std::to_string(words) +
                 " output words changed after the candidate's stream had finished: work ran outside "
                 "the stream it was given (" +
                 b.when_for(i, when) + ")");
  }
  check_memory(ctx, b, r, when, &input_hashes);
  if (mode == PoisonMode::nan) check_unwritten(ctx, b, r, seed, when);
  for (std::size_t i = 0; i < b.output_count(); ++i)
    ctx.ops.to_float(b.candidate_out(i).data(), b.out_elements(i), b.out_dtype(i),
                     (b.scratch_of(i).*out_f32).as<float>());
  return true;
}

/// The baseline on the current inputs, each output into its baseline_f32. False (and a failure) if it declines.
inline bool baseline_call(RunnerContext& ctx, ScenarioBuffers& b, RunnerResult& r,
                          const std::string& when, std::uint64_t seed) {
  poison_outputs(ctx, b.baseline_outputs, PoisonMode::nan, seed);
  cuda_check(cudaStreamSynchronize(ctx.stream),
             "cudaStreamSynchronize (before the baseline's call)");
  const RemoteReply rep = ctx.baseline->plain(b.baseline_placement);
  if (!accept_reply(*ctx.baseline, rep, r, when)) return false;
  for (std::size_t i = 0; i < b.output_count(); ++i)
    ctx.ops.to_float(b.baseline_out(i).data(), b.out_elements(i), b.out_dtype(i),
                     b.scratch_of(i).baseline_f32.as<float>());
  return true;
}

/// The tolerance verdict of one compared output, remembered for the report.
struct ErrorVerdict {
  Comparison candidate, baseline;
  double tolerance = 0, cap = 0;
};

/// Compares output i's candidate_f32 and baseline_f32 with its reference_f32 and applies the
/// FA-style rule: candidate error <= k x baseline error + rounding floor, and <= the hard cap.
inline ErrorVerdict judge_output(RunnerContext& ctx, ScenarioBuffers& b, std::size_t i, RunnerResult& r,
                                 const std::string& call) {
  ErrorVerdict v;
  const std::string when = b.when_for(i, call);
  OutputScratch& s = b.scratch_of(i);
  const float* ref = s.reference_f32.as<float>();
  v.baseline = ctx.ops.compare(s.baseline_f32.as<float>(), ref, b.out_elements(i));
  v.candidate = ctx.ops.compare(s.candidate_f32.as<float>(), ref, b.out_elements(i));
  const double ref_max = v.candidate.max_abs_b;
  const double floor = ctx.problem.output_rounding_floor(i, ref_max);
  v.tolerance = ctx.options.k * v.baseline.max_abs_diff + floor;
  v.cap = ctx.problem.output_max_error_cap(i, ref_max);
  const std::string n = std::to_string(b.out_elements(i));
  if (v.baseline.nonfinite_b > 0)
    r.fail("", "reference",
           "the fp32 reference produced " + std::to_string(v.baseline.nonfinite_b) +
               " non-finite values (" + when + ")");
  if (v.baseline.nonfinite_a > 0 || v.baseline.max_abs_diff > v.cap)
    r.fail("", "baseline",
           "the baseline itself is off: " + std::to_string(v.baseline.nonfinite_a) +
               " non-finite values, max error " + num(v.baseline.max_abs_diff) + " vs cap " +
               num(v.cap) + " (" + when + ")");
  if (v.candidate.nonfinite_a > 0)
    r.fail("non_finite", "non_finite",
           std::to_string(v.candidate.nonfinite_a) + " of " + n +
               " output elements are NaN or Inf (" + when + ")");
  if (v.candidate.constant_a() && !v.baseline.constant_a())
    r.fail("constant_output", "constant_output",
           v.candidate.min_a == 0 ? "every output element is 0 (all-zero output, " + when + ")"
                                  : "every output element is " + num(v.candidate.min_a) +
                                        " (constant output, " + when + ")");
  if (v.candidate.max_abs_diff > v.tolerance)
    r.fail("", "tolerance",
           "max |candidate - reference| = " + num(v.candidate.max_abs_diff) +
               " exceeds the tolerance " + num(v.tolerance) + " = k " + num(ctx.options.k) +
               " x baseline error " + num(v.baseline.max_abs_diff) + " + rounding floor " +
               num(floor) + " (" + when + ")");
  if (v.candidate.max_abs_diff > v.cap)
    r.fail("", "max_error_cap",
           "max |candidate - reference| = " + num(v.candidate.max_abs_diff) +
               " exceeds the hard cap " + num(v.cap) + " (" + when + ")");
  return v;
}

/// judge_output for every output, in order.
inline std::vector<ErrorVerdict> judge_outputs(RunnerContext& ctx, ScenarioBuffers& b, RunnerResult& r,
                                               const std::string& when) {
  std::vector<ErrorVerdict> v;
  for (std::size_t i = 0; i < b.output_count(); ++i) v.push_back(judge_output(ctx, b, i, r, when));
  return v;
}

/// Records the worst trial's numbers (largest error / tolerance) in the result.
inline void keep_worst(RunnerResult& r, const ErrorVerdict& v, double& worst_ratio) {
  const double ratio =
      v.tolerance > 0 ? v.candidate.max_abs_diff / v.tolerance : v.candidate.max_abs_diff;
  if (!(ratio <= worst_ratio)) {  // also replaces a NaN
    worst_ratio = ratio;
    r.max_abs_error = v.candidate.max_abs_diff;
    r.rel_l2_error = v.candidate.rel_l2;
    r.baseline_max_abs_error = v.baseline.max_abs_diff;
    r.tolerance = v.tolerance;
  }
}

/// Every correctness trial of a scenario. Stops at the first trial that fails.
inline void check_correctness(RunnerContext& ctx, ScenarioBuffers& b, RunnerResult& r) {
  double worst = -1;
  const auto inputs = b.input_pointers();
  const auto references = b.reference_pointers();
  ctx.agreement_bound.assign(static_cast<std::size_t>(correctness_trials(ctx)),
                             std::vector<double>(b.output_count(), 0.0));
  for (int trial = 0; trial < correctness_trials(ctx); ++trial) {
    const std::string when = "trial " + std::to_string(trial);
    const auto call = static_cast<std::uint64_t>(trial);
    const std::uint64_t input_seed = ctx.seed(SecretUse::inputs, call);
    const std::uint64_t call_seed = ctx.seed(SecretUse::poison, call);
    ctx.problem.generate_inputs(inputs, input_seed, trial, ctx.stream);
    cuda_check(cudaStreamSynchronize(ctx.stream), "generate_inputs (" + when + ")");
    const auto hashes = hash_inputs(ctx, b);
    if (!checked_candidate_call(ctx, b, r, when, PoisonMode::nan, call_seed, hashes,
                                &OutputScratch::candidate_f32))
      return;
    if (trial == 0) {
      // Re-run on the same inputs under other shared-memory garbage and a random-bits poison.
      if (!checked_candidate_call(ctx, b, r, when + ", re-run", PoisonMode::random_finite,
                                  ctx.seed(SecretUse::poison, call | rerun_call), hashes,
                                  &OutputScratch::rerun_f32))
        return;
    }
    if (r.has_flag("inputs_modified")) {  // the reference must see the inputs as generated
      ctx.problem.generate_inputs(inputs, input_seed, trial, ctx.stream);
    }
    run_reference(ctx, inputs, references, when);
    for (std::size_t i = 0; i < b.output_count(); ++i) {
      OutputScratch& s = b.scratch_of(i);
      if (trial >= 1) {
        // Same buffers, new contents: outputs the reference says must change but that stayed
        // bit-identical to the previous call's are a memo. (Elements whose correct value did not
        // change, such as rows with nothing to attend to, are not evidence either way.)
        const auto count = ctx.ops.count_stale(b.candidate_out(i).data(), s.previous_raw.get(),
                                               s.reference_f32.as<float>(),
                                               s.previous_reference_f32.as<float>(), b.out_elements(i),
                                               b.out_dtype(i));
        if (count.expected > 0 && count.stale * 2 > count.expected)
          r.fail("memoised", "memoised",
                 std::to_string(count.stale) + " of the " + std::to_string(count.expected) +
                     " output elements whose correct value changed are identical to the previous "
                     "call's although the inputs in the same buffers changed (" +
                     b.when_for(i, when) + ")");
      }
      cuda_check(cudaMemcpyAsync(s.previous_raw.get(), b.candidate_out(i).data(), b.out_bytes(i),
                                 cudaMemcpyDeviceToDevice, ctx.stream),
                 "cudaMemcpyAsync (keep previous output)");
      cuda_check(cudaMemcpyAsync(s.previous_reference_f32.get(), s.reference_f32.get(),
                                 b.out_elements(i) * sizeof(float), cudaMemcpyDeviceToDevice, ctx.stream),
                 "cudaMemcpyAsync (keep previous reference)");
    }
    if (!r.correct) return;
    if (!baseline_call(ctx, b, r, when, ctx.seed(SecretUse::poison, call | baseline_call_bit)))
      return;
    const std::vector<ErrorVerdict> verdicts = judge_outputs(ctx, b, r, when);
    for (std::size_t i = 0; i < verdicts.size(); ++i) {
      const ErrorVerdict& v = verdicts[i];
      keep_worst(r, v, worst);
      ctx.agreement_bound[static_cast<std::size_t>(trial)][i] = v.tolerance + v.baseline.max_abs_diff;
      if (trial != 0) continue;
      const Comparison again = ctx.ops.compare(b.scratch_of(i).rerun_f32.as<float>(),
                                               b.scratch_of(i).candidate_f32.as<float>(), b.out_elements(i));
      if (again.finiteness_mismatch > 0 || again.max_abs_diff > v.tolerance)
        r.fail(
            "nondeterministic", "nondeterministic",
            "two calls on the same inputs under different shared-memory garbage differ by up to " +
                num(again.max_abs_diff) + " (tolerance " + num(v.tolerance) + ") with " +
                std::to_string(again.finiteness_mismatch) +
                " finite/non-finite mismatches: reads of uninitialised memory or a race (" +
                b.when_for(i, when) + ")");
    }
    if (!r.correct) return;
  }
}

}  // namespace socratic::harness
