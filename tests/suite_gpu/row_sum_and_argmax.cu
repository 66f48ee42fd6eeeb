// An honest CUDA C++ candidate of tests/suite_python/sol/row_sum_and_argmax (two outputs, a
// scalar, a var axis), with the entry point `socratic problem header` prints: one thread a row.
#include <cstdint>
#include <cuda_runtime.h>

namespace {
__global__ void row_sum_and_argmax(const float* x, float scale, float* total, int64_t* largest, int64_t rows) {
  const int64_t r = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  if (r >= rows) return;
  float sum = 0, best = x[r * 32];
  int64_t at = 0;
  for (int c = 0; c < 32; ++c) {
    const float v = x[r * 32 + c];
    sum += v;
    if (v > best) best = v, at = c;
  }
  total[r] = sum * scale;
  largest[r] = at;
}
}  // namespace

extern "C" void row_sum_and_argmax_c32(const float* x, float scale, float* total, int64_t* largest, int64_t rows,
                                       cudaStream_t stream) {
  row_sum_and_argmax<<<static_cast<unsigned>((rows + 127) / 128), 128, 0, stream>>>(x, scale, total, largest, rows);
}
