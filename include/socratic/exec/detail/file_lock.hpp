#pragma once
/// @file
/// @brief FileLock: an flock(2) lock on a file, held by an open descriptor. The kernel drops it
/// when the descriptor closes, and so when the process dies however it dies (kill -9 included):
/// a lease built on it can never outlive its holder. The descriptor is close-on-exec, so child
/// processes never inherit the lock.

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <string>
#include <string_view>
#include <utility>

#include "socratic/core/error.hpp"

namespace socratic::exec::detail {

/// @brief Shared or exclusive.
enum class LockMode { shared, exclusive };

/// @brief A held flock lock (movable, not copyable). Empty when default-constructed or when an
/// attempt failed.
class FileLock {
 public:
  FileLock() = default;
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;
  FileLock(FileLock&& other) noexcept : fd_(std::exchange(other.fd_, -1)), path_(std::move(other.path_)) {}
  FileLock& operator=(FileLock&& other) noexcept {
    if (this != &other) {
      release();
      fd_ = std::exchange(other.fd_, -1);
      path_ = std::move(other.path_);
    }
    return *this;
  }
  ~FileLock() { release(); }

  /// @brief Tries to lock `path` (created when missing) without waiting. Empty when another
  /// descriptor holds a conflicting lock; throws error when the file cannot be opened.
  static FileLock try_lock(const std::filesystem::path& path, LockMode mode) {
    std::error_code ec;
    std::filesystem::create_directories(path.parent_path(), ec);
    const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) throw error("cannot open the lock file " + path.string() + ": " + std::strerror(errno));
    const int op = (mode == LockMode::exclusive ? LOCK_EX : LOCK_SH) | LOCK_NB;
    int rc;
    do rc = ::flock(fd, op);
    while (rc != 0 && errno == EINTR);
    if (rc != 0) {
      const int saved = errno;
      ::close(fd);
      if (saved == EWOULDBLOCK) return {};
      throw error("cannot lock " + path.string() + ": " + std::strerror(saved));
    }
    FileLock lock;
    lock.fd_ = fd;
    lock.path_ = path;
    return lock;
  }

  explicit operator bool() const noexcept { return fd_ >= 0; }
  const std::filesystem::path& path() const noexcept { return path_; }

  /// @brief Replaces the file's contents (who holds it, for people reading the folder).
  void describe(std::string_view text) const {
    if (fd_ < 0) return;
    if (::ftruncate(fd_, 0) != 0) return;
    (void)!::pwrite(fd_, text.data(), text.size(), 0);
  }

  void release() noexcept {
    if (fd_ >= 0) ::close(fd_);  // closing drops the lock
    fd_ = -1;
  }

 private:
  int fd_ = -1;
  std::filesystem::path path_;
};

/// @brief True when nobody holds a lock on `path` that conflicts with `mode` (the probe takes
/// and drops the lock). A missing file is free.
inline bool lock_is_free(const std::filesystem::path& path, LockMode mode = LockMode::exclusive) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return true;
  return static_cast<bool>(FileLock::try_lock(path, mode));
}

/// @brief The first line of a lock file (its holder's description), or empty.
inline std::string lock_description(const std::filesystem::path& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return {};
  char buf[512];
  const ssize_t n = ::read(fd, buf, sizeof buf);
  ::close(fd);
  if (n <= 0) return {};
  std::string text(buf, static_cast<std::size_t>(n));
  if (auto nl = text.find('\n'); nl != std::string::npos) text.resize(nl);
  return text;
}

}  // namespace socratic::exec::detail
