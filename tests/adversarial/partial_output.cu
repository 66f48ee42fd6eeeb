// Cheat: writes only part of the output: the first half of the rows (or, for a single row,
// the first half of its columns), hoping that a checker samples the beginning.
// Caught by: the poison left in the rest -> flag `unwritten` (reason "unwritten: N of M output
// elements were not written"), on every scenario.

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
__global__ void first_half_of_one_row(const void* x, const void* w, void* y, int cols, float eps,
                                      int dtype) {
  // Honest sum over the whole row, but only the first half of the columns is written.
  __shared__ float partial[honest::threads];
  float sum = 0;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) {
    const float v = honest::load(x, dtype, c);
    sum += v * v;
  }
  partial[threadIdx.x] = sum;
  __syncthreads();
  for (int k = blockDim.x / 2; k > 0; k /= 2) {
    if (threadIdx.x < k) partial[threadIdx.x] += partial[threadIdx.x + k];
    __syncthreads();
  }
  const float inv = rsqrtf(partial[0] / cols + eps);
  for (int c = threadIdx.x; c < (cols + 1) / 2; c += blockDim.x)
    honest::store(y, dtype, c, honest::load(x, dtype, c) * inv * honest::load(w, dtype, c));
}
}  // namespace

extern "C" int socratic_rmsnorm_forward(const socratic_rmsnorm_args* args, cudaStream_t stream) {
  if (args->rows == 1) {
    first_half_of_one_row<<<1, honest::threads, 0, stream>>>(args->x, args->weight, args->y,
                                                             args->cols, args->eps, args->dtype);
  } else {
    const int half = (args->rows + 1) / 2;  // the cheat: the other rows are never written
    honest::rmsnorm<<<half, honest::threads, 0, stream>>>(args->x, args->weight, args->y,
                                                          args->cols, args->eps, args->dtype);
  }
  return cudaGetLastError() == cudaSuccess ? 0 : 2;
}
