// Cheat: launches from a background thread. On the first call it starts a worker thread and
// from then on hands every launch to it (the pattern behind "launch later, after the timer
// stopped"; here the entry point waits for the launch, so the arithmetic stays right).
// Caught by: the runner lists its threads (/proc/self/task) around every candidate call and at
// the end of every scenario; a new thread not started by the CUDA driver ("cuda*") -> flag
// `extra_threads` (reason "extra_threads: ... \"socratic-runner\" (tid N)"), on every
// scenario (the thread outlives the first call).

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include <condition_variable>
#include <mutex>
#include <thread>
#include "rmsnorm_args.h"

// ---- an honest RMSNorm (one block per row, fp32 accumulation), kept in this file so that it
// ---- builds alone, exactly as the evaluator builds a candidate ----
namespace honest {
__device__ inline float load(const void* p, int dtype, std::size_t i) {
  return dtype == 0 ? __bfloat162float(static_cast<const __nv_bfloat16*>(p)[i])
                    : __half2float(static_cast<const __half*>(p)[i]);
}
__device__ inline void store(void* p, int dtype, std::size_t i, float v) {
  if (dtype == 0)
    static_cast<__nv_bfloat16*>(p)[i] = __float2bfloat16_rn(v);
  else
    static_cast<__half*>(p)[i] = __float2half_rn(v);
}
constexpr int threads = 256;
__global__ void rmsnorm(const void* x, const void* w, void* y, int cols, float eps, int dtype) {
  __shared__ float partial[threads];
  const std::size_t base = static_cast<std::size_t>(blockIdx.x) * cols;
  float sum = 0;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) {
    const float v = load(x, dtype, base + c);
    sum += v * v;
  }
  partial[threadIdx.x] = sum;
  __syncthreads();
  for (int k = blockDim.x / 2; k > 0; k /= 2) {
    if (threadIdx.x < k) partial[threadIdx.x] += partial[threadIdx.x + k];
    __syncthreads();
  }
  const float inv = rsqrtf(partial[0] / cols + eps);
  for (int c = threadIdx.x; c < cols; c += blockDim.x)
    store(y, dtype, base + c, load(x, dtype, base + c) * inv * load(w, dtype, c));
}
inline int launch(const socratic_rmsnorm_args* a, cudaStream_t stream) {
  rmsnorm<<<a->rows, threads, 0, stream>>>(a->x, a->weight, a->y, a->cols, a->eps, a->dtype);
  return cudaGetLastError() == cudaSuccess ? 0 : 2;
}
}  // namespace honest

namespace {
class Worker {
 public:
  Worker() : thread_([this] { loop(); }) { thread_.detach(); }
  int run(const socratic_rmsnorm_args* a, cudaStream_t s) {
    std::unique_lock<std::mutex> lock(m_);
    job_ = *a;
    stream_ = s;
    pending_ = true;
    cv_.notify_all();
    cv_.wait(lock, [this] { return !pending_; });
    return result_;
  }

 private:
  void loop() {
    std::unique_lock<std::mutex> lock(m_);
    for (;;) {
      cv_.wait(lock, [this] { return pending_; });
      result_ = honest::launch(&job_, stream_);
      pending_ = false;
      cv_.notify_all();
    }
  }
  std::mutex m_;
  std::condition_variable cv_;
  socratic_rmsnorm_args job_{};
  cudaStream_t stream_ = nullptr;
  bool pending_ = false;
  int result_ = 0;
  std::thread thread_;
};
Worker* worker = nullptr;  // started on first use, never stopped
}  // namespace

extern "C" int socratic_rmsnorm_forward(const socratic_rmsnorm_args* a, cudaStream_t stream) {
  if (!worker) worker = new Worker();
  return worker->run(a, stream);
}
