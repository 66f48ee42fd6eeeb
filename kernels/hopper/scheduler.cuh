#pragma once
// The persistent kernel's scheduler: a global ticket counter that hands query tiles out in index
// order, the order itself (causal: heaviest first within L2 sections of (batch, head) pairs;
// non-causal: a pair's query blocks together), and the section size by shape.
#include "traits.cuh"

namespace hopper_attn {
namespace {

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
/// Plain integers only, host and device: tools/research/attention/tile_order_check.cu checks it.
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

/// The tile this CTA runs after its current one (its first is blockIdx.x: the launch covers
/// 0 .. gridDim.x - 1 without tickets). Taken by the producer's one thread.
__device__ __forceinline__ int next_ticket() { return static_cast<int>(gridDim.x + atomicAdd(&g_sched[0], 1u)); }

/// After this CTA's last ticket: the fence orders its ticket atomics before the count; the CTA that
/// completes the count is the last user of the counters in this launch and resets them, so the next
/// launch on the stream (kernel boundaries order it) starts at zero.
__device__ __forceinline__ void retire_tickets() {
  __threadfence();
  if (atomicAdd(&g_sched[1], 1u) == gridDim.x - 1) {
    __threadfence();
    atomicExch(&g_sched[0], 0u);
    atomicExch(&g_sched[1], 0u);
  }
}

/// K+V bytes an L2 section of the causal order covers, by shape: 8 MB per 512 keys, twice that at
/// d256, from 8 to 32 MB. D122 (v42's 16 MB against 8 MB, 32 MB and one section, on the 18 causal
/// grid shapes): at each of the 14 persistent causal shapes the best of the three sizes is this
/// rule's, +1.0..+5.4% over 16 MB; one section lost 7.4% (K and V of a pair are then read once per
/// query block, far apart). Smaller sections keep a pair's K and V in L2
/// between its query blocks; larger ones mix long and short tiles over more of the GPU.
inline long long l2_section_budget(int seqlen_kv, int head_dim) {
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


}  // namespace
}  // namespace hopper_attn
