#pragma once
/// @file
/// @brief The campaign trace: append-only JSONL, one event per line, flushed per line, synced at
/// turn ends, secrets redacted. A reader that survives a truncated last line and names a corrupt
/// line in the middle. Schema: docs/trace.md.

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
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

namespace socratic {

/// @brief Version of the trace line format (`"v"` member of every line).
inline constexpr int trace_version = 1;

namespace detail {
inline std::string iso8601_now() {
  using namespace std::chrono;
  const auto now = system_clock::now();
  const auto ms = duration_cast<milliseconds>(now.time_since_epoch()).count() % 1000;
  const std::time_t t = system_clock::to_time_t(now);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[40];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
  char out[48];
  std::snprintf(out, sizeof out, "%s.%03dZ", buf, static_cast<int>(ms));
  return out;
}
}  // namespace detail

/// @brief What reading a trace found.
struct TraceContents {
  std::vector<json> events;
  /// The last line was cut short (the writer was killed mid-line); it was dropped.
  bool truncated_tail = false;
  /// Byte offset just past the last complete line: a writer resuming truncates to it.
  std::uintmax_t valid_bytes = 0;
};

/// @brief Reads a trace. A final line without its newline, or one that does not parse, is
/// dropped and reported in `truncated_tail`; a bad line anywhere else throws input_error naming
/// the file and the line number (a corrupt trace is never silently skipped).
inline TraceContents read_trace(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw input_error(path.string(), {}, "cannot open trace");
  std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  TraceContents out;
  std::size_t pos = 0;
  std::size_t line_no = 0;
  while (pos < data.size()) {
    ++line_no;
    const std::size_t nl = data.find('\n', pos);
    const bool complete = nl != std::string::npos;
    const std::string_view line(data.data() + pos, (complete ? nl : data.size()) - pos);
    const std::size_t next = complete ? nl + 1 : data.size();
    const bool last = next >= data.size();
    if (line.find_first_not_of(" \t\r") == std::string_view::npos) {  // blank line
      pos = next;
      if (complete) out.valid_bytes = next;
      continue;
    }
    json event;
    try {
      event = json::parse(line);
    } catch (const json::parse_error& e) {
      if (last) {
        out.truncated_tail = true;
        break;
      }
      throw input_error(path.string(), "line " + std::to_string(line_no),
                        std::string("corrupt trace line: ") + e.what());
    }
    if (!complete) {  // parsed but unterminated: the writer died before the newline
      out.truncated_tail = true;
      break;
    }
    if (!event.is_object() || !event.contains("type") || !event["type"].is_string())
      throw input_error(path.string(), "line " + std::to_string(line_no),
                        "trace event without a string \"type\"");
    if (event.value("v", 1) > trace_version)
      throw input_error(path.string(), "line " + std::to_string(line_no),
                        "trace version " + std::to_string(event.value("v", 1)) +
                            " is newer than this Socratic reads");
    out.events.push_back(std::move(event));
    out.valid_bytes = next;
    pos = next;
  }
  return out;
}

/// @brief Appends events to a trace file: one line each, written with a single write() on an
/// O_APPEND descriptor (no user-space buffer to lose), every string redacted.
class TraceWriter {
 public:
  /// Opens (creating folders and the file) for appending. When the file ends in a partial line
  /// (a writer killed mid-line), the partial line is cut off first so the next line starts clean.
  explicit TraceWriter(std::filesystem::path path, Redactor redactor = Redactor())
      : path_(std::move(path)), redactor_(std::move(redactor)) {
    if (path_.has_parent_path()) std::filesystem::create_directories(path_.parent_path());
    std::int64_t last_seq = -1;
    if (std::filesystem::exists(path_)) {
      const TraceContents existing = read_trace(path_);
      if (existing.truncated_tail || existing.valid_bytes != std::filesystem::file_size(path_))
        std::filesystem::resize_file(path_, existing.valid_bytes);
      for (const auto& e : existing.events) last_seq = std::max<std::int64_t>(last_seq, e.value("seq", -1));
    }
    next_seq_ = last_seq + 1;
    fd_ = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd_ < 0)
      throw input_error(path_.string(), {}, std::string("cannot open trace for writing: ") +
                                                std::strerror(errno));
  }
  TraceWriter(const TraceWriter&) = delete;
  TraceWriter& operator=(const TraceWriter&) = delete;
  ~TraceWriter() {
    if (fd_ >= 0) ::close(fd_);
  }

  /// @brief Writes one event. Adds `v`, `seq` and `time`; keeps members already set
  /// (e.g. `elapsed_s`, `agent`). Returns the event's sequence number.
  std::int64_t write(json event) {
    if (!event.is_object() || !event.contains("type"))
      throw error("trace event must be an object with a \"type\"");
    event["v"] = trace_version;
    event["seq"] = next_seq_;
    if (!event.contains("time")) event["time"] = detail::iso8601_now();
    redactor_.redact(event);
    std::string line = event.dump(-1, ' ', false, json::error_handler_t::replace);
    line.push_back('\n');
    const char* p = line.data();
    std::size_t left = line.size();
    while (left > 0) {
      const ssize_t n = ::write(fd_, p, left);
      if (n < 0) {
        if (errno == EINTR) continue;
        throw error("cannot write trace " + path_.string() + ": " + std::strerror(errno));
      }
      p += n;
      left -= static_cast<std::size_t>(n);
    }
    return next_seq_++;
  }

  /// @brief Forces the written lines to disk (called at turn ends).
  void sync() { ::fsync(fd_); }

  const std::filesystem::path& path() const noexcept { return path_; }
  const Redactor& redactor() const noexcept { return redactor_; }

 private:
  std::filesystem::path path_;
  Redactor redactor_;
  int fd_ = -1;
  std::int64_t next_seq_ = 0;
};

}  // namespace socratic
