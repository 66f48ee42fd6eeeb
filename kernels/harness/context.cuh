// What every step of a scenario needs: options, the problem, the two implementations, the
// device helpers, and the scenario's buffers; plus the calls that touch process-wide state
// (persisting L2, synchronisation with errors attributed to whoever ran last).
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "cli.hpp"
#include "cuda_check.hpp"
#include "device_buffers.cuh"
#include "device_ops.cuh"
#include "emitter.hpp"
#include "nvml_clock.hpp"
#include "peaks.hpp"
#include "problem.cuh"
#include "proc_self.hpp"
#include "remote_implementation.cuh"
#include "secret.hpp"
#include "sides.hpp"

namespace socratic::harness {

struct RunnerContext {
  RunnerContext(const RunnerOptions& o, Problem& p, DeviceOps& d, cudaStream_t s, Emitter& e,
                const SmClock& c, const JudgeSecret& k)
      : options(o), problem(p), ops(d), stream(s), emit(e), clock(c), secret(k) {}

  const RunnerOptions& options;
  Problem& problem;
  DeviceOps& ops;
  cudaStream_t stream;
  Emitter& emit;
  const SmClock& clock;
  /// Every seed and every choice of which call is fully checked (never seen by a worker).
  const JudgeSecret& secret;
  std::uint64_t scope = 0;  ///< the scenario being judged, as the secret's scope
  /// Per input regime (correctness trial t) and output, the largest distance an honest
  /// candidate's output may have from the baseline's on the same inputs: its tolerance plus the
  /// baseline's own error against the reference (triangle inequality). Every timed output is
  /// held to it.
  std::vector<std::vector<double>> agreement_bound;
  /// Wall seconds the current scenario spent in the problem's fp32 reference (scenario_end's
  /// `reference_s`: where a judge's time goes).
  double reference_s = 0;
  /// Seeds of call `index` of the current scenario.
  std::uint64_t seed(SecretUse use, std::uint64_t index) const { return secret.value(use, scope, index); }
  /// The candidate, in its own worker process (worker.cuh).
  RemoteImplementation* candidate = nullptr;
  /// The current scenario's baseline: a native worker, or the problem's PyTorch reference
  /// (sides.hpp, scenario_baseline).
  Implementation* baseline = nullptr;
  BaselineKind baseline_kind = BaselineKind::native;
  /// The judge's null implementation in a worker of its own, timed beside the two when the
  /// baseline is not a native worker (the plan's calibration); null otherwise.
  RemoteImplementation* calibration = nullptr;
  /// How the current scenario's calls are timed.
  TimingPlan plan;
  DevicePeaks peaks;
  double l2_bytes = 0;
  bool persisting_l2_supported = false;
};

/// The judge's scratch for one output of a scenario: fp32 copies for comparison, the previous
/// output, a snapshot.
struct OutputScratch {
  DeviceBuffer reference_f32, candidate_f32, baseline_f32, rerun_f32, previous_raw, snapshot_raw;
  DeviceBuffer previous_reference_f32;  ///< the previous trial's reference (memoisation check)
  std::size_t bytes() const {
    std::size_t n = 0;
    for (const DeviceBuffer* d : {&reference_f32, &candidate_f32, &baseline_f32, &rerun_f32,
                                  &previous_raw, &snapshot_raw, &previous_reference_f32})
      n += d->bytes();
    return n;
  }
};

/// The judge's scratch for one scenario, one OutputScratch per output. Every placement of the
/// scenario shares it (a check uses it only while it runs), so a further placement costs its
/// tensors alone.
struct ScenarioScratch {
  std::vector<OutputScratch> outputs;
  std::size_t bytes() const {
    std::size_t n = 0;
    for (const auto& o : outputs) n += o.bytes();
    return n;
  }
};

/// One scenario's device memory. Inputs and every output of both sides carry guard bands. The
/// inputs and the candidate's outputs are shared with the candidate's worker, the inputs and the
/// baseline's outputs with the baseline's: neither worker can see the other's outputs or the
/// judge's scratch.
struct ScenarioBuffers {
  std::vector<GuardedTensor> inputs;
  /// The problem's outputs in tensors() order, one list per side.
  std::vector<GuardedTensor> candidate_outputs, baseline_outputs;
  std::shared_ptr<ScenarioScratch> scratch;
  std::uint32_t candidate_placement = 0, baseline_placement = 0;  ///< ids in each worker
  std::uint32_t calibration_placement = 0;  ///< the baseline's tensors, in the calibration worker

  std::size_t output_count() const { return candidate_outputs.size(); }
  GuardedTensor& candidate_out(std::size_t i = 0) { return candidate_outputs.at(i); }
  GuardedTensor& baseline_out(std::size_t i = 0) { return baseline_outputs.at(i); }
  std::size_t out_elements(std::size_t i = 0) const { return candidate_outputs.at(i).spec().elements; }
  Dtype out_dtype(std::size_t i = 0) const { return candidate_outputs.at(i).spec().dtype; }
  std::size_t out_bytes(std::size_t i = 0) const { return candidate_outputs.at(i).bytes(); }
  OutputScratch& scratch_of(std::size_t i) { return scratch->outputs.at(i); }
  /// The output's name as messages give it ("y"), the candidate's side.
  const std::string& out_name(std::size_t i) const { return candidate_outputs.at(i).spec().name; }
  std::vector<void*> input_pointers() const {
    std::vector<void*> p;
    for (const auto& t : inputs) p.push_back(t.data());
    return p;
  }
  /// Where the reference of every output goes (the scratch's reference_f32, in order).
  std::vector<float*> reference_pointers() const {
    std::vector<float*> p;
    for (const auto& o : scratch->outputs) p.push_back(o.reference_f32.as<float>());
    return p;
  }
  /// Device memory of this placement's own tensors, guard bands aside (how many further
  /// placements fit a budget; the scratch is shared).
  std::size_t tensor_bytes() const {
    std::size_t n = 0;
    for (const auto* list : {&inputs, &candidate_outputs, &baseline_outputs})
      for (const auto& t : *list) n += t.bytes();
    return n;
  }
  /// What one worker may map: the inputs, then its own outputs.
  std::vector<const GuardedTensor*> shared_with(bool candidate) const {
    std::vector<const GuardedTensor*> t;
    for (const auto& i : inputs) t.push_back(&i);
    for (const auto& o : candidate ? candidate_outputs : baseline_outputs) t.push_back(&o);
    return t;
  }
  /// `when` for messages about output i: unchanged for a problem of one output, else with the
  /// output's name ("trial 0, output \"y\"").
  std::string when_for(std::size_t i, const std::string& when) const {
    return output_count() == 1 ? when : when + ", output \"" + out_name(i) + "\"";
  }
};

/// Correctness trials of a scenario: --trials, or more when the problem has more input regimes.
inline int correctness_trials(const RunnerContext& ctx) {
  return std::max(ctx.options.trials, ctx.problem.input_regimes());
}

/// Waits for everything on the device; a failure is attributed to `who` (the implementation
/// that ran last) and `when`, and ends the run (CudaError).
inline void sync_device(const std::string& who, const std::string& when) {
  cuda_check(cudaDeviceSynchronize(), who + " (" + when + "): cudaDeviceSynchronize");
}

/// A CUDA call whose failure must not end the run (a driver or a virtualised GPU may refuse the
/// persisting-L2 controls): the error is cleared and logged once per call site.
inline bool soft_cuda(RunnerContext& ctx, cudaError_t result, const char* what) {
  if (result == cudaSuccess) return true;
  cudaGetLastError();
  static std::vector<std::string> told;
  if (std::find(told.begin(), told.end(), what) == told.end()) {
    told.push_back(what);
    ctx.emit.log(std::string(what) + " failed: " + cudaGetErrorString(result) +
                 " (logged once; the run goes on)");
  }
  return false;
}

/// Clears every persisting-L2 setting: the carve-out limit, the stream's access-policy window
/// and lines already marked persisting. Called before every timed launch and after each
/// candidate call, so a window set by anyone cannot survive the flush.
inline void reset_persisting_l2(RunnerContext& ctx) {
  if (!ctx.persisting_l2_supported) return;
  soft_cuda(ctx, cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, 0),
            "cudaDeviceSetLimit (persisting L2 = 0)");
  cudaStreamAttrValue none{};
  none.accessPolicyWindow.base_ptr = nullptr;
  none.accessPolicyWindow.num_bytes = 0;
  none.accessPolicyWindow.hitRatio = 0;
  none.accessPolicyWindow.hitProp = cudaAccessPropertyNormal;
  none.accessPolicyWindow.missProp = cudaAccessPropertyNormal;
  soft_cuda(ctx, cudaStreamSetAttribute(ctx.stream, cudaStreamAttributeAccessPolicyWindow, &none),
            "cudaStreamSetAttribute (clear the access-policy window)");
  soft_cuda(ctx, cudaCtxResetPersistingL2Cache(), "cudaCtxResetPersistingL2Cache");
}

/// Empty when the candidate left no persisting-L2 setting behind, else what it set.
inline std::string persisting_l2_left_behind(RunnerContext& ctx) {
  if (!ctx.persisting_l2_supported) return {};
  std::string found;
  std::size_t limit = 0;
  if (soft_cuda(ctx, cudaDeviceGetLimit(&limit, cudaLimitPersistingL2CacheSize),
                "cudaDeviceGetLimit (persisting L2)") &&
      limit > 0)
    found = "cudaLimitPersistingL2CacheSize was set to " + std::to_string(limit) + " bytes";
  cudaStreamAttrValue window{};
  if (soft_cuda(ctx,
                cudaStreamGetAttribute(ctx.stream, cudaStreamAttributeAccessPolicyWindow, &window),
                "cudaStreamGetAttribute (access-policy window)") &&
      window.accessPolicyWindow.num_bytes > 0) {
    if (!found.empty()) found += " and ";
    found += "an access-policy window of " + std::to_string(window.accessPolicyWindow.num_bytes) +
             " bytes was set on the runner's stream";
  }
  return found;
}

/// The problem's fp32 reference of every output on the current inputs into `outs`, waited for
/// and timed.
inline void run_reference(RunnerContext& ctx, const std::vector<void*>& inputs,
                          const std::vector<float*>& outs, const std::string& when) {
  const auto t0 = std::chrono::steady_clock::now();
  ctx.problem.reference_outputs(inputs, outs, ctx.stream);
  cuda_check(cudaStreamSynchronize(ctx.stream), "reference (" + when + ")");
  ctx.reference_s += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

/// Formats a number for messages (6 significant digits).
inline std::string num(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

}  // namespace socratic::harness
