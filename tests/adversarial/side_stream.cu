// Cheat: launches on a side stream. The work goes to a stream of its own, ordered after the
// caller's stream by an event but never joined back, so CUDA events recorded on the caller's
// stream around the call time almost nothing (measured on an H200: a 4096^2 matmul read
// 0.080 ms on events vs 2.750 ms honest). The result is right once the device is idle.
// Caught by: the output snapshot taken when the runner's stream is done (the output still
// changes afterwards) and the wall-clock cross-check with a device-wide sync -> flag
// `side_stream`, on the large scenarios (on the smallest ones the hidden work is shorter than
// the launch overhead, and the timing there is flagged below_roofline or not at all).

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
cudaStream_t side = nullptr;
cudaEvent_t ready = nullptr;
}  // namespace

extern "C" int socratic_rmsnorm_forward(const socratic_rmsnorm_args* a, cudaStream_t stream) {
  if (!side) {
    if (cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking) != cudaSuccess) return 2;
    if (cudaEventCreateWithFlags(&ready, cudaEventDisableTiming) != cudaSuccess) return 2;
  }
  cudaEventRecord(ready, stream);  // inputs are ready once the caller's stream got here
  cudaStreamWaitEvent(side, ready, 0);
  return honest::launch(a, side);  // the cheat: no event back into `stream`
}
