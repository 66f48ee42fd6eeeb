// FP8 (e4m3) block-scaled GEMM: C = (A * A_scale) @ (B * B_scale)^T, bf16 out. N = 4096, K = 7168.
// M >= 2: tensor-core GEMM (mma.sync m16n8k16 f16 x f16 -> fp32). fp8 tiles go to smem with
//   cp.async (3 stages, one 128-wide k tile == one scale block per stage); each warp reads 16 raw
//   fp8 bytes per row and converts them to f16 (cvt.rn.f16x2.e4m3x2: exact, e4m3 fits f16).
//   K is permuted identically for A and B inside each k16 step (a sum's order is free).
//   Each k block's partial product is accumulated in registers, then added to the main fp32
//   accumulator times A_scale[m,kb] * B_scale[n/128,kb].
// M == 1: GEMV, one warp per output column, B streamed with 16-byte loads.
#include <cstdint>
#include <cuda_runtime.h>
#include <cuda_bf16.h>
#include <cuda_fp8.h>

namespace fp8gemm_impl {

constexpr int N = 4096;
constexpr int K = 7168;
constexpr int KB = K / 128;  // 56 k blocks
constexpr int BN = 128;
constexpr int BK = 128;  // bytes (= fp8 elements) per k tile; one scale block
constexpr int STAGES = 3;
constexpr int THREADS = 256;
constexpr int SA_PITCH = KB + 1;  // smem pitch of the A_scale slice (bank spread)

__device__ __forceinline__ uint32_t smem_u32(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}
__device__ __forceinline__ void cp_async16(uint32_t dst, const void* src, bool pred) {
  const int sz = pred ? 16 : 0;
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src), "r"(sz));
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int NN>
__device__ __forceinline__ void cp_async_wait() { asm volatile("cp.async.wait_group %0;\n" ::"n"(NN)); }

__device__ __forceinline__ uint4 lds128(uint32_t addr) {
  uint4 v;
  asm volatile("ld.shared.v4.u32 {%0,%1,%2,%3}, [%4];\n" : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "r"(addr));
  return v;
}

// Two e4m3 bytes (low 16 bits of w when sel == 0, high 16 bits when sel == 1) -> f16x2, exact
// (every e4m3 value, subnormals included, is a normal f16).
__device__ __forceinline__ uint32_t fp8pair_to_f16x2(uint32_t w, int sel) {
  const __nv_fp8x2_storage_t p = static_cast<__nv_fp8x2_storage_t>(sel ? (w >> 16) : (w & 0xFFFFu));
  const __half2_raw h = __nv_cvt_fp8x2_to_halfraw2(p, __NV_E4M3);
  return static_cast<uint32_t>(h.x) | (static_cast<uint32_t>(h.y) << 16);
}

__device__ __forceinline__ void mma_f16(float (&c)[4], uint32_t a0, uint32_t a1, uint32_t a2, uint32_t a3,
                                        uint32_t b0, uint32_t b1) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
      "{%0,%1,%2,%3};\n"
      : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
      : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
}

// Byte offset of 16-byte chunk c (0..7) of row r in a [rows][128 B] tile: rows of odd index have
// their halves swapped so that a quarter warp reading (rows g, g+1) x (chunks 4h..4h+3) is
// conflict free.
__device__ __forceinline__ uint32_t swz(int r, int c) { return static_cast<uint32_t>(r * 128 + ((c ^ ((r & 1) << 2)) << 4)); }

template <int BM>
__global__ void __launch_bounds__(THREADS) fp8_gemm_kernel(const uint8_t* __restrict__ A, const uint8_t* __restrict__ B,
                                                           const float* __restrict__ A_scale,
                                                           const float* __restrict__ B_scale,
                                                           __nv_bfloat16* __restrict__ C, int M) {
  extern __shared__ __align__(128) unsigned char smem[];
  constexpr int A_BYTES = BM * BK;
  constexpr int B_BYTES = BN * BK;
  constexpr int STAGE_BYTES = A_BYTES + B_BYTES;
  constexpr int MF = BM / 32;  // warp tile (BM/2) x 32
  float* s_ascale = reinterpret_cast<float*>(smem + STAGES * STAGE_BYTES);

  const int tid = threadIdx.x;
  const int lane = tid & 31, warp = tid >> 5;
  const int warp_m = warp >> 2, warp_n = warp & 3;
  const int n0 = blockIdx.x * BN;
  const int m0 = blockIdx.y * BM;
  const uint32_t sbase = smem_u32(smem);

  auto load_tile = [&](int stage, int kt) {
    const uint32_t sa = sbase + stage * STAGE_BYTES;
    const uint32_t sb = sa + A_BYTES;
#pragma unroll
    for (int i = 0; i < (BM * 8) / THREADS; ++i) {
      const int q = tid + i * THREADS;
      const int r = q >> 3, c = q & 7;
      const int gm = m0 + r;
      const bool ok = gm < M;
      const uint8_t* src = A + static_cast<size_t>(ok ? gm : 0) * K + kt * BK + c * 16;
      cp_async16(sa + swz(r, c), src, ok);
    }
#pragma unroll
    for (int i = 0; i < (BN * 8) / THREADS; ++i) {
      const int q = tid + i * THREADS;
      const int r = q >> 3, c = q & 7;
      const uint8_t* src = B + static_cast<size_t>(n0 + r) * K + kt * BK + c * 16;
      cp_async16(sb + swz(r, c), src, true);
    }
  };

#pragma unroll
  for (int s = 0; s < STAGES - 1; ++s) {
    load_tile(s, s);
    cp_async_commit();
  }
  // The CTA's A_scale rows, in smem (plain loads; visible after the first __syncthreads below).
  for (int i = tid; i < BM * KB; i += THREADS) {
    const int r = i / KB, kb = i - r * KB;
    const int gm = m0 + r;
    s_ascale[r * SA_PITCH + kb] = gm < M ? A_scale[static_cast<size_t>(gm) * KB + kb] : 0.f;
  }
  const float* bscale_row = B_scale + static_cast<size_t>(n0 / 128) * KB;

  float acc[MF][4][4];
#pragma unroll
  for (int i = 0; i < MF; ++i)
#pragma unroll
    for (int j = 0; j < 4; ++j)
#pragma unroll
      for (int k = 0; k < 4; ++k) acc[i][j][k] = 0.f;

  const int g = lane >> 2, t = lane & 3;
  constexpr int KT = K / BK;  // 56

  for (int kt = 0; kt < KT; ++kt) {
    cp_async_wait<STAGES - 2>();
    __syncthreads();
    {
      const int nk = kt + STAGES - 1;
      if (nk < KT) load_tile(nk % STAGES, nk);
      cp_async_commit();
    }
    const uint32_t sa = sbase + (kt % STAGES) * STAGE_BYTES;
    const uint32_t sb = sa + A_BYTES;

    float part[MF][4][4];
#pragma unroll
    for (int i = 0; i < MF; ++i)
#pragma unroll
      for (int j = 0; j < 4; ++j)
#pragma unroll
        for (int k = 0; k < 4; ++k) part[i][j][k] = 0.f;

#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int c = 4 * h + t;
      uint4 araw[MF][2];
#pragma unroll
      for (int mi = 0; mi < MF; ++mi) {
        const int r = warp_m * (BM / 2) + mi * 16 + g;
        araw[mi][0] = lds128(sa + swz(r, c));
        araw[mi][1] = lds128(sa + swz(r + 8, c));
      }
      uint4 braw[4];
#pragma unroll
      for (int nf = 0; nf < 4; ++nf) braw[nf] = lds128(sb + swz(warp_n * 32 + nf * 8 + g, c));
#pragma unroll
      for (int q = 0; q < 4; ++q) {
        uint32_t bf[4][2];
#pragma unroll
        for (int nf = 0; nf < 4; ++nf) {
          const uint32_t w = q == 0 ? braw[nf].x : q == 1 ? braw[nf].y : q == 2 ? braw[nf].z : braw[nf].w;
          bf[nf][0] = fp8pair_to_f16x2(w, 0);
          bf[nf][1] = fp8pair_to_f16x2(w, 1);
        }
#pragma unroll
        for (int mi = 0; mi < MF; ++mi) {
          const uint4& lo = araw[mi][0];
          const uint4& hi = araw[mi][1];
          const uint32_t wl = q == 0 ? lo.x : q == 1 ? lo.y : q == 2 ? lo.z : lo.w;
          const uint32_t wh = q == 0 ? hi.x : q == 1 ? hi.y : q == 2 ? hi.z : hi.w;
          const uint32_t a0 = fp8pair_to_f16x2(wl, 0);  // row g,   logical k 2t,2t+1
          const uint32_t a2 = fp8pair_to_f16x2(wl, 1);  // row g,   logical k 2t+8,2t+9
          const uint32_t a1 = fp8pair_to_f16x2(wh, 0);  // row g+8
          const uint32_t a3 = fp8pair_to_f16x2(wh, 1);
#pragma unroll
          for (int nf = 0; nf < 4; ++nf) mma_f16(part[mi][nf], a0, a1, a2, a3, bf[nf][0], bf[nf][1]);
        }
      }
    }
    // Scale this k block's partial products into the accumulator.
    const float sbv = __ldg(bscale_row + kt);
#pragma unroll
    for (int mi = 0; mi < MF; ++mi) {
      const int r = warp_m * (BM / 2) + mi * 16 + g;
      const float s0 = s_ascale[r * SA_PITCH + kt] * sbv;
      const float s1 = s_ascale[(r + 8) * SA_PITCH + kt] * sbv;
#pragma unroll
      for (int nf = 0; nf < 4; ++nf) {
        acc[mi][nf][0] += part[mi][nf][0] * s0;
        acc[mi][nf][1] += part[mi][nf][1] * s0;
        acc[mi][nf][2] += part[mi][nf][2] * s1;
        acc[mi][nf][3] += part[mi][nf][3] * s1;
      }
    }
  }
  cp_async_wait<0>();

#pragma unroll
  for (int mi = 0; mi < MF; ++mi)
#pragma unroll
    for (int nf = 0; nf < 4; ++nf)
#pragma unroll
      for (int half = 0; half < 2; ++half) {
        const int m = m0 + warp_m * (BM / 2) + mi * 16 + g + half * 8;
        if (m >= M) continue;
        const int n = n0 + warp_n * 32 + nf * 8 + 2 * t;
        *reinterpret_cast<__nv_bfloat162*>(C + static_cast<size_t>(m) * N + n) =
            __floats2bfloat162_rn(acc[mi][nf][half * 2], acc[mi][nf][half * 2 + 1]);
      }
}

// M == 1 (and any small M, one row at a time): one warp per output column n.
constexpr int GEMV_WARPS = 8;
__global__ void __launch_bounds__(GEMV_WARPS * 32) fp8_gemv_kernel(const uint8_t* __restrict__ A,
                                                                   const uint8_t* __restrict__ B,
                                                                   const float* __restrict__ A_scale,
                                                                   const float* __restrict__ B_scale,
                                                                   __nv_bfloat16* __restrict__ C, int row) {
  __shared__ float sa[K];
  __shared__ float ssc[KB];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int n = blockIdx.x * GEMV_WARPS + warp;  // grid * GEMV_WARPS == N exactly
  const uint4* brow = reinterpret_cast<const uint4*>(B + static_cast<size_t>(n) * K);
  constexpr int ITERS = K / 512;  // 14
  // Issue this warp's whole B row (7 KB) before anything else.
  uint4 raw[ITERS];
#pragma unroll
  for (int it = 0; it < ITERS; ++it) raw[it] = __ldcs(brow + it * 32 + lane);
  const uint8_t* a = A + static_cast<size_t>(row) * K;
  // sa is stored so that lane l's 16 consecutive k of iteration it are at it*512 + j*32 + l
  // (conflict-free reads below).
  for (int i = threadIdx.x; i < K; i += blockDim.x) {
    __nv_fp8_e4m3 v;
    v.__x = a[i];
    const int it = i >> 9, rem = i & 511, l = rem >> 4, j = rem & 15;
    sa[it * 512 + j * 32 + l] = static_cast<float>(v);
  }
  for (int i = threadIdx.x; i < KB; i += blockDim.x) ssc[i] = A_scale[static_cast<size_t>(row) * KB + i];
  __syncthreads();
  const float* bsc = B_scale + static_cast<size_t>(n / 128) * KB;
  float acc = 0.f;
#pragma unroll
  for (int it = 0; it < ITERS; ++it) {
    const int k0 = it * 512 + lane * 16;
    const int kb = k0 >> 7;
    const uint32_t w[4] = {raw[it].x, raw[it].y, raw[it].z, raw[it].w};
    float part = 0.f;
#pragma unroll
    for (int q = 0; q < 4; ++q) {
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        __nv_fp8_e4m3 v;
        v.__x = static_cast<__nv_fp8_storage_t>((w[q] >> (8 * e)) & 0xFF);
        part = fmaf(static_cast<float>(v), sa[it * 512 + (q * 4 + e) * 32 + lane], part);
      }
    }
    acc = fmaf(part, ssc[kb] * bsc[kb], acc);
  }
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) acc += __shfl_xor_sync(0xffffffffu, acc, o);
  if (lane == 0) C[static_cast<size_t>(row) * N + n] = __float2bfloat16_rn(acc);
}

template <int BM>
void launch_gemm(const uint8_t* A, const uint8_t* B, const float* As, const float* Bs, __nv_bfloat16* C, int M,
                 cudaStream_t stream) {
  constexpr int SMEM = STAGES * (BM * BK + BN * BK) + BM * SA_PITCH * static_cast<int>(sizeof(float));
  static bool configured = false;
  if (!configured) {
    cudaFuncSetAttribute(fp8_gemm_kernel<BM>, cudaFuncAttributeMaxDynamicSharedMemorySize, SMEM);
    configured = true;
  }
  dim3 grid(N / BN, (M + BM - 1) / BM);
  fp8_gemm_kernel<BM><<<grid, THREADS, SMEM, stream>>>(A, B, As, Bs, C, M);
}

}  // namespace fp8gemm_impl

extern "C" void fp8_gemm_blockscale_n4096_k7168(const __nv_fp8_e4m3* A, const __nv_fp8_e4m3* B,
                                                const float* A_scale, const float* B_scale, __nv_bfloat16* C,
                                                int64_t M, cudaStream_t stream) {
  using namespace fp8gemm_impl;
  const int m = static_cast<int>(M);
  if (m <= 0) return;
  const uint8_t* a = reinterpret_cast<const uint8_t*>(A);
  const uint8_t* b = reinterpret_cast<const uint8_t*>(B);
  if (m <= 2) {
    for (int r = 0; r < m; ++r)
      fp8_gemv_kernel<<<N / GEMV_WARPS, GEMV_WARPS * 32, 0, stream>>>(a, b, A_scale, B_scale, C, r);
  } else if (m <= 2048) {
    launch_gemm<64>(a, b, A_scale, B_scale, C, m, stream);
  } else {
    launch_gemm<128>(a, b, A_scale, B_scale, C, m, stream);
  }
}
