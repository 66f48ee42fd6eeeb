// The runner's own GPU work, all on its stream: poisoning outputs, filling guard bands, hashing
// buffers, converting outputs to fp32, comparing, filling shared memory with garbage and
// flushing the L2. Each helper that reads a result back synchronises the stream and checks.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>

#include "cuda_check.hpp"
#include "problem.cuh"
#include "random.cuh"

namespace socratic::harness {

/// How outputs are poisoned before a call: NaNs with random payloads (a correct output never
/// contains them, so "still the poison" is exact) or random finite bit patterns.
enum class PoisonMode { nan, random_finite };

/// What compare() found between `a` (the tested values) and `b` (the reference), fp32.
struct Comparison {
  double max_abs_diff = 0;  ///< over positions where both are finite
  double rel_l2 = 0;        ///< ||a - b|| / ||b|| over positions where both are finite
  double max_abs_b = 0;     ///< largest finite |b|
  unsigned long long nonfinite_a = 0, nonfinite_b = 0;
  unsigned long long finiteness_mismatch = 0;  ///< finite in one, not the other (or inf vs -inf)
  double min_a = 0, max_a = 0;                 ///< range of the finite values of a
  bool any_finite_a = false;
  bool constant_a() const { return any_finite_a && min_a == max_a && nonfinite_a == 0; }
};

namespace device {

struct CompareAcc {
  unsigned max_abs_diff_bits;  // non-negative floats order like their bit patterns
  unsigned max_abs_b_bits;
  int min_a_key;  // order-preserving int image of a float
  int max_a_key;
  unsigned long long nonfinite_a, nonfinite_b, mismatch;
  double sum_sq_diff, sum_sq_b;
};

__device__ inline int float_key(float f) {
  const int i = __float_as_int(f);
  return i >= 0 ? i : i ^ 0x7FFFFFFF;
}
__host__ __device__ inline float key_float(int k) {
  const int i = k >= 0 ? k : k ^ 0x7FFFFFFF;
  float f;
  memcpy(&f, &i, sizeof f);
  return f;
}

// NaN poisons are signalling NaNs (quiet bit clear, payload nonzero): arithmetic only ever
// produces quiet NaNs, so an element equal to its poison was not written, exactly. fp8 e4m3 has
// one NaN per sign (a correct output is never NaN); bool's poison is a byte that is neither 0
// nor 1. Integers have no value a correct output cannot hold: their poison is random bits, and
// an unwritten element is caught by the exact comparison instead (count_poison skips them).
__device__ inline std::uint64_t poison_bits(Dtype d, PoisonMode m, std::uint64_t seed,
                                            std::size_t i) {
  const std::uint64_t h = hash2(seed, i);
  const bool nan = m == PoisonMode::nan;
  switch (d) {
    case Dtype::fp64: {
      const std::uint64_t sign = (h >> 63) << 63, exp = 0x7FF0000000000000ull;
      if (nan) return sign | exp | (1u + (h % 0x7FFFFFFFFFFFFull));
      std::uint64_t bits = mix64(h);
      if ((bits & exp) == exp) bits ^= 1ull << 62;
      return bits;
    }
    case Dtype::fp32: {
      const std::uint32_t sign = static_cast<std::uint32_t>(h >> 63) << 31;
      if (nan) return sign | 0x7F800000u | (1u + static_cast<std::uint32_t>(h % 0x3FFFFFu));
      std::uint32_t bits = static_cast<std::uint32_t>(h);
      if ((bits & 0x7F800000u) == 0x7F800000u) bits ^= 0x40000000u;  // keep it finite
      return bits;
    }
    case Dtype::bf16:
    case Dtype::fp16: {
      const std::uint32_t sign = static_cast<std::uint32_t>(h >> 63) << 15;
      const std::uint32_t exp_mask = d == Dtype::bf16 ? 0x7F80u : 0x7C00u;
      const std::uint32_t quiet_bit = d == Dtype::bf16 ? 0x40u : 0x200u;
      if (nan) return sign | exp_mask | (1u + static_cast<std::uint32_t>(h % (quiet_bit - 1)));
      std::uint32_t bits = static_cast<std::uint32_t>(h) & 0xFFFFu;
      if ((bits & exp_mask) == exp_mask) bits ^= 0x4000u;
      return bits;
    }
    case Dtype::fp8_e4m3: {
      const std::uint32_t sign = static_cast<std::uint32_t>(h >> 63) << 7;
      if (nan) return sign | 0x7Fu;
      std::uint32_t bits = static_cast<std::uint32_t>(h) & 0xFFu;
      if ((bits & 0x7Fu) == 0x7Fu) bits ^= 0x40u;
      return bits;
    }
    case Dtype::fp8_e5m2: {
      const std::uint32_t sign = static_cast<std::uint32_t>(h >> 63) << 7;
      if (nan) return sign | 0x7Du;  // exponent all ones, quiet bit clear, payload 1
      std::uint32_t bits = static_cast<std::uint32_t>(h) & 0xFFu;
      if ((bits & 0x7Cu) == 0x7Cu) bits ^= 0x40u;
      return bits;
    }
    case Dtype::boolean:
      return nan ? 2u + static_cast<std::uint32_t>(h % 254u) : (h & 1u);
    default:  // integers: random bits of the element's width
      return h;
  }
}

/// Reads element i of a tensor of `d` as raw bits (zero-extended).
__device__ inline std::uint64_t load_bits(const void* p, Dtype d, std::size_t i) {
  switch (dtype_bytes(d)) {
    case 8: return static_cast<const std::uint64_t*>(p)[i];
    case 4: return static_cast<const std::uint32_t*>(p)[i];
    case 2: return static_cast<const std::uint16_t*>(p)[i];
    default: return static_cast<const std::uint8_t*>(p)[i];
  }
}

__device__ inline void store_bits(void* p, Dtype d, std::size_t i, std::uint64_t bits) {
  switch (dtype_bytes(d)) {
    case 8: static_cast<std::uint64_t*>(p)[i] = bits; break;
    case 4: static_cast<std::uint32_t*>(p)[i] = static_cast<std::uint32_t>(bits); break;
    case 2: static_cast<std::uint16_t*>(p)[i] = static_cast<std::uint16_t>(bits); break;
    default: static_cast<std::uint8_t*>(p)[i] = static_cast<std::uint8_t>(bits); break;
  }
}

/// Element i as fp32 (the judge compares in fp32; an integer beyond 2^24 rounds, docs/harness.md).
/// A bool byte other than 0 or 1 (the poison) reads as NaN.
__device__ inline float load_as_float(const void* p, Dtype d, std::size_t i) {
  switch (d) {
    case Dtype::fp32: return static_cast<const float*>(p)[i];
    case Dtype::fp64: return static_cast<float>(static_cast<const double*>(p)[i]);
    case Dtype::bf16:
      return __uint_as_float(static_cast<std::uint32_t>(static_cast<const std::uint16_t*>(p)[i]) << 16);
    case Dtype::fp16: return __half2float(__ushort_as_half(static_cast<const std::uint16_t*>(p)[i]));
    case Dtype::fp8_e4m3: return static_cast<float>(static_cast<const __nv_fp8_e4m3*>(p)[i]);
    case Dtype::fp8_e5m2: return static_cast<float>(static_cast<const __nv_fp8_e5m2*>(p)[i]);
    case Dtype::int8: return static_cast<const std::int8_t*>(p)[i];
    case Dtype::int16: return static_cast<const std::int16_t*>(p)[i];
    case Dtype::int32: return static_cast<float>(static_cast<const std::int32_t*>(p)[i]);
    case Dtype::int64: return static_cast<float>(static_cast<const std::int64_t*>(p)[i]);
    case Dtype::uint8: return static_cast<const std::uint8_t*>(p)[i];
    case Dtype::boolean: {
      const std::uint8_t v = static_cast<const std::uint8_t*>(p)[i];
      return v <= 1 ? static_cast<float>(v) : __int_as_float(0x7FC00000);
    }
  }
  return 0;
}

__global__ void poison_kernel(void* p, std::size_t n, Dtype d, PoisonMode m, std::uint64_t seed) {
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x)
    store_bits(p, d, i, poison_bits(d, m, seed, i));
}

template <class T>
__device__ inline void warp_add(T v, T* target) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xFFFFFFFFu, v, o);
  if ((threadIdx.x & 31) == 0 && v != T(0)) atomicAdd(target, v);
}

__global__ void count_poison_kernel(const void* p, std::size_t n, Dtype d, PoisonMode m,
                                    std::uint64_t seed, unsigned long long* count) {
  unsigned long long c = 0;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    const std::uint64_t width_mask =
        dtype_bytes(d) == 8 ? ~0ull : (1ull << (8 * dtype_bytes(d))) - 1;
    c += load_bits(p, d, i) == (poison_bits(d, m, seed, i) & width_mask);
  }
  warp_add(c, count);
}

__global__ void fill_random_u16_kernel(std::uint16_t* p, std::size_t n, std::uint64_t seed) {
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x)
    p[i] = static_cast<std::uint16_t>(hash2(seed, i));
}

// Position-dependent, order-independent 64-bit sum: any changed or moved 16-bit word changes it
// (except with probability ~2^-64).
__global__ void hash_u16_kernel(const std::uint16_t* p, std::size_t n, unsigned long long* acc) {
  unsigned long long h = 0;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x)
    h += mix64((static_cast<std::uint64_t>(i) << 16) ^ p[i] ^ 0xC0FFEE0000000000ull);
  warp_add(h, acc);
}

// Bytewise versions, for buffers whose address or size is odd (one-byte dtypes).
__global__ void fill_random_u8_kernel(std::uint8_t* p, std::size_t n, std::uint64_t seed) {
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x)
    p[i] = static_cast<std::uint8_t>(hash2(seed, i));
}
__global__ void hash_u8_kernel(const std::uint8_t* p, std::size_t n, unsigned long long* acc) {
  unsigned long long h = 0;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x)
    h += mix64((static_cast<std::uint64_t>(i) << 8) ^ p[i] ^ 0xB17E000000000000ull);
  warp_add(h, acc);
}
__global__ void count_equal_u8_kernel(const std::uint8_t* a, const std::uint8_t* b, std::size_t n,
                                      unsigned long long* count) {
  unsigned long long c = 0;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x)
    c += a[i] == b[i];
  warp_add(c, count);
}

__global__ void count_equal_u16_kernel(const std::uint16_t* a, const std::uint16_t* b,
                                       std::size_t n, unsigned long long* count) {
  unsigned long long c = 0;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x)
    c += a[i] == b[i];
  warp_add(c, count);
}

// Elements whose reference changed between two calls (count_stale == false), or that changed
// in the reference while the candidate's output word stayed the same (count_stale == true).
template <class Word>
__global__ void count_changed_kernel(const Word* out, const Word* prev, const float* ref,
                                     const float* prev_ref, std::size_t n, bool count_stale,
                                     unsigned long long* count) {
  unsigned long long c = 0;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    const bool expected_change = ref[i] != prev_ref[i];
    c += expected_change && (!count_stale || out[i] == prev[i]);
  }
  warp_add(c, count);
}

__global__ void to_float_kernel(const void* p, std::size_t n, Dtype d, float* out) {
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x)
    out[i] = load_as_float(p, d, i);
}

__global__ void compare_kernel(const float* a, const float* b, std::size_t n, CompareAcc* acc) {
  float max_diff = 0, max_b = 0;
  int min_key = INT_MAX, max_key = INT_MIN;
  unsigned long long nf_a = 0, nf_b = 0, mismatch = 0;
  double sq_diff = 0, sq_b = 0;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    const float x = a[i], y = b[i];
    const bool fx = isfinite(x), fy = isfinite(y);
    nf_a += !fx;
    nf_b += !fy;
    if (fx != fy)
      ++mismatch;
    else if (!fx && !(isnan(x) && isnan(y)) && x != y)
      ++mismatch;  // +inf vs -inf, or inf vs NaN
    if (fx && fy) {
      const float d = fabsf(x - y);
      max_diff = fmaxf(max_diff, d);
      sq_diff += static_cast<double>(d) * d;
    }
    if (fy) {
      max_b = fmaxf(max_b, fabsf(y));
      sq_b += static_cast<double>(y) * y;
    }
    if (fx) {
      min_key = min(min_key, float_key(x));
      max_key = max(max_key, float_key(x));
    }
  }
  for (int o = 16; o > 0; o >>= 1) {
    max_diff = fmaxf(max_diff, __shfl_xor_sync(0xFFFFFFFFu, max_diff, o));
    max_b = fmaxf(max_b, __shfl_xor_sync(0xFFFFFFFFu, max_b, o));
    min_key = min(min_key, __shfl_xor_sync(0xFFFFFFFFu, min_key, o));
    max_key = max(max_key, __shfl_xor_sync(0xFFFFFFFFu, max_key, o));
    nf_a += __shfl_xor_sync(0xFFFFFFFFu, nf_a, o);
    nf_b += __shfl_xor_sync(0xFFFFFFFFu, nf_b, o);
    mismatch += __shfl_xor_sync(0xFFFFFFFFu, mismatch, o);
    sq_diff += __shfl_xor_sync(0xFFFFFFFFu, sq_diff, o);
    sq_b += __shfl_xor_sync(0xFFFFFFFFu, sq_b, o);
  }
  if ((threadIdx.x & 31) == 0) {
    atomicMax(&acc->max_abs_diff_bits, __float_as_uint(max_diff));
    atomicMax(&acc->max_abs_b_bits, __float_as_uint(max_b));
    atomicMin(&acc->min_a_key, min_key);
    atomicMax(&acc->max_a_key, max_key);
    if (nf_a) atomicAdd(&acc->nonfinite_a, nf_a);
    if (nf_b) atomicAdd(&acc->nonfinite_b, nf_b);
    if (mismatch) atomicAdd(&acc->mismatch, mismatch);
    if (sq_diff != 0) atomicAdd(&acc->sum_sq_diff, sq_diff);
    if (sq_b != 0) atomicAdd(&acc->sum_sq_b, sq_b);
  }
}

// Fills this block's whole dynamic shared memory with garbage that reads as plausible numbers
// (fp32 of magnitude 2^-10..2^10, random sign), so a kernel that reads shared memory it never
// wrote computes with values that change from call to call instead of a lucky zero or a value
// left by the reference. Volatile stores: the compiler must not drop writes nobody reads.
__global__ void smem_garbage_kernel(std::uint64_t seed, unsigned words) {
  extern __shared__ std::uint32_t smem_words[];
  volatile std::uint32_t* s = smem_words;
  for (unsigned i = threadIdx.x; i < words; i += blockDim.x) {
    const std::uint64_t h = hash2(seed, (static_cast<std::uint64_t>(blockIdx.x) << 32) | i);
    const std::uint32_t exponent =
        117u + static_cast<std::uint32_t>((h >> 32) % 21u);  // 2^-10..2^10
    s[i] = (static_cast<std::uint32_t>(h >> 63) << 31) | (exponent << 23) |
           (static_cast<std::uint32_t>(h) & 0x7FFFFFu);
  }
}

// Reads the whole flush buffer (clean lines: no write-back lands in the next timed call).
__global__ void flush_read_kernel(const uint4* p, std::size_t n, unsigned* sink) {
  unsigned x = 0;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    const uint4 v = p[i];
    x ^= v.x ^ v.y ^ v.z ^ v.w;
  }
  if (x == 0x9E3779B9u) *sink = x;  // never true for the buffer's contents; keeps the loads
}

__global__ void fence_kernel() {}

}  // namespace device

/// The runner's GPU helpers, bound to one stream.
class DeviceOps {
 public:
  /// `flush_buffer`: false in a worker, which never flushes (the judge does, in its own context).
  DeviceOps(cudaStream_t stream, int sm_count, std::size_t l2_bytes, bool flush_buffer = true)
      : stream_(stream), sm_count_(sm_count) {
    cuda_check(cudaMalloc(&scratch_, sizeof(device::CompareAcc) + 64),
               "cudaMalloc (runner scratch)");
    cuda_check(cudaEventCreateWithFlags(&fence_event_, cudaEventDisableTiming),
               "cudaEventCreate (fence)");
    if (flush_buffer) {
      // Flush buffer: at least 2x L2 (64 MiB when the L2 size is unknown), filled once.
      flush_bytes_ = std::max<std::size_t>(2 * l2_bytes, 64u << 20);
      flush_bytes_ = (flush_bytes_ + 15) / 16 * 16;
      cuda_check(cudaMalloc(&flush_, flush_bytes_),
                 "cudaMalloc (L2 flush buffer, " + std::to_string(flush_bytes_) + " bytes)");
      fill_random(flush_, flush_bytes_ / 2, 0xF1u);
    }
    int device = 0, smem_optin = 0;
    cuda_check(cudaGetDevice(&device), "cudaGetDevice");
    cuda_check(cudaDeviceGetAttribute(&smem_optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device),
               "cudaDeviceGetAttribute (max shared memory per block)");
    garbage_bytes_ = static_cast<unsigned>(smem_optin);
    cuda_check(cudaFuncSetAttribute(device::smem_garbage_kernel,
                                    cudaFuncAttributeMaxDynamicSharedMemorySize, smem_optin),
               "cudaFuncSetAttribute (shared-memory garbage kernel)");
    cuda_check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize (runner setup)");
  }
  ~DeviceOps() {
    cudaFree(scratch_);
    if (flush_) cudaFree(flush_);
    cudaEventDestroy(fence_event_);
  }
  DeviceOps(const DeviceOps&) = delete;
  DeviceOps& operator=(const DeviceOps&) = delete;

  std::size_t flush_bytes() const { return flush_bytes_; }
  unsigned garbage_bytes() const { return garbage_bytes_; }

  void poison(void* p, std::size_t n, Dtype d, PoisonMode m, std::uint64_t seed) {
    device::poison_kernel<<<grid(n), block, 0, stream_>>>(p, n, d, m, seed);
    launched("poison");
  }
  /// Elements still equal to their poison. Always 0 for integer dtypes, whose poison a correct
  /// output may hold (device::poison_bits).
  unsigned long long count_poison(const void* p, std::size_t n, Dtype d, PoisonMode m,
                                  std::uint64_t seed) {
    if (!is_floating(d) && d != Dtype::boolean) return 0;
    zero_counter();
    device::count_poison_kernel<<<grid(n), block, 0, stream_>>>(p, n, d, m, seed, counter());
    launched("count_poison");
    return read_counter();
  }
  void fill_random(void* p, std::size_t n_u16, std::uint64_t seed) {
    device::fill_random_u16_kernel<<<grid(n_u16), block, 0, stream_>>>(
        static_cast<std::uint16_t*>(p), n_u16, seed);
    launched("fill_random");
  }
  /// `bytes` random bytes at p, any address and size (guard bands of one-byte dtypes).
  void fill_random_bytes(void* p, std::size_t bytes, std::uint64_t seed) {
    device::fill_random_u8_kernel<<<grid(bytes), block, 0, stream_>>>(static_cast<std::uint8_t*>(p), bytes, seed);
    launched("fill_random_bytes");
  }
  /// Whether buffers at these addresses of this size are compared and hashed as 16-bit words
  /// (else bytewise: an odd address or size, from a one-byte dtype).
  static bool in_words(const void* a, const void* b, std::size_t bytes) {
    return (reinterpret_cast<std::uintptr_t>(a) | reinterpret_cast<std::uintptr_t>(b) | bytes) % 2 == 0;
  }
  /// How many units count_equal counts for these buffers: 16-bit words, or bytes.
  static std::size_t unit_count(const void* a, const void* b, std::size_t bytes) {
    return in_words(a, b, bytes) ? bytes / 2 : bytes;
  }
  /// 64-bit content hash of `bytes` bytes.
  unsigned long long hash(const void* p, std::size_t bytes) {
    zero_counter();
    if (in_words(p, p, bytes))
      device::hash_u16_kernel<<<grid(bytes / 2), block, 0, stream_>>>(
          static_cast<const std::uint16_t*>(p), bytes / 2, counter());
    else
      device::hash_u8_kernel<<<grid(bytes), block, 0, stream_>>>(static_cast<const std::uint8_t*>(p), bytes,
                                                                 counter());
    launched("hash");
    return read_counter();
  }
  /// How many of the unit_count(a, b, bytes) units (16-bit words, or bytes) of a and b are equal.
  unsigned long long count_equal(const void* a, const void* b, std::size_t bytes) {
    zero_counter();
    if (in_words(a, b, bytes))
      device::count_equal_u16_kernel<<<grid(bytes / 2), block, 0, stream_>>>(
          static_cast<const std::uint16_t*>(a), static_cast<const std::uint16_t*>(b), bytes / 2,
          counter());
    else
      device::count_equal_u8_kernel<<<grid(bytes), block, 0, stream_>>>(
          static_cast<const std::uint8_t*>(a), static_cast<const std::uint8_t*>(b), bytes, counter());
    launched("count_equal");
    return read_counter();
  }
  /// Memoisation evidence between two calls on new contents in the same buffers: how many output
  /// elements the reference says must change (`expected`) and how many of those the candidate
  /// left bit-identical (`stale`). Elements whose correct value is the same in both calls (rows
  /// of zeros, say) count in neither.
  struct StaleCount {
    unsigned long long expected = 0, stale = 0;
  };
  StaleCount count_stale(const void* out, const void* prev, const float* ref, const float* prev_ref,
                         std::size_t n, Dtype d) {
    StaleCount r;
    for (bool stale : {false, true}) {
      zero_counter();
      switch (dtype_bytes(d)) {
        case 8: changed<std::uint64_t>(out, prev, ref, prev_ref, n, stale); break;
        case 4: changed<std::uint32_t>(out, prev, ref, prev_ref, n, stale); break;
        case 2: changed<std::uint16_t>(out, prev, ref, prev_ref, n, stale); break;
        default: changed<std::uint8_t>(out, prev, ref, prev_ref, n, stale); break;
      }
      launched("count_stale");
      (stale ? r.stale : r.expected) = read_counter();
    }
    return r;
  }
  void to_float(const void* p, std::size_t n, Dtype d, float* out) {
    device::to_float_kernel<<<grid(n), block, 0, stream_>>>(p, n, d, out);
    launched("to_float");
  }
  Comparison compare(const float* a, const float* b, std::size_t n) {
    device::CompareAcc init{};
    init.min_a_key = INT_MAX;
    init.max_a_key = INT_MIN;
    cuda_check(cudaMemcpyAsync(scratch_, &init, sizeof init, cudaMemcpyHostToDevice, stream_),
               "cudaMemcpyAsync (compare init)");
    device::compare_kernel<<<grid(n), block, 0, stream_>>>(
        a, b, n, static_cast<device::CompareAcc*>(scratch_));
    launched("compare");
    device::CompareAcc acc{};
    cuda_check(cudaMemcpyAsync(&acc, scratch_, sizeof acc, cudaMemcpyDeviceToHost, stream_),
               "cudaMemcpyAsync (compare result)");
    cuda_check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize (compare)");
    Comparison c;
    float f;
    memcpy(&f, &acc.max_abs_diff_bits, sizeof f);
    c.max_abs_diff = f;
    memcpy(&f, &acc.max_abs_b_bits, sizeof f);
    c.max_abs_b = f;
    c.nonfinite_a = acc.nonfinite_a;
    c.nonfinite_b = acc.nonfinite_b;
    c.finiteness_mismatch = acc.mismatch;
    c.any_finite_a = acc.min_a_key != INT_MAX;
    if (c.any_finite_a) {
      c.min_a = device::key_float(acc.min_a_key);
      c.max_a = device::key_float(acc.max_a_key);
    }
    c.rel_l2 = acc.sum_sq_b > 0 ? std::sqrt(acc.sum_sq_diff / acc.sum_sq_b)
                                : (acc.sum_sq_diff > 0 ? INFINITY : 0.0);
    return c;
  }
  /// Fills the shared memory of every SM with garbage (two waves of one maximal block per SM).
  void smem_garbage(std::uint64_t seed) {
    device::smem_garbage_kernel<<<2 * sm_count_, 1024, garbage_bytes_, stream_>>>(
        seed, garbage_bytes_ / 4);
    launched("smem_garbage");
  }
  /// The judge's fence: a kernel of its own and an event after it, waited for by spinning.
  /// It completes only when the GPU has given this process's context a turn after everything
  /// before it, so the time it returns at bounds the work of every other context that was
  /// running: returns the microseconds it took.
  double fence_us() {
    const auto t0 = std::chrono::steady_clock::now();
    device::fence_kernel<<<1, 32, 0, stream_>>>();
    launched("fence");
    cuda_check(cudaEventRecord(fence_event_, stream_), "cudaEventRecord (fence)");
    cudaError_t e;
    while ((e = cudaEventQuery(fence_event_)) == cudaErrorNotReady) {
    }
    cuda_check(e, "cudaEventQuery (fence)");
    return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
  }
  /// Evicts the L2: reads a buffer of at least twice its size.
  void flush_l2() {
    const std::size_t n = flush_bytes_ / 16;
    device::flush_read_kernel<<<grid(n), block, 0, stream_>>>(static_cast<const uint4*>(flush_), n,
                                                              static_cast<unsigned*>(sink()));
    launched("flush_l2");
  }

 private:
  static constexpr int block = 256;
  template <class Word>
  void changed(const void* out, const void* prev, const float* ref, const float* prev_ref, std::size_t n,
               bool stale) {
    device::count_changed_kernel<<<grid(n), block, 0, stream_>>>(
        static_cast<const Word*>(out), static_cast<const Word*>(prev), ref, prev_ref, n, stale, counter());
  }
  unsigned grid(std::size_t n) const {
    const std::size_t want = (n + block - 1) / block;
    return static_cast<unsigned>(std::max<std::size_t>(
        1, std::min<std::size_t>(want, static_cast<std::size_t>(sm_count_) * 8)));
  }
  void launched(const char* what) {
    cuda_check(cudaPeekAtLastError(), std::string("launch of the runner's ") + what + " kernel");
  }
  unsigned long long* counter() {
    return reinterpret_cast<unsigned long long*>(static_cast<char*>(scratch_) +
                                                 sizeof(device::CompareAcc));
  }
  void* sink() { return static_cast<char*>(scratch_) + sizeof(device::CompareAcc) + 16; }
  void zero_counter() {
    cuda_check(cudaMemsetAsync(counter(), 0, sizeof(unsigned long long), stream_),
               "cudaMemsetAsync (counter)");
  }
  unsigned long long read_counter() {
    unsigned long long v = 0;
    cuda_check(cudaMemcpyAsync(&v, counter(), sizeof v, cudaMemcpyDeviceToHost, stream_),
               "cudaMemcpyAsync (counter)");
    cuda_check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize (counter)");
    return v;
  }

  cudaStream_t stream_;
  int sm_count_;
  void* scratch_ = nullptr;
  void* flush_ = nullptr;
  cudaEvent_t fence_event_ = nullptr;
  std::size_t flush_bytes_ = 0;
  unsigned garbage_bytes_ = 0;
};

}  // namespace socratic::harness
