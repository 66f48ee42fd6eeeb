// Control, not a cheat: the honest RMSNorm of honest_control.cu that waits for its own stream
// before it returns (cudaStreamSynchronize), as some real entry points do. Behind the judge's
// launch hold that wait cannot end until the hold's own timeout releases the SMs: the judge must
// notice the expired hold in the warm-up, time the scenario unheld for both sides and say so,
// never fail the candidate for it (kernels/harness/launch_hold.cuh).
// Caught by: nothing. Expected: correct on every scenario, timed, the log names the unheld timing.

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

extern "C" int socratic_rmsnorm_forward(const socratic_rmsnorm_args* args, cudaStream_t stream) {
  if (honest::launch(args, stream) != 0) return 2;
  return cudaStreamSynchronize(stream) == cudaSuccess ? 0 : 2;
}
