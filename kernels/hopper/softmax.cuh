#pragma once
// The online softmax in registers, over S tiles held in wgmma's accumulator layout: the mask,
// softmax_step (the running max, lazy rescaling, independent reduction chains, the live columns),
// softmax_stale (no row max while the running one holds), O's rescale, and P's conversion into
// wgmma A-operand fragments.
#include <cmath>
#include <cstdint>

#include "ptx.cuh"
#include "traits.cuh"

namespace hopper_attn {
namespace {

/// Lazy rescaling: a row's running max moves only when it grows by more than this (log2 units),
/// so P's entries stay below 2^8 (exact in fp32 sums, the same relative precision in 16-bit P).
constexpr float kRescaleThreshold = 8.0f;

/// Sets S entries whose key is past seqlen_kv, or above the causal diagonal, to -inf.
template <int kN>
__device__ __forceinline__ void apply_mask(float (&s)[kN / 2], int col0, int row_a, int row_b, const Params& p) {
  const int shift = p.seqlen_kv - p.seqlen_q;  // bottom-right alignment
  const int lim_a = p.causal ? min(p.seqlen_kv, row_a + shift + 1) : p.seqlen_kv;
  const int lim_b = p.causal ? min(p.seqlen_kv, row_b + shift + 1) : p.seqlen_kv;
#pragma unroll
  for (int i = 0; i < kN / 8; ++i) {
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
/// Lazy rescaling (v17, kLazy: d128 and d256, KernelTraits::kLazyRescale): a row keeps its old max as long as the
/// new one exceeds it by at most kRescaleThreshold in log2 units, so P's entries stay below
/// 2^threshold (256: exact in fp32 sums, the same relative precision in 16-bit P) and O and l need
/// no rescale; the result O / l is the same quantity. The decision is taken per row for the whole
/// warp (a vote), so the branch around O's rescale is uniform: after a tile or two, random or real
/// scores seldom raise a row's max by 2^8, and the loop drops O's D/2 multiplies per thread and the
/// two correction exponentials from the softmax's critical path.
/// `gate` brackets the exponentials (the exponential token, KernelTraits::kExpToken; attend_tile's
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
      const bool grows = (mx - m[r]) * scale_log2 > kRescaleThreshold;
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
    // v4's softmax (without lazy rescaling, instruction for instruction): one row at a time.
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

/// The loop's softmax without a row max (v28, KernelTraits::kStaleMax). P against the running max m as it
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

}  // namespace
}  // namespace hopper_attn
