#pragma once
// The epilogue through shared memory: O / l for this warpgroup's 64 rows, stored through a
// swizzled buffer (TMA from the persistent kernel's own buffer, 16-byte stores from the per-tile
// kernel's Q buffer). Where no buffer fits (the persistent d256 and 192-key d128 instances) the
// persistent kernel stores O straight from registers (kernels.cuh).
#include <cstddef>
#include <cstdint>

#include "ptx.cuh"
#include "traits.cuh"

namespace hopper_attn {
namespace {

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
  named_sync(barrier_id(NamedBarrier::kEpilogue, cw), 128);
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
      st_shared_b32(addr, v);
    }
  }
  if constexpr (C::kPersistent) {
    fence_proxy_async();
    named_sync(barrier_id(NamedBarrier::kEpilogue, cw), 128);
    if (tid_wg == 0) {
#pragma unroll
      for (int c = 0; c < C::kChunks; ++c)
        tma_store_4d(tm_o, stage_base + c * (C::kBlockM * 128) + 64 * cw * 128, 64 * c, h, m0 + 64 * cw, b);
      bulk_commit();
    }
    return;
  }
  named_sync(barrier_id(NamedBarrier::kEpilogue, cw), 128);
  constexpr int kUnitsPerRow = C::D / 8;
  uint16_t* out = static_cast<uint16_t*>(p.o);
  for (int q = tid_wg; q < 64 * kUnitsPerRow; q += 128) {
    const int row_in_wg = q / kUnitsPerRow, u = q % kUnitsPerRow;
    const uint32_t row = 64 * cw + row_in_wg;
    const int grow = m0 + static_cast<int>(row);
    if (grow >= p.seqlen_q) continue;
    const uint32_t addr = stage_base + (u / 8) * (C::kBlockM * 128) + row * 128 + (((u % 8) ^ (row % 8)) * 16);
    uint4 v;
    ld_shared_v4(addr, v.x, v.y, v.z, v.w);
    const size_t offset = ((static_cast<size_t>(b) * p.seqlen_q + grow) * p.heads_q + h) * C::D + u * 8;
    *reinterpret_cast<uint4*>(out + offset) = v;
  }
}

}  // namespace
}  // namespace hopper_attn
