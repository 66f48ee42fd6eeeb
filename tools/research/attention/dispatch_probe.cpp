// dispatch_probe: what an attention candidate's host code launches for each shape, without a GPU.
//
// The candidate (one .cu file, compiled by nvcc with -cudart none) is linked against this file,
// which stands in for the CUDA runtime: it records every kernel registered at load, every
// cudaFuncSetAttribute and every launch (kernel, grid, block, dynamic shared memory and the bytes
// of every argument), and fakes the one driver call the candidate makes (cuTensorMapEncodeTiled:
// the tensor map records the arguments it was encoded with, so two maps compare equal exactly when
// they were asked for alike). The device reports 132 SMs (an H200). Pointers are fake and never
// dereferenced.
//
// Input (stdin), one shape a line:
//   ID BATCH SEQLEN_Q SEQLEN_KV HEADS_Q HEADS_KV HEAD_DIM CAUSAL DTYPE SCALE MISALIGN
// (DTYPE 0 bf16, 1 fp16; SCALE as %a or decimal; MISALIGN 1 offsets q by 2 bytes).
// Output (stdout), per shape: "shape ID rc=N" and one line per runtime call it made. Kernel names
// are the device-side (mangled) names; compare_kernels.py maps them to the code they compile to.
//
// Build (compare_kernels.sh does it):
//   nvcc -std=c++17 -gencode=arch=compute_90a,code=compute_90a -Xcicc -O0 -cudart none \
//        -I kernels/attention -c CANDIDATE.cu -o cand.o
//   g++ -std=c++17 -I /usr/local/cuda/include dispatch_probe.cpp cand.o -o probe
#include <cuda.h>
#include <cuda_runtime_api.h>

#include <cinttypes>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>

#include "attention_args.h"

namespace {

std::map<const void*, std::string> g_kernels;  // host stub -> device name
cudaError_t g_last = cudaSuccess;

std::string kernel_name(const void* f) {
  const auto it = g_kernels.find(f);
  return it == g_kernels.end() ? "UNREGISTERED" : it->second;
}

/// What the fake cuTensorMapEncodeTiled writes into a CUtensorMap (128 bytes).
struct RecordedMap {
  uint32_t dtype, rank;
  uint64_t address;
  uint64_t dims[4];
  uint64_t strides[3];
  uint32_t box[4], element_strides[4];
  uint8_t interleave, swizzle, l2_promotion, oob_fill;
};
static_assert(sizeof(RecordedMap) <= sizeof(CUtensorMap), "a recorded map fits in a tensor map");

CUresult fake_encode(CUtensorMap* map, CUtensorMapDataType dtype, cuuint32_t rank, void* address,
                     const cuuint64_t* dims, const cuuint64_t* strides, const cuuint32_t* box,
                     const cuuint32_t* element_strides, CUtensorMapInterleave interleave,
                     CUtensorMapSwizzle swizzle, CUtensorMapL2promotion l2, CUtensorMapFloatOOBfill oob) {
  if (rank != 4) {
    std::printf("  encode: rank %u (the probe records rank 4 only)\n", rank);
    return CUDA_ERROR_INVALID_VALUE;
  }
  RecordedMap r{};
  r.dtype = dtype;
  r.rank = rank;
  r.address = reinterpret_cast<uint64_t>(address);
  for (int i = 0; i < 4; ++i) r.dims[i] = dims[i];
  for (int i = 0; i < 3; ++i) r.strides[i] = strides[i];
  for (int i = 0; i < 4; ++i) r.box[i] = box[i];
  for (int i = 0; i < 4; ++i) r.element_strides[i] = element_strides[i];
  r.interleave = static_cast<uint8_t>(interleave);
  r.swizzle = static_cast<uint8_t>(swizzle);
  r.l2_promotion = static_cast<uint8_t>(l2);
  r.oob_fill = static_cast<uint8_t>(oob);
  std::memset(map, 0, sizeof *map);
  std::memcpy(map, &r, sizeof r);
  return CUDA_SUCCESS;
}

std::string map_text(const void* p) {
  RecordedMap r;
  std::memcpy(&r, p, sizeof r);
  char buf[512];
  std::snprintf(buf, sizeof buf,
                "map{dtype %u addr %" PRIx64 " dims %" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 " strides %" PRIu64
                ",%" PRIu64 ",%" PRIu64 " box %u,%u,%u,%u es %u,%u,%u,%u il %u swz %u l2 %u oob %u}",
                r.dtype, r.address, r.dims[0], r.dims[1], r.dims[2], r.dims[3], r.strides[0], r.strides[1],
                r.strides[2], r.box[0], r.box[1], r.box[2], r.box[3], r.element_strides[0], r.element_strides[1],
                r.element_strides[2], r.element_strides[3], r.interleave, r.swizzle, r.l2_promotion, r.oob_fill);
  return buf;
}

std::string hex(const void* p, size_t n) {
  std::string s;
  char b[3];
  for (size_t i = 0; i < n; ++i) {
    std::snprintf(b, sizeof b, "%02x", static_cast<const unsigned char*>(p)[i]);
    s += b;
  }
  return s;
}

dim3 g_grid, g_block;
size_t g_smem = 0;
void* g_stream = nullptr;

}  // namespace

// ---- the runtime entry points nvcc's generated host code and the candidate call -----------------
extern "C" {

void** __cudaRegisterFatBinary(void*) {
  static void* handle = nullptr;
  return &handle;
}
void __cudaRegisterFatBinaryEnd(void**) {}
void __cudaUnregisterFatBinary(void**) {}
char __cudaInitModule(void**) { return 0; }
void __cudaRegisterFunction(void**, const char* host_fun, char*, const char* device_name, int, uint3*, uint3*,
                            dim3*, dim3*, int*) {
  g_kernels[host_fun] = device_name;
}
void __cudaRegisterVar(void**, char*, char*, const char*, int, size_t, int, int) {}
unsigned __cudaPushCallConfiguration(dim3 grid, dim3 block, size_t smem, struct CUstream_st* stream) {
  g_grid = grid;
  g_block = block;
  g_smem = smem;
  g_stream = stream;
  return 0;
}
cudaError_t __cudaPopCallConfiguration(dim3* grid, dim3* block, size_t* smem, void* stream) {
  *grid = g_grid;
  *block = g_block;
  *smem = g_smem;
  *static_cast<void**>(stream) = g_stream;
  return cudaSuccess;
}
cudaError_t __cudaGetKernel(cudaKernel_t* handle, const void* fun) {
  *handle = reinterpret_cast<cudaKernel_t>(const_cast<void*>(fun));
  return cudaSuccess;
}
cudaError_t __cudaLaunchKernel(cudaKernel_t kernel, dim3 grid, dim3 block, void** args, size_t smem,
                               cudaStream_t stream) {
  const std::string name = kernel_name(reinterpret_cast<const void*>(kernel));
  std::printf("  launch %s grid %u,%u,%u block %u,%u,%u smem %zu stream %p\n", name.c_str(), grid.x, grid.y,
              grid.z, block.x, block.y, block.z, smem, static_cast<void*>(stream));
  if (name.find("general_kernel") != std::string::npos) {
    // (q, k, v, o, socratic_attention_args: four pointers, eight ints and a float, then padding)
    for (int i = 0; i < 4; ++i) std::printf("    arg%d %s\n", i, hex(args[i], sizeof(void*)).c_str());
    std::printf("    arg4 %s\n", hex(args[4], offsetof(socratic_attention_args, softmax_scale) + sizeof(float)).c_str());
  } else {
    // (tm_q, tm_k, tm_v, tm_o, Params): Params is a pointer, ten ints and a float (52 bytes and
    // 4 of padding, not compared)
    for (int i = 0; i < 4; ++i) std::printf("    arg%d %s\n", i, map_text(args[i]).c_str());
    std::printf("    arg4 %s\n", hex(args[4], 52).c_str());
  }
  return cudaSuccess;
}
cudaError_t __cudaLaunchKernel_ptsz(cudaKernel_t kernel, dim3 grid, dim3 block, void** args, size_t smem,
                                    cudaStream_t stream) {
  return __cudaLaunchKernel(kernel, grid, block, args, smem, stream);
}
cudaError_t cudaLaunchKernel(const void* func, dim3 grid, dim3 block, void** args, size_t smem, cudaStream_t stream) {
  return __cudaLaunchKernel(reinterpret_cast<cudaKernel_t>(const_cast<void*>(func)), grid, block, args, smem,
                            stream);
}
cudaError_t cudaFuncSetAttribute(const void* func, cudaFuncAttribute attr, int value) {
  std::printf("  set_attribute %s attr %d value %d\n", kernel_name(func).c_str(), static_cast<int>(attr), value);
  return cudaSuccess;
}
cudaError_t cudaGetDevice(int* device) {
  *device = 0;
  return cudaSuccess;
}
cudaError_t cudaDeviceGetAttribute(int* value, cudaDeviceAttr attr, int) {
  if (attr != cudaDevAttrMultiProcessorCount) {
    std::printf("  device_attribute %d (not modelled)\n", static_cast<int>(attr));
    return cudaErrorInvalidValue;
  }
  *value = 132;
  return cudaSuccess;
}
cudaError_t cudaPeekAtLastError() { return g_last; }
cudaError_t cudaGetLastError() { return g_last; }
cudaError_t cudaGetDriverEntryPointByVersion(const char* symbol, void** fn, unsigned int version,
                                             unsigned long long, cudaDriverEntryPointQueryResult* status) {
  std::printf("  driver_entry_point %s %u\n", symbol, version);
  if (std::strcmp(symbol, "cuTensorMapEncodeTiled") != 0) {
    *fn = nullptr;
    if (status) *status = cudaDriverEntryPointSymbolNotFound;
    return cudaSuccess;
  }
  *fn = reinterpret_cast<void*>(&fake_encode);
  if (status) *status = cudaDriverEntryPointSuccess;
  return cudaSuccess;
}

}  // extern "C"

int main() {
  char id[256];
  long long batch, sq, skv, hq, hkv, d, causal, dtype, misalign;
  char scale_text[64];
  int shapes = 0;
  while (std::scanf("%255s %lld %lld %lld %lld %lld %lld %lld %lld %63s %lld", id, &batch, &sq, &skv, &hq, &hkv, &d,
                    &causal, &dtype, scale_text, &misalign) == 11) {
    socratic_attention_args a{};
    a.q = reinterpret_cast<const void*>(uintptr_t{0x7f0000000000} + (misalign ? 2 : 0));
    a.k = reinterpret_cast<const void*>(uintptr_t{0x7f1000000000});
    a.v = reinterpret_cast<const void*>(uintptr_t{0x7f2000000000});
    a.o = reinterpret_cast<void*>(uintptr_t{0x7f3000000000});
    a.batch = static_cast<int>(batch);
    a.seqlen_q = static_cast<int>(sq);
    a.seqlen_kv = static_cast<int>(skv);
    a.heads_q = static_cast<int>(hq);
    a.heads_kv = static_cast<int>(hkv);
    a.head_dim = static_cast<int>(d);
    a.causal = static_cast<int>(causal);
    a.dtype = static_cast<int>(dtype);
    a.softmax_scale = std::strtof(scale_text, nullptr);
    std::printf("shape %s\n", id);
    const int rc = socratic_attention_forward(&a, reinterpret_cast<cudaStream_t>(uintptr_t{0x5d}));
    std::printf("  rc %d\n", rc);
    ++shapes;
  }
  std::fprintf(stderr, "dispatch_probe: %d shapes, %zu kernels registered\n", shapes, g_kernels.size());
  return shapes > 0 ? 0 : 1;
}
