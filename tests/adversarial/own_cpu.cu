// Cheat (in-process): the judge runs both workers on one CPU, because a worker's timed interval
// holds its host-side launch work; at its first call this candidate moves itself to another CPU
// (the last it may use: on a two-socket host often nearer the GPU, or simply one nothing else
// runs on) so that its launches are quicker than the baseline's. An honest kernel otherwise.
// Caught by: the worker's sandbox (no CPU affinity changes) -> every scenario fails with flag
// `sandbox_violation` naming sched_setaffinity.
#include <sched.h>

#include "attack_kit.cuh"

namespace {
bool moved = false;
}  // namespace

extern "C" int socratic_rmsnorm_forward(const socratic_rmsnorm_args* a, cudaStream_t stream) {
  if (!moved) {
    moved = true;
    cpu_set_t allowed, last;
    CPU_ZERO(&last);
    if (sched_getaffinity(0, sizeof allowed, &allowed) == 0) {
      for (int c = CPU_SETSIZE - 1; c >= 0; --c)
        if (CPU_ISSET(c, &allowed)) {
          CPU_SET(c, &last);
          break;
        }
      sched_setaffinity(0, sizeof last, &last);
    }
  }
  return honest::launch(a, stream);
}
