// CUDA error handling for the runner: every failed runtime call becomes a CudaError that names
// the call and the error, and ends the run (main prints `fatal`). After an illegal address or a
// kernel fault the context is poisoned, so nothing later could be trusted anyway.
#pragma once

#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

namespace socratic::harness {

/// A CUDA runtime call failed; `what()` names the call and the error.
class CudaError : public std::runtime_error {
 public:
  CudaError(cudaError_t code, const std::string& what)
      : std::runtime_error(what + ": " + cudaGetErrorString(code) + " (" + cudaGetErrorName(code) +
                           ")"),
        code_(code) {}
  cudaError_t code() const noexcept { return code_; }

 private:
  cudaError_t code_;
};

/// Throws CudaError when `result` is not cudaSuccess. `what` names the call and its context.
inline void cuda_check(cudaError_t result, const std::string& what) {
  if (result != cudaSuccess) throw CudaError(result, what);
}

}  // namespace socratic::harness
