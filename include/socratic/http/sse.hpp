#pragma once
/// @file
/// @brief SseParser: an incremental parser for server-sent events (the WHATWG event-stream
/// format), fed arbitrary byte chunks. Light: standard library only.

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

#include "socratic/core/error.hpp"

namespace socratic::http {

/// @brief Thrown by SseParser::feed when a line or an event passes the parser's cap.
class sse_too_large : public error {
 public:
  using error::error;
};

/// @brief One dispatched event: its `event:` name (`message` when none was given), its data
/// lines joined by `\n`, and the last `id:` seen.
struct SseEvent {
  std::string event = "message";
  std::string data;
  std::string id;
};

/// @brief Parses an event stream fed in chunks of any size (a chunk may end inside a line, inside
/// a CR LF pair, or inside a multi-byte character). Calls the handler once per complete event.
///
/// Follows the WHATWG rules: lines end in CR LF, LF or CR; `:` starts a comment; one space after
/// the field's colon is dropped; `data:` lines accumulate; a blank line dispatches; an event with
/// no data is not dispatched; a UTF-8 byte-order mark at the very start is ignored.
///
/// @par Example
/// @code
/// SseParser p([](const SseEvent& e) { std::cout << e.event << ": " << e.data << "\n"; });
/// p.feed("data: {\"a\"");
/// p.feed(":1}\n\n");  // prints `message: {"a":1}`
/// @endcode
class SseParser {
 public:
  using handler = std::function<void(const SseEvent&)>;

  /// @param on_event called for each event
  /// @param max_line_bytes a line, or an event's data, longer than this is an error (a runaway
  /// stream, not SSE): sse_too_large
  explicit SseParser(handler on_event, std::size_t max_line_bytes = 16u << 20)
      : on_event_(std::move(on_event)), max_line_(max_line_bytes) {}

  /// @brief Consumes a chunk. @throws sse_too_large when a line or an event's data exceeds the cap.
  void feed(std::string_view chunk) {
    for (char c : chunk) {
      if (at_start_) {
        // The BOM arrives as three bytes that may be split across chunks.
        static constexpr std::string_view bom = "\xEF\xBB\xBF";
        if (bom_matched_ < bom.size() && c == bom[bom_matched_]) {
          ++bom_matched_;
          if (bom_matched_ == bom.size()) at_start_ = false;
          continue;
        }
        at_start_ = false;
        line_.append(bom.substr(0, bom_matched_));
      }
      if (c == '\n' && after_cr_) {  // the LF of a CR LF pair split or not
        after_cr_ = false;
        continue;
      }
      after_cr_ = false;
      if (c == '\r' || c == '\n') {
        after_cr_ = c == '\r';
        process_line();
        line_.clear();
        continue;
      }
      if (line_.size() >= max_line_)
        throw sse_too_large("server-sent events: a line exceeds " + std::to_string(max_line_) + " bytes");
      line_.push_back(c);
    }
  }

  /// @brief Ends the stream. An event without its final blank line is discarded, as the format
  /// requires; returns true when such an incomplete event (or line) was pending.
  bool finish() {
    const bool pending = !line_.empty() || !data_.empty() || has_data_;
    line_.clear();
    reset_event();
    return pending;
  }

  /// @brief Events dispatched so far.
  std::size_t events() const noexcept { return dispatched_; }

 private:
  void process_line() {
    if (line_.empty()) {
      dispatch();
      return;
    }
    if (line_.front() == ':') return;  // comment (keep-alive)
    std::string_view line(line_);
    std::string_view field = line, value;
    if (auto colon = line.find(':'); colon != std::string_view::npos) {
      field = line.substr(0, colon);
      value = line.substr(colon + 1);
      if (!value.empty() && value.front() == ' ') value.remove_prefix(1);
    }
    if (field == "data") {
      if (has_data_) data_.push_back('\n');
      data_.append(value);
      has_data_ = true;
      if (data_.size() > max_line_)
        throw sse_too_large("server-sent events: an event's data exceeds " + std::to_string(max_line_) + " bytes");
    } else if (field == "event") {
      event_.assign(value);
    } else if (field == "id") {
      if (value.find('\0') == std::string_view::npos) last_id_.assign(value);
    }
    // `retry:` and unknown fields are ignored: reconnection is not used for model calls.
  }

  void dispatch() {
    if (!has_data_) {
      reset_event();
      return;
    }
    SseEvent e;
    e.event = event_.empty() ? "message" : event_;
    e.data = std::move(data_);
    e.id = last_id_;
    reset_event();
    ++dispatched_;
    on_event_(e);
  }

  void reset_event() {
    data_.clear();
    event_.clear();
    has_data_ = false;
  }

  handler on_event_;
  std::size_t max_line_;
  std::string line_, data_, event_, last_id_;
  bool has_data_ = false;
  bool after_cr_ = false;
  bool at_start_ = true;
  std::size_t bom_matched_ = 0;
  std::size_t dispatched_ = 0;
};

}  // namespace socratic::http
