// softmax_bench: cycles of one softmax_step call of the kernel (kernels/hopper/softmax.cuh) on register data,
// alone or beside a warpgroup that keeps the tensor cores busy, to separate the softmax's own
// instruction stream from what the kernel's GEMMs add around it (campaign log, D70).
// One block per SM, two warpgroups (one warp of each per SM sub-partition):
//   warpgroup 0 calls softmax_step (or only the exponentials) 2000 times and reads the clock, or
//   sleeps for 2000 x 1500 cycles (the GEMMs' rate alone);
//   warpgroup 1 idles, or issues S-GEMM-like groups (8 x wgmma m64n192k16, both operands in shared
//   memory), or P V-like groups (12 x m64n128k16, A from registers) until warpgroup 0 is done,
//   counting its groups, or runs the same softmax loop (two softmax warps per sub-partition), or
//   issues the S-like groups pipelined (the next issued before the previous is waited for, so the
//   tensor cores have no gap: wgmma_rate.cu, D81).
// Besides softmax_step and its exponentials, warpgroup 0's work can be one instruction class at a
// time, one instruction per value, four passes a call (session 10's question: which of the
// softmax's instructions does the tensor cores' work slow): FFMA, FMNMX or FADD; or one per pair
// of values: the packed 16-bit max (HMNMX2) or the packing itself (F2FP), the two halves of a row
// max taken over bf16 pairs.
// Prints cycles per call (warpgroup 0's warps) and per GEMM group. Shared memory is left as it is:
// the GEMMs' values do not matter, only their timing.
// Build (repository root; -I of a patched copy's folder first to measure a variant's softmax):
//   nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -I kernels/attention -I kernels/hopper \
//        tools/research/attention/softmax_bench.cu -o softmax_bench
#include <cstdio>
#include <vector>
#include "softmax.cuh"  // kernels/hopper (on the include path)
#include "wgmma.cuh"

namespace softmax_bench {
using hopper_attn::softmax_step;
using hopper_attn::exp2_approx;
using hopper_attn::smem_desc;
using hopper_attn::wgmma_fence;
using hopper_attn::wgmma_commit;
using hopper_attn::wgmma_wait;
using hopper_attn::WgmmaSS;
using hopper_attn::WgmmaRS;

struct NoGate {
  __device__ void begin() const {}
  __device__ void end() const {}
};

constexpr int kSmemBytes = 16384 + 2 * 49152 + 1024;

// work: 0 softmax_step, 1 the exponentials alone, 2 none, 3 FFMA, 4 FMNMX, 5 FADD (4 x 96 a call),
// 6 HMNMX2 on bf16 pairs, 7 F2FP packing to bf16 pairs (4 x 48 a call).
// beside: 0 nothing, 1 S-like GEMMs (SS), 2 P V-like GEMMs (RS), 3 the same work, 4 S-like GEMMs
// pipelined.
template <int kN, int kWork, int kGemm>
__global__ void __launch_bounds__(256, 1) bench(long long* out, float* sink, int iters, float scale_log2) {
  extern __shared__ __align__(1024) unsigned char smem_raw[];
  const uint32_t base = (static_cast<uint32_t>(__cvta_generic_to_shared(smem_raw)) + 1023) & ~1023u;
  __shared__ volatile int done;
  if (threadIdx.x == 0) done = 0;
  __syncthreads();
  if (threadIdx.x < 128 || kGemm == 3) {
    float s[kN / 2];
#pragma unroll
    for (int i = 0; i < kN / 2; ++i) s[i] = 0.25f * float((threadIdx.x * 7 + i * 13) % 17) - 2.f;
    float m[2] = {4.f, 4.f}, l[2] = {0.f, 0.f}, corr[2];
    const long long t0 = clock64();
    for (int it = 0; it < iters; ++it) {
#pragma unroll
      for (int i = 0; i < kN / 2; ++i) asm volatile("" : "+f"(s[i]));  // a new tile each time
      if constexpr (kWork == 0) {
        softmax_step<kN, false, 1, true>(s, m, l, corr, scale_log2, NoGate{});
      } else if constexpr (kWork == 2) {
        while (clock64() - t0 < 1500ll * (it + 1)) __nanosleep(200);
      } else if constexpr (kWork == 6 || kWork == 7) {
        uint32_t packed[kN / 4];
#pragma unroll
        for (int i = 0; i < kN / 4; ++i) packed[i] = __float_as_uint(s[2 * i]);
        const uint32_t row_max = __float_as_uint(m[0]);
#pragma unroll
        for (int pass = 0; pass < 4; ++pass)
#pragma unroll
          for (int i = 0; i < kN / 4; ++i) {
            if constexpr (kWork == 6)
              asm volatile("max.bf16x2 %0, %0, %1;" : "+r"(packed[i]) : "r"(row_max));
            else
              asm volatile("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(packed[i]) : "f"(s[2 * i]), "f"(s[2 * i + 1]));
          }
#pragma unroll
        for (int i = 0; i < kN / 4; ++i) s[2 * i] = __uint_as_float(packed[i]);
      } else if constexpr (kWork >= 3) {
        // One instruction of the class per value, each value its own chain (no dependence
        // between values); the second operand is a per-row register, as in the softmax.
#pragma unroll
        for (int pass = 0; pass < 4; ++pass)
#pragma unroll
          for (int i = 0; i < kN / 2; ++i) {
            if constexpr (kWork == 3) s[i] = fmaf(s[i], scale_log2, -m[i & 1]);
            if constexpr (kWork == 4) s[i] = fmaxf(s[i], m[i & 1]);
            if constexpr (kWork == 5) s[i] = s[i] + m[i & 1];
            asm volatile("" : "+f"(s[i]));  // no folding of one pass into the next
          }
      } else {
#pragma unroll
        for (int i = 0; i < kN / 2; ++i) s[i] = exp2_approx(s[i]);
      }
    }
    const long long t1 = clock64();
    if (threadIdx.x < 128) {
      asm volatile("bar.sync 1, 128;" ::: "memory");
      if (threadIdx.x == 0) done = 1;
    }
    float acc = l[0] + l[1];
#pragma unroll
    for (int i = 0; i < kN / 2; ++i) acc += s[i];
    sink[blockIdx.x * blockDim.x + threadIdx.x] = acc;
    if (threadIdx.x < 128 && threadIdx.x % 32 == 0) out[(blockIdx.x * 4 + threadIdx.x / 32) * 2] = (t1 - t0) / iters;
  } else {
    float d[96];
#pragma unroll
    for (int i = 0; i < 96; ++i) d[i] = 0.f;
    uint32_t a[4] = {0u, 0u, 0u, 0u};
    int groups = 0;
    const long long t0 = clock64();
    if constexpr (kGemm == 1 || kGemm == 2 || kGemm == 4) {
      __shared__ volatile int stop;
      for (;;) {
        // The wgmma instructions are warpgroup-wide: the four warps decide together.
        if (threadIdx.x == 128) stop = done;
        asm volatile("bar.sync 2, 128;" ::: "memory");
        const int leave = stop;
        asm volatile("bar.sync 2, 128;" ::: "memory");
        if (leave) break;
        wgmma_fence();
        if constexpr (kGemm == 1 || kGemm == 4) {
#pragma unroll
          for (int kk = 0; kk < 8; ++kk) {
            const uint32_t chunk = kk / 4, within = (kk % 4) * 32;
            const uint64_t da = smem_desc(base + chunk * (64 * 128) + within, 16, 1024);
            const uint64_t db = smem_desc(base + 16384 + chunk * (192 * 128) + within, 16, 1024);
            WgmmaSS<192>::run<true>(d, da, db, 1);
          }
        } else {
          float(&o)[64] = *reinterpret_cast<float(*)[64]>(&d[0]);
#pragma unroll
          for (int kk = 0; kk < 12; ++kk) {
            const uint64_t db = smem_desc(base + 16384 + 49152 + kk * 16 * 128, 192 * 128, 1024);
            WgmmaRS<128>::run<true>(o, a, db, 1);
          }
        }
        wgmma_commit();
        if constexpr (kGemm == 4) {
          wgmma_wait<1>();  // the group before: this one runs on while the flag is read
        } else {
          wgmma_wait<0>();
#pragma unroll
          for (int i = 0; i < 96; ++i) asm volatile("" : "+f"(d[i])::"memory");
        }
        ++groups;
      }
      if constexpr (kGemm == 4) wgmma_wait<0>();
    }
    const long long t1 = clock64();
    if (threadIdx.x == 128) {
      float acc = 0.f;
#pragma unroll
      for (int i = 0; i < 96; ++i) acc += d[i];
      sink[blockIdx.x * blockDim.x + threadIdx.x] = acc;
      out[(blockIdx.x * 4) * 2 + 1] = groups ? (t1 - t0) / groups : 0;
    }
  }
}

template <int kN, int kWork, int kGemm>
void run(const char* name) {
  const int blocks = 132, iters = 2000;
  long long* out;
  float* sink;
  cudaMalloc(&out, blocks * 4 * 2 * sizeof(long long));
  cudaMemset(out, 0, blocks * 4 * 2 * sizeof(long long));
  cudaMalloc(&sink, blocks * 256 * sizeof(float));
  cudaFuncSetAttribute(bench<kN, kWork, kGemm>, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmemBytes);
  bench<kN, kWork, kGemm><<<blocks, 256, kSmemBytes>>>(out, sink, 10, 0.125f);
  bench<kN, kWork, kGemm><<<blocks, 256, kSmemBytes>>>(out, sink, iters, 0.125f);
  const cudaError_t e = cudaDeviceSynchronize();
  if (e != cudaSuccess) {
    std::printf("%s: %s\n", name, cudaGetErrorString(e));
    std::exit(1);
  }
  std::vector<long long> h(blocks * 4 * 2);
  cudaMemcpy(h.data(), out, h.size() * sizeof(long long), cudaMemcpyDeviceToHost);
  double soft = 0, gemm = 0;
  for (int b = 0; b < blocks; ++b) {
    for (int w = 0; w < 4; ++w) soft += h[(b * 4 + w) * 2];
    gemm += h[(b * 4) * 2 + 1];
  }
  const char* beside[] = {"nothing", "S GEMMs (SS m64n192k16 x8)", "P V GEMMs (RS m64n128k16 x12)",
                          "the same work", "S GEMMs pipelined (wait<1>)"};
  if (kWork == 2)
    std::printf("%-40s beside %-30s", name, beside[kGemm]);
  else
    std::printf("%-40s beside %-30s %6.0f cycles a call", name, beside[kGemm], soft / (blocks * 4));
  if (kGemm == 1 || kGemm == 2 || kGemm == 4)
    std::printf(", %6.0f cycles a GEMM group (alone at peak: 768)", gemm / blocks);
  std::printf("\n");
  cudaFree(out);
  cudaFree(sink);
}
}  // namespace softmax_bench

int main() {
  using namespace softmax_bench;
  run<192, 2, 1>("no softmax");
  run<192, 2, 2>("no softmax");
  run<192, 0, 0>("softmax_step, d128 (96 values a thread)");
  run<192, 0, 1>("softmax_step, d128 (96 values a thread)");
  run<192, 0, 2>("softmax_step, d128 (96 values a thread)");
  run<192, 0, 3>("softmax_step, d128 (96 values a thread)");
  run<192, 1, 0>("exponentials alone (96 values a thread)");
  run<192, 1, 1>("exponentials alone (96 values a thread)");
  run<192, 1, 2>("exponentials alone (96 values a thread)");
  run<192, 1, 3>("exponentials alone (96 values a thread)");
  run<80, 0, 0>("softmax_step, d256 (40 values a thread)");
  run<80, 0, 1>("softmax_step, d256 (40 values a thread)");
  run<80, 0, 2>("softmax_step, d256 (40 values a thread)");
  // Session 10: beside gap-free GEMMs, and one instruction class at a time (4 x 96 a call).
  run<192, 2, 4>("no softmax");
  run<192, 0, 4>("softmax_step, d128 (96 values a thread)");
  run<192, 1, 4>("exponentials alone (96 values a thread)");
  run<192, 3, 0>("FFMA, 4 x 96 a thread");
  run<192, 3, 1>("FFMA, 4 x 96 a thread");
  run<192, 3, 4>("FFMA, 4 x 96 a thread");
  run<192, 4, 0>("FMNMX, 4 x 96 a thread");
  run<192, 4, 1>("FMNMX, 4 x 96 a thread");
  run<192, 4, 4>("FMNMX, 4 x 96 a thread");
  run<192, 5, 0>("FADD, 4 x 96 a thread");
  run<192, 5, 1>("FADD, 4 x 96 a thread");
  run<192, 5, 4>("FADD, 4 x 96 a thread");
  run<192, 6, 0>("HMNMX2 (bf16 pairs), 4 x 48 a thread");
  run<192, 6, 1>("HMNMX2 (bf16 pairs), 4 x 48 a thread");
  run<192, 6, 4>("HMNMX2 (bf16 pairs), 4 x 48 a thread");
  run<192, 7, 0>("F2FP (pack to bf16), 4 x 48 a thread");
  run<192, 7, 1>("F2FP (pack to bf16), 4 x 48 a thread");
  run<192, 7, 4>("F2FP (pack to bf16), 4 x 48 a thread");
  return 0;
}
