// One attention scenario's shape and semantics, and how it is read from scenario parameters.
#pragma once

#include <cstdint>

#include <nlohmann/json_fwd.hpp>

namespace socratic::attention {

/// @brief A scenario's shape, as in socratic_attention_args (attention_args.h).
struct Shape {
  int batch = 1;
  int seqlen_q = 1;
  int seqlen_kv = 1;
  int heads_q = 1;
  int heads_kv = 1;
  int head_dim = 64;
  bool causal = false;
  int dtype = 0;  ///< enum socratic_dtype: 0 bf16, 1 fp16
  float softmax_scale = 0.125f;

  std::int64_t q_elements() const {
    return std::int64_t{batch} * seqlen_q * heads_q * head_dim;
  }
  std::int64_t kv_elements() const {
    return std::int64_t{batch} * seqlen_kv * heads_kv * head_dim;
  }
};

/// @brief Reads and checks a scenario's parameters (defaults already merged; seqlen_kv defaults
/// to seqlen_q, causal to false, dtype to bf16, softmax_scale to 1/sqrt(head_dim)).
///
/// Throws std::runtime_error naming the field: `field "head_dim": must be a multiple of 8
/// between 8 and 256, got 100`. Defined in problem.cu.
Shape parse_shape(const nlohmann::json& params);

}  // namespace socratic::attention
