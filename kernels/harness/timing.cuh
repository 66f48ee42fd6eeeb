// Timing of one scenario: baseline and candidate interleaved (alternating which goes first),
// fresh inputs and poisoned outputs per sample, an L2 flush (>= 2x L2, read) and a
// persisting-L2 reset before every timed launch, CUDA events on the runner's stream around the
// call, a wall clock around the same call up to a device-wide synchronisation, the SM clock,
// re-checks of timed outputs, and a stopping rule on the medians' relative error.
#pragma once

#include <chrono>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "context.cuh"
#include "correctness.cuh"
#include "result.hpp"
#include "stats.hpp"

namespace socratic::harness {

struct TimedCall {
  double event_ms = 0, wall_ms = 0;
};

/// One timed launch of `impl` on the current inputs. Returns false if it declined.
inline bool timed_call(RunnerContext& ctx, ScenarioBuffers& b, RunnerResult& r,
                       const Implementation& impl, GuardedTensor& out, const std::string& when,
                       TimedCall& t) {
  ctx.ops.flush_l2();
  reset_persisting_l2(ctx);
  sync_device("runner", "flush before " + impl.role + " " + when);
  const bool is_candidate = &impl == &ctx.candidate;
  std::vector<ThreadInfo> threads_before;
  if (is_candidate) threads_before = list_threads();
  const auto t0 = std::chrono::steady_clock::now();
  cuda_check(cudaEventRecord(ctx.start_event, ctx.stream), "cudaEventRecord (start)");
  const int ret = ctx.problem.launch(impl.entry, b.input_pointers(), {out.data()}, ctx.stream);
  cuda_check(cudaEventRecord(ctx.stop_event, ctx.stream), "cudaEventRecord (stop)");
  sync_device(impl.role, when);
  const auto t1 = std::chrono::steady_clock::now();
  if (ret != 0) {
    if (is_candidate)
      r.fail("declined", "declined",
             "the candidate's entry point returned " + std::to_string(ret) + " (" + when + ")");
    else
      r.fail("", "baseline",
             "the baseline declined (returned " + std::to_string(ret) + ", " + when + ")");
    return false;
  }
  float ms = 0;
  cuda_check(cudaEventElapsedTime(&ms, ctx.start_event, ctx.stop_event), "cudaEventElapsedTime");
  t.event_ms = ms;
  t.wall_ms = std::chrono::duration<double, std::milli>(t1 - t0).count();
  if (is_candidate) {
    const auto strangers = foreign_new_threads(threads_before, list_threads());
    if (!strangers.empty())
      r.fail("extra_threads", "extra_threads",
             "the candidate's call started thread(s) " + describe_threads(strangers) + " (" + when +
                 ")");
    const std::string l2 = persisting_l2_left_behind(ctx);
    if (!l2.empty())
      r.fail("persisting_l2", "persisting_l2", l2 + " during the candidate's call (" + when + ")");
  }
  return true;
}

/// Re-checks the outputs of the last timed calls against the reference (FA rule, unwritten,
/// guards, and input checksums when `input_hashes` is given).
inline void recheck_timed_outputs(RunnerContext& ctx, ScenarioBuffers& b, RunnerResult& r,
                                  const std::string& when, std::uint64_t poison_seed,
                                  const std::vector<unsigned long long>* input_hashes) {
  check_memory(ctx, b, r, when, input_hashes);
  check_unwritten(ctx, b, r, poison_seed, when);
  ctx.problem.reference(b.input_pointers(), b.reference_f32.as<float>(), ctx.stream);
  ctx.ops.to_float(b.candidate_out().data(), b.out_elements, b.out_dtype,
                   b.candidate_f32.as<float>());
  ctx.ops.to_float(b.baseline_out().data(), b.out_elements, b.out_dtype,
                   b.baseline_f32.as<float>());
  cuda_check(cudaStreamSynchronize(ctx.stream), "reference (" + when + ")");
  judge_outputs(ctx, b, r, when);
}

/// Times a scenario that passed its correctness checks, filling the timing members of `r`.
/// Sample s runs on `placements[s % placements.size()]`: separate allocations of the scenario's
/// buffers. Where a buffer lands in physical memory moves a scenario's time by about 1% from one
/// process to the next, for candidate and baseline alike (docs/benchmarks.md); rotating the
/// samples over several placements averages that inside one run.
inline void measure(RunnerContext& ctx, const std::vector<ScenarioBuffers*>& placements,
                    RunnerResult& r, std::uint64_t scenario_seed) {
  const RunnerOptions& o = ctx.options;
  ScenarioBuffers& b = *placements.front();
  TimedCall t;
  for (int w = 0; w < o.warmup; ++w) {
    const std::string when = "warm-up " + std::to_string(w);
    if (!timed_call(ctx, b, r, ctx.candidate, b.candidate_out(), when, t)) return;
    if (!timed_call(ctx, b, r, ctx.baseline, b.baseline_out(), when, t)) return;
  }
  std::vector<double> ev_c, ev_b, wall_c, wall_b, clocks;
  const auto started = std::chrono::steady_clock::now();
  StopReason stop = StopReason::keep_going;
  bool last_rechecked = false;
  std::uint64_t poison_seed = 0;
  ScenarioBuffers* last = &b;
  for (int s = 0; stop == StopReason::keep_going; ++s) {
    ScenarioBuffers& b = *placements[static_cast<std::size_t>(s) % placements.size()];
    last = &b;
    const std::string when = "timed call " + std::to_string(s);
    const std::uint64_t seed =
        mix64(scenario_seed ^ (0x71AE0000ull + static_cast<std::uint64_t>(s)));
    ctx.problem.generate_inputs(b.input_pointers(), seed, s % correctness_trials(ctx), ctx.stream);
    const bool recheck = s % o.recheck_every == 0;
    std::vector<unsigned long long> hashes;
    if (recheck) hashes = hash_inputs(ctx, b);
    poison_seed = mix64(seed ^ 0x9015ull);
    ctx.ops.poison(b.candidate_out().data(), b.out_elements, b.out_dtype, PoisonMode::nan,
                   poison_seed);
    ctx.ops.poison(b.baseline_out().data(), b.out_elements, b.out_dtype, PoisonMode::nan,
                   mix64(poison_seed));
    const bool candidate_first = s % 2 == 1;
    for (int k = 0; k < 2; ++k) {
      const bool candidate = (k == 0) == candidate_first;
      if (candidate) {
        if (!timed_call(ctx, b, r, ctx.candidate, b.candidate_out(), when, t)) return;
        ev_c.push_back(t.event_ms);
        wall_c.push_back(t.wall_ms);
        clocks.push_back(ctx.clock.current_mhz());
      } else {
        if (!timed_call(ctx, b, r, ctx.baseline, b.baseline_out(), when, t)) return;
        ev_b.push_back(t.event_ms);
        wall_b.push_back(t.wall_ms);
      }
    }
    last_rechecked = recheck;
    if (recheck) recheck_timed_outputs(ctx, b, r, when, poison_seed, &hashes);
    if (!r.correct) return;
    const double elapsed =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started)
            .count();
    stop = stop_rule(s + 1, median_relative_error(ev_c), median_relative_error(ev_b), elapsed,
                     o.min_samples, o.max_samples, o.target_noise, o.max_ms_per_scenario);
  }
  if (!last_rechecked) {
    recheck_timed_outputs(ctx, *last, r, "last timed call", poison_seed, nullptr);
    if (!r.correct) return;
  }

  r.samples = static_cast<int>(std::min(ev_c.size(), ev_b.size()));
  r.candidate_ms = median(ev_c);
  r.baseline_ms = median(ev_b);
  r.candidate_noise = relative_spread(ev_c);
  r.baseline_noise = relative_spread(ev_b);
  if (stop == StopReason::sample_cap || stop == StopReason::time_cap) r.flag("sample_cap");
  if (r.candidate_noise > 10 * o.target_noise || r.baseline_noise > 10 * o.target_noise)
    r.flag("noisy");

  std::vector<double> overhead_b;
  for (std::size_t i = 0; i < ev_b.size(); ++i) overhead_b.push_back(wall_b[i] - ev_b[i]);
  const double wall_c_ms = median(wall_c);
  const double overhead = median(overhead_b);
  const bool hidden = side_stream_suspected(wall_c_ms, r.candidate_ms, overhead);
  if (hidden)
    r.fail("side_stream", "side_stream",
           "wall clock " + num(wall_c_ms) + " ms (to a device-wide sync) vs " +
               num(r.candidate_ms) +
               " ms on the runner's stream, with the baseline's launch-and-sync overhead " +
               num(overhead) + " ms: work ran outside the stream it was given");

  double out_bytes = 0;
  for (const auto& spec : ctx.problem.tensors())
    if (spec.output) out_bytes += static_cast<double>(spec.elements) * dtype_bytes(spec.dtype);
  const double flops = ctx.problem.flops();
  r.roofline_ms = roofline_floor_ms(flops, ctx.problem.min_bytes(), out_bytes, ctx.l2_bytes,
                                    ctx.peaks.tflops, ctx.peaks.gbps);
  const bool below = r.candidate_ms < r.roofline_ms;
  if (below) r.flag("below_roofline");
  if (!below && !hidden && r.candidate_ms > 0) {
    r.speedup = r.baseline_ms / r.candidate_ms;
    if (flops > 0) r.tflops = flops / (r.candidate_ms * 1e9);
  }
  if (r.candidate_ms > 0) r.roofline_fraction = r.roofline_ms / r.candidate_ms;
  if (r.baseline_ms < r.roofline_ms)
    ctx.emit.log("scenario \"" + r.id + "\": the baseline's " + num(r.baseline_ms) +
                 " ms is below the roofline floor " + num(r.roofline_ms) +
                 " ms: check the peaks (" + ctx.peaks.source + ") and the problem's min_bytes");

  std::vector<double> known;
  for (double c : clocks)
    if (c > 0) known.push_back(c);
  r.sm_clock_mhz = median(known);
  const double low = throttled_fraction(clocks, ctx.clock.max_mhz());
  if (low > 0)  // the samples themselves are marked here; the flag needs more than a few
    ctx.emit.log("scenario \"" + r.id + "\": " + num(100 * low) +
                 "% of the candidate's samples ran below 75% of the " + num(ctx.clock.max_mhz()) +
                 " MHz maximum SM clock");
  if (low > 0.1) r.flag("throttled");
}

}  // namespace socratic::harness
