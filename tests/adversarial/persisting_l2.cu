// Cheat: uses a persisting-L2 window. It reserves the largest persisting carve-out and marks x
// as persisting on the caller's stream, so x survives the harness's L2 flush and a memory-bound
// kernel reads it from L2 in the timed call.
// Caught by: after every candidate call the runner reads cudaLimitPersistingL2CacheSize and the
// stream's access-policy window (and resets both, plus cudaCtxResetPersistingL2Cache, before
// every timed launch) -> flag `persisting_l2` (reason "persisting_l2: ..."), on every scenario.

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

extern "C" int socratic_rmsnorm_forward(const socratic_rmsnorm_args* a, cudaStream_t stream) {
  int device = 0;
  cudaGetDevice(&device);
  cudaDeviceProp prop{};
  cudaGetDeviceProperties(&prop, device);
  if (prop.persistingL2CacheMaxSize > 0) {
    cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize,
                       static_cast<std::size_t>(prop.persistingL2CacheMaxSize));
    cudaStreamAttrValue window{};
    const std::size_t bytes = static_cast<std::size_t>(a->rows) * a->cols * 2;
    window.accessPolicyWindow.base_ptr = const_cast<void*>(a->x);
    window.accessPolicyWindow.num_bytes =
        bytes < static_cast<std::size_t>(prop.accessPolicyMaxWindowSize)
            ? bytes
            : prop.accessPolicyMaxWindowSize;
    window.accessPolicyWindow.hitRatio = 1.0f;
    window.accessPolicyWindow.hitProp = cudaAccessPropertyPersisting;
    window.accessPolicyWindow.missProp = cudaAccessPropertyStreaming;
    cudaStreamSetAttribute(stream, cudaStreamAttributeAccessPolicyWindow, &window);
  }
  return honest::launch(a, stream);
}
