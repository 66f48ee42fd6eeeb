// BlockingHold: holds a stream until the host says go, so that the host's part of a timed call
// runs while the GPU waits and the start event fires only when the call is fully enqueued
// (NVBench's blocking kernel). The GPU rests only as long as the host needs, unlike a hold of
// fixed length, which also lets the GPU cool and shed its power cap between samples (D46/D47:
// a 500 us rest moved cuDNN by up to +11% on long shapes and v24 by 1%).
//
//   hold.block(stream);  start event;  call;  hold.release();  stop event;  synchronise;
//   hold.hid_last() tells whether the call was enqueued before the hold gave up (timeout).
//
// The flag lives in mapped pinned memory; the kernel gives up after `timeout_ns` (a call that
// synchronises inside would otherwise wait for the hold forever), and says so. hold_for is the
// fixed-length hold (check_attention --hold-us), kept for comparison.
#pragma once

#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

namespace socratic::bench {

__device__ inline unsigned long long global_timer_ns() {
  unsigned long long now = 0;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  return now;
}

__global__ void block_until_released(const volatile int* go, unsigned long long timeout_ns,
                                     volatile int* gave_up) {
  const unsigned long long start = global_timer_ns();
  while (*go == 0) {
    __nanosleep(200);
    if (global_timer_ns() - start > timeout_ns) {
      *gave_up = 1;
      return;
    }
  }
}

/// A hold of fixed length (check_attention --hold-us): keeps one SM waiting `ns` nanoseconds and
/// touches no memory, so the L2 stays as the flush left it. It also rests the GPU that long.
__global__ void hold_for(unsigned long long ns) {
  const unsigned long long start = global_timer_ns();
  while (global_timer_ns() - start < ns) __nanosleep(500);
}

class BlockingHold {
 public:
  explicit BlockingHold(unsigned long long timeout_ns = 50'000'000ull) : timeout_ns_(timeout_ns) {
    check(cudaHostAlloc(reinterpret_cast<void**>(&host_), 2 * sizeof(int), cudaHostAllocMapped),
          "cudaHostAlloc (blocking hold flag)");
    check(cudaHostGetDevicePointer(reinterpret_cast<void**>(&device_), host_, 0),
          "cudaHostGetDevicePointer (blocking hold flag)");
  }
  ~BlockingHold() { cudaFreeHost(host_); }
  BlockingHold(const BlockingHold&) = delete;
  BlockingHold& operator=(const BlockingHold&) = delete;

  /// Enqueues the hold on `stream`; the stream waits until release() (or the timeout).
  void block(cudaStream_t stream) {
    __atomic_store_n(&host_[0], 0, __ATOMIC_RELEASE);
    __atomic_store_n(&host_[1], 0, __ATOMIC_RELEASE);
    block_until_released<<<1, 1, 0, stream>>>(device_, timeout_ns_, device_ + 1);
    check(cudaGetLastError(), "blocking hold launch");
  }
  void release() { __atomic_store_n(&host_[0], 1, __ATOMIC_RELEASE); }

  /// After the stream has synchronised: whether the last hold lasted until release().
  bool hid_last() const { return __atomic_load_n(&host_[1], __ATOMIC_ACQUIRE) == 0; }

 private:
  static void check(cudaError_t err, const char* what) {
    if (err != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(err));
  }
  unsigned long long timeout_ns_;
  int* host_ = nullptr;    // [0]: go, [1]: gave up
  int* device_ = nullptr;  // the same two ints, as the GPU addresses them
};

}  // namespace socratic::bench
