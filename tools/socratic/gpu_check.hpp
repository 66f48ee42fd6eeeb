#pragma once
// Whether this machine can run a CUDA candidate, asked of the driver in milliseconds, before the
// CUDA evaluator spends a minute building a runner that could not start.

#include <dlfcn.h>

#include <cstdlib>
#include <string>

namespace socratic::tool {

/// @brief An empty string when the CUDA driver loads and sees a device; otherwise what is missing.
/// The driver library is $SOCRATIC_CUDA_DRIVER, else libcuda.so.1. SOCRATIC_SKIP_GPU_CHECK=1
/// skips the check (tests of the harness with a fake runner).
inline std::string missing_cuda_gpu() {
  if (const char* skip = std::getenv("SOCRATIC_SKIP_GPU_CHECK"); skip && std::string(skip) == "1") return {};
  const char* configured = std::getenv("SOCRATIC_CUDA_DRIVER");
  const std::string library = configured && *configured ? configured : "libcuda.so.1";
  void* driver = ::dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!driver) {
    const char* why = ::dlerror();
    return "no CUDA driver here (" + library + " does not load: " + (why ? why : "unknown error") + ")";
  }
  using init_fn = int (*)(unsigned);
  using count_fn = int (*)(int*);
  const auto init = reinterpret_cast<init_fn>(::dlsym(driver, "cuInit"));
  const auto count = reinterpret_cast<count_fn>(::dlsym(driver, "cuDeviceGetCount"));
  if (!init || !count) return "the CUDA driver " + library + " lacks cuInit or cuDeviceGetCount";
  if (const int rc = init(0); rc != 0) {
    const std::string what = rc == 100  ? "no CUDA-capable device is detected"
                             : rc == 35 ? "the driver is older than this CUDA runtime"
                             : rc == 34 ? "it is the CUDA stub library, not a driver"
                                        : "CUresult " + std::to_string(rc);
    return "the CUDA driver does not start (cuInit: " + what + ")";
  }
  int devices = 0;
  if (count(&devices) != 0 || devices < 1) return "the CUDA driver sees no device";
  return {};
}

}  // namespace socratic::tool
