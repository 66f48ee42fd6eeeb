#pragma once
/// @file
/// @brief The one process spawner behind run_process and stream_process: start a program with
/// pipes, in its own process group, set to die with its parent, its own children too (a guard
/// process ends the group when the caller dies, SIGKILL included); feed its stdin; hand its output
/// to sinks as it arrives; end it (its whole process group) at a timeout, at a no-progress
/// watchdog or when a sink says stop; and end what is left of the group when it returns. Internal. The declarations here are light; the
/// definitions (Boost.Process, Asio) are in impl/child.ipp, included below unless
/// `SOCRATIC_SEPARATE_COMPILATION` is defined (then socratic/src.hpp holds them, once).

#include <signal.h>
#include <sys/prctl.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <exception>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "socratic/detail/separate_compilation.hpp"
#include "socratic/process/environment.hpp"

namespace socratic {

/// @brief Finds a program on PATH (or returns `name` when it contains a slash). Empty if absent.
SOCRATIC_DECL std::filesystem::path find_program(const std::string& name);

namespace detail {

/// Keeps the first and last halves of a capped stream.
class capped_text {
 public:
  explicit capped_text(std::size_t cap) : cap_(cap) {}
  void append(const char* data, std::size_t n) {
    const std::size_t head_cap = cap_ / 2;
    while (n > 0 && head_.size() < head_cap) {
      head_.push_back(*data++);
      --n;
    }
    if (n == 0) return;
    tail_.append(data, n);
    const std::size_t tail_cap = cap_ - head_cap;
    if (tail_.size() > 2 * tail_cap + 4096) {  // trim rarely, not per byte
      dropped_ += tail_.size() - tail_cap;
      tail_.erase(0, tail_.size() - tail_cap);
    }
  }
  std::string str(bool& truncated) const {
    const std::size_t tail_cap = cap_ - cap_ / 2;
    std::size_t dropped = dropped_;
    std::string tail = tail_;
    if (tail.size() > tail_cap) {
      dropped += tail.size() - tail_cap;
      tail.erase(0, tail.size() - tail_cap);
    }
    truncated = dropped > 0;
    if (!truncated) return head_ + tail;
    return head_ + "\n[... " + std::to_string(dropped) + " bytes omitted ...]\n" + tail;
  }

 private:
  std::size_t cap_;
  std::string head_, tail_;
  std::size_t dropped_ = 0;
};

/// What a sink wants after a piece of output.
enum class sink_action {
  proceed,   ///< keep reading
  progress,  ///< keep reading, and the child made progress (re-arms the watchdog)
  stop,      ///< end the child now
};

/// How to run a child.
struct child_spec {
  std::vector<std::string> argv;  ///< program first
  std::filesystem::path working_dir;
  std::optional<std::vector<std::string>> environment;  ///< nullopt: the caller's, secrets removed
  std::string stdin_data;  ///< written, then stdin is closed (empty: closed at once)
  std::chrono::milliseconds timeout{std::chrono::minutes(10)};
  std::chrono::milliseconds no_progress_timeout{0};  ///< watchdog; zero disables it
  std::chrono::milliseconds drain_grace{500};  ///< wait for the pipes after the exit (grandchildren)
  /// Stdout read after the child was ended still reaches its sink (a log wants it; a protocol
  /// reader must not believe it). Stderr always does.
  bool keep_stdout_after_kill = false;
};

/// How a child ended.
struct child_outcome {
  bool started = false;
  std::string error;  ///< why it could not be started
  int exit_code = -1;
  int signal = 0;
  bool timed_out = false;
  bool watchdog_fired = false;
  bool stopped = false;  ///< a sink asked to stop
  double seconds = 0;
};

using chunk_sink = std::function<sink_action(const char* data, std::size_t n)>;

/// Runs `spec` to its end, handing stdout and stderr chunks to the sinks. `on_stdout_closed`
/// runs once when stdout ends (a last line without its newline). Exceptions thrown by a sink
/// end the child and propagate after it has been reaped.
SOCRATIC_DECL child_outcome run_child(const child_spec& spec, const chunk_sink& on_stdout, const chunk_sink& on_stderr,
                                      const std::function<void()>& on_stdout_closed = {});

}  // namespace detail
}  // namespace socratic

#ifndef SOCRATIC_SEPARATE_COMPILATION
#include "socratic/process/impl/child.ipp"
#endif
