// The interface between the generic runner (kernels/harness/runner.cu) and one problem
// (kernels/<problem>/problem.cu). The runner owns honesty (poisoning, guard bands, checksums,
// timing, flushing); a problem owns its semantics (shapes, inputs, reference, tolerance, cost).
//
// Stability rule: existing members keep their signatures; new members get default definitions.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "dtype.hpp"

namespace socratic::harness {

class Implementation;  // implementation.cuh

/// One argument tensor of the entry point.
struct TensorSpec {
  std::string name;
  std::size_t elements = 0;
  Dtype dtype = Dtype::bf16;
  bool output = false;
};

class Problem {
 public:
  virtual ~Problem() = default;

  /// Adopts one scenario's parameters (defaults already merged). Throws std::runtime_error whose
  /// message names the field ("field \"head_dim\": must be a multiple of 8, got 100").
  virtual void configure(const nlohmann::json& params) = 0;

  /// The entry point's tensors for the configured scenario: inputs first, then outputs.
  virtual std::vector<TensorSpec> tensors() const = 0;

  /// Fills the input tensors (device pointers, in tensors() order) from `seed`; `trial` picks a
  /// value scale so that several trials cover several magnitudes. Never all zeros.
  virtual void generate_inputs(const std::vector<void*>& inputs, std::uint64_t seed, int trial,
                               cudaStream_t stream) = 0;

  /// The fp32 reference of the (single) output, from the inputs, with the problem's own simple
  /// GPU kernel (never a library, never the baseline). `out` has output-elements floats.
  virtual void reference(const std::vector<void*>& inputs, float* out, cudaStream_t stream) = 0;

  /// Calls the implementation's entry point `entry` (resolved with dlsym) on the buffers.
  /// Returns the entry point's return value (nonzero = declined).
  virtual int launch(void* entry, const std::vector<void*>& inputs,
                     const std::vector<void*>& outputs, cudaStream_t stream) = 0;

  /// Floating-point operations of one call (for TFLOP/s) and the minimum bytes any correct
  /// implementation must move (inputs read once, outputs written once), for the roofline floor.
  virtual double flops() const = 0;
  virtual double min_bytes() const = 0;

  /// Absolute rounding-noise floor added to the FA-style tolerance (per dtype and magnitude of
  /// the reference), and a hard cap on the max absolute error whatever the baseline does.
  virtual double rounding_floor(double reference_max_abs) const = 0;
  virtual double max_error_cap(double reference_max_abs) const = 0;

  // ---- Added members (each with a default definition; see the stability rule above) ----

  /// The problem's name as kernels/problems.json spells it ("rmsnorm"), written in the
  /// runner's `hello` line and checked against a scenario set's "problem". Default: empty,
  /// and the runner derives the name from the entry point ("socratic_NAME_forward" -> NAME).
  virtual std::string name() const { return {}; }

  /// How many input regimes generate_inputs cycles through by `trial` (scales, outliers, ...).
  /// The runner runs max(--trials, this) correctness trials, so that every regime is checked,
  /// and rotates timed samples over as many. Default: 1.
  virtual int input_regimes() const { return 1; }

  /// The fp32 reference of every output (tensors() order), `outs[i]` holding output i's
  /// elements as floats. Default: reference() for a problem of one output.
  virtual void reference_outputs(const std::vector<void*>& inputs, const std::vector<float*>& outs,
                                 cudaStream_t stream) {
    reference(inputs, outs.at(0), stream);
  }

  /// rounding_floor and max_error_cap of output `output` (tensors() order among the outputs),
  /// for a problem whose outputs differ in dtype or magnitude. Default: the problem's own.
  virtual double output_rounding_floor(std::size_t /*output*/, double reference_max_abs) const {
    return rounding_floor(reference_max_abs);
  }
  virtual double output_max_error_cap(std::size_t /*output*/, double reference_max_abs) const {
    return max_error_cap(reference_max_abs);
  }

  /// The baseline the configured scenario's own description asks for ("native", "pytorch_eager",
  /// "pytorch_compile"), or empty when it does not say (sides.hpp, scenario_baseline). Called
  /// after configure(). Default: empty.
  virtual std::string requested_baseline() const { return {}; }

  /// Whether pytorch_baseline() can give a baseline (the problem's reference is PyTorch).
  virtual bool has_pytorch_baseline() const { return false; }

  /// The problem's PyTorch reference as the configured scenario's baseline, in eager mode or
  /// under torch.compile, timed in the judge's trusted reference worker; owned by the problem.
  /// Only the judge calls it, never a worker. Default: none.
  virtual Implementation* pytorch_baseline(bool /*compiled*/) { return nullptr; }

  /// The judge's null implementation: an entry point of the problem's own signature, compiled into
  /// the runner, that launches one empty kernel on the stream it is given and returns 0. The
  /// calibration worker calls it (docs/harness.md, "A PyTorch baseline"). Default: none.
  virtual void* null_entry() const { return nullptr; }
};

}  // namespace socratic::harness

/// Defined by each problem's problem.cu: the problem object and its entry point's symbol name.
std::unique_ptr<socratic::harness::Problem> socratic_make_problem();
const char* socratic_problem_entry_point();

/// The symbol the workers look up in an implementation: problem.json's `entry_point`, which the
/// host's build of the runner passes as SOCRATIC_PROBLEM_ENTRY_POINT (the same name the agent is
/// told to export and the candidate's library is checked for); problem.cu's own name only for a
/// runner built by hand without it.
inline const char* socratic_entry_symbol() {
#ifdef SOCRATIC_PROBLEM_ENTRY_POINT
  return SOCRATIC_PROBLEM_ENTRY_POINT;
#else
  return socratic_problem_entry_point();
#endif
}
