#pragma once
// The dispatch: the table of kernel instances (one row each, compiled for bf16 and fp16), the rule
// that picks a row for a shape (choose_tiles: per head dim, by length; each threshold is named
// with the measurement that set it), and the fast path's entry (launch_fast).
//
// Tile sizes follow the shared-memory budget: a Q tile plus `stages` (K, V) tile pairs within
// 227 KB. fp16, GQA, ragged lengths and seqlen_q != seqlen_kv follow the same rules as bf16 (both
// kernels handle them). Thresholds are on seqlen_q (the number of query tiles, which is what
// persistence and the tile order act on) unless named for seqlen_kv. Measured on one H200; DNN
// names a device call of the campaign log (notebook/attention-h200/log.md).
#include "attention_args.h"
#include "launch.cuh"
#include "traits.cuh"

namespace hopper_attn {
namespace {

// ---- the table ---------------------------------------------------------------------------------
//                                        head  keys  stages  WGs  schedule               causal stale max
constexpr TileConfig kD64PerTileStale      {64,  128,  3,      3,   Schedule::kPerTile,    false, true};
constexpr TileConfig kD64Persistent        {64,  128,  3,      3,   Schedule::kPersistent, false, false};
constexpr TileConfig kD64PersistentCausal  {64,  128,  3,      3,   Schedule::kPersistent, true,  false};
constexpr TileConfig kD128PerTile          {128, 128,  2,      2,   Schedule::kPerTile,    false, false};
constexpr TileConfig kD128PerTileWide      {128, 192,  2,      2,   Schedule::kPerTile,    false, false};
constexpr TileConfig kD128Persistent       {128, 128,  2,      2,   Schedule::kPersistent, false, false};
constexpr TileConfig kD128PersistentWide   {128, 192,  2,      2,   Schedule::kPersistent, false, false};
constexpr TileConfig kD256PerTileCausal    {256, 80,   2,      2,   Schedule::kPerTile,    true,  false};
constexpr TileConfig kD256Persistent       {256, 80,   2,      2,   Schedule::kPersistent, false, false};
constexpr TileConfig kD256PersistentCausal {256, 80,   2,      2,   Schedule::kPersistent, true,  false};

/// The rows compiled into the library: launch_fast instantiates exactly these, for both element
/// types, and choose_tiles returns one of them.
template <const TileConfig&... kRows>
struct TileTable {};
using Instances = TileTable<kD64PerTileStale, kD64Persistent, kD64PersistentCausal, kD128PerTile, kD128PerTileWide,
                            kD128Persistent, kD128PersistentWide, kD256PerTileCausal, kD256Persistent,
                            kD256PersistentCausal>;

// ---- the rule ----------------------------------------------------------------------------------

/// d64 non-causal: the per-tile 192-row kernel with softmax_stale from this length (D92, against
/// the persistent kernel: +5.4% at s4096, -0.5% at s2048; softmax_stale: +8.3/+8.9% at s8192/s16384
/// on unit normals). d64 causal runs persistent at every length (D115: +2.0% at causal s16384).
/// Three consumer warpgroups at every d64 length: +5-10% non-causal at s512/s1024 despite the rows
/// a 192-row tile leaves empty (D7, D8), and with the causal skip causal too (D38: +2.0/+2.1% at
/// s512/s1024); three warpgroups have no registers for a 192-key tile (160 each).
constexpr int kD64PerTileFromSeqlenQ = 4096;
/// d128 causal: persistent up to this length. D7 (the persistent kernel everywhere): +3.8% causal
/// s8192, -8.3% causal s16384.
constexpr int kD128CausalPersistentUpToSeqlenQ = 8192;
/// d128 non-causal: persistent below this length. D115 (against the per-tile kernel everywhere):
/// +1.2-1.7% for the per-tile kernel at s16384 in both passes, level at s8192, -0.2..-11% below.
constexpr int kD128PersistentBelowSeqlenQ = 16384;
/// d128: the 192-key tile from this seqlen_kv on (non-causal) and from the causal one. D27 (192
/// keys against 128): non-causal +1.0/+2.4/+5.3/+5.3% s2048..s16384, -8% s512/s1024; causal
/// +0.7/+4.1/+2.8% s4096..s16384, -3% s2048 and -9..-11% s512/s1024 (the last tile's masked keys).
constexpr int kD128WideFromSeqlenKv = 2048;
constexpr int kD128CausalWideFromSeqlenKv = 4096;
/// d256 causal: persistent up to this length (D18: +9.7/+5.7/+1.2% causal s512..s2048; D27,
/// persistent at every length: -2.6/-4.0/-13% causal s4096..s16384, the longest-first order's tail
/// at a few long tiles per SM). d256 non-causal runs persistent at every length (D27: +3.9/+1.3/+0.7%
/// s4096..s16384).
constexpr int kD256CausalPersistentUpToSeqlenQ = 2048;

/// The row a fast-path shape runs on (head dim 64, 128 or 256), else null.
inline const TileConfig* choose_tiles(const socratic_attention_args& a) {
  switch (a.head_dim) {
    case 64:
      if (a.causal) return &kD64PersistentCausal;
      return a.seqlen_q < kD64PerTileFromSeqlenQ ? &kD64Persistent : &kD64PerTileStale;
    case 128: {
      const bool wide = a.seqlen_kv >= (a.causal ? kD128CausalWideFromSeqlenKv : kD128WideFromSeqlenKv);
      const bool persistent =
          a.causal ? a.seqlen_q <= kD128CausalPersistentUpToSeqlenQ : a.seqlen_q < kD128PersistentBelowSeqlenQ;
      if (persistent) return wide ? &kD128PersistentWide : &kD128Persistent;
      return wide ? &kD128PerTileWide : &kD128PerTile;
    }
    case 256:
      if (!a.causal) return &kD256Persistent;
      return a.seqlen_q <= kD256CausalPersistentUpToSeqlenQ ? &kD256PersistentCausal : &kD256PerTileCausal;
    default:
      return nullptr;
  }
}

// ---- the fast path -----------------------------------------------------------------------------

template <socratic_dtype kDtype, const TileConfig&... kRows>
ReturnCode launch_row(const TileConfig* row, const socratic_attention_args& a, cudaStream_t stream,
                      TileTable<kRows...>) {
  ReturnCode rc = ReturnCode::kNoInstance;
  ((row == &kRows && (rc = launch<KernelTraits<kRows, kDtype>>(a, stream), true)) || ...);
  return rc;
}

/// The shape on the instance its row names (kNoInstance when no row does).
template <socratic_dtype kDtype>
ReturnCode launch_fast(const socratic_attention_args& a, cudaStream_t stream) {
  return launch_row<kDtype>(choose_tiles(a), a, stream, Instances{});
}

/// Whether the fast path takes a shape: head dim 64, 128 or 256, 16-byte aligned tensors (TMA),
/// non-empty lengths, and the driver's tensor-map encoder at hand.
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
