// The suite problem: one runner, socratic-runner-suite, for every problem of the field's suites
// (SOL-ExecBench, FlashInfer-Bench, KernelBench). Each scenario's parameters are a resolved
// workload (resolved_workload.hpp; docs/runner-protocol.md, "Suite problems"): the tensors and
// their generators, the scalars, the axes, the tolerance and where the PyTorch reference is.
// Inputs are generated on the GPU by the judge; the reference runs in the trusted reference
// worker on the judge's buffers (reference_client.hpp); the candidate is called through the
// adapter the host generates and compiles beside it (include/socratic/suite/suite_adapter.hpp, suite_call.h).
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "problem.cuh"
#include "random.cuh"
#include "reference_client.hpp"
#include "resolved_workload.hpp"
#include "suite_call.h"

namespace socratic::harness {
namespace {

using suite::InitKind;

/// What one generator kernel needs (by value: a handful of numbers).
struct InitParams {
  InitKind kind;
  float a, b;  // randn: mean, std; uniform/randint: low, high; full: value
  float scale;
};

__device__ inline void store_float(void* p, Dtype d, std::size_t i, float v) {
  switch (d) {
    case Dtype::fp32: static_cast<float*>(p)[i] = v; break;
    case Dtype::fp64: static_cast<double*>(p)[i] = v; break;
    case Dtype::bf16: static_cast<__nv_bfloat16*>(p)[i] = __float2bfloat16_rn(v); break;
    case Dtype::fp16: static_cast<__half*>(p)[i] = __float2half_rn(v); break;
    case Dtype::fp8_e4m3: static_cast<__nv_fp8_e4m3*>(p)[i] = __nv_fp8_e4m3(v); break;
    case Dtype::fp8_e5m2: static_cast<__nv_fp8_e5m2*>(p)[i] = __nv_fp8_e5m2(v); break;
    case Dtype::int8: static_cast<std::int8_t*>(p)[i] = static_cast<std::int8_t>(v); break;
    case Dtype::int16: static_cast<std::int16_t*>(p)[i] = static_cast<std::int16_t>(v); break;
    case Dtype::int32: static_cast<std::int32_t*>(p)[i] = static_cast<std::int32_t>(v); break;
    case Dtype::int64: static_cast<std::int64_t*>(p)[i] = static_cast<std::int64_t>(v); break;
    case Dtype::uint8: static_cast<std::uint8_t*>(p)[i] = static_cast<std::uint8_t>(v); break;
    case Dtype::boolean: static_cast<std::uint8_t*>(p)[i] = v != 0.0f ? 1 : 0; break;
  }
}

// SOL-ExecBench's conventions: random floats are standard normal (scaled by the trial's regime);
// fp8 is a normal clamped to +-2 before the cast (its range is narrow, and SOL does the same);
// integers are uniform in [low, high).
__global__ void generate_kernel(void* p, std::size_t n, Dtype d, InitParams q, std::uint64_t seed) {
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    float v = 0;
    switch (q.kind) {
      case InitKind::randn:
        v = q.scale * (q.a + q.b * standard_normal(seed, i));
        if (d == Dtype::fp8_e4m3 || d == Dtype::fp8_e5m2) v = fminf(fmaxf(v, -2.0f), 2.0f);
        break;
      case InitKind::uniform: v = q.scale * (q.a + (q.b - q.a) * uniform_open01(hash2(seed, i))); break;
      case InitKind::randint: v = floorf(q.a + (q.b - q.a) * uniform_open01(hash2(seed, i))); break;
      case InitKind::ones: v = 1; break;
      case InitKind::zeros: v = 0; break;
      case InitKind::full: v = q.a; break;
    }
    store_float(p, d, i, v);
  }
}

unsigned grid_for(std::size_t n) {
  const std::size_t blocks = (n + 255) / 256;
  return static_cast<unsigned>(blocks < 4096 ? (blocks ? blocks : 1) : 4096);
}

class SuiteProblem final : public Problem {
 public:
  std::string name() const override { return "suite"; }

  void configure(const nlohmann::json& params) override {
    w_ = suite::parse_resolved_workload(params);
    // The previous scenario's buffers are gone: so are the worker's mappings of them.
    if (reference_.running()) reference_.request({{"op", "release"}});
    reference_.forget_handles();
  }

  std::vector<TensorSpec> tensors() const override {
    std::vector<TensorSpec> t;
    for (const auto& a : w_.inputs)
      if (!a.scalar) t.push_back({a.name, a.elements, a.dtype, false});
    for (const auto& a : w_.outputs) t.push_back({a.name, a.elements, a.dtype, true});
    return t;
  }

  int input_regimes() const override { return static_cast<int>(w_.regimes.size()); }

  void generate_inputs(const std::vector<void*>& inputs, std::uint64_t seed, int trial,
                       cudaStream_t stream) override {
    const float scale = static_cast<float>(w_.regimes[static_cast<std::size_t>(trial) % w_.regimes.size()]);
    std::size_t k = 0;
    for (std::size_t i = 0; i < w_.inputs.size(); ++i) {
      const auto& a = w_.inputs[i];
      if (a.scalar) continue;
      const auto& in = a.init;
      InitParams q{in.kind, 0, 0, in.scaled ? scale : 1.0f};
      if (in.kind == InitKind::randn) q.a = static_cast<float>(in.mean), q.b = static_cast<float>(in.std);
      if (in.kind == InitKind::uniform || in.kind == InitKind::randint)
        q.a = static_cast<float>(in.low), q.b = static_cast<float>(in.high);
      if (in.kind == InitKind::full) q.a = static_cast<float>(in.value);
      generate_kernel<<<grid_for(a.elements), 256, 0, stream>>>(inputs.at(k++), a.elements, a.dtype, q,
                                                                 mix64(seed ^ (0x5017Eull + i)));
    }
    check_launch("input generation");
  }

  void reference(const std::vector<void*>& inputs, float* out, cudaStream_t stream) override {
    reference_outputs(inputs, {out}, stream);
  }

  // The reference worker reads the judge's inputs and writes fp32 references into `outs`, all
  // through CUDA IPC; started at the first reference of the run, loaded again when a scenario
  // names another definition.
  void reference_outputs(const std::vector<void*>& inputs, const std::vector<float*>& outs,
                         cudaStream_t stream) override {
    const cudaError_t e = cudaStreamSynchronize(stream);  // the inputs are generated
    if (e != cudaSuccess) throw std::runtime_error(std::string("before the reference: ") + cudaGetErrorString(e));
    if (!reference_.running() || python_ != w_.reference.python || script_ != w_.reference.worker) {
      reference_.start(w_.reference.python, w_.reference.worker);
      python_ = w_.reference.python, script_ = w_.reference.worker, loaded_.clear();
    }
    if (loaded_ != w_.reference.definition) {
      reference_.request({{"op", "load"}, {"definition", w_.reference.definition}, {"device", "cuda"}});
      loaded_ = w_.reference.definition;
    }
    int device = 0;
    cudaGetDevice(&device);
    auto buffer = [&](const void* p, Dtype d, const std::vector<std::int64_t>& shape) {
      const suite::SharedPointer s = reference_.share(p);
      return nlohmann::json{{"cuda_ipc", s.handle_hex}, {"device", device}, {"offset", s.offset},
                            {"dtype", dtype_definition_name(d)}, {"shape", shape}};
    };
    nlohmann::json in = nlohmann::json::object(), out = nlohmann::json::object();
    std::size_t k = 0;
    for (const auto& a : w_.inputs) {
      if (a.scalar) {
        if (a.dtype == Dtype::boolean) in[a.name] = a.value != 0;
        else if (is_floating(a.dtype)) in[a.name] = a.value;
        else in[a.name] = static_cast<long long>(a.value);
        continue;
      }
      in[a.name] = buffer(inputs.at(k++), a.dtype, a.shape);
    }
    for (std::size_t i = 0; i < w_.outputs.size(); ++i)
      out[w_.outputs[i].name] = buffer(outs.at(i), Dtype::fp32, w_.outputs[i].shape);
    reference_.request({{"op", "run"}, {"inputs", in}, {"outputs", out}, {"outputs_as", "float32"}});
  }

  int launch(void* entry, const std::vector<void*>& inputs, const std::vector<void*>& outputs,
             cudaStream_t stream) override {
    std::vector<socratic_suite_scalar> scalars;
    std::vector<std::int64_t> axes;
    for (const auto& a : w_.inputs)
      if (a.scalar) scalars.push_back({a.value, static_cast<std::int64_t>(a.value)});
    for (const auto& x : w_.axes)
      if (x.variable) axes.push_back(x.value);
    socratic_suite_call call{};
    call.inputs = inputs.data();
    call.outputs = outputs.data();
    call.scalars = scalars.data();
    call.var_axes = axes.data();
    call.input_count = static_cast<int>(inputs.size());
    call.output_count = static_cast<int>(outputs.size());
    call.scalar_count = static_cast<int>(scalars.size());
    call.var_axis_count = static_cast<int>(axes.size());
    using entry_fn = int (*)(const socratic_suite_call*, cudaStream_t);
    return reinterpret_cast<entry_fn>(entry)(&call, stream);
  }

  double flops() const override { return w_.flops.value_or(0.0); }
  // Given by the host, else every tensor read or written once.
  double min_bytes() const override {
    if (w_.min_bytes) return *w_.min_bytes;
    double bytes = 0;
    for (const auto& t : tensors()) bytes += static_cast<double>(t.elements) * dtype_bytes(t.dtype);
    return bytes;
  }
  double rounding_floor(double reference_max_abs) const override { return output_rounding_floor(0, reference_max_abs); }
  double max_error_cap(double reference_max_abs) const override { return output_max_error_cap(0, reference_max_abs); }
  // The suite's element-wise bound at the reference's largest magnitude (atol + rtol x max|ref|);
  // integers and bool compare exactly.
  double output_rounding_floor(std::size_t output, double reference_max_abs) const override {
    const auto& o = w_.outputs.at(output);
    if (!is_floating(o.dtype)) return 0;
    return o.tolerance.atol + o.tolerance.rtol * reference_max_abs;
  }
  double output_max_error_cap(std::size_t output, double) const override {
    const auto& o = w_.outputs.at(output);
    if (!is_floating(o.dtype)) return 0;
    return o.tolerance.max_error_cap.value_or(std::numeric_limits<double>::infinity());
  }

 private:
  static void check_launch(const char* what) {
    const cudaError_t e = cudaPeekAtLastError();
    if (e != cudaSuccess) throw std::runtime_error(std::string("suite ") + what + " launch: " + cudaGetErrorString(e));
  }

  suite::ResolvedWorkload w_;
  suite::ReferenceWorkerClient reference_;
  std::string python_, script_, loaded_;
};

}  // namespace
}  // namespace socratic::harness

std::unique_ptr<socratic::harness::Problem> socratic_make_problem() {
  return std::make_unique<socratic::harness::SuiteProblem>();
}
const char* socratic_problem_entry_point() { return SOCRATIC_SUITE_ENTRY; }
