// What the judge asks of one side it times (docs/harness.md, "The boundary"): the candidate and a
// native baseline, each a shared object in a sandboxed worker (remote_implementation.cuh), the
// judge's null implementation in the same kind of worker, or a suite problem's PyTorch reference
// timed in the trusted reference worker (kernels/suite/problem.cu). correctness.cuh and timing.cuh
// speak to a baseline through this interface alone; the candidate is always a worker
// (RemoteImplementation), whose extra calls (the checked call, its mapped libraries) the
// candidate's checks use.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>


namespace socratic::harness {

class GuardedTensor;  // device_buffers.cuh

/// The role of the worker that holds the judge's null implementation (Problem::null_entry).
inline const std::string calibration_role = "calibration";

/// A side's answer to a call.
struct RemoteReply {
  int ret = 0;                          ///< the entry point's return value
  cudaError_t cuda_error = cudaSuccess;  ///< what the side's context reported after the call
  double event_ms = 0;                  ///< timed calls: the side's own events (not trusted alone)
  unsigned persisting_l2 = 0;           ///< persisting-L2 settings the call left behind (bits)
  bool hold_expired = false;            ///< a held call whose hold gave up before the release
};

class Implementation {
 public:
  virtual ~Implementation() = default;
  /// "candidate", "baseline" or "calibration": who is at fault in messages and failures.
  virtual const std::string& role() const = 0;
  /// Adopts the scenario's parameters (after the judge's problem did).
  virtual void configure(const nlohmann::json& params) = 0;
  /// Shares `tensors` (the problem's order: inputs, then this side's outputs) as a new placement.
  virtual std::uint32_t map(const std::vector<const GuardedTensor*>& tensors) = 0;
  /// Closes every mapping (before the judge frees the scenario's buffers).
  virtual void unmap() = 0;
  /// Call, synchronise, answer.
  virtual RemoteReply plain(std::uint32_t placement) = 0;
  /// A timed call: the side's events around the call; the judge keeps its own clock around it.
  virtual RemoteReply timed(std::uint32_t placement, bool held) = 0;
  /// Whether a timed call can be held (launch_hold.cuh): only a native worker's can.
  virtual bool can_hold() const { return true; }
  /// SIGSTOP while another side is timed, SIGCONT for its own calls.
  virtual void stop() = 0;
  virtual void resume() = 0;
};

/// A side that needs only the device addresses of a placement's tensors (the suite problem's
/// PyTorch baseline, compiled in the problem's translation unit, where the judge's device helpers
/// are not: they are the runner's). map() is defined in runner.cu.
class AddressImplementation : public Implementation {
 public:
  std::uint32_t map(const std::vector<const GuardedTensor*>& tensors) final;
  /// The tensors' device addresses, in map()'s order.
  virtual std::uint32_t map_addresses(const std::vector<const void*>& tensors) = 0;
};

}  // namespace socratic::harness
