// A candidate whose entry point disagrees with the header: eps as double. Its build must fail,
// naming the candidate's definition and the adapter's declaration.
#include <cstdint>
#include <cuda_bf16.h>
#include <cuda_runtime.h>

extern "C" void rmsnorm_h4096(const __nv_bfloat16* hidden_states, const __nv_bfloat16* weight, double eps,
                              __nv_bfloat16* output, int64_t batch_size, cudaStream_t stream) {}
