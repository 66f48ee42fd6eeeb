// The attention problem's fp32 reference: our own plain GPU kernels, never a library and never
// the baseline. The attention matrix is materialised, so each step is a textbook computation
// that is easy to trust: S = scale * Q K^T (fp32 tiled GEMM), an exact two-pass softmax per row
// with the mask, O = P V (fp32 tiled GEMM). Memory for S is bounded by a workspace budget:
// work is cut into units of (batch, head, block of query rows) and run a few units per launch.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "shape.cuh"

namespace socratic::attention {

/// @brief The fp32 attention reference and its workspace (S for a few units of work at a time).
///
/// Not thread-safe; one instance per stream. Throws std::runtime_error on CUDA errors.
class Reference {
 public:
  /// @brief Bytes of scores held at once; the work is sliced to fit.
  static constexpr std::size_t default_workspace_bytes = std::size_t{1} << 30;

  explicit Reference(std::size_t workspace_bytes = default_workspace_bytes)
      : budget_bytes_(workspace_bytes) {}
  ~Reference();
  Reference(const Reference&) = delete;
  Reference& operator=(const Reference&) = delete;

  /// @brief O (fp32, BSHD like q) from q, k, v in the shape's dtype.
  ///
  /// With `emulate_low_precision`, S, P and O are rounded to the input dtype after each step,
  /// which is what a naive implementation in that precision computes (the "out_pt" of
  /// FlashAttention's tests): its error against the exact result calibrates tolerances.
  void run(const Shape& shape, const void* q, const void* k, const void* v, float* out,
           cudaStream_t stream, bool emulate_low_precision = false);

 private:
  void reserve(std::size_t bytes);
  std::size_t budget_bytes_;
  float* workspace_ = nullptr;
  std::size_t workspace_bytes_ = 0;
};

}  // namespace socratic::attention
