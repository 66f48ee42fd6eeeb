// Cheat (in-process): an honest kernel, but after every call it times its own kernel with its
// own events, scans the process's writable memory for doubles within 5% of that time (the
// judge's recorded samples of it) and halves them, so its median reads half its real time.
// The scan costs its own call time (host work inside the entry point is inside its interval),
// so it is a test of what the judge keeps where, not an attack that pays.
// Caught by: the boundary: the judge's recorded times are in the judge's process; the worker
// holds none, so the scan changes nothing of the verdict -> correct everywhere, and the
// speedup is no better than the honest kernel's (expected.json bounds it: `max_speedup`).
#include "attack_kit.cuh"

extern "C" int socratic_rmsnorm_forward(const socratic_rmsnorm_args* a, cudaStream_t stream) {
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0);
  cudaEventCreate(&e1);
  cudaEventRecord(e0, stream);
  const int ret = honest::launch(a, stream);
  cudaEventRecord(e1, stream);
  cudaEventSynchronize(e1);
  float ms = 0;
  cudaEventElapsedTime(&ms, e0, e1);
  cudaEventDestroy(e0);
  cudaEventDestroy(e1);
  const double t = ms;
  if (t > 0)
    attack::scan_writable([t](unsigned char* base, std::size_t bytes) {
      for (std::size_t at = 0; at + 8 <= bytes; at += 8) {
        double d;
        std::memcpy(&d, base + at, 8);
        if (d > 0.95 * t && d < 1.05 * t) {
          d *= 0.5;
          std::memcpy(base + at, &d, 8);
        }
      }
    });
  return ret;
}
