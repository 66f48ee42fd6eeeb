// BlockingHold (blocking_hold.cuh) as a C library, for tools/research/bench/sdpa_anchors.py --hold-flag,
// which holds PyTorch's stream the way check_attention --hold-flag holds its own.
//   nvcc -O2 -std=c++17 -shared -Xcompiler -fPIC -gencode=arch=compute_90a,code=sm_90a
//        tools/research/attention/blocking_hold_lib.cu -o blocking_hold.so
#include <cstdio>

#include "blocking_hold.cuh"

namespace {
socratic::bench::BlockingHold* hold = nullptr;
}

extern "C" {
/// Returns 0, or nonzero (with the reason on stderr) when the flag cannot be set up.
int socratic_hold_init() {
  try {
    if (!hold) hold = new socratic::bench::BlockingHold();
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "socratic_hold_init: %s\n", e.what());
    return 1;
  }
}
int socratic_hold_block(cudaStream_t stream) {
  if (!hold) {
    std::fprintf(stderr, "socratic_hold_block: call socratic_hold_init first\n");
    return 1;
  }
  try {
    hold->block(stream);
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "socratic_hold_block: %s\n", e.what());
    return 1;
  }
}
void socratic_hold_release() {
  if (hold) hold->release();
}
/// 1: the last hold lasted until release; 0: it gave up (or there was none).
int socratic_hold_hid_last() { return hold && hold->hid_last() ? 1 : 0; }
}
