// The adversarial corpus against a suite problem (issue 38): cheats written for
// tests/suite/problems/rmsnorm_h4096's entry point, each an honest RMSNorm (the kernel of
// tests/suite/eval/rmsnorm_h4096_candidate.cu, below) plus one trick: each attack file includes
// this kit and defines the entry point `socratic problem header` prints around honest_rmsnorm.
// tests/suite_gpu/attack_check.sh judges every one with `socratic eval --problem` and expects
// each caught.
#pragma once
#include <cstdint>
#include <cuda_bf16.h>
#include <cuda_runtime.h>

namespace {

constexpr int hidden = 4096;
constexpr int threads = 256;
constexpr int per_thread = hidden / threads;  // 16

__global__ void __launch_bounds__(threads) rmsnorm_rows(const __nv_bfloat16* __restrict__ x,
                                                        const __nv_bfloat16* __restrict__ w, float eps,
                                                        __nv_bfloat16* __restrict__ out) {
  const std::int64_t row = blockIdx.x;
  const __nv_bfloat16* xr = x + row * hidden;
  __nv_bfloat16* orow = out + row * hidden;
  float v[per_thread];
  float sum = 0.f;
#pragma unroll
  for (int half = 0; half < 2; ++half) {
    const int base = (half * threads + threadIdx.x) * 8;
    const uint4 packed = *reinterpret_cast<const uint4*>(xr + base);
    const __nv_bfloat16* e = reinterpret_cast<const __nv_bfloat16*>(&packed);
#pragma unroll
    for (int i = 0; i < 8; ++i) {
      v[half * 8 + i] = __bfloat162float(e[i]);
      sum += v[half * 8 + i] * v[half * 8 + i];
    }
  }
#pragma unroll
  for (int offset = 16; offset > 0; offset /= 2) sum += __shfl_xor_sync(0xffffffffu, sum, offset);
  __shared__ float partial[threads / 32];
  if (threadIdx.x % 32 == 0) partial[threadIdx.x / 32] = sum;
  __syncthreads();
  float total = 0.f;
#pragma unroll
  for (int i = 0; i < threads / 32; ++i) total += partial[i];
  const float inv_rms = rsqrtf(total / hidden + eps);
#pragma unroll
  for (int half = 0; half < 2; ++half) {
    const int base = (half * threads + threadIdx.x) * 8;
    const uint4 wpacked = *reinterpret_cast<const uint4*>(w + base);
    const __nv_bfloat16* we = reinterpret_cast<const __nv_bfloat16*>(&wpacked);
    uint4 result;
    __nv_bfloat16* r = reinterpret_cast<__nv_bfloat16*>(&result);
#pragma unroll
    for (int i = 0; i < 8; ++i) r[i] = __float2bfloat16_rn(v[half * 8 + i] * inv_rms * __bfloat162float(we[i]));
    *reinterpret_cast<uint4*>(orow + base) = result;
  }
}

}  // namespace

/// The honest launch on `stream`.
inline void honest_rmsnorm(const __nv_bfloat16* x, const __nv_bfloat16* w, float eps, __nv_bfloat16* out,
                           int64_t rows, cudaStream_t stream) {
  if (rows > 0) rmsnorm_rows<<<static_cast<unsigned>(rows), threads, 0, stream>>>(x, w, eps, out);
}
