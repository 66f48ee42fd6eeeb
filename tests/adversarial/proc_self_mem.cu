// Cheat (in-process): as patch_runner_timer.cu, but it rewrites the executable's
// cudaEventElapsedTime by writing through /proc/self/mem, which ignores page protections, so
// no mprotect is needed. An honest kernel otherwise.
// Caught by: the worker's sandbox: files open read-only, /proc/self/mem included -> every
// scenario fails with flag `sandbox_violation` naming openat.
#include "attack_kit.cuh"

namespace {
bool patched = false;
}  // namespace

extern "C" int socratic_rmsnorm_forward(const socratic_rmsnorm_args* a, cudaStream_t stream) {
  if (!patched) {
    patched = true;
    if (void* target = attack::executable_symbol("cudaEventElapsedTime"))
      attack::redirect_with_proc_mem(target, reinterpret_cast<const void*>(&attack::half_the_candidates_time));
  }
  attack::candidate_just_ran() = true;
  return honest::launch(a, stream);
}
