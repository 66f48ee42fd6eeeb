#pragma once
/// @file
/// @brief Definitions for socratic/record/trace.hpp: included there in header-only builds, and by
/// socratic/src.hpp (compiled once) with SOCRATIC_SEPARATE_COMPILATION.

#include "socratic/record/trace.hpp"

namespace socratic::detail {

SOCRATIC_DECL std::string iso8601_now() {
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

SOCRATIC_DECL ParsedTraceText parse_trace_text(std::string_view data, const std::filesystem::path& path,
                                               std::size_t lines_before) {
  ParsedTraceText out;
  std::size_t pos = 0;
  std::size_t line_no = lines_before;
  while (pos < data.size()) {
    ++line_no;
    const std::size_t nl = data.find('\n', pos);
    const bool complete = nl != std::string_view::npos;
    const std::string_view line(data.data() + pos, (complete ? nl : data.size()) - pos);
    const std::size_t next = complete ? nl + 1 : data.size();
    const bool last = next >= data.size();
    if (line.find_first_not_of(" \t\r") == std::string_view::npos) {  // blank line
      pos = next;
      if (complete) {
        out.valid_bytes = next;
        out.lines = line_no - lines_before;
      }
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
    out.lines = line_no - lines_before;
    pos = next;
  }
  return out;
}

}  // namespace socratic::detail

namespace socratic {

SOCRATIC_DECL TraceContents read_trace(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw input_error(path.string(), {}, "cannot open trace");
  std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  detail::ParsedTraceText parsed = detail::parse_trace_text(data, path);
  TraceContents out;
  out.events = std::move(parsed.events);
  out.truncated_tail = parsed.truncated_tail;
  out.valid_bytes = parsed.valid_bytes;
  return out;
}

}  // namespace socratic
