#pragma once
/// @file
/// @brief The store's file primitives: an exclusive lock on a folder (flock), appending a line
/// with one write loop and fdatasync, reading a byte range, finding the end of the last
/// complete line. POSIX.

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <string>
#include <string_view>

#include "socratic/core/error.hpp"

namespace socratic::detail::store_file {

inline std::string errno_text() { return std::strerror(errno); }

/// @brief An open file descriptor, closed on destruction.
class Fd {
 public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  Fd(Fd&& o) noexcept : fd_(o.fd_) { o.fd_ = -1; }
  Fd& operator=(Fd&& o) noexcept {
    if (this != &o) {
      reset();
      fd_ = o.fd_;
      o.fd_ = -1;
    }
    return *this;
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() { reset(); }
  int get() const noexcept { return fd_; }
  explicit operator bool() const noexcept { return fd_ >= 0; }
  void reset() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

 private:
  int fd_ = -1;
};

inline Fd open_or_throw(const std::filesystem::path& path, int flags, const char* what) {
  const int fd = ::open(path.c_str(), flags | O_CLOEXEC, 0644);
  if (fd < 0) throw input_error(path.string(), {}, std::string("cannot open ") + what + ": " + errno_text());
  return Fd(fd);
}

/// @brief Takes the exclusive lock of `lock_path` without waiting, and writes this process's id
/// into it. The lock dies with the process (kill -9 included). Throws error naming the holder.
inline Fd lock_exclusively(const std::filesystem::path& lock_path, const std::string& what) {
  Fd fd = open_or_throw(lock_path, O_RDWR | O_CREAT, "lock file");
  if (::flock(fd.get(), LOCK_EX | LOCK_NB) != 0) {
    char buf[32] = {};
    const ssize_t n = ::pread(fd.get(), buf, sizeof buf - 1, 0);
    std::string holder = n > 0 ? std::string(buf, static_cast<std::size_t>(n)) : std::string("unknown");
    while (!holder.empty() && (holder.back() == '\n' || holder.back() == ' ')) holder.pop_back();
    throw error(what + " is held by another writer (process " + holder + ", lock " + lock_path.string() +
                "); one coordinator writes a store: stop the other one or open the store read-only");
  }
  const std::string pid = std::to_string(::getpid()) + "\n";
  if (::ftruncate(fd.get(), 0) == 0) (void)!::pwrite(fd.get(), pid.data(), pid.size(), 0);
  return fd;
}

/// @brief Writes all of `bytes` at the end of an O_APPEND descriptor; on failure truncates the
/// file back to `size_before` and throws, so that no partial line stays behind.
inline void append_all(int fd, std::string_view bytes, std::uintmax_t size_before, const std::filesystem::path& path,
                       bool sync) {
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const std::string why = errno_text();
      (void)!::ftruncate(fd, static_cast<off_t>(size_before));
      throw error("cannot append to " + path.string() + ": " + why);
    }
    done += static_cast<std::size_t>(n);
  }
  if (sync && ::fdatasync(fd) != 0) throw error("cannot sync " + path.string() + ": " + errno_text());
}

inline std::uintmax_t file_size(int fd, const std::filesystem::path& path) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) throw error("cannot stat " + path.string() + ": " + errno_text());
  return static_cast<std::uintmax_t>(st.st_size);
}

/// @brief Reads `length` bytes at `offset`; throws when fewer are there.
inline std::string read_range(int fd, std::uintmax_t offset, std::size_t length, const std::filesystem::path& path) {
  std::string out(length, '\0');
  std::size_t done = 0;
  while (done < length) {
    const ssize_t n = ::pread(fd, out.data() + done, length - done, static_cast<off_t>(offset + done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0)
      throw input_error(path.string(), "byte " + std::to_string(offset),
                        "cannot read " + std::to_string(length) + " bytes (the file is shorter than its index says)");
    done += static_cast<std::size_t>(n);
  }
  return out;
}

/// @brief The offset just past the last newline at or before `size` (0 when there is none),
/// read backwards in blocks: where a torn last line begins.
inline std::uintmax_t end_of_last_line(int fd, std::uintmax_t size, const std::filesystem::path& path) {
  constexpr std::size_t block = 1 << 16;
  std::uintmax_t end = size;
  while (end > 0) {
    const std::size_t n = static_cast<std::size_t>(std::min<std::uintmax_t>(block, end));
    const std::string chunk = read_range(fd, end - n, n, path);
    const auto nl = chunk.rfind('\n');
    if (nl != std::string::npos) return end - n + nl + 1;
    end -= n;
  }
  return 0;
}

}  // namespace socratic::detail::store_file
