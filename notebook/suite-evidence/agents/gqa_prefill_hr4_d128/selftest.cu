// Self-test of candidate.cu: correctness vs a naive fp32 GPU reference + timing.
// Build: nvcc -std=c++17 -gencode=arch=compute_90a,code=sm_90a -O3 selftest.cu -o selftest
#include "candidate.cu"
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <vector>
#include <random>

#define CK(x)                                                                          \
    do {                                                                               \
        cudaError_t e_ = (x);                                                          \
        if (e_ != cudaSuccess) {                                                       \
            printf("CUDA error %s at %s:%d\n", cudaGetErrorString(e_), __FILE__, __LINE__); \
            exit(1);                                                                   \
        }                                                                              \
    } while (0)

// one thread per (b, h, i): exact causal softmax in fp32 (pass 1: max, pass 2: sum + P.V)
__global__ void ref_kernel(const __half* q, const __half* k, const __half* v, float scale,
                           float* out, float* lse, int B, int S, int HQ, int HKV) {
    int64_t id = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    int64_t total = (int64_t)B * S * HQ;
    if (id >= total) return;
    int h = id % HQ;
    int i = (id / HQ) % S;
    int b = id / ((int64_t)HQ * S);
    int hk = h / 4;
    const __half* qr = q + (((int64_t)b * S + i) * HQ + h) * 128;
    float qv[128];
    for (int d = 0; d < 128; ++d) qv[d] = __half2float(qr[d]);
    float m = -INFINITY;
    for (int j = 0; j <= i; ++j) {
        const __half* kr = k + (((int64_t)b * S + j) * HKV + hk) * 128;
        float acc = 0.f;
        for (int d = 0; d < 128; ++d) acc += qv[d] * __half2float(kr[d]);
        m = fmaxf(m, acc * scale);
    }
    float acc_o[128];
    for (int d = 0; d < 128; ++d) acc_o[d] = 0.f;
    float l = 0.f;
    for (int j = 0; j <= i; ++j) {
        const __half* kr = k + (((int64_t)b * S + j) * HKV + hk) * 128;
        const __half* vr = v + (((int64_t)b * S + j) * HKV + hk) * 128;
        float acc = 0.f;
        for (int d = 0; d < 128; ++d) acc += qv[d] * __half2float(kr[d]);
        float p = expf(acc * scale - m);
        l += p;
        for (int d = 0; d < 128; ++d) acc_o[d] += p * __half2float(vr[d]);
    }
    float* orow = out + (((int64_t)b * S + i) * HQ + h) * 128;
    for (int d = 0; d < 128; ++d) orow[d] = acc_o[d] / l;
    lse[((int64_t)b * S + i) * HQ + h] = m + logf(l);
}

struct WL { int b, s, hkv; double cap; };

int main() {
    const float scale = 0.08838834764831845f;
    const double atol = 0.01, rtol = 0.01;
    WL wls[] = {{1, 512, 8, 0.0}, {2, 2048, 8, 0.0}, {4, 1024, 2, 0.25}, {1, 100, 1, 0.0}, {2, 77, 3, 0.0}};
    bool all_ok = true;
    for (const WL& w : wls) {
        const int B = w.b, S = w.s, HKV = w.hkv, HQ = 4 * HKV;
        size_t nq = (size_t)B * S * HQ * 128, nk = (size_t)B * S * HKV * 128, nl = (size_t)B * S * HQ;
        __half *dq, *dk, *dv, *dout;
        float *dlse, *rout, *rlse;
        CK(cudaMalloc(&dq, nq * 2));
        CK(cudaMalloc(&dk, nk * 2));
        CK(cudaMalloc(&dv, nk * 2));
        CK(cudaMalloc(&dout, nq * 2));
        CK(cudaMalloc(&dlse, nl * 4));
        CK(cudaMalloc(&rout, nq * 4));
        CK(cudaMalloc(&rlse, nl * 4));
        bool wl_ok = true;
        for (int round = 0; round < 2; ++round) {
            std::mt19937 gen(1234 + 17 * round + S);
            std::normal_distribution<float> nd(0.f, 1.f);
            std::vector<__half> hq_(nq), hk_(nk), hv_(nk);
            for (auto& x : hq_) x = __float2half(nd(gen));
            for (auto& x : hk_) x = __float2half(nd(gen));
            for (auto& x : hv_) x = __float2half(nd(gen));
            CK(cudaMemcpy(dq, hq_.data(), nq * 2, cudaMemcpyHostToDevice));
            CK(cudaMemcpy(dk, hk_.data(), nk * 2, cudaMemcpyHostToDevice));
            CK(cudaMemcpy(dv, hv_.data(), nk * 2, cudaMemcpyHostToDevice));
            CK(cudaMemset(dout, 0xff, nq * 2));   // NaN pattern: catches unwritten outputs
            CK(cudaMemset(dlse, 0xff, nl * 4));
            gqa_prefill_hr4_d128(dq, dk, dv, scale, dout, dlse, B, S, HKV, 0);
            CK(cudaGetLastError());
            ref_kernel<<<(unsigned)((nl + 127) / 128), 128>>>(dq, dk, dv, scale, rout, rlse, B, S, HQ, HKV);
            CK(cudaGetLastError());
            CK(cudaDeviceSynchronize());
            std::vector<__half> ho(nq);
            std::vector<float> hl(nl), ro(nq), rl(nl);
            CK(cudaMemcpy(ho.data(), dout, nq * 2, cudaMemcpyDeviceToHost));
            CK(cudaMemcpy(hl.data(), dlse, nl * 4, cudaMemcpyDeviceToHost));
            CK(cudaMemcpy(ro.data(), rout, nq * 4, cudaMemcpyDeviceToHost));
            CK(cudaMemcpy(rl.data(), rlse, nl * 4, cudaMemcpyDeviceToHost));
            double maxo = 0, maxl = 0;
            size_t bado = 0, badl = 0;
            for (size_t i = 0; i < nq; ++i) {
                double a = __half2float(ho[i]), r = ro[i], e = fabs(a - r);
                if (!(e <= atol + rtol * fabs(r))) ++bado;
                if (!(e <= maxo)) maxo = e;   // NaN -> propagates as "bigger"
            }
            for (size_t i = 0; i < nl; ++i) {
                double a = hl[i], r = rl[i], e = fabs(a - r);
                if (!(e <= atol + rtol * fabs(r))) ++badl;
                if (!(e <= maxl)) maxl = e;
            }
            bool ok = bado == 0 && badl == 0 && std::isfinite(maxo) && std::isfinite(maxl);
            wl_ok = wl_ok && ok;
            printf("b%d s%d kv%d round %d: out max_abs_err %.3e (bad %zu)  lse max_abs_err %.3e (bad %zu)  %s\n",
                   B, S, HKV, round, maxo, bado, maxl, badl, ok ? "PASS" : "FAIL");
        }
        all_ok = all_ok && wl_ok;
        // timing
        cudaEvent_t e0, e1;
        CK(cudaEventCreate(&e0));
        CK(cudaEventCreate(&e1));
        for (int i = 0; i < 5; ++i) gqa_prefill_hr4_d128(dq, dk, dv, scale, dout, dlse, B, S, HKV, 0);
        const int iters = 50;
        CK(cudaEventRecord(e0));
        for (int i = 0; i < iters; ++i) gqa_prefill_hr4_d128(dq, dk, dv, scale, dout, dlse, B, S, HKV, 0);
        CK(cudaEventRecord(e1));
        CK(cudaEventSynchronize(e1));
        float ms = 0;
        CK(cudaEventElapsedTime(&ms, e0, e1));
        double t = ms / iters * 1e-3;
        double flops = 4.0 * B * HQ * (double)S * S * 128 / 2;
        printf("b%d s%d kv%d: %.2f us  %.1f TFLOP/s (definition FLOPs)\n", B, S, HKV, t * 1e6, flops / t * 1e-12);
        cudaFree(dq); cudaFree(dk); cudaFree(dv); cudaFree(dout); cudaFree(dlse); cudaFree(rout); cudaFree(rlse);
        cudaEventDestroy(e0); cudaEventDestroy(e1);
    }
    printf(all_ok ? "ALL PASS\n" : "SOME FAIL\n");
    return all_ok ? 0 : 1;
}
