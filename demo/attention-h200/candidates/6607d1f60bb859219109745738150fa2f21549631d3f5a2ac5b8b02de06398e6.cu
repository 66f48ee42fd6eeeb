// Attention forward for Hopper (sm_90a): FlashAttention-3-style, one file, inline PTX only.
//
// v45 (session 13): v42 with the causal tile order's L2 sections sized by shape
// (l2_section_budget: 8 MB of K and V per 512 keys, twice that at d256, 8 to 32 MB; every shape had
// 16 MB since v3). D122 (against v42, in turns): +1.0..+5.4% on 11 of the 14 persistent causal grid
// shapes, the other three (16 MB by the rule too) unchanged. Every kernel's PTX is v42's; only the
// host's tile order changed.
//
// v42 (session 13): v37 with two dispatch choices asked again of it (D115, every other choice held):
// non-causal d128 from seqlen_q 16384 on the per-tile kernel (D115 +1.2-1.7% at s16384, level at
// s8192; D116, like for like, +0.4/+0.7%), and causal d64 on the persistent kernel at every length
// (+2.0% at causal s16384 in D115 and D116). Every kernel's PTX is v37's (only the host dispatch
// changed), and its results are v37's bit for bit on all 78 scenarios (D116).
//
// v37 (session 12): v31 with P converted row by row inside the d128 loop's softmax: the previous
// P V is waited for once the first row's exponentials are issued, and each row's P is converted as
// soon as that row is done, the first row's beside the second row's max and exponentials. convert_p
// after the softmax had held all 48 half-rate conversions on the warpgroup's critical path (D68:
// the softmax is the d128 loop's period). Bit for bit v31's results (check_attention --same-as,
// D105-D109). D105-D109 (implementations timed in turns): +1.1..+2.5% non-causal d128 from s1024,
// causal +1.2..+4.5% from s2048; every d64 and d256 instance has v31's PTX.
//
// v31 (session 11): v26 with softmax_stale (no row max while the running one holds) in the
// non-persistent d64 kernel of non-causal problems, which runs from seqlen_q 4096 (HOPPER_STALE_MAX
// below).
//
// v26 (session 10): v25 with the live half: when no row of a warpgroup sees past the first half of
// its first key tile (the causal diagonal's tile, which the loop takes first), that tile's mask,
// softmax and conversion run over the half and the rest of P is zero, so the exponentials of keys
// no row sees are not computed (the bank's bound.sfu-floor, asked at the plateau). Causal
// instances only (Config::kLiveHalf). Bit for bit v25's results (check_attention --same-as, D79,
// D80). D80 (implementations timed in turns, the grid's causal shapes): +5.1/+2.9/+1.6/+1.0%
// causal d64 s512..s4096, d256 causal within 0.5%; every non-causal instance has v25's PTX.
//
// v25 (session 8): v24 with the exponential token at d64: the consumer warpgroups take turns for
// their softmax's exponentials, as they do for their GEMMs, so that no two share a sub-partition's
// MUFU queue at once (D58: MUFU held 28-32% of d64's warp samples, 7-10% on that queue). D60
// (implementations timed in turns, each launch held until enqueued): +1.4-3.5% on the d64 grid
// shapes from s1024, 0 at causal s512; d128 and d256 keep v24's PTX (the token cost them 0.5-1.6%).
//
// v24 (session 6): v19 with the causal skip: a warpgroup passes the causal key tile that lies
// wholly above its rows (warpgroup 0 against d256's 80-key tiles; warpgroups 0 and 1 of d64's
// 192-row tiles), and causal d64 on 192-row tiles at every length. The skip lives in instances
// launched for causal problems only (Config::kCausal): every instance a non-causal problem runs
// has v19's PTX (compiled into shared instances, v23, the untaken skip cost 1-3% on some
// non-causal shapes in D37-D39). D40 (implementations timed in turns, the grid's causal shapes):
// 1.008x v19; +1.4-2.2% causal d64 s512-s4096, +0.7-2.3% causal d256 s512-s4096.
//
// v19 (session 5): v18 with d64 on the persistent kernel up to seqlen_q 4096 (8192 causal): D28,
// +5.0/+1.7% s2048/s4096, causal +5.8/+3.1% s4096/s8192 (the thresholds dated from v3, D2).
//
// v18 (session 5): v15 with lazy rescaling of O at d128 and d256 (v17: a row's running max moves
// only when it grows by more than 2^8, so O's rescale leaves the loop; softmax_step), the 192-key
// tile at d128 for long key sequences, and d256 on the persistent kernel at every non-causal
// length. D26/D27 (docs/campaigns/attention-h200/runs/d26, d27; implementations timed in turns):
// v17 1.011x v15 on the FA3 grid (+2-5% d128 and d256 from s2048; at d64 it cost 2-4%, so d64 keeps
// v15's code), the 192-key tile +2-5% d128 from s4096, persistent d256 +1-4% non-causal from s4096.
//
// v15 (session 4): v13 with the persistent producer publishing each tile decoded, so that the
// consumers do no division between tiles (D21: 1.009x v13; +9% causal s512 d64, +7% causal s1024
// d64, +3% s512/s1024 d64, +1.5% s512 d128 and d256). (v14, a tile's last P V deferred into the
// next tile's first GEMM turn where tiles are short, measured 0.999x v13 in D20: not shipped.)
//
// v13 (session 4): v12 with a three-warpgroup tile's empty warpgroup (no row of it exists) passing
// its GEMM turns without computing (D19: +4.4% s512/s1024 d64, +2-3% s2048/s4096 d64).
//
// v12 (session 4; v8 is the trace's candidates/06da90d2...cu): v8 with the persistent kernel's
// O stored by TMA from its staging buffer, nobody waiting for the store (v11), and d256 on the
// persistent kernel up to seqlen_q 2048, its O stored straight from registers 16 bytes at a time
// after a 4 x 4 exchange inside each quad (no room for a staging buffer at d256). D18
// (docs/campaigns/attention-h200/runs/d18/, implementations timed in turns): 1.019x v8 on the FA3
// grid; +5-7% d128 s512, +7% d256 s512, +10% causal d256 s512, +2-3% d64 s512, less at s1024 and
// s2048, within 1% from s4096.
//
// v8 (session 3; v4 is versions/v4-hopper.cu): two kernels over one set of helpers, and a host
// dispatch by shape that picks, per shape, the one that measured faster on the H200 (device calls
// D2, D7-D9, docs/campaigns/attention-h200/runs/):
//   * attention_fwd_kernel (v1, docs/campaigns/attention-h200/versions/v1-hopper.cu): one CTA per
//     query tile, the hardware's block dispatch; 2 consumer warpgroups (128 query rows), or 3 (a
//     192-row tile, versions/v3-d64-m192-hopper.cu) with the GEMM-issue ping-pong generalised to a
//     round robin (warpgroup i waits for i-1's issue, then lets i+1 go);
//   * attention_fwd_persistent_kernel (v3, versions/v3-dynamic-hopper.cu): one CTA per SM, query
//     tiles handed out by a global ticket counter, causal ones longest first within L2 sections of
//     K+V; the Q buffer is released after a tile's last S GEMM so the next tile's loads overlap
//     the softmax, last P V and epilogue; O staged through a shared-memory buffer of its own where
//     it fits (d64, d128), register-direct stores otherwise. Since v8 the GEMM-issue turns run on
//     from one tile to the next (a warpgroup's epilogue hides under the other's GEMMs), and it
//     takes 2 or 3 consumer warpgroups. Counters reset themselves (the last CTA of a launch zeroes
//     them), so launches must not run concurrently on two streams;
//   * dispatch (choose_persistent and launch_fast below; thresholds are named constants there):
//       d64:  192-row non-persistent when seqlen_q >= 4096 and non-causal (v31; 8192 in v19,
//             causal too until v42); else persistent on 3 consumer warpgroups;
//       d128: persistent, except causal beyond seqlen_q 8192 and non-causal from 16384 (v42) (v1's
//             kernel there); a 192-key tile from seqlen_kv 2048 (4096 causal), 128 below (v18);
//       d256: persistent up to seqlen_q 2048 (v12) and at every non-causal length (v18), v1's
//             kernel for causal beyond (persistent lost 3-13% there in D27);
//       head dims other than 64/128/256, misaligned pointers, empty shapes: the general kernel at
//       the end of this file (as v1 and v3 did). fp16, GQA, odd lengths and seqlen_q != seqlen_kv
//       follow the same shape rules as bf16 (both kernels handle them; v3's 192-key d64 tile from
//       seqlen_kv >= 4096 applies where the persistent kernel runs on 2 warpgroups).
//     -DHOPPER_SCHEDULE=1 forces the non-persistent kernel (v1, d64 on HOPPER_D64_WGS warpgroups),
//     -DHOPPER_SCHEDULE=2 the persistent one, for A/B runs against the dispatch;
//   * the softmax's row max and row sum run as four independent chains at d64 (softmax_step);
//   * per-build state has internal linkage: everything below lives in an anonymous namespace, so
//     function-local statics (the cudaFuncSetAttribute guards, cached SM counts, the driver entry
//     point) and g_sched are not STB_GNU_UNIQUE symbols. In D2, a v1 and a v3 build loaded into one
//     process (RTLD_LOCAL) shared a template's `static bool configured` through such a symbol and
//     broke each other's launches. Check: `nm -C --defined-only BUILT.so | grep -i " u "` is empty.
// Shared design (see docs/campaigns/attention-h200/log.md for why each piece is there):
//   * warpgroup 0 is the producer, warpgroups 1..kWGs are consumers, each owning 64 query rows
//     (setmaxnreg moves registers to them);
//   * the producer's one elected thread issues TMA (cp.async.bulk.tensor) loads of Q and of K and
//     V tiles into a kStages-deep ring of 128-byte-swizzled shared-memory stages; each stage
//     completes on an mbarrier (transaction bytes), and consumers hand stages back on "empty"
//     mbarriers;
//   * consumers compute S = Q K^T with wgmma (both operands from shared memory, K-major) and
//     O += P V with wgmma (P from registers, V from shared memory, MN-major), the online softmax in
//     registers; with kOverlap the softmax of tile j runs while the P V product of tile j-1 is in
//     flight; with kPingPong the consumer warpgroups take turns issuing their GEMMs (named
//     barriers), so one's softmax hides under the others' tensor-core work;
//   * causal tiles entirely above the (bottom-right aligned) diagonal are never loaded; tails past
//     seqlen are zero-filled by TMA and masked; rows with no visible key produce zeros;
//   * GQA: query head h reads key/value head h / (heads_q / heads_kv).
//
// Measured on the H200: docs/benchmarks.md (v8 against v4, cuDNN and FlashAttention-2 in one run)
// and docs/campaigns/attention-h200/log.md (every version, with the question that led to it).
#include "attention_args.h"

#include <cuda.h>  // CUtensorMap and its enums (types only: the driver entry point is fetched at run time)
#include <cudaTypedefs.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cmath>
#include <cstdint>
#include <type_traits>

namespace hopper_attn {
// Everything in this file but the extern "C" entry point has internal linkage (see the header).
namespace {

// ============================================================================================
// PTX helpers
// ============================================================================================

__device__ __forceinline__ uint32_t smem_addr(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

__device__ __forceinline__ void mbar_init(uint32_t bar, uint32_t count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(bar), "r"(count));
}

__device__ __forceinline__ void mbar_arrive_expect_tx(uint32_t bar, uint32_t bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(bar), "r"(bytes)
               : "memory");
}

__device__ __forceinline__ void mbar_arrive(uint32_t bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(bar) : "memory");
}

/// Blocks until the phase of `bar` with parity `parity` has completed. (No trap on a long wait:
/// a __trap() here made ptxas give up per-role register allocation, and the consumers spilled.)
__device__ __forceinline__ void mbar_wait(uint32_t bar, uint32_t parity) {
  uint32_t done = 0;
  do {
    asm volatile(
        "{\n.reg .pred p;\n"
        "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
        "selp.u32 %0, 1, 0, p;\n}\n"
        : "=r"(done)
        : "r"(bar), "r"(parity)
        : "memory");
  } while (!done);
}

/// TMA: one box of a 4-D tensor map into shared memory, completing on `bar`.
__device__ __forceinline__ void tma_load_4d(uint32_t dst, const CUtensorMap* map, uint32_t bar, int c0,
                                            int c1, int c2, int c3) {
  asm volatile(
      "cp.async.bulk.tensor.4d.shared::cluster.global.mbarrier::complete_tx::bytes"
      " [%0], [%1, {%2, %3, %4, %5}], [%6];\n" ::"r"(dst),
      "l"(reinterpret_cast<uint64_t>(map)), "r"(c0), "r"(c1), "r"(c2), "r"(c3), "r"(bar)
      : "memory");
}

/// TMA: one box of shared memory into a 4-D tensor map (rows outside the tensor are not written),
/// in this thread's current bulk async-group.
__device__ __forceinline__ void tma_store_4d(const CUtensorMap* map, uint32_t src, int c0, int c1, int c2, int c3) {
  asm volatile("cp.async.bulk.tensor.4d.global.shared::cta.bulk_group [%0, {%1, %2, %3, %4}], [%5];\n" ::"l"(
                   reinterpret_cast<uint64_t>(map)),
               "r"(c0), "r"(c1), "r"(c2), "r"(c3), "r"(src)
               : "memory");
}
__device__ __forceinline__ void bulk_commit() { asm volatile("cp.async.bulk.commit_group;\n" ::: "memory"); }
/// Waits until this thread's bulk stores have read their shared-memory source (it may be reused).
__device__ __forceinline__ void bulk_wait_read() { asm volatile("cp.async.bulk.wait_group.read 0;\n" ::: "memory"); }
/// Makes this thread's ordinary shared-memory writes visible to the async proxy (TMA).
__device__ __forceinline__ void fence_proxy_async() {
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
}

__device__ __forceinline__ void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }
__device__ __forceinline__ void wgmma_commit() {
  asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
}
template <int N>
__device__ __forceinline__ void wgmma_wait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");
}

/// Keeps the compiler from moving accesses to wgmma accumulators across issue/wait points.
template <int N>
__device__ __forceinline__ void pin(float (&r)[N]) {
#pragma unroll
  for (int i = 0; i < N; ++i) asm volatile("" : "+f"(r[i])::"memory");
}
template <int N>
__device__ __forceinline__ void pin(uint32_t (&r)[N]) {
#pragma unroll
  for (int i = 0; i < N; ++i) asm volatile("" : "+r"(r[i])::"memory");
}

template <int kRegs>
__device__ __forceinline__ void regs_increase() {
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(kRegs));
}
template <int kRegs>
__device__ __forceinline__ void regs_decrease() {
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(kRegs));
}

__device__ __forceinline__ void named_sync(int id, int threads) {
  asm volatile("bar.sync %0, %1;\n" ::"r"(id), "r"(threads) : "memory");
}
__device__ __forceinline__ void named_arrive(int id, int threads) {
  asm volatile("bar.arrive %0, %1;\n" ::"r"(id), "r"(threads) : "memory");
}

__device__ __forceinline__ float exp2_approx(float x) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;\n" : "=f"(y) : "f"(x));
  return y;
}

/// Four 8x8 16-bit matrices from shared memory; lane i gives the address of row i % 8 of matrix i / 8.
__device__ __forceinline__ void ldmatrix_x4(uint32_t (&r)[4], uint32_t addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(addr)
               : "memory");
}

/// Two 8x8 16-bit matrices from shared memory; lanes 0-15 give the row addresses.
__device__ __forceinline__ void ldmatrix_x2(uint32_t (&r)[2], uint32_t addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [%2];\n" : "=r"(r[0]), "=r"(r[1]) : "r"(addr) : "memory");
}

/// d[0..3] += A (16x16, row) B (16x8, col), fp32 accumulators: one warp's mma.sync.
template <bool kBf16>
__device__ __forceinline__ void mma_16816(float* d, const uint32_t (&a)[4], uint32_t b0, uint32_t b1) {
  if constexpr (kBf16)
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
        "{%0, %1, %2, %3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
  else
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
        "{%0, %1, %2, %3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

/// Shared-memory matrix descriptor for wgmma with 128-byte swizzling. Byte offsets are encoded >> 4.
__device__ __forceinline__ uint64_t smem_desc(uint32_t addr, uint32_t leading_bytes, uint32_t stride_bytes) {
  return static_cast<uint64_t>((addr & 0x3FFFF) >> 4) |
         (static_cast<uint64_t>((leading_bytes & 0x3FFFF) >> 4) << 16) |
         (static_cast<uint64_t>((stride_bytes & 0x3FFFF) >> 4) << 32) | (1ull << 62);
}

template <bool kBf16>
__device__ __forceinline__ uint32_t pack2(float lo, float hi) {
  if constexpr (kBf16) {
    __nv_bfloat162 v = __floats2bfloat162_rn(lo, hi);
    return *reinterpret_cast<uint32_t*>(&v);
  } else {
    __half2 v = __floats2half2_rn(lo, hi);
    return *reinterpret_cast<uint32_t*>(&v);
  }
}

// ---- GENERATED by kernels/attention/tools/gen_wgmma.py: do not edit by hand ----
// SS: A (m64 x k16) and B from shared memory, both K-major (imm-trans-a = imm-trans-b = 0).
// RS: A from registers, B from shared memory MN-major (imm-trans-b = 1).
template <int N> struct WgmmaSS;
template <int N> struct WgmmaRS;
template <> struct WgmmaSS<40> {
  template <bool kBf16>
  static __device__ __forceinline__ void run(float (&d)[20], uint64_t desc_a, uint64_t desc_b,
                                             int accumulate) {
    if constexpr (kBf16) {
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %22, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n40k16.f32.bf16.bf16 "
        "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19}, %20, %21, p, 1, 1, 0, 0;\n}\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19])
        : "l"(desc_a), "l"(desc_b), "r"(accumulate));
    } else {
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %22, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n40k16.f32.f16.f16 "
        "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19}, %20, %21, p, 1, 1, 0, 0;\n}\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19])
        : "l"(desc_a), "l"(desc_b), "r"(accumulate));
    }
  }
};

template <> struct WgmmaSS<64> {
  template <bool kBf16>
  static __device__ __forceinline__ void run(float (&d)[32], uint64_t desc_a, uint64_t desc_b,
                                             int accumulate) {
    if constexpr (kBf16) {
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 "
        "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, %32, %33, p, 1, 1, 0, 0;\n}\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
        : "l"(desc_a), "l"(desc_b), "r"(accumulate));
    } else {
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 "
        "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, %32, %33, p, 1, 1, 0, 0;\n}\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
        : "l"(desc_a), "l"(desc_b), "r"(accumulate));
    }
  }
};

template <> struct WgmmaSS<80> {
  template <bool kBf16>
  static __device__ __forceinline__ void run(float (&d)[40], uint64_t desc_a, uint64_t desc_b,
                                             int accumulate) {
    if constexpr (kBf16) {
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %42, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n80k16.f32.bf16.bf16 "
        "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39}, %40, %41, p, 1, 1, 0, 0;\n}\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39])
        : "l"(desc_a), "l"(desc_b), "r"(accumulate));
    } else {
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %42, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n80k16.f32.f16.f16 "
        "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39}, %40, %41, p, 1, 1, 0, 0;\n}\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39])
        : "l"(desc_a), "l"(desc_b), "r"(accumulate));
    }
  }
};

template <> struct WgmmaSS<96> {
  template <bool kBf16>
  static __device__ __forceinline__ void run(float (&d)[48], uint64_t desc_a, uint64_t desc_b,
                                             int accumulate) {
    if constexpr (kBf16) {
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %50, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n96k16.f32.bf16.bf16 "
        "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47}, %48, %49, p, 1, 1, 0, 0;\n}\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47])
        : "l"(desc_a), "l"(desc_b), "r"(accumulate));
    } else {
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %50, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n96k16.f32.f16.f16 "
        "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47}, %48, %49, p, 1, 1, 0, 0;\n}\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47])
        : "l"(desc_a), "l"(desc_b), "r"(accumulate));
    }
  }
};

template <> struct WgmmaSS<112> {
  template <bool kBf16>
  static __device__ __forceinline__ void run(float (&d)[56], uint64_t desc_a, uint64_t desc_b,
                                             int accumulate) {
    if constexpr (kBf16) {
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %58, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n112k16.f32.bf16.bf16 "
        "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55}, %56, %57, p, 1, 1, 0, 0;\n}\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55])
        : "l"(desc_a), "l"(desc_b), "r"(accumulate));
    } else {
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %58, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n112k16.f32.f16.f16 "
        "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55}, %56, %57, p, 1, 1, 0, 0;\n}\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55])
        : "l"(desc_a), "l"(desc_b), "r"(accumulate));
    }
  }
};

template <> struct WgmmaSS<128> {
  template <bool kBf16>
  static __device__ __forceinline__ void run(float (&d)[64], uint64_t desc_a, uint64_t desc_b,
                                             int accumulate) {
    if constexpr (kBf16) {
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 "
        "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}, %64, %65, p, 1, 1, 0, 0;\n}\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
        : "l"(desc_a), "l"(desc_b), "r"(accumulate));
    } else {
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 "
        "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}, %64, %65, p, 1, 1, 0, 0;\n}\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
        : "l"(desc_a), "l"(desc_b), "r"(accumulate));
    }
  }
};

template <> struct WgmmaSS<144> {
  template <bool kBf16>
  static __device__ __forceinline__ void run(float (&d)[72], uint64_t desc_a, uint64_t desc_b,
                                             int accumulate) {
    if constexpr (kBf16) {
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %74, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n144k16.f32.bf16.bf16 "
        "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71}, %72, %73, p, 1, 1, 0, 0;\n}\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71])
        : "l"(desc_a), "l"(desc_b), "r"(accumulate));
    } else {
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %74, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n144k16.f32.f16.f16 "
        "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71}, %72, %73, p, 1, 1, 0, 0;\n}\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71])
        : "l"(desc_a), "l"(desc_b), "r"(accumulate));
    }
  }
};

template <> struct WgmmaSS<160> {
  template <bool kBf16>
  static __device__ __forceinline__ void run(float (&d)[80], uint64_t desc_a, uint64_t desc_b,
                                             int accumulate) {
    if constexpr (kBf16) {
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %82, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n160k16.f32.bf16.bf16 "
        "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79}, %80, %81, p, 1, 1, 0, 0;\n}\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]), "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79])
        : "l"(desc_a), "l"(desc_b), "r"(accumulate));
    } else {
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %82, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n160k16.f32.f16.f16 "
        "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79}, %80, %81, p, 1, 1, 0, 0;\n}\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]), "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79])
        : "l"(desc_a), "l"(desc_b), "r"(accumulate));
    }
  }
};

template <> struct WgmmaSS<176> {
  template <bool kBf16>
  static __device__ __forceinline__ void run(float (&d)[88], uint64_t desc_a, uint64_t desc_b,
                                             int accumulate) {
    if constexpr (kBf16) {
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %90, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n176k16.f32.bf16.bf16 "
        "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, %84, %85, %86, %87}, %88, %89, p, 1, 1, 0, 0;\n}\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]), "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87])
        : "l"(desc_a), "l"(desc_b), "r"(accumulate));
    } else {
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %90, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n176k16.f32.f16.f16 "
        "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, %84, %85, %86, %87}, %88, %89, p, 1, 1, 0, 0;\n}\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]), "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87])
        : "l"(desc_a), "l"(desc_b), "r"(accumulate));
    }
  }
};

template <> struct WgmmaSS<192> {
  template <bool kBf16>
  static __device__ __forceinline__ void run(float (&d)[96], uint64_t desc_a, uint64_t desc_b,
                                             int accumulate) {
    if constexpr (kBf16) {
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %98, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n192k16.f32.bf16.bf16 "
        "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95}, %96, %97, p, 1, 1, 0, 0;\n}\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]), "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95])
        : "l"(desc_a), "l"(desc_b), "r"(accumulate));
    } else {
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %98, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n192k16.f32.f16.f16 "
        "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95}, %96, %97, p, 1, 1, 0, 0;\n}\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]), "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95])
        : "l"(desc_a), "l"(desc_b), "r"(accumulate));
    }
  }
};

template <> struct WgmmaRS<64> {
  template <bool kBf16>
  static __device__ __forceinline__ void run(float (&d)[32], const uint32_t (&a)[4],
                                             uint64_t desc_b, int accumulate) {
    if constexpr (kBf16) {
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %37, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 "
        "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, {%32, %33, %34, %35}, %36, p, 1, 1, 1;\n}\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b), "r"(accumulate));
    } else {
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %37, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 "
        "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, {%32, %33, %34, %35}, %36, p, 1, 1, 1;\n}\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b), "r"(accumulate));
    }
  }
};

template <> struct WgmmaRS<128> {
  template <bool kBf16>
  static __device__ __forceinline__ void run(float (&d)[64], const uint32_t (&a)[4],
                                             uint64_t desc_b, int accumulate) {
    if constexpr (kBf16) {
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %69, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 "
        "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}, {%64, %65, %66, %67}, %68, p, 1, 1, 1;\n}\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b), "r"(accumulate));
    } else {
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %69, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 "
        "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}, {%64, %65, %66, %67}, %68, p, 1, 1, 1;\n}\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b), "r"(accumulate));
    }
  }
};

template <> struct WgmmaRS<256> {
  template <bool kBf16>
  static __device__ __forceinline__ void run(float (&d)[128], const uint32_t (&a)[4],
                                             uint64_t desc_b, int accumulate) {
    if constexpr (kBf16) {
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %133, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 "
        "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, %96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, %112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127}, {%128, %129, %130, %131}, %132, p, 1, 1, 1;\n}\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]), "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]), "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]), "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]), "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]), "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]), "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b), "r"(accumulate));
    } else {
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %133, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16 "
        "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, %96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, %112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127}, {%128, %129, %130, %131}, %132, p, 1, 1, 1;\n}\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]), "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]), "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]), "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]), "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]), "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]), "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b), "r"(accumulate));
    }
  }
};

// ---- END GENERATED ----

// ============================================================================================
// The fast path
// ============================================================================================

// Persistent kernel's epilogue: O staged through a shared-memory buffer of its own where one fits
// (default); 0 = stores straight from registers everywhere (as d256 does, where no buffer fits).
#ifndef HOPPER_SMEM_EPILOGUE
#define HOPPER_SMEM_EPILOGUE 1
#endif
// Phase marks: kernels/attention/tools/tile_phases.cu defines this hook to time each consumer
// warpgroup's tiles (point, the tile's first K/V ring position, warpgroup, key tiles); every other
// build leaves it empty, so the shipped kernels carry no code for it.
#ifndef HOPPER_PHASE
#define HOPPER_PHASE(point, kv_iter, cw, n_blocks)
#endif
// Persistent kernel's causal tile order: K+V bytes of the (batch, head) pairs one L2 section
// covers; 0 = one section (strict longest-first over the whole launch); -1 (default) = by shape,
// l2_section_budget (v45; 16 MB for every shape until v42).
#ifndef HOPPER_L2_SECTION_BYTES
#define HOPPER_L2_SECTION_BYTES (-1)
#endif

// Lazy rescaling of O (softmax_step): 1 = a row's max moves only when it grows by more than
// HOPPER_RESCALE_THRESHOLD (log2 units), 0 = every key tile rescales O (v15 and before).
#ifndef HOPPER_LAZY_RESCALE
#define HOPPER_LAZY_RESCALE 1
#endif
#ifndef HOPPER_RESCALE_THRESHOLD
#define HOPPER_RESCALE_THRESHOLD 8.0f
#endif

// v23: a warpgroup passes the causal key tiles that lie wholly above its rows (attend_tile);
// 0 = it computes them masked, as v19 did.
#ifndef HOPPER_CAUSAL_SKIP
#define HOPPER_CAUSAL_SKIP 1
#endif

// v26: when no row of a warpgroup sees past the first half of its first key tile (its causal
// diagonal, or the tile past seqlen_kv's last full one), that tile's mask, softmax and conversion
// run over the first half alone and the other half's P is zero (attend_tile, Config::kLiveHalf);
// 0 = over the whole tile, as v25 did. The same results, bit for bit (the skipped values are
// exp2(-inf) = 0; D79, check_attention --same-as on the three sets).
#ifndef HOPPER_LIVE_HALF
#define HOPPER_LIVE_HALF 1
#endif
// With HOPPER_LIVE_HALF: 1 = that tile's S and P V GEMMs also run over the first half alone.
#ifndef HOPPER_LIVE_HALF_GEMMS
#define HOPPER_LIVE_HALF_GEMMS 0
#endif

// v28-v31: the loop's softmax takes no row max while the running one still holds (softmax_stale): the
// exponentials run against the row's max as it stands, and a thread's row sums under 255 prove for
// the whole warp that no P passed 2^8, all that lazy rescaling asks. A warp where some row may have
// grown takes the max of its P instead (rescaling P, O and l by a power of two where it passed 2^8),
// and a warp where P overflowed takes S again from shared memory (mma.sync), so each warp hands its
// K stage back after its softmax, not after its S GEMM. D84: the row max's FMNMX runs at half its
// rate beside the tensor cores' work. Compiled into one instance (Config::kStaleMax), the
// non-persistent d64 kernel of non-causal problems (v31; D92, against v26 on unit normals: +8.3% and
// +8.9% at s8192 and s16384, +5.4% at s4096 with HOPPER_D64_ROWS192_FROM; on FlashAttention-3's
// outlier inputs, where rows grow, -4.4..-6.9%; in the persistent d64 instances and at d128 it lost,
// D89-D91). 0 = softmax_step on every key tile, as v26 did.
#ifndef HOPPER_STALE_MAX
#define HOPPER_STALE_MAX 1
#endif
// v37: the loop's softmax_step converts a row's P as soon as that row's exponentials are done (the
// first row's beside the second row's), once the previous P V, which reads P's registers, has been
// waited for; 0 = the whole tile's P after the softmax (convert_p), as v26 did. Per head dim: at
// d128 +1.4..+2.5% from s1024 (D105-D109), at d64 -1..-4% (the conversion then sits inside the
// exponential token's hold) and at d256 -0.1..-0.9% (its softmax hides under the other warpgroup's
// GEMMs) in D106, so d128 only.
#ifndef HOPPER_EARLY_CONVERT_D64
#define HOPPER_EARLY_CONVERT_D64 0
#endif
#ifndef HOPPER_EARLY_CONVERT_D128
#define HOPPER_EARLY_CONVERT_D128 1
#endif
#ifndef HOPPER_EARLY_CONVERT_D256
#define HOPPER_EARLY_CONVERT_D256 0
#endif
// With it: 1 = a warp whose softmax_stale did not keep its max (a row grew, or P overflowed) takes
// softmax_step for the rest of the query tile (D89, without: 0.66x v26 at d128 on outlier inputs).
#ifndef HOPPER_STALE_SWITCH
#define HOPPER_STALE_SWITCH 1
#endif

// The exponential token (v25), per head dim: 1 = the consumer warpgroups take turns for their
// softmax's exponentials (a ring of named barriers beside the GEMM turns), so that no two
// warpgroups' exponentials share a sub-partition's MUFU queue at once. At d64 MUFU holds a third of
// the warp samples (D58); D59/D60: +1.4-3.5% on the d64 grid shapes from s1024, 0 at causal s512;
// at d128 and d256 (two warpgroups) it cost 0.5-1.6% (D60), so it is off there.
#ifndef HOPPER_EXP_TOKEN_D64
#define HOPPER_EXP_TOKEN_D64 1
#endif
#ifndef HOPPER_EXP_TOKEN_D128
#define HOPPER_EXP_TOKEN_D128 0
#endif
#ifndef HOPPER_EXP_TOKEN_D256
#define HOPPER_EXP_TOKEN_D256 0
#endif

/// Compile-time shape of one kernel instance; kPersistent picks the kernel and its shared-memory
/// layout.
template <int kHeadDim, int kBlockN_, int kStages_, int kWGs_, bool kBf16_, bool kOverlap_, bool kPingPong_,
          bool kPersistent_, bool kCausal_ = false, bool kStaleMax_ = false>
struct Config {
  static constexpr int D = kHeadDim;
  static constexpr int kBlockN = kBlockN_;
  static constexpr int kStages = kStages_;
  static constexpr int kWGs = kWGs_;  // consumer warpgroups, 64 query rows each
  static constexpr bool kBf16 = kBf16_;
  static constexpr bool kOverlap = kOverlap_;
  static constexpr bool kPingPong = kPingPong_ && kWGs_ >= 2;
  static constexpr bool kPersistent = kPersistent_;
  // An instance launched for causal problems only (v24): the causal skip below is compiled into
  // these alone, so the instances non-causal problems run keep v19's code (D37-D39: compiled into
  // shared instances, the untaken skip cost 1-3% on some non-causal shapes). Still correct for any
  // problem: the skip also tests p.causal. (D40: a half diagonal, S and P V over the first 64 keys
  // for a warpgroup that sees no more of its first key tile, lost 2-4% at causal d128 s1024/s2048:
  // versions/v24h-half-diagonal.patch.)
  static constexpr bool kCausal = kCausal_;
  static constexpr int kBlockM = 64 * kWGs;
  static constexpr int kSoftmaxChains = D == 64 ? 4 : 1;  // see softmax_step
  // Lazy rescaling of O (softmax_step) where it measured faster: D26, +2-3% d128 and +3-5% d256 from
  // s2048; at d64 (32 multiplies a tile to save) the votes and branches cost 2-4% (D26 one vote per
  // row, D28 one for both rows: versions/v18l64-lazy-d64.patch).
  static constexpr bool kLazyRescale = HOPPER_LAZY_RESCALE != 0 && D >= 128;
  // The causal skip (attend_tile), in the causal instances where it measured faster (D38: +0.7-1.9%
  // causal d256, +0.4-2.3% causal d64 on 192-row tiles; in the 192-key d128 tiles, which non-causal
  // problems share, it cost 1-2%).
  static constexpr bool kCausalSkip = HOPPER_CAUSAL_SKIP != 0 && kCausal && (D == 256 || (D == 64 && kWGs == 3));
  // The first key tile's half (HOPPER_LIVE_HALF), in the causal instances only: D79, compiled into
  // every instance, +5.6/+3.4/+1.5/+1.1% causal d64 s512..s4096, but the other instances' loops
  // lost 1-4% (d128 non-causal from s2048, d64 from s8192) though they never take it on the grid.
  static constexpr bool kLiveHalf = HOPPER_LIVE_HALF != 0 && kCausal;
  // (d64 only: as in D40, the narrower S GEMM made ptxas serialise every wgmma at d256, and at d128
  // with the narrower P V too)
  static constexpr bool kLiveHalfGemms = kLiveHalf && HOPPER_LIVE_HALF_GEMMS != 0 && D == 64;
  static constexpr bool kExpToken =
      kPingPong && (D == 64 ? HOPPER_EXP_TOKEN_D64 : D == 128 ? HOPPER_EXP_TOKEN_D128 : HOPPER_EXP_TOKEN_D256) != 0;
  // softmax_stale (HOPPER_STALE_MAX), in the overlapped loop of the instances launched with it
  static constexpr bool kStaleMax = kStaleMax_ && kOverlap;
  // P converted row by row inside the overlapped loop's softmax_step (HOPPER_EARLY_CONVERT_D*)
  static constexpr bool kEarlyConvert =
      kOverlap && !kStaleMax &&
      (D == 64 ? HOPPER_EARLY_CONVERT_D64 : D == 128 ? HOPPER_EARLY_CONVERT_D128 : HOPPER_EARLY_CONVERT_D256) != 0;
  static constexpr int kThreads = 128 * (kWGs + 1);
  static constexpr int kChunks = D / 64;  // 128-byte (64-element) column chunks of a row
  static constexpr int kQBytes = kBlockM * D * 2;
  static constexpr int kKVBytes = kBlockN * D * 2;
  // Non-persistent: Q, then full/empty K and V per stage. Persistent: full/empty Q, full/empty
  // tile-ring slots (2 each), full/empty K and V per stage, then the 2 ring slots' tile indices.
  static constexpr int kHeadBarriers = kPersistent ? 6 : 1;  // mbarriers before the K/V ring's
  static constexpr int kBarrierBytes = 8 * (kHeadBarriers + 4 * kStages) + (kPersistent ? 32 : 0);
  static constexpr int kBaseSmemBytes = kQBytes + 2 * kStages * kKVBytes + kBarrierBytes + 1024;  // +1024: alignment
  static constexpr int kOBytes = kQBytes;  // the persistent epilogue's staging buffer has Q's shape
  // Non-persistent tiles stage O through the Q buffer (no later tile needs it); the persistent
  // kernel reloads Q early, so it stages through a buffer of its own or stores from registers.
  static constexpr bool kOwnOBuffer =
      kPersistent && HOPPER_SMEM_EPILOGUE != 0 && kBaseSmemBytes + kOBytes <= 227 * 1024;
  static constexpr int kSmemBytes = kBaseSmemBytes + (kOwnOBuffer ? kOBytes : 0);
  static constexpr int kProducerRegs = kWGs == 2 ? 24 : 32;  // 24 + 2 x 240 = 3 x 168; 32 + 3 x 160 = 4 x 128
  static constexpr int kConsumerRegs = kWGs == 2 ? 240 : 160;
  static_assert(D % 64 == 0 && D <= 256, "head dim: 64, 128, 192 or 256");
  static_assert(kWGs >= 1 && kWGs <= 3, "one to three consumer warpgroups (named barrier ids below)");
  static_assert(kBlockN % 16 == 0 && kBlockN <= 256, "key tile: a multiple of 16");
  static_assert(kSmemBytes <= 227 * 1024, "shared memory over the 227 KB a block may have");
};

/// Launch parameters that are not tensor maps.
struct Params {
  void* o;
  int seqlen_q, seqlen_kv, heads_q, heads_kv, group;  // group = heads_q / heads_kv
  int num_m_blocks;
  int num_tiles;   // persistent: num_m_blocks * heads_q * batch
  int num_bh;      // persistent: heads_q * batch
  int section_bh;  // persistent: (batch, head) pairs per L2 section of the causal order
  int causal;
  float scale_log2;  // softmax_scale * log2(e)
};

// Named barrier ids (0 is __syncthreads): one turn barrier per consumer warpgroup (up to three),
// then one epilogue barrier per consumer warpgroup.
constexpr int kBarTurn0 = 1;
constexpr int kBarEpilogue0 = 4;
constexpr int kBarExp0 = 7;  // the exponential token's ring (Config::kExpToken), one per consumer warpgroup

/// Sets S entries whose key is past seqlen_kv, or above the causal diagonal, to -inf.
/// With kLiveN < kN only the first kLiveN columns (the caller ignores the others).
template <int kN, int kLiveN = kN>
__device__ __forceinline__ void apply_mask(float (&s)[kN / 2], int col0, int row_a, int row_b, const Params& p) {
  const int shift = p.seqlen_kv - p.seqlen_q;  // bottom-right alignment
  const int lim_a = p.causal ? min(p.seqlen_kv, row_a + shift + 1) : p.seqlen_kv;
  const int lim_b = p.causal ? min(p.seqlen_kv, row_b + shift + 1) : p.seqlen_kv;
#pragma unroll
  for (int i = 0; i < kLiveN / 8; ++i) {
#pragma unroll
    for (int e = 0; e < 2; ++e) {
      const int col = col0 + 8 * i + e;
      if (col >= lim_a) s[4 * i + e] = -INFINITY;
      if (col >= lim_b) s[4 * i + 2 + e] = -INFINITY;
    }
  }
}

/// Online softmax over one S tile held in wgmma accumulator layout: each thread holds rows g and
/// g+8 of its warp's 16; a row's values are spread over the 4 threads of a quad. Leaves P
/// (unnormalised) in `s`, updates the running max and the per-thread partial sums, sets the
/// factors by which O must be rescaled, and returns whether O must be rescaled at all (the same
/// answer in every lane of the warp). Value j of row r is s[4 * (j / 2) + 2 * r + j % 2].
///
/// Lazy rescaling (v17, kLazy: d128 and d256, Config::kLazyRescale): a row keeps its old max as long as the new one
/// exceeds it by at most HOPPER_RESCALE_THRESHOLD in log2 units, so P's entries stay below
/// 2^threshold (256: exact in fp32 sums, the same relative precision in 16-bit P) and O and l need
/// no rescale; the result O / l is the same quantity. The decision is taken per row for the whole
/// warp (a vote), so the branch around O's rescale is uniform: after a tile or two, random or real
/// scores seldom raise a row's max by 2^8, and the loop drops O's D/2 multiplies per thread and the
/// two correction exponentials from the softmax's critical path.
/// `gate` brackets the exponentials (the exponential token, Config::kExpToken; attend_tile's
/// ExpGate): begin() before the first, end() after the last.
/// The row max and the row sum each run as kChains independent dependency chains, both rows'
/// reductions interleaved: 4 at d64, where v4's single chains were the `wait` stalls of D5 (+1-3%
/// at d64 in D6); at d128 and d256, where that form measured 1-3% slower (D6, D7), kChains = 1 is
/// v4's code unchanged.
/// With kLiveN < kN (v26) the tile's columns from kLiveN on are taken as masked: their P is zero
/// and they take no part in the max, the exponentials or the sum (the same results as masked
/// values: exp2(-inf) = 0).
/// `row_done(r)` runs once row r's exponentials and sum are done (v37: the loop converts that row's P
/// there; NoRowDone elsewhere).
struct NoRowDone {
  __device__ __forceinline__ void operator()(int) const {}
};
template <int kN, bool kFirst, int kChains, bool kLazy, int kLiveN = kN, class Gate, class RowDone = NoRowDone>
__device__ __forceinline__ bool softmax_step(float (&s)[kN / 2], float (&m)[2], float (&l)[2], float (&corr)[2],
                                             float scale_log2, const Gate& gate, const RowDone& row_done = {}) {
  static_assert(kLiveN % 8 == 0 && kLiveN <= kN, "live columns: whole groups of 8");
  constexpr int kPairs = kLiveN / 8;  // pairs of values of one (live) row held by this thread
  static_assert(kPairs % kChains == 0, "the key tile's pairs split evenly over the chains");
  bool rescale = !kFirst && !kLazy;
  // The row's new max is mx; returns the max to subtract (scaled), sets corr[r] and m[r].
  auto update_max = [&](int r, float mx) {
    if constexpr (!kFirst && kLazy) {
      // From -inf: +inf > threshold (rescale, corr 0); -inf to -inf: NaN, no vote.
      const bool grows = (mx - m[r]) * scale_log2 > HOPPER_RESCALE_THRESHOLD;
      if (!__any_sync(0xffffffffu, grows)) {
        corr[r] = 1.f;
        return m[r] == -INFINITY ? 0.f : m[r] * scale_log2;
      }
      rescale = true;
    }
    // A row with nothing visible yet keeps max -inf; subtracting 0 then keeps every p at 0.
    const float m_scaled = mx == -INFINITY ? 0.f : mx * scale_log2;
    corr[r] = kFirst ? 1.f : exp2_approx(m[r] * scale_log2 - m_scaled);
    m[r] = mx;
    return m_scaled;
  };
  if constexpr (kChains == 1) {
    // v4's softmax, instruction for instruction (with HOPPER_LAZY_RESCALE=0): one row at a time.
#pragma unroll
    for (int r = 0; r < 2; ++r) {
      float mx = kFirst ? -INFINITY : m[r];
#pragma unroll
      for (int i = 0; i < kPairs; ++i) mx = fmaxf(mx, fmaxf(s[4 * i + 2 * r], s[4 * i + 2 * r + 1]));
      mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 1));
      mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 2));
      if (r == 0) gate.begin();
      const float m_scaled = update_max(r, mx);
      float sum = 0.f;
#pragma unroll
      for (int i = 0; i < kPairs; ++i) {
#pragma unroll
        for (int e = 0; e < 2; ++e) {
          const float v = exp2_approx(fmaf(s[4 * i + 2 * r + e], scale_log2, -m_scaled));
          s[4 * i + 2 * r + e] = v;
          sum += v;
        }
      }
      l[r] = kFirst ? sum : l[r] * corr[r] + sum;
      row_done(r);
    }
    gate.end();
    return rescale;
  }
  auto at = [](int r, int j) { return 4 * (j / 2) + 2 * r + (j % 2); };
  auto combine = [](float (&part)[kChains], auto op) {
    float v = part[0];
#pragma unroll
    for (int k = 1; k < kChains; ++k) v = op(v, part[k]);
    return v;
  };
  const auto max_op = [](float a, float b) { return fmaxf(a, b); };
  const auto add_op = [](float a, float b) { return a + b; };
  float mx[2];
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    float part[kChains];
#pragma unroll
    for (int k = 0; k < kChains; ++k) part[k] = kFirst ? -INFINITY : m[r];
#pragma unroll
    for (int i = 0; i < kPairs; ++i)
      part[i % kChains] = fmaxf(part[i % kChains], fmaxf(s[at(r, 2 * i)], s[at(r, 2 * i + 1)]));
    mx[r] = combine(part, max_op);
  }
#pragma unroll
  for (int r = 0; r < 2; ++r) mx[r] = fmaxf(mx[r], __shfl_xor_sync(0xffffffffu, mx[r], 1));
#pragma unroll
  for (int r = 0; r < 2; ++r) mx[r] = fmaxf(mx[r], __shfl_xor_sync(0xffffffffu, mx[r], 2));
  gate.begin();
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    const float m_scaled = update_max(r, mx[r]);
    float part[kChains];
#pragma unroll
    for (int k = 0; k < kChains; ++k) part[k] = 0.f;
#pragma unroll
    for (int j = 0; j < 2 * kPairs; ++j) {
      const float v = exp2_approx(fmaf(s[at(r, j)], scale_log2, -m_scaled));
      s[at(r, j)] = v;
      part[(j / 2) % kChains] += v;
    }
    const float sum = combine(part, add_op);
    l[r] = kFirst ? sum : l[r] * corr[r] + sum;
    row_done(r);
  }
  gate.end();
  return rescale;
}

/// A gate that brackets nothing (softmax_step outside the exponential token's ring).
struct NoGate {
  __device__ __forceinline__ void begin() const {}
  __device__ __forceinline__ void end() const {}
};

/// What softmax_stale left to do: nothing, rescale O by corr, or take S again.
enum class Stale { kKept, kRescaled, kRetake };

/// The loop's softmax without a row max (v28, Config::kStaleMax). P against the running max m as it
/// stands (a row with none yet: against 0, as softmax_step takes it), the sums into l. Per warp:
///   * every thread's two row sums under 255: no P passed 2^8, so lazy softmax_step would have
///     kept every max too, and P is its P bit for bit (without lazy rescaling, at d64, O / l is
///     the same quantity, rounded differently): kKept;
///   * else the max of each row's P (FMNMX, in this warp only): a row whose P passed 2^8, or that
///     had no max yet, is rescaled by 2^-e (P, its sum, l and corr; exact, a power of two), with e
///     the exponent of that max, and its max moves up by e: kRescaled when some row was, else kKept;
///   * a P that overflowed (a jump of 2^128 or more against the stale max; NaN from NaN inputs
///     counts) leaves m and l untouched and s spent: kRetake, the caller takes S again.
/// `gate` brackets the exponentials as in softmax_step.
template <int kN, class Gate>
__device__ __forceinline__ Stale softmax_stale(float (&s)[kN / 2], float (&m)[2], float (&l)[2], float (&corr)[2],
                                               float scale_log2, const Gate& gate) {
  constexpr int kPairs = kN / 8;
  auto at = [](int r, int j) { return 4 * (j / 2) + 2 * r + (j % 2); };
  float sums[2], base[2];
  gate.begin();
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    base[r] = m[r] == -INFINITY ? 0.f : m[r] * scale_log2;
    float sum = 0.f;
#pragma unroll
    for (int j = 0; j < 2 * kPairs; ++j) {
      const float v = exp2_approx(fmaf(s[at(r, j)], scale_log2, -base[r]));
      s[at(r, j)] = v;
      sum += v;
    }
    sums[r] = sum;
  }
  gate.end();
  const bool holds = sums[0] <= 255.f && sums[1] <= 255.f && m[0] != -INFINITY && m[1] != -INFINITY;
  if (__all_sync(0xffffffffu, holds)) {
#pragma unroll
    for (int r = 0; r < 2; ++r) {
      corr[r] = 1.f;
      l[r] += sums[r];
    }
    return Stale::kKept;
  }
  float pmax[2];
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    float mx = 0.f;
#pragma unroll
    for (int j = 0; j < 2 * kPairs; ++j) mx = fmaxf(mx, s[at(r, j)]);
    mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 1));
    pmax[r] = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 2));
  }
  // fmaxf passes over NaN, so a row of NaN alone leaves its max NaN; inf fails the test too
  const bool overflow = !(pmax[0] <= 3.0e38f) || !(pmax[1] <= 3.0e38f);
  if (__any_sync(0xffffffffu, overflow)) return Stale::kRetake;
  bool rescaled = false;
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    float c = 1.f;
    if (pmax[r] > 256.f || (m[r] == -INFINITY && pmax[r] > 0.f)) {
      // pmax in [2^e, 2^(e+1)); 2^-e stays a normal number (e <= 126)
      const int e = min(126, static_cast<int>((__float_as_uint(pmax[r]) >> 23) & 0xffu) - 127);
      c = __uint_as_float(static_cast<uint32_t>(127 - e) << 23);
#pragma unroll
      for (int j = 0; j < 2 * kPairs; ++j) s[at(r, j)] *= c;
      m[r] = __fdividef(base[r] + static_cast<float>(e), scale_log2);
      rescaled = true;
    }
    corr[r] = c;
    l[r] = (l[r] + sums[r]) * c;
  }
  return __any_sync(0xffffffffu, rescaled) ? Stale::kRescaled : Stale::kKept;
}

template <int kD>
__device__ __forceinline__ void rescale_o(float (&o)[kD / 2], const float (&corr)[2]) {
#pragma unroll
  for (int i = 0; i < kD / 8; ++i) {
    o[4 * i + 0] *= corr[0];
    o[4 * i + 1] *= corr[0];
    o[4 * i + 2] *= corr[1];
    o[4 * i + 3] *= corr[1];
  }
}

/// Converts P (fp32 accumulator layout) into wgmma A-operand fragments: for key step kk, the four
/// registers 4kk..4kk+3 are exactly (row g, k 2t..), (row g+8, k 2t..), (row g, k 8+2t..),
/// (row g+8, k 8+2t..), which is accumulator pairs 8kk+0/1, +2/3, +4/5, +6/7.
/// With kLiveN < kN, P from column kLiveN on is zero (softmax_step's live columns).
template <int kN, bool kBf16, int kLiveN = kN>
__device__ __forceinline__ void convert_p(const float (&s)[kN / 2], uint32_t (&pf)[kN / 4]) {
#pragma unroll
  for (int j = 0; j < kN / 4; ++j) pf[j] = j < kLiveN / 4 ? pack2<kBf16>(s[2 * j], s[2 * j + 1]) : 0u;
}

/// convert_p for row r of this thread's two (v37): pairs 8kk+2r, 8kk+2r+1 and 8kk+4+2r, 8kk+5+2r.
template <int kN, bool kBf16>
__device__ __forceinline__ void convert_p_row(const float (&s)[kN / 2], uint32_t (&pf)[kN / 4], int r) {
#pragma unroll
  for (int i = 0; i < kN / 8; ++i) pf[2 * i + r] = pack2<kBf16>(s[4 * i + 2 * r], s[4 * i + 2 * r + 1]);
}

/// S = Q K^T for this warpgroup's 64 rows against one key tile.
/// With kN < kBlockN, over the tile's first kN keys only.
template <class C, int kN = C::kBlockN>
__device__ __forceinline__ void gemm_qk(float (&s)[kN / 2], uint32_t sq_rows, uint32_t sk_stage) {
#pragma unroll
  for (int kk = 0; kk < C::D / 16; ++kk) {
    const uint32_t chunk = kk / 4, within = (kk % 4) * 32;
    const uint64_t da = smem_desc(sq_rows + chunk * (C::kBlockM * 128) + within, 16, 1024);
    const uint64_t db = smem_desc(sk_stage + chunk * (C::kBlockN * 128) + within, 16, 1024);
    WgmmaSS<kN>::template run<C::kBf16>(s, da, db, kk > 0 ? 1 : 0);
  }
}

/// S = Q K^T for this warp's 16 rows against one key tile, by mma.sync from the shared-memory tiles
/// gemm_qk reads (v28's rare path: softmax_stale's kRetake). One m16n8k16 accumulator per 8 keys
/// has the wgmma accumulator's layout for this warp's rows, so `s` comes out as gemm_qk leaves it.
template <class C>
__device__ __forceinline__ void gemm_qk_warp(float (&s)[C::kBlockN / 2], uint32_t sq_rows, uint32_t sk_stage) {
  // Tiles stored as 64-column chunks of 128-byte rows, 128-byte swizzled (the TMA box's layout;
  // bases 1024-byte aligned): the 16-byte unit u of row r sits at unit u ^ (r % 8). Every row
  // address a lane gives below has r % 8 == lane % 8.
  // (read here, not hoisted out of the caller's loop: this path is rare, and registers are not)
  uint32_t tid;
  asm volatile("mov.u32 %0, %%tid.x;\n" : "=r"(tid));
  const uint32_t lane = tid % 32, warp_wg = (tid % 128) / 32, r8 = lane % 8;
  const uint32_t q_row = sq_rows + (16 * warp_wg + r8 + 8 * ((lane / 8) % 2)) * 128;  // A: lanes 8-15, 24-31 rows 8-15
  const uint32_t k_row = sk_stage + r8 * 128;
#pragma unroll
  for (int i = 0; i < C::kBlockN / 2; ++i) s[i] = 0.f;
#pragma unroll 1
  for (uint32_t kk = 0; kk < C::D / 16; ++kk) {
    const uint32_t unit = 2 * (kk % 4);  // columns 16kk..16kk+15 are units unit, unit + 1 of chunk kk / 4
    uint32_t a[4];
    ldmatrix_x4(a, q_row + (kk / 4) * (C::kBlockM * 128) + (((unit + lane / 16) ^ r8) * 16));
    const uint32_t k_at = k_row + (kk / 4) * (C::kBlockN * 128) + (((unit + (lane / 8) % 2) ^ r8) * 16);
#pragma unroll
    for (int nb = 0; nb < C::kBlockN / 8; ++nb) {
      uint32_t b[2];
      ldmatrix_x2(b, k_at + nb * 8 * 128);
      mma_16816<C::kBf16>(&s[4 * nb], a, b[0], b[1]);
    }
  }
}

// Diagnostic switch for the first device runs: exchanges the two strides of the V descriptor.
#ifndef HOPPER_V_SWAP_STRIDES
#define HOPPER_V_SWAP_STRIDES 0
#endif

/// O += P V for one key tile (V tile MN-major: 64-column chunks kBlockN*128 bytes apart); with
/// kKeys < kBlockN over the key steps that hold the first kKeys keys only (P is zero past them).
template <class C, int kKeys = C::kBlockN>
__device__ __forceinline__ void gemm_pv(float (&o)[C::D / 2], const uint32_t (&pf)[C::kBlockN / 4],
                                        uint32_t sv_stage) {
#pragma unroll
  for (int kk = 0; kk < (kKeys + 15) / 16; ++kk) {
    const uint32_t a[4] = {pf[4 * kk], pf[4 * kk + 1], pf[4 * kk + 2], pf[4 * kk + 3]};
    // MN-major, 128B swizzle: "leading" = from one 64-column chunk to the next, "stride" = from
    // one group of 8 key rows to the next (PTX ISA, canonical layouts).
    const uint64_t db = HOPPER_V_SWAP_STRIDES ? smem_desc(sv_stage + kk * 16 * 128, 1024, C::kBlockN * 128)
                                              : smem_desc(sv_stage + kk * 16 * 128, C::kBlockN * 128, 1024);
    WgmmaRS<C::D>::template run<C::kBf16>(o, a, db, 1);
  }
}

/// One warp's hand-back of a stage: after its wgmma reads are complete, lane 0 arrives.
__device__ __forceinline__ void release(uint32_t bar) {
  __syncwarp();
  if ((threadIdx.x & 31) == 0) mbar_arrive(bar);
}


/// Number of key tiles a query tile starting at row m0 must visit (0 when no key is visible):
/// keys [0, key_end) are visible to some row of the tile.
template <class C>
__device__ __forceinline__ int key_blocks(int m0, const Params& p) {
  const int shift = p.seqlen_kv - p.seqlen_q;
  const int key_end = p.causal ? min(p.seqlen_kv, m0 + C::kBlockM + shift) : p.seqlen_kv;
  return key_end > 0 ? (key_end + C::kBlockN - 1) / C::kBlockN : 0;
}

/// The K/V stage ring in shared memory: kStages K tiles, kStages V tiles, and 4 x kStages
/// mbarriers from `bars` (full K, full V, empty K, empty V). Both kernels number ring positions
/// the same way: position i is stage i % kStages in phase (i / kStages) & 1.
template <class C>
struct KVRing {
  uint32_t sK, sV, bars;
  __device__ __forceinline__ uint32_t k(int stage) const { return sK + stage * C::kKVBytes; }
  __device__ __forceinline__ uint32_t v(int stage) const { return sV + stage * C::kKVBytes; }
  __device__ __forceinline__ uint32_t full_k(int stage) const { return bars + 8u * stage; }
  __device__ __forceinline__ uint32_t full_v(int stage) const { return bars + 8u * (C::kStages + stage); }
  __device__ __forceinline__ uint32_t empty_k(int stage) const { return bars + 8u * (2 * C::kStages + stage); }
  __device__ __forceinline__ uint32_t empty_v(int stage) const { return bars + 8u * (3 * C::kStages + stage); }
  static __device__ __forceinline__ int stage_of(int position) { return position % C::kStages; }
  static __device__ __forceinline__ uint32_t phase_of(int position) {
    return static_cast<uint32_t>((position / C::kStages) & 1);
  }
  /// One thread: full barriers take the producer's arrival, empty ones one per consumer warp.
  __device__ __forceinline__ void init() const {
#pragma unroll
    for (int s = 0; s < C::kStages; ++s) {
      mbar_init(full_k(s), 1);
      mbar_init(full_v(s), 1);
      mbar_init(empty_k(s), C::kWGs * 4);
      mbar_init(empty_v(s), C::kWGs * 4);
    }
  }
};

/// Producer (its one elected thread): the n_blocks K and V tiles of one query tile, last key tile
/// first, into ring positions kv_iter, kv_iter + 1, ...
template <class C>
__device__ __forceinline__ void load_kv_tiles(const KVRing<C>& ring, const CUtensorMap* tm_k, const CUtensorMap* tm_v,
                                              int n_blocks, int kv_iter, int h_kv, int b) {
  for (int it = 0; it < n_blocks; ++it) {
    const int n = n_blocks - 1 - it;
    const int stage = KVRing<C>::stage_of(kv_iter + it);
    const uint32_t phase = KVRing<C>::phase_of(kv_iter + it);
    mbar_wait(ring.empty_k(stage), phase ^ 1);
    mbar_arrive_expect_tx(ring.full_k(stage), C::kKVBytes);
#pragma unroll
    for (int c = 0; c < C::kChunks; ++c)
      tma_load_4d(ring.k(stage) + c * C::kBlockN * 128, tm_k, ring.full_k(stage), 64 * c, h_kv, n * C::kBlockN, b);
    mbar_wait(ring.empty_v(stage), phase ^ 1);
    mbar_arrive_expect_tx(ring.full_v(stage), C::kKVBytes);
#pragma unroll
    for (int c = 0; c < C::kChunks; ++c)
      tma_load_4d(ring.v(stage) + c * C::kBlockN * 128, tm_v, ring.full_v(stage), 64 * c, h_kv, n * C::kBlockN, b);
  }
}

/// One consumer warpgroup's pass over a query tile's n_blocks >= 1 key tiles (ring positions
/// kv_iter .. kv_iter + n_blocks - 1): accumulates unnormalised O and the row sums l (both zeroed
/// by the caller). Q must have landed. With kPersistentTile (the persistent kernel's tiles), each
/// warp arrives on `empty_q` after its last S GEMM (Q is then reloaded for the next tile), and the
/// GEMM-issue turns run on from one tile to the next: the last warpgroup's last turn opens the
/// first warpgroup's next one, so a warpgroup's epilogue hides under the others' GEMMs (the caller
/// opens the very first turn and closes the last one).
template <class C, bool kPersistentTile>
__device__ __forceinline__ void attend_tile(float (&o)[C::D / 2], float (&l)[2], const KVRing<C>& ring,
                                            uint32_t sq_rows, int n_blocks, int kv_iter, int m0, int cw,
                                            uint32_t empty_q, const Params& p) {
  const int tid_wg = threadIdx.x % 128;
  const int warp_wg = tid_wg / 32;
  const int lane = threadIdx.x % 32;
  const int g = lane / 4, t4 = lane % 4;
  const int row_a = m0 + 64 * cw + 16 * warp_wg + g;  // global query rows this thread holds
  const int row_b = row_a + 8;
  const int shift = p.seqlen_kv - p.seqlen_q;
  float m[2] = {-INFINITY, -INFINITY}, corr[2];
  float s[C::kBlockN / 2];
  uint32_t pf[C::kBlockN / 4];

  // Key tiles at or after this index need the causal mask (for the lowest row of the CTA tile).
  const int first_causal_block = p.causal ? max(0, m0 + shift + 1) / C::kBlockN : n_blocks;
  auto needs_mask = [&](int n) { return n >= first_causal_block || (n + 1) * C::kBlockN > p.seqlen_kv; };
  auto stage_of = [&](int it) { return KVRing<C>::stage_of(kv_iter + it); };
  auto phase_of = [&](int it) { return KVRing<C>::phase_of(kv_iter + it); };

  // Round robin of GEMM issue turns: wait on my barrier, then open the next warpgroup's (with two
  // warpgroups, v1's ping-pong).
  const int my_turn = kBarTurn0 + cw, next_turn = kBarTurn0 + (cw + 1) % C::kWGs;
  auto turn_begin = [&]() {
    if constexpr (C::kPingPong) named_sync(my_turn, 256);
  };
  auto turn_end = [&](bool last) {
    if constexpr (C::kPingPong) {
      if (kPersistentTile || !(last && cw == C::kWGs - 1)) named_arrive(next_turn, 256);
    }
  };
  auto release_q = [&]() {
    if constexpr (kPersistentTile) release(empty_q);
  };
  // The exponential token (C::kExpToken): taken before a softmax's exponentials, passed on after.
  // Like the GEMM turns it runs on from one tile to the next in the persistent kernel; in the
  // per-tile kernel the last warpgroup's last pass goes to nobody.
  struct ExpGate {
    int mine, next;
    bool to_nobody;
    __device__ __forceinline__ void begin() const {
      if constexpr (C::kExpToken) named_sync(mine, 256);
    }
    __device__ __forceinline__ void end() const {
      if constexpr (C::kExpToken) {
        if (!to_nobody) named_arrive(next, 256);
      }
    }
  };
  auto exp_gate = [&](bool last) {
    return ExpGate{kBarExp0 + cw, kBarExp0 + (cw + 1) % C::kWGs,
                   !kPersistentTile && last && cw == C::kWGs - 1};
  };
  if constexpr (C::kExpToken && !kPersistentTile) {
    if (cw == C::kWGs - 1) named_arrive(kBarExp0, 256);  // warpgroup 0's exponentials go first
  }

  if constexpr (C::kPingPong && !kPersistentTile) {
    if (cw == C::kWGs - 1) named_arrive(next_turn, 256);  // warpgroup 0 goes first
  }
  // A warpgroup none of whose rows exists (the last query tile of a 192-row tiling holds 11% of
  // the rows at s512 and s1024) passes its turns at once and hands its stages back in the order of
  // the GEMM path below; O and l stay zero and the epilogue writes nothing. D19: +4.4% s512 and
  // s1024 d64, +1.7-2.8% s2048/s4096 d64. Three-warpgroup instances only: compiled into the
  // two-warpgroup ones, where the dispatch never leaves a warpgroup empty on the grid, the branch
  // cost 2-3.5% on long d256 (the rows past seqlen_q are then computed and dropped, as before).
  if (C::kWGs > 2 && m0 + 64 * cw >= p.seqlen_q) {
    mbar_wait(ring.full_k(stage_of(0)), phase_of(0));
    turn_begin();
    turn_end(false);
    exp_gate(n_blocks == 1).begin();
    exp_gate(n_blocks == 1).end();
    release(ring.empty_k(stage_of(0)));
    if (n_blocks == 1) release_q();
    for (int it = 1; it < n_blocks; ++it) {
      mbar_wait(ring.full_k(stage_of(it)), phase_of(it));
      mbar_wait(ring.full_v(stage_of(it - 1)), phase_of(it - 1));
      turn_begin();
      turn_end(false);
      exp_gate(it == n_blocks - 1).begin();
      exp_gate(it == n_blocks - 1).end();
      release(ring.empty_k(stage_of(it)));
      if (it == n_blocks - 1) release_q();
      release(ring.empty_v(stage_of(it - 1)));
    }
    mbar_wait(ring.full_v(stage_of(n_blocks - 1)), phase_of(n_blocks - 1));
    turn_begin();
    turn_end(true);
    release(ring.empty_v(stage_of(n_blocks - 1)));
    return;
  }
  // Causal: the first key tile of the order (the highest) can lie wholly above every row of this
  // warpgroup while the CTA tile's lower rows need it (warpgroup 0 against d256's 80-key tiles,
  // warpgroups 0 and 1 of d64's 192-row tiles). Its S and P V are then all masked: the warpgroup
  // passes the tile's turn at once, hands its stages back, and goes on as if the tile had one key
  // tile fewer (v23, C::kCausalSkip). The last key tile is always computed (a warpgroup without
  // any visible key then leaves zeros, as before). Done here, not in the loops below: D37's first
  // version started them at the skip, and non-causal d128 and long d64 lost 1.5-3%.
  if constexpr (C::kCausalSkip) {
    // At most the key tiles between this warpgroup's last row and the tile's last row.
    constexpr int kMaxCausalSkip = (64 * (C::kWGs - 1) + C::kBlockN - 1) / C::kBlockN;
    if (p.causal) {
      const int last_key = m0 + 64 * cw + 63 + shift;  // the last key this warpgroup's lowest row sees
      const int visible = last_key < 0 ? -1 : last_key / C::kBlockN;
      const int skip = min(max(n_blocks - 1 - visible, 0), min(n_blocks - 1, kMaxCausalSkip));
#pragma unroll
      for (int it = 0; it < kMaxCausalSkip; ++it) {
        if (it < skip) {
          mbar_wait(ring.full_k(stage_of(it)), phase_of(it));
          turn_begin();
          turn_end(false);
          exp_gate(false).begin();  // (never the tile's last key tile)
          exp_gate(false).end();
          release(ring.empty_k(stage_of(it)));
          mbar_wait(ring.full_v(stage_of(it)), phase_of(it));
          release(ring.empty_v(stage_of(it)));
        }
      }
      kv_iter += skip;  // stage_of and phase_of read it
      n_blocks -= skip;
    }
  }
  // ---- first key tile: S, softmax ----
  int n = n_blocks - 1;
  // Keys of this tile that some row of this warpgroup sees (its last row's causal limit).
  const int live_keys = (p.causal ? min(p.seqlen_kv, m0 + 64 * cw + 64 + shift) : p.seqlen_kv) - n * C::kBlockN;
  const bool live_half = C::kLiveHalf && live_keys <= C::kBlockN / 2;
  constexpr int kHalf = C::kBlockN / 2;
  mbar_wait(ring.full_k(stage_of(0)), phase_of(0));
  turn_begin();
  if (C::kLiveHalfGemms && live_half) {
    // Into registers of its own, copied after the wait (D40: a narrower wgmma into part of the
    // tile's accumulator made ptxas serialise every wgmma of the kernel).
    float h[kHalf / 2];
#pragma unroll
    for (int i = 0; i < kHalf / 2; ++i) h[i] = 0.f;
    wgmma_fence();
    gemm_qk<C, kHalf>(h, sq_rows, ring.k(stage_of(0)));
    wgmma_commit();
    turn_end(false);
    wgmma_wait<0>();
    pin(h);
#pragma unroll
    for (int i = 0; i < C::kBlockN / 2; ++i) s[i] = i < kHalf / 2 ? h[i] : -INFINITY;
  } else {
    wgmma_fence();
    gemm_qk<C>(s, sq_rows, ring.k(stage_of(0)));
    wgmma_commit();
    turn_end(false);
    wgmma_wait<0>();
    pin(s);
  }
  release(ring.empty_k(stage_of(0)));
  if (n_blocks == 1) release_q();  // last S GEMM
  if (live_half) {
    apply_mask<C::kBlockN>(s, n * C::kBlockN + 2 * t4, row_a, row_b, p);
    softmax_step<C::kBlockN, true, C::kSoftmaxChains, C::kLazyRescale, kHalf>(s, m, l, corr, p.scale_log2,
                                                                              exp_gate(n_blocks == 1));
    convert_p<C::kBlockN, C::kBf16, kHalf>(s, pf);
  } else {
    if (needs_mask(n)) apply_mask<C::kBlockN>(s, n * C::kBlockN + 2 * t4, row_a, row_b, p);
    softmax_step<C::kBlockN, true, C::kSoftmaxChains, C::kLazyRescale>(s, m, l, corr, p.scale_log2,
                                                                       exp_gate(n_blocks == 1));
    convert_p<C::kBlockN, C::kBf16>(s, pf);
  }
  HOPPER_PHASE(2, kv_iter, cw, n_blocks);

  bool stale_ok = true;  // this warp still takes softmax_stale (Config::kStaleMax; uniform in the warp)
  for (int it = 1; it < n_blocks; ++it) {
    n = n_blocks - 1 - it;
    const int stage = stage_of(it), prev = stage_of(it - 1);
    const uint32_t phase = phase_of(it), prev_phase = phase_of(it - 1);
    if constexpr (C::kOverlap) {
      mbar_wait(ring.full_k(stage), phase);
      mbar_wait(ring.full_v(prev), prev_phase);
      turn_begin();
      wgmma_fence();
      gemm_qk<C>(s, sq_rows, ring.k(stage));
      wgmma_commit();
      if (C::kLiveHalfGemms && it == 1 && live_half)
        gemm_pv<C, kHalf>(o, pf, ring.v(prev));
      else
        gemm_pv<C>(o, pf, ring.v(prev));
      wgmma_commit();
      turn_end(false);
      wgmma_wait<1>();
      pin(s);
      // v28: a warp that may take S again holds its K (and, on the last key tile, Q) until its
      // softmax is done
      const bool stale = C::kStaleMax && stale_ok;
      if (!stale) {
        release(ring.empty_k(stage));
        if (it == n_blocks - 1) release_q();
      }
      if (needs_mask(n)) apply_mask<C::kBlockN>(s, n * C::kBlockN + 2 * t4, row_a, row_b, p);
      bool rescale;
      if (stale) {
        const Stale verdict = softmax_stale<C::kBlockN>(s, m, l, corr, p.scale_log2, exp_gate(it == n_blocks - 1));
        rescale = verdict == Stale::kRescaled;
        // A warp whose rows grow (outlier scores: D89) goes back to softmax_step for the rest of the
        // query tile, and so takes S again at most once a tile
        if (HOPPER_STALE_SWITCH != 0 && verdict != Stale::kKept) stale_ok = false;
        if (verdict != Stale::kRetake) {
          release(ring.empty_k(stage));
          if (it == n_blocks - 1) release_q();
        }
        // (P V waited for first on the rare path too: pf's registers then hold the mma.sync's operands)
        wgmma_wait<0>();
        pin(o);
        pin(pf);
        if (verdict == Stale::kRetake) {
          gemm_qk_warp<C>(s, sq_rows, ring.k(stage));
          release(ring.empty_k(stage));
          if (it == n_blocks - 1) release_q();
          if (needs_mask(n)) apply_mask<C::kBlockN>(s, n * C::kBlockN + 2 * t4, row_a, row_b, p);
          rescale = softmax_step<C::kBlockN, false, C::kSoftmaxChains, C::kLazyRescale>(s, m, l, corr, p.scale_log2,
                                                                                        NoGate{});
        }
      } else if constexpr (C::kEarlyConvert) {
        // v37: the previous P V waited for after the first row's exponentials, then each row's P
        // converted as soon as it is done (convert_p after the softmax held every conversion, at
        // half rate, on the warpgroup's critical path: D105, +1.1..+2.5% d128 from s1024)
        rescale = softmax_step<C::kBlockN, false, C::kSoftmaxChains, C::kLazyRescale>(
            s, m, l, corr, p.scale_log2, exp_gate(it == n_blocks - 1), [&](int r) {
              if (r == 0) {
                wgmma_wait<0>();
                pin(o);
                pin(pf);
              }
              convert_p_row<C::kBlockN, C::kBf16>(s, pf, r);
            });
      } else {
        rescale = softmax_step<C::kBlockN, false, C::kSoftmaxChains, C::kLazyRescale>(
            s, m, l, corr, p.scale_log2, exp_gate(it == n_blocks - 1));
        wgmma_wait<0>();
        pin(o);
        pin(pf);
      }
      release(ring.empty_v(prev));
      if (rescale) rescale_o<C::D>(o, corr);
      if constexpr (!C::kEarlyConvert) convert_p<C::kBlockN, C::kBf16>(s, pf);
    } else {
      // P V of the previous tile, then S of this one, each waited for before the next step.
      mbar_wait(ring.full_v(prev), prev_phase);
      turn_begin();
      wgmma_fence();
      if (C::kLiveHalfGemms && it == 1 && live_half)
        gemm_pv<C, kHalf>(o, pf, ring.v(prev));
      else
        gemm_pv<C>(o, pf, ring.v(prev));
      wgmma_commit();
      wgmma_wait<0>();
      pin(o);
      pin(pf);
      release(ring.empty_v(prev));
      mbar_wait(ring.full_k(stage), phase);
      wgmma_fence();
      gemm_qk<C>(s, sq_rows, ring.k(stage));
      wgmma_commit();
      turn_end(false);
      wgmma_wait<0>();
      pin(s);
      release(ring.empty_k(stage));
      if (it == n_blocks - 1) release_q();
      if (needs_mask(n)) apply_mask<C::kBlockN>(s, n * C::kBlockN + 2 * t4, row_a, row_b, p);
      if (softmax_step<C::kBlockN, false, C::kSoftmaxChains, C::kLazyRescale>(s, m, l, corr, p.scale_log2,
                                                                              exp_gate(it == n_blocks - 1)))
        rescale_o<C::D>(o, corr);
      convert_p<C::kBlockN, C::kBf16>(s, pf);
    }
  }
  // ---- last P V ----
  HOPPER_PHASE(3, kv_iter, cw, n_blocks);
  const int last = stage_of(n_blocks - 1);
  mbar_wait(ring.full_v(last), phase_of(n_blocks - 1));
  turn_begin();
  wgmma_fence();
  if (C::kLiveHalfGemms && n_blocks == 1 && live_half)
    gemm_pv<C, kHalf>(o, pf, ring.v(last));
  else
    gemm_pv<C>(o, pf, ring.v(last));
  wgmma_commit();
  turn_end(true);
  wgmma_wait<0>();
  pin(o);
  release(ring.empty_v(last));
  HOPPER_PHASE(4, kv_iter, cw, n_blocks);
}

/// 1 / (row sum) for this thread's two rows, the quad's partial sums added (0 for a row with no
/// visible key: its O is zero).
__device__ __forceinline__ void inverse_row_sums(const float (&l)[2], float (&inv)[2]) {
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    float sum = l[r];
    sum += __shfl_xor_sync(0xffffffffu, sum, 1);
    sum += __shfl_xor_sync(0xffffffffu, sum, 2);
    inv[r] = sum > 0.f ? 1.f / sum : 0.f;
  }
}

/// Epilogue through shared memory: this warpgroup's 64 rows of O / l written into its rows of a
/// swizzled buffer shaped like Q (`stage_base`; a 64-row TMA box has that layout), then stored:
///   * persistent kernel (v11): by one thread with TMA (rows past seqlen_q are not written), and
///     nobody waits for the store; its reads of the buffer are waited for (bulk_wait_read) only
///     before the buffer's next use, or at exit. D15 timed v8's epilogue at 1.4k, 2.3k and 4.1k
///     cycles per tile at d64, d128 and d256; with TMA, D16: d128 2.3k -> 1.0k, +3-6% on d128 up
///     to s2048;
///   * non-persistent kernel: read back as 16-byte units and stored by every thread (v8's), so
///     that the CTA may exit without waiting for a TMA store to read the buffer (with TMA there,
///     D16: -1..-3% on d256 from s2048).
/// The first barrier also waits until every warp of the group is done with the buffer's previous
/// use (the S GEMMs reading Q, or the previous tile's store).
template <class C>
__device__ __forceinline__ void store_o_staged(const float (&o)[C::D / 2], const float (&inv)[2], uint32_t stage_base,
                                               int cw, int m0, int b, int h, const Params& p,
                                               const CUtensorMap* tm_o) {
  const int tid_wg = threadIdx.x % 128;
  const int warp_wg = tid_wg / 32;
  const int lane = threadIdx.x % 32;
  const int g = lane / 4, t4 = lane % 4;
  if (C::kPersistent && tid_wg == 0) bulk_wait_read();
  named_sync(kBarEpilogue0 + cw, 128);
#pragma unroll
  for (int i = 0; i < C::D / 8; ++i) {
    const int col = 8 * i + 2 * t4;
    const uint32_t chunk = col / 64, unit = (col % 64) / 8, byte_in_unit = (col % 8) * 2;
#pragma unroll
    for (int r = 0; r < 2; ++r) {
      const uint32_t row = 64 * cw + 16 * warp_wg + g + 8 * r;  // row inside the CTA tile
      const uint32_t addr =
          stage_base + chunk * (C::kBlockM * 128) + row * 128 + ((unit ^ (row % 8)) * 16) + byte_in_unit;
      const uint32_t v = pack2<C::kBf16>(o[4 * i + 2 * r] * inv[r], o[4 * i + 2 * r + 1] * inv[r]);
      asm volatile("st.shared.b32 [%0], %1;\n" ::"r"(addr), "r"(v) : "memory");
    }
  }
  if constexpr (C::kPersistent) {
    fence_proxy_async();
    named_sync(kBarEpilogue0 + cw, 128);
    if (tid_wg == 0) {
#pragma unroll
      for (int c = 0; c < C::kChunks; ++c)
        tma_store_4d(tm_o, stage_base + c * (C::kBlockM * 128) + 64 * cw * 128, 64 * c, h, m0 + 64 * cw, b);
      bulk_commit();
    }
    return;
  }
  named_sync(kBarEpilogue0 + cw, 128);
  constexpr int kUnitsPerRow = C::D / 8;
  uint16_t* out = static_cast<uint16_t*>(p.o);
  for (int q = tid_wg; q < 64 * kUnitsPerRow; q += 128) {
    const int row_in_wg = q / kUnitsPerRow, u = q % kUnitsPerRow;
    const uint32_t row = 64 * cw + row_in_wg;
    const int grow = m0 + static_cast<int>(row);
    if (grow >= p.seqlen_q) continue;
    const uint32_t addr = stage_base + (u / 8) * (C::kBlockM * 128) + row * 128 + (((u % 8) ^ (row % 8)) * 16);
    uint4 v;
    asm volatile("ld.shared.v4.b32 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                 : "r"(addr)
                 : "memory");
    const size_t offset = ((static_cast<size_t>(b) * p.seqlen_q + grow) * p.heads_q + h) * C::D + u * 8;
    *reinterpret_cast<uint4*>(out + offset) = v;
  }
}

// ============================================================================================
// Kernel 1 (v1): one CTA per query tile, grid (query blocks, heads, batch)
// ============================================================================================

template <class C>
__global__ void __launch_bounds__(C::kThreads, 1)
    attention_fwd_kernel(const __grid_constant__ CUtensorMap tm_q, const __grid_constant__ CUtensorMap tm_k,
                         const __grid_constant__ CUtensorMap tm_v, const __grid_constant__ CUtensorMap tm_o,
                         const Params p) {
  static_assert(!C::kPersistent, "non-persistent layout");
  extern __shared__ __align__(1024) uint8_t smem_raw[];
  const uint32_t base = (smem_addr(smem_raw) + 1023u) & ~1023u;  // 128B swizzle atoms need 1024 alignment
  const uint32_t sQ = base;
  const uint32_t sK = sQ + C::kQBytes;
  const uint32_t sV = sK + C::kStages * C::kKVBytes;
  const uint32_t bars = sV + C::kStages * C::kKVBytes;
  const uint32_t bar_q = bars;
  const KVRing<C> ring{sK, sV, bars + 8u * C::kHeadBarriers};

  const int m_block = p.num_m_blocks - 1 - static_cast<int>(blockIdx.x);  // heaviest (causal) first
  const int h = blockIdx.y, b = blockIdx.z;
  const int m0 = m_block * C::kBlockM;
  const int n_blocks = key_blocks<C>(m0, p);

  const int tid = threadIdx.x;
  const int warp = tid / 32;
  // Read through a shuffle so that the compiler sees a warp-uniform role (setmaxnreg regions).
  const int wg = __shfl_sync(0xffffffffu, warp / 4, 0);

  if (tid == 0) {
    mbar_init(bar_q, 1);
    ring.init();
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
  }
  __syncthreads();

  if (wg == 0) {
    // ---------------- producer ----------------
    regs_decrease<C::kProducerRegs>();
    if (tid == 0) {
      mbar_arrive_expect_tx(bar_q, C::kQBytes);
#pragma unroll
      for (int c = 0; c < C::kChunks; ++c) tma_load_4d(sQ + c * C::kBlockM * 128, &tm_q, bar_q, 64 * c, h, m0, b);
      load_kv_tiles<C>(ring, &tm_k, &tm_v, n_blocks, 0, h / p.group, b);
    }
  } else {
    // ---------------- consumers ----------------
    regs_increase<C::kConsumerRegs>();
    const int cw = wg - 1;                        // consumer warpgroup 0..kWGs-1
    const uint32_t sq_rows = sQ + cw * 64 * 128;  // this warpgroup's 64 rows inside every Q chunk
    float o[C::D / 2];
#pragma unroll
    for (int i = 0; i < C::D / 2; ++i) o[i] = 0.f;
    float l[2] = {0.f, 0.f};
    HOPPER_PHASE(0, 0, cw, n_blocks);
    mbar_wait(bar_q, 0);
    HOPPER_PHASE(1, 0, cw, n_blocks);
    if (n_blocks > 0) attend_tile<C, false>(o, l, ring, sq_rows, n_blocks, 0, m0, cw, 0u, p);
    // ---- epilogue: O / l, staged through this warpgroup's rows of the Q buffer ----
    float inv[2];
    inverse_row_sums(l, inv);
    store_o_staged<C>(o, inv, sQ, cw, m0, b, h, p, &tm_o);
    HOPPER_PHASE(5, 0, cw, n_blocks);
  }
}

// ============================================================================================
// Kernel 2 (v3): persistent, one CTA per SM, query tiles from a dynamic longest-first scheduler
// ============================================================================================

/// The dynamic scheduler's global state: [0] tickets handed out after each CTA's first tile,
/// [1] CTAs that have taken their last ticket. Zero between launches (the last CTA resets both).
/// Internal linkage (anonymous namespace): each build loaded into a process has its own.
__device__ unsigned int g_sched[2];

/// One query tile of a launch: query block, head, batch.
struct Tile {
  int m_block, h, b;
};

/// Decodes tile index `t` (0 .. num_m_blocks * num_bh - 1) into a tile. The dynamic scheduler hands
/// tiles out in index order, so this IS the tile order:
///   * causal: (batch, head) pairs are cut into sections of `section_bh` consecutive pairs (so the
///     K and V being read at one time fit in L2); within a section, the last query block (the most
///     key tiles) of every pair first, then the one before, ...; sections one after another;
///   * non-causal (all tiles cost the same): v2's order, a pair's query blocks consecutive (last
///     first), so tiles running together share that pair's K and V in L2.
/// Plain integers only, host and device: kernels/attention/tools/tile_order_check.cu checks it.
__host__ __device__ __forceinline__ Tile decode_tile_order(int t, int num_m_blocks, int num_bh, int heads_q,
                                                           bool causal, int section_bh) {
  int m_from_last, bh;
  if (!causal) {
    bh = t / num_m_blocks;
    m_from_last = t % num_m_blocks;
  } else {
    const int section_tiles = section_bh * num_m_blocks;
    const int section = t / section_tiles;
    const int first_bh = section * section_bh;
    const int width = num_bh - first_bh < section_bh ? num_bh - first_bh : section_bh;  // last may be narrower
    const int r = t - section * section_tiles;
    m_from_last = r / width;
    bh = first_bh + r % width;
  }
  return Tile{num_m_blocks - 1 - m_from_last, bh % heads_q, bh / heads_q};
}

__device__ __forceinline__ Tile decode_tile(int t, const Params& p) {
  return decode_tile_order(t, p.num_m_blocks, p.num_bh, p.heads_q, p.causal != 0, p.section_bh);
}

/// K+V bytes an L2 section of the causal order covers (HOPPER_L2_SECTION_BYTES, or by shape): 8 MB
/// per 512 keys, twice that at d256, from 8 to 32 MB. D122 (runs/d122, v42's 16 MB against 8 MB,
/// 32 MB and one section, on the 18 causal grid shapes): at each of the 14 persistent causal shapes
/// the best of the three sizes is this rule's, +1.0..+5.4% over 16 MB (causal s512 d128 +4.4% at 8 MB,
/// causal s1024/s2048 d256 +3.4/+5.4% at 32 MB); one section lost 7.4% (K and V of a pair are
/// then read once per query block, far apart). Smaller sections keep a pair's K and V in L2
/// between its query blocks; larger ones mix long and short tiles over more of the GPU.
inline long long l2_section_budget(int seqlen_kv, int head_dim) {
  if (HOPPER_L2_SECTION_BYTES >= 0) return HOPPER_L2_SECTION_BYTES;
  const long long per_512_keys = (head_dim >= 256 ? 16ll : 8ll) << 20;
  const long long budget = per_512_keys * ((static_cast<long long>(seqlen_kv) + 511) / 512);
  return budget < (8ll << 20) ? (8ll << 20) : budget > (32ll << 20) ? (32ll << 20) : budget;
}

/// (batch, head) pairs per L2 section: as many as have their K and V within `budget_bytes`
/// (at least one; 0 = all pairs in one section).
inline int l2_section_pairs(long long budget_bytes, int seqlen_kv, int head_dim, int num_bh) {
  if (budget_bytes <= 0) return num_bh;
  const long long kv_bytes_per_pair = 2ll * seqlen_kv * head_dim * 2;  // K and V, 2-byte elements
  long long pairs = kv_bytes_per_pair > 0 ? budget_bytes / kv_bytes_per_pair : num_bh;
  if (pairs < 1) pairs = 1;
  return pairs > num_bh ? num_bh : static_cast<int>(pairs);
}

template <class C>
__global__ void __launch_bounds__(C::kThreads, 1)
    attention_fwd_persistent_kernel(const __grid_constant__ CUtensorMap tm_q, const __grid_constant__ CUtensorMap tm_k,
                                    const __grid_constant__ CUtensorMap tm_v,
                                    const __grid_constant__ CUtensorMap tm_o, const Params p) {
  static_assert(C::kPersistent, "persistent layout");
  extern __shared__ __align__(1024) uint8_t smem_raw[];
  const uint32_t base = (smem_addr(smem_raw) + 1023u) & ~1023u;  // 128B swizzle atoms need 1024 alignment
  const uint32_t sQ = base;
  const uint32_t sK = sQ + C::kQBytes;
  const uint32_t sV = sK + C::kStages * C::kKVBytes;
  const uint32_t sO = sV + C::kStages * C::kKVBytes;  // the epilogue's own buffer (when it has one)
  const uint32_t bars = sO + (C::kOwnOBuffer ? C::kOBytes : 0);
  const uint32_t full_q = bars, empty_q = bars + 8;
  auto full_tile = [&](int slot) { return bars + 8u * (2 + slot); };
  auto empty_tile = [&](int slot) { return bars + 8u * (4 + slot); };
  const KVRing<C> ring{sK, sV, bars + 8u * C::kHeadBarriers};
  // Tile-ring slots: 16 bytes each (16-aligned: the barriers before them are an even number).
  auto ring_slot = [&](int slot) { return bars + 8u * (C::kHeadBarriers + 4 * C::kStages) + 16u * slot; };

  const int tid = threadIdx.x;
  const int warp = tid / 32;
  // Read through a shuffle so that the compiler sees a warp-uniform role (setmaxnreg regions).
  const int wg = __shfl_sync(0xffffffffu, warp / 4, 0);

  if (tid == 0) {
    mbar_init(full_q, 1);
    mbar_init(empty_q, C::kWGs * 4);
    for (int slot = 0; slot < 2; ++slot) {
      mbar_init(full_tile(slot), 1);
      mbar_init(empty_tile(slot), C::kWGs * 4);
    }
    ring.init();
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
  }
  __syncthreads();

  // The producer takes tiles from the scheduler and publishes each in the tile ring; both roles
  // then walk the same tiles and count K/V ring positions the same way, so stage indices and
  // mbarrier phases agree without any other exchange.
  if (wg == 0) {
    // ---------------- producer ----------------
    regs_decrease<C::kProducerRegs>();
    if (tid == 0) {
      int kv_iter = 0;
      int t = blockIdx.x;  // first tile without a ticket: the launch covers 0 .. gridDim.x - 1
      for (int local = 0;; ++local) {
        // Publish this tile decoded (query block, head, batch, key tiles), or a query block of -1
        // (no more), to the consumers through ring slot local % 2: the divisions of the decoding
        // stay off the consumers' path from one tile to the next (v15, D21: +9% causal s512 d64,
        // +7% causal s1024 d64, +3% s512/s1024 d64; v13 published the index).
        const int slot = local & 1;
        const bool more = t < p.num_tiles;
        const Tile tile = more ? decode_tile(t, p) : Tile{-1, 0, 0};
        const int m0 = tile.m_block * C::kBlockM;
        const int n_blocks = more ? key_blocks<C>(m0, p) : 0;
        mbar_wait(empty_tile(slot), ((local >> 1) & 1) ^ 1);
        asm volatile("st.shared.v4.b32 [%0], {%1, %2, %3, %4};\n" ::"r"(ring_slot(slot)), "r"(tile.m_block),
                     "r"(tile.h), "r"(tile.b), "r"(n_blocks)
                     : "memory");
        mbar_arrive(full_tile(slot));  // release: the store above is visible to whoever waits on it
        if (!more) break;
        // Q may be overwritten once every consumer warp is done with the previous tile's S GEMMs.
        mbar_wait(empty_q, (local & 1) ^ 1);
        mbar_arrive_expect_tx(full_q, C::kQBytes);
#pragma unroll
        for (int c = 0; c < C::kChunks; ++c)
          tma_load_4d(sQ + c * C::kBlockM * 128, &tm_q, full_q, 64 * c, tile.h, m0, tile.b);
        // Next ticket now: its latency hides under this tile's K/V issue loop.
        const int next = static_cast<int>(gridDim.x + atomicAdd(&g_sched[0], 1u));
        load_kv_tiles<C>(ring, &tm_k, &tm_v, n_blocks, kv_iter, tile.h / p.group, tile.b);
        kv_iter += n_blocks;
        t = next;
      }
      // This CTA has taken its last ticket. The fence orders its ticket atomics before the count;
      // the CTA that completes the count is the last user of the counters in this launch and
      // resets them, so the next launch on the stream (kernel boundaries order it) starts at zero.
      __threadfence();
      if (atomicAdd(&g_sched[1], 1u) == gridDim.x - 1) {
        __threadfence();
        atomicExch(&g_sched[0], 0u);
        atomicExch(&g_sched[1], 0u);
      }
    }
  } else {
    // ---------------- consumers ----------------
    regs_increase<C::kConsumerRegs>();
    const int cw = wg - 1;  // consumer warpgroup 0..kWGs-1
    const int tid_wg = tid % 128;
    const int warp_wg = tid_wg / 32;
    const int g = (tid % 32) / 4, t4 = tid % 4;
    const uint32_t sq_rows = sQ + cw * 64 * 128;  // this warpgroup's 64 rows inside every Q chunk

    // GEMM-issue turns chain across this CTA's tiles (attend_tile): open warpgroup 0's first turn
    // here, and close its turn after the last tile, when the last warpgroup's final arrival (or
    // this opening, if there was no tile) is still pending on it.
    if constexpr (C::kPingPong) {
      if (cw == C::kWGs - 1) named_arrive(kBarTurn0, 256);
    }
    if constexpr (C::kExpToken) {
      if (cw == C::kWGs - 1) named_arrive(kBarExp0, 256);
    }
    int kv_iter = 0;  // K/V ring positions consumed so far by this CTA, across its query tiles
    for (int local = 0;; ++local) {
      const int slot = local & 1;
      mbar_wait(full_tile(slot), (local >> 1) & 1);
      Tile tile;
      int n_blocks;
      asm volatile("ld.shared.v4.b32 {%0, %1, %2, %3}, [%4];\n"
                   : "=r"(tile.m_block), "=r"(tile.h), "=r"(tile.b), "=r"(n_blocks)
                   : "r"(ring_slot(slot))
                   : "memory");
      release(empty_tile(slot));
      if (tile.m_block < 0) {
        if constexpr (C::kPingPong) {
          if (cw == 0) named_sync(kBarTurn0, 256);
        }
        if constexpr (C::kExpToken) {
          if (cw == 0) named_sync(kBarExp0, 256);
        }
        if (C::kOwnOBuffer && tid_wg == 0) bulk_wait_read();  // the last store reads shared memory
        break;
      }
      const int m0 = tile.m_block * C::kBlockM;

      float o[C::D / 2];
#pragma unroll
      for (int i = 0; i < C::D / 2; ++i) o[i] = 0.f;
      float l[2] = {0.f, 0.f};
      HOPPER_PHASE(0, kv_iter, cw, n_blocks);
      mbar_wait(full_q, local & 1);
      HOPPER_PHASE(1, kv_iter, cw, n_blocks);
      if (n_blocks > 0) {
        attend_tile<C, true>(o, l, ring, sq_rows, n_blocks, kv_iter, m0, cw, empty_q, p);
      } else {
        release(empty_q);  // no key visible: the tile is all zeros and never read Q
      }
      kv_iter += n_blocks;

      // ---- epilogue: O / l ----
      float inv[2];
      inverse_row_sums(l, inv);
      if constexpr (C::kOwnOBuffer) {
        store_o_staged<C>(o, inv, sO, cw, m0, tile.b, tile.h, p, &tm_o);
      } else {
        // Straight from registers, 16 bytes per store: the four threads of a quad hold 2 columns
        // each of every 8-column group of their rows; a 4 x 4 exchange inside the quad gives
        // thread t4 all 8 columns of group 4j + t4 (v2 stored the 4-byte pairs as they were).
        uint16_t* out = static_cast<uint16_t*>(p.o);
        const int row_a = m0 + 64 * cw + 16 * warp_wg + g;
        const bool s1 = (t4 & 1) != 0, s2 = (t4 & 2) != 0;
        const int quad = (tid % 32) & ~3;
#pragma unroll
        for (int r = 0; r < 2; ++r) {
          const int row = row_a + 8 * r;
          const size_t row_offset = ((static_cast<size_t>(tile.b) * p.seqlen_q + row) * p.heads_q + tile.h) * C::D;
#pragma unroll
          for (int j = 0; j < C::D / 32; ++j) {
            uint32_t a[4], x[4], c[4], d[4], e[4], y[4], v[4];
#pragma unroll
            for (int q = 0; q < 4; ++q)
              a[q] = pack2<C::kBf16>(o[4 * (4 * j + q) + 2 * r] * inv[r], o[4 * (4 * j + q) + 2 * r + 1] * inv[r]);
            // c[q] = a[(q + t4) % 4]: what this thread sends in round q
#pragma unroll
            for (int q = 0; q < 4; ++q) x[q] = s1 ? a[(q + 1) & 3] : a[q];
#pragma unroll
            for (int q = 0; q < 4; ++q) c[q] = s2 ? x[(q + 2) & 3] : x[q];
            // round k: from thread (t4 - k) % 4, its part of group 4j + t4
            d[0] = c[0];
#pragma unroll
            for (int k = 1; k < 4; ++k) d[k] = __shfl_sync(0xffffffffu, c[k], quad | ((t4 - k) & 3));
            // v[q] = d[(t4 - q) % 4]: the parts in column order
            e[0] = d[0];
            e[1] = d[3];
            e[2] = d[2];
            e[3] = d[1];
#pragma unroll
            for (int q = 0; q < 4; ++q) y[q] = s1 ? e[(q + 3) & 3] : e[q];
#pragma unroll
            for (int q = 0; q < 4; ++q) v[q] = s2 ? y[(q + 2) & 3] : y[q];
            if (row < p.seqlen_q)
              *reinterpret_cast<uint4*>(out + row_offset + 8 * (4 * j + t4)) = make_uint4(v[0], v[1], v[2], v[3]);
          }
        }
      }
      HOPPER_PHASE(5, kv_iter - n_blocks, cw, n_blocks);
    }
  }
}
// ============================================================================================
// Host side of the fast path
// ============================================================================================

/// SMs of the current device, asked once per device (launches must not pay for the query).
inline int sm_count() {
  static int cached[64] = {};
  int device = 0;
  if (cudaGetDevice(&device) != cudaSuccess || device < 0) return 0;
  if (device >= 64) {
    int sms = 0;
    return cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) == cudaSuccess ? sms : 0;
  }
  if (cached[device] <= 0) {
    int sms = 0;
    if (cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) != cudaSuccess) return 0;
    cached[device] = sms;
  }
  return cached[device];
}

using EncodeTiled = PFN_cuTensorMapEncodeTiled_v12000;

/// cuTensorMapEncodeTiled through the runtime's driver entry point: the candidate links no libcuda.
inline EncodeTiled encode_fn() {
  static EncodeTiled fn = []() -> EncodeTiled {
    void* ptr = nullptr;
    cudaDriverEntryPointQueryResult status{};
    if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &ptr, 12000, cudaEnableDefault, &status) !=
            cudaSuccess ||
        status != cudaDriverEntryPointSuccess)
      return nullptr;
    return reinterpret_cast<EncodeTiled>(ptr);
  }();
  return fn;
}

/// A [batch][seqlen][heads][head_dim] tensor seen as boxes of 64 elements x 1 head x `rows` rows.
inline bool make_map(CUtensorMap* map, const void* ptr, bool bf16, int head_dim, int heads, int seqlen, int batch,
                     int rows) {
  const EncodeTiled encode = encode_fn();
  if (!encode) return false;
  const cuuint64_t dims[4] = {static_cast<cuuint64_t>(head_dim), static_cast<cuuint64_t>(heads),
                              static_cast<cuuint64_t>(seqlen), static_cast<cuuint64_t>(batch)};
  const cuuint64_t strides[3] = {static_cast<cuuint64_t>(head_dim) * 2,
                                 static_cast<cuuint64_t>(heads) * head_dim * 2,
                                 static_cast<cuuint64_t>(seqlen) * heads * head_dim * 2};
  const cuuint32_t box[4] = {64, 1, static_cast<cuuint32_t>(rows), 1};
  const cuuint32_t elem_strides[4] = {1, 1, 1, 1};
  return encode(map, bf16 ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16 : CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 4,
                const_cast<void*>(ptr), dims, strides, box, elem_strides, CU_TENSOR_MAP_INTERLEAVE_NONE,
                CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS;
}

/// Whether an instance's kernel has been given its dynamic shared-memory size. A variable template
/// in the anonymous namespace (internal linkage), not a function-local static of a template
/// (STB_GNU_UNIQUE: shared with any other build of this file loaded into the process).
template <class C>
bool g_configured = false;

template <class C>
int launch(const socratic_attention_args& a, cudaStream_t stream) {
  CUtensorMap tq, tk, tv, to;
  const bool bf16 = C::kBf16;
  if (!make_map(&tq, a.q, bf16, a.head_dim, a.heads_q, a.seqlen_q, a.batch, C::kBlockM) ||
      !make_map(&tk, a.k, bf16, a.head_dim, a.heads_kv, a.seqlen_kv, a.batch, C::kBlockN) ||
      !make_map(&tv, a.v, bf16, a.head_dim, a.heads_kv, a.seqlen_kv, a.batch, C::kBlockN) ||
      !make_map(&to, a.o, bf16, a.head_dim, a.heads_q, a.seqlen_q, a.batch, 64))  // O: one warpgroup's rows
    return 3;
  const auto kernel = [] {
    if constexpr (C::kPersistent) return attention_fwd_persistent_kernel<C>;
    else return attention_fwd_kernel<C>;
  }();
  if (!g_configured<C>) {
    if (cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, C::kSmemBytes) != cudaSuccess)
      return 4;
    g_configured<C> = true;
  }
  Params p;
  p.o = a.o;
  p.seqlen_q = a.seqlen_q;
  p.seqlen_kv = a.seqlen_kv;
  p.heads_q = a.heads_q;
  p.heads_kv = a.heads_kv;
  p.group = a.heads_q / a.heads_kv;
  p.num_m_blocks = (a.seqlen_q + C::kBlockM - 1) / C::kBlockM;
  p.causal = a.causal != 0;
  p.scale_log2 = a.softmax_scale * 1.4426950408889634f;
  p.num_tiles = 0;
  p.num_bh = a.heads_q * a.batch;
  p.section_bh = p.num_bh;
  dim3 grid(p.num_m_blocks, a.heads_q, a.batch);
  if constexpr (C::kPersistent) {
    const long long tiles = static_cast<long long>(p.num_m_blocks) * a.heads_q * a.batch;
    if (tiles > 0x7fffffffLL) return 6;
    p.num_tiles = static_cast<int>(tiles);
    p.section_bh = l2_section_pairs(l2_section_budget(a.seqlen_kv, C::D), a.seqlen_kv, C::D, p.num_bh);
    // One CTA per SM (shared memory allows no second), fed by the dynamic scheduler.
    const int sms = sm_count();
    if (sms <= 0) return 7;
    grid = dim3(p.num_tiles < sms ? p.num_tiles : sms, 1, 1);
  }
  kernel<<<grid, C::kThreads, C::kSmemBytes, stream>>>(tq, tk, tv, to, p);
  return cudaPeekAtLastError() == cudaSuccess ? 0 : 5;
}

// ============================================================================================
// The general path: one warp per query row, fp32 online softmax. Slow; correct for any head_dim
// up to 256, any alignment.
// ============================================================================================

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

inline int launch_general(const socratic_attention_args& a, cudaStream_t stream) {
  if (a.head_dim < 1 || a.head_dim > 256) return 2;
  const long long rows = static_cast<long long>(a.batch) * a.seqlen_q * a.heads_q;
  if (rows == 0) return 0;
  const int warps_per_block = 4;
  const long long blocks = (rows + warps_per_block - 1) / warps_per_block;
  if (blocks > 0x7fffffffLL) return 2;
  if (a.dtype == SOCRATIC_BF16)
    general_kernel<__nv_bfloat16><<<static_cast<unsigned>(blocks), 32 * warps_per_block, 0, stream>>>(
        static_cast<const __nv_bfloat16*>(a.q), static_cast<const __nv_bfloat16*>(a.k),
        static_cast<const __nv_bfloat16*>(a.v), static_cast<__nv_bfloat16*>(a.o), a);
  else
    general_kernel<__half><<<static_cast<unsigned>(blocks), 32 * warps_per_block, 0, stream>>>(
        static_cast<const __half*>(a.q), static_cast<const __half*>(a.k), static_cast<const __half*>(a.v),
        static_cast<__half*>(a.o), a);
  return cudaPeekAtLastError() == cudaSuccess ? 0 : 5;
}

// ============================================================================================
// Dispatch
// ============================================================================================

// Tunables: the defaults are the shipped choice; the driver builds variants with -D to compare.
// Tile sizes follow the shared-memory budget: Q tile plus kStages (K, V) tile pairs within 227 KB.
#ifndef HOPPER_OVERLAP
#define HOPPER_OVERLAP 1
#endif
#ifndef HOPPER_PINGPONG
#define HOPPER_PINGPONG 1
#endif
// Which kernel: 0 = by shape (choose_schedule), 1 = always non-persistent, 2 = always persistent.
#ifndef HOPPER_SCHEDULE
#define HOPPER_SCHEDULE 0
#endif
#ifndef HOPPER_D64_BLOCK_N
#define HOPPER_D64_BLOCK_N 128
#endif
// d64, non-persistent: consumer warpgroups of 64 query rows each (3 = the 192-row tile; 2 = v1's).
#ifndef HOPPER_D64_WGS
#define HOPPER_D64_WGS 3
#endif
// d64, persistent: a 192-key tile from this seqlen_kv on (v3's; call 2: +5-9% at >= 4096, -8% at 512).
#ifndef HOPPER_D64_WIDE_FROM
#define HOPPER_D64_WIDE_FROM 4096
#endif
// d64, persistent (short lengths): consumer warpgroups, non-causal, causal below seqlen_q 2048 and
// causal from there. Three (a 192-row query tile, one warpgroup's softmax under two others' GEMMs)
// measured +5-10% non-causal at s512 and s1024 (D7, D8) despite the 12.5% of rows its tile
// leaves empty there; causal, -6..-10% at s512 and s1024 but +3% and +5% at s2048 (D7, D8).
// With the causal skip (v23: warpgroups 0 and 1 pass the key tile above their rows) three won
// causal at s512 and s1024 too: D38, +2.0% and +2.1% over v19's two.
#ifndef HOPPER_D64_PERSISTENT_WGS
#define HOPPER_D64_PERSISTENT_WGS 3
#endif
#ifndef HOPPER_D64_CAUSAL_PERSISTENT_WGS
#define HOPPER_D64_CAUSAL_PERSISTENT_WGS 3
#endif
#ifndef HOPPER_D64_CAUSAL_LONG_PERSISTENT_WGS
#define HOPPER_D64_CAUSAL_LONG_PERSISTENT_WGS 3
#endif
#ifndef HOPPER_D64_STAGES
#define HOPPER_D64_STAGES 3
#endif
#ifndef HOPPER_D128_BLOCK_N
#define HOPPER_D128_BLOCK_N 128
#endif
#ifndef HOPPER_D128_STAGES
#define HOPPER_D128_STAGES 2
#endif
// d128: the wide key tile for long key sequences (kD128WideFromSeqlenKv below). 192 keys leave no
// room for the persistent kernel's own O buffer (2 x 96 KB of K/V + 32 KB of Q): O is stored from
// registers there.
#ifndef HOPPER_D128_WIDE_BLOCK_N
#define HOPPER_D128_WIDE_BLOCK_N 192
#endif
#ifndef HOPPER_D256_BLOCK_N
#define HOPPER_D256_BLOCK_N 80
#endif
// d128: causal problems on instances of their own (Config::kCausal: the live half; d128 has no
// causal skip), 0 = on the instances non-causal problems run, as v25 did.
#ifndef HOPPER_D128_CAUSAL_INSTANCES
#define HOPPER_D128_CAUSAL_INSTANCES 0
#endif
#ifndef HOPPER_D256_STAGES
#define HOPPER_D256_STAGES 2
#endif

// Where the persistent kernel (v3) beats the non-persistent one, from device call D2 (raw files in
// docs/campaigns/attention-h200/runs/d2/). The grid's shapes have seqlen_q == seqlen_kv; the
// thresholds are on seqlen_q (the number of query tiles, which is what persistence and the tile
// order act on).
/// d64: the non-persistent 192-row tile from this seqlen_q on. Set at 2048 in D2 (m192.txt, against
/// v1: +13/+10/+17/+17% non-causal s2048..s16384); v19 moved it to 8192 after D28 (runs/d28,
/// v18s2: the persistent kernel, which v8-v15 had improved since, against v18): non-causal
/// +5.0/+1.7% s2048/s4096, -0.2/-1.1% s8192/s16384. v31 moved it to 4096, where the non-persistent
/// kernel now runs softmax_stale (D92, against v26: +5.4% s4096; from 2048, -0.5%
/// at s2048).
#ifndef HOPPER_D64_ROWS192_FROM
#define HOPPER_D64_ROWS192_FROM 4096
#endif
constexpr int kD64Rows192FromSeqlenQ = HOPPER_D64_ROWS192_FROM;
/// d64 causal: persistent at every length since v42 (4096 until v19; D28: persistent +5.8/+3.1%
/// causal s4096/s8192, +0.4% s16384, within noise, where it stayed non-persistent until D115:
/// against v37, +2.0% at causal s16384 in both passes).
constexpr bool kD64CausalAlwaysPersistent = true;
/// d64 causal, persistent: the warpgroup count switches (HOPPER_D64_CAUSAL_*_PERSISTENT_WGS) here.
constexpr int kD64CausalLongFromSeqlenQ = 2048;
/// d128 causal: persistent up to this seqlen_q, and non-causal at every length. Since v6 chains the
/// GEMM-issue turns across a persistent CTA's tiles, D7 (runs/d7/grid_tflops.txt, the persistent
/// kernel everywhere against v4): +2.9/+1.4/+2.3% non-causal s4096..s16384, +3.8% causal s8192,
/// -8.3% causal s16384. (v4's thresholds, from v3 in D2: 2048 non-causal, 4096 causal.)
constexpr int kD128CausalPersistentUpToSeqlenQ = 8192;
/// d128 non-causal: persistent below this seqlen_q. D115 (runs/d115, v37 against the per-tile kernel
/// everywhere, HOPPER_SCHEDULE=1): +1.2-1.7% at s16384 in both passes, level at s8192, -0.2..-11%
/// below (D7's +2.3% for the persistent kernel at s16384 dated from v6).
constexpr int kD128PersistentBelowSeqlenQ = 16384;
/// d128: the 192-key tile (HOPPER_D128_WIDE_BLOCK_N) from this seqlen_kv on, non-causal and causal.
/// D27 (runs/d27/grid_tflops.txt, v17n192 against v17; lazy rescaling had shortened the loop's
/// softmax): non-causal +1.0/+2.4/+5.3/+5.3% s2048..s16384, -8/-8% s512/s1024; causal
/// +0.7/+4.1/+2.8% s4096..s16384, -3% s2048 and -11/-9% s512/s1024 (the last tile's masked keys).
/// The 176-key tile (v17n176) was below 192 from s2048 on.
constexpr int kD128WideFromSeqlenKv = 2048;
constexpr int kD128CausalWideFromSeqlenKv = 4096;
/// d256: persistent up to this seqlen_q (v12) when causal, at every length when not (v18). D18 (runs/d18/grid_tflops.txt, `v12r`) against v8
/// (never persistent at d256): +7.4/+4.1/+1.2% s512/s1024/s2048, causal +9.7/+5.7/+1.2%. D17
/// (O staged through the Q buffer then, the Q reload after the store cost ~3k cycles a tile):
/// persistent at every length lost 4-24% from s4096 (causal s16384 568 against 746 TFLOP/s).
/// Before v12 never persistent (v3/v1 0.98-1.0 non-causal, 0.87-1.01 causal: v2's 4-byte stores).
/// D27 (v17p: persistent at every length, against v17): non-causal +3.9/+1.3/+0.7% s4096..s16384,
/// causal -2.6/-4.0/-13% (the longest-first order's tail at a few long tiles per SM).
#ifndef HOPPER_D256_PERSISTENT_UP_TO
#define HOPPER_D256_PERSISTENT_UP_TO 2048
#endif
constexpr int kD256PersistentUpToSeqlenQ = HOPPER_D256_PERSISTENT_UP_TO;

/// Whether a shape runs on the persistent kernel (else the non-persistent one).
inline bool choose_persistent(const socratic_attention_args& a) {
  if (HOPPER_SCHEDULE == 1) return false;
  if (HOPPER_SCHEDULE == 2) return true;
  switch (a.head_dim) {
    case 64:
      return a.causal ? kD64CausalAlwaysPersistent : a.seqlen_q < kD64Rows192FromSeqlenQ;
    case 128:
      return a.causal ? a.seqlen_q <= kD128CausalPersistentUpToSeqlenQ : a.seqlen_q < kD128PersistentBelowSeqlenQ;
    case 256:
      return !a.causal || a.seqlen_q <= kD256PersistentUpToSeqlenQ;
    default:
      return false;
  }
}

template <bool kBf16>
int launch_fast(const socratic_attention_args& a, cudaStream_t stream) {
  constexpr bool kOverlap = HOPPER_OVERLAP != 0, kPingPong = HOPPER_PINGPONG != 0;
  const bool persistent = choose_persistent(a);
  switch (a.head_dim) {
    case 64: {
      if (!persistent && !a.causal && HOPPER_STALE_MAX != 0)
        return launch<Config<64, HOPPER_D64_BLOCK_N, HOPPER_D64_STAGES, HOPPER_D64_WGS, kBf16, kOverlap, kPingPong,
                             false, false, true>>(a, stream);
      if (!persistent)
        return launch<Config<64, HOPPER_D64_BLOCK_N, HOPPER_D64_STAGES, HOPPER_D64_WGS, kBf16, kOverlap, kPingPong,
                             false>>(a, stream);
      const int wgs = !a.causal                                     ? HOPPER_D64_PERSISTENT_WGS
                      : a.seqlen_q < kD64CausalLongFromSeqlenQ ? HOPPER_D64_CAUSAL_PERSISTENT_WGS
                                                                    : HOPPER_D64_CAUSAL_LONG_PERSISTENT_WGS;
      // (three warpgroups have no registers for the 192-key tile: 160 each)
      if (wgs == 2 && a.seqlen_kv >= HOPPER_D64_WIDE_FROM)
        return launch<Config<64, 192, HOPPER_D64_STAGES, 2, kBf16, kOverlap, kPingPong, true>>(a, stream);
      if (wgs == 3 && a.causal)
        return launch<Config<64, HOPPER_D64_BLOCK_N, HOPPER_D64_STAGES, 3, kBf16, kOverlap, kPingPong, true, true>>(
            a, stream);
      if (wgs == 3)
        return launch<Config<64, HOPPER_D64_BLOCK_N, HOPPER_D64_STAGES, 3, kBf16, kOverlap, kPingPong, true>>(a,
                                                                                                        stream);
      return launch<Config<64, HOPPER_D64_BLOCK_N, HOPPER_D64_STAGES, 2, kBf16, kOverlap, kPingPong, true>>(a, stream);
    }
    case 128: {
      const bool wide = a.seqlen_kv >= (a.causal ? kD128CausalWideFromSeqlenKv : kD128WideFromSeqlenKv);
      if constexpr (HOPPER_D128_CAUSAL_INSTANCES != 0) {
        if (a.causal) {
          if (wide && !persistent)
            return launch<Config<128, HOPPER_D128_WIDE_BLOCK_N, HOPPER_D128_STAGES, 2, kBf16, kOverlap, kPingPong,
                                 false, true>>(a, stream);
          if (wide)
            return launch<Config<128, HOPPER_D128_WIDE_BLOCK_N, HOPPER_D128_STAGES, 2, kBf16, kOverlap, kPingPong,
                                 true, true>>(a, stream);
          if (!persistent)
            return launch<Config<128, HOPPER_D128_BLOCK_N, HOPPER_D128_STAGES, 2, kBf16, kOverlap, kPingPong, false,
                                 true>>(a, stream);
          return launch<Config<128, HOPPER_D128_BLOCK_N, HOPPER_D128_STAGES, 2, kBf16, kOverlap, kPingPong, true,
                               true>>(a, stream);
        }
      }
      if (wide && !persistent)
        return launch<Config<128, HOPPER_D128_WIDE_BLOCK_N, HOPPER_D128_STAGES, 2, kBf16, kOverlap, kPingPong,
                             false>>(a, stream);
      if (wide)
        return launch<Config<128, HOPPER_D128_WIDE_BLOCK_N, HOPPER_D128_STAGES, 2, kBf16, kOverlap, kPingPong,
                             true>>(a, stream);
      if (!persistent)
        return launch<Config<128, HOPPER_D128_BLOCK_N, HOPPER_D128_STAGES, 2, kBf16, kOverlap, kPingPong, false>>(
            a, stream);
      return launch<Config<128, HOPPER_D128_BLOCK_N, HOPPER_D128_STAGES, 2, kBf16, kOverlap, kPingPong, true>>(a,
                                                                                                         stream);
    }
    case 256:
      // (the per-tile kernel runs causal problems only, unless HOPPER_SCHEDULE forces it: its
      // causal instance is correct for any problem)
      if (!persistent)
        return launch<Config<256, HOPPER_D256_BLOCK_N, HOPPER_D256_STAGES, 2, kBf16, kOverlap, kPingPong, false,
                             true>>(a, stream);
      if (a.causal)
        return launch<Config<256, HOPPER_D256_BLOCK_N, HOPPER_D256_STAGES, 2, kBf16, kOverlap, kPingPong, true, true>>(
            a, stream);
      return launch<Config<256, HOPPER_D256_BLOCK_N, HOPPER_D256_STAGES, 2, kBf16, kOverlap, kPingPong, true>>(a,
                                                                                                         stream);
    default:
      return -1;
  }
}

inline bool fast_path_takes(const socratic_attention_args& a) {
  const auto aligned = [](const void* ptr) { return (reinterpret_cast<uintptr_t>(ptr) & 15u) == 0; };
  return (a.head_dim == 64 || a.head_dim == 128 || a.head_dim == 256) && aligned(a.q) && aligned(a.k) &&
         aligned(a.v) && aligned(a.o) && a.seqlen_q > 0 && a.seqlen_kv > 0 && encode_fn() != nullptr;
}

inline bool args_valid(const socratic_attention_args* a) {
  return a && a->q && a->k && a->v && a->o && a->batch > 0 && a->seqlen_q >= 0 && a->seqlen_kv >= 0 &&
         a->heads_q > 0 && a->heads_kv > 0 && a->heads_q % a->heads_kv == 0 && a->head_dim > 0 &&
         (a->dtype == SOCRATIC_BF16 || a->dtype == SOCRATIC_FP16);
}

}  // namespace
}  // namespace hopper_attn

// Test hook: a build with -DHOPPER_FORCE_GENERAL=1 sends every shape down the general path.
#ifndef HOPPER_FORCE_GENERAL
#define HOPPER_FORCE_GENERAL 0
#endif

extern "C" int socratic_attention_forward(const socratic_attention_args* args, cudaStream_t stream) {
  using namespace hopper_attn;
  if (!args_valid(args)) return 1;
  if (args->seqlen_q == 0) return 0;
  if (!HOPPER_FORCE_GENERAL && fast_path_takes(*args)) {
    const int rc = args->dtype == SOCRATIC_BF16 ? launch_fast<true>(*args, stream) : launch_fast<false>(*args, stream);
    if (rc == 0) return 0;
  }
  return launch_general(*args, stream);
}
