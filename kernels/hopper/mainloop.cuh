#pragma once
// The main loop: the K/V ring, the producer's loads of one query tile's key tiles, and one consumer
// warpgroup's pass over them (S = Q K^T and O += P V by wgmma, the softmax between them, the GEMM
// turns and the exponential token, the causal skip, the live half, the stale-max path).
#include <cmath>
#include <cstdint>

#include "ptx.cuh"
#include "softmax.cuh"
#include "traits.cuh"
#include "wgmma.cuh"

// Phase marks: tools/research/attention/tile_phases.cu defines this hook to time each consumer
// warpgroup's tiles (point, the tile's first K/V ring position, warpgroup, key tiles); every other
// build leaves it empty, so the shipped kernels carry no code for it.
#ifndef HOPPER_PHASE
#define HOPPER_PHASE(point, kv_iter, cw, n_blocks)
#endif

namespace hopper_attn {
namespace {

/// S = Q K^T for this warpgroup's 64 rows against one key tile.
template <class C>
__device__ __forceinline__ void gemm_qk(float (&s)[C::kBlockN / 2], uint32_t sq_rows, uint32_t sk_stage) {
#pragma unroll
  for (int kk = 0; kk < C::D / 16; ++kk) {
    const uint32_t chunk = kk / 4, within = (kk % 4) * 32;
    const uint64_t da = smem_desc(sq_rows + chunk * (C::kBlockM * 128) + within, 16, 1024);
    const uint64_t db = smem_desc(sk_stage + chunk * (C::kBlockN * 128) + within, 16, 1024);
    WgmmaSS<C::kBlockN>::template run<C::kBf16>(s, da, db, kk > 0 ? 1 : 0);
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

/// O += P V for one key tile (V tile MN-major: 64-column chunks kBlockN*128 bytes apart).
template <class C>
__device__ __forceinline__ void gemm_pv(float (&o)[C::D / 2], const uint32_t (&pf)[C::kBlockN / 4],
                                        uint32_t sv_stage) {
#pragma unroll
  for (int kk = 0; kk < C::kBlockN / 16; ++kk) {
    const uint32_t a[4] = {pf[4 * kk], pf[4 * kk + 1], pf[4 * kk + 2], pf[4 * kk + 3]};
    // MN-major, 128B swizzle: "leading" = from one 64-column chunk to the next, "stride" = from
    // one group of 8 key rows to the next (PTX ISA, canonical layouts).
    const uint64_t db = smem_desc(sv_stage + kk * 16 * 128, C::kBlockN * 128, 1024);
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

/// The K/V stage ring in shared memory: kStages K tiles, kStages V tiles (TileBuffers::k, v), and
/// their mbarriers from `bars` (KVBarriers: full K, full V, empty K, empty V). Both kernels number
/// ring positions the same way: position i is stage i % kStages in phase (i / kStages) & 1.
template <class C>
struct KVRing {
  using Barriers = KVBarriers<C::kStages>;
  static_assert(offsetof(Barriers, full_v) == 8 * C::kStages && offsetof(Barriers, empty_k) == 16 * C::kStages &&
                    offsetof(Barriers, empty_v) == 24 * C::kStages,
                "KVRing's barrier addresses follow KVBarriers' layout");
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
  const int my_turn = barrier_id(NamedBarrier::kTurn, cw);
  const int next_turn = barrier_id(NamedBarrier::kTurn, (cw + 1) % C::kWGs);
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
    return ExpGate{barrier_id(NamedBarrier::kExpToken, cw), barrier_id(NamedBarrier::kExpToken, (cw + 1) % C::kWGs),
                   !kPersistentTile && last && cw == C::kWGs - 1};
  };
  if constexpr (C::kExpToken && !kPersistentTile) {
    if (cw == C::kWGs - 1) named_arrive(barrier_id(NamedBarrier::kExpToken, 0), 256);  // warpgroup 0's go first
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
  // (The S and P V GEMMs stay whole: narrower ones made ptxas serialise every wgmma, D40.)
  wgmma_fence();
  gemm_qk<C>(s, sq_rows, ring.k(stage_of(0)));
  wgmma_commit();
  turn_end(false);
  wgmma_wait<0>();
  pin(s);
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

  bool stale_ok = true;  // this warp still takes softmax_stale (KernelTraits::kStaleMax; uniform in the warp)
  for (int it = 1; it < n_blocks; ++it) {
    n = n_blocks - 1 - it;
    const int stage = stage_of(it), prev = stage_of(it - 1);
    const uint32_t phase = phase_of(it), prev_phase = phase_of(it - 1);
    // S of this key tile issued beside P V of the previous one: the softmax of tile j runs while
    // the P V product of tile j-1 is in flight.
    mbar_wait(ring.full_k(stage), phase);
    mbar_wait(ring.full_v(prev), prev_phase);
    turn_begin();
    wgmma_fence();
    gemm_qk<C>(s, sq_rows, ring.k(stage));
    wgmma_commit();
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
      if (verdict != Stale::kKept) stale_ok = false;
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
  }
  // ---- last P V ----
  HOPPER_PHASE(3, kv_iter, cw, n_blocks);
  const int last = stage_of(n_blocks - 1);
  mbar_wait(ring.full_v(last), phase_of(n_blocks - 1));
  turn_begin();
  wgmma_fence();
  gemm_pv<C>(o, pf, ring.v(last));
  wgmma_commit();
  turn_end(true);
  wgmma_wait<0>();
  pin(o);
  release(ring.empty_v(last));
  HOPPER_PHASE(4, kv_iter, cw, n_blocks);
}

}  // namespace
}  // namespace hopper_attn
