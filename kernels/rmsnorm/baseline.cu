// The RMSNorm baseline: what a candidate is timed against. One block per row; rows whose
// length is a multiple of 8 elements (and 16-byte aligned) move 16 bytes per load and keep up
// to 4 such vectors per thread in registers between the sum of squares and the scaling, so x
// is read from DRAM once; other rows take a scalar path. fp32 accumulation throughout.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "rmsnorm_args.h"

namespace {

template <class T>
struct Element;

template <>
struct Element<__nv_bfloat16> {
  static __device__ float2 unpack(std::uint32_t u) {
    __nv_bfloat162 h;
    memcpy(&h, &u, sizeof h);
    return __bfloat1622float2(h);
  }
  static __device__ std::uint32_t pack(float a, float b) {
    const __nv_bfloat162 h = __floats2bfloat162_rn(a, b);
    std::uint32_t u;
    memcpy(&u, &h, sizeof u);
    return u;
  }
  static __device__ float load(const __nv_bfloat16* p, std::size_t i) {
    return __bfloat162float(p[i]);
  }
  static __device__ void store(__nv_bfloat16* p, std::size_t i, float v) {
    p[i] = __float2bfloat16_rn(v);
  }
};

template <>
struct Element<__half> {
  static __device__ float2 unpack(std::uint32_t u) {
    __half2 h;
    memcpy(&h, &u, sizeof h);
    return __half22float2(h);
  }
  static __device__ std::uint32_t pack(float a, float b) {
    const __half2 h = __floats2half2_rn(a, b);
    std::uint32_t u;
    memcpy(&u, &h, sizeof u);
    return u;
  }
  static __device__ float load(const __half* p, std::size_t i) { return __half2float(p[i]); }
  static __device__ void store(__half* p, std::size_t i, float v) { p[i] = __float2half_rn(v); }
};

__device__ inline float warp_sum(float v) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xFFFFFFFFu, v, o);
  return v;
}

// Sum over the block; every thread gets the total. Reads only the slots that warps wrote.
__device__ inline float block_sum(float v) {
  __shared__ float partial[32];
  __shared__ float total;
  v = warp_sum(v);
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  if (lane == 0) partial[warp] = v;
  __syncthreads();
  if (warp == 0) {
    const int warps = (blockDim.x + 31) >> 5;
    float t = lane < warps ? partial[lane] : 0.0f;
    t = warp_sum(t);
    if (lane == 0) total = t;
  }
  __syncthreads();
  return total;
}

template <class T>
__device__ inline float sum_of_squares(const uint4& v) {
  const std::uint32_t w[4] = {v.x, v.y, v.z, v.w};
  float s = 0;
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    const float2 f = Element<T>::unpack(w[i]);
    s += f.x * f.x + f.y * f.y;
  }
  return s;
}

template <class T>
__device__ inline uint4 normalise(const uint4& x, const uint4& w, float inv) {
  const std::uint32_t xs[4] = {x.x, x.y, x.z, x.w}, ws[4] = {w.x, w.y, w.z, w.w};
  std::uint32_t out[4];
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    const float2 a = Element<T>::unpack(xs[i]), b = Element<T>::unpack(ws[i]);
    out[i] = Element<T>::pack(a.x * inv * b.x, a.y * inv * b.y);
  }
  return make_uint4(out[0], out[1], out[2], out[3]);
}

// 16-byte path: `vectors` = cols / 8 per row; the first CACHE vectors of each thread stay in
// registers, any beyond (very wide rows) are read again in the second pass.
template <class T, int CACHE>
__global__ void __launch_bounds__(1024)
    rmsnorm_vectorised(const uint4* x, const uint4* w, uint4* y, int vectors, int cols, float eps) {
  const std::size_t row = static_cast<std::size_t>(blockIdx.x) * vectors;
  const uint4* xr = x + row;
  uint4* yr = y + row;
  uint4 cache[CACHE];
  float sum = 0;
#pragma unroll
  for (int k = 0; k < CACHE; ++k) {
    const int i = threadIdx.x + k * blockDim.x;
    if (i < vectors) {
      cache[k] = xr[i];
      sum += sum_of_squares<T>(cache[k]);
    }
  }
  for (int i = threadIdx.x + CACHE * blockDim.x; i < vectors; i += blockDim.x)
    sum += sum_of_squares<T>(xr[i]);
  const float inv = rsqrtf(block_sum(sum) / static_cast<float>(cols) + eps);
#pragma unroll
  for (int k = 0; k < CACHE; ++k) {
    const int i = threadIdx.x + k * blockDim.x;
    if (i < vectors) yr[i] = normalise<T>(cache[k], w[i], inv);
  }
  for (int i = threadIdx.x + CACHE * blockDim.x; i < vectors; i += blockDim.x)
    yr[i] = normalise<T>(xr[i], w[i], inv);
}

// Any shape: element loads, two passes over the row (the second mostly from cache).
template <class T>
__global__ void rmsnorm_scalar(const T* x, const T* w, T* y, int cols, float eps) {
  const std::size_t base = static_cast<std::size_t>(blockIdx.x) * cols;
  float sum = 0;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) {
    const float v = Element<T>::load(x, base + c);
    sum += v * v;
  }
  const float inv = rsqrtf(block_sum(sum) / static_cast<float>(cols) + eps);
  for (int c = threadIdx.x; c < cols; c += blockDim.x)
    Element<T>::store(y, base + c, Element<T>::load(x, base + c) * inv * Element<T>::load(w, c));
}

constexpr int vectors_per_thread = 4;

int round_up_to_warp(int n) {
  return (n + 31) / 32 * 32;
}

template <class T>
int launch(const socratic_rmsnorm_args& a, cudaStream_t stream) {
  const bool aligned =
      (reinterpret_cast<std::uintptr_t>(a.x) | reinterpret_cast<std::uintptr_t>(a.weight) |
       reinterpret_cast<std::uintptr_t>(a.y)) %
          16 ==
      0;
  if (a.cols % 8 == 0 && aligned) {
    const int vectors = a.cols / 8;
    int threads = round_up_to_warp((vectors + vectors_per_thread - 1) / vectors_per_thread);
    threads = threads < 32 ? 32 : threads > 1024 ? 1024 : threads;
    rmsnorm_vectorised<T, vectors_per_thread><<<a.rows, threads, 0, stream>>>(
        static_cast<const uint4*>(a.x), static_cast<const uint4*>(a.weight),
        static_cast<uint4*>(a.y), vectors, a.cols, a.eps);
  } else {
    const int threads = a.cols >= 256 ? 256 : round_up_to_warp(a.cols);
    rmsnorm_scalar<T><<<a.rows, threads, 0, stream>>>(static_cast<const T*>(a.x),
                                                      static_cast<const T*>(a.weight),
                                                      static_cast<T*>(a.y), a.cols, a.eps);
  }
  return cudaGetLastError() == cudaSuccess ? 0 : 2;
}

}  // namespace

extern "C" int socratic_rmsnorm_forward(const socratic_rmsnorm_args* args, cudaStream_t stream) {
  if (!args || !args->x || !args->weight || !args->y || args->rows < 1 || args->cols < 1 ||
      !(args->eps >= 0))
    return 1;
  if (args->dtype == 0) return launch<__nv_bfloat16>(*args, stream);
  if (args->dtype == 1) return launch<__half>(*args, stream);
  return 1;
}
