// The fp32 attention reference (see reference.cuh). Deliberately unlike the baseline: no tensor
// cores, no online softmax, no fused tiles; S is written out, normalised exactly, then used.
//
// Cost (an estimate from the kernels' shape, to be checked against the measured figure in
// docs/attention.md): the two GEMMs are classic 64x64-tile, 4x4-per-thread fp32 kernels, a few
// TFLOP/s each on an H100-class GPU. The FA3 grid's largest scenario (16k x 16k, 16 heads of
// 128) needs 2.2 TFLOP non-causal, so a few hundred ms; causal skips tiles above the diagonal.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "reference.cuh"

namespace socratic::attention {
namespace {

constexpr int kTile = 64;       // output tile of both GEMMs
constexpr int kStep = 16;       // reduction step
constexpr int kThreads = 256;   // 16 x 16 threads, 4 x 4 outputs each
constexpr int kPad = 4;         // keeps float4 alignment, spreads the transposing stores

// Which slice of the work one launch covers: units [unit0, unit0 + gridDim.z), unit = (batch,
// head, block of `rows_per_unit` query rows), each with its own [rows_per_unit][seqlen_kv]
// slab of scores in the workspace.
struct Slice {
  int batch, seqlen_q, seqlen_kv, heads_q, heads_kv, head_dim;
  int causal;
  float scale;
  int round_dtype;  // -1: keep fp32; 0/1: round each step's result to bf16/fp16
  long long unit0;
  int rows_per_unit;
  int units_per_head;
};

struct Unit {
  int batch, head, kv_head, row0, rows;
  float* scores;  // [rows_per_unit][seqlen_kv]
};

__device__ Unit locate(const Slice& s, float* workspace) {
  const long long u = s.unit0 + blockIdx.z;
  const long long head_index = u / s.units_per_head;  // batch * heads_q + head
  Unit unit;
  unit.batch = static_cast<int>(head_index / s.heads_q);
  unit.head = static_cast<int>(head_index % s.heads_q);
  unit.kv_head = unit.head / (s.heads_q / s.heads_kv);
  unit.row0 = static_cast<int>(u % s.units_per_head) * s.rows_per_unit;
  unit.rows = min(s.rows_per_unit, s.seqlen_q - unit.row0);
  unit.scores = workspace + static_cast<long long>(blockIdx.z) * s.rows_per_unit * s.seqlen_kv;
  return unit;
}

// The last key row `row` may see (may be negative: the row sees nothing).
__device__ int last_visible_key(const Slice& s, int row) {
  return s.causal ? min(s.seqlen_kv - 1, row + s.seqlen_kv - s.seqlen_q) : s.seqlen_kv - 1;
}

__device__ float to_float(__nv_bfloat16 x) { return __bfloat162float(x); }
__device__ float to_float(__half x) { return __half2float(x); }

__device__ float round_to(float x, int dtype) {
  if (dtype == 0) return __bfloat162float(__float2bfloat16_rn(x));
  if (dtype == 1) return __half2float(__float2half_rn(x));
  return x;
}

// acc[i][j] += a[k][ty*4+i] * b[k][tx*4+j] over one reduction step held in shared memory.
__device__ void accumulate_step(float (&acc)[4][4], const float (*a)[kTile + kPad],
                                const float (*b)[kTile + kPad]) {
  const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
#pragma unroll
  for (int kk = 0; kk < kStep; ++kk) {
    const float4 av = *reinterpret_cast<const float4*>(&a[kk][ty * 4]);
    const float4 bv = *reinterpret_cast<const float4*>(&b[kk][tx * 4]);
    const float ar[4] = {av.x, av.y, av.z, av.w};
    const float br[4] = {bv.x, bv.y, bv.z, bv.w};
#pragma unroll
    for (int i = 0; i < 4; ++i)
#pragma unroll
      for (int j = 0; j < 4; ++j) acc[i][j] = fmaf(ar[i], br[j], acc[i][j]);
  }
}

// S[i][j] = scale * sum_c Q[row0 + i][c] K[j][c] for one 64 x 64 tile of one unit.
template <class T>
__global__ void __launch_bounds__(kThreads) scores_kernel(const T* q, const T* k, float* workspace,
                                                          const Slice s) {
  const Unit unit = locate(s, workspace);
  const int i0 = blockIdx.y * kTile;  // within the unit
  const int j0 = blockIdx.x * kTile;
  if (i0 >= unit.rows) return;
  // A tile wholly above the causal diagonal is never read by the softmax: skip it.
  if (j0 > last_visible_key(s, unit.row0 + min(i0 + kTile, unit.rows) - 1)) return;

  __shared__ __align__(16) float a[kStep][kTile + kPad];
  __shared__ __align__(16) float b[kStep][kTile + kPad];
  const long long q_row_stride = static_cast<long long>(s.heads_q) * s.head_dim;
  const long long kv_row_stride = static_cast<long long>(s.heads_kv) * s.head_dim;
  const T* q_head = q + static_cast<long long>(unit.batch) * s.seqlen_q * q_row_stride +
                    static_cast<long long>(unit.head) * s.head_dim;
  const T* k_head = k + static_cast<long long>(unit.batch) * s.seqlen_kv * kv_row_stride +
                    static_cast<long long>(unit.kv_head) * s.head_dim;

  float acc[4][4] = {};
  const int load_row = threadIdx.x / 4, load_col = (threadIdx.x % 4) * 4;
  for (int c0 = 0; c0 < s.head_dim; c0 += kStep) {
    const int qi = i0 + load_row, kj = j0 + load_row;
#pragma unroll
    for (int e = 0; e < 4; ++e) {
      const int c = c0 + load_col + e;
      a[load_col + e][load_row] =
          qi < unit.rows && c < s.head_dim
              ? to_float(q_head[(unit.row0 + qi) * q_row_stride + c])
              : 0.f;
      b[load_col + e][load_row] =
          kj < s.seqlen_kv && c < s.head_dim ? to_float(k_head[kj * kv_row_stride + c]) : 0.f;
    }
    __syncthreads();
    accumulate_step(acc, a, b);
    __syncthreads();
  }
  const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    const int row = i0 + ty * 4 + i;
    if (row >= unit.rows) continue;
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      const int col = j0 + tx * 4 + j;
      if (col < s.seqlen_kv)
        unit.scores[static_cast<long long>(row) * s.seqlen_kv + col] =
            round_to(acc[i][j] * s.scale, s.round_dtype);
    }
  }
}

// Block-wide reduction (max or sum) of one value per thread.
template <bool kMax>
__device__ float block_reduce(float x, float* scratch) {
#pragma unroll
  for (int offset = 16; offset > 0; offset /= 2) {
    const float y = __shfl_xor_sync(0xffffffffu, x, offset);
    x = kMax ? fmaxf(x, y) : x + y;
  }
  if (threadIdx.x % 32 == 0) scratch[threadIdx.x / 32] = x;
  __syncthreads();
  float total = kMax ? -INFINITY : 0.f;
  for (int w = 0; w < kThreads / 32; ++w) total = kMax ? fmaxf(total, scratch[w]) : total + scratch[w];
  __syncthreads();  // scratch is reused by the next reduction
  return total;
}

// One block per query row: P[j] = exp(S[j] - max) / sum over visible keys, 0 elsewhere.
// A row that sees no key gets an all-zero P, hence an all-zero O.
__global__ void __launch_bounds__(kThreads) softmax_kernel(float* workspace, const Slice s) {
  const Unit unit = locate(s, workspace);
  const int i = blockIdx.x;
  if (i >= unit.rows) return;
  float* row = unit.scores + static_cast<long long>(i) * s.seqlen_kv;
  const int limit = last_visible_key(s, unit.row0 + i);
  __shared__ float scratch[kThreads / 32];

  float local_max = -INFINITY;
  for (int j = threadIdx.x; j <= limit; j += kThreads) local_max = fmaxf(local_max, row[j]);
  const float row_max = block_reduce<true>(local_max, scratch);
  float local_sum = 0.f;
  for (int j = threadIdx.x; j <= limit; j += kThreads) local_sum += expf(row[j] - row_max);
  const float row_sum = block_reduce<false>(local_sum, scratch);
  for (int j = threadIdx.x; j < s.seqlen_kv; j += kThreads)
    row[j] = j <= limit ? round_to(expf(row[j] - row_max) / row_sum, s.round_dtype) : 0.f;
}

// O[row0 + i][c] = sum_j P[i][j] V[j][c] for one 64 x 64 tile (rows x head dims) of one unit.
template <class T>
__global__ void __launch_bounds__(kThreads) output_kernel(const T* v, float* workspace, float* out,
                                                          const Slice s) {
  const Unit unit = locate(s, workspace);
  const int i0 = blockIdx.y * kTile;
  const int c0 = blockIdx.x * kTile;
  if (i0 >= unit.rows) return;
  // Keys past the last row's diagonal carry P = 0: stop the reduction there.
  const int key_end = last_visible_key(s, unit.row0 + min(i0 + kTile, unit.rows) - 1) + 1;

  __shared__ __align__(16) float a[kStep][kTile + kPad];
  __shared__ __align__(16) float b[kStep][kTile + kPad];
  const long long kv_row_stride = static_cast<long long>(s.heads_kv) * s.head_dim;
  const T* v_head = v + static_cast<long long>(unit.batch) * s.seqlen_kv * kv_row_stride +
                    static_cast<long long>(unit.kv_head) * s.head_dim;

  float acc[4][4] = {};
  const int a_row = threadIdx.x / 4, a_col = (threadIdx.x % 4) * 4;  // P: 64 rows x 16 keys
  const int b_row = threadIdx.x / 16, b_col = (threadIdx.x % 16) * 4;  // V: 16 keys x 64 dims
  for (int j0 = 0; j0 < key_end; j0 += kStep) {
#pragma unroll
    for (int e = 0; e < 4; ++e) {
      const int j = j0 + a_col + e;
      a[a_col + e][a_row] = i0 + a_row < unit.rows && j < s.seqlen_kv
                                ? unit.scores[static_cast<long long>(i0 + a_row) * s.seqlen_kv + j]
                                : 0.f;
      const int key = j0 + b_row, c = c0 + b_col + e;
      b[b_row][b_col + e] =
          key < s.seqlen_kv && c < s.head_dim ? to_float(v_head[key * kv_row_stride + c]) : 0.f;
    }
    __syncthreads();
    accumulate_step(acc, a, b);
    __syncthreads();
  }
  const long long q_row_stride = static_cast<long long>(s.heads_q) * s.head_dim;
  float* out_head = out + static_cast<long long>(unit.batch) * s.seqlen_q * q_row_stride +
                    static_cast<long long>(unit.head) * s.head_dim;
  const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    const int row = i0 + ty * 4 + i;
    if (row >= unit.rows) continue;
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      const int c = c0 + tx * 4 + j;
      if (c < s.head_dim)
        out_head[(unit.row0 + row) * q_row_stride + c] = round_to(acc[i][j], s.round_dtype);
    }
  }
}

void check(cudaError_t err, const char* what) {
  if (err != cudaSuccess)
    throw std::runtime_error(std::string("attention reference: ") + what + ": " +
                             cudaGetErrorString(err));
}

// How the work is cut to fit the workspace: whole heads per unit when a head's scores fit,
// otherwise blocks of query rows; as many units per launch as the workspace holds.
struct Plan {
  long long rows_per_unit, units_per_head, total_units, unit_floats, units_per_launch;
};

Plan plan_slices(const Shape& shape, long long budget_floats) {
  Plan plan;
  plan.rows_per_unit = std::min<long long>(
      shape.seqlen_q, std::max<long long>(1, budget_floats / shape.seqlen_kv));
  plan.units_per_head = (shape.seqlen_q + plan.rows_per_unit - 1) / plan.rows_per_unit;
  plan.total_units = static_cast<long long>(shape.batch) * shape.heads_q * plan.units_per_head;
  plan.unit_floats = plan.rows_per_unit * shape.seqlen_kv;
  plan.units_per_launch = std::min<long long>(
      {plan.total_units, 65535, std::max<long long>(1, budget_floats / plan.unit_floats)});
  return plan;
}

template <class T>
void run_slices(const Shape& shape, const Plan& plan, const T* q, const T* k, const T* v,
                float* out, float* workspace, int round_dtype, cudaStream_t stream) {
  Slice s{};
  s.batch = shape.batch;
  s.seqlen_q = shape.seqlen_q;
  s.seqlen_kv = shape.seqlen_kv;
  s.heads_q = shape.heads_q;
  s.heads_kv = shape.heads_kv;
  s.head_dim = shape.head_dim;
  s.causal = shape.causal ? 1 : 0;
  s.scale = shape.softmax_scale;
  s.round_dtype = round_dtype;
  s.rows_per_unit = static_cast<int>(plan.rows_per_unit);
  s.units_per_head = static_cast<int>(plan.units_per_head);

  const unsigned row_tiles = static_cast<unsigned>((plan.rows_per_unit + kTile - 1) / kTile);
  const unsigned key_tiles = static_cast<unsigned>((shape.seqlen_kv + kTile - 1) / kTile);
  for (long long unit0 = 0; unit0 < plan.total_units; unit0 += plan.units_per_launch) {
    s.unit0 = unit0;
    const unsigned units =
        static_cast<unsigned>(std::min(plan.units_per_launch, plan.total_units - unit0));
    scores_kernel<T><<<dim3(key_tiles, row_tiles, units),
                       kThreads, 0, stream>>>(q, k, workspace, s);
    check(cudaGetLastError(), "scores kernel launch");
    softmax_kernel<<<dim3(static_cast<unsigned>(plan.rows_per_unit), 1, units), kThreads, 0,
                     stream>>>(
        workspace, s);
    check(cudaGetLastError(), "softmax kernel launch");
    output_kernel<T><<<dim3(static_cast<unsigned>((shape.head_dim + kTile - 1) / kTile), row_tiles,
                            units),
                       kThreads, 0, stream>>>(v, workspace, out, s);
    check(cudaGetLastError(), "output kernel launch");
  }
}

}  // namespace

Reference::~Reference() {
  if (workspace_ != nullptr) cudaFree(workspace_);
}

void Reference::reserve(std::size_t bytes) {
  if (bytes <= workspace_bytes_) return;
  if (workspace_ != nullptr) check(cudaFree(workspace_), "cudaFree(workspace)");
  workspace_ = nullptr;
  workspace_bytes_ = 0;
  check(cudaMalloc(&workspace_, bytes), "cudaMalloc(workspace)");
  workspace_bytes_ = bytes;
}

void Reference::run(const Shape& shape, const void* q, const void* k, const void* v, float* out,
                    cudaStream_t stream, bool emulate_low_precision) {
  if (shape.batch < 1 || shape.seqlen_q < 1 || shape.seqlen_kv < 1 || shape.heads_q < 1 ||
      shape.heads_kv < 1 || shape.head_dim < 1 || shape.heads_q % shape.heads_kv != 0)
    throw std::runtime_error("attention reference: invalid shape");
  const Plan plan = plan_slices(
      shape, std::max<long long>(static_cast<long long>(budget_bytes_ / sizeof(float)), 1));
  reserve(static_cast<std::size_t>(plan.units_per_launch * plan.unit_floats) * sizeof(float));

  const int round_dtype = emulate_low_precision ? shape.dtype : -1;
  if (shape.dtype == 0)
    run_slices(shape, plan, static_cast<const __nv_bfloat16*>(q),
               static_cast<const __nv_bfloat16*>(k), static_cast<const __nv_bfloat16*>(v), out,
               workspace_, round_dtype, stream);
  else
    run_slices(shape, plan, static_cast<const __half*>(q), static_cast<const __half*>(k),
               static_cast<const __half*>(v), out, workspace_, round_dtype, stream);
}

}  // namespace socratic::attention
