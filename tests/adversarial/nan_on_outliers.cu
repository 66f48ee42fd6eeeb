// Cheat: produces NaN on some inputs. Rows holding a large value (|x| > 64) are "hard", so it
// writes NaN there instead of computing: a comparator written as `if (err > tol) fail` lets
// NaN through, since every comparison with NaN is false (pygpubench's gc_nan).
// Caught by: rejecting any non-finite output -> flag `non_finite` (reason "non_finite: N of M
// output elements are NaN or Inf"), on every scenario (the outlier trial and the scale-64
// trial both contain such rows).

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
__global__ void rmsnorm_nan_on_hard_rows(const void* x, const void* w, void* y, int cols, float eps,
                                         int dtype) {
  __shared__ float partial[honest::threads];
  __shared__ int hard;
  if (threadIdx.x == 0) hard = 0;
  __syncthreads();
  const std::size_t base = static_cast<std::size_t>(blockIdx.x) * cols;
  float sum = 0;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) {
    const float v = honest::load(x, dtype, base + c);
    sum += v * v;
    if (fabsf(v) > 64.0f) hard = 1;
  }
  partial[threadIdx.x] = sum;
  __syncthreads();
  for (int k = blockDim.x / 2; k > 0; k /= 2) {
    if (threadIdx.x < k) partial[threadIdx.x] += partial[threadIdx.x + k];
    __syncthreads();
  }
  const float inv = rsqrtf(partial[0] / cols + eps);
  for (int c = threadIdx.x; c < cols; c += blockDim.x) {
    const float v = hard ? __int_as_float(0x7FC00000)
                         : honest::load(x, dtype, base + c) * inv * honest::load(w, dtype, c);
    honest::store(y, dtype, base + c, v);
  }
}
}  // namespace

extern "C" int socratic_rmsnorm_forward(const socratic_rmsnorm_args* a, cudaStream_t stream) {
  rmsnorm_nan_on_hard_rows<<<a->rows, honest::threads, 0, stream>>>(a->x, a->weight, a->y, a->cols,
                                                                    a->eps, a->dtype);
  return cudaGetLastError() == cudaSuccess ? 0 : 2;
}
