// Cheat: normalises only the first half of the rows (half the memory traffic), leaving the rest
// as it found it, betting on a check that samples a few rows.
// Expected: caught (every element compared; the poisoned rows show).
#include "rmsnorm_h4096_attack_kit.cuh"

extern "C" void rmsnorm_h4096(const __nv_bfloat16* hidden_states, const __nv_bfloat16* weight, float eps,
                              __nv_bfloat16* output, int64_t batch_size, cudaStream_t stream) {
  honest_rmsnorm(hidden_states, weight, eps, output, batch_size > 1 ? batch_size / 2 : batch_size, stream);
}
