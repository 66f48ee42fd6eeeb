/* RMSNorm forward: the candidate's C entry point and its arguments. Plain C, stable ABI. */
#ifndef SOCRATIC_RMSNORM_ARGS_H
#define SOCRATIC_RMSNORM_ARGS_H

#include <cuda_runtime.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * y[r][c] = x[r][c] / sqrt(mean_c(x[r][c]^2) + eps) * weight[c]
 * x and y are [rows][cols] contiguous; weight is [cols]. Element type per `dtype`
 * (0 = bf16, 1 = fp16); accumulate in fp32.
 */
typedef struct socratic_rmsnorm_args {
  const void* x;
  const void* weight;
  void* y;
  int rows;
  int cols;
  float eps;
  int dtype;
} socratic_rmsnorm_args;

/* Launches on `stream`; returns 0 on success, nonzero for an unsupported configuration. */
int socratic_rmsnorm_forward(const socratic_rmsnorm_args* args, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif /* SOCRATIC_RMSNORM_ARGS_H */
