// A native CUDA baseline for tests/suite/problems/rmsnorm_h4096, plain and obviously right: one
// block a row, a shared-memory tree reduction of the squares in fp32, then the row scaled. Judged
// with `--baseline` (the eager-PyTorch baseline is not yet timed by the judge).
#include <cstdint>
#include <cuda_bf16.h>
#include <cuda_runtime.h>

namespace {

__global__ void rmsnorm_baseline(const __nv_bfloat16* x, const __nv_bfloat16* w, float eps, __nv_bfloat16* out,
                                 int hidden) {
  __shared__ float squares[256];
  const std::int64_t row = blockIdx.x;
  float sum = 0.f;
  for (int i = threadIdx.x; i < hidden; i += blockDim.x) {
    const float v = __bfloat162float(x[row * hidden + i]);
    sum += v * v;
  }
  squares[threadIdx.x] = sum;
  __syncthreads();
  for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) squares[threadIdx.x] += squares[threadIdx.x + stride];
    __syncthreads();
  }
  const float inv_rms = rsqrtf(squares[0] / hidden + eps);
  for (int i = threadIdx.x; i < hidden; i += blockDim.x)
    out[row * hidden + i] =
        __float2bfloat16_rn(__bfloat162float(x[row * hidden + i]) * inv_rms * __bfloat162float(w[i]));
}

}  // namespace

extern "C" void rmsnorm_h4096(const __nv_bfloat16* hidden_states, const __nv_bfloat16* weight, float eps,
                              __nv_bfloat16* output, int64_t batch_size, cudaStream_t stream) {
  if (batch_size <= 0) return;
  rmsnorm_baseline<<<static_cast<unsigned>(batch_size), 256, 0, stream>>>(hidden_states, weight, eps, output, 4096);
}
