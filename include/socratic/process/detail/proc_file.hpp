#pragma once
/// @brief Reading a file of /proc that may vanish while it is read. A process can exit between
/// listing /proc and reading its files; the read then fails (ESRCH), and std::ifstream's buffer
/// throws on that failure whatever its exception mask. This reader never throws: it returns
/// what it read, empty when the process is gone.

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <string>

namespace socratic::detail {

/// Reads an open file to its end, or to the first error (then what was read before it).
inline std::string read_to_end_or_error(int fd) {
  std::string out;
  char buf[4096];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n > 0) {
      out.append(buf, static_cast<std::size_t>(n));
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else {
      break;  // end of file, or the process is gone
    }
  }
  return out;
}

inline std::string read_proc_file(const std::filesystem::path& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return {};
  std::string out = read_to_end_or_error(fd);
  ::close(fd);
  return out;
}

}  // namespace socratic::detail
