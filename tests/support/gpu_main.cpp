// main() of every GPU test executable: with no usable CUDA device it prints why and exits 77,
// which CTest reports as skipped (SKIP_RETURN_CODE), never as passed.
#include "catch.hpp"
#include "catch_runner.hpp"

#include <dlfcn.h>

#include <cstdio>

namespace {

// Asks the driver directly (no CUDA headers needed): libcuda present, cuInit ok, >= 1 device.
int cuda_device_count(const char** why) {
  void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    *why = "libcuda.so.1 not found (no NVIDIA driver)";
    return 0;
  }
  using init_fn = int (*)(unsigned);
  using count_fn = int (*)(int*);
  auto cu_init = reinterpret_cast<init_fn>(dlsym(lib, "cuInit"));
  auto cu_count = reinterpret_cast<count_fn>(dlsym(lib, "cuDeviceGetCount"));
  int count = 0;
  if (!cu_init || !cu_count || cu_init(0) != 0 || cu_count(&count) != 0) {
    *why = "the CUDA driver reports no usable device";
    return 0;
  }
  if (count == 0) *why = "no CUDA device";
  return count;
}

}  // namespace

int main(int argc, char* argv[]) {
  const char* why = "";
  if (cuda_device_count(&why) == 0) {
    std::printf("SKIPPED: GPU tests need a CUDA device: %s\n", why);
    return 77;
  }
  return socratic::test::run_catch_session(argc, argv);
}
