// Cheat: computes the right answer, then scribbles on its input (a scratch buffer for free).
// Expected: caught (the judge's input checksums: inputs_modified).
#include "rmsnorm_h4096_attack_kit.cuh"

extern "C" void rmsnorm_h4096(const __nv_bfloat16* hidden_states, const __nv_bfloat16* weight, float eps,
                              __nv_bfloat16* output, int64_t batch_size, cudaStream_t stream) {
  honest_rmsnorm(hidden_states, weight, eps, output, batch_size, stream);
  cudaMemsetAsync(const_cast<__nv_bfloat16*>(hidden_states), 0, sizeof(__nv_bfloat16) * 64, stream);
}
