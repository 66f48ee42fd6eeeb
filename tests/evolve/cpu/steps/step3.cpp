// step: 3 - as step 2, with the max and the sum split over four independent accumulators.
#include <cmath>

extern "C" void softmax_rows(const float* x, float* y, int rows, int cols) {
  for (int r = 0; r < rows; ++r) {
    const float* in = x + static_cast<long>(r) * cols;
    float* out = y + static_cast<long>(r) * cols;
    float m0 = in[0], m1 = in[0], m2 = in[0], m3 = in[0];
    int c = 0;
    for (; c + 4 <= cols; c += 4) {
      m0 = std::fmax(m0, in[c]), m1 = std::fmax(m1, in[c + 1]);
      m2 = std::fmax(m2, in[c + 2]), m3 = std::fmax(m3, in[c + 3]);
    }
    for (; c < cols; ++c) m0 = std::fmax(m0, in[c]);
    const float m = std::fmax(std::fmax(m0, m1), std::fmax(m2, m3));
    float s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    for (c = 0; c + 4 <= cols; c += 4) {
      out[c] = std::exp(in[c] - m), out[c + 1] = std::exp(in[c + 1] - m);
      out[c + 2] = std::exp(in[c + 2] - m), out[c + 3] = std::exp(in[c + 3] - m);
      s0 += out[c], s1 += out[c + 1], s2 += out[c + 2], s3 += out[c + 3];
    }
    for (; c < cols; ++c) {
      out[c] = std::exp(in[c] - m);
      s0 += out[c];
    }
    const float inv = 1.0f / ((s0 + s1) + (s2 + s3));
    for (c = 0; c < cols; ++c) out[c] *= inv;
  }
}
