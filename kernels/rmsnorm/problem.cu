// The RMSNorm problem for the generic runner (kernels/harness/problem.cuh): parameters, input
// generation, the fp32 reference (our own simple kernel, never the baseline or a library), the
// tolerance and the cost model. y[r][c] = x[r][c] / sqrt(mean_c(x[r][c]^2) + eps) * w[c].
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "problem.cuh"
#include "random.cuh"
#include "rmsnorm_args.h"

namespace socratic::harness {
namespace {

__device__ inline float load_element(const void* p, Dtype d, std::size_t i) {
  if (d == Dtype::bf16) return __bfloat162float(static_cast<const __nv_bfloat16*>(p)[i]);
  return __half2float(static_cast<const __half*>(p)[i]);
}

// Stores v rounded to the element type; a value that rounds to zero becomes `nonzero` instead
// (inputs are never zero: a zero hides an implementation that ignores its input).
__device__ inline void store_nonzero(void* p, Dtype d, std::size_t i, float v, float nonzero) {
  if (d == Dtype::bf16) {
    __nv_bfloat16 h = __float2bfloat16_rn(v);
    if (__bfloat162float(h) == 0.0f) h = __float2bfloat16_rn(nonzero);
    static_cast<__nv_bfloat16*>(p)[i] = h;
  } else {
    __half h = __float2half_rn(v);
    if (__half2float(h) == 0.0f) h = __float2half_rn(nonzero);
    static_cast<__half*>(p)[i] = h;
  }
}

// x = scale * N(0,1) + Bernoulli(outlier_p) * outlier_scale * N(0,1) (FA3's outlier recipe).
__global__ void generate_x(void* x, std::size_t n, Dtype d, std::uint64_t seed, float scale,
                           float outlier_p, float outlier_scale) {
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    float v = scale * standard_normal(seed, i);
    if (outlier_p > 0 && bernoulli(seed, i, outlier_p))
      v += outlier_scale * standard_normal(seed ^ 0x0071ull, i);
    store_nonzero(x, d, i, v, (hash2(seed, i) & 1) ? scale : -scale);
  }
}

// weight = 1 + 0.5 * N(0,1): mostly near one, some negative, never zero.
__global__ void generate_weight(void* w, std::size_t n, Dtype d, std::uint64_t seed) {
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x)
    store_nonzero(w, d, i, 1.0f + 0.5f * standard_normal(seed, i), 0.5f);
}

// The fp32 reference: one block per row, a plain strided sum of squares and a tree reduction.
constexpr int reference_threads = 256;
__global__ void reference_kernel(const void* x, const void* w, float* out, int cols, Dtype d,
                                 float eps) {
  __shared__ float partial[reference_threads];
  const std::size_t row = blockIdx.x;
  const std::size_t base = row * static_cast<std::size_t>(cols);
  float sum = 0;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) {
    const float v = load_element(x, d, base + c);
    sum += v * v;
  }
  partial[threadIdx.x] = sum;
  __syncthreads();
  for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) partial[threadIdx.x] += partial[threadIdx.x + stride];
    __syncthreads();
  }
  const float inv = 1.0f / sqrtf(partial[0] / static_cast<float>(cols) + eps);
  for (int c = threadIdx.x; c < cols; c += blockDim.x)
    out[base + c] = load_element(x, d, base + c) * inv * load_element(w, d, c);
}

unsigned grid_for(std::size_t n) {
  const std::size_t blocks = (n + 255) / 256;
  return static_cast<unsigned>(blocks < 4096 ? (blocks ? blocks : 1) : 4096);
}

class RmsNormProblem final : public Problem {
 public:
  std::string name() const override { return "rmsnorm"; }

  void configure(const nlohmann::json& params) override {
    if (!params.is_object()) throw std::runtime_error("parameters: expected an object");
    for (auto it = params.begin(); it != params.end(); ++it)
      if (it.key() != "rows" && it.key() != "cols" && it.key() != "dtype" && it.key() != "eps")
        throw std::runtime_error("field \"" + it.key() +
                                 "\": unknown parameter of rmsnorm (rows, cols, dtype, eps)");
    rows_ = positive_int(params, "rows");
    cols_ = positive_int(params, "cols");
    if (static_cast<double>(rows_) * cols_ > 4294967296.0)
      throw std::runtime_error(
          "field \"rows\": rows x cols = " + std::to_string(static_cast<double>(rows_) * cols_) +
          " elements exceeds 2^32");
    dtype_ = Dtype::bf16;
    if (params.contains("dtype")) {
      const auto& d = params["dtype"];
      if (!d.is_string() || (d != "bf16" && d != "fp16"))
        throw std::runtime_error("field \"dtype\": expected \"bf16\" or \"fp16\", got " + d.dump());
      dtype_ = d == "bf16" ? Dtype::bf16 : Dtype::fp16;
    }
    eps_ = 1e-6f;
    if (params.contains("eps")) {
      const auto& e = params["eps"];
      if (!e.is_number() || !(e.get<double>() > 0) || !std::isfinite(e.get<double>()))
        throw std::runtime_error("field \"eps\": expected a positive number, got " + e.dump());
      eps_ = static_cast<float>(e.get<double>());
    }
  }

  std::vector<TensorSpec> tensors() const override {
    const std::size_t n = static_cast<std::size_t>(rows_) * cols_;
    return {{"x", n, dtype_, false},
            {"weight", static_cast<std::size_t>(cols_), dtype_, false},
            {"y", n, dtype_, true}};
  }

  int input_regimes() const override { return 3; }

  // Trial t picks a scale: 0 unit scale with rare large outliers, 1 tiny values (eps matters),
  // 2 large values (squares overflow fp16, so fp16 accumulation fails).
  void generate_inputs(const std::vector<void*>& inputs, std::uint64_t seed, int trial,
                       cudaStream_t stream) override {
    const std::size_t n = static_cast<std::size_t>(rows_) * cols_;
    float scale = 1, outlier_p = 0.001f, outlier_scale = 100;
    if (trial % 3 == 1) scale = 1e-3f, outlier_p = 0;
    if (trial % 3 == 2) scale = 64, outlier_p = 0;
    generate_x<<<grid_for(n), 256, 0, stream>>>(inputs.at(0), n, dtype_, seed, scale, outlier_p,
                                                outlier_scale);
    generate_weight<<<grid_for(cols_), 256, 0, stream>>>(inputs.at(1), cols_, dtype_,
                                                         mix64(seed ^ 0x3E16u));
    check_launch("input generation");
  }

  void reference(const std::vector<void*>& inputs, float* out, cudaStream_t stream) override {
    reference_kernel<<<rows_, reference_threads, 0, stream>>>(inputs.at(0), inputs.at(1), out,
                                                              cols_, dtype_, eps_);
    check_launch("reference");
  }

  int launch(void* entry, const std::vector<void*>& inputs, const std::vector<void*>& outputs,
             cudaStream_t stream) override {
    socratic_rmsnorm_args args{};
    args.x = inputs.at(0);
    args.weight = inputs.at(1);
    args.y = outputs.at(0);
    args.rows = rows_;
    args.cols = cols_;
    args.eps = eps_;
    args.dtype = dtype_ == Dtype::bf16 ? 0 : 1;
    using entry_fn = int (*)(const socratic_rmsnorm_args*, cudaStream_t);
    return reinterpret_cast<entry_fn>(entry)(&args, stream);
  }

  // Per element: square, add, scale by the inverse RMS, scale by the weight.
  double flops() const override { return 4.0 * rows_ * static_cast<double>(cols_); }
  // x read once, y written once, the weight read once.
  double min_bytes() const override {
    return (2.0 * rows_ * static_cast<double>(cols_) + cols_) * dtype_bytes(dtype_);
  }
  // One unit in the last place at the reference's largest magnitude (2^-7 relative for bf16,
  // 2^-10 for fp16): an honest implementation may round differently by that much.
  double rounding_floor(double reference_max_abs) const override {
    return ulp_relative() * reference_max_abs;
  }
  // Whatever the baseline does, no more than 4 such units.
  double max_error_cap(double reference_max_abs) const override {
    return 4 * ulp_relative() * reference_max_abs;
  }

 private:
  double ulp_relative() const { return dtype_ == Dtype::bf16 ? 0.0078125 : 0.0009765625; }
  static int positive_int(const nlohmann::json& p, const char* key) {
    if (!p.contains(key)) throw std::runtime_error(std::string("field \"") + key + "\": required");
    const auto& v = p[key];
    if (!v.is_number_integer() || v.get<long long>() < 1 || v.get<long long>() > 2147483647LL)
      throw std::runtime_error(std::string("field \"") + key +
                               "\": expected an integer in [1, 2^31-1], got " + v.dump());
    return static_cast<int>(v.get<long long>());
  }
  static void check_launch(const char* what) {
    const cudaError_t e = cudaPeekAtLastError();
    if (e != cudaSuccess)
      throw std::runtime_error(std::string("rmsnorm ") + what +
                               " launch: " + cudaGetErrorString(e));
  }

  int rows_ = 0, cols_ = 0;
  Dtype dtype_ = Dtype::bf16;
  float eps_ = 1e-6f;
};

}  // namespace
}  // namespace socratic::harness

std::unique_ptr<socratic::harness::Problem> socratic_make_problem() {
  return std::make_unique<socratic::harness::RmsNormProblem>();
}
const char* socratic_problem_entry_point() {
  return "socratic_rmsnorm_forward";
}
