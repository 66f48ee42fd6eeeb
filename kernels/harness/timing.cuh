// Timing of one scenario: baseline and candidate interleaved (alternating which goes first),
// fresh inputs and poisoned outputs per sample, an L2 flush (>= 2x L2, read) and a
// persisting-L2 reset before every timed launch, each implementation timed by its worker's
// events and by the judge's own clock (request to the judge's fence after the answer), a quiet
// check before every call, the SM clock, re-checks of timed outputs, and a stopping rule on the
// medians' relative error.
#pragma once

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "context.cuh"
#include "correctness.cuh"
#include "result.hpp"
#include "sides.hpp"
#include "stats.hpp"

namespace socratic::harness {

/// Calls shorter than this (either side's median) are flagged `short_call`: below it the
/// baseline against itself moved by more than 2 % between runs (D143-D144: 2.9 % at 6.5 us,
/// 6.2 % at 4.4 us; within 2 % from 11 us on), and the host widens the speedup's confidence bound
/// (speedup_systematic_error in include/socratic/core/report.hpp).
inline constexpr double short_call_ms = 0.010;
/// A scenario whose warm-up calls took less than this gets at least this many samples.
inline constexpr double short_call_samples_below_ms = 0.1;
inline constexpr int short_call_min_samples = 96;

struct TimedCall {
  double event_ms = 0;  ///< the worker's events around the call
  double wall_ms = 0;   ///< the judge's clock: request sent to the judge's fence done
  double quiet_us = 0;  ///< the judge's fence before the call (quiet check)
  bool hold_expired = false;  ///< a held call whose hold released itself (launch_hold.cuh)
};

/// One timed launch of `impl` on placement `placement`. Returns false if it declined.
/// The judge flushes the L2 and clears persisting lines in its own context, checks that the GPU
/// is quiet, and keeps its own clock from the request to its own fence after the answer: the
/// fence completes only once the GPU has given the judge's context a turn after the worker's
/// work, so a worker that answers early still pays for the work it left running.
inline bool timed_call(RunnerContext& ctx, RunnerResult& r, Implementation& impl,
                       std::uint32_t placement, bool held, const std::string& when, TimedCall& t) {
  ctx.ops.flush_l2();
  reset_persisting_l2(ctx);
  cuda_check(cudaStreamSynchronize(ctx.stream), "flush before the " + impl.role() + "'s " + when);
  t.quiet_us = ctx.ops.fence_us();
  const auto t0 = std::chrono::steady_clock::now();
  const RemoteReply rep = impl.timed(placement, held);
  ctx.ops.fence_us();
  const auto t1 = std::chrono::steady_clock::now();
  if (!accept_reply(impl, rep, r, when)) return false;
  t.event_ms = rep.event_ms;
  t.wall_ms = std::chrono::duration<double, std::milli>(t1 - t0).count();
  t.hold_expired = rep.hold_expired;
  return true;
}

/// Re-checks the outputs of a timed sample against the reference (FA rule, unwritten,
/// guards, and input checksums when `input_hashes` is given).
inline void recheck_timed_outputs(RunnerContext& ctx, ScenarioBuffers& b, RunnerResult& r,
                                  const std::string& when, std::uint64_t poison_seed,
                                  const std::vector<unsigned long long>* input_hashes) {
  check_memory(ctx, b, r, when, input_hashes);
  check_unwritten(ctx, b, r, poison_seed, when);
  run_reference(ctx, b.input_pointers(), b.reference_pointers(), when);
  for (std::size_t i = 0; i < b.output_count(); ++i) {
    ctx.ops.to_float(b.candidate_out(i).data(), b.out_elements(i), b.out_dtype(i),
                     b.scratch_of(i).candidate_f32.as<float>());
    ctx.ops.to_float(b.baseline_out(i).data(), b.out_elements(i), b.out_dtype(i),
                     b.scratch_of(i).baseline_f32.as<float>());
  }
  judge_outputs(ctx, b, r, when);
}

/// How far past the correctness trials' agreement bound a timed output may be from the
/// baseline's (fresh inputs move the largest error of a call; a skipped, stale or partial
/// output is off by the outputs' own magnitude, orders of magnitude more).
inline constexpr double timed_agreement_slack = 4.0;

/// The check every timed call gets, whichever it is (the candidate cannot tell a checked call
/// from another): after the sample, its inputs unchanged and its guards whole, no poison left
/// in its output, and the output within the agreement bound of the baseline's output on the
/// same inputs. A full reference check follows on calls the judge's secret picks.
inline void check_timed_output(RunnerContext& ctx, ScenarioBuffers& b, RunnerResult& r,
                               const std::string& when, std::uint64_t poison_seed, int regime,
                               const std::vector<unsigned long long>& input_hashes) {
  check_memory(ctx, b, r, when, &input_hashes);
  check_unwritten(ctx, b, r, poison_seed, when);
  if (!r.correct) return;
  const std::size_t t = static_cast<std::size_t>(regime);
  for (std::size_t i = 0; i < b.output_count(); ++i) {
    OutputScratch& s = b.scratch_of(i);
    ctx.ops.to_float(b.candidate_out(i).data(), b.out_elements(i), b.out_dtype(i), s.candidate_f32.as<float>());
    ctx.ops.to_float(b.baseline_out(i).data(), b.out_elements(i), b.out_dtype(i), s.baseline_f32.as<float>());
    const Comparison c =
        ctx.ops.compare(s.candidate_f32.as<float>(), s.baseline_f32.as<float>(), b.out_elements(i));
    const double bound = t < ctx.agreement_bound.size() && i < ctx.agreement_bound[t].size()
                             ? timed_agreement_slack * ctx.agreement_bound[t][i]
                             : 0.0;
    if (c.finiteness_mismatch > 0 || c.nonfinite_a > 0 || c.max_abs_diff > bound)
      r.fail("timed_output", "timed_output",
             "the output of " + b.when_for(i, when) + " differs from the baseline's on the same inputs by up to " +
                 num(c.max_abs_diff) + " (allowed " + num(bound) + ", " + num(timed_agreement_slack) +
                 " x the correctness trials' tolerance plus the baseline's error), with " +
                 std::to_string(c.nonfinite_a) + " NaN/Inf: the timed call did not compute what "
                 "the checked calls did");
  }
}

/// One hash over every output of one side (the judge's fence checks that none changes later).
inline unsigned long long hash_outputs(RunnerContext& ctx, const std::vector<GuardedTensor>& outs) {
  unsigned long long h = 0;
  for (std::size_t i = 0; i < outs.size(); ++i)
    h = mix64(h ^ ctx.ops.hash(outs[i].data(), outs[i].bytes()) ^ (0x5157ull + i));
  return h;
}

/// Times a scenario that passed its correctness checks, filling the timing members of `r`.
/// Sample s runs on `placements[s % placements.size()]`: separate allocations of the scenario's
/// buffers. Where a buffer lands in physical memory moves a scenario's time by about 1% from one
/// process to the next, for candidate and baseline alike (docs/benchmarks.md); rotating the
/// samples over several placements averages that inside one run.
///
/// When the plan has a calibration side (a PyTorch baseline: sides.hpp), the judge's null
/// implementation is timed in every sample too, in a native worker on the candidate's path, and
/// the clock and quiet checks compare the candidate with it instead of the baseline.
inline void measure(RunnerContext& ctx, const std::vector<ScenarioBuffers*>& placements,
                    RunnerResult& r) {
  const RunnerOptions& o = ctx.options;
  RemoteImplementation& candidate = *ctx.candidate;
  Implementation& baseline = *ctx.baseline;
  const bool calibrated = ctx.plan.calibration && ctx.calibration;
  if (ctx.plan.calibration && !ctx.calibration)
    throw std::runtime_error("the timing plan needs the judge's null implementation and its worker was not started");
  ScenarioBuffers& first = *placements.front();
  TimedCall t;
  // Held (launch_hold.cuh) unless the options say otherwise, or a hold expired in the warm-up
  // (an entry point that waits for its own stream): then every side is timed unheld alike. A
  // PyTorch baseline is never held (the plan's baseline_held); the native sides are.
  bool held = ctx.plan.held;
  if (!ctx.plan.note.empty()) ctx.emit.log("scenario \"" + r.id + "\": " + ctx.plan.note);
  // Every side is stopped (SIGSTOP) through the timed phase and each runs only for its own
  // call: the candidate's cannot launch anything into another side's interval (what it left
  // queued shows in the quiet check), the sides are treated alike, so that their paths cost
  // the judge's clock the same, and a worker is stopped while it alone has the CPU they share.
  // (Stopping the idle worker before each call instead waited for it to be scheduled on that
  // CPU, which the timed worker's spin held: about 6 ms a sample, measured in D141.)
  std::vector<Implementation*> sides{&candidate, &baseline};
  if (calibrated) sides.push_back(ctx.calibration);
  struct StoppedWhileTiming {
    std::vector<Implementation*>& sides;
    explicit StoppedWhileTiming(std::vector<Implementation*>& s) : sides(s) {
      for (Implementation* i : sides) i->stop();
    }
    ~StoppedWhileTiming() {
      for (Implementation* i : sides) try {
          i->resume();
        } catch (...) {  // a worker that died: reported where the next call fails
        }
    }
  } stopped{sides};
  auto placement_of = [](Side side, ScenarioBuffers& b) {
    return side == Side::candidate  ? b.candidate_placement
           : side == Side::baseline ? b.baseline_placement
                                    : b.calibration_placement;
  };
  double in_calls_s = 0;  // wall time inside time_one: where the timed phase goes (log line)
  auto time_one = [&](Side side, ScenarioBuffers& buffers, const std::string& when) {
    const auto began = std::chrono::steady_clock::now();
    struct Count {
      double& into;
      std::chrono::steady_clock::time_point from;
      ~Count() { into += std::chrono::duration<double>(std::chrono::steady_clock::now() - from).count(); }
    } count{in_calls_s, began};
    Implementation& timed = *sides.at(static_cast<std::size_t>(side));
    timed.resume();
    const bool side_held = held && (side != Side::baseline || ctx.plan.baseline_held);
    const bool ok = timed_call(ctx, r, timed, placement_of(side, buffers), side_held, when, t);
    timed.stop();
    return ok;
  };
  double warm_ms = 0;  // the longest warm-up call
  for (int w = 0; w < o.warmup; ++w) {
    const std::string when = "warm-up " + std::to_string(w);
    for (Side side : sample_order(1, calibrated)) {
      if (!time_one(side, first, when)) return;
      if (side != Side::calibration) warm_ms = std::max(warm_ms, t.event_ms);
      if (held && t.hold_expired) {
        held = false;
        ctx.emit.log("scenario \"" + r.id + "\": the " + sides[static_cast<std::size_t>(side)]->role() +
                     "'s entry point waited on its own stream while held (" + when +
                     "): every side is timed unheld, their host-side launch inside the interval");
      }
    }
  }
  // A short call's spread is a few percent even held, and the spread of a dozen samples
  // underestimates it: such a scenario takes at least short_call_min_samples (D141).
  const bool short_calls = o.warmup > 0 && warm_ms < short_call_samples_below_ms;
  const int min_samples = short_calls ? std::max(o.min_samples, std::min(short_call_min_samples, o.max_samples))
                                      : o.min_samples;
  SideTimes times[3];
  SideTimes &tc = times[0], &tb = times[1], &tn = times[2];
  std::vector<double>&ev_c = tc.event_ms, &ev_b = tb.event_ms, clocks;
  const auto started = std::chrono::steady_clock::now();
  StopReason stop = StopReason::keep_going;
  std::optional<Side> last;
  int full_checks = 0;
  const int regimes = correctness_trials(ctx);
  const double recheck_chance = 1.0 / o.recheck_every;
  for (int s = 0; stop == StopReason::keep_going; ++s) {
    ScenarioBuffers& b = *placements[static_cast<std::size_t>(s) % placements.size()];
    const std::string when = "timed call " + std::to_string(s);
    const auto call = timed_call_base + static_cast<std::uint64_t>(s);
    const int regime = s % regimes;
    ctx.problem.generate_inputs(b.input_pointers(), ctx.seed(SecretUse::inputs, call), regime,
                                ctx.stream);
    const std::vector<unsigned long long> hashes = hash_inputs(ctx, b);
    const std::uint64_t poison_seed = ctx.seed(SecretUse::poison, call);
    poison_outputs(ctx, b.candidate_outputs, PoisonMode::nan, poison_seed);
    poison_outputs(ctx, b.baseline_outputs, PoisonMode::nan, ctx.seed(SecretUse::poison, call | baseline_call_bit));
    unsigned long long output_at_fence = 0;
    for (Side side : sample_order(s, calibrated)) {
      // After every call the judge does the same work (a hash of that side's outputs as its
      // fence found them, the SM clock), so that no side's call follows more of it. (The
      // calibration writes nothing: the baseline's outputs are hashed after it all the same.)
      if (!time_one(side, b, when)) return;
      const unsigned long long at_fence =
          hash_outputs(ctx, side == Side::candidate ? b.candidate_outputs : b.baseline_outputs);
      const double mhz = ctx.clock.current_mhz();
      SideTimes& mine = times[static_cast<int>(side)];
      mine.event_ms.push_back(t.event_ms);
      mine.wall_ms.push_back(t.wall_ms);
      if (side == Side::candidate) {
        output_at_fence = at_fence;  // compared again once the sample is over
        clocks.push_back(mhz);
      }
      if (last) times[static_cast<int>(*last)].quiet_after_us.push_back(t.quiet_us);
      last = side;
    }
    if (hash_outputs(ctx, b.candidate_outputs) != output_at_fence)
      r.fail("side_stream", "side_stream",
             "the candidate's output changed after the judge's fence that ended its call: work "
             "ran outside the stream it was given, past the end of its call (" + when + ")");
    check_timed_output(ctx, b, r, when, poison_seed, regime, hashes);
    // Decided only now, after the calls returned, from the judge's secret.
    const bool full = ctx.secret.chance(SecretUse::recheck, ctx.scope, call, recheck_chance);
    if (full && r.correct) {
      ++full_checks;
      recheck_timed_outputs(ctx, b, r, when, poison_seed, &hashes);
    }
    if (!r.correct) return;
    const double elapsed =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started)
            .count();
    stop = stop_rule(s + 1, median_relative_error(ev_c), median_relative_error(ev_b), elapsed,
                     min_samples, o.max_samples, o.target_noise, o.max_ms_per_scenario);
  }
  const std::vector<double>& quiet_after_c = tc.quiet_after_us;
  const std::vector<double>& quiet_after_b = tb.quiet_after_us;
  const std::vector<double>& wall_c = tc.wall_ms;
  ctx.emit.log("scenario \"" + r.id + "\": " + std::to_string(ev_c.size()) +
               " timed samples, each output compared with the baseline's; " +
               std::to_string(full_checks) + " also against the reference" +
               (!held ? "; calls timed unheld"
                : ctx.plan.baseline_held ? "; calls timed behind the hold"
                                         : "; the candidate's calls timed behind the hold, the baseline's unheld") +
               "; baseline " + baseline_kind_name(ctx.baseline_kind) +
               (calibrated ? ", the judge's null implementation timed beside them" : "") + "; " +
               num(in_calls_s) + " s in the timed calls' round trips, " +
               num(std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count()) +
               " s in the sampling loop");

  r.samples = static_cast<int>(std::min(ev_c.size(), ev_b.size()));
  r.candidate_ms = median(ev_c);
  r.baseline_ms = median(ev_b);
  r.candidate_noise = relative_spread(ev_c);
  r.baseline_noise = relative_spread(ev_b);
  if (stop == StopReason::sample_cap || stop == StopReason::time_cap) r.flag("sample_cap");
  if (r.candidate_noise > 10 * o.target_noise || r.baseline_noise > 10 * o.target_noise)
    r.flag("noisy");
  // Below this the judge's timing has not been shown to hold 2 % from run to run (docs/harness.md,
  // "Short calls"): the figure is reported, with a wider confidence bound.
  if (r.baseline_ms < short_call_ms || r.candidate_ms < short_call_ms) r.flag("short_call");

  // The judge's clock against the candidate worker's events, calibrated by the baseline's, or
  // by the judge's null implementation's when the baseline is PyTorch (its residual holds the
  // interpreter's and the copies' time, and would hide a forged one: sides.hpp).
  const SideTimes* calibration = calibrated ? &tn : nullptr;
  const ClockVerdict clock = candidate_clock(tc, tb, calibration);
  const std::string against = calibrated ? "the null implementation" : "baseline";
  const std::vector<double>& quiet_ref = clock_reference(tb, calibration).quiet_after_us;
  ctx.emit.log("scenario \"" + r.id + "\": judge's clock residual " + num(clock.candidate_residual_us) +
               " us (candidate) vs " + num(clock.baseline_residual_us) + " us (" + against + "), allowance " +
               num(clock.allowance_us) + " us; quiet fences after the candidate " +
               num(median(quiet_after_c)) + " us, after the " + against + " " + num(median(quiet_ref)) + " us" +
               (calibrated ? "; the baseline's residual " +
                                 num(1e3 * (median(tb.wall_ms) - median(tb.event_ms))) +
                                 " us and its quiet fences " + num(median(quiet_after_b)) +
                                 " us (not compared: it is not on the candidate's path)"
                           : std::string()));
  const bool hidden = clock.mismatch;
  if (hidden)
    r.fail("clock_mismatch", "clock_mismatch",
           "the judge's clock measured " + num(median(wall_c)) + " ms per call against the " +
               num(r.candidate_ms) + " ms the candidate's worker reported: " + num(clock.excess_us) +
               " us more than the " + (calibrated ? std::string("judge's null implementation's") : std::string("baseline's")) +
               " overhead on the same path (allowed " + num(clock.allowance_us) +
               " us). The worker's time was forged, or work ran outside the stream it was given");
  if (candidate_left_gpu_busy(tc, tb, calibration))
    r.fail("gpu_busy", "gpu_busy",
           "after the candidate's calls the judge's fence waited " + num(median(quiet_after_c)) +
               " us (median) against " + num(median(quiet_ref)) + " us after the " + against +
               "'s: the candidate left work running on the GPU after its call had answered");

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
