// Control, not a cheat: the honest RMSNorm of attack_kit.cuh that waits for its own stream
// before it returns (cudaStreamSynchronize), as some real entry points do. Behind the judge's
// launch hold that wait cannot end until the hold's own timeout releases the SMs: the judge must
// notice the expired hold in the warm-up, time the scenario unheld for both sides and say so,
// never fail the candidate for it (kernels/harness/launch_hold.cuh).
// Caught by: nothing. Expected: correct on every scenario, timed, the log names the unheld timing.


#include <cuda_runtime.h>

#include "attack_kit.cuh"

extern "C" int socratic_rmsnorm_forward(const socratic_rmsnorm_args* args, cudaStream_t stream) {
  if (honest::launch(args, stream) != 0) return 2;
  return cudaStreamSynchronize(stream) == cudaSuccess ? 0 : 2;
}
