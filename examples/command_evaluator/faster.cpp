// A faster candidate, for the template's test: eight independent accumulators, so the additions
// do not wait on each other (the baseline's single sum is one long dependency chain).
#include <cmath>

extern "C" void row_norms(const float* x, float* y, int rows, int cols) {
  for (int r = 0; r < rows; ++r) {
    const float* row = x + static_cast<long>(r) * cols;
    float s[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    int c = 0;
    for (; c + 8 <= cols; c += 8)
      for (int k = 0; k < 8; ++k) s[k] += row[c + k] * row[c + k];
    float sum = ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]));
    for (; c < cols; ++c) sum += row[c] * row[c];
    y[r] = std::sqrt(sum);
  }
}
