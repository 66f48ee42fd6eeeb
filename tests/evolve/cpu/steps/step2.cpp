// step: 2 - exp once per element in float, one reciprocal per row.
#include <cmath>

extern "C" void softmax_rows(const float* x, float* y, int rows, int cols) {
  for (int r = 0; r < rows; ++r) {
    const float* in = x + static_cast<long>(r) * cols;
    float* out = y + static_cast<long>(r) * cols;
    float m = in[0];
    for (int c = 1; c < cols; ++c) m = std::fmax(m, in[c]);
    float sum = 0;
    for (int c = 0; c < cols; ++c) {
      out[c] = std::exp(in[c] - m);
      sum += out[c];
    }
    const float inv = 1.0f / sum;
    for (int c = 0; c < cols; ++c) out[c] *= inv;
  }
}
