// Cheat: memoisation keyed on the pointers (CUDA-L1 learned it; gpu-mode #104). The first call
// with given buffers computes and keeps a copy of the output; later calls with the same
// buffers and shape copy that back instead of computing. A harness that calls twice with the
// same inputs sees two correct answers and a fast second call.
// Caught by: the second call with new inputs in the same buffers -> flag `memoised` (reason
// "memoised: ... identical to the previous call's although the inputs ... changed"), on every
// scenario.

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
struct Memo {
  const void* x = nullptr;
  const void* w = nullptr;
  void* y = nullptr;
  int rows = 0, cols = 0, dtype = -1;
  void* stash = nullptr;
};
Memo memo;
}  // namespace

extern "C" int socratic_rmsnorm_forward(const socratic_rmsnorm_args* a, cudaStream_t stream) {
  const std::size_t bytes = static_cast<std::size_t>(a->rows) * a->cols * 2;
  const bool hit = memo.stash && memo.x == a->x && memo.w == a->weight && memo.y == a->y &&
                   memo.rows == a->rows && memo.cols == a->cols && memo.dtype == a->dtype;
  if (hit)
    return cudaMemcpyAsync(a->y, memo.stash, bytes, cudaMemcpyDeviceToDevice, stream) == cudaSuccess
               ? 0
               : 2;
  if (memo.stash) cudaFree(memo.stash);
  memo = Memo{a->x, a->weight, a->y, a->rows, a->cols, a->dtype, nullptr};
  if (cudaMalloc(&memo.stash, bytes) != cudaSuccess) return 2;
  const int ret = honest::launch(a, stream);
  if (ret != 0) return ret;
  return cudaMemcpyAsync(memo.stash, a->y, bytes, cudaMemcpyDeviceToDevice, stream) == cudaSuccess
             ? 0
             : 2;
}
