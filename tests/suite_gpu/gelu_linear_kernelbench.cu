// An honest CUDA candidate for tests/suite/problems/kernelbench/2_gelu_linear.py (a KernelBench
// Model with weights: gelu_tanh(x @ linear.weight^T + linear.bias), x [256, 2048], weight
// [4096, 2048], float32). The weights arrive as inputs of the entry point (`socratic problem
// header` names them the Model's linear.weight and linear.bias); the judge fills them from the
// Model it seeded. A plain shared-memory tiled GEMM, fp32 throughout, with the bias and the GELU
// in its epilogue.
#include <cstdint>
#include <cuda_runtime.h>

namespace {

constexpr int batch = 256, in_features = 2048, out_features = 4096;
constexpr int tile = 32;  // a 32 x 32 output tile per block, 32 x 8 threads, 4 outputs each

__device__ float gelu_tanh(float v) {
  const float k = 0.7978845608028654f;  // sqrt(2 / pi)
  return 0.5f * v * (1.f + tanhf(k * (v + 0.044715f * v * v * v)));
}

__global__ void linear_gelu(const float* __restrict__ x, const float* __restrict__ w,
                            const float* __restrict__ b, float* __restrict__ out) {
  __shared__ float xs[tile][tile + 1];
  __shared__ float ws[tile][tile + 1];
  const int row0 = blockIdx.y * tile, col0 = blockIdx.x * tile;
  const int tx = threadIdx.x, ty = threadIdx.y;  // 32 x 8
  float acc[4] = {0.f, 0.f, 0.f, 0.f};
  for (int k0 = 0; k0 < in_features; k0 += tile) {
    for (int i = 0; i < 4; ++i) {
      const int r = ty + 8 * i;
      xs[r][tx] = x[static_cast<std::size_t>(row0 + r) * in_features + k0 + tx];
      ws[r][tx] = w[static_cast<std::size_t>(col0 + r) * in_features + k0 + tx];
    }
    __syncthreads();
    for (int k = 0; k < tile; ++k) {
      const float wv = ws[tx][k];
      for (int i = 0; i < 4; ++i) acc[i] += xs[ty + 8 * i][k] * wv;
    }
    __syncthreads();
  }
  for (int i = 0; i < 4; ++i) {
    const int r = row0 + ty + 8 * i, c = col0 + tx;
    out[static_cast<std::size_t>(r) * out_features + c] = gelu_tanh(acc[i] + b[c]);
  }
}

}  // namespace

extern "C" void _2_gelu_linear(const float* x, const float* linear_weight, const float* linear_bias,
                               float* output, cudaStream_t stream) {
  linear_gelu<<<dim3(out_features / tile, batch / tile), dim3(32, 8), 0, stream>>>(x, linear_weight, linear_bias,
                                                                                   output);
}
