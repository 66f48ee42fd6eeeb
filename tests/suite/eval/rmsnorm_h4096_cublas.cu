// A candidate for tests/suite/problems/rmsnorm_h4096 that calls cuBLAS and cuBLASLt (issue 38 item
// 4: the suites allow them): it must build and link under the suite's default library policy,
// and be reported banned when a policy bans them. Not a good kernel: a handle is made once, and
// the row norms are left to a plain kernel; the calls are what the test needs.
#include <cstdint>
#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>

namespace {

constexpr int hidden = 4096;

__global__ void rmsnorm_rows(const __nv_bfloat16* x, const __nv_bfloat16* w, float eps, __nv_bfloat16* out) {
  const std::int64_t row = blockIdx.x;
  __shared__ float total;
  if (threadIdx.x == 0) total = 0.f;
  __syncthreads();
  float sum = 0.f;
  for (int i = threadIdx.x; i < hidden; i += blockDim.x) {
    const float v = __bfloat162float(x[row * hidden + i]);
    sum += v * v;
  }
  atomicAdd(&total, sum);
  __syncthreads();
  const float inv_rms = rsqrtf(total / hidden + eps);
  for (int i = threadIdx.x; i < hidden; i += blockDim.x)
    out[row * hidden + i] = __float2bfloat16_rn(__bfloat162float(x[row * hidden + i]) * inv_rms * __bfloat162float(w[i]));
}

cublasHandle_t blas = nullptr;
cublasLtHandle_t lt = nullptr;

}  // namespace

extern "C" void rmsnorm_h4096(const __nv_bfloat16* hidden_states, const __nv_bfloat16* weight, float eps,
                              __nv_bfloat16* output, int64_t batch_size, cudaStream_t stream) {
  if (!blas && cublasCreate(&blas) == CUBLAS_STATUS_SUCCESS) cublasSetStream(blas, stream);
  if (!lt) cublasLtCreate(&lt);
  if (batch_size <= 0) return;
  rmsnorm_rows<<<static_cast<unsigned>(batch_size), 256, 0, stream>>>(hidden_states, weight, eps, output);
}
