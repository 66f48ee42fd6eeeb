// The element types of the runner's tensors, in plain C++ (the suite's host-side parsers and the
// CPU tests include it without CUDA); device code calls the same functions.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#ifdef __CUDACC__
#define SOCRATIC_HOST_DEVICE __host__ __device__
#else
#define SOCRATIC_HOST_DEVICE
#endif

namespace socratic::harness {

/// An element type of a tensor: the native problems' three, and those of the suites' definitions
/// that Hopper runs (fp8 as the OCP formats: e4m3 "fn", without infinities; bool as one byte
/// holding 0 or 1). New members go at the end (the stability rule of problem.cuh).
enum class Dtype { bf16, fp16, fp32, fp64, fp8_e4m3, fp8_e5m2, int8, int16, int32, int64, uint8, boolean };

SOCRATIC_HOST_DEVICE inline std::size_t dtype_bytes(Dtype d) {
  switch (d) {
    case Dtype::fp64:
    case Dtype::int64: return 8;
    case Dtype::fp32:
    case Dtype::int32: return 4;
    case Dtype::bf16:
    case Dtype::fp16:
    case Dtype::int16: return 2;
    default: return 1;
  }
}

/// Floating-point types (NaN poisons, tolerances); the rest compare exactly.
SOCRATIC_HOST_DEVICE inline bool is_floating(Dtype d) {
  return d == Dtype::bf16 || d == Dtype::fp16 || d == Dtype::fp32 || d == Dtype::fp64 ||
         d == Dtype::fp8_e4m3 || d == Dtype::fp8_e5m2;
}

/// The name messages give a dtype ("bf16", "fp8_e4m3", "bool").
inline const char* dtype_name(Dtype d) {
  static const char* const names[] = {"bf16", "fp16", "fp32", "fp64", "fp8_e4m3", "fp8_e5m2",
                                      "int8", "int16", "int32", "int64", "uint8", "bool"};
  return names[static_cast<int>(d)];
}

/// The dtype of a suite definition's name (SOL-ExecBench/FlashInfer-Bench: "bfloat16",
/// "float8_e4m3fn", "int64", "bool" ...); nothing for a name the runner does not run (fp4).
inline std::optional<Dtype> dtype_from_definition_name(const std::string& n) {
  static const struct {
    const char* name;
    Dtype dtype;
  } table[] = {{"bfloat16", Dtype::bf16},     {"float16", Dtype::fp16},          {"float32", Dtype::fp32},
               {"float64", Dtype::fp64},      {"float8_e4m3fn", Dtype::fp8_e4m3}, {"float8_e5m2", Dtype::fp8_e5m2},
               {"int8", Dtype::int8},         {"int16", Dtype::int16},           {"int32", Dtype::int32},
               {"int64", Dtype::int64},       {"uint8", Dtype::uint8},           {"bool", Dtype::boolean}};
  for (const auto& e : table)
    if (n == e.name) return e.dtype;
  return std::nullopt;
}

/// The definition's name of a dtype (the inverse of dtype_from_definition_name).
inline const char* dtype_definition_name(Dtype d) {
  static const char* const names[] = {"bfloat16", "float16", "float32", "float64", "float8_e4m3fn", "float8_e5m2",
                                      "int8",     "int16",   "int32",   "int64",   "uint8",         "bool"};
  return names[static_cast<int>(d)];
}

}  // namespace socratic::harness
