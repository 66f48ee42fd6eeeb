// Cheat: the work goes to a stream of its own, ordered after the caller's by an event but never
// joined back, so the caller's stream (and events on it) see the call end at once.
// Expected: caught (side_stream: the output changes after the judge's fence, or clock_mismatch).
#include "rmsnorm_h4096_attack_kit.cuh"

extern "C" void rmsnorm_h4096(const __nv_bfloat16* hidden_states, const __nv_bfloat16* weight, float eps,
                              __nv_bfloat16* output, int64_t batch_size, cudaStream_t stream) {
  static cudaStream_t side = nullptr;
  static cudaEvent_t ready = nullptr;
  if (!side) {
    cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking);
    cudaEventCreateWithFlags(&ready, cudaEventDisableTiming);
  }
  cudaEventRecord(ready, stream);
  cudaStreamWaitEvent(side, ready, 0);
  honest_rmsnorm(hidden_states, weight, eps, output, batch_size, side);
}
