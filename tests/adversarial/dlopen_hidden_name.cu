// Cheat: loads cuDNN by a name built at run time. The library name is assembled from
// XOR-masked bytes and searched for in the usual folders, so neither the binary's DT_NEEDED
// entries nor its strings name it, and a static scan finds nothing (falls back to cuBLAS,
// also banned, where cuDNN is absent); the file's own name says nothing either. The arithmetic
// stays honest; a real cheat would call into the library here.
// Caught by: the runner's `libraries` events (shared objects newly mapped into the process,
// from /proc/self/maps), which the host checks against its ban list -> a mapped path
// containing "libcudnn" (or "libcublas"). The runner itself does not fail the scenarios.

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include <dlfcn.h>
#include <glob.h>
#include "rmsnorm_args.h"

#include <cstdio>
#include <string>

// ---- an honest RMSNorm (one block per row, fp32 accumulation), kept in this file so that it
// ---- builds alone, exactly as the evaluator builds a candidate ----
namespace honest {
__device__ inline float load(const void* p, int dtype, std::size_t i) {
  return dtype == 0 ? __bfloat162float(static_cast<const __nv_bfloat16*>(p)[i])
                    : __half2float(static_cast<const __half*>(p)[i]);
}
__device__ inline void store(void* p, int dtype, std::size_t i, float v) {
  if (dtype == 0)
    static_cast<__nv_bfloat16*>(p)[i] = __float2bfloat16_rn(v);
  else
    static_cast<__half*>(p)[i] = __float2half_rn(v);
}
constexpr int threads = 256;
__global__ void rmsnorm(const void* x, const void* w, void* y, int cols, float eps, int dtype) {
  __shared__ float partial[threads];
  const std::size_t base = static_cast<std::size_t>(blockIdx.x) * cols;
  float sum = 0;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) {
    const float v = load(x, dtype, base + c);
    sum += v * v;
  }
  partial[threadIdx.x] = sum;
  __syncthreads();
  for (int k = blockDim.x / 2; k > 0; k /= 2) {
    if (threadIdx.x < k) partial[threadIdx.x] += partial[threadIdx.x + k];
    __syncthreads();
  }
  const float inv = rsqrtf(partial[0] / cols + eps);
  for (int c = threadIdx.x; c < cols; c += blockDim.x)
    store(y, dtype, base + c, load(x, dtype, base + c) * inv * load(w, dtype, c));
}
inline int launch(const socratic_rmsnorm_args* a, cudaStream_t stream) {
  rmsnorm<<<a->rows, threads, 0, stream>>>(a->x, a->weight, a->y, a->cols, a->eps, a->dtype);
  return cudaGetLastError() == cudaSuccess ? 0 : 2;
}
}  // namespace honest

namespace {
// "libcudnn.so.9" and "libcublas.so.13", each byte XOR 0x5A.
const unsigned char masked_name_1[] = {0x36, 0x33, 0x38, 0x39, 0x2f, 0x3e, 0x34,
                                       0x34, 0x74, 0x29, 0x35, 0x74, 0x63};
const unsigned char masked_name_2[] = {0x36, 0x33, 0x38, 0x39, 0x2f, 0x38, 0x36, 0x3b,
                                       0x29, 0x74, 0x29, 0x35, 0x74, 0x6b, 0x69};

std::string unmask(const unsigned char* bytes, std::size_t n) {
  std::string s;
  for (std::size_t i = 0; i < n; ++i) s += static_cast<char>(bytes[i] ^ 0x5A);
  return s;
}

void* open_somewhere(const std::string& name) {
  if (void* h = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL)) return h;
  const char* folders[] = {"/usr/local/cuda/lib64/", "/usr/local/cuda/lib/",
                           "/usr/lib/x86_64-linux-gnu/", "/usr/local/lib/"};
  for (const char* f : folders)
    if (void* h = dlopen((std::string(f) + name).c_str(), RTLD_NOW | RTLD_LOCAL)) return h;
  // Python wheels (nvidia-cudnn-cu13, nvidia-cublas): .../site-packages/nvidia/*/lib/NAME
  const char* patterns[] = {"/opt/*/.venv/lib/python3*/site-packages/nvidia/*/lib/",
                            "/usr/local/lib/python3*/dist-packages/nvidia/*/lib/",
                            "/usr/lib/python3/dist-packages/nvidia/*/lib/"};
  for (const char* p : patterns) {
    glob_t g{};
    if (glob((std::string(p) + name).c_str(), 0, nullptr, &g) == 0)
      for (std::size_t i = 0; i < g.gl_pathc; ++i)
        if (void* h = dlopen(g.gl_pathv[i], RTLD_NOW | RTLD_LOCAL)) {
          globfree(&g);
          return h;
        }
    globfree(&g);
  }
  return nullptr;
}

bool tried = false;
}  // namespace

extern "C" int socratic_rmsnorm_forward(const socratic_rmsnorm_args* a, cudaStream_t stream) {
  if (!tried) {
    tried = true;
    const std::string cudnn = unmask(masked_name_1, sizeof masked_name_1);
    const std::string cublas = unmask(masked_name_2, sizeof masked_name_2);
    const bool got_cudnn = open_somewhere(cudnn) != nullptr;
    const bool got_cublas = !got_cudnn && open_somewhere(cublas) != nullptr;
    // No library name in any string of this binary, messages included.
    std::fprintf(stderr, "dlopen_hidden_name: %s\n",
                 got_cudnn    ? "loaded library 1"
                 : got_cublas ? "library 1 absent, loaded library 2"
                              : "found neither");
  }
  return honest::launch(a, stream);
}
