/* Attention forward: the candidate's C entry point and its arguments. Plain C, stable ABI. */
#ifndef SOCRATIC_ATTENTION_ARGS_H
#define SOCRATIC_ATTENTION_ARGS_H

#include <cuda_runtime.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Element type of q, k, v and o. */
enum socratic_dtype { SOCRATIC_BF16 = 0, SOCRATIC_FP16 = 1 };

/*
 * O = softmax(scale * Q K^T + mask) V, per batch and query head.
 *
 * Layout (contiguous, row-major): q and o are [batch][seqlen_q][heads_q][head_dim];
 * k and v are [batch][seqlen_kv][heads_kv][head_dim]. heads_q is a multiple of heads_kv;
 * query head h reads key/value head h / (heads_q / heads_kv) (grouped-query attention).
 *
 * causal != 0 masks key j for query i when j > i + (seqlen_kv - seqlen_q) (bottom-right
 * aligned, as FlashAttention 2.1+). A query row with no visible key yields zeros.
 */
typedef struct socratic_attention_args {
  const void* q;
  const void* k;
  const void* v;
  void* o;
  int batch;
  int seqlen_q;
  int seqlen_kv;
  int heads_q;
  int heads_kv;
  int head_dim;
  int causal;
  int dtype; /* enum socratic_dtype */
  float softmax_scale; /* usually 1 / sqrt(head_dim) */
} socratic_attention_args;

/*
 * Launches the forward pass on `stream` and returns without synchronising.
 * Returns 0 on success, nonzero when the configuration is not supported (the harness then
 * reports the scenario as failed with "declined"). All work must go to `stream`.
 */
int socratic_attention_forward(const socratic_attention_args* args, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif /* SOCRATIC_ATTENTION_ARGS_H */
