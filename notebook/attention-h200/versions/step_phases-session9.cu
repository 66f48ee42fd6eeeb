// step_phases (session 9 diagnostic): clock marks at five points of every key tile of the
// persistent kernel's loop, for the first CTAs: 0 turn granted, 1 S ready, 2 softmax done,
// 3 P V done, 4 P converted (ready for the next turn). Prints per warpgroup the median gaps.
//   step_phases B,SQ,SKV,H,D,CAUSAL [...]
#include <cuda_bf16.h>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>
namespace steps {
constexpr int kCtas = 8, kPositions = 1024, kPoints = 5;
__constant__ unsigned long long* g_marks;
__device__ __forceinline__ void mark(int point, int position, int cw) {
  if ((threadIdx.x & 127) != 0 || blockIdx.x >= kCtas || position >= kPositions) return;
  g_marks[((blockIdx.x * kPositions + position) * 3 + cw) * kPoints + point] = clock64();
}
}  // namespace steps
#define HOPPER_STEP(point, position, cw) steps::mark(point, position, cw)
#include "hopper.cu"
__global__ void fill(__nv_bfloat16* x, size_t n, unsigned seed) {
  for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
    unsigned v = static_cast<unsigned>(i) * 2654435761u ^ seed;
    v ^= v >> 13; v *= 0x5bd1e995u; v ^= v >> 15;
    x[i] = __float2bfloat16((static_cast<float>(v & 0xffff) / 65535.f - 0.5f) * 2.f);
  }
}
static double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}
int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    int b, sq, skv, h, d, causal;
    if (std::sscanf(argv[i], "%d,%d,%d,%d,%d,%d", &b, &sq, &skv, &h, &d, &causal) != 6) return 2;
    const size_t nq = size_t(b) * sq * h * d, nkv = size_t(b) * skv * h * d;
    __nv_bfloat16 *q, *k, *v, *o;
    cudaMalloc(&q, nq * 2); cudaMalloc(&k, nkv * 2); cudaMalloc(&v, nkv * 2); cudaMalloc(&o, nq * 2);
    fill<<<1024, 256>>>(q, nq, 1u); fill<<<1024, 256>>>(k, nkv, 2u); fill<<<1024, 256>>>(v, nkv, 3u);
    socratic_attention_args a{q, k, v, o, b, sq, skv, h, h, d, causal, SOCRATIC_BF16, 1.f / std::sqrt(float(d))};
    const size_t n = size_t(steps::kCtas) * steps::kPositions * 3 * steps::kPoints;
    unsigned long long* marks;
    cudaMalloc(&marks, n * 8);
    cudaMemcpyToSymbol(steps::g_marks, &marks, sizeof marks);
    for (int r = 0; r < 5; ++r) {
      cudaMemset(marks, 0, n * 8);
      if (socratic_attention_forward(&a, 0) != 0) { std::printf("declined\n"); return 1; }
    }
    cudaError_t e = cudaDeviceSynchronize();
    if (e != cudaSuccess) { std::printf("%s\n", cudaGetErrorString(e)); return 1; }
    std::vector<unsigned long long> hm(n);
    cudaMemcpy(hm.data(), marks, n * 8, cudaMemcpyDeviceToHost);
    auto at = [&](int c, int p, int w, int k) { return double(hm[((size_t(c) * steps::kPositions + p) * 3 + w) * steps::kPoints + k]); };
    std::printf("%s: median cycles (loop key tiles of %d CTAs)\n", argv[i], steps::kCtas);
    for (int w = 0; w < 2; ++w) {
      std::vector<double> g01, g12, g23, g34, g40, period, other;
      for (int c = 0; c < steps::kCtas; ++c)
        for (int p = 0; p + 1 < steps::kPositions; ++p) {
          if (at(c, p, w, 0) == 0 || at(c, p, w, 4) == 0) continue;
          g01.push_back(at(c, p, w, 1) - at(c, p, w, 0));
          g12.push_back(at(c, p, w, 2) - at(c, p, w, 1));
          g23.push_back(at(c, p, w, 3) - at(c, p, w, 2));
          g34.push_back(at(c, p, w, 4) - at(c, p, w, 3));
          if (at(c, p + 1, w, 0) != 0) {
            g40.push_back(at(c, p + 1, w, 0) - at(c, p, w, 4));
            period.push_back(at(c, p + 1, w, 0) - at(c, p, w, 0));
          }
          // the other warpgroup's turn at the same position, after mine
          if (at(c, p, 1 - w, 0) != 0) other.push_back(at(c, p, 1 - w, 0) - at(c, p, w, 0));
        }
      std::printf("  wg%d n=%zu  turn->S %6.0f  softmax %6.0f  ->PV done %6.0f  convert %6.0f  ready->turn %6.0f  period %6.0f  other's turn %+6.0f\n",
                  w, g01.size(), median(g01), median(g12), median(g23), median(g34), median(g40), median(period), median(other));
    }
    cudaFree(q); cudaFree(k); cudaFree(v); cudaFree(o); cudaFree(marks);
  }
  return 0;
}
