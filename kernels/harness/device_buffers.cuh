// Device memory for one scenario: plain buffers, and tensors with guard bands of random values
// on both sides whose hashes are checked after every call (an out-of-bounds write changes them).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>

#include "cuda_check.hpp"
#include "device_ops.cuh"
#include "problem.cuh"

namespace socratic::harness {

/// Owns `bytes` bytes of device memory.
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  DeviceBuffer(std::size_t bytes, const std::string& what) : bytes_(bytes) {
    cuda_check(cudaMalloc(&ptr_, bytes ? bytes : 16),
               "cudaMalloc (" + what + ", " + std::to_string(bytes) + " bytes)");
  }
  ~DeviceBuffer() { release(); }
  DeviceBuffer(DeviceBuffer&& o) noexcept
      : ptr_(std::exchange(o.ptr_, nullptr)), bytes_(o.bytes_) {}
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    if (this != &o) {
      release();
      ptr_ = std::exchange(o.ptr_, nullptr);
      bytes_ = o.bytes_;
    }
    return *this;
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  void* get() const { return ptr_; }
  template <class T>
  T* as() const {
    return static_cast<T*>(ptr_);
  }
  std::size_t bytes() const { return bytes_; }

 private:
  void release() {
    if (ptr_) cudaFree(ptr_);
    ptr_ = nullptr;
  }
  void* ptr_ = nullptr;
  std::size_t bytes_ = 0;
};

/// One argument tensor between two guard bands of `guard` elements each, filled with random
/// bits. The tensor itself starts guard x element-size bytes into the allocation (a multiple
/// of 256 bytes for the default 16384 elements, so alignment is what cudaMalloc gives).
class GuardedTensor {
 public:
  GuardedTensor(const TensorSpec& spec, std::size_t guard, DeviceOps& ops, std::uint64_t seed)
      : spec_(spec),
        guard_(guard),
        memory_((2 * guard + spec.elements) * dtype_bytes(spec.dtype),
                "tensor \"" + spec.name + "\"") {
    const std::size_t eb = dtype_bytes(spec_.dtype);
    if (eb >= 2) {
      ops.fill_random(memory_.get(), guard_ * eb / 2, seed);
      ops.fill_random(back_guard(), guard_ * eb / 2, seed ^ 0xBAC6u);
    } else {  // one-byte elements: the back band may start at an odd address
      ops.fill_random_bytes(memory_.get(), guard_, seed);
      ops.fill_random_bytes(back_guard(), guard_, seed ^ 0xBAC6u);
    }
    front_hash_ = ops.hash(memory_.get(), guard_ * eb);
    back_hash_ = ops.hash(back_guard(), guard_ * eb);
  }

  const TensorSpec& spec() const { return spec_; }
  /// The name messages give it (the two outputs of a placement swap roles).
  void rename(const std::string& name) { spec_.name = name; }
  void* data() const { return memory_.as<char>() + offset_in_allocation(); }
  /// Where the tensor starts in its allocation (after the front guard band).
  std::size_t offset_in_allocation() const { return guard_ * dtype_bytes(spec_.dtype); }
  /// The allocation's CUDA IPC handle, for a worker process to map it (taken once).
  cudaIpcMemHandle_t ipc_handle() const {
    if (!has_handle_) {
      cuda_check(cudaIpcGetMemHandle(&handle_, memory_.get()),
                 "cudaIpcGetMemHandle (tensor \"" + spec_.name + "\")");
      has_handle_ = true;
    }
    return handle_;
  }
  std::size_t bytes() const { return spec_.elements * dtype_bytes(spec_.dtype); }

  /// Empty when both guard bands are intact, else which side changed.
  std::string check_guards(DeviceOps& ops) const {
    const std::size_t gb = guard_ * dtype_bytes(spec_.dtype);
    const bool front = ops.hash(memory_.get(), gb) != front_hash_;
    const bool back = ops.hash(back_guard(), gb) != back_hash_;
    if (!front && !back) return {};
    std::string side = front && back ? "before and after" : front ? "before" : "after";
    return "tensor \"" + spec_.name + "\": the guard band " + side + " it (" +
           std::to_string(guard_) + " elements a side) was overwritten";
  }

 private:
  void* back_guard() const { return static_cast<char*>(data()) + bytes(); }

  TensorSpec spec_;
  std::size_t guard_;
  DeviceBuffer memory_;
  unsigned long long front_hash_ = 0, back_hash_ = 0;
  mutable cudaIpcMemHandle_t handle_{};
  mutable bool has_handle_ = false;
};

}  // namespace socratic::harness
