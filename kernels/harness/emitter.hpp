// The runner's protocol output: one JSON object per line on a private copy of the original
// stdout. main() then points file descriptor 1 at stderr, so whatever a candidate prints
// (printf, device printf) lands in the free-text stream and can never corrupt the protocol.
#pragma once

#include <cstdio>
#include <mutex>
#include <string>

#include <nlohmann/json.hpp>

namespace socratic::harness {

class Emitter {
 public:
  explicit Emitter(std::FILE* out) : out_(out) {}
  Emitter(const Emitter&) = delete;
  Emitter& operator=(const Emitter&) = delete;

  /// Writes `event` as one line and flushes (the host reads lines as they come).
  void line(const nlohmann::json& event) {
    const std::string text =
        event.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
    std::lock_guard<std::mutex> lock(mutex_);
    std::fwrite(text.data(), 1, text.size(), out_);
    std::fflush(out_);
  }

  void log(const std::string& message) { line({{"event", "log"}, {"message", message}}); }
  void fatal(const std::string& message) { line({{"event", "fatal"}, {"message", message}}); }

 private:
  std::FILE* out_;
  std::mutex mutex_;
};

}  // namespace socratic::harness
