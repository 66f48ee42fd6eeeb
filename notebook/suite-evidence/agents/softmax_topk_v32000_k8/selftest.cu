// Standalone self-test of candidate.cu (softmax_topk_v32000_k8). Logits are filled on the GPU
// (hashed Box-Muller normals); the reference runs on the CPU per row: y = x / T (fp32, as torch),
// max, sum of exp in double, probs, top-8 by (value desc, index asc). Checks values with the
// suite rule (mismatch when abs_err > atol AND rel_err > rtol) and indices exactly, then timing.
// Build: nvcc -std=c++17 -gencode=arch=compute_90a,code=sm_90a -O3 selftest.cu -o selftest
#include "candidate.cu"
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <vector>

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("CUDA error %s at %s:%d\n", cudaGetErrorString(e_), __FILE__, __LINE__); exit(1); } } while (0)

__device__ unsigned long long mix(unsigned long long z) {
  z += 0x9e3779b97f4a7c15ull; z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull; return z ^ (z >> 31);
}
__global__ void fill_randn(float* x, long long n, unsigned long long seed, float quant) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
    unsigned long long h = mix(seed * 0x100000001b3ull + i);
    float u1 = ((h >> 40) + 1) * (1.0f / 16777217.0f), u2 = ((h >> 16) & 0xffffff) * (1.0f / 16777216.0f);
    float v = sqrtf(-2.f * logf(u1)) * cospif(2.f * u2);
    x[i] = quant > 0 ? rintf(v / quant) * quant : v;
  }
}

int main() {
  const int V = 32000, K = 8;
  struct Case { long long batch; float T; double atol, rtol; float quant; float shift; };
  const Case cases[] = {{1, 1.0f, 0.01, 0.01, 0, 0},      {64, 0.7f, 0.01, 0.01, 0, 0},  {1024, 1.3f, 1e-5, 1e-3, 0, 0},
                        {4096, 0.9f, 1e-5, 1e-3, 0, 0},   {133, 0.5f, 1e-5, 1e-3, 0, 0}, {300, 2.0f, 1e-5, 1e-3, 0, 0},
                        {256, 1.0f, 1e-5, 1e-3, 0.25f, 0} /* many ties: index check informative only */};
  bool all_ok = true;
  cudaStream_t st; CK(cudaStreamCreate(&st));
  for (const Case& cs : cases) {
    const long long n = cs.batch * V;
    float *dx, *dp; int64_t* di;
    CK(cudaMalloc(&dx, n * 4)); CK(cudaMalloc(&dp, cs.batch * K * 4)); CK(cudaMalloc(&di, cs.batch * K * 8));
    fill_randn<<<1024, 256>>>(dx, n, 11 + cs.batch, cs.quant);
    CK(cudaDeviceSynchronize());
    CK(cudaMemset(dp, 0xff, cs.batch * K * 4)); CK(cudaMemset(di, 0xff, cs.batch * K * 8));
    softmax_topk_v32000_k8(dx, cs.T, dp, di, cs.batch, st);
    CK(cudaStreamSynchronize(st)); CK(cudaGetLastError());
    std::vector<float> hx(n), hp(cs.batch * K); std::vector<int64_t> hi(cs.batch * K);
    CK(cudaMemcpy(hx.data(), dx, n * 4, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(hp.data(), dp, hp.size() * 4, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(hi.data(), di, hi.size() * 8, cudaMemcpyDeviceToHost));
    double max_abs = 0, max_rel = 0; long long bad_v = 0, bad_i = 0;
    std::vector<float> y(V); std::vector<int> idx(V);
    for (long long r = 0; r < cs.batch; ++r) {
      const float* x = &hx[r * V];
      float m = -INFINITY;
      for (int j = 0; j < V; ++j) { y[j] = x[j] / cs.T; m = std::max(m, y[j]); }
      double s = 0; for (int j = 0; j < V; ++j) s += std::exp(double(y[j]) - m);
      std::iota(idx.begin(), idx.end(), 0);
      std::partial_sort(idx.begin(), idx.begin() + K, idx.end(), [&](int a, int b) { return y[a] > y[b] || (y[a] == y[b] && a < b); });
      for (int k = 0; k < K; ++k) {
        const double ref = std::exp(double(y[idx[k]]) - m) / s, got = hp[r * K + k];
        const double ae = std::fabs(got - ref), re = ae / std::fabs(ref);
        if (!std::isfinite(got) || (ae > cs.atol && re > cs.rtol)) ++bad_v;
        max_abs = std::max(max_abs, ae); max_rel = std::max(max_rel, re);
        if (hi[r * K + k] != idx[k]) ++bad_i;
      }
    }
    const bool ok = bad_v == 0 && (bad_i == 0 || cs.quant > 0);
    cudaEvent_t a, b; CK(cudaEventCreate(&a)); CK(cudaEventCreate(&b));
    for (int i = 0; i < 5; ++i) softmax_topk_v32000_k8(dx, cs.T, dp, di, cs.batch, st);
    const int iters = 100;
    CK(cudaEventRecord(a, st));
    for (int i = 0; i < iters; ++i) softmax_topk_v32000_k8(dx, cs.T, dp, di, cs.batch, st);
    CK(cudaEventRecord(b, st)); CK(cudaEventSynchronize(b));
    float ms; CK(cudaEventElapsedTime(&ms, a, b));
    const double us = ms * 1e3 / iters, bytes = double(n) * 4 + cs.batch * K * 12.0;
    printf("batch %5lld T %.2f%s: max_abs %.3g max_rel %.3g bad_vals %lld bad_idx %lld %s | %.2f us  %.1f GB/s\n", cs.batch,
           cs.T, cs.quant > 0 ? " (tied logits, idx info only)" : "", max_abs, max_rel, bad_v, bad_i, ok ? "PASS" : "FAIL", us,
           bytes / us * 1e-3);
    all_ok &= ok;
    CK(cudaFree(dx)); CK(cudaFree(dp)); CK(cudaFree(di));
  }
  printf("%s\n", all_ok ? "ALL PASS" : "SOME FAIL");
  return all_ok ? 0 : 1;
}
