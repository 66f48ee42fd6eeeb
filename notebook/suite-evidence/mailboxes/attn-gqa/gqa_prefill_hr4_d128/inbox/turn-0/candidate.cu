// gqa_prefill_hr4_d128 candidate: causal GQA prefill, FlashAttention-2 style.
// One CTA (4 warps) per (batch, q-head, 64 query rows); each warp owns 16 query rows.
// Loop over 64-key blocks from 0 up to the diagonal; K/V tiles double-buffered in
// shared memory with cp.async (XOR-swizzled 16B chunks); S = Q K^T and O += P V with
// mma.sync m16n8k16 (fp16 in, fp32 accumulate); online softmax in fp32 (log2 domain).
// lse = natural-log logsumexp of sm_scale * q.k over keys j <= i, layout [b, s, hq].
#include <cstdint>
#include <cuda_runtime.h>
#include <cuda_fp16.h>

namespace gqa_hr4 {

constexpr int D = 128;          // head_dim
constexpr int BM = 64;          // query rows per CTA
constexpr int BN = 64;          // keys per block (must equal BM: diagonal logic below)
constexpr int NW = 4;           // warps per CTA
constexpr int NT = NW * 32;     // threads per CTA
constexpr int GROUP = 4;        // q heads per kv head
constexpr int TILE = 64 * D;    // halfs per 64x128 tile
constexpr int SMEM_BYTES = 5 * TILE * 2;   // Q + 2xK + 2xV = 81920 bytes
static_assert(BM == BN, "diagonal handling assumes BM == BN");

__device__ __forceinline__ uint32_t smem_u32(const void* p) {
    return (uint32_t)__cvta_generic_to_shared(p);
}

// offset (in halfs) of 16-byte chunk `chunk` (0..15) of row `row` in a swizzled 64x128 tile
__device__ __forceinline__ int swz(int row, int chunk) {
    return row * D + ((chunk ^ (row & 7)) << 3);
}

__device__ __forceinline__ void cp_async16(uint32_t dst, const void* src, bool valid) {
    int sz = valid ? 16 : 0;   // src-size 0 -> zero fill
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src), "r"(sz));
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }
__device__ __forceinline__ void cp_async_wait_all() { asm volatile("cp.async.wait_group 0;\n" ::: "memory"); }

// Load rows [row0, row0+64) of a [seq, 128] slice with global row stride `gstride` (halfs).
// Rows >= s are zero-filled.
__device__ __forceinline__ void load_tile(__half* sm, const __half* g, int64_t gstride, int row0,
                                          int s, int tid) {
#pragma unroll
    for (int i = 0; i < (64 * 16) / NT; ++i) {
        int idx = tid + i * NT;
        int r = idx >> 4, c = idx & 15;
        int gr = row0 + r;
        bool ok = gr < s;
        const __half* src = g + (int64_t)(ok ? gr : 0) * gstride + c * 8;
        cp_async16(smem_u32(sm + swz(r, c)), src, ok);
    }
}

__device__ __forceinline__ void ldsm_x4(uint32_t& r0, uint32_t& r1, uint32_t& r2, uint32_t& r3,
                                        uint32_t addr) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                 : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3)
                 : "r"(addr));
}
__device__ __forceinline__ void ldsm_x4_t(uint32_t& r0, uint32_t& r1, uint32_t& r2, uint32_t& r3,
                                          uint32_t addr) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                 : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3)
                 : "r"(addr));
}

__device__ __forceinline__ void mma16816(float* c, const uint32_t* a, uint32_t b0, uint32_t b1) {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
        "{%8,%9}, {%0,%1,%2,%3};\n"
        : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

__device__ __forceinline__ uint32_t pack_half2(float lo, float hi) {
    __half2 h = __floats2half2_rn(lo, hi);   // .x (low 16 bits) = lo
    return *reinterpret_cast<uint32_t*>(&h);
}

__global__ void __launch_bounds__(NT, 2)
gqa_fwd_kernel(const __half* __restrict__ q, const __half* __restrict__ k,
               const __half* __restrict__ v, float scale_log2, __half* __restrict__ out,
               float* __restrict__ lse, int batch, int s, int hq, int hkv, int nmb) {
    extern __shared__ __align__(128) unsigned char smraw[];
    __half* sQ = reinterpret_cast<__half*>(smraw);
    __half* sK = sQ + TILE;        // 2 buffers
    __half* sV = sK + 2 * TILE;    // 2 buffers

    // heavy (late) query blocks first; neighbouring CTAs share the kv head (L2 reuse)
    const int per = hq * batch;
    const int bid = blockIdx.x;
    const int mb = nmb - 1 - bid / per;
    const int rem = bid % per;
    const int b = rem / hq;
    const int h = rem % hq;
    const int hk = h / GROUP;
    const int m0 = mb * BM;

    const int64_t qstride = (int64_t)hq * D;
    const int64_t kstride = (int64_t)hkv * D;
    const __half* qg = q + ((int64_t)b * s * hq + h) * D;
    const __half* kg = k + ((int64_t)b * s * hkv + hk) * D;
    const __half* vg = v + ((int64_t)b * s * hkv + hk) * D;

    const int tid = threadIdx.x;
    const int warp = tid >> 5;
    const int lane = tid & 31;
    const int g = lane >> 2;
    const int t = lane & 3;

    load_tile(sQ, qg, qstride, m0, s, tid);
    load_tile(sK, kg, kstride, 0, s, tid);
    load_tile(sV, vg, kstride, 0, s, tid);
    cp_async_commit();

    float o[16][4];
#pragma unroll
    for (int i = 0; i < 16; ++i) o[i][0] = o[i][1] = o[i][2] = o[i][3] = 0.f;
    float m_r[2] = {-INFINITY, -INFINITY};
    float l_r[2] = {0.f, 0.f};
    uint32_t qf[8][4];

    const int nblocks = mb + 1;   // BM == BN: key blocks 0..mb
    for (int j = 0; j < nblocks; ++j) {
        cp_async_wait_all();
        __syncthreads();
        if (j == 0) {
#pragma unroll
            for (int kk = 0; kk < 8; ++kk) {
                int row = warp * 16 + (lane & 15);
                int chunk = kk * 2 + (lane >> 4);
                ldsm_x4(qf[kk][0], qf[kk][1], qf[kk][2], qf[kk][3], smem_u32(sQ + swz(row, chunk)));
            }
        }
        if (j + 1 < nblocks) {
            const int nb = (j + 1) & 1;
            load_tile(sK + nb * TILE, kg, kstride, (j + 1) * BN, s, tid);
            load_tile(sV + nb * TILE, vg, kstride, (j + 1) * BN, s, tid);
            cp_async_commit();
        }
        const __half* cK = sK + (j & 1) * TILE;
        const __half* cV = sV + (j & 1) * TILE;

        // S = Q K^T  (16 x 64 per warp)
        float sc[8][4];
#pragma unroll
        for (int i = 0; i < 8; ++i) sc[i][0] = sc[i][1] = sc[i][2] = sc[i][3] = 0.f;
#pragma unroll
        for (int kk = 0; kk < 8; ++kk) {
#pragma unroll
            for (int np = 0; np < 4; ++np) {
                int krow = np * 16 + (lane & 7) + ((lane >> 4) << 3);
                int chunk = kk * 2 + ((lane >> 3) & 1);
                uint32_t b0, b1, b2, b3;
                ldsm_x4(b0, b1, b2, b3, smem_u32(cK + swz(krow, chunk)));
                mma16816(sc[2 * np], qf[kk], b0, b1);
                mma16816(sc[2 * np + 1], qf[kk], b2, b3);
            }
        }

        // scale into log2 domain, causal mask on the diagonal block
        const bool diag = (j == nblocks - 1);
#pragma unroll
        for (int nt = 0; nt < 8; ++nt) {
#pragma unroll
            for (int e = 0; e < 4; ++e) {
                float x = sc[nt][e] * scale_log2;
                if (diag) {
                    int row = warp * 16 + g + ((e >> 1) << 3);
                    int col = nt * 8 + 2 * t + (e & 1);
                    if (col > row) x = -INFINITY;
                }
                sc[nt][e] = x;
            }
        }

        // online softmax
        float mx[2] = {m_r[0], m_r[1]};
#pragma unroll
        for (int nt = 0; nt < 8; ++nt) {
            mx[0] = fmaxf(mx[0], fmaxf(sc[nt][0], sc[nt][1]));
            mx[1] = fmaxf(mx[1], fmaxf(sc[nt][2], sc[nt][3]));
        }
#pragma unroll
        for (int r = 0; r < 2; ++r) {
            mx[r] = fmaxf(mx[r], __shfl_xor_sync(0xffffffffu, mx[r], 1));
            mx[r] = fmaxf(mx[r], __shfl_xor_sync(0xffffffffu, mx[r], 2));
        }
        // mx is finite: key 0 of block 0 is always visible to every row
        float alpha0 = exp2f(m_r[0] - mx[0]);
        float alpha1 = exp2f(m_r[1] - mx[1]);
        m_r[0] = mx[0];
        m_r[1] = mx[1];
        l_r[0] *= alpha0;
        l_r[1] *= alpha1;
#pragma unroll
        for (int i = 0; i < 16; ++i) {
            o[i][0] *= alpha0;
            o[i][1] *= alpha0;
            o[i][2] *= alpha1;
            o[i][3] *= alpha1;
        }
#pragma unroll
        for (int nt = 0; nt < 8; ++nt) {
            sc[nt][0] = exp2f(sc[nt][0] - mx[0]);
            sc[nt][1] = exp2f(sc[nt][1] - mx[0]);
            sc[nt][2] = exp2f(sc[nt][2] - mx[1]);
            sc[nt][3] = exp2f(sc[nt][3] - mx[1]);
            l_r[0] += sc[nt][0] + sc[nt][1];
            l_r[1] += sc[nt][2] + sc[nt][3];
        }

        // O += P V
#pragma unroll
        for (int kk = 0; kk < 4; ++kk) {
            uint32_t a[4];
            a[0] = pack_half2(sc[2 * kk][0], sc[2 * kk][1]);
            a[1] = pack_half2(sc[2 * kk][2], sc[2 * kk][3]);
            a[2] = pack_half2(sc[2 * kk + 1][0], sc[2 * kk + 1][1]);
            a[3] = pack_half2(sc[2 * kk + 1][2], sc[2 * kk + 1][3]);
#pragma unroll
            for (int dp = 0; dp < 8; ++dp) {
                int vrow = kk * 16 + (lane & 7) + (((lane >> 3) & 1) << 3);
                int chunk = dp * 2 + (lane >> 4);
                uint32_t b0, b1, b2, b3;
                ldsm_x4_t(b0, b1, b2, b3, smem_u32(cV + swz(vrow, chunk)));
                mma16816(o[2 * dp], a, b0, b1);
                mma16816(o[2 * dp + 1], a, b2, b3);
            }
        }
    }

    // epilogue: finish row sums, normalise, stage the warp's 16 rows in sQ, coalesced store
#pragma unroll
    for (int r = 0; r < 2; ++r) {
        l_r[r] += __shfl_xor_sync(0xffffffffu, l_r[r], 1);
        l_r[r] += __shfl_xor_sync(0xffffffffu, l_r[r], 2);
    }
    const float inv0 = 1.f / l_r[0];
    const float inv1 = 1.f / l_r[1];
    {
        const int r0 = warp * 16 + g;
#pragma unroll
        for (int nt = 0; nt < 16; ++nt) {
            *reinterpret_cast<__half2*>(sQ + swz(r0, nt) + 2 * t) =
                __floats2half2_rn(o[nt][0] * inv0, o[nt][1] * inv0);
            *reinterpret_cast<__half2*>(sQ + swz(r0 + 8, nt) + 2 * t) =
                __floats2half2_rn(o[nt][2] * inv1, o[nt][3] * inv1);
        }
    }
    __syncwarp();
    __half* og = out + ((int64_t)b * s * hq + h) * D;
#pragma unroll
    for (int i = 0; i < 8; ++i) {
        int idx = lane + 32 * i;
        int r = idx >> 4, c = idx & 15;
        int lrow = warp * 16 + r;
        int grow = m0 + lrow;
        if (grow < s)
            *reinterpret_cast<uint4*>(og + (int64_t)grow * qstride + c * 8) =
                *reinterpret_cast<const uint4*>(sQ + swz(lrow, c));
    }
    if (t == 0) {
        const float LN2 = 0.6931471805599453f;
#pragma unroll
        for (int r = 0; r < 2; ++r) {
            int grow = m0 + warp * 16 + g + 8 * r;
            if (grow < s)
                lse[((int64_t)b * s + grow) * hq + h] = (m_r[r] + log2f(l_r[r])) * LN2;
        }
    }
}

}  // namespace gqa_hr4

extern "C" void gqa_prefill_hr4_d128(const __half* q, const __half* k, const __half* v,
                                     float sm_scale, __half* out, float* lse, int64_t batch,
                                     int64_t seq_len, int64_t num_kv_heads, cudaStream_t stream) {
    using namespace gqa_hr4;
    if (batch <= 0 || seq_len <= 0 || num_kv_heads <= 0) return;
    const int s = (int)seq_len;
    const int hkv = (int)num_kv_heads;
    const int hq = hkv * GROUP;
    const int nmb = (s + BM - 1) / BM;
    // launch configuration only (no results cached): set the smem opt-in once per device
    static unsigned long long configured = 0ull;
    int dev = 0;
    cudaGetDevice(&dev);
    const unsigned long long bit = 1ull << (dev & 63);
    if (!(configured & bit)) {
        cudaFuncSetAttribute(gqa_fwd_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, SMEM_BYTES);
        configured |= bit;
    }
    const float scale_log2 = sm_scale * 1.4426950408889634f;
    const unsigned grid = (unsigned)((int64_t)nmb * hq * batch);
    gqa_fwd_kernel<<<grid, NT, SMEM_BYTES, stream>>>(q, k, v, scale_log2, out, lse, (int)batch, s,
                                                     hq, hkv, nmb);
}
