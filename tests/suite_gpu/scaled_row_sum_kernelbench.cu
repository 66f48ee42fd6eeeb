// An honest CUDA candidate for tests/suite/problems/kernelbench/1_scaled_row_sum.py (a KernelBench
// file: x.sum(dim=1) * 0.5 over a [4096, 8192] float32 matrix), with the entry point
// `socratic problem header` prints: one block per row, a float4 strided sum, a warp-shuffle tree.
#include <cstdint>
#include <cuda_runtime.h>

namespace {

constexpr int rows = 4096, cols = 8192;
constexpr float scale = 0.5f;  // the Model's init input (get_init_inputs)

__global__ void scaled_row_sum(const float* __restrict__ x, float* __restrict__ out) {
  const float4* row = reinterpret_cast<const float4*>(x + static_cast<std::size_t>(blockIdx.x) * cols);
  float sum = 0.f;
  for (int i = threadIdx.x; i < cols / 4; i += blockDim.x) {
    const float4 v = row[i];
    sum += (v.x + v.y) + (v.z + v.w);
  }
  for (int offset = 16; offset > 0; offset /= 2) sum += __shfl_xor_sync(0xffffffffu, sum, offset);
  __shared__ float warp_sums[32];
  if (threadIdx.x % 32 == 0) warp_sums[threadIdx.x / 32] = sum;
  __syncthreads();
  if (threadIdx.x < 32) {
    sum = threadIdx.x < blockDim.x / 32 ? warp_sums[threadIdx.x] : 0.f;
    for (int offset = 16; offset > 0; offset /= 2) sum += __shfl_xor_sync(0xffffffffu, sum, offset);
    if (threadIdx.x == 0) out[blockIdx.x] = sum * scale;
  }
}

}  // namespace

extern "C" void _1_scaled_row_sum(const float* x, float* output, cudaStream_t stream) {
  scaled_row_sum<<<rows, 256, 0, stream>>>(x, output);
}
