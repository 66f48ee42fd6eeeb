// Cheat: computes a timed call's output from inputs it predicts instead of the ones it is given.
// The old judge drew every input from a seed (0 unless the host chose one) through a public
// generator (kernels/harness/random.cuh, kernels/rmsnorm/problem.cu), so the inputs of timed
// sample s of scenario ID were a function of (ID, s) that anyone could evaluate, at load or at
// any call before. For a memory-bound kernel that is a real gain: this candidate regenerates x
// in registers and never reads it, halving its DRAM traffic, while the correctness calls (which
// check it) are computed honestly. Precomputing outputs at load is the same knowledge spent
// earlier.
// Caught by: every input now comes from the judge's secret key (secret.hpp, fresh per run), so
// the prediction is wrong; the timed output is compared with the baseline's on the same inputs
// -> `timed_output` (reason "timed call"), on every scenario.

#include "schedule_kit.cuh"

namespace predict {

__host__ __device__ inline std::uint64_t mix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}
__device__ inline std::uint64_t hash2(std::uint64_t seed, std::uint64_t i) { return mix64(seed ^ mix64(i)); }
__device__ inline float uniform_open01(std::uint64_t h) {
  return (static_cast<float>(h & 0xFFFFFFull) + 0.5f) * (1.0f / 16777216.0f);
}
__device__ inline float standard_normal(std::uint64_t seed, std::uint64_t i) {
  const std::uint64_t h = hash2(seed, i);
  return sqrtf(-2.0f * logf(uniform_open01(h >> 40))) * cospif(2.0f * uniform_open01(h));
}
__device__ inline bool bernoulli(std::uint64_t seed, std::uint64_t i, float p) {
  return uniform_open01(hash2(seed ^ 0xB5AD4ECEDA1CE2A9ull, i)) < p;
}
/// x[i] as the problem's generator stores it (rounded to the dtype, never zero).
__device__ inline float predicted_x(std::uint64_t seed, std::size_t i, int dtype, float scale,
                                    float outlier_p) {
  float v = scale * standard_normal(seed, i);
  if (outlier_p > 0 && bernoulli(seed, i, outlier_p)) v += 100.0f * standard_normal(seed ^ 0x0071ull, i);
  const float nonzero = (hash2(seed, i) & 1) ? scale : -scale;
  float r = dtype == 0 ? __bfloat162float(__float2bfloat16_rn(v)) : __half2float(__float2half_rn(v));
  if (r == 0.0f) r = dtype == 0 ? __bfloat162float(__float2bfloat16_rn(nonzero)) : __half2float(__float2half_rn(nonzero));
  return r;
}
__global__ void rmsnorm_of_predicted(std::uint64_t seed, const void* w, void* y, int cols, float eps,
                                     int dtype, float scale, float outlier_p) {
  __shared__ float partial[honest::threads];
  const std::size_t base = static_cast<std::size_t>(blockIdx.x) * cols;
  float sum = 0;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) {
    const float v = predicted_x(seed, base + c, dtype, scale, outlier_p);
    sum += v * v;
  }
  partial[threadIdx.x] = sum;
  __syncthreads();
  for (int k = blockDim.x / 2; k > 0; k /= 2) {
    if (threadIdx.x < k) partial[threadIdx.x] += partial[threadIdx.x + k];
    __syncthreads();
  }
  const float inv = rsqrtf(partial[0] / cols + eps);
  for (int c = threadIdx.x; c < cols; c += blockDim.x)
    honest::store(y, dtype, base + c,
                  predicted_x(seed, base + c, dtype, scale, outlier_p) * inv * honest::load(w, dtype, c));
}

std::uint64_t fnv1a(const char* s) {
  std::uint64_t h = 0xCBF29CE484222325ull;
  for (; *s; ++s) h = (h ^ static_cast<unsigned char>(*s)) * 0x100000001B3ull;
  return h;
}

/// The scenario's id, from its shape (scenarios/rmsnorm.json is public).
const char* scenario_id(const socratic_rmsnorm_args* a) {
  struct Known { const char* id; int rows, cols, dtype; };
  static const Known known[] = {{"tiny", 1, 64, 0},          {"small", 16, 1024, 0},
                                {"odd_rows", 1531, 2048, 0}, {"odd_cols_fp16", 257, 1001, 1},
                                {"cols_5120", 4096, 5120, 0}, {"mid_fp16", 8192, 4096, 1},
                                {"wide", 32, 65536, 0},      {"large", 32768, 8192, 0}};
  for (const auto& k : known)
    if (k.rows == a->rows && k.cols == a->cols && k.dtype == a->dtype) return k.id;
  return nullptr;
}

}  // namespace predict

extern "C" int socratic_rmsnorm_forward(const socratic_rmsnorm_args* args, cudaStream_t stream) {
  const schedule::Position p = schedule::next_call(args);
  const char* id = predict::scenario_id(args);
  if (!p.timed || !id) return honest::launch(args, stream);
  // The old judge: scenario seed mix64(seed ^ fnv1a(id)) with seed 0; sample s's inputs from
  // mix64(scenario_seed ^ (0x71AE0000 + s)), in regime s % 3 (1: scale 1e-3; 2: scale 64).
  const std::uint64_t scenario = predict::mix64(predict::fnv1a(id));
  const std::uint64_t seed = predict::mix64(scenario ^ (0x71AE0000ull + static_cast<std::uint64_t>(p.sample)));
  const int regime = p.sample % 3;
  const float scale = regime == 1 ? 1e-3f : regime == 2 ? 64.0f : 1.0f;
  const float outlier_p = regime == 0 ? 0.001f : 0.0f;
  predict::rmsnorm_of_predicted<<<args->rows, honest::threads, 0, stream>>>(
      seed, args->weight, args->y, args->cols, args->eps, args->dtype, scale, outlier_p);
  return cudaGetLastError() == cudaSuccess ? 0 : 2;
}
