// Cheat, for the clock check with a PyTorch baseline (pytorch_baseline_check.sh): the honest
// row_sum_and_argmax candidate in its first calls (the judge's checked correctness calls: three
// trials and a re-run), then, from the fifth call on (the warm-up and the timed calls), the work
// on a stream of its own, ordered after the caller's stream by an event and never joined back,
// behind 300 us of spinning there. The worker's events on the caller's stream time almost nothing;
// its device-wide synchronisation waits for the hidden work, so every timed output is right.
// Caught by: the judge's clock (request to its own fence) against the worker's events, calibrated
// by the judge's null implementation on the same path -> `clock_mismatch`. Calibrated by a PyTorch
// baseline's residual (the interpreter, its copies, about a millisecond) the 300 us would hide.
#include <cstdint>
#include <cuda_runtime.h>

#include "suite_call.h"
#include "row_sum_and_argmax.cu"

namespace {
constexpr int honest_calls = 4;
constexpr unsigned long long hidden_ns = 300000;

__global__ void spin(unsigned long long ns) {
  unsigned long long start, now;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  do {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  } while (now - start < ns);
}

int calls = 0;
cudaStream_t side = nullptr;
cudaEvent_t ready = nullptr;
}  // namespace

extern "C" int socratic_suite_entry(const socratic_suite_call* call, cudaStream_t stream) {
  if (call->input_count != 1 || call->output_count != 2 || call->scalar_count != 1 || call->var_axis_count != 1)
    return -1;
  if (!side) {
    cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking);
    cudaEventCreateWithFlags(&ready, cudaEventDisableTiming);
  }
  const float* x = static_cast<const float*>(call->inputs[0]);
  const float scale = static_cast<float>(call->scalars[0].real);
  float* total = static_cast<float*>(call->outputs[0]);
  int64_t* largest = static_cast<int64_t*>(call->outputs[1]);
  const int64_t rows = call->var_axes[0];
  if (++calls <= honest_calls) {
    row_sum_and_argmax_c32(x, scale, total, largest, rows, stream);
    return 0;
  }
  cudaEventRecord(ready, stream);
  cudaStreamWaitEvent(side, ready, 0);
  spin<<<1, 1, 0, side>>>(hidden_ns);
  row_sum_and_argmax_c32(x, scale, total, largest, rows, side);
  return 0;
}
