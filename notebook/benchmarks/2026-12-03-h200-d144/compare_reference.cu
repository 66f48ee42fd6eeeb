// The attention reference with 128-wide tiles against the 64 x 64 one it replaced (a0713d4's
// kernels/attention/reference.cu, built with -Dattention=attention_old): the same inputs, the
// outputs compared bit for bit, each timed (CUDA events, median of 3). Built here, run on the
// device by call.sh. The 128-wide version measured here was not kept (no faster); it is
// kernels/attention/reference.cu at commit de0fb98.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "reference.cuh"  // the new one (kernels/attention)
#define attention attention_old
#include OLD_REFERENCE_HEADER
#undef attention

namespace {

__global__ void fill(std::uint16_t* p, long long n, std::uint64_t seed, int dtype) {
  for (long long i = blockIdx.x * 256ll + threadIdx.x; i < n; i += 256ll * gridDim.x) {
    std::uint64_t x = seed ^ (0x9E3779B97F4A7C15ull * (i + 1));
    x = (x ^ (x >> 31)) * 0xBF58476D1CE4E5B9ull;
    x ^= x >> 29;
    const float v = (static_cast<float>(x & 0xFFFFFF) / 16777216.0f - 0.5f) * 4.0f;
    if (dtype == 0) {
      __nv_bfloat16 b = __float2bfloat16_rn(v);
      p[i] = *reinterpret_cast<std::uint16_t*>(&b);
    } else {
      __half h = __float2half_rn(v);
      p[i] = *reinterpret_cast<std::uint16_t*>(&h);
    }
  }
}

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(e));
    std::exit(2);
  }
}

template <class Ref, class Shape>
float time_ms(Ref& ref, const Shape& s, void* q, void* k, void* v, float* out) {
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  std::vector<float> t;
  for (int r = 0; r < 3; ++r) {
    cudaEventRecord(a);
    ref.run(s, q, k, v, out, nullptr);
    cudaEventRecord(b);
    check(cudaEventSynchronize(b), "reference");
    float ms = 0;
    cudaEventElapsedTime(&ms, a, b);
    t.push_back(ms);
  }
  std::sort(t.begin(), t.end());
  return t[1];
}

}  // namespace

int main() {
  struct Case { int b, sq, skv, hq, hkv, d; bool causal; int dtype; };
  std::vector<Case> cases;
  for (int d : {64, 128, 256})
    for (int sq : {512, 2048, 8192, 16384})
      for (bool c : {false, true}) cases.push_back({16384 / sq, sq, sq, 2048 / d, 2048 / d, d, c, 0});
  // Edges: odd lengths, seqlen_q != seqlen_kv (causal, bottom-right), GQA, small head dims, fp16.
  cases.push_back({2, 1000, 1531, 8, 2, 128, true, 0});
  cases.push_back({3, 1531, 1000, 6, 3, 64, true, 1});
  cases.push_back({1, 77, 4099, 4, 1, 8, false, 0});
  cases.push_back({1, 4099, 77, 4, 4, 40, true, 1});
  cases.push_back({2, 129, 129, 2, 2, 256, false, 0});
  cases.push_back({1, 1, 300, 2, 1, 96, true, 0});
  int differ_total = 0;
  double old_total = 0, new_total = 0;
  for (const Case& c : cases) {
    socratic::attention::Shape s;
    s.batch = c.b, s.seqlen_q = c.sq, s.seqlen_kv = c.skv, s.heads_q = c.hq, s.heads_kv = c.hkv;
    s.head_dim = c.d, s.causal = c.causal, s.dtype = c.dtype, s.softmax_scale = 1.0f / std::sqrt(float(c.d));
    socratic::attention_old::Shape o;
    o.batch = c.b, o.seqlen_q = c.sq, o.seqlen_kv = c.skv, o.heads_q = c.hq, o.heads_kv = c.hkv;
    o.head_dim = c.d, o.causal = c.causal, o.dtype = c.dtype, o.softmax_scale = s.softmax_scale;
    const long long nq = s.q_elements(), nkv = s.kv_elements();
    void *q, *k, *v;
    float *out_new, *out_old;
    check(cudaMalloc(&q, nq * 2), "q");
    check(cudaMalloc(&k, nkv * 2), "k");
    check(cudaMalloc(&v, nkv * 2), "v");
    check(cudaMalloc(&out_new, nq * 4), "out");
    check(cudaMalloc(&out_old, nq * 4), "out");
    fill<<<1024, 256>>>(static_cast<std::uint16_t*>(q), nq, 1, c.dtype);
    fill<<<1024, 256>>>(static_cast<std::uint16_t*>(k), nkv, 2, c.dtype);
    fill<<<1024, 256>>>(static_cast<std::uint16_t*>(v), nkv, 3, c.dtype);
    socratic::attention::Reference fresh;
    socratic::attention_old::Reference old;
    const float t_new = time_ms(fresh, s, q, k, v, out_new);
    const float t_old = time_ms(old, o, q, k, v, out_old);
    std::vector<std::uint32_t> a(nq), b(nq);
    check(cudaMemcpy(a.data(), out_new, nq * 4, cudaMemcpyDeviceToHost), "copy");
    check(cudaMemcpy(b.data(), out_old, nq * 4, cudaMemcpyDeviceToHost), "copy");
    long long differ = 0;
    for (long long i = 0; i < nq; ++i) differ += a[i] != b[i];
    differ_total += differ != 0;
    old_total += t_old, new_total += t_new;
    std::printf("b%d sq%d skv%d hq%d hkv%d d%d %s %s: old %.2f ms, new %.2f ms (%.2fx), %lld of %lld words differ\n",
                c.b, c.sq, c.skv, c.hq, c.hkv, c.d, c.causal ? "causal" : "full", c.dtype ? "fp16" : "bf16",
                t_old, t_new, t_old / t_new, differ, nq);
    cudaFree(q), cudaFree(k), cudaFree(v), cudaFree(out_new), cudaFree(out_old);
  }
  std::printf("%zu shapes: %d with any differing word; total old %.1f ms, new %.1f ms (%.2fx)\n", cases.size(),
              differ_total, old_total, new_total, old_total / new_total);
  return differ_total == 0 ? 0 : 1;
}
