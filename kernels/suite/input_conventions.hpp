// SOL-ExecBench's input conventions that are more than a distribution's parameters (its bench io,
// `_generate_heuristic_tensor`): the cosine or sine of a clamped normal (RoPE tables), a positive
// statistic (|normal| + 0.1), a causal mask, the running sum of uniform decays (`A_cumsum`) and a
// softmax of normal logits (attention or routing weights, a sampling problem's `probs`). Plain C++:
// the runner's generator kernels (problem.cu) call these functions on the device, the CPU tests
// on the host, each given the random numbers it needs (the runner's counter-based draws on the
// device, any generator on the host), so the same arithmetic is checked without a GPU.
#pragma once

#include <cmath>
#include <cstdint>

#include "dtype.hpp"

namespace socratic::harness::suite {

/// pi as SOL clamps by it (math.pi, rounded to float).
constexpr float kPi = 3.14159265358979f;

/// `cos` / `cos_cached` / `rope_cos`: the cosine of a standard normal clamped to [-pi, pi].
SOCRATIC_HOST_DEVICE inline float cos_of_clamped_normal(float normal) {
  return cosf(fminf(fmaxf(normal, -kPi), kPi));
}
/// `sin` / `sin_cached` / `rope_sin`: the sine of a standard normal clamped to [-pi, pi].
SOCRATIC_HOST_DEVICE inline float sin_of_clamped_normal(float normal) {
  return sinf(fminf(fmaxf(normal, -kPi), kPi));
}
/// `rstd`, `std`, `var`, `variance` (and `_rstd`, `_std` ... names): |standard normal| + 0.1.
SOCRATIC_HOST_DEVICE inline float positive_statistic(float normal) { return fabsf(normal) + 0.1f; }

/// Whether the flat element `i` of a row-major tensor whose last two dimensions are
/// `rows` x `columns` lies above the diagonal (column > row): a causal mask's masked elements.
SOCRATIC_HOST_DEVICE inline bool causal_masked(std::uint64_t i, std::int64_t rows, std::int64_t columns) {
  const std::uint64_t c = static_cast<std::uint64_t>(columns), r = static_cast<std::uint64_t>(rows);
  const std::uint64_t column = i % c, row = (i / c) % r;
  return column > row;
}

/// The dtype's lowest finite value (torch.finfo(dtype).min) as a float, for a causal mask's masked
/// elements. bf16's is its own (-FLT_MAX would round to -inf); fp64's does not fit in a float and
/// is stored by the kernel itself (causal_mask_masked_double).
SOCRATIC_HOST_DEVICE inline float lowest_finite(Dtype d) {
  switch (d) {
    case Dtype::bf16: return -3.38953139e38f;  // 0xFF7F: the largest bf16 below infinity
    case Dtype::fp16: return -65504.0f;
    case Dtype::fp8_e4m3: return -448.0f;
    case Dtype::fp8_e5m2: return -57344.0f;
    default: return -3.40282347e38f;  // fp32 (and fp64 through the kernel's own value)
  }
}
constexpr double causal_mask_masked_double = -1.7976931348623157e308;

/// The value of a causal mask at flat element `i`: 0 on and below the diagonal, the dtype's lowest
/// value above it.
SOCRATIC_HOST_DEVICE inline float causal_mask_value(std::uint64_t i, std::int64_t rows, std::int64_t columns, Dtype d) {
  return causal_masked(i, rows, columns) ? lowest_finite(d) : 0.0f;
}

/// `A_cumsum`: along each row of `columns` elements starting at flat element `first`, the running
/// sum of uniform values in [low, high) (SOL: uniform in [-0.1, 0]), summed in fp32, each sum
/// stored as written. `uniform01(k)`: a uniform number in (0, 1) for flat element k; `store(k, v)`.
template <class Uniform01, class Store>
SOCRATIC_HOST_DEVICE inline void cumsum_of_uniform_row(std::uint64_t first, std::int64_t columns, float low, float high,
                                                       const Uniform01& uniform01, const Store& store) {
  float sum = 0;
  for (std::int64_t c = 0; c < columns; ++c) {
    const std::uint64_t k = first + static_cast<std::uint64_t>(c);
    sum += low + (high - low) * uniform01(k);
    store(k, sum);
  }
}

/// Attention / routing weights, a sampling problem's `probs`: along each row of `columns`
/// elements starting at flat element `first`, the softmax of standard normal logits (in fp32, as
/// SOL computes it before the cast). `normal(k)`: the logit of flat element k, drawn again on each
/// pass (a pure function of k), so nothing is stored but the result.
template <class Normal, class Store>
SOCRATIC_HOST_DEVICE inline void softmax_of_normal_row(std::uint64_t first, std::int64_t columns, const Normal& normal,
                                                       const Store& store) {
  float largest = -3.40282347e38f;
  for (std::int64_t c = 0; c < columns; ++c) largest = fmaxf(largest, normal(first + static_cast<std::uint64_t>(c)));
  float total = 0;
  for (std::int64_t c = 0; c < columns; ++c) total += expf(normal(first + static_cast<std::uint64_t>(c)) - largest);
  for (std::int64_t c = 0; c < columns; ++c) {
    const std::uint64_t k = first + static_cast<std::uint64_t>(c);
    store(k, expf(normal(k) - largest) / total);
  }
}

}  // namespace socratic::harness::suite
