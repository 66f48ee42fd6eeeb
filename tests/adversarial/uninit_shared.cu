// Cheat (or bug): reads uninitialised shared memory. The block reduction sums all 32 slots of
// its shared array although only 4 warps wrote theirs; on a fresh GPU the other slots often
// hold zeros or what an earlier kernel left there (Wafer: a 104x "speed-up" read results left
// in shared memory), so it can pass a naive check.
// Caught by: before every candidate call a kernel fills every SM's shared memory with random
// plausible floats; two calls on the same inputs under different garbage differ ->
// flag `nondeterministic` (reason "nondeterministic: two calls on the same inputs under
// different shared-memory garbage differ"), on every scenario; or the garbage decodes to NaN/Inf
// (flag `non_finite`), or the first call's answer is already wrong (a tolerance failure).

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "rmsnorm_args.h"

// ---- an honest RMSNorm (one block per row, fp32 accumulation), kept in this file so that it
// ---- builds alone, exactly as the evaluator builds a candidate ----
namespace honest {
__device__ inline float load(const void* p, int dtype, std::size_t i) {
  return dtype == 0 ? __bfloat162float(static_cast<const __nv_bfloat16*>(p)[i])
                    : __half2float(static_cast<const __half*>(p)[i]);
}
__device__ inline void store(void* p, int dtype, std::size_t i, float v) {
  if (dtype == 0)
    static_cast<__nv_bfloat16*>(p)[i] = __float2bfloat16_rn(v);
  else
    static_cast<__half*>(p)[i] = __float2half_rn(v);
}
constexpr int threads = 256;
__global__ void rmsnorm(const void* x, const void* w, void* y, int cols, float eps, int dtype) {
  __shared__ float partial[threads];
  const std::size_t base = static_cast<std::size_t>(blockIdx.x) * cols;
  float sum = 0;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) {
    const float v = load(x, dtype, base + c);
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
    store(y, dtype, base + c, load(x, dtype, base + c) * inv * load(w, dtype, c));
}
inline int launch(const socratic_rmsnorm_args* a, cudaStream_t stream) {
  rmsnorm<<<a->rows, threads, 0, stream>>>(a->x, a->weight, a->y, a->cols, a->eps, a->dtype);
  return cudaGetLastError() == cudaSuccess ? 0 : 2;
}
}  // namespace honest

namespace {
constexpr int block = 128;  // 4 warps
__global__ void rmsnorm_reading_garbage(const void* x, const void* w, void* y, int cols, float eps,
                                        int dtype) {
  __shared__ float warp_sums[32];
  __shared__ float total;
  const std::size_t base = static_cast<std::size_t>(blockIdx.x) * cols;
  float sum = 0;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) {
    const float v = honest::load(x, dtype, base + c);
    sum += v * v;
  }
  for (int o = 16; o > 0; o >>= 1) sum += __shfl_xor_sync(0xFFFFFFFFu, sum, o);
  if ((threadIdx.x & 31) == 0) warp_sums[threadIdx.x >> 5] = sum;
  __syncthreads();
  if (threadIdx.x < 32) {
    float t = warp_sums[threadIdx.x];  // the bug: slots 4..31 were never written
    for (int o = 16; o > 0; o >>= 1) t += __shfl_xor_sync(0xFFFFFFFFu, t, o);
    if (threadIdx.x == 0) total = t;
  }
  __syncthreads();
  const float inv = rsqrtf(total / cols + eps);
  for (int c = threadIdx.x; c < cols; c += blockDim.x)
    honest::store(y, dtype, base + c,
                  honest::load(x, dtype, base + c) * inv * honest::load(w, dtype, c));
}
}  // namespace

extern "C" int socratic_rmsnorm_forward(const socratic_rmsnorm_args* a, cudaStream_t stream) {
  rmsnorm_reading_garbage<<<a->rows, block, 0, stream>>>(a->x, a->weight, a->y, a->cols, a->eps,
                                                         a->dtype);
  return cudaGetLastError() == cudaSuccess ? 0 : 2;
}
