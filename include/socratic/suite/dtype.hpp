#pragma once
/// @file
/// @brief The element types a suite's definition may name (SOL-ExecBench, FlashInfer-Bench,
/// KernelBench): their spelling, size, C/CUDA type and whether the GPU judge can run them.

#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace socratic::suite {

/// @brief A tensor's element type, as the suites' definitions spell it (`float32`, `bfloat16`...).
enum class Dtype {
  float64,
  float32,
  float16,
  bfloat16,
  float8_e4m3fn,
  float8_e5m2,
  float4_e2m1,       ///< one fp4 value per element (as a byte)
  float4_e2m1fn_x2,  ///< two fp4 values packed in one byte
  int64,
  int32,
  int16,
  int8,
  uint8,
  boolean,  ///< spelled `bool`
};

/// @brief Everything a definition may name, in the order of the enum.
inline constexpr std::array<Dtype, 14> all_dtypes{
    Dtype::float64,     Dtype::float32, Dtype::float16,          Dtype::bfloat16, Dtype::float8_e4m3fn,
    Dtype::float8_e5m2, Dtype::float4_e2m1, Dtype::float4_e2m1fn_x2, Dtype::int64, Dtype::int32,
    Dtype::int16,       Dtype::int8,    Dtype::uint8,            Dtype::boolean};

/// @brief The spelling in a definition (`bool` for Dtype::boolean).
constexpr std::string_view dtype_name(Dtype d) {
  switch (d) {
    case Dtype::float64: return "float64";
    case Dtype::float32: return "float32";
    case Dtype::float16: return "float16";
    case Dtype::bfloat16: return "bfloat16";
    case Dtype::float8_e4m3fn: return "float8_e4m3fn";
    case Dtype::float8_e5m2: return "float8_e5m2";
    case Dtype::float4_e2m1: return "float4_e2m1";
    case Dtype::float4_e2m1fn_x2: return "float4_e2m1fn_x2";
    case Dtype::int64: return "int64";
    case Dtype::int32: return "int32";
    case Dtype::int16: return "int16";
    case Dtype::int8: return "int8";
    case Dtype::uint8: return "uint8";
    case Dtype::boolean: return "bool";
  }
  return "?";
}

/// @brief The dtype a definition spells `name`, or nothing when no suite uses that name.
inline std::optional<Dtype> parse_dtype(std::string_view name) {
  for (Dtype d : all_dtypes)
    if (dtype_name(d) == name) return d;
  return std::nullopt;
}

/// @brief The accepted spellings, comma-separated, for error messages.
inline std::string dtype_names() {
  std::string out;
  for (Dtype d : all_dtypes) out += (out.empty() ? "" : ", ") + std::string(dtype_name(d));
  return out;
}

/// @brief Bytes one element occupies in memory (fp4 unpacked: one byte; packed pairs: one byte).
constexpr std::size_t dtype_bytes(Dtype d) {
  switch (d) {
    case Dtype::float64:
    case Dtype::int64: return 8;
    case Dtype::float32:
    case Dtype::int32: return 4;
    case Dtype::float16:
    case Dtype::bfloat16:
    case Dtype::int16: return 2;
    default: return 1;
  }
}

/// @brief Whether the values are floating point (the correctness rules' tolerances apply).
constexpr bool dtype_is_floating(Dtype d) {
  switch (d) {
    case Dtype::int64:
    case Dtype::int32:
    case Dtype::int16:
    case Dtype::int8:
    case Dtype::uint8:
    case Dtype::boolean: return false;
    default: return true;
  }
}

/// @brief The element's type in a CUDA C++ entry point: the CUDA types of cuda_fp16.h,
/// cuda_bf16.h and cuda_fp8.h for the narrow floats, fixed-width integers otherwise.
constexpr std::string_view dtype_c_type(Dtype d) {
  switch (d) {
    case Dtype::float64: return "double";
    case Dtype::float32: return "float";
    case Dtype::float16: return "__half";
    case Dtype::bfloat16: return "__nv_bfloat16";
    case Dtype::float8_e4m3fn: return "__nv_fp8_e4m3";
    case Dtype::float8_e5m2: return "__nv_fp8_e5m2";
    case Dtype::float4_e2m1: return "uint8_t";
    case Dtype::float4_e2m1fn_x2: return "uint8_t";
    case Dtype::int64: return "int64_t";
    case Dtype::int32: return "int32_t";
    case Dtype::int16: return "int16_t";
    case Dtype::int8: return "int8_t";
    case Dtype::uint8: return "uint8_t";
    case Dtype::boolean: return "bool";
  }
  return "?";
}

/// @brief Why the GPU judge cannot run this dtype, or nothing when it can. The judge's GPU (H200,
/// sm_90) has no fp4 arithmetic; fp4 needs a Blackwell GPU (sm_100 and later).
inline std::optional<std::string> dtype_not_runnable_reason(Dtype d) {
  if (d == Dtype::float4_e2m1 || d == Dtype::float4_e2m1fn_x2)
    return std::string(dtype_name(d)) +
           " needs fp4 arithmetic (Blackwell, sm_100 and later); the judge's GPU (sm_90) has none";
  return std::nullopt;
}

}  // namespace socratic::suite
