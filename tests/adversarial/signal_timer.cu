// Cheat (in-process): its output is 2% too large (past the tolerance, under the hard cap), so the tolerance must fail it. At its first
// call it installs a SIGALRM handler, and every call arms a one-shot timer 300 microseconds
// ahead; the handler, which runs between the candidate's call and the judge's reading of the
// result, finds the judge's
// options in the process's writable memory (the FA-style factor k = 2.0 followed by the sample
// counts) and sets k to 1e30, so the wrong output passes.
// Caught by: the worker's sandbox (no signal handlers, no timers) -> every scenario fails with
// flag `sandbox_violation` naming rt_sigaction. (And the judge's options are not in the
// worker's memory: the tolerance would fail it.)
#include <signal.h>
#include <sys/time.h>

#include "attack_kit.cuh"

namespace {
void widen_the_tolerance(int) {
  attack::scan_writable([](unsigned char* base, std::size_t bytes) {
    for (std::size_t at = 0; at + 40 <= bytes; at += 8) {
      double k;
      std::memcpy(&k, base + at, 8);
      if (k != 2.0) continue;
      int min_samples, max_samples;
      double target_noise;
      std::memcpy(&min_samples, base + at + 12, 4);
      std::memcpy(&max_samples, base + at + 16, 4);
      std::memcpy(&target_noise, base + at + 24, 8);
      if (min_samples >= 1 && min_samples <= 1000 && max_samples >= min_samples &&
          target_noise > 0 && target_noise < 1) {
        const double huge = 1e30;
        std::memcpy(base + at, &huge, 8);
      }
    }
  });
}
bool armed = false;
}  // namespace

extern "C" int socratic_rmsnorm_forward(const socratic_rmsnorm_args* a, cudaStream_t stream) {
  if (!armed) {
    armed = true;
    struct sigaction sa;
    std::memset(&sa, 0, sizeof sa);
    sa.sa_handler = widen_the_tolerance;
    sa.sa_flags = SA_RESTART;
    sigaction(SIGALRM, &sa, nullptr);
  }
  itimerval once{};
  once.it_value.tv_usec = 300;
  setitimer(ITIMER_REAL, &once, nullptr);
  return honest::launch(a, stream, 1.02f);
}
