// Counter-based random numbers for input generation, poisons and guard bands: every value is a
// pure function of (seed, index), so a check can regenerate what was written without storing it,
// and a run is reproducible from its seed. Usable by problems (kernels/<problem>/problem.cu).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace socratic::harness {

/// splitmix64's finaliser: a bijective 64-bit mix with good avalanche.
__host__ __device__ inline std::uint64_t mix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

/// The random 64-bit word number `i` of the stream `seed`.
__host__ __device__ inline std::uint64_t hash2(std::uint64_t seed, std::uint64_t i) {
  return mix64(seed ^ mix64(i));
}

/// Uniform in the open interval (0, 1) from 24 bits of `h`.
__device__ inline float uniform_open01(std::uint64_t h) {
  return (static_cast<float>(h & 0xFFFFFFull) + 0.5f) * (1.0f / 16777216.0f);
}

/// Standard normal number `i` of stream `seed` (Box-Muller on two 24-bit halves of one word).
__device__ inline float standard_normal(std::uint64_t seed, std::uint64_t i) {
  const std::uint64_t h = hash2(seed, i);
  const float u1 = uniform_open01(h >> 40);
  const float u2 = uniform_open01(h);
  return sqrtf(-2.0f * logf(u1)) * cospif(2.0f * u2);
}

/// Bernoulli(p) number `i` of stream `seed`.
__device__ inline bool bernoulli(std::uint64_t seed, std::uint64_t i, float p) {
  return uniform_open01(hash2(seed ^ 0xB5AD4ECEDA1CE2A9ull, i)) < p;
}

}  // namespace socratic::harness
