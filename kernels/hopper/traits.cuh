#pragma once
// Configuration: what a dispatch-table row chooses (TileConfig), the traits every kernel instance
// derives from it (KernelTraits), the shared-memory layout of each kernel (SharedStorage), the
// launch parameters, the named barriers and the entry point's return codes.
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "attention_args.h"

namespace hopper_attn {
namespace {

/// How an instance walks its query tiles.
enum class Schedule {
  kPerTile,     // one CTA per query tile, the hardware's block dispatch (attention_fwd_kernel)
  kPersistent,  // one CTA per SM, tiles from a global ticket counter (attention_fwd_persistent_kernel)
};

/// One row of the dispatch table (dispatch.cuh): the compile-time shape of a kernel instance.
struct TileConfig {
  int head_dim;      // 64, 128 or 256
  int block_n;       // keys per K/V tile
  int stages;        // depth of the K/V ring in shared memory
  int consumer_wgs;  // consumer warpgroups, 64 query rows each
  Schedule schedule;
  // Launched for causal problems only: the causal skip and the live half are compiled into these
  // instances alone, so the code non-causal problems run carries neither (compiled into shared
  // instances, the untaken branches cost 1-4% on some non-causal shapes: D37-D39, D79). Still
  // correct for any problem: both also test p.causal.
  bool causal;
  // The loop's softmax takes no row max while the running one holds (softmax_stale).
  bool stale_max;
};

/// What socratic_attention_forward returns: 0, or why the shape was declined (the harness then
/// fails the scenario as declined). The fast path's failures fall back to the general path.
enum class ReturnCode : int {
  kOk = 0,
  kInvalidArguments = 1,    // a null pointer, a count out of range, heads_q not a multiple of heads_kv
  kUnsupported = 2,         // general path: head_dim over 256, or more rows than one grid holds
  kTensorMapFailed = 3,     // cuTensorMapEncodeTiled refused a map
  kSetAttributeFailed = 4,  // cudaFuncSetAttribute refused the shared-memory size
  kLaunchFailed = 5,        // the launch itself
  kTooManyTiles = 6,        // persistent: more than 2^31 - 1 query tiles
  kNoSmCount = 7,           // persistent: the device's SM count could not be read
  kNoInstance = -1,         // fast path: no instance for this head dim
};

/// Named barriers (id 0 is __syncthreads). Each is a ring of one barrier per consumer warpgroup
/// (up to three), so warpgroup cw's barrier of a ring is barrier_id(ring, cw).
enum class NamedBarrier : int {
  kTurn = 1,      // GEMM-issue turns: warpgroup cw waits on its own, then opens cw + 1's
  kEpilogue = 4,  // a warpgroup's epilogue (its 128 threads)
  kExpToken = 7,  // the exponential token's turns (KernelTraits::kExpToken)
};
__host__ __device__ constexpr int barrier_id(NamedBarrier ring, int cw) { return static_cast<int>(ring) + cw; }

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
static_assert(sizeof(Params) == 56 && offsetof(Params, scale_log2) == 48, "the kernels' parameter layout");

// ---- shared memory -----------------------------------------------------------------------------
// Every layout starts at the dynamic shared memory's first 1024-byte boundary (TMA's 128-byte
// swizzle atoms need it; the launch asks for 1024 bytes of slack), tiles first, then barriers.
// The kernels take 32-bit shared addresses (PTX's), base + offsetof(...).

/// Q, and the K/V ring's tiles. Tiles are 64-column chunks of 128-byte rows, 128-byte swizzled.
template <int kQBytes, int kKVBytes, int kStages>
struct TileBuffers {
  uint8_t q[kQBytes];
  uint8_t k[kStages][kKVBytes];
  uint8_t v[kStages][kKVBytes];
};

/// The K/V ring's mbarriers: a stage is full when the producer's TMA bytes have landed, empty when
/// every consumer warp has handed it back.
template <int kStages>
struct KVBarriers {
  uint64_t full_k[kStages], full_v[kStages], empty_k[kStages], empty_v[kStages];
};

/// attention_fwd_kernel's: one query tile, whose epilogue stages O through the Q buffer.
template <int kQBytes, int kKVBytes, int kStages>
struct PerTileStorage {
  TileBuffers<kQBytes, kKVBytes, kStages> tiles;
  uint64_t full_q;
  KVBarriers<kStages> kv;
};

/// attention_fwd_persistent_kernel's barriers and tile ring: Q is reloaded for each tile (full and
/// empty), and the producer publishes each tile, decoded, through two ring slots.
template <int kStages>
struct PersistentSync {
  uint64_t full_q, empty_q;
  uint64_t full_tile[2], empty_tile[2];
  KVBarriers<kStages> kv;
  alignas(16) int32_t tile_slot[2][4];  // query block, head, batch, key tiles (one st.shared.v4)
};

/// attention_fwd_persistent_kernel's: with an O staging buffer of its own where one fits
/// (kOBytes > 0), else O is stored from registers.
template <int kQBytes, int kKVBytes, int kStages, int kOBytes>
struct PersistentStorage {
  TileBuffers<kQBytes, kKVBytes, kStages> tiles;
  uint8_t o[kOBytes];
  PersistentSync<kStages> sync;
};
template <int kQBytes, int kKVBytes, int kStages>
struct PersistentStorage<kQBytes, kKVBytes, kStages, 0> {
  TileBuffers<kQBytes, kKVBytes, kStages> tiles;
  PersistentSync<kStages> sync;
};

constexpr int kMaxSmemBytes = 227 * 1024;  // what one block may have on Hopper
constexpr int kSmemAlignSlack = 1024;      // the base is rounded up to 1024 bytes

/// Everything an instance is compiled for: its row of the dispatch table and the element type.
template <const TileConfig& kTiles, socratic_dtype kDtype>
struct KernelTraits {
  static constexpr int D = kTiles.head_dim;
  static constexpr int kBlockN = kTiles.block_n;
  static constexpr int kStages = kTiles.stages;
  static constexpr int kWGs = kTiles.consumer_wgs;
  static constexpr bool kBf16 = kDtype == SOCRATIC_BF16;
  static constexpr bool kPersistent = kTiles.schedule == Schedule::kPersistent;
  static constexpr bool kCausal = kTiles.causal;
  // The consumer warpgroups take turns issuing their GEMMs (named barriers), so that one's softmax
  // hides under the others' tensor-core work.
  static constexpr bool kPingPong = kWGs >= 2;
  static constexpr int kBlockM = 64 * kWGs;
  static constexpr int kSoftmaxChains = D == 64 ? 4 : 1;  // see softmax_step
  // Lazy rescaling of O (softmax_step) where it measured faster: D26, +2-3% d128 and +3-5% d256 from
  // s2048; at d64 (32 multiplies a tile to save) the votes and branches cost 2-4% (D26, D28).
  static constexpr bool kLazyRescale = D >= 128;
  // The causal skip (attend_tile), in the causal instances where it measured faster (D38: +0.7-1.9%
  // causal d256, +0.4-2.3% causal d64 on 192-row tiles).
  static constexpr bool kCausalSkip = kCausal && (D == 256 || (D == 64 && kWGs == 3));
  // The first key tile's live half (attend_tile), in the causal instances.
  static constexpr bool kLiveHalf = kCausal;
  // The exponential token: the consumer warpgroups take turns for their softmax's exponentials, so
  // that no two share a sub-partition's MUFU queue at once. At d64 only: D59/D60, +1.4-3.5% on the
  // d64 grid shapes from s1024; at d128 and d256 (two warpgroups) it cost 0.5-1.6%.
  static constexpr bool kExpToken = kPingPong && D == 64;
  // softmax_stale in the loop (the row's running max kept while it holds).
  static constexpr bool kStaleMax = kTiles.stale_max;
  // P converted row by row inside the loop's softmax_step, at d128 only: +1.4..+2.5% from s1024
  // (D105-D109); at d64 -1..-4% (the conversion then sits inside the exponential token's hold), at
  // d256 -0.1..-0.9% (D106).
  static constexpr bool kEarlyConvert = !kStaleMax && D == 128;
  static constexpr int kThreads = 128 * (kWGs + 1);
  static constexpr int kChunks = D / 64;  // 128-byte (64-element) column chunks of a row
  static constexpr int kQBytes = kBlockM * D * 2;
  static constexpr int kKVBytes = kBlockN * D * 2;
  static constexpr int kOBytes = kQBytes;  // the persistent epilogue's staging buffer has Q's shape
  // The persistent kernel reloads Q early, so it stages O through a buffer of its own where one fits
  // (d64, d128 with 128-key tiles), else stores O from registers.
  static constexpr bool kOwnOBuffer =
      kPersistent && sizeof(PersistentStorage<kQBytes, kKVBytes, kStages, 0>) + kSmemAlignSlack + kOBytes <=
                         static_cast<size_t>(kMaxSmemBytes);
  using SharedStorage =
      std::conditional_t<kPersistent, PersistentStorage<kQBytes, kKVBytes, kStages, kOwnOBuffer ? kOBytes : 0>,
                         PerTileStorage<kQBytes, kKVBytes, kStages>>;
  static constexpr int kSmemBytes = static_cast<int>(sizeof(SharedStorage)) + kSmemAlignSlack;
  static constexpr int kProducerRegs = kWGs == 2 ? 24 : 32;  // 24 + 2 x 240 = 3 x 168; 32 + 3 x 160 = 4 x 128
  static constexpr int kConsumerRegs = kWGs == 2 ? 240 : 160;
  static_assert(D % 64 == 0 && D <= 256, "head dim: 64, 128, 192 or 256");
  static_assert(kWGs >= 1 && kWGs <= 3, "one to three consumer warpgroups (the named barrier rings)");
  static_assert(kBlockN % 16 == 0 && kBlockN <= 256, "key tile: a multiple of 16");
  static_assert(kSmemBytes <= kMaxSmemBytes, "shared memory over the 227 KB a block may have");
};

}  // namespace
}  // namespace hopper_attn
