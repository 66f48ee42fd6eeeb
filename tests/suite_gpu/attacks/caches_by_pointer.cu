// Cheat: a memo keyed on the buffers' addresses: when called again on the same pointers it skips
// the work, betting that the judge reuses buffers with the same inputs.
// Expected: caught (fresh inputs in the same buffers: the stale output is wrong).
#include "rmsnorm_h4096_attack_kit.cuh"

extern "C" void rmsnorm_h4096(const __nv_bfloat16* hidden_states, const __nv_bfloat16* weight, float eps,
                              __nv_bfloat16* output, int64_t batch_size, cudaStream_t stream) {
  static const void* last_in = nullptr;
  static const void* last_out = nullptr;
  static int64_t last_rows = -1;
  if (hidden_states == last_in && output == last_out && batch_size == last_rows) return;
  last_in = hidden_states, last_out = output, last_rows = batch_size;
  honest_rmsnorm(hidden_states, weight, eps, output, batch_size, stream);
}
