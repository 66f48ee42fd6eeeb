// The hold: a kernel a worker puts on its stream ahead of a timed call, so that the call's
// start event, its kernels and its stop event are all queued before the GPU runs any of them.
// The interval then holds the GPU's work alone, not the host's launch path, whose jitter
// (microseconds, from a process just woken on a shared CPU) was most of the noise of a 10-us
// kernel. NVBench times short kernels the same way (its blocking kernel).
//
// Held, the GPU has nothing to do while the entry point's host code runs. So the hold fills
// every SM (two blocks of 1024 threads per SM, half the shared memory each: all thread slots
// taken): no kernel of the candidate's, on any stream of its context, can start before the
// hold is released, and work it hid on another stream lands inside the interval or after it,
// where the judge's clock and output checks see it as before. The host part the hold takes out
// of the interval is still on the judge's clock (its residual against the baseline's).
//
// The hold releases itself after `timeout_ns` (an entry point that synchronises would wait on
// it forever): the worker then reports it expired, and the judge times that scenario unheld.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "cuda_check.hpp"

namespace socratic::harness {

namespace device {

__device__ inline std::uint64_t global_ns() {
  std::uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

// Thread 0 of each block waits for the host's release (or the timeout); the others wait for it.
__global__ void hold_kernel(const volatile unsigned* release, unsigned* expired,
                            std::uint64_t timeout_ns) {
  extern __shared__ unsigned char hold_smem[];
  if (threadIdx.x == 0) {
    hold_smem[0] = 0;
    const std::uint64_t t0 = global_ns();
    while (*release == 0) {
      if (global_ns() - t0 > timeout_ns) {
        atomicExch(expired, 1u);
        break;
      }
      __nanosleep(500);
    }
  }
  __syncthreads();
}

}  // namespace device

class LaunchHold {
 public:
  /// Allocates the release flag (host memory the GPU reads) and the expiry flag; before the
  /// sandbox, since both are memory mappings.
  LaunchHold(int sm_count, int smem_optin) : sm_count_(sm_count), smem_(smem_optin / 2) {
    cuda_check(cudaHostAlloc(reinterpret_cast<void**>(&release_), sizeof(unsigned),
                             cudaHostAllocMapped),
               "cudaHostAlloc (hold release flag)");
    cuda_check(cudaHostGetDevicePointer(reinterpret_cast<void**>(&release_device_), release_, 0),
               "cudaHostGetDevicePointer (hold release flag)");
    cuda_check(cudaMalloc(reinterpret_cast<void**>(&expired_), sizeof(unsigned)),
               "cudaMalloc (hold expiry flag)");
    cuda_check(cudaFuncSetAttribute(device::hold_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    smem_),
               "cudaFuncSetAttribute (hold kernel)");
  }
  ~LaunchHold() {
    cudaFreeHost(release_);
    cudaFree(expired_);
  }
  LaunchHold(const LaunchHold&) = delete;
  LaunchHold& operator=(const LaunchHold&) = delete;

  /// Queues the hold on `stream`.
  void hold(cudaStream_t stream, std::uint64_t timeout_ns = 200'000'000) {
    *reinterpret_cast<volatile unsigned*>(release_) = 0;
    cuda_check(cudaMemsetAsync(expired_, 0, sizeof(unsigned), stream), "cudaMemsetAsync (hold)");
    device::hold_kernel<<<2 * sm_count_, 1024, static_cast<std::size_t>(smem_), stream>>>(
        release_device_, expired_, timeout_ns);
    cuda_check(cudaGetLastError(), "hold kernel launch");
  }
  /// Lets the held stream run.
  void release() {
    __atomic_store_n(release_, 1u, __ATOMIC_SEQ_CST);
  }
  /// After the stream is done: whether the hold gave up before it was released.
  bool expired() const {
    unsigned v = 0;
    cuda_check(cudaMemcpy(&v, expired_, sizeof v, cudaMemcpyDeviceToHost), "cudaMemcpy (hold expiry)");
    return v != 0;
  }

 private:
  int sm_count_;
  int smem_;
  unsigned* release_ = nullptr;
  unsigned* release_device_ = nullptr;
  unsigned* expired_ = nullptr;
};

}  // namespace socratic::harness
