// Cheat (in-process, against a judge that loads the candidate into its own process): at its
// first call it finds the statically linked cudaEventElapsedTime of the executable it was
// loaded into (by the .symtab name), makes the page writable and executable, and redirects it
// to a function that reports half the time of its own calls (the baseline's stay true). An honest kernel otherwise: only the clock lies.
// Written against the runner before the worker boundary, where the runner timed the candidate
// with that very function.
// Caught by: the worker's sandbox. The candidate's worker is the runner's executable too, but
// mprotect may not add execute there -> the worker is stopped, every scenario fails with flag
// `sandbox_violation` naming mprotect. (Had it got through, the judge's own clock would show a
// time its work did not take: `clock_mismatch`.)
#include "attack_kit.cuh"

namespace {
bool patched = false;
}  // namespace

extern "C" int socratic_rmsnorm_forward(const socratic_rmsnorm_args* a, cudaStream_t stream) {
  if (!patched) {
    patched = true;
    if (void* target = attack::executable_symbol("cudaEventElapsedTime"))
      attack::redirect_with_mprotect(target, reinterpret_cast<const void*>(&attack::half_the_candidates_time));
  }
  attack::candidate_just_ran() = true;
  return honest::launch(a, stream);
}
