// Standalone self-test of candidate.cu (rmsnorm_h4096): CPU reference on every row, the suite's
// SOL-ExecBench rule (mismatch when abs_err > atol AND rel_err > rtol), then cudaEvent timing.
// Build: nvcc -std=c++17 -gencode=arch=compute_90a,code=sm_90a -O3 selftest.cu -o selftest
#include "candidate.cu"
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("CUDA error %s at %s:%d\n", cudaGetErrorString(e_), __FILE__, __LINE__); exit(1); } } while (0)

int main() {
  const int H = 4096;
  const int64_t batches[] = {1, 7, 128, 4096, 16384};
  bool all_ok = true;
  std::mt19937 rng(1234);
  std::normal_distribution<float> nd(0.f, 1.f);
  for (int64_t B : batches) {
    const float eps = B >= 4096 ? 1e-5f : 1e-6f;
    const double atol = B >= 4096 ? 0.02 : 0.01, rtol = atol, need = B >= 4096 ? 0.999 : 1.0;
    const size_t n = size_t(B) * H;
    std::vector<__nv_bfloat16> hx(n), hw(H), hy(n);
    for (size_t i = 0; i < n; ++i) hx[i] = __float2bfloat16(nd(rng));
    for (int i = 0; i < H; ++i) hw[i] = __float2bfloat16(nd(rng));
    __nv_bfloat16 *dx, *dw, *dy;
    CK(cudaMalloc(&dx, n * 2)); CK(cudaMalloc(&dw, H * 2)); CK(cudaMalloc(&dy, n * 2));
    CK(cudaMemcpy(dx, hx.data(), n * 2, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dw, hw.data(), H * 2, cudaMemcpyHostToDevice));
    CK(cudaMemset(dy, 0xff, n * 2));
    cudaStream_t st; CK(cudaStreamCreate(&st));
    rmsnorm_h4096(dx, dw, eps, dy, B, st);
    CK(cudaStreamSynchronize(st)); CK(cudaGetLastError());
    CK(cudaMemcpy(hy.data(), dy, n * 2, cudaMemcpyDeviceToHost));
    double max_abs = 0; size_t bad = 0;
    for (int64_t r = 0; r < B; ++r) {
      double ss = 0;
      for (int c = 0; c < H; ++c) { double v = __bfloat162float(hx[r * H + c]); ss += v * v; }
      const float inv = float(1.0 / std::sqrt(ss / H + double(eps)));
      for (int c = 0; c < H; ++c) {
        const float ref = __bfloat162float(__float2bfloat16((__bfloat162float(hx[r * H + c]) * inv) * __bfloat162float(hw[c])));
        const float got = __bfloat162float(hy[r * H + c]);
        const double ae = std::fabs(double(got) - ref), re = ae / std::max(1e-30, std::fabs(double(ref)));
        if (!std::isfinite(got)) { ++bad; continue; }
        if (ae > max_abs) max_abs = ae;
        if (ae > atol && re > rtol) ++bad;
      }
    }
    const double ratio = 1.0 - double(bad) / double(n);
    const bool ok = ratio >= need;
    all_ok &= ok;
    // timing
    cudaEvent_t a, b; CK(cudaEventCreate(&a)); CK(cudaEventCreate(&b));
    for (int i = 0; i < 10; ++i) rmsnorm_h4096(dx, dw, eps, dy, B, st);
    const int iters = 200;
    CK(cudaEventRecord(a, st));
    for (int i = 0; i < iters; ++i) rmsnorm_h4096(dx, dw, eps, dy, B, st);
    CK(cudaEventRecord(b, st)); CK(cudaEventSynchronize(b));
    float ms; CK(cudaEventElapsedTime(&ms, a, b));
    const double us = ms * 1e3 / iters, bytes = 2.0 * n * 2 + H * 2;
    printf("batch %6lld: max_abs_err %.4g matched %.6f %s | %.2f us  %.1f GB/s\n", (long long)B, max_abs, ratio,
           ok ? "PASS" : "FAIL", us, bytes / us * 1e-3);
    CK(cudaFree(dx)); CK(cudaFree(dw)); CK(cudaFree(dy)); CK(cudaStreamDestroy(st));
  }
  printf("%s\n", all_ok ? "ALL PASS" : "SOME FAIL");
  return all_ok ? 0 : 1;
}
