#pragma once
/// @file
/// @brief GPU leases: `LEASES/gpu-ID.lock`, held with flock, so that the kernel drops a lease
/// when its holder dies (kill -9 included). Every pool of one machine that shares a lease folder
/// (`lease_dir`) shares the GPUs safely. A timing or profiling run holds its GPU's lock
/// exclusively; a correctness-only run, where a pool allows N of them on one GPU, holds it
/// shared plus one of N `gpu-ID.shareK.lock` exclusively, so no timing run ever overlaps
/// another run on that GPU.

#include <unistd.h>

#include <filesystem>
#include <optional>
#include <string>

#include "socratic/exec/detail/file_lock.hpp"

namespace socratic::exec {

/// @brief A held lease on one GPU; released on destruction.
class GpuLease {
 public:
  GpuLease() = default;
  explicit operator bool() const noexcept { return static_cast<bool>(gpu_lock_); }
  const std::string& gpu() const noexcept { return gpu_; }
  bool exclusive() const noexcept { return !share_lock_; }
  void release() noexcept {
    share_lock_.release();
    gpu_lock_.release();
  }

  /// @brief The lock file of `gpu` under `dir`.
  static std::filesystem::path lock_path(const std::filesystem::path& dir, const std::string& gpu) {
    return dir / ("gpu-" + gpu + ".lock");
  }

  /// @brief Tries, without waiting, to take `gpu` alone. Empty when anyone else holds it.
  static GpuLease try_exclusive(const std::filesystem::path& dir, const std::string& gpu, const std::string& holder) {
    GpuLease lease;
    lease.gpu_lock_ = detail::FileLock::try_lock(lock_path(dir, gpu), detail::LockMode::exclusive);
    if (!lease.gpu_lock_) return {};
    lease.gpu_ = gpu;
    lease.gpu_lock_.describe("pid " + std::to_string(::getpid()) + " " + holder + "\n");
    return lease;
  }

  /// @brief Tries, without waiting, to take share `slot` of `gpu` (correctness runs only).
  static GpuLease try_shared(const std::filesystem::path& dir, const std::string& gpu, int slot) {
    GpuLease lease;
    lease.gpu_lock_ = detail::FileLock::try_lock(lock_path(dir, gpu), detail::LockMode::shared);
    if (!lease.gpu_lock_) return {};
    lease.share_lock_ = detail::FileLock::try_lock(dir / ("gpu-" + gpu + ".share" + std::to_string(slot) + ".lock"),
                                                   detail::LockMode::exclusive);
    if (!lease.share_lock_) return {};
    lease.gpu_ = gpu;
    return lease;
  }

 private:
  std::string gpu_;
  detail::FileLock gpu_lock_, share_lock_;
};

}  // namespace socratic::exec
