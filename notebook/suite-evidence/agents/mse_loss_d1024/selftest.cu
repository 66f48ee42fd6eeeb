// Standalone self-test of candidate.cu (mse_loss_d1024). Inputs are filled on the GPU (hashed
// Box-Muller normals); the reference is a plain per-row kernel in double (one thread per row),
// summed on the host in double. Checks mean=true/false, several scales, repeated calls (the
// last-block counter must reset), then cudaEvent timing.
// Build: nvcc -std=c++17 -gencode=arch=compute_90a,code=sm_90a -O3 selftest.cu -o selftest
#include "candidate.cu"
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("CUDA error %s at %s:%d\n", cudaGetErrorString(e_), __FILE__, __LINE__); exit(1); } } while (0)

__device__ unsigned long long mix(unsigned long long z) {
  z += 0x9e3779b97f4a7c15ull; z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull; return z ^ (z >> 31);
}
__global__ void fill_randn(float* x, long long n, unsigned long long seed) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
    unsigned long long h = mix(seed * 0x100000001b3ull + i);
    float u1 = ((h >> 40) + 1) * (1.0f / 16777217.0f), u2 = ((h >> 16) & 0xffffff) * (1.0f / 16777216.0f);
    x[i] = sqrtf(-2.f * logf(u1)) * cospif(2.f * u2);
  }
}
__global__ void ref_rows(const float* p, const float* q, double* out, long long rows) {
  long long r = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (r >= rows) return;
  double s = 0;
  for (int c = 0; c < 1024; ++c) { double d = double(p[r * 1024 + c]) - double(q[r * 1024 + c]); s += d * d; }
  out[r] = s;
}

int main() {
  struct Case { long long rows; float scale; bool mean; double atol, rtol; };
  const Case cases[] = {{1, 1.0f, true, 0.01, 0.01}, {3, 0.25f, false, 0.01, 0.01}, {65536, 0.5f, false, 1.0, 1e-3},
                        {262144, 2.0f, true, 1e-3, 1e-3}, {1000, 3.0f, true, 1e-3, 1e-3}};
  bool all_ok = true;
  cudaStream_t st; CK(cudaStreamCreate(&st));
  for (const Case& cs : cases) {
    const long long n = cs.rows * 1024;
    float *dp, *dq, *dscale, *dloss; double* drow;
    CK(cudaMalloc(&dp, n * 4)); CK(cudaMalloc(&dq, n * 4)); CK(cudaMalloc(&dscale, 4)); CK(cudaMalloc(&dloss, 4));
    CK(cudaMalloc(&drow, cs.rows * 8));
    fill_randn<<<1024, 256>>>(dp, n, 1 + cs.rows); fill_randn<<<1024, 256>>>(dq, n, 7 + 3 * cs.rows);
    CK(cudaMemcpy(dscale, &cs.scale, 4, cudaMemcpyHostToDevice));
    ref_rows<<<(cs.rows + 255) / 256, 256>>>(dp, dq, drow, cs.rows);
    CK(cudaDeviceSynchronize()); CK(cudaGetLastError());
    std::vector<double> rs(cs.rows); CK(cudaMemcpy(rs.data(), drow, cs.rows * 8, cudaMemcpyDeviceToHost));
    double tot = 0; for (double v : rs) tot += v;
    const double ref = (cs.mean ? tot / double(n) : tot) * cs.scale;
    bool ok = true; double worst = 0;
    for (int rep = 0; rep < 3; ++rep) {  // repeated calls: the counter must have been reset
      const float nanv = NAN; CK(cudaMemcpy(dloss, &nanv, 4, cudaMemcpyHostToDevice));
      mse_loss_d1024(dp, dq, dscale, cs.mean, dloss, cs.rows, st);
      CK(cudaStreamSynchronize(st)); CK(cudaGetLastError());
      float got; CK(cudaMemcpy(&got, dloss, 4, cudaMemcpyDeviceToHost));
      const double ae = std::fabs(got - ref), re = ae / std::fabs(ref);
      if (!(std::isfinite(got)) || (ae > cs.atol && re > cs.rtol)) ok = false;
      if (ae > worst || !std::isfinite(got)) worst = std::isfinite(got) ? ae : INFINITY;
      if (rep == 0) printf("rows %7lld mean %d scale %.2f: got %.9g ref %.9g rel %.3g\n", cs.rows, cs.mean, cs.scale, got, ref, re);
    }
    cudaEvent_t a, b; CK(cudaEventCreate(&a)); CK(cudaEventCreate(&b));
    for (int i = 0; i < 5; ++i) mse_loss_d1024(dp, dq, dscale, cs.mean, dloss, cs.rows, st);
    const int iters = cs.rows >= 65536 ? 30 : 200;
    CK(cudaEventRecord(a, st));
    for (int i = 0; i < iters; ++i) mse_loss_d1024(dp, dq, dscale, cs.mean, dloss, cs.rows, st);
    CK(cudaEventRecord(b, st)); CK(cudaEventSynchronize(b));
    float ms; CK(cudaEventElapsedTime(&ms, a, b));
    float got; CK(cudaMemcpy(&got, dloss, 4, cudaMemcpyDeviceToHost));  // after many calls: still right?
    const double ae = std::fabs(got - ref), re = ae / std::fabs(ref);
    if (!std::isfinite(got) || (ae > cs.atol && re > cs.rtol)) ok = false;
    const double us = ms * 1e3 / iters, bytes = 2.0 * n * 4 + 8;
    printf("   max_abs_err %.4g %s | %.2f us  %.1f GB/s\n", worst, ok ? "PASS" : "FAIL", us, bytes / us * 1e-3);
    all_ok &= ok;
    CK(cudaFree(dp)); CK(cudaFree(dq)); CK(cudaFree(dscale)); CK(cudaFree(dloss)); CK(cudaFree(drow));
  }
  printf("%s\n", all_ok ? "ALL PASS" : "SOME FAIL");
  return all_ok ? 0 : 1;
}
