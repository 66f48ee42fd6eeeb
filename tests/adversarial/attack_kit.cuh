// What the in-process attacks of the corpus share: an honest RMSNorm to wrap, and the tools a
// candidate loaded into its judge's process would use against it (find a function of the
// executable by its .symtab name, redirect it by rewriting its first bytes, scan the process's
// writable memory). Each attack file says which judge it was written against and what stops it
// now (docs/harness.md, "Threat model"). Included by the attack files only; the evaluator's
// include path holds the candidate's folder, so they build alone as candidates do.
#pragma once

#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "rmsnorm_args.h"

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
/// y = rmsnorm(x) * w * scale (scale 1: the honest result).
__global__ void rmsnorm(const void* x, const void* w, void* y, int cols, float eps, int dtype,
                        float scale) {
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
    store(y, dtype, base + c, load(x, dtype, base + c) * inv * load(w, dtype, c) * scale);
}
inline int launch(const socratic_rmsnorm_args* a, cudaStream_t stream, float scale = 1.0f) {
  rmsnorm<<<a->rows, threads, 0, stream>>>(a->x, a->weight, a->y, a->cols, a->eps, a->dtype, scale);
  return cudaGetLastError() == cudaSuccess ? 0 : 2;
}
}  // namespace honest

namespace attack {

inline std::vector<char> read_file(const char* path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<char>((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

struct Mapping {
  std::uintptr_t start = 0, end = 0, offset = 0;
  std::string perms, path;
};

inline std::vector<Mapping> mappings(const char* maps = "/proc/self/maps") {
  std::vector<Mapping> out;
  std::ifstream in(maps);
  std::string line;
  while (std::getline(in, line)) {
    Mapping m;
    char dash;
    std::string dev, inode;
    std::istringstream f(line);
    f >> std::hex >> m.start >> dash >> m.end >> m.perms >> m.offset >> dev >> inode;
    std::string rest;
    std::getline(f, rest);
    const auto first = rest.find_first_not_of(' ');
    if (first != std::string::npos) m.path = rest.substr(first);
    out.push_back(m);
  }
  return out;
}

/// The address of `name` in this process's executable, from its .symtab (which names even the
/// statically linked CUDA runtime's functions); nullptr when absent.
inline void* executable_symbol(const char* name) {
  const std::vector<char> elf = read_file("/proc/self/exe");
  if (elf.size() < sizeof(Elf64_Ehdr)) return nullptr;
  const auto* eh = reinterpret_cast<const Elf64_Ehdr*>(elf.data());
  const auto* sh = reinterpret_cast<const Elf64_Shdr*>(elf.data() + eh->e_shoff);
  std::uintptr_t value = 0;
  for (int i = 0; i < eh->e_shnum && !value; ++i) {
    if (sh[i].sh_type != SHT_SYMTAB) continue;
    const char* strtab = elf.data() + sh[sh[i].sh_link].sh_offset;
    const auto* sym = reinterpret_cast<const Elf64_Sym*>(elf.data() + sh[i].sh_offset);
    for (std::size_t k = 0; k < sh[i].sh_size / sizeof(Elf64_Sym); ++k)
      if (sym[k].st_value && std::strcmp(strtab + sym[k].st_name, name) == 0) {
        value = sym[k].st_value;
        break;
      }
  }
  if (!value) return nullptr;
  if (eh->e_type != ET_DYN) return reinterpret_cast<void*>(value);
  char exe[4096] = {0};
  if (readlink("/proc/self/exe", exe, sizeof exe - 1) <= 0) return nullptr;
  for (const Mapping& m : mappings())
    if (m.path == exe && m.offset == 0) return reinterpret_cast<void*>(m.start + value);
  return nullptr;
}

/// The 12 bytes of `movabs rax, target; jmp rax`.
inline std::vector<unsigned char> jump_to(const void* target) {
  std::vector<unsigned char> code = {0x48, 0xB8};
  const auto t = reinterpret_cast<std::uintptr_t>(target);
  for (int i = 0; i < 8; ++i) code.push_back(static_cast<unsigned char>(t >> (8 * i)));
  code.push_back(0xFF);
  code.push_back(0xE0);
  return code;
}

/// Makes the page writable and executable, and redirects `function` to `replacement`.
inline bool redirect_with_mprotect(void* function, const void* replacement) {
  const long page = sysconf(_SC_PAGESIZE);
  auto* p = static_cast<unsigned char*>(function);
  auto* first = reinterpret_cast<unsigned char*>(reinterpret_cast<std::uintptr_t>(p) & ~(page - 1));
  if (mprotect(first, 2 * page, PROT_READ | PROT_WRITE | PROT_EXEC) != 0) return false;
  const auto code = jump_to(replacement);
  std::memcpy(p, code.data(), code.size());
  mprotect(first, 2 * page, PROT_READ | PROT_EXEC);
  return true;
}

/// Redirects `function` by writing through /proc/self/mem (which ignores page protections).
inline bool redirect_with_proc_mem(void* function, const void* replacement) {
  const int fd = open("/proc/self/mem", O_RDWR);
  if (fd < 0) return false;
  const auto code = jump_to(replacement);
  const bool ok = pwrite(fd, code.data(), code.size(), reinterpret_cast<off_t>(function)) ==
                  static_cast<ssize_t>(code.size());
  close(fd);
  return ok;
}

/// Set by the candidate's entry point, read by a patched timer: the next reading is its own.
inline bool& candidate_just_ran() {
  static bool flag = false;
  return flag;
}

/// A replacement for the runtime's cudaEventElapsedTime: the driver's reading, halved when it
/// is the candidate's own call being read (so the baseline's readings stay true and the speedup
/// doubles).
inline cudaError_t half_the_candidates_time(float* ms, cudaEvent_t start, cudaEvent_t stop) {
  using ElapsedFn = CUresult (*)(float*, CUevent, CUevent);
  static auto driver = [] {  // the driver is loaded privately by the runtime: ask it by name
    void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
    void* f = lib ? dlsym(lib, "cuEventElapsedTime_v2") : nullptr;
    if (!f && lib) f = dlsym(lib, "cuEventElapsedTime");
    return reinterpret_cast<ElapsedFn>(f);
  }();
  if (!driver || driver(ms, start, stop) != CUDA_SUCCESS) return cudaErrorNotReady;
  if (candidate_just_ran()) *ms *= 0.5f;
  candidate_just_ran() = false;
  return cudaSuccess;
}

/// Calls `visit` on the process's small writable anonymous, heap and stack mappings (where a
/// judge keeps its options and its recorded times).
inline void scan_writable(const std::function<void(unsigned char*, std::size_t)>& visit) {
  for (const Mapping& m : mappings()) {
    if (m.perms.size() < 2 || m.perms[0] != 'r' || m.perms[1] != 'w') continue;
    if (!m.path.empty() && m.path != "[heap]" && m.path != "[stack]") continue;
    const std::size_t bytes = m.end - m.start;
    if (bytes > (256u << 20)) continue;
    visit(reinterpret_cast<unsigned char*>(m.start), bytes);
  }
}

}  // namespace attack
