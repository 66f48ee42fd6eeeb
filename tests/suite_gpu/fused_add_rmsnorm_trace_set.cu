// An honest CUDA candidate for the FlashInfer-Bench TraceSet definition
// tests/suite/trace_set/definitions/norm/fused_add_rmsnorm_h2048.json: the residual added in
// fp32, RMSNorm over the 2048 hidden values, times the weight, rounded to bf16. One block of 256
// threads per row, 8 values a thread.
#include <cstdint>
#include <cuda_bf16.h>
#include <cuda_runtime.h>

namespace {

constexpr int hidden = 2048, threads = 256, per_thread = hidden / threads;

__global__ void fused_add_rmsnorm(const __nv_bfloat16* __restrict__ h, const __nv_bfloat16* __restrict__ res,
                                  const __nv_bfloat16* __restrict__ w, float eps, __nv_bfloat16* __restrict__ out) {
  const std::size_t base = static_cast<std::size_t>(blockIdx.x) * hidden;
  float v[per_thread];
  float sum = 0.f;
  for (int i = 0; i < per_thread; ++i) {
    const int c = threadIdx.x + i * threads;
    v[i] = __bfloat162float(h[base + c]) + __bfloat162float(res[base + c]);
    sum += v[i] * v[i];
  }
  for (int offset = 16; offset > 0; offset /= 2) sum += __shfl_xor_sync(0xffffffffu, sum, offset);
  __shared__ float warp_sums[threads / 32];
  __shared__ float inv_rms;
  if (threadIdx.x % 32 == 0) warp_sums[threadIdx.x / 32] = sum;
  __syncthreads();
  if (threadIdx.x == 0) {
    float total = 0.f;
    for (int i = 0; i < threads / 32; ++i) total += warp_sums[i];
    inv_rms = rsqrtf(total / hidden + eps);
  }
  __syncthreads();
  for (int i = 0; i < per_thread; ++i) {
    const int c = threadIdx.x + i * threads;
    out[base + c] = __float2bfloat16(v[i] * inv_rms * __bfloat162float(w[c]));
  }
}

}  // namespace

extern "C" void fused_add_rmsnorm_h2048(const __nv_bfloat16* hidden_states, const __nv_bfloat16* residual,
                                        const __nv_bfloat16* weight, float eps, __nv_bfloat16* output,
                                        int64_t batch_size, cudaStream_t stream) {
  if (batch_size > 0)
    fused_add_rmsnorm<<<static_cast<unsigned>(batch_size), threads, 0, stream>>>(hidden_states, residual, weight, eps,
                                                                                  output);
}
