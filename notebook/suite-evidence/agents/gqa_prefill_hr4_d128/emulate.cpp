// CPU emulation of candidate.cu's kernel (warp-level ldmatrix / mma.sync semantics from the PTX ISA)
// to check fragment/index logic without a GPU. g++ -O2 -std=c++17 emulate.cpp -o emulate
#include <cstdio>
#include <cstdint>
#include <cstring>
#include <cmath>
#include <vector>
#include <random>
typedef _Float16 h16;
const int D = 128, BM = 64, BN = 64, NW = 4, NT = 128, TILE = 64 * 128;

static int swz(int row, int chunk) { return row * D + ((chunk ^ (row & 7)) << 3); }
static uint32_t pack(h16 lo, h16 hi) {
    uint16_t a, b; memcpy(&a, &lo, 2); memcpy(&b, &hi, 2); return (uint32_t)a | ((uint32_t)b << 16);
}
static h16 lo16(uint32_t x) { uint16_t a = x & 0xffff; h16 r; memcpy(&r, &a, 2); return r; }
static h16 hi16(uint32_t x) { uint16_t a = x >> 16; h16 r; memcpy(&r, &a, 2); return r; }

static void ldsm_x4(const h16* sm, const int* addr, uint32_t out[32][4], bool trans) {
    for (int i = 0; i < 4; ++i)
        for (int l = 0; l < 32; ++l) {
            h16 e0, e1;
            if (!trans) { int a = addr[8 * i + l / 4]; e0 = sm[a + 2 * (l % 4)]; e1 = sm[a + 2 * (l % 4) + 1]; }
            else { e0 = sm[addr[8 * i + 2 * (l % 4)] + l / 4]; e1 = sm[addr[8 * i + 2 * (l % 4) + 1] + l / 4]; }
            out[l][i] = pack(e0, e1);
        }
}
static void mma(float c[32][4], const uint32_t a[32][4], const uint32_t* b0, const uint32_t* b1) {
    float A[16][16], B[16][8], C[16][8];
    for (int l = 0; l < 32; ++l) {
        int g = l / 4, t = l % 4;
        A[g][2 * t] = lo16(a[l][0]); A[g][2 * t + 1] = hi16(a[l][0]);
        A[g + 8][2 * t] = lo16(a[l][1]); A[g + 8][2 * t + 1] = hi16(a[l][1]);
        A[g][2 * t + 8] = lo16(a[l][2]); A[g][2 * t + 9] = hi16(a[l][2]);
        A[g + 8][2 * t + 8] = lo16(a[l][3]); A[g + 8][2 * t + 9] = hi16(a[l][3]);
        B[2 * t][g] = lo16(b0[l]); B[2 * t + 1][g] = hi16(b0[l]);
        B[2 * t + 8][g] = lo16(b1[l]); B[2 * t + 9][g] = hi16(b1[l]);
        C[g][2 * t] = c[l][0]; C[g][2 * t + 1] = c[l][1]; C[g + 8][2 * t] = c[l][2]; C[g + 8][2 * t + 1] = c[l][3];
    }
    for (int i = 0; i < 16; ++i) for (int j = 0; j < 8; ++j) {
        float s = C[i][j]; for (int kx = 0; kx < 16; ++kx) s += A[i][kx] * B[kx][j]; C[i][j] = s;
    }
    for (int l = 0; l < 32; ++l) {
        int g = l / 4, t = l % 4;
        c[l][0] = C[g][2 * t]; c[l][1] = C[g][2 * t + 1]; c[l][2] = C[g + 8][2 * t]; c[l][3] = C[g + 8][2 * t + 1];
    }
}
static void load_tile(h16* sm, const h16* g, int64_t gstride, int row0, int s) {
    for (int tid = 0; tid < NT; ++tid)
        for (int i = 0; i < 8; ++i) {
            int idx = tid + i * NT; int r = idx >> 4, c = idx & 15; int gr = row0 + r; bool ok = gr < s;
            const h16* src = g + (int64_t)(ok ? gr : 0) * gstride + c * 8;
            for (int e = 0; e < 8; ++e) sm[swz(r, c) + e] = ok ? src[e] : (h16)0.f;
        }
}

static void run_cta(const h16* q, const h16* k, const h16* v, float scale_log2, h16* out, float* lse,
                    int batch, int s, int hq, int hkv, int nmb, int bid) {
    std::vector<h16> smv(5 * TILE); h16* sQ = smv.data(); h16* sK = sQ + TILE; h16* sV = sK + 2 * TILE;
    const int per = hq * batch, mb = nmb - 1 - bid / per, rem = bid % per, b = rem / hq, h = rem % hq, hk = h / 4, m0 = mb * BM;
    const int64_t qstride = (int64_t)hq * D, kstride = (int64_t)hkv * D;
    const h16* qg = q + ((int64_t)b * s * hq + h) * D;
    const h16* kg = k + ((int64_t)b * s * hkv + hk) * D;
    const h16* vg = v + ((int64_t)b * s * hkv + hk) * D;
    load_tile(sQ, qg, qstride, m0, s); load_tile(sK, kg, kstride, 0, s); load_tile(sV, vg, kstride, 0, s);
    static float o[NW][32][16][4], m_r[NW][32][2], l_r[NW][32][2], sc[NW][8][32][4];
    static uint32_t qf[NW][8][32][4];
    for (int w = 0; w < NW; ++w) for (int l = 0; l < 32; ++l) {
        for (int i = 0; i < 16; ++i) for (int e = 0; e < 4; ++e) o[w][l][i][e] = 0;
        m_r[w][l][0] = m_r[w][l][1] = -INFINITY; l_r[w][l][0] = l_r[w][l][1] = 0;
    }
    const int nblocks = mb + 1;
    for (int j = 0; j < nblocks; ++j) {
        if (j + 1 < nblocks) {   // prefetch into other buffer (sequential here)
            int nb = (j + 1) & 1;
            load_tile(sK + nb * TILE, kg, kstride, (j + 1) * BN, s); load_tile(sV + nb * TILE, vg, kstride, (j + 1) * BN, s);
        }
        const h16* cK = sK + (j & 1) * TILE; const h16* cV = sV + (j & 1) * TILE;
        for (int warp = 0; warp < NW; ++warp) {
            int addr[32]; uint32_t rr[32][4];
            if (j == 0) for (int kk = 0; kk < 8; ++kk) {
                for (int lane = 0; lane < 32; ++lane) addr[lane] = swz(warp * 16 + (lane & 15), kk * 2 + (lane >> 4));
                ldsm_x4(sQ, addr, qf[warp][kk], false);
            }
            for (int nt = 0; nt < 8; ++nt) for (int l = 0; l < 32; ++l) for (int e = 0; e < 4; ++e) sc[warp][nt][l][e] = 0;
            for (int kk = 0; kk < 8; ++kk) for (int np = 0; np < 4; ++np) {
                for (int lane = 0; lane < 32; ++lane) addr[lane] = swz(np * 16 + (lane & 7) + ((lane >> 4) << 3), kk * 2 + ((lane >> 3) & 1));
                ldsm_x4(cK, addr, rr, false);
                uint32_t b0[32], b1[32], b2[32], b3[32];
                for (int l = 0; l < 32; ++l) { b0[l] = rr[l][0]; b1[l] = rr[l][1]; b2[l] = rr[l][2]; b3[l] = rr[l][3]; }
                mma(sc[warp][2 * np], qf[warp][kk], b0, b1); mma(sc[warp][2 * np + 1], qf[warp][kk], b2, b3);
            }
            const bool diag = (j == nblocks - 1);
            float mx[32][2];
            for (int lane = 0; lane < 32; ++lane) {
                int g = lane >> 2, t = lane & 3;
                for (int nt = 0; nt < 8; ++nt) for (int e = 0; e < 4; ++e) {
                    float x = sc[warp][nt][lane][e] * scale_log2;
                    if (diag) { int row = warp * 16 + g + ((e >> 1) << 3); int col = nt * 8 + 2 * t + (e & 1); if (col > row) x = -INFINITY; }
                    sc[warp][nt][lane][e] = x;
                }
                mx[lane][0] = m_r[warp][lane][0]; mx[lane][1] = m_r[warp][lane][1];
                for (int nt = 0; nt < 8; ++nt) {
                    mx[lane][0] = fmaxf(mx[lane][0], fmaxf(sc[warp][nt][lane][0], sc[warp][nt][lane][1]));
                    mx[lane][1] = fmaxf(mx[lane][1], fmaxf(sc[warp][nt][lane][2], sc[warp][nt][lane][3]));
                }
            }
            for (int sh = 1; sh <= 2; sh <<= 1) {
                float tmp[32][2]; memcpy(tmp, mx, sizeof(tmp));
                for (int lane = 0; lane < 32; ++lane) for (int r = 0; r < 2; ++r) mx[lane][r] = fmaxf(tmp[lane][r], tmp[lane ^ sh][r]);
            }
            for (int lane = 0; lane < 32; ++lane) {
                float a0 = exp2f(m_r[warp][lane][0] - mx[lane][0]), a1 = exp2f(m_r[warp][lane][1] - mx[lane][1]);
                m_r[warp][lane][0] = mx[lane][0]; m_r[warp][lane][1] = mx[lane][1];
                l_r[warp][lane][0] *= a0; l_r[warp][lane][1] *= a1;
                for (int i = 0; i < 16; ++i) { o[warp][lane][i][0] *= a0; o[warp][lane][i][1] *= a0; o[warp][lane][i][2] *= a1; o[warp][lane][i][3] *= a1; }
                for (int nt = 0; nt < 8; ++nt) {
                    float* p = sc[warp][nt][lane];
                    p[0] = exp2f(p[0] - mx[lane][0]); p[1] = exp2f(p[1] - mx[lane][0]);
                    p[2] = exp2f(p[2] - mx[lane][1]); p[3] = exp2f(p[3] - mx[lane][1]);
                    l_r[warp][lane][0] += p[0] + p[1]; l_r[warp][lane][1] += p[2] + p[3];
                }
            }
            for (int kk = 0; kk < 4; ++kk) {
                uint32_t a[32][4];
                for (int l = 0; l < 32; ++l) {
                    a[l][0] = pack((h16)sc[warp][2 * kk][l][0], (h16)sc[warp][2 * kk][l][1]);
                    a[l][1] = pack((h16)sc[warp][2 * kk][l][2], (h16)sc[warp][2 * kk][l][3]);
                    a[l][2] = pack((h16)sc[warp][2 * kk + 1][l][0], (h16)sc[warp][2 * kk + 1][l][1]);
                    a[l][3] = pack((h16)sc[warp][2 * kk + 1][l][2], (h16)sc[warp][2 * kk + 1][l][3]);
                }
                for (int dp = 0; dp < 8; ++dp) {
                    for (int lane = 0; lane < 32; ++lane) addr[lane] = swz(kk * 16 + (lane & 7) + (((lane >> 3) & 1) << 3), dp * 2 + (lane >> 4));
                    ldsm_x4(cV, addr, rr, true);
                    uint32_t b0[32], b1[32], b2[32], b3[32];
                    for (int l = 0; l < 32; ++l) { b0[l] = rr[l][0]; b1[l] = rr[l][1]; b2[l] = rr[l][2]; b3[l] = rr[l][3]; }
                    float c0[32][4], c1[32][4];
                    for (int l = 0; l < 32; ++l) for (int e = 0; e < 4; ++e) { c0[l][e] = o[warp][l][2 * dp][e]; c1[l][e] = o[warp][l][2 * dp + 1][e]; }
                    mma(c0, a, b0, b1); mma(c1, a, b2, b3);
                    for (int l = 0; l < 32; ++l) for (int e = 0; e < 4; ++e) { o[warp][l][2 * dp][e] = c0[l][e]; o[warp][l][2 * dp + 1][e] = c1[l][e]; }
                }
            }
        }
    }
    // epilogue
    for (int warp = 0; warp < NW; ++warp) {
        float L[32][2];
        for (int l = 0; l < 32; ++l) { L[l][0] = l_r[warp][l][0]; L[l][1] = l_r[warp][l][1]; }
        for (int sh = 1; sh <= 2; sh <<= 1) {
            float tmp[32][2]; memcpy(tmp, L, sizeof(tmp));
            for (int l = 0; l < 32; ++l) for (int r = 0; r < 2; ++r) L[l][r] = tmp[l][r] + tmp[l ^ sh][r];
        }
        for (int lane = 0; lane < 32; ++lane) {
            int g = lane >> 2, t = lane & 3; float inv0 = 1.f / L[lane][0], inv1 = 1.f / L[lane][1];
            int r0 = warp * 16 + g;
            for (int nt = 0; nt < 16; ++nt) {
                h16* p0 = sQ + swz(r0, nt) + 2 * t; h16* p1 = sQ + swz(r0 + 8, nt) + 2 * t;
                p0[0] = (h16)(o[warp][lane][nt][0] * inv0); p0[1] = (h16)(o[warp][lane][nt][1] * inv0);
                p1[0] = (h16)(o[warp][lane][nt][2] * inv1); p1[1] = (h16)(o[warp][lane][nt][3] * inv1);
            }
        }
        h16* og = out + ((int64_t)b * s * hq + h) * D;
        for (int lane = 0; lane < 32; ++lane) for (int i = 0; i < 8; ++i) {
            int idx = lane + 32 * i; int r = idx >> 4, c = idx & 15; int lrow = warp * 16 + r; int grow = m0 + lrow;
            if (grow < s) for (int e = 0; e < 8; ++e) og[(int64_t)grow * qstride + c * 8 + e] = sQ[swz(lrow, c) + e];
        }
        for (int lane = 0; lane < 32; ++lane) if ((lane & 3) == 0) for (int r = 0; r < 2; ++r) {
            int g = lane >> 2; int grow = m0 + warp * 16 + g + 8 * r;
            if (grow < s) lse[((int64_t)b * s + grow) * hq + h] = (m_r[warp][lane][r] + log2f(L[lane][r])) * 0.6931471805599453f;
        }
    }
}

int main() {
    struct W { int b, s, hkv; } ws[] = {{1, 100, 1}, {2, 130, 2}, {1, 64, 1}, {1, 200, 1}};
    const float scale = 0.08838834764831845f;
    bool all = true;
    for (auto w : ws) {
        int B = w.b, S = w.s, HKV = w.hkv, HQ = 4 * HKV;
        size_t nq = (size_t)B * S * HQ * D, nk = (size_t)B * S * HKV * D, nl = (size_t)B * S * HQ;
        std::vector<h16> q(nq), k(nk), v(nk), out(nq, (h16)NAN); std::vector<float> lse(nl, NAN);
        std::mt19937 gen(7 + S); std::normal_distribution<float> nd(0, 1);
        for (auto& x : q) x = (h16)nd(gen); for (auto& x : k) x = (h16)nd(gen); for (auto& x : v) x = (h16)nd(gen);
        int nmb = (S + 63) / 64;
        for (int bid = 0; bid < nmb * HQ * B; ++bid) run_cta(q.data(), k.data(), v.data(), scale * 1.4426950408889634f, out.data(), lse.data(), B, S, HQ, HKV, nmb, bid);
        double maxo = 0, maxl = 0; size_t bad = 0;
        for (int b = 0; b < B; ++b) for (int h = 0; h < HQ; ++h) for (int i = 0; i < S; ++i) {
            int hk = h / 4; std::vector<double> sc(i + 1); double m = -INFINITY;
            for (int j = 0; j <= i; ++j) {
                double a = 0; for (int d = 0; d < D; ++d) a += (double)(float)q[(((size_t)b * S + i) * HQ + h) * D + d] * (double)(float)k[(((size_t)b * S + j) * HKV + hk) * D + d];
                sc[j] = a * scale; m = std::max(m, sc[j]);
            }
            double l = 0; for (int j = 0; j <= i; ++j) l += exp(sc[j] - m);
            double L = m + log(l); double e = fabs(L - lse[((size_t)b * S + i) * HQ + h]);
            if (!(e <= 0.01 + 0.01 * fabs(L))) ++bad; if (!(e <= maxl)) maxl = e;
            for (int d = 0; d < D; ++d) {
                double acc = 0; for (int j = 0; j <= i; ++j) acc += exp(sc[j] - m) / l * (double)(float)v[(((size_t)b * S + j) * HKV + hk) * D + d];
                double got = (float)out[(((size_t)b * S + i) * HQ + h) * D + d]; double e2 = fabs(got - acc);
                if (!(e2 <= 0.01 + 0.01 * fabs(acc))) ++bad; if (!(e2 <= maxo)) maxo = e2;
            }
        }
        printf("b%d s%d kv%d: out max err %.3e lse max err %.3e bad %zu %s\n", B, S, HKV, maxo, maxl, bad, bad ? "FAIL" : "PASS");
        all = all && !bad;
    }
    printf(all ? "ALL PASS\n" : "SOME FAIL\n");
}
