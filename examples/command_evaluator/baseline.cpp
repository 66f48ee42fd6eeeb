// The baseline: the implementation the candidate must beat (and the one `socratic init` copies
// into the workspace as the first candidate). EDIT: your kernel's reference implementation.
// Row norms: y[r] = sqrt(sum over c of x[r][c]^2), one float accumulator per row.
#include <cmath>

extern "C" void row_norms(const float* x, float* y, int rows, int cols) {
  for (int r = 0; r < rows; ++r) {
    const float* row = x + static_cast<long>(r) * cols;
    float sum = 0;
    for (int c = 0; c < cols; ++c) sum += row[c] * row[c];
    y[r] = std::sqrt(sum);
  }
}
