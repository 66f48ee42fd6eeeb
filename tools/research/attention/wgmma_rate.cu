// wgmma_rate: the tensor cores' rate for the wgmma groups the kernel (kernels/hopper/) issues, on one SM each, by
// how many warpgroups issue at once and how many independent accumulators a group interleaves.
// The question (campaign log, session 10): at d128 one warpgroup's S GEMM group (8 x m64n192k16)
// took 936-964 cycles in D76 against 768 at the tensor cores' peak, while the kernel without its
// softmax ran at 95% of peak. A group's wgmma all accumulate into the same registers, one after
// the other; is that chain the 20%, or is it the wait at each group's end?
// One block per SM, 1 to 3 warpgroups; each issues `groups` groups back to back:
//   fence; kInstr x wgmma (SS: both operands in shared memory; RS: A from registers), cycling over
//   kChains accumulators of kN / 2 registers each; commit; wait for the group before the last
//   (kPipelined) or for this one;
// and reads the clock before its first and after its last. Prints cycles per group (mean over
// SMs and warpgroups) and the share of the tensor cores' peak (4096 bf16 FLOP a cycle per SM) that
// all warpgroups together reached. Shared memory is left as it is: only the timing matters.
// Build (repository root):
//   nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -I kernels/attention -I kernels/hopper \
//        tools/research/attention/wgmma_rate.cu -o wgmma_rate
#include <cstdio>
#include <cstdlib>
#include <vector>
#include "ptx.cuh"  // kernels/hopper (on the include path)
#include "wgmma.cuh"

namespace wgmma_rate {
using hopper_attn::smem_desc;
using hopper_attn::wgmma_commit;
using hopper_attn::wgmma_fence;
using hopper_attn::wgmma_wait;
using hopper_attn::WgmmaRS;
using hopper_attn::WgmmaSS;

constexpr int kSmemBytes = 128 * 1024 + 1024;
constexpr double kPeakFlopPerCycle = 4096;  // dense bf16, one SM

template <bool kRS, int kN, int kInstr, int kChains, bool kPipelined>
__device__ __forceinline__ void issue_groups(uint32_t base, int groups, float (&acc)[kChains][kN / 2]) {
  const uint32_t a_regs[4] = {0u, 0u, 0u, 0u};
  for (int g = 0; g < groups; ++g) {
    wgmma_fence();
#pragma unroll
    for (int i = 0; i < kInstr; ++i) {
      const int kk = i / kChains;  // the k step of chain i % kChains
      if constexpr (kRS) {
        const uint64_t db = smem_desc(base + 32768 + (kk % 8) * 16 * 128, 128 * 128, 1024);
        WgmmaRS<kN>::template run<true>(acc[i % kChains], a_regs, db, 1);
      } else {
        const uint32_t chunk = (kk % 8) / 4, within = (kk % 4) * 32;
        const uint64_t da = smem_desc(base + chunk * (64 * 128) + within, 16, 1024);
        const uint64_t db = smem_desc(base + 16384 + chunk * (64 * 128) + within, 16, 1024);
        WgmmaSS<kN>::template run<true>(acc[i % kChains], da, db, 1);
      }
    }
    wgmma_commit();
    if constexpr (kPipelined)
      wgmma_wait<1>();
    else
      wgmma_wait<0>();
  }
  wgmma_wait<0>();
}

template <bool kRS, int kN, int kInstr, int kChains, bool kPipelined, int kWGs>
__global__ void __launch_bounds__(128 * kWGs, 1) bench(long long* out, float* sink, int groups) {
  extern __shared__ __align__(1024) unsigned char smem_raw[];
  const uint32_t base = (static_cast<uint32_t>(__cvta_generic_to_shared(smem_raw)) + 1023) & ~1023u;
  float acc[kChains][kN / 2];
#pragma unroll
  for (int c = 0; c < kChains; ++c)
#pragma unroll
    for (int i = 0; i < kN / 2; ++i) acc[c][i] = 0.f;
  __syncthreads();
  const long long t0 = clock64();
  issue_groups<kRS, kN, kInstr, kChains, kPipelined>(base, groups, acc);
  const long long t1 = clock64();
  float sum = 0.f;
#pragma unroll
  for (int c = 0; c < kChains; ++c)
#pragma unroll
    for (int i = 0; i < kN / 2; ++i) sum += acc[c][i];
  sink[blockIdx.x * blockDim.x + threadIdx.x] = sum;
  if (threadIdx.x % 128 == 0) out[blockIdx.x * kWGs + threadIdx.x / 128] = t1 - t0;
}

template <bool kRS, int kN, int kInstr, int kChains, bool kPipelined, int kWGs>
void run(const char* what) {
  static_assert(kInstr % kChains == 0, "every chain gets the same number of k steps");
  const int blocks = 132, groups = 400;
  long long* out;
  float* sink;
  cudaMalloc(&out, blocks * kWGs * sizeof(long long));
  cudaMalloc(&sink, blocks * 128 * kWGs * sizeof(float));
  auto kernel = bench<kRS, kN, kInstr, kChains, kPipelined, kWGs>;
  cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmemBytes);
  kernel<<<blocks, 128 * kWGs, kSmemBytes>>>(out, sink, 10);
  kernel<<<blocks, 128 * kWGs, kSmemBytes>>>(out, sink, groups);
  const cudaError_t e = cudaDeviceSynchronize();
  if (e != cudaSuccess) {
    std::printf("%s: %s\n", what, cudaGetErrorString(e));
    std::exit(1);
  }
  std::vector<long long> h(blocks * kWGs);
  cudaMemcpy(h.data(), out, h.size() * sizeof(long long), cudaMemcpyDeviceToHost);
  double cycles = 0;
  for (long long c : h) cycles += static_cast<double>(c);
  cycles /= h.size();
  const double per_group = cycles / groups;
  const double flop_per_group = 2.0 * 64 * kN * 16 * kInstr;
  std::printf("%-44s %s %3d x m64n%-3dk16, %d chain%s, %s, %d WG%s: %7.0f cycles a group, %5.1f%% of peak\n", what,
              kRS ? "RS" : "SS", kInstr, kN, kChains, kChains > 1 ? "s" : " ", kPipelined ? "wait<1>" : "wait<0>",
              kWGs, kWGs > 1 ? "s" : " ", per_group, 100.0 * kWGs * flop_per_group / per_group / kPeakFlopPerCycle);
  cudaFree(out);
  cudaFree(sink);
}
}  // namespace wgmma_rate

int main() {
  using namespace wgmma_rate;
  // S-like groups (d128, 192 keys: 8 k steps), as D76, then longer groups and split accumulators.
  run<false, 192, 8, 1, false, 1>("S group, one accumulator");
  run<false, 192, 8, 1, true, 1>("S group, next issued before the wait");
  run<false, 192, 32, 1, true, 1>("four S groups' steps in one group");
  run<false, 96, 16, 2, true, 1>("S as two 96-key halves, interleaved");
  run<false, 96, 16, 1, true, 1>("S as one 96-key chain of 16 (control)");
  run<false, 64, 24, 3, true, 1>("S as three 64-key thirds, interleaved");
  run<false, 192, 8, 1, false, 2>("S group, two warpgroups at once");
  run<false, 192, 8, 1, true, 2>("S group pipelined, two warpgroups");
  // P V-like groups (d128: 12 k steps of m64n128k16, A from registers), each waited for before the
  // next as in the kernel (issued before the wait, the same accumulator made ptxas serialise them).
  run<true, 128, 12, 1, false, 1>("P V group, one accumulator");
  run<true, 64, 24, 2, false, 1>("P V as two 64-column halves, interleaved");
  run<true, 128, 12, 1, false, 2>("P V group, two warpgroups at once");
  // d256's P V (m64n256k16, 5 k steps of an 80-key tile) and d64's S (m64n128k16, 4 k steps).
  run<true, 256, 5, 1, false, 1>("d256 P V group");
  run<false, 128, 4, 1, true, 1>("d64 S group, pipelined");
  run<false, 128, 4, 1, true, 3>("d64 S group pipelined, three warpgroups");
  return 0;
}
