#pragma once
/// @file
/// @brief The campaign trace: append-only JSONL, one event per line, flushed per line, synced at
/// turn ends, secrets redacted, safe to append from several processes at once (a flock per
/// line). A reader that survives a truncated last line and names a corrupt line in the middle.
/// Schema: docs/trace.md.

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <chrono>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "socratic/core/redact.hpp"
#include "socratic/core/error.hpp"
#include "socratic/core/json.hpp"
#include "socratic/core/detail/separate_compilation.hpp"

namespace socratic {

/// @brief Version of the trace line format (`"v"` member of every line).
inline constexpr int trace_version = 1;

namespace detail {
SOCRATIC_DECL std::string iso8601_now();
}  // namespace detail

/// @brief What reading a trace found.
struct TraceContents {
  std::vector<json> events;
  /// The last line was cut short (the writer was killed mid-line); it was dropped.
  bool truncated_tail = false;
  /// Byte offset just past the last complete line: a writer resuming truncates to it.
  std::uintmax_t valid_bytes = 0;
};

namespace detail {
/// What parsing a stretch of trace text found: the events, how many lines they took, and how
/// many bytes of it end in a complete line (the rest is a torn last line, or trailing blanks).
struct ParsedTraceText {
  std::vector<json> events;
  bool truncated_tail = false;
  std::size_t valid_bytes = 0;
  std::size_t lines = 0;
};

/// Parses trace text that starts at a line boundary. `lines_before` numbers the lines in errors
/// when the text is the continuation of a file.
SOCRATIC_DECL ParsedTraceText parse_trace_text(std::string_view data, const std::filesystem::path& path,
                                               std::size_t lines_before = 0);

/// Holds an exclusive flock(2) on a descriptor for one scope.
class FileLock {
 public:
  FileLock(int fd, const std::filesystem::path& path) : fd_(fd) {
    while (::flock(fd_, LOCK_EX) != 0) {
      if (errno == EINTR) continue;
      throw error("cannot lock trace " + path.string() + ": " + std::strerror(errno));
    }
  }
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;
  ~FileLock() { ::flock(fd_, LOCK_UN); }

 private:
  int fd_;
};
}  // namespace detail

/// @brief Reads a trace. A final line without its newline, or one that does not parse, is
/// dropped and reported in `truncated_tail`; a bad line anywhere else throws input_error naming
/// the file and the line number (a corrupt trace is never silently skipped).
SOCRATIC_DECL TraceContents read_trace(const std::filesystem::path& path);

/// @brief Appends events to a trace file that several processes may write at once (the
/// campaign, the Stop hook, `socratic mcp`): every append holds an exclusive flock(2) on the
/// file, first reads the lines others appended since this writer last looked, numbers the event
/// after the highest `seq` in the file, and writes it with a single write() on an O_APPEND
/// descriptor (no user-space buffer to lose); every string is redacted. docs/trace.md.
class TraceWriter {
 public:
  /// Opens (creating folders and the file) for appending. When the file ends in a partial line
  /// (a writer killed mid-line), the partial line is cut off first, with a warning on stderr,
  /// so the next line starts clean; every later append repairs the same way under its lock.
  explicit TraceWriter(std::filesystem::path path, Redactor redactor = Redactor())
      : path_(std::move(path)), redactor_(std::move(redactor)) {
    if (path_.has_parent_path()) std::filesystem::create_directories(path_.parent_path());
    fd_ = ::open(path_.c_str(), O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd_ < 0)
      throw input_error(path_.string(), {}, std::string("cannot open trace for writing: ") +
                                                std::strerror(errno));
    try {
      detail::FileLock lock(fd_, path_);
      catch_up_locked();
    } catch (...) {
      ::close(fd_);
      throw;
    }
  }
  TraceWriter(const TraceWriter&) = delete;
  TraceWriter& operator=(const TraceWriter&) = delete;
  ~TraceWriter() {
    if (fd_ >= 0) ::close(fd_);
  }

  /// @brief Writes one event. Adds `v`, `seq` (one past the highest in the file, whoever wrote
  /// it) and `time`; keeps members already set (e.g. `elapsed_s`, `agent`). Returns the event's
  /// sequence number.
  std::int64_t write(json event) {
    if (!event.is_object() || !event.contains("type"))
      throw error("trace event must be an object with a \"type\"");
    event["v"] = trace_version;
    if (!event.contains("time")) event["time"] = detail::iso8601_now();
    redactor_.redact(event);

    detail::FileLock lock(fd_, path_);
    catch_up_locked();
    const std::int64_t seq = last_seq_ + 1;
    event["seq"] = seq;
    std::string line = event.dump(-1, ' ', false, json::error_handler_t::replace);
    line.push_back('\n');
    const char* p = line.data();
    std::size_t left = line.size();
    while (left > 0) {
      const ssize_t n = ::write(fd_, p, left);
      if (n < 0) {
        if (errno == EINTR) continue;
        // A partial line may be left behind: the next append (ours or another's) cuts it off.
        throw error("cannot write trace " + path_.string() + ": " + std::strerror(errno));
      }
      p += n;
      left -= static_cast<std::size_t>(n);
    }
    end_offset_ += line.size();
    ++lines_seen_;
    last_seq_ = seq;
    return seq;
  }

  /// @brief Forces the written lines to disk (called at turn ends).
  void sync() { ::fsync(fd_); }

  const std::filesystem::path& path() const noexcept { return path_; }
  const Redactor& redactor() const noexcept { return redactor_; }
  /// @brief What this writer repaired (a torn last line cut off), oldest first; each was also
  /// printed on stderr.
  const std::vector<std::string>& warnings() const noexcept { return warnings_; }

 private:
  /// Under the lock: reads what was appended past `end_offset_` (by other writers), checks it as
  /// read_trace does, takes the highest `seq`, and cuts a torn last line off.
  void catch_up_locked() {
    struct stat st {};
    if (::fstat(fd_, &st) != 0)
      throw error("cannot stat trace " + path_.string() + ": " + std::strerror(errno));
    auto size = static_cast<std::uintmax_t>(st.st_size);
    if (size < end_offset_) {  // cut shorter behind our back: start over from the beginning
      end_offset_ = 0;
      lines_seen_ = 0;
      last_seq_ = -1;
    }
    if (size == end_offset_) return;
    std::string data(static_cast<std::size_t>(size - end_offset_), '\0');
    std::size_t got = 0;
    while (got < data.size()) {
      const ssize_t n = ::pread(fd_, data.data() + got, data.size() - got,
                                static_cast<off_t>(end_offset_ + got));
      if (n < 0) {
        if (errno == EINTR) continue;
        throw error("cannot read trace " + path_.string() + ": " + std::strerror(errno));
      }
      if (n == 0) break;
      got += static_cast<std::size_t>(n);
    }
    data.resize(got);
    const detail::ParsedTraceText parsed = detail::parse_trace_text(data, path_, lines_seen_);
    for (const auto& e : parsed.events) {
      const auto it = e.find("seq");
      if (it != e.end() && it->is_number_integer())
        last_seq_ = std::max<std::int64_t>(last_seq_, it->get<std::int64_t>());
    }
    lines_seen_ += parsed.lines;
    if (parsed.valid_bytes < data.size()) {
      const std::uintmax_t keep = end_offset_ + parsed.valid_bytes;
      if (::ftruncate(fd_, static_cast<off_t>(keep)) != 0)
        throw error("cannot cut the torn last line of trace " + path_.string() + ": " +
                    std::strerror(errno));
      if (parsed.truncated_tail) {
        warnings_.push_back(path_.string() + ": a torn last line (" +
                            std::to_string(data.size() - parsed.valid_bytes) +
                            " bytes, a writer killed mid-line) was cut off at byte " +
                            std::to_string(keep));
        std::fprintf(stderr, "socratic: warning: %s\n", warnings_.back().c_str());
      }
    }
    end_offset_ += parsed.valid_bytes;
  }

  std::filesystem::path path_;
  Redactor redactor_;
  int fd_ = -1;
  std::uintmax_t end_offset_ = 0;  ///< bytes of the file this writer has read or written
  std::size_t lines_seen_ = 0;     ///< lines before end_offset_, for error messages
  std::int64_t last_seq_ = -1;     ///< highest seq before end_offset_
  std::vector<std::string> warnings_;
};

}  // namespace socratic

#ifndef SOCRATIC_SEPARATE_COMPILATION
#include "socratic/record/impl/trace.ipp"
#endif
