// Attention forward, FlashAttention-2 style: the baseline every candidate is measured against.
//
// One CUDA file, no libraries. Each block owns kBlockM query rows of one (batch, query head);
// each of its warps owns 16 of those rows from start to end, so the softmax statistics of a row
// never leave the four lanes that hold it. The block walks the key/value sequence in tiles of
// kBlockN keys: S = Q K^T and O += P V run on the tensor cores through inline-PTX
// `mma.sync.aligned.m16n8k16` (bf16 or fp16 operands, fp32 accumulators), operands reach registers
// through `ldmatrix`, and the next K/V tile is already on its way into shared memory (`cp.async`,
// two stages) while the current one is used. The softmax is online: a running row maximum and
// row sum, the accumulator rescaled whenever the maximum grows, one division at the end.
//
// Semantics (attention_args.h): BSHD layout; grouped-query heads; causal masks key j for query i
// when j > i + seqlen_kv - seqlen_q (bottom-right aligned); a row with no visible key yields zeros.
// Supported: head_dim a multiple of 8 up to 256 (computed at the next of 64/128/256, the extra
// columns zero-filled), 16-byte aligned pointers, any sequence lengths, batch and heads_q up to
// 65535. Anything else returns 1; a failed launch returns 2.
//
// Tiles: 8 warps x 16 query rows = 128 rows per block; K/V tiles of 128 keys (d <= 128) or 64
// keys (d = 256); shared memory (128 + 4 x kBlockN) x (d + 8) x 2 bytes; one block per SM.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <atomic>
#include <cmath>
#include <cstdint>

#include "attention_args.h"

namespace {

// ---------------------------------------------------------------------------------------------
// Element types: how to pack two fp32 values into one mma operand register, and the mma itself.

struct Bf16 {
  using T = __nv_bfloat16;
  static __device__ __forceinline__ uint32_t pack(float lo, float hi) {
    __nv_bfloat162 v = __floats2bfloat162_rn(lo, hi);  // .x (low half) holds `lo`
    return *reinterpret_cast<uint32_t*>(&v);
  }
  // D = A(16x16, row) * B(16x8, col) + D, fp32 accumulate.
  static __device__ __forceinline__ void mma(float (&d)[4], const uint32_t (&a)[4], uint32_t b0,
                                             uint32_t b1) {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
        "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
  }
};

struct Fp16 {
  using T = __half;
  static __device__ __forceinline__ uint32_t pack(float lo, float hi) {
    __half2 v = __floats2half2_rn(lo, hi);
    return *reinterpret_cast<uint32_t*>(&v);
  }
  static __device__ __forceinline__ void mma(float (&d)[4], const uint32_t (&a)[4], uint32_t b0,
                                             uint32_t b1) {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
        "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
  }
};

// ---------------------------------------------------------------------------------------------
// PTX helpers.

__device__ __forceinline__ uint32_t shared_address(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

// 16 bytes global -> shared, bypassing L1. With `valid` false nothing is read and the 16 bytes
// are zero-filled: tails of ragged tiles become zeros, never stale data (0 * NaN would poison O).
__device__ __forceinline__ void cp_async_16(uint32_t dst, const void* src, bool valid) {
  const int src_bytes = valid ? 16 : 0;
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src),
               "r"(src_bytes)
               : "memory");
}
__device__ __forceinline__ void cp_async_commit() {
  asm volatile("cp.async.commit_group;\n" ::: "memory");
}
template <int kPending>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(kPending) : "memory");
}

__device__ __forceinline__ void ldmatrix_x4(uint32_t (&r)[4], uint32_t address) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(address)
               : "memory");
}
__device__ __forceinline__ void ldmatrix_x4_trans(uint32_t (&r)[4], uint32_t address) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(address)
               : "memory");
}

// 2^x on the special-function unit; 2^-inf = +0, which is how masked scores vanish.
__device__ __forceinline__ float exp2_approx(float x) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;\n" : "=f"(y) : "f"(x));
  return y;
}

// ---------------------------------------------------------------------------------------------
// Tile configuration per padded head dim.

template <int kHeadDim_, int kBlockN_, bool kQInRegisters_, int kWarps_>
struct Tiles {
  static constexpr int kHeadDim = kHeadDim_;  // head_dim rounded up to this; extra columns are 0
  static constexpr int kWarps = kWarps_;
  static constexpr int kThreads = kWarps * 32;
  // Blocks of 4 warps run two to a multiprocessor (registers allow 2 x 128 x 255), so one
  // block's softmax overlaps the other's matrix work; 8-warp blocks run one at a time.
  static constexpr int kBlocksPerSm = kWarps == 4 ? 2 : 1;
  static constexpr int kBlockM = kWarps * 16;  // query rows per block, 16 per warp
  static constexpr int kBlockN = kBlockN_;     // keys per K/V tile
  // Q fragments either stay in registers for the whole block or are re-read from shared
  // memory at every K/V tile: registers free for a wider S tile are worth more at d >= 128.
  static constexpr bool kQInRegisters = kQInRegisters_;
  // Rows padded by 16 bytes: consecutive rows start 4 banks apart, so the eight row addresses
  // of an ldmatrix phase hit distinct banks (row pitches of 128/256/512 bytes would all collide).
  static constexpr int kPitch = kHeadDim + 8;  // elements
  static constexpr int kChunksPerRow = kHeadDim / 8;  // 16-byte chunks
  static constexpr int kSharedBytes = (kBlockM + 4 * kBlockN) * kPitch * 2;  // Q + 2 x (K, V)

  static_assert(kHeadDim % 16 == 0 && kBlockN % 16 == 0, "mma tiles are 16 wide");
  static_assert(kWarps == 4 || kWarps == 8, "4 or 8 warps");
  static_assert(kBlocksPerSm * kSharedBytes <= 227 * 1024, "shared memory per multiprocessor");
  static_assert((kBlockM * kChunksPerRow) % kThreads == 0, "Q tile loads split evenly");
  static_assert((kBlockN * kChunksPerRow) % kThreads == 0, "K/V tile loads split evenly");
};

// Chosen by measurement on an H200 (docs/attention.md, run of 2026-11-29): against 4-warp
// blocks two per SM, and against S tiles half as wide, these were fastest at every head dim
// (d=128/256 most clearly, by 3-14%). None spills (nvcc -Xptxas -v: 217, 255 and 246 registers).
using TilesD64 = Tiles<64, 128, true, 8>;
using TilesD128 = Tiles<128, 128, false, 8>;
using TilesD256 = Tiles<256, 64, false, 8>;

struct Params {
  const void* q;
  const void* k;
  const void* v;
  void* o;
  int seqlen_q, seqlen_kv;
  int heads_q, heads_kv, head_dim;
  int group;  // heads_q / heads_kv
  int causal;
  float scale_log2;  // softmax_scale * log2(e): the softmax runs in base 2
};

// Copies `kRows` rows of a [rows][row_stride] tensor starting at `row0` into shared memory
// (pitch kPitch). Rows >= `rows_valid` and columns >= head_dim are zero-filled.
template <class Cfg, int kRows, class T>
__device__ __forceinline__ void load_tile_async(T* shared, const T* global, int64_t row_stride,
                                                int row0, int rows_valid, int head_dim) {
#pragma unroll
  for (int i = 0; i < kRows * Cfg::kChunksPerRow / Cfg::kThreads; ++i) {
    const int chunk = threadIdx.x + i * Cfg::kThreads;
    const int row = chunk / Cfg::kChunksPerRow;
    const int col = (chunk % Cfg::kChunksPerRow) * 8;
    const bool valid = row0 + row < rows_valid && col < head_dim;
    const T* src = valid ? global + (row0 + row) * row_stride + col : global;
    cp_async_16(shared_address(shared + row * Cfg::kPitch + col), src, valid);
  }
}

template <class Cfg, class E>
__global__ void __launch_bounds__(Cfg::kThreads, Cfg::kBlocksPerSm)
    attention_forward_kernel(const Params p) {
  using T = typename E::T;
  constexpr int kD = Cfg::kHeadDim;
  constexpr int kM = Cfg::kBlockM;
  constexpr int kN = Cfg::kBlockN;
  constexpr int kPitch = Cfg::kPitch;

  extern __shared__ __align__(16) unsigned char shared_bytes[];
  T* const sQ = reinterpret_cast<T*>(shared_bytes);
  T* const sK = sQ + kM * kPitch;      // [2][kN][kPitch]
  T* const sV = sK + 2 * kN * kPitch;  // [2][kN][kPitch]

  // Heaviest query blocks first: under causal masking the last rows see the most keys, and
  // starting them early keeps the tail of the grid short.
  const int m_block = gridDim.x - 1 - blockIdx.x;
  const int head = blockIdx.y;
  const int batch = blockIdx.z;
  const int m0 = m_block * kM;
  const int warp = threadIdx.x / 32;
  const int lane = threadIdx.x % 32;

  const int64_t q_row_stride = static_cast<int64_t>(p.heads_q) * p.head_dim;
  const int64_t kv_row_stride = static_cast<int64_t>(p.heads_kv) * p.head_dim;
  const int64_t q_offset = static_cast<int64_t>(batch) * p.seqlen_q * q_row_stride +
                           static_cast<int64_t>(head) * p.head_dim;
  const int64_t kv_offset = static_cast<int64_t>(batch) * p.seqlen_kv * kv_row_stride +
                            static_cast<int64_t>(head / p.group) * p.head_dim;
  const T* const q = static_cast<const T*>(p.q) + q_offset;
  const T* const k = static_cast<const T*>(p.k) + kv_offset;
  const T* const v = static_cast<const T*>(p.v) + kv_offset;
  T* const o = static_cast<T*>(p.o) + q_offset;

  // Keys this block needs: all of them, or under the causal mask those up to the diagonal of
  // its last valid row. Tiles past that are entirely masked for every row and are skipped.
  const int diagonal_shift = p.seqlen_kv - p.seqlen_q;  // row i sees keys j <= i + shift
  const int last_row = min(m0 + kM, p.seqlen_q) - 1;
  const int key_end = p.causal ? min(p.seqlen_kv, last_row + diagonal_shift + 1) : p.seqlen_kv;
  const int n_tiles = key_end > 0 ? (key_end + kN - 1) / kN : 0;

  if (n_tiles == 0) {  // no row of this block sees any key: zeros, as the contract says
    constexpr int kChunks = kD / 8;
    for (int chunk = threadIdx.x; chunk < kM * kChunks; chunk += Cfg::kThreads) {
      const int row = chunk / kChunks;
      const int col = (chunk % kChunks) * 8;
      if (m0 + row < p.seqlen_q && col < p.head_dim)
        *reinterpret_cast<uint4*>(o + (m0 + row) * q_row_stride + col) = make_uint4(0, 0, 0, 0);
    }
    return;
  }

  load_tile_async<Cfg, kM>(sQ, q, q_row_stride, m0, p.seqlen_q, p.head_dim);
  load_tile_async<Cfg, kN>(sK, k, kv_row_stride, 0, p.seqlen_kv, p.head_dim);
  load_tile_async<Cfg, kN>(sV, v, kv_row_stride, 0, p.seqlen_kv, p.head_dim);
  cp_async_commit();

  // Fragment ownership (PTX m16n8k16): lane holds rows lane/4 and lane/4 + 8 of its warp's
  // 16 rows, and columns 2*(lane%4) + {0,1} of every 8-column block.
  float o_acc[kD / 8][4];
#pragma unroll
  for (int i = 0; i < kD / 8; ++i) o_acc[i][0] = o_acc[i][1] = o_acc[i][2] = o_acc[i][3] = 0.f;
  float row_max[2] = {-INFINITY, -INFINITY};  // in log2 units (scores already scaled)
  float row_sum[2] = {0.f, 0.f};              // this lane's partial sums; reduced at the end
  uint32_t q_frag[Cfg::kQInRegisters ? kD / 16 : 1][4];

  // ldmatrix row addresses. A operand (Q, 16x16): lanes 0-15 address rows 0-15 at column 0,
  // lanes 16-31 the same rows at column 8. B operand from K (keys x dims, non-transposed):
  // matrices are (keys 0-7, dims 0-7), (keys 0-7, dims 8-15), (keys 8-15, dims 0-7), (keys 8-15,
  // dims 8-15), giving b0/b1 of two adjacent 8-key blocks. B operand from V (keys x dims,
  // transposed load): (keys 0-7, dims 0-7), (keys 8-15, dims 0-7), (keys 0-7, dims 8-15), ...
  const uint32_t q_lane_address =
      shared_address(sQ + (warp * 16 + lane % 16) * kPitch + (lane / 16) * 8);
  const int k_lane_offset = (lane % 8 + (lane / 16) * 8) * kPitch + ((lane / 8) % 2) * 8;
  const int v_lane_offset = (lane % 8 + ((lane / 8) % 2) * 8) * kPitch + (lane / 16) * 8;
  const int first_row = m0 + warp * 16 + lane / 4;  // this lane's rows: first_row, first_row + 8

  for (int tile = 0; tile < n_tiles; ++tile) {
    const int stage = tile % 2;
    // Stage `stage ^ 1` was last read in the previous iteration, which ended on a barrier.
    if (tile + 1 < n_tiles) {
      const int next_key0 = (tile + 1) * kN;
      load_tile_async<Cfg, kN>(sK + (stage ^ 1) * kN * kPitch, k, kv_row_stride, next_key0,
                               p.seqlen_kv, p.head_dim);
      load_tile_async<Cfg, kN>(sV + (stage ^ 1) * kN * kPitch, v, kv_row_stride, next_key0,
                               p.seqlen_kv, p.head_dim);
    }
    cp_async_commit();  // possibly empty: keeps "all but the newest group" meaning this tile
    cp_async_wait<1>();
    __syncthreads();

    if constexpr (Cfg::kQInRegisters) {
      if (tile == 0) {
#pragma unroll
        for (int kk = 0; kk < kD / 16; ++kk) ldmatrix_x4(q_frag[kk], q_lane_address + kk * 32);
      }
    }

    // S = Q K^T for this warp's 16 rows and the tile's kN keys.
    const T* const sK_stage = sK + stage * kN * kPitch;
    const T* const sV_stage = sV + stage * kN * kPitch;
    const uint32_t k_address = shared_address(sK_stage + k_lane_offset);
    float s[kN / 8][4];
#pragma unroll
    for (int i = 0; i < kN / 8; ++i) s[i][0] = s[i][1] = s[i][2] = s[i][3] = 0.f;
#pragma unroll
    for (int kk = 0; kk < kD / 16; ++kk) {
      uint32_t a[4];
      if constexpr (Cfg::kQInRegisters) {
#pragma unroll
        for (int r = 0; r < 4; ++r) a[r] = q_frag[kk][r];
      } else {
        ldmatrix_x4(a, q_lane_address + kk * 32);
      }
#pragma unroll
      for (int nb = 0; nb < kN / 16; ++nb) {
        uint32_t b[4];
        ldmatrix_x4(b, k_address + (nb * 16 * kPitch + kk * 16) * 2);
        E::mma(s[2 * nb], a, b[0], b[1]);
        E::mma(s[2 * nb + 1], a, b[2], b[3]);
      }
    }

    // Scale into log2 units, then mask: keys past the end, and under causal keys past the
    // row's diagonal. Only tiles that reach past the end or the first row's diagonal need it.
    const int key0 = tile * kN;
    const bool needs_mask =
        key0 + kN > p.seqlen_kv || (p.causal && key0 + kN - 1 > m0 + diagonal_shift);
#pragma unroll
    for (int nb = 0; nb < kN / 8; ++nb) {
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        s[nb][e] *= p.scale_log2;
        if (needs_mask) {
          const int key = key0 + nb * 8 + (lane % 4) * 2 + (e % 2);
          const int row = first_row + (e / 2) * 8;
          const bool visible = key < p.seqlen_kv && (!p.causal || key <= row + diagonal_shift);
          if (!visible) s[nb][e] = -INFINITY;
        }
      }
    }

    // Online softmax, one row pair per lane; the four lanes of a quad share each row.
#pragma unroll
    for (int r = 0; r < 2; ++r) {
      float tile_max = -INFINITY;
#pragma unroll
      for (int nb = 0; nb < kN / 8; ++nb) tile_max = fmaxf(tile_max, fmaxf(s[nb][2 * r], s[nb][2 * r + 1]));
      tile_max = fmaxf(tile_max, __shfl_xor_sync(0xffffffffu, tile_max, 1));
      tile_max = fmaxf(tile_max, __shfl_xor_sync(0xffffffffu, tile_max, 2));
      const float new_max = fmaxf(row_max[r], tile_max);
      // A row with nothing visible yet keeps max -inf; subtracting 0 instead avoids inf - inf,
      // and its probabilities come out as 2^-inf = 0.
      const float pivot = new_max == -INFINITY ? 0.f : new_max;
      const float rescale = exp2_approx(row_max[r] - pivot);
      row_max[r] = new_max;
      row_sum[r] *= rescale;
#pragma unroll
      for (int i = 0; i < kD / 8; ++i) {
        o_acc[i][2 * r] *= rescale;
        o_acc[i][2 * r + 1] *= rescale;
      }
#pragma unroll
      for (int nb = 0; nb < kN / 8; ++nb) {
        s[nb][2 * r] = exp2_approx(s[nb][2 * r] - pivot);
        s[nb][2 * r + 1] = exp2_approx(s[nb][2 * r + 1] - pivot);
        row_sum[r] += s[nb][2 * r] + s[nb][2 * r + 1];
      }
    }

    // O += P V. The S accumulator layout of two adjacent 8-key blocks is exactly the A operand
    // layout of one 16-key slice, so P goes from registers to the tensor cores unshuffled.
    const uint32_t v_address = shared_address(sV_stage + v_lane_offset);
#pragma unroll
    for (int kc = 0; kc < kN / 16; ++kc) {
      const uint32_t a[4] = {E::pack(s[2 * kc][0], s[2 * kc][1]), E::pack(s[2 * kc][2], s[2 * kc][3]),
                             E::pack(s[2 * kc + 1][0], s[2 * kc + 1][1]),
                             E::pack(s[2 * kc + 1][2], s[2 * kc + 1][3])};
#pragma unroll
      for (int nd = 0; nd < kD / 16; ++nd) {
        uint32_t b[4];
        ldmatrix_x4_trans(b, v_address + (kc * 16 * kPitch + nd * 16) * 2);
        E::mma(o_acc[2 * nd], a, b[0], b[1]);
        E::mma(o_acc[2 * nd + 1], a, b[2], b[3]);
      }
    }
    __syncthreads();  // everyone is done with this stage before it is refilled
  }
  cp_async_wait<0>();

  // Normalise, stage the warp's 16 rows in its own rows of sQ (no other warp reads them), and
  // write them out with 16-byte stores.
  float inverse[2];
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    float sum = row_sum[r];
    sum += __shfl_xor_sync(0xffffffffu, sum, 1);
    sum += __shfl_xor_sync(0xffffffffu, sum, 2);
    inverse[r] = sum > 0.f ? 1.f / sum : 0.f;  // an empty row has sum 0 and an all-zero O
  }
  T* const sO = sQ + warp * 16 * kPitch;
#pragma unroll
  for (int i = 0; i < kD / 8; ++i) {
    const int col = i * 8 + (lane % 4) * 2;
    *reinterpret_cast<uint32_t*>(sO + (lane / 4) * kPitch + col) =
        E::pack(o_acc[i][0] * inverse[0], o_acc[i][1] * inverse[0]);
    *reinterpret_cast<uint32_t*>(sO + (lane / 4 + 8) * kPitch + col) =
        E::pack(o_acc[i][2] * inverse[1], o_acc[i][3] * inverse[1]);
  }
  __syncwarp();
#pragma unroll
  for (int i = 0; i < 16 * Cfg::kChunksPerRow / 32; ++i) {
    const int chunk = lane + i * 32;
    const int row = chunk / Cfg::kChunksPerRow;
    const int col = (chunk % Cfg::kChunksPerRow) * 8;
    const int global_row = m0 + warp * 16 + row;
    if (global_row < p.seqlen_q && col < p.head_dim)
      *reinterpret_cast<uint4*>(o + global_row * q_row_stride + col) =
          *reinterpret_cast<const uint4*>(sO + row * kPitch + col);
  }
}

// Raises the kernel's dynamic shared memory limit once per device (the call costs host time
// that would otherwise sit inside every timed launch).
template <class Cfg, class E>
cudaError_t prepare_kernel() {
  static std::atomic<uint64_t> prepared_devices{0};
  int device = 0;
  cudaError_t err = cudaGetDevice(&device);
  if (err != cudaSuccess) return err;
  const uint64_t bit = device < 64 ? (uint64_t{1} << device) : 0;
  if (bit != 0 && (prepared_devices.load(std::memory_order_acquire) & bit)) return cudaSuccess;
  err = cudaFuncSetAttribute(attention_forward_kernel<Cfg, E>,
                             cudaFuncAttributeMaxDynamicSharedMemorySize, Cfg::kSharedBytes);
  if (err == cudaSuccess && bit != 0) prepared_devices.fetch_or(bit, std::memory_order_acq_rel);
  return err;
}

template <class Cfg, class E>
int launch(const Params& p, int batch, cudaStream_t stream) {
  if (prepare_kernel<Cfg, E>() != cudaSuccess) return 2;
  const dim3 grid((p.seqlen_q + Cfg::kBlockM - 1) / Cfg::kBlockM, p.heads_q, batch);
  attention_forward_kernel<Cfg, E><<<grid, Cfg::kThreads, Cfg::kSharedBytes, stream>>>(p);
  return cudaGetLastError() == cudaSuccess ? 0 : 2;
}

template <class E>
int dispatch_head_dim(const Params& p, int batch, cudaStream_t stream) {
  if (p.head_dim <= 64) return launch<TilesD64, E>(p, batch, stream);
  if (p.head_dim <= 128) return launch<TilesD128, E>(p, batch, stream);
  return launch<TilesD256, E>(p, batch, stream);
}

bool aligned16(const void* p) { return (reinterpret_cast<uintptr_t>(p) & 15u) == 0; }

}  // namespace

/* Returns 0 after launching, 1 for an unsupported configuration, 2 when the launch failed. */
extern "C" int socratic_attention_forward(const socratic_attention_args* a, cudaStream_t stream) {
  if (a == nullptr || !a->q || !a->k || !a->v || !a->o) return 1;
  if (a->batch < 1 || a->seqlen_q < 1 || a->seqlen_kv < 1 || a->heads_q < 1 || a->heads_kv < 1)
    return 1;
  if (a->heads_q % a->heads_kv != 0) return 1;
  if (a->head_dim < 8 || a->head_dim > 256 || a->head_dim % 8 != 0) return 1;
  if (a->dtype != SOCRATIC_BF16 && a->dtype != SOCRATIC_FP16) return 1;
  if (!std::isfinite(a->softmax_scale)) return 1;
  if (a->heads_q > 65535 || a->batch > 65535) return 1;  // grid y/z limits
  if (!aligned16(a->q) || !aligned16(a->k) || !aligned16(a->v) || !aligned16(a->o)) return 1;

  Params p;
  p.q = a->q;
  p.k = a->k;
  p.v = a->v;
  p.o = a->o;
  p.seqlen_q = a->seqlen_q;
  p.seqlen_kv = a->seqlen_kv;
  p.heads_q = a->heads_q;
  p.heads_kv = a->heads_kv;
  p.head_dim = a->head_dim;
  p.group = a->heads_q / a->heads_kv;
  p.causal = a->causal != 0;
  p.scale_log2 = a->softmax_scale * 1.4426950408889634f;
  return a->dtype == SOCRATIC_BF16 ? dispatch_head_dim<Bf16>(p, a->batch, stream)
                                   : dispatch_head_dim<Fp16>(p, a->batch, stream);
}
