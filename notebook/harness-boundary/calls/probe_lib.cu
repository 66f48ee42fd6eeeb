// A candidate-like shared object: its own static CUDA runtime, one kernel.
#include <cuda_runtime.h>
__global__ void fill(float* p, int n, float v) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) p[i] = v + i; }
extern "C" int probe_entry(float* p, int n, cudaStream_t s) {
  fill<<<(n + 255) / 256, 256, 0, s>>>(p, n, 1.5f);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
