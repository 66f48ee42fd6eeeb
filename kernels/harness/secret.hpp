// The judge's secret: every input, poison, garbage and guard seed, and every choice of which
// timed call gets the full reference check, comes from a keyed pseudo-random function (SipHash-2-4)
// whose 128-bit key the judge draws from the kernel (getrandom) at start and never writes out.
// A worker sees the values a call's inputs hold, and from them it may recover that call's seed
// (the public generator in random.cuh is invertible enough); without the key, that seed says
// nothing about any other call's, so no call's inputs or schedule can be computed ahead of it.
// A run started with an explicit seed (--seed, for reproducing a run) derives the key from it:
// reproducible, and only as secret as that seed. Plain C++17, unit-tested without a GPU.
#pragma once

#include <sys/random.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>

namespace socratic::harness {

/// SipHash-2-4 of the 16 bytes (a, b) under the key (k0, k1): a keyed PRF on two words.
inline std::uint64_t siphash24(std::uint64_t k0, std::uint64_t k1, const unsigned char* data,
                               std::size_t size) {
  auto rotl = [](std::uint64_t x, int b) { return (x << b) | (x >> (64 - b)); };
  std::uint64_t v0 = 0x736f6d6570736575ull ^ k0, v1 = 0x646f72616e646f6dull ^ k1;
  std::uint64_t v2 = 0x6c7967656e657261ull ^ k0, v3 = 0x7465646279746573ull ^ k1;
  auto round = [&] {
    v0 += v1; v1 = rotl(v1, 13); v1 ^= v0; v0 = rotl(v0, 32);
    v2 += v3; v3 = rotl(v3, 16); v3 ^= v2;
    v0 += v3; v3 = rotl(v3, 21); v3 ^= v0;
    v2 += v1; v1 = rotl(v1, 17); v1 ^= v2; v2 = rotl(v2, 32);
  };
  auto absorb = [&](std::uint64_t m) {
    v3 ^= m;
    round();
    round();
    v0 ^= m;
  };
  const std::size_t whole = size / 8 * 8;
  for (std::size_t i = 0; i < whole; i += 8) {
    std::uint64_t m = 0;
    for (int j = 7; j >= 0; --j) m = (m << 8) | data[i + static_cast<std::size_t>(j)];
    absorb(m);
  }
  std::uint64_t last = static_cast<std::uint64_t>(size & 0xFF) << 56;
  for (std::size_t j = 0; j < size - whole; ++j)
    last |= static_cast<std::uint64_t>(data[whole + j]) << (8 * j);
  absorb(last);
  v2 ^= 0xFF;
  round();
  round();
  round();
  round();
  return v0 ^ v1 ^ v2 ^ v3;
}

/// What a derived value is for: separate streams, so that no two uses share a value.
enum class SecretUse : std::uint64_t {
  scenario = 1,   ///< a scenario's own key material (guard bands)
  inputs = 2,     ///< the inputs of one call
  poison = 3,     ///< the poison written before one call
  garbage = 4,    ///< the shared-memory garbage before one checked call
  recheck = 5,    ///< whether a timed call gets the full reference check
};

class JudgeSecret {
 public:
  /// A fresh key from the kernel's random source.
  static JudgeSecret fresh() {
    unsigned char key[16];
    std::size_t got = 0;
    while (got < sizeof key) {
      const ssize_t n = getrandom(key + got, sizeof key - got, 0);
      if (n < 0) {
        if (errno == EINTR) continue;
        throw std::runtime_error(std::string("getrandom: ") + std::strerror(errno));
      }
      got += static_cast<std::size_t>(n);
    }
    JudgeSecret s;
    std::memcpy(&s.k0_, key, 8);
    std::memcpy(&s.k1_, key + 8, 8);
    s.fixed_ = false;
    return s;
  }

  /// A key derived from a seed the caller chose (a reproducible run, not a secret one).
  static JudgeSecret from_seed(std::uint64_t seed) {
    JudgeSecret s;
    const unsigned char zero[16] = {0};
    s.k0_ = siphash24(seed, 0x5EC12E7ull, zero, sizeof zero);
    s.k1_ = siphash24(seed, 0x5EC12E8ull, zero, sizeof zero);
    s.fixed_ = true;
    return s;
  }

  /// The value for (use, scope, index): scope names the scenario (a hash of its id), index the
  /// call within it.
  std::uint64_t value(SecretUse use, std::uint64_t scope, std::uint64_t index) const {
    unsigned char msg[24];
    const std::uint64_t words[3] = {static_cast<std::uint64_t>(use), scope, index};
    std::memcpy(msg, words, sizeof msg);
    return siphash24(k0_, k1_, msg, sizeof msg);
  }

  /// True with probability `p` for (use, scope, index), unpredictable without the key.
  bool chance(SecretUse use, std::uint64_t scope, std::uint64_t index, double p) const {
    if (p >= 1) return true;
    if (p <= 0) return false;
    const double u = static_cast<double>(value(use, scope, index) >> 11) * 0x1.0p-53;
    return u < p;
  }

  /// False for a key from the kernel; true when it was derived from a caller's seed.
  bool reproducible() const { return fixed_; }

 private:
  JudgeSecret() = default;
  std::uint64_t k0_ = 0, k1_ = 0;
  bool fixed_ = false;
};

}  // namespace socratic::harness
