// blocking_hold_check: the GPU checks of BlockingHold (blocking_hold.cuh), which
// check_attention --hold-flag and sdpa_anchors.py --hold-flag time with.
//
//   blocking_hold_check      exit 0: all hold; 1: a check failed (printed); 77: no GPU (skipped)
//
// 1. The hold holds: an event recorded after block() is still pending 20 ms later, and
//    completes after release(); hid_last() is true.
// 2. The host's part is out of the interval: with the host sleeping 5 ms between the start event
//    and release(), the interval around a ~100 us kernel stays under 1 ms.
// 3. A hold never released gives up after its timeout (the stream goes on) and says so.
//
// Build: nvcc -std=c++17 -gencode=arch=compute_90a,code=sm_90a -I tools/research/attention
//        tools/research/attention/blocking_hold_check.cu -o blocking_hold_check
#include <chrono>
#include <cstdio>
#include <thread>

#include "blocking_hold.cuh"

namespace {

int failures = 0;

void expect(bool ok, const char* what) {
  std::printf("%s %s\n", ok ? "ok  " : "FAIL", what);
  if (!ok) ++failures;
}

void check(cudaError_t err, const char* what) {
  if (err != cudaSuccess) {
    std::printf("FAIL %s: %s\n", what, cudaGetErrorString(err));
    std::exit(1);
  }
}

__global__ void busy_for(unsigned long long ns) {
  const unsigned long long start = socratic::bench::global_timer_ns();
  while (socratic::bench::global_timer_ns() - start < ns) {
  }
}

void sleep_ms(int ms) { std::this_thread::sleep_for(std::chrono::milliseconds(ms)); }

}  // namespace

int main() {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("no GPU: skipped\n");
    return 77;
  }
  cudaStream_t stream;
  check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "stream");
  cudaEvent_t start, stop;
  check(cudaEventCreate(&start), "event");
  check(cudaEventCreate(&stop), "event");

  {
    socratic::bench::BlockingHold hold;
    hold.block(stream);
    check(cudaEventRecord(start, stream), "record");
    sleep_ms(20);
    expect(cudaEventQuery(start) == cudaErrorNotReady, "the stream waits while the hold is on");
    hold.release();
    check(cudaEventSynchronize(start), "synchronize after release");
    expect(hold.hid_last(), "a released hold reports that it lasted until release");
  }
  {
    socratic::bench::BlockingHold hold;
    float worst = 0;
    for (int i = 0; i < 5; ++i) {
      hold.block(stream);
      check(cudaEventRecord(start, stream), "record");
      busy_for<<<1, 1, 0, stream>>>(100'000);
      sleep_ms(5);  // the host's part of a call, slower than the kernel
      hold.release();
      check(cudaEventRecord(stop, stream), "record");
      check(cudaEventSynchronize(stop), "synchronize");
      float ms = 0;
      check(cudaEventElapsedTime(&ms, start, stop), "elapsed");
      if (ms > worst) worst = ms;
    }
    std::printf("     interval around a 0.1 ms kernel with 5 ms of host work: worst %.3f ms\n", worst);
    expect(worst < 1.0f && worst >= 0.09f, "the interval holds the GPU's work and not the host's 5 ms");
  }
  {
    socratic::bench::BlockingHold hold(5'000'000ull);  // 5 ms
    const auto t0 = std::chrono::steady_clock::now();
    hold.block(stream);
    check(cudaStreamSynchronize(stream), "synchronize an unreleased hold");
    const double waited =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    std::printf("     an unreleased 5 ms hold let the stream go after %.1f ms\n", waited);
    expect(!hold.hid_last(), "an unreleased hold gives up and says so");
    expect(waited >= 4.5 && waited < 1000, "it gives up after its timeout");
  }
  std::printf("%s\n", failures ? "FAILED" : "all checks hold");
  return failures ? 1 : 0;
}
