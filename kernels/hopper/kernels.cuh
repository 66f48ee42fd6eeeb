#pragma once
// The two kernels. Both: warpgroup 0 is the producer (its one elected thread issues every TMA
// load), warpgroups 1..kWGs are consumers of 64 query rows each; setmaxnreg moves registers from
// the producer to the consumers.
//   * attention_fwd_kernel: one CTA per query tile, grid (query blocks, heads, batch), the heaviest
//     (causal) query blocks first;
//   * attention_fwd_persistent_kernel: one CTA per SM; the producer takes tiles from the scheduler
//     (scheduler.cuh) and publishes each, decoded, through a two-slot tile ring; Q is released
//     after a tile's last S GEMM so that the next tile's loads overlap this one's softmax, last P V
//     and epilogue; the GEMM-issue turns run on from one tile to the next.
#include <cstddef>
#include <cstdint>

#include "epilogue.cuh"
#include "mainloop.cuh"
#include "ptx.cuh"
#include "scheduler.cuh"
#include "traits.cuh"

namespace hopper_attn {
namespace {

/// The first 1024-byte boundary of the dynamic shared memory (TMA's 128-byte swizzle atoms).
__device__ __forceinline__ uint32_t aligned_smem_base(const uint8_t* smem_raw) {
  return (smem_addr(smem_raw) + 1023u) & ~1023u;
}

template <class C>
__global__ void __launch_bounds__(C::kThreads, 1)
    attention_fwd_kernel(const __grid_constant__ CUtensorMap tm_q, const __grid_constant__ CUtensorMap tm_k,
                         const __grid_constant__ CUtensorMap tm_v, const __grid_constant__ CUtensorMap tm_o,
                         const Params p) {
  static_assert(!C::kPersistent, "the per-tile kernel's instances");
  using Storage = typename C::SharedStorage;
  using Tiles = decltype(Storage::tiles);
  static_assert(offsetof(Storage, tiles) == 0, "tiles first, at the aligned base");
  extern __shared__ __align__(1024) uint8_t smem_raw[];
  const uint32_t base = aligned_smem_base(smem_raw);
  const uint32_t sQ = base + offsetof(Tiles, q);  // also O's staging buffer in the epilogue
  const uint32_t bar_q = base + offsetof(Storage, full_q);
  const KVRing<C> ring{static_cast<uint32_t>(base + offsetof(Tiles, k)), static_cast<uint32_t>(base + offsetof(Tiles, v)),
                       static_cast<uint32_t>(base + offsetof(Storage, kv))};

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
    fence_mbarrier_init();
    fence_proxy_async();
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

template <class C>
__global__ void __launch_bounds__(C::kThreads, 1)
    attention_fwd_persistent_kernel(const __grid_constant__ CUtensorMap tm_q, const __grid_constant__ CUtensorMap tm_k,
                                    const __grid_constant__ CUtensorMap tm_v,
                                    const __grid_constant__ CUtensorMap tm_o, const Params p) {
  static_assert(C::kPersistent, "the persistent kernel's instances");
  using Storage = typename C::SharedStorage;
  using Tiles = decltype(Storage::tiles);
  using Sync = PersistentSync<C::kStages>;
  static_assert(offsetof(Storage, tiles) == 0, "tiles first, at the aligned base");
  static_assert(offsetof(Storage, sync) % 16 == 0 && offsetof(Sync, tile_slot) % 16 == 0,
                "a tile-ring slot is one 16-byte shared store");
  extern __shared__ __align__(1024) uint8_t smem_raw[];
  const uint32_t base = aligned_smem_base(smem_raw);
  const uint32_t sQ = base + offsetof(Tiles, q);
  const uint32_t sync = base + offsetof(Storage, sync);
  const uint32_t full_q = sync + offsetof(Sync, full_q), empty_q = sync + offsetof(Sync, empty_q);
  auto full_tile = [&](int slot) { return static_cast<uint32_t>(sync + offsetof(Sync, full_tile) + 8u * slot); };
  auto empty_tile = [&](int slot) { return static_cast<uint32_t>(sync + offsetof(Sync, empty_tile) + 8u * slot); };
  auto ring_slot = [&](int slot) { return static_cast<uint32_t>(sync + offsetof(Sync, tile_slot) + 16u * slot); };
  const KVRing<C> ring{static_cast<uint32_t>(base + offsetof(Tiles, k)), static_cast<uint32_t>(base + offsetof(Tiles, v)),
                       static_cast<uint32_t>(sync + offsetof(Sync, kv))};

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
    fence_mbarrier_init();
    fence_proxy_async();
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
        st_shared_v4(ring_slot(slot), tile.m_block, tile.h, tile.b, n_blocks);
        mbar_arrive(full_tile(slot));  // release: the store above is visible to whoever waits on it
        if (!more) break;
        // Q may be overwritten once every consumer warp is done with the previous tile's S GEMMs.
        mbar_wait(empty_q, (local & 1) ^ 1);
        mbar_arrive_expect_tx(full_q, C::kQBytes);
#pragma unroll
        for (int c = 0; c < C::kChunks; ++c)
          tma_load_4d(sQ + c * C::kBlockM * 128, &tm_q, full_q, 64 * c, tile.h, m0, tile.b);
        // Next ticket now: its latency hides under this tile's K/V issue loop.
        const int next = next_ticket();
        load_kv_tiles<C>(ring, &tm_k, &tm_v, n_blocks, kv_iter, tile.h / p.group, tile.b);
        kv_iter += n_blocks;
        t = next;
      }
      retire_tickets();
    }
  } else {
    // ---------------- consumers ----------------
    regs_increase<C::kConsumerRegs>();
    const int cw = wg - 1;  // consumer warpgroup 0..kWGs-1
    const int tid_wg = tid % 128;
    const int warp_wg = tid_wg / 32;
    const int g = (tid % 32) / 4, t4 = tid % 4;  // this thread's row and column pair in a fragment
    const uint32_t sq_rows = sQ + cw * 64 * 128;  // this warpgroup's 64 rows inside every Q chunk

    // GEMM-issue turns chain across this CTA's tiles (attend_tile): open warpgroup 0's first turn
    // here, and close its turn after the last tile, when the last warpgroup's final arrival (or
    // this opening, if there was no tile) is still pending on it.
    if constexpr (C::kPingPong) {
      if (cw == C::kWGs - 1) named_arrive(barrier_id(NamedBarrier::kTurn, 0), 256);
    }
    if constexpr (C::kExpToken) {
      if (cw == C::kWGs - 1) named_arrive(barrier_id(NamedBarrier::kExpToken, 0), 256);
    }
    int kv_iter = 0;  // K/V ring positions consumed so far by this CTA, across its query tiles
    for (int local = 0;; ++local) {
      const int slot = local & 1;
      mbar_wait(full_tile(slot), (local >> 1) & 1);
      Tile tile;
      int n_blocks;
      ld_shared_v4(ring_slot(slot), tile.m_block, tile.h, tile.b, n_blocks);
      release(empty_tile(slot));
      if (tile.m_block < 0) {
        if constexpr (C::kPingPong) {
          if (cw == 0) named_sync(barrier_id(NamedBarrier::kTurn, 0), 256);
        }
        if constexpr (C::kExpToken) {
          if (cw == 0) named_sync(barrier_id(NamedBarrier::kExpToken, 0), 256);
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
        store_o_staged<C>(o, inv, static_cast<uint32_t>(base + offsetof(Storage, o)), cw, m0, tile.b, tile.h, p,
                          &tm_o);
      } else {
        // Straight from registers, 16 bytes per store: the four threads of a quad hold 2 columns
        // each of every 8-column group of their rows; a 4 x 4 exchange inside the quad gives
        // thread t4 all 8 columns of group 4j + t4 (v2 stored the 4-byte pairs as they were).
        // (Written out here rather than called: as a function its locals moved ptxas's register
        // choices, and the split keeps v45's machine code.)
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

}  // namespace
}  // namespace hopper_attn
