// Cheat (in-process, at load): a static constructor, which runs inside dlopen before the judge
// has called anything, redirects the executable's cudaEventElapsedTime to report half the time
// (as patch_runner_timer.cu does at its first call). An honest kernel otherwise.
// Caught by: the worker's sandbox, which is installed before the candidate is loaded: the
// constructor's mprotect is refused while loading -> every scenario fails with flag
// `sandbox_violation` ("while the candidate was being loaded").
#include "attack_kit.cuh"

namespace {
__attribute__((constructor)) void at_load() {
  if (void* target = attack::executable_symbol("cudaEventElapsedTime"))
    attack::redirect_with_mprotect(target, reinterpret_cast<const void*>(&attack::half_the_candidates_time));
}
}  // namespace

extern "C" int socratic_rmsnorm_forward(const socratic_rmsnorm_args* a, cudaStream_t stream) {
  attack::candidate_just_ran() = true;
  return honest::launch(a, stream);
}
