#pragma once
/// @file
/// @brief stream_process: the line-by-line call style of the one spawner (detail/child.hpp, as
/// run_process). Hands each stdout line to a callback as it arrives, with an overall timeout, a
/// no-progress watchdog (no complete stdout line for N seconds kills the child), a line-length
/// cap, a total-output cap and a capped stderr; the child's process group is killed at the end,
/// and the child dies with its parent. The evaluator reads its runner through it. Heavy
/// (Boost.Process, Asio).

#include <signal.h>
#include <sys/types.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "socratic/process/run_process.hpp"

namespace socratic {

/// @brief What a line callback wants next.
enum class StreamAction { proceed, stop };

/// @brief How to run a streaming process.
struct StreamOptions {
  std::filesystem::path working_dir;  ///< empty: the caller's
  /// Full environment of the child ("NAME=value"). nullopt: the caller's, secrets removed.
  std::optional<std::vector<std::string>> environment;
  /// Overall limit; the child (and its process group) is killed when it is reached.
  std::chrono::milliseconds timeout{std::chrono::minutes(30)};
  /// Watchdog: the longest the child may go without completing a stdout line. Zero disables it.
  std::chrono::milliseconds no_output_timeout{std::chrono::seconds(60)};
  /// A longer line is cut to this size and handed over with `truncated` set.
  std::size_t max_line_bytes = 1 << 20;
  /// Total stdout allowed; beyond it the child is killed (a runaway printer cannot stall the
  /// caller until the overall timeout).
  std::size_t max_stdout_bytes = std::size_t(256) << 20;
  std::size_t max_stderr_bytes = 1 << 20;  ///< stderr kept (head and tail)
  /// Time to wait for the pipes to close after the child exits (grandchildren may hold them).
  std::chrono::milliseconds drain_grace{500};
  /// Written to the child's standard input, which is then closed (empty: closed at once). The
  /// evaluator hands the runner its options this way, out of every other process's sight.
  std::string stdin_data;
};

/// @brief How a streaming process ended.
struct StreamResult {
  int exit_code = -1;            ///< exit status, or -1 when killed by a signal or not started
  int signal = 0;                ///< the signal that ended it, if any
  bool started = false;          ///< false when the program could not be started (see `error`)
  bool timed_out = false;        ///< killed at the overall timeout
  bool watchdog_fired = false;   ///< killed for going `no_output_timeout` without a line
  bool output_limit = false;     ///< killed for printing more than `max_stdout_bytes`
  bool stopped = false;          ///< killed because the callback returned StreamAction::stop
  std::string error;             ///< why it could not be started
  std::string stderr_text;       ///< capped head and tail
  bool stderr_truncated = false;
  std::size_t lines = 0;         ///< stdout lines handed to the callback
  std::size_t stdout_bytes = 0;  ///< stdout bytes read
  double seconds = 0;

  bool ok() const noexcept {
    return started && !timed_out && !watchdog_fired && !output_limit && !stopped && signal == 0 &&
           exit_code == 0;
  }
  /// @brief One line saying how it ended.
  std::string describe(const StreamOptions& options = {}) const;
};

/// @brief "11 (SIGSEGV)" for the common signals, "N" for the others.
inline std::string describe_signal(int sig) {
  static constexpr std::pair<int, const char*> names[] = {
      {SIGSEGV, "SIGSEGV"}, {SIGABRT, "SIGABRT"}, {SIGBUS, "SIGBUS"},   {SIGFPE, "SIGFPE"},
      {SIGILL, "SIGILL"},   {SIGKILL, "SIGKILL"}, {SIGTERM, "SIGTERM"}, {SIGINT, "SIGINT"},
      {SIGPIPE, "SIGPIPE"}, {SIGTRAP, "SIGTRAP"}, {SIGXCPU, "SIGXCPU"}, {SIGHUP, "SIGHUP"},
      {SIGQUIT, "SIGQUIT"}, {SIGSYS, "SIGSYS"},   {SIGXFSZ, "SIGXFSZ"}, {SIGALRM, "SIGALRM"}};
  for (const auto& [number, name] : names)
    if (number == sig) return std::to_string(sig) + " (" + name + ")";
  return std::to_string(sig);
}

namespace detail {
inline std::string format_seconds(std::chrono::milliseconds ms) {
  const double s = static_cast<double>(ms.count()) / 1000.0;
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", s);
  return buf;
}
}  // namespace detail

inline std::string StreamResult::describe(const StreamOptions& options) const {
  if (!started) return "could not start: " + error;
  if (watchdog_fired)
    return "no output for " + detail::format_seconds(options.no_output_timeout) +
           " s: watchdog killed it";
  if (timed_out)
    return "ran past its timeout of " + detail::format_seconds(options.timeout) +
           " s and was killed";
  if (output_limit)
    return "printed more than " + std::to_string(options.max_stdout_bytes) +
           " bytes on stdout and was killed";
  if (stopped) return "stopped by the caller";
  if (signal) return "killed by signal " + describe_signal(signal);
  return "exited with code " + std::to_string(exit_code);
}

/// @brief Runs `argv` (program first), calling `on_line` with each stdout line (without its
/// newline) as soon as it is complete. Never throws for a failure of the child; a program that
/// cannot be started gives `started == false`. Exceptions thrown by `on_line` kill the child and
/// propagate.
inline StreamResult stream_process(
    const std::vector<std::string>& argv,
    const std::function<StreamAction(std::string_view line, bool truncated)>& on_line,
    const StreamOptions& options = {}) {
  detail::child_spec spec;
  spec.argv = argv;
  spec.working_dir = options.working_dir;
  spec.environment = options.environment;
  spec.timeout = options.timeout;
  spec.no_progress_timeout = options.no_output_timeout;
  spec.drain_grace = options.drain_grace;
  spec.stdin_data = options.stdin_data;

  StreamResult result;
  detail::capped_text err_text(options.max_stderr_bytes);
  std::string line;       // the line being assembled
  bool line_cut = false;  // the current line passed max_line_bytes
  bool progressed = false;
  // Hands over the line; false when the callback wants the child ended.
  auto deliver = [&](bool truncated) {
    ++result.lines;
    return on_line(line, truncated) == StreamAction::proceed;
  };
  const detail::child_outcome o = detail::run_child(
      spec,
      [&](const char* data, std::size_t n) {
        result.stdout_bytes += n;
        if (result.stdout_bytes > options.max_stdout_bytes) {
          result.output_limit = true;
          return detail::sink_action::stop;
        }
        progressed = false;
        for (std::size_t i = 0; i < n; ++i) {
          const char c = data[i];
          if (c == '\n') {
            if (!line.empty() && line.back() == '\r') line.pop_back();
            const bool go_on = deliver(line_cut);
            line.clear();
            line_cut = false;
            if (!go_on) return detail::sink_action::stop;
            progressed = true;  // a complete line is progress
          } else if (line.size() < options.max_line_bytes) {
            line.push_back(c);
          } else {
            line_cut = true;
          }
        }
        return progressed ? detail::sink_action::progress : detail::sink_action::proceed;
      },
      [&](const char* data, std::size_t n) {
        err_text.append(data, n);
        return detail::sink_action::proceed;
      },
      [&] {  // a last line without its newline
        if (!line.empty() || line_cut) deliver(line_cut);
        line.clear();
      });
  result.started = o.started;
  result.error = o.error;
  result.exit_code = o.exit_code;
  result.signal = o.signal;
  result.timed_out = o.timed_out;
  result.watchdog_fired = o.watchdog_fired;
  result.stopped = o.stopped && !result.output_limit;
  result.seconds = o.seconds;
  result.stderr_text = err_text.str(result.stderr_truncated);
  return result;
}

}  // namespace socratic
