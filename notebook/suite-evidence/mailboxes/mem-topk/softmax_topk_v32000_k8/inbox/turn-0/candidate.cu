// softmax_topk_v32000_k8 candidate: probs = softmax(logits / T), top-8 values and int64 indices.
// One kernel launch, one block per row, one pass over the row (16-byte streaming loads, 4 float4 in
// flight per thread). Each thread keeps an online softmax state (running max m, running sum
// s = sum exp((x - m)/T), rescaled only when its max grows) and a sorted top-8 list of raw logits
// (T > 0 keeps the order), entered only when an element beats both the thread's 8th value and a
// block-wide lower bound of the row's 8th value (shared int, atomicMax; see below). Then a
// warp merge (8 rounds of a shuffle argmax, the winner pops its head), the same merge over the
// warps' lists, and a block reduction of (m, s). Output p_k = exp((x_k - M)/T) / S.
// Block size: 1024 threads for small batches (more bytes in flight for one row), 256 otherwise.
#include <cstdint>
#include <cuda_runtime.h>

namespace topk_detail {
constexpr int kVocab = 32000, kK = 8, kVec4 = kVocab / 4, kUnroll = 4;
static_assert(kVocab % 4 == 0, "rows are whole float4s");

__device__ __forceinline__ float ex2(float x) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}

// Order-preserving float <-> int (signed compare matches float order, NaN aside); an involution.
__device__ __forceinline__ int f2ord(float f) {
  const int i = __float_as_int(f);
  return i >= 0 ? i : i ^ 0x7fffffff;
}
__device__ __forceinline__ float ord2f(int i) { return __int_as_float(i >= 0 ? i : i ^ 0x7fffffff); }

// Sorted descending list in registers (indices fixed at compile time after unrolling).
struct Top8 {
  float v[kK];
  int i[kK];
  __device__ __forceinline__ void init() {
#pragma unroll
    for (int k = 0; k < kK; ++k) {
      v[k] = -INFINITY;
      i[k] = 0x7fffffff;
    }
  }
  __device__ __forceinline__ void insert(float x, int idx, float thr) {
    if (x > v[kK - 1] && x >= thr) {
      v[kK - 1] = x;
      i[kK - 1] = idx;
#pragma unroll
      for (int k = kK - 1; k > 0; --k) {
        if (v[k] > v[k - 1]) {
          const float tv = v[k]; v[k] = v[k - 1]; v[k - 1] = tv;
          const int ti = i[k]; i[k] = i[k - 1]; i[k - 1] = ti;
        }
      }
    }
  }
  // Remove the head (shift left), filling the tail with -inf.
  __device__ __forceinline__ void pop() {
#pragma unroll
    for (int k = 0; k < kK - 1; ++k) {
      v[k] = v[k + 1];
      i[k] = i[k + 1];
    }
    v[kK - 1] = -INFINITY;
    i[kK - 1] = 0x7fffffff;
  }
};

// a beats b: larger value, or equal value and smaller index (torch-like stable preference).
__device__ __forceinline__ bool beats(float av, int ai, float bv, int bi) {
  return av > bv || (av == bv && ai < bi);
}

// Warp-wide merge of the 32 lanes' sorted lists: lane 0..7 end with the warp's k-th best in
// (out_v, out_i) for k = lane (lanes >= 8 get nothing useful).
__device__ __forceinline__ void warp_merge(Top8& t, float& out_v, int& out_i) {
  const int lane = threadIdx.x & 31;
  out_v = -INFINITY;
  out_i = 0x7fffffff;
#pragma unroll
  for (int r = 0; r < kK; ++r) {
    float bv = t.v[0];
    int bi = t.i[0];
    int bl = lane;
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) {
      const float ov = __shfl_xor_sync(0xffffffffu, bv, o);
      const int oi = __shfl_xor_sync(0xffffffffu, bi, o);
      const int ol = __shfl_xor_sync(0xffffffffu, bl, o);
      if (beats(ov, oi, bv, bi) || (ov == bv && oi == bi && ol < bl)) {
        bv = ov;
        bi = oi;
        bl = ol;
      }
    }
    if (lane == r) {
      out_v = bv;
      out_i = bi;
    }
    if (lane == bl) t.pop();
  }
}

template <int kThreads>
__global__ void __launch_bounds__(kThreads)
    softmax_topk_rows(const float* __restrict__ logits, float temperature, float* __restrict__ top_probs,
                      int64_t* __restrict__ top_indices) {
  constexpr int kWarps = kThreads / 32;
  const int t = threadIdx.x;
  const std::size_t row = blockIdx.x;
  const float4* xr = reinterpret_cast<const float4*>(logits + row * kVocab);
  const float c = 1.4426950408889634f / temperature;  // log2(e) / T

  // Block-wide lower bound of the row's 8th-largest logit: any thread whose list is full certifies 8
  // elements >= its 8th value, so the max of those (kept as an order-preserving int, atomicMax)
  // is a valid bound at all times; a stale read is only a lower, still valid, bound. Elements
  // below it can never be in the row's top-8 and skip the (costly) sorted insertion.
  __shared__ int sh_thr;
  if (t == 0) sh_thr = f2ord(-INFINITY);
  __syncthreads();

  float m = -INFINITY, s = 0.f;
  Top8 top;
  top.init();

  for (int base = t; base < kVec4; base += kUnroll * kThreads) {
    float4 a[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const int j = base + u * kThreads;
      a[u] = j < kVec4 ? __ldcs(xr + j) : make_float4(-INFINITY, -INFINITY, -INFINITY, -INFINITY);
    }
    float thr = fmaxf(ord2f(*reinterpret_cast<volatile int*>(&sh_thr)), top.v[kK - 1]);
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      // u == 0 is always a real float4 (base < kVec4), so m is finite before any padding is seen.
      const float4 q = a[u];
      const float lm = fmaxf(fmaxf(q.x, q.y), fmaxf(q.z, q.w));
      if (lm > m) {
        s *= ex2((m - lm) * c);  // m = -inf on the first float4: ex2(-inf) = 0, s = 0
        m = lm;
      }
      const float mc = m * c;
      s += (ex2(fmaf(q.x, c, -mc)) + ex2(fmaf(q.y, c, -mc))) + (ex2(fmaf(q.z, c, -mc)) + ex2(fmaf(q.w, c, -mc)));
      // thr >= own 8th value, so "x >= thr && x > own 8th" keeps every element that can still be
      // in the row's top-8 (x == thr only matters for exact ties).
      if (lm >= thr && lm > top.v[kK - 1]) {
        const int e = 4 * (base + u * kThreads);
        top.insert(q.x, e, thr);
        top.insert(q.y, e + 1, thr);
        top.insert(q.z, e + 2, thr);
        top.insert(q.w, e + 3, thr);
        if (top.v[kK - 1] > thr) {  // list full and its 8th value beats the shared bound
          thr = top.v[kK - 1];
          atomicMax(&sh_thr, f2ord(thr));
        }
      }
    }
  }

  // ---- softmax state: block max M and S = sum s_t * exp((m_t - M)/T) ----
  __shared__ float sh_m[kWarps], sh_s[kWarps];
  __shared__ float sh_v[kWarps * kK];
  __shared__ int sh_i[kWarps * kK];
  float wm = m;
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) wm = fmaxf(wm, __shfl_xor_sync(0xffffffffu, wm, o));
  float ws = (m == -INFINITY) ? 0.f : s * ex2((m - wm) * c);
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) ws += __shfl_xor_sync(0xffffffffu, ws, o);

  // ---- warp top-8 ----
  float kv;
  int ki;
  warp_merge(top, kv, ki);
  const int lane = t & 31, warp = t >> 5;
  if (lane < kK) {
    sh_v[warp * kK + lane] = kv;
    sh_i[warp * kK + lane] = ki;
  }
  if (lane == 0) {
    sh_m[warp] = wm;
    sh_s[warp] = ws;
  }
  __syncthreads();

  if (warp == 0) {
    // Block (M, S).
    float bm = lane < kWarps ? sh_m[lane] : -INFINITY;
    float bs = lane < kWarps ? sh_s[lane] : 0.f;
    float M = bm;
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) M = fmaxf(M, __shfl_xor_sync(0xffffffffu, M, o));
    float S = (bm == -INFINITY) ? 0.f : bs * ex2((bm - M) * c);
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) S += __shfl_xor_sync(0xffffffffu, S, o);

    // Block top-8: lane w < kWarps takes warp w's sorted list.
    Top8 lt;
    lt.init();
    if (lane < kWarps) {
#pragma unroll
      for (int k = 0; k < kK; ++k) {
        lt.v[k] = sh_v[lane * kK + k];
        lt.i[k] = sh_i[lane * kK + k];
      }
    }
    float fv;
    int fi;
    warp_merge(lt, fv, fi);
    if (lane < kK) {
      const float p = ex2((fv - M) * c) / S;
      top_probs[row * kK + lane] = p;
      top_indices[row * kK + lane] = static_cast<int64_t>(fi);
    }
  }
}
}  // namespace topk_detail

extern "C" void softmax_topk_v32000_k8(const float* logits, float temperature, float* top_probs, int64_t* top_indices,
                                        int64_t batch, cudaStream_t stream) {
  using namespace topk_detail;
  if (batch <= 0) return;
  const unsigned grid = static_cast<unsigned>(batch);
  if (batch <= 132) {  // up to one row per SM: 1024 threads a row
    softmax_topk_rows<1024><<<grid, 1024, 0, stream>>>(logits, temperature, top_probs, top_indices);
  } else {
    softmax_topk_rows<256><<<grid, 256, 0, stream>>>(logits, temperature, top_probs, top_indices);
  }
}
