// Throughput of the exponential forms on one SM: warp instructions per clock for ex2.approx.ftz.f32,
// ex2.approx.ftz.bf16x2 and ex2.approx.f16x2 (16 warps, 8 independent chains each).
#include <cstdio>
#include <cstdint>
#include <cuda_runtime.h>
template <int kMode>
__global__ void bench(uint32_t* out, long long* cycles, int iters) {
  uint32_t v[8];
  for (int i = 0; i < 8; ++i) v[i] = 0x3c003c00u + threadIdx.x + i;  // small values in every form
  __syncthreads();
  long long t0 = clock64();
  for (int it = 0; it < iters; ++it) {
#pragma unroll
    for (int i = 0; i < 8; ++i) {
      if constexpr (kMode == 0) {
        float f = __uint_as_float(v[i] & 0x3fffffffu);
        asm volatile("ex2.approx.ftz.f32 %0, %1;" : "=f"(f) : "f"(f));
        v[i] = __float_as_uint(f);
      } else if constexpr (kMode == 1) {
        asm volatile("ex2.approx.ftz.bf16x2 %0, %1;" : "=r"(v[i]) : "r"(v[i]));
      } else {
        asm volatile("ex2.approx.f16x2 %0, %1;" : "=r"(v[i]) : "r"(v[i]));
      }
    }
  }
  __syncthreads();
  long long t1 = clock64();
  uint32_t acc = 0;
  for (int i = 0; i < 8; ++i) acc ^= v[i];
  out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
  if (threadIdx.x == 0) cycles[blockIdx.x] = t1 - t0;
}
int main() {
  uint32_t* out; long long* cyc; cudaMalloc(&out, 1 << 20); cudaMalloc(&cyc, 8 * 1024);
  const int iters = 4096, warps = 16;
  const char* names[3] = {"ex2.approx.ftz.f32", "ex2.approx.ftz.bf16x2", "ex2.approx.f16x2"};
  for (int mode = 0; mode < 3; ++mode) {
    for (int rep = 0; rep < 2; ++rep) {
      if (mode == 0) bench<0><<<1, 32 * warps>>>(out, cyc, iters);
      if (mode == 1) bench<1><<<1, 32 * warps>>>(out, cyc, iters);
      if (mode == 2) bench<2><<<1, 32 * warps>>>(out, cyc, iters);
      cudaDeviceSynchronize();
      long long c; cudaMemcpy(&c, cyc, 8, cudaMemcpyDeviceToHost);
      double instr = double(iters) * 8 * warps;  // warp instructions on the SM
      if (rep) printf("%-24s %8lld cycles  %.3f warp instructions/clock/SM  %.2f results/clock/SM\n", names[mode], c,
                      instr / c, instr / c * 32 * (mode ? 2 : 1));
    }
  }
  printf("%s\n", cudaGetErrorString(cudaGetLastError()));
}
