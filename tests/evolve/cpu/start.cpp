// Baseline row softmax: double accumulation, exp computed twice per element.
#include <cmath>

extern "C" void softmax_rows(const float* x, float* y, int rows, int cols) {
  for (int r = 0; r < rows; ++r) {
    const float* in = x + static_cast<long>(r) * cols;
    float* out = y + static_cast<long>(r) * cols;
    double m = in[0];
    for (int c = 1; c < cols; ++c) m = in[c] > m ? in[c] : m;
    double sum = 0;
    for (int c = 0; c < cols; ++c) sum += std::exp(static_cast<double>(in[c]) - m);
    for (int c = 0; c < cols; ++c) out[c] = static_cast<float>(std::exp(static_cast<double>(in[c]) - m) / sum);
  }
}
