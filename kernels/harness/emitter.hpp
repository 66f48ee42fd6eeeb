// The runner's protocol output: one JSON object per line on a private copy of the original
// stdout. main() then points file descriptor 1 at stderr. The implementations run in worker
// processes that never hold this descriptor; each line also carries the run's token.
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

  /// Every line carries this run's token (given by the host in SOCRATIC_RUNNER_TOKEN): a line
  /// without it did not come from this runner.
  void set_token(std::string token) { token_ = std::move(token); }

  /// Writes `event` as one line and flushes (the host reads lines as they come).
  void line(nlohmann::json event) {
    if (!token_.empty()) event["token"] = token_;
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
  std::string token_;
};

}  // namespace socratic::harness
