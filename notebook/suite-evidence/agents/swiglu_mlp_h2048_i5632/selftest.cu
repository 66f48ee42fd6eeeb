// Self-test: random N(0,1) bf16 inputs (as the judge draws them), the candidate vs a plain fp32
// reference (smem-tiled fp32 GEMMs, no tensor cores), SOL tolerance per workload, and timing.
// nvcc -std=c++17 -gencode=arch=compute_90a,code=sm_90a -O3 selftest.cu -o selftest
#include "candidate.cu"
#include <cstdio>
#include <cmath>
#include <vector>

__device__ __host__ inline uint32_t hash32(uint64_t x) {
  x ^= x >> 33; x *= 0xff51afd7ed558ccdULL; x ^= x >> 33; x *= 0xc4ceb9fe1a85ec53ULL; x ^= x >> 33;
  return static_cast<uint32_t>(x);
}
__global__ void gen_bf16(__nv_bfloat16* p, size_t n, uint64_t seed) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
    float u1 = (hash32(seed * 0x9E3779B97F4A7C15ULL + 2 * i) + 1.0f) * 2.3283064e-10f;
    float u2 = hash32(seed * 0x9E3779B97F4A7C15ULL + 2 * i + 1) * 2.3283064e-10f;
    float z = sqrtf(-2.f * logf(fminf(u1, 1.f))) * cospif(2.f * u2);
    p[i] = __float2bfloat16_rn(z);
  }
}
__global__ void to_f32(const __nv_bfloat16* p, float* q, size_t n) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    q[i] = __bfloat162float(p[i]);
}
// C[m][n] = sum_k A[m][k] * B[n][k], fp32, 16x16 tiles.
__global__ void ref_gemm(const float* A, const float* B, float* C, int M, int N, int K) {
  __shared__ float As[16][17], Bs[16][17];
  int tx = threadIdx.x, ty = threadIdx.y;
  int m = blockIdx.y * 16 + ty, n = blockIdx.x * 16 + tx;
  float acc = 0.f;
  for (int k0 = 0; k0 < K; k0 += 16) {
    int am = blockIdx.y * 16 + ty, bn = blockIdx.x * 16 + ty;
    As[ty][tx] = (am < M && k0 + tx < K) ? A[(size_t)am * K + k0 + tx] : 0.f;
    Bs[ty][tx] = (bn < N && k0 + tx < K) ? B[(size_t)bn * K + k0 + tx] : 0.f;
    __syncthreads();
    for (int kk = 0; kk < 16; ++kk) acc += As[ty][kk] * Bs[tx][kk];
    __syncthreads();
  }
  if (m < M && n < N) C[(size_t)m * N + n] = acc;
}
__global__ void ref_swiglu(const float* GU, float* Hh, int T, int I) {
  size_t n = (size_t)T * I;
  for (size_t idx = blockIdx.x * (size_t)blockDim.x + threadIdx.x; idx < n; idx += (size_t)gridDim.x * blockDim.x) {
    size_t t = idx / I, i = idx % I;
    float g = GU[t * 2 * I + i], u = GU[t * 2 * I + I + i];
    Hh[idx] = g / (1.f + expf(-g)) * u;
  }
}

int main() {
  const int H = 2048, I = 5632;
  const int toks[3] = {16, 512, 4096};
  const double atol[3] = {0.01, 0.01, 0.05}, rtol[3] = {0.01, 0.01, 0.05}, need[3] = {1.0, 1.0, 0.99};
  const int Tmax = 4096;
  __nv_bfloat16 *x, *wgu, *wd, *y;
  float *xf, *wguf, *wdf, *gu, *hh, *yr;
  cudaMalloc(&x, (size_t)Tmax * H * 2); cudaMalloc(&wgu, (size_t)2 * I * H * 2); cudaMalloc(&wd, (size_t)H * I * 2);
  cudaMalloc(&y, (size_t)Tmax * H * 2);
  cudaMalloc(&xf, (size_t)Tmax * H * 4); cudaMalloc(&wguf, (size_t)2 * I * H * 4); cudaMalloc(&wdf, (size_t)H * I * 4);
  cudaMalloc(&gu, (size_t)Tmax * 2 * I * 4); cudaMalloc(&hh, (size_t)Tmax * I * 4); cudaMalloc(&yr, (size_t)Tmax * H * 4);
  cudaStream_t s; cudaStreamCreate(&s);
  bool all_ok = true;
  for (int w = 0; w < 3; ++w) {
    const int T = toks[w];
    for (int round = 0; round < 2; ++round) {
      uint64_t seed = 1000 * w + round + 1;
      gen_bf16<<<1024, 256>>>(x, (size_t)T * H, seed * 3 + 0);
      gen_bf16<<<1024, 256>>>(wgu, (size_t)2 * I * H, seed * 3 + 1);
      gen_bf16<<<1024, 256>>>(wd, (size_t)H * I, seed * 3 + 2);
      to_f32<<<1024, 256>>>(x, xf, (size_t)T * H);
      to_f32<<<1024, 256>>>(wgu, wguf, (size_t)2 * I * H);
      to_f32<<<1024, 256>>>(wd, wdf, (size_t)H * I);
      ref_gemm<<<dim3(2 * I / 16, (T + 15) / 16), dim3(16, 16)>>>(xf, wguf, gu, T, 2 * I, H);
      ref_swiglu<<<1024, 256>>>(gu, hh, T, I);
      ref_gemm<<<dim3(H / 16, (T + 15) / 16), dim3(16, 16)>>>(hh, wdf, yr, T, H, I);
      cudaMemset(y, 0xFF, (size_t)T * H * 2);  // NaN pattern: unwritten outputs fail
      swiglu_mlp_h2048_i5632(x, wgu, wd, y, T, s);
      cudaError_t e = cudaDeviceSynchronize();
      if (e != cudaSuccess) { printf("CUDA error %s\n", cudaGetErrorString(e)); return 1; }
      std::vector<float> ref((size_t)T * H);
      std::vector<__nv_bfloat16> got((size_t)T * H);
      cudaMemcpy(ref.data(), yr, ref.size() * 4, cudaMemcpyDeviceToHost);
      cudaMemcpy(got.data(), y, got.size() * 2, cudaMemcpyDeviceToHost);
      double maxabs = 0, maxrel = 0; size_t bad = 0, nonfinite = 0;
      for (size_t i = 0; i < ref.size(); ++i) {
        float r = __bfloat162float(__float2bfloat16_rn(ref[i]));  // the reference returns bf16
        float g = __bfloat162float(got[i]);
        if (!std::isfinite(g)) { ++nonfinite; ++bad; continue; }
        double a = fabs((double)g - r);
        maxabs = fmax(maxabs, a); maxrel = fmax(maxrel, a / fmax(fabs(r), atol[w]));
        if (a > atol[w] + rtol[w] * fabs(r)) ++bad;
      }
      double ratio = 1.0 - (double)bad / ref.size();
      bool ok = ratio >= need[w] && nonfinite == 0;
      all_ok &= ok;
      printf("tokens=%d round %d: max abs %.4g max rel %.4g matched %.6f (%zu bad, %zu nonfinite) %s\n", T, round,
             maxabs, maxrel, ratio, bad, nonfinite, ok ? "PASS" : "FAIL");
    }
    // timing
    for (int i = 0; i < 3; ++i) swiglu_mlp_h2048_i5632(x, wgu, wd, y, T, s);
    cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
    const int iters = 20;
    cudaEventRecord(a, s);
    for (int i = 0; i < iters; ++i) swiglu_mlp_h2048_i5632(x, wgu, wd, y, T, s);
    cudaEventRecord(b, s);
    cudaEventSynchronize(b);
    float ms; cudaEventElapsedTime(&ms, a, b); ms /= iters;
    double flops = 2.0 * T * H * 2 * I + 2.0 * T * I * H;
    printf("tokens=%d: %.3f us, %.1f TFLOP/s\n", T, ms * 1e3, flops / (ms * 1e-3) / 1e12);
  }
  printf("%s\n", all_ok ? "ALL PASS" : "SOME FAIL");
  return all_ok ? 0 : 1;
}
