// tile_phases: where a query tile's time goes in kernels/hopper/attention.cu, per consumer
// warpgroup, from SM clock marks at six points of every tile (the kernel's HOPPER_PHASE hook):
//   0 tile start (tile known)  1 Q landed  2 first S GEMM and softmax done  3 key-tile loop done
//   4 last P V done  5 epilogue done
// Each mark is one clock64 read and one global store by one thread per warpgroup. Launches are
// timed as check_attention times them (L2 flushed before each, median), so the marks' own cost
// shows as the difference from the harness's TFLOP/s.
//
//   tile_phases OUT_DIR B,SQ,SKV,H,D,CAUSAL [...]
// writes OUT_DIR/<shape>.csv (one line per tile and warpgroup: cta, wg, kv_iter, n_blocks, smid,
// the six clocks, globaltimer at points 0 and 5) and prints each shape's TFLOP/s.
// Summaries: tools/research/bench/tile_phases.py OUT_DIR/*.csv.
//
// Build (repository root; -D flags select kernel variants as for the evaluator):
//   nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -I kernels/attention -I kernels/hopper
//        tools/research/attention/tile_phases.cu -o tile_phases
#include <cuda_bf16.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace phases {
constexpr int kSlots = 12;  // per record: clocks 0-5, globaltimer at 0 and 5, n_blocks, smid, 2 spare
// Constant memory: a mark's reads hit the constant cache (a global load would cost an L2 round
// trip on the warpgroup's critical path at every mark).
__constant__ unsigned long long* g_records;
__constant__ int g_positions;  // K/V ring positions recorded per CTA (a tile is keyed by its first)

__device__ __forceinline__ unsigned long long global_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %globaltimer;" : "=l"(t));
  return t;
}

__device__ __forceinline__ void mark(int point, int kv_iter, int cw, int n_blocks) {
  if ((threadIdx.x & 127) != 0 || kv_iter >= g_positions) return;
  const unsigned cta = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
  unsigned long long* r = g_records + ((static_cast<size_t>(cta) * g_positions + kv_iter) * 4 + cw) * kSlots;
  r[point] = clock64();
  if (point == 0) {
    unsigned smid;
    asm volatile("mov.u32 %0, %smid;" : "=r"(smid));
    r[6] = global_ns();
    r[8] = static_cast<unsigned long long>(n_blocks);
    r[9] = smid;
  }
  if (point == 5) r[7] = global_ns();
}
}  // namespace phases

#define HOPPER_PHASE(point, kv_iter, cw, n_blocks) phases::mark(point, kv_iter, cw, n_blocks)
#include "attention.cu"  // kernels/hopper (on the include path)

namespace {

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "tile_phases: %s: %s\n", what, cudaGetErrorString(e));
    std::exit(1);
  }
}

struct Shape {
  int b, sq, skv, h, d, causal;
  std::string name() const {
    char buf[96];
    std::snprintf(buf, sizeof buf, "s%d_kv%d_d%d_b%d_h%d%s", sq, skv, d, b, h, causal ? "_causal" : "");
    return buf;
  }
  double flops() const {
    double pairs = 0;
    for (int i = 0; i < sq; ++i) {
      const long long visible = causal ? std::min<long long>(skv, i + (skv - sq) + 1) : skv;
      pairs += static_cast<double>(std::max<long long>(visible, 0));
    }
    return 4.0 * b * h * d * pairs;
  }
};

bool parse(const char* text, Shape& s) {
  return std::sscanf(text, "%d,%d,%d,%d,%d,%d", &s.b, &s.sq, &s.skv, &s.h, &s.d, &s.causal) == 6 && s.b > 0 &&
         s.sq > 0 && s.skv > 0 && s.h > 0 && (s.d == 64 || s.d == 128 || s.d == 256);
}

__global__ void fill(__nv_bfloat16* x, size_t n, unsigned seed) {
  for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
    unsigned v = static_cast<unsigned>(i) * 2654435761u ^ seed;
    v ^= v >> 13;
    v *= 0x5bd1e995u;
    v ^= v >> 15;
    x[i] = __float2bfloat16((static_cast<float>(v & 0xffff) / 65535.f - 0.5f) * 2.f);
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: tile_phases OUT_DIR B,SQ,SKV,H,D,CAUSAL [...]\n");
    return 2;
  }
  const std::string out_dir = argv[1];
  int device = 0, l2 = 0, sms = 0;
  check(cudaGetDevice(&device), "device");
  check(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device), "L2 size");
  check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device), "SM count");
  void* flush = nullptr;
  check(cudaMalloc(&flush, 2 * static_cast<size_t>(l2)), "flush buffer");
  cudaStream_t stream;
  check(cudaStreamCreate(&stream), "stream");
  cudaEvent_t start, stop;
  check(cudaEventCreate(&start), "event");
  check(cudaEventCreate(&stop), "event");

  for (int i = 2; i < argc; ++i) {
    Shape s{};
    if (!parse(argv[i], s)) {
      std::fprintf(stderr, "tile_phases: argument %d ('%s'): expected B,SQ,SKV,H,D,CAUSAL with D 64, 128 or 256\n", i,
                   argv[i]);
      return 2;
    }
    const size_t nq = size_t(s.b) * s.sq * s.h * s.d, nkv = size_t(s.b) * s.skv * s.h * s.d;
    __nv_bfloat16 *q, *k, *v, *o;
    check(cudaMalloc(&q, nq * 2), "q");
    check(cudaMalloc(&k, nkv * 2), "k");
    check(cudaMalloc(&v, nkv * 2), "v");
    check(cudaMalloc(&o, nq * 2), "o");
    fill<<<1024, 256, 0, stream>>>(q, nq, 1u);
    fill<<<1024, 256, 0, stream>>>(k, nkv, 2u);
    fill<<<1024, 256, 0, stream>>>(v, nkv, 3u);
    socratic_attention_args a{q, k, v, o, s.b, s.sq, s.skv, s.h, s.h, s.d, s.causal, SOCRATIC_BF16,
                              1.f / std::sqrt(static_cast<float>(s.d))};
    // Records: one CTA per SM and many ring positions (persistent), or one tile per CTA.
    const bool persistent = hopper_attn::choose_tiles(a)->schedule == hopper_attn::Schedule::kPersistent;
    const size_t ctas = persistent ? size_t(sms) : size_t((s.sq + 63) / 64) * s.h * s.b;
    const int positions = persistent ? 4096 : 1;
    const size_t record_bytes = ctas * positions * 4 * phases::kSlots * sizeof(unsigned long long);
    unsigned long long* records;
    check(cudaMalloc(&records, record_bytes), "records");
    check(cudaMemcpyToSymbol(phases::g_records, &records, sizeof records), "records symbol");
    check(cudaMemcpyToSymbol(phases::g_positions, &positions, sizeof positions), "positions symbol");

    std::vector<float> ms;
    for (int r = 0; r < 23; ++r) {
      check(cudaMemsetAsync(flush, r & 0xff, 2 * static_cast<size_t>(l2), stream), "L2 flush");
      if (r == 22) check(cudaMemsetAsync(records, 0, record_bytes, stream), "clear records");
      check(cudaEventRecord(start, stream), "record");
      if (socratic_attention_forward(&a, stream) != 0) {
        std::fprintf(stderr, "tile_phases: %s: the kernel declined the shape\n", s.name().c_str());
        return 1;
      }
      check(cudaEventRecord(stop, stream), "record");
      check(cudaEventSynchronize(stop), "launch");
      float t = 0;
      check(cudaEventElapsedTime(&t, start, stop), "elapsed");
      if (r >= 3) ms.push_back(t);
    }
    std::sort(ms.begin(), ms.end());
    const double median_ms = ms[ms.size() / 2];
    std::printf("%-36s %s  %8.3f ms  %7.1f TFLOP/s\n", s.name().c_str(), persistent ? "persistent" : "per-tile  ",
                median_ms, s.flops() / median_ms / 1e9);

    std::vector<unsigned long long> host(record_bytes / sizeof(unsigned long long));
    check(cudaMemcpy(host.data(), records, record_bytes, cudaMemcpyDeviceToHost), "copy records");
    const std::string path = out_dir + "/" + s.name() + ".csv";
    FILE* f = std::fopen(path.c_str(), "w");
    if (!f) {
      std::fprintf(stderr, "tile_phases: cannot write %s\n", path.c_str());
      return 1;
    }
    std::fprintf(f, "cta,wg,kv_iter,n_blocks,smid,c0,c1,c2,c3,c4,c5,ns0,ns5\n");
    for (size_t cta = 0; cta < ctas; ++cta)
      for (int pos = 0; pos < positions; ++pos)
        for (int wg = 0; wg < 4; ++wg) {
          const unsigned long long* r = &host[((cta * positions + pos) * 4 + wg) * phases::kSlots];
          if (r[0] == 0) continue;
          std::fprintf(f, "%zu,%d,%d,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu\n", cta, wg, pos, r[8], r[9],
                       r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7]);
        }
    std::fclose(f);
    cudaFree(records);
    cudaFree(q);
    cudaFree(k);
    cudaFree(v);
    cudaFree(o);
  }
  return 0;
}
