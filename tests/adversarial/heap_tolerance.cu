// Cheat (in-process): its output is 2% too large (past the tolerance, under the hard cap). Inside its call it scans the process's
// writable memory for the judge's options (the FA-style factor k = 2.0 followed by the sample
// counts, as the runner's RunnerOptions lays them out) and sets k to 1e30, so the wrong output
// passes the tolerance.
// Caught by: the boundary: the candidate's worker holds none of the judge's state (options,
// tolerances, references, recorded times live in the judge's process), so there is nothing to
// find -> every scenario fails the tolerance ("exceeds the tolerance").
#include "attack_kit.cuh"

extern "C" int socratic_rmsnorm_forward(const socratic_rmsnorm_args* a, cudaStream_t stream) {
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
  return honest::launch(a, stream, 1.02f);
}
