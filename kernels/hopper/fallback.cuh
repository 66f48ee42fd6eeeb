#pragma once
// The general path: one warp per query row, fp32 online softmax. Slow; correct for any head_dim
// up to 256 and any alignment. It runs the shapes the fast path does not take (head dims other
// than 64, 128 and 256, misaligned pointers) and any the fast path declines.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cmath>
#include <type_traits>

#include "attention_args.h"
#include "traits.cuh"

namespace hopper_attn {
namespace {

template <typename T>
__device__ __forceinline__ float to_f(T v) {
  if constexpr (sizeof(T) == 2 && std::is_same_v<T, __nv_bfloat16>) return __bfloat162float(v);
  else return __half2float(v);
}

template <typename T>
__global__ void general_kernel(const T* __restrict__ q, const T* __restrict__ k, const T* __restrict__ v,
                               T* __restrict__ o, socratic_attention_args a) {
  constexpr int kMaxPerLane = 8;  // head_dim <= 256
  const int lane = threadIdx.x % 32;
  const long long row = static_cast<long long>(blockIdx.x) * (blockDim.x / 32) + threadIdx.x / 32;
  const long long rows = static_cast<long long>(a.batch) * a.seqlen_q * a.heads_q;
  if (row >= rows) return;
  // Rows are numbered in memory order: ((b * seqlen_q + i) * heads_q + h).
  const int h = static_cast<int>(row % a.heads_q);
  const int i = static_cast<int>((row / a.heads_q) % a.seqlen_q);
  const int b = static_cast<int>(row / (static_cast<long long>(a.heads_q) * a.seqlen_q));
  const int hk = h / (a.heads_q / a.heads_kv);
  const int D = a.head_dim;
  float qv[kMaxPerLane], acc[kMaxPerLane];
#pragma unroll
  for (int j = 0; j < kMaxPerLane; ++j) {
    const int d = lane + 32 * j;
    qv[j] = d < D ? to_f(q[row * D + d]) * a.softmax_scale : 0.f;
    acc[j] = 0.f;
  }
  const int key_end = a.causal ? min(a.seqlen_kv, i + a.seqlen_kv - a.seqlen_q + 1) : a.seqlen_kv;
  float mx = -INFINITY, sum = 0.f;
  for (int j = 0; j < key_end; ++j) {
    const long long kv_row = (static_cast<long long>(b) * a.seqlen_kv + j) * a.heads_kv + hk;
    float dot = 0.f;
#pragma unroll
    for (int e = 0; e < kMaxPerLane; ++e) {
      const int d = lane + 32 * e;
      if (d < D) dot += qv[e] * to_f(k[kv_row * D + d]);
    }
#pragma unroll
    for (int off = 16; off > 0; off /= 2) dot += __shfl_xor_sync(0xffffffffu, dot, off);
    const float m_new = fmaxf(mx, dot);
    const float c = __expf(mx - m_new);
    const float pr = __expf(dot - m_new);
    sum = sum * c + pr;
#pragma unroll
    for (int e = 0; e < kMaxPerLane; ++e) {
      const int d = lane + 32 * e;
      acc[e] = acc[e] * c + (d < D ? pr * to_f(v[kv_row * D + d]) : 0.f);
    }
    mx = m_new;
  }
  const float inv = sum > 0.f ? 1.f / sum : 0.f;
#pragma unroll
  for (int e = 0; e < kMaxPerLane; ++e) {
    const int d = lane + 32 * e;
    if (d < D) {
      if constexpr (std::is_same_v<T, __nv_bfloat16>) o[row * D + d] = __float2bfloat16(acc[e] * inv);
      else o[row * D + d] = __float2half(acc[e] * inv);
    }
  }
}

inline ReturnCode launch_general(const socratic_attention_args& a, cudaStream_t stream) {
  if (a.head_dim < 1 || a.head_dim > 256) return ReturnCode::kUnsupported;
  const long long rows = static_cast<long long>(a.batch) * a.seqlen_q * a.heads_q;
  if (rows == 0) return ReturnCode::kOk;
  const int warps_per_block = 4;
  const long long blocks = (rows + warps_per_block - 1) / warps_per_block;
  if (blocks > 0x7fffffffLL) return ReturnCode::kUnsupported;
  if (a.dtype == SOCRATIC_BF16)
    general_kernel<__nv_bfloat16><<<static_cast<unsigned>(blocks), 32 * warps_per_block, 0, stream>>>(
        static_cast<const __nv_bfloat16*>(a.q), static_cast<const __nv_bfloat16*>(a.k),
        static_cast<const __nv_bfloat16*>(a.v), static_cast<__nv_bfloat16*>(a.o), a);
  else
    general_kernel<__half><<<static_cast<unsigned>(blocks), 32 * warps_per_block, 0, stream>>>(
        static_cast<const __half*>(a.q), static_cast<const __half*>(a.k), static_cast<const __half*>(a.v),
        static_cast<__half*>(a.o), a);
  return cudaPeekAtLastError() == cudaSuccess ? ReturnCode::kOk : ReturnCode::kLaunchFailed;
}

}  // namespace
}  // namespace hopper_attn
