// The suite problem: one runner, socratic-runner-suite, for every problem of the field's suites
// (SOL-ExecBench, FlashInfer-Bench, KernelBench). Each scenario's parameters are a resolved
// workload (resolved_workload.hpp; docs/runner-protocol.md, "Suite problems"): the tensors and
// their generators, the scalars, the axes, the tolerance and where the PyTorch reference is.
// Inputs are generated on the GPU by the judge; the reference runs in the trusted reference
// worker on the judge's buffers (reference_client.hpp); the candidate is called through the
// adapter the host generates and compiles beside it (include/socratic/suite/suite_adapter.hpp,
// suite_call.h). The reference can also be the scenario's baseline (PytorchBaseline below: eager,
// or under torch.compile), timed by the judge in its interleaved protocol beside the judge's null
// implementation (socratic_suite_null_entry).
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "implementation.cuh"
#include "input_conventions.hpp"
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
  float a, b;  // randn: mean, std; uniform/randint/cumsum_uniform: low, high; full: value
  float scale;
  std::int64_t rows, columns;  // the last two dimensions (causal_mask; columns: the per-row kinds)
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
      case InitKind::cos_normal: v = suite::cos_of_clamped_normal(standard_normal(seed, i)); break;
      case InitKind::sin_normal: v = suite::sin_of_clamped_normal(standard_normal(seed, i)); break;
      case InitKind::positive_normal: v = suite::positive_statistic(standard_normal(seed, i)); break;
      case InitKind::causal_mask:
        if (d == Dtype::fp64 && suite::causal_masked(i, q.rows, q.columns)) {  // below float's range
          static_cast<double*>(p)[i] = suite::causal_mask_masked_double;
          continue;
        }
        v = suite::causal_mask_value(i, q.rows, q.columns, d);
        break;
      case InitKind::cumsum_uniform:
      case InitKind::softmax_normal: break;  // row_generate_kernel
      case InitKind::custom:
      case InitKind::safetensors:
      case InitKind::model_state: break;  // the reference worker (fill_inputs)
    }
    store_float(p, d, i, v);
  }
}

// The per-row conventions (cumsum of uniform values, softmax of normal logits): one thread a row
// of the last dimension, its draws the same pure functions of (seed, flat index) as above.
struct UniformDraw {
  std::uint64_t seed;
  __device__ float operator()(std::uint64_t k) const { return uniform_open01(hash2(seed, k)); }
};
struct NormalDraw {
  std::uint64_t seed;
  __device__ float operator()(std::uint64_t k) const { return standard_normal(seed, k); }
};
struct StoreDraw {
  void* p;
  Dtype d;
  __device__ void operator()(std::uint64_t k, float v) const { store_float(p, d, k, v); }
};

__global__ void row_generate_kernel(void* p, std::size_t n, Dtype d, InitParams q, std::uint64_t seed) {
  const std::size_t columns = static_cast<std::size_t>(q.columns);
  const std::size_t rows = columns ? n / columns : 0;
  for (std::size_t r = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; r < rows;
       r += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    const std::uint64_t first = r * columns;
    if (q.kind == InitKind::cumsum_uniform)
      suite::cumsum_of_uniform_row(first, q.columns, q.a, q.b, UniformDraw{seed}, StoreDraw{p, d});
    else
      suite::softmax_of_normal_row(first, q.columns, NormalDraw{seed}, StoreDraw{p, d});
  }
}

__global__ void null_kernel() {}

}  // namespace
}  // namespace socratic::harness

/// The judge's null implementation (Problem::null_entry): the suite entry point's signature, one
/// empty kernel on the stream it is given, nothing read or written. Timed in a native worker beside
/// a PyTorch baseline, it measures the judge's clock's overhead on the candidate's path.
extern "C" int socratic_suite_null_entry(const socratic_suite_call*, cudaStream_t stream) {
  socratic::harness::null_kernel<<<1, 1, 0, stream>>>();
  return cudaPeekAtLastError() == cudaSuccess ? 0 : -1;
}

namespace socratic::harness {
namespace {

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

  std::string requested_baseline() const override { return w_.reference.baseline; }
  bool has_pytorch_baseline() const override { return true; }
  Implementation* pytorch_baseline(bool compiled) override;
  void* null_entry() const override { return reinterpret_cast<void*>(&socratic_suite_null_entry); }

  /// The reference worker, started and holding the scenario's definition (loaded with `compile`
  /// when the baseline needs torch.compile; the fp32 references are the eager reference's either
  /// way).
  suite::ReferenceWorkerClient& ensure_reference(std::optional<bool> compile = std::nullopt) {
    if (!reference_.running() || python_ != w_.reference.python || script_ != w_.reference.worker) {
      reference_.start(w_.reference.python, w_.reference.worker);
      python_ = w_.reference.python, script_ = w_.reference.worker, loaded_.clear();
    }
    const bool want = compile.value_or(loaded_ == w_.reference.definition ? loaded_compiled_ : false);
    if (loaded_ != w_.reference.definition || want != loaded_compiled_) {
      // A KernelBench file's Model is built by the worker as KernelBench builds it (seeded).
      const char* key = w_.reference.kind == "kernelbench" ? "kernelbench" : "definition";
      nlohmann::json load = {{"op", "load"}, {key, w_.reference.definition}, {"device", "cuda"}};
      if (want) load["compile"] = true;
      reference_.request(load);
      loaded_ = w_.reference.definition;
      loaded_compiled_ = want;
    }
    return reference_;
  }

  /// A judge's device buffer as the worker opens it.
  nlohmann::json ipc_buffer(const void* p, Dtype d, const std::vector<std::int64_t>& shape) {
    int device = 0;
    cudaGetDevice(&device);
    const suite::SharedPointer s = reference_.share(p);
    return nlohmann::json{{"cuda_ipc", s.handle_hex}, {"device", device}, {"offset", s.offset},
                          {"dtype", dtype_definition_name(d)}, {"shape", shape}};
  }

  /// The `inputs` object of a request: every tensor input's buffer (`inputs`, in order) and every
  /// scalar's value.
  nlohmann::json input_object(const std::vector<const void*>& inputs) {
    nlohmann::json in = nlohmann::json::object();
    std::size_t k = 0;
    for (const auto& a : w_.inputs) {
      if (a.scalar) {
        if (a.dtype == Dtype::boolean) in[a.name] = a.value != 0;
        else if (is_floating(a.dtype)) in[a.name] = a.value;
        else in[a.name] = static_cast<long long>(a.value);
        continue;
      }
      in[a.name] = ipc_buffer(inputs.at(k++), a.dtype, a.shape);
    }
    return in;
  }
  const suite::ResolvedWorkload& workload() const { return w_; }

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
    nlohmann::json worker_buffers = nlohmann::json::object(), sources = nlohmann::json::object();
    for (std::size_t i = 0; i < w_.inputs.size(); ++i) {
      const auto& a = w_.inputs[i];
      if (a.scalar) continue;
      const auto& in = a.init;
      if (suite::init_by_worker(in.kind)) {
        worker_buffers[a.name] = nlohmann::json{{"index", k++}};  // its place among the tensor inputs
        sources[a.name] = in.kind == InitKind::custom        ? nlohmann::json{{"type", "custom"}}
                          : in.kind == InitKind::model_state ? nlohmann::json{{"type", "model_state"}, {"key", in.state_key}}
                                                             : nlohmann::json{{"type", "safetensors"}, {"path", in.path},
                                                                              {"tensor_key", in.tensor_key}};
        continue;
      }
      InitParams q{in.kind, 0, 0, in.scaled ? scale : 1.0f, 1, 1};
      if (in.kind == InitKind::randn) q.a = static_cast<float>(in.mean), q.b = static_cast<float>(in.std);
      if (in.kind == InitKind::uniform || in.kind == InitKind::randint || in.kind == InitKind::cumsum_uniform)
        q.a = static_cast<float>(in.low), q.b = static_cast<float>(in.high);
      if (in.kind == InitKind::full) q.a = static_cast<float>(in.value);
      if (!a.shape.empty()) q.columns = a.shape.back();
      if (a.shape.size() >= 2) q.rows = a.shape[a.shape.size() - 2];
      const std::uint64_t input_seed = mix64(seed ^ (0x5017Eull + i));
      if (suite::init_is_per_row(in.kind)) {
        const std::size_t rows = q.columns > 0 ? a.elements / static_cast<std::size_t>(q.columns) : 0;
        row_generate_kernel<<<grid_for(rows), 256, 0, stream>>>(inputs.at(k++), a.elements, a.dtype, q, input_seed);
      } else {
        generate_kernel<<<grid_for(a.elements), 256, 0, stream>>>(inputs.at(k++), a.elements, a.dtype, q,
                                                                   input_seed);
      }
    }
    check_launch("input generation");
    if (!sources.empty()) fill_by_worker(inputs, worker_buffers, sources, seed, stream);
  }

  /// The inputs the runner cannot make (`custom`, `safetensors`): the trusted reference worker
  /// writes them into the judge's buffers over CUDA IPC. A custom input is drawn by the
  /// reference's custom_inputs_entrypoint after torch.manual_seed of this round's input seed, a
  /// secret of the judge's (the candidate cannot predict it); the same seed gives the same inputs
  /// (the correctness check regenerates them after a candidate that wrote into its inputs).
  void fill_by_worker(const std::vector<void*>& inputs, const nlohmann::json& positions, const nlohmann::json& sources,
                      std::uint64_t seed, cudaStream_t stream) {
    const cudaError_t e = cudaStreamSynchronize(stream);
    if (e != cudaSuccess) throw std::runtime_error(std::string("before the worker's inputs: ") + cudaGetErrorString(e));
    ensure_reference();
    nlohmann::json buffers = nlohmann::json::object();
    for (const auto& a : w_.inputs)
      if (positions.contains(a.name))
        buffers[a.name] = ipc_buffer(inputs.at(positions[a.name]["index"].get<std::size_t>()), a.dtype, a.shape);
    // SOL's axes_and_scalars: every axis's value, then every scalar input's.
    nlohmann::json axes = nlohmann::json::object();
    for (const auto& x : w_.axes) axes[x.name] = x.value;
    for (const auto& a : w_.inputs)
      if (a.scalar) axes[a.name] = is_floating(a.dtype) ? nlohmann::json(a.value)
                                   : a.dtype == Dtype::boolean ? nlohmann::json(a.value != 0)
                                                               : nlohmann::json(static_cast<long long>(a.value));
    reference_.request({{"op", "fill_inputs"}, {"inputs", buffers}, {"sources", sources}, {"axes", axes},
                        {"seed", seed & 0x7FFFFFFFFFFFFFFFull}});
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
    ensure_reference();
    const nlohmann::json in = input_object(std::vector<const void*>(inputs.begin(), inputs.end()));
    nlohmann::json out = nlohmann::json::object();
    for (std::size_t i = 0; i < w_.outputs.size(); ++i)
      out[w_.outputs[i].name] = ipc_buffer(outs.at(i), Dtype::fp32, w_.outputs[i].shape);
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
  bool loaded_compiled_ = false;
  std::unique_ptr<Implementation> pytorch_baseline_;
};

/// The suite's baseline: the scenario's PyTorch reference, in eager mode or under torch.compile,
/// in the judge's trusted reference worker (the same process as the fp32 references). Each call is
/// the worker's `time`: the reference on private copies of the judge's inputs, timed by CUDA events
/// on the worker's stream around the reference alone, its outputs then copied in their own dtype
/// into the baseline's output buffers (docs/reference-worker.md). It cannot be held; the judge
/// stops it (SIGSTOP) while another side is timed, as it stops the workers.
class PytorchBaseline final : public AddressImplementation {
 public:
  explicit PytorchBaseline(SuiteProblem& problem) : problem_(problem) {}

  void set_compiled(bool compiled) { compiled_ = compiled; }
  const std::string& role() const override { return role_; }
  void configure(const nlohmann::json&) override {  // the problem holds the scenario
    problem_.ensure_reference(compiled_);
  }

  std::uint32_t map_addresses(const std::vector<const void*>& tensors) override {
    const auto& w = problem_.workload();
    std::size_t tensor_inputs = 0;
    for (const auto& a : w.inputs) tensor_inputs += a.scalar ? 0 : 1;
    if (tensors.size() != tensor_inputs + w.outputs.size())
      throw std::runtime_error("the PyTorch baseline was given " + std::to_string(tensors.size()) +
                               " tensors; the definition has " + std::to_string(tensor_inputs + w.outputs.size()));
    Buffers b;
    b.inputs = problem_.input_object(std::vector<const void*>(tensors.begin(), tensors.begin() + tensor_inputs));
    b.outputs = nlohmann::json::object();
    for (std::size_t i = 0; i < w.outputs.size(); ++i)  // the outputs' own dtype: never cast
      b.outputs[w.outputs[i].name] =
          problem_.ipc_buffer(tensors[tensor_inputs + i], w.outputs[i].dtype, w.outputs[i].shape);
    const std::uint32_t id = next_++;
    placements_[id] = std::move(b);
    return id;
  }

  void unmap() override {
    placements_.clear();
    suite::ReferenceWorkerClient& ref = problem_.ensure_reference();
    ref.request({{"op", "release"}});
    ref.forget_handles();
  }

  RemoteReply plain(std::uint32_t placement) override { return call(placement); }

  RemoteReply timed(std::uint32_t placement, bool held) override {
    if (held) throw std::logic_error("the PyTorch baseline cannot be timed behind the launch hold");
    return call(placement);
  }

  bool can_hold() const override { return false; }
  void stop() override { problem_.ensure_reference().pause(); }
  void resume() override { problem_.ensure_reference().resume(); }

 private:
  struct Buffers {
    nlohmann::json inputs, outputs;
  };

  RemoteReply call(std::uint32_t placement) {
    const auto it = placements_.find(placement);
    if (it == placements_.end()) throw std::runtime_error("the PyTorch baseline: call on an unmapped placement");
    const nlohmann::json reply = problem_.ensure_reference(compiled_).request(
        {{"op", "time"}, {"inputs", it->second.inputs}, {"outputs", it->second.outputs}});
    RemoteReply r;
    const nlohmann::json ms = reply.value("event_ms", nlohmann::json());
    if (!ms.is_number() || !std::isfinite(ms.get<double>()) || ms.get<double>() < 0)
      throw std::runtime_error("the PyTorch baseline's worker replied no event time: " + reply.dump().substr(0, 200));
    r.event_ms = ms.get<double>();
    return r;
  }

  SuiteProblem& problem_;
  const std::string role_ = "baseline";
  bool compiled_ = false;
  std::map<std::uint32_t, Buffers> placements_;
  std::uint32_t next_ = 1;
};

Implementation* SuiteProblem::pytorch_baseline(bool compiled) {
  if (!pytorch_baseline_) pytorch_baseline_ = std::make_unique<PytorchBaseline>(*this);
  auto* b = static_cast<PytorchBaseline*>(pytorch_baseline_.get());
  b->set_compiled(compiled);
  ensure_reference(compiled);
  return b;
}

}  // namespace
}  // namespace socratic::harness

std::unique_ptr<socratic::harness::Problem> socratic_make_problem() {
  return std::make_unique<socratic::harness::SuiteProblem>();
}
const char* socratic_problem_entry_point() { return SOCRATIC_SUITE_ENTRY; }
