#pragma once
/// @file
/// @brief stream_process: run_process's streaming companion. Hands each stdout line to a
/// callback as it arrives, with an overall timeout, a no-progress watchdog (no complete stdout
/// line for N seconds kills the child), a line-length cap, a total-output cap and a capped
/// stderr. The evaluator reads its runner through it. Heavy (Boost.Process, Asio).

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
  namespace asio = boost::asio;
  namespace bp = boost::process::v2;
  using clock = std::chrono::steady_clock;

  StreamResult result;
  const auto began = clock::now();
  if (argv.empty()) {
    result.error = "empty command";
    return result;
  }
  const std::filesystem::path exe = find_program(argv[0]);
  if (exe.empty()) {
    result.error = "program \"" + argv[0] + "\" not found on PATH";
    return result;
  }

  asio::io_context ctx;
  asio::readable_pipe out_pipe(ctx), err_pipe(ctx);
  asio::writable_pipe in_pipe(ctx);
  const std::vector<std::string> env =
      options.environment ? *options.environment : scrubbed_environment();
  std::vector<std::string> args(argv.begin() + 1, argv.end());

  std::optional<bp::process> child;
  try {
    const std::filesystem::path cwd =
        options.working_dir.empty() ? std::filesystem::current_path() : options.working_dir;
    child.emplace(ctx, exe, args, bp::process_stdio{in_pipe, out_pipe, err_pipe},
                  bp::process_start_dir{cwd}, detail::child_environment{env},
                  detail::own_process_group{});
  } catch (const std::exception& e) {
    result.error = std::string("cannot start \"") + argv[0] + "\": " + e.what();
    result.seconds = std::chrono::duration<double>(clock::now() - began).count();
    return result;
  }
  result.started = true;
  const pid_t pid = child->id();
  {
    boost::system::error_code ignored;
    in_pipe.close(ignored);  // the child reads nothing from us
  }

  detail::capped_text err_text(options.max_stderr_bytes);
  std::array<char, 16384> out_buf{}, err_buf{};
  std::string line;          // the line being assembled
  bool line_cut = false;     // the current line passed max_line_bytes
  int open_streams = 2;
  bool exited = false;
  bool killed = false;
  std::exception_ptr callback_error;
  asio::steady_timer deadline(ctx), watchdog(ctx), drain(ctx);

  // Once we decide to end the child, nothing more it prints is believed (`killed`). A child
  // that already exited is not signalled: its pid may have been reused.
  auto kill_group = [&] {
    if (killed) return;
    killed = true;
    if (exited) return;
    ::kill(-pid, SIGKILL);
    ::kill(pid, SIGKILL);
  };
  auto finish_if_done = [&] {
    if (exited && open_streams == 0) {
      deadline.cancel();
      watchdog.cancel();
      drain.cancel();
    }
  };
  std::function<void()> arm_watchdog = [&] {
    if (options.no_output_timeout.count() <= 0) return;
    watchdog.expires_after(options.no_output_timeout);
    watchdog.async_wait([&](boost::system::error_code ec) {
      if (ec || exited || killed) return;
      result.watchdog_fired = true;
      kill_group();
    });
  };
  auto deliver = [&](bool truncated) {
    if (killed) return;
    ++result.lines;
    StreamAction action = StreamAction::proceed;
    try {
      action = on_line(line, truncated);
    } catch (...) {
      callback_error = std::current_exception();
      action = StreamAction::stop;
    }
    if (action == StreamAction::stop) {
      result.stopped = true;
      kill_group();
      return;
    }
    arm_watchdog();  // a complete line is progress
  };
  auto consume = [&](const char* data, std::size_t n) {
    result.stdout_bytes += n;
    if (result.stdout_bytes > options.max_stdout_bytes && !killed) {
      result.output_limit = true;
      kill_group();
      return;
    }
    for (std::size_t i = 0; i < n; ++i) {
      const char c = data[i];
      if (c == '\n') {
        if (!line.empty() && line.back() == '\r') line.pop_back();
        deliver(line_cut);
        line.clear();
        line_cut = false;
      } else if (line.size() < options.max_line_bytes) {
        line.push_back(c);
      } else {
        line_cut = true;
      }
    }
  };

  std::function<void()> read_out, read_err;
  read_out = [&] {
    out_pipe.async_read_some(asio::buffer(out_buf), [&](boost::system::error_code ec, std::size_t n) {
      if (n) consume(out_buf.data(), n);
      if (ec) {
        if (!line.empty() || line_cut) deliver(line_cut);  // last line without a newline
        line.clear();
        --open_streams;
        finish_if_done();
        return;
      }
      read_out();
    });
  };
  read_err = [&] {
    err_pipe.async_read_some(asio::buffer(err_buf), [&](boost::system::error_code ec, std::size_t n) {
      if (n) err_text.append(err_buf.data(), n);
      if (ec) {
        --open_streams;
        finish_if_done();
        return;
      }
      read_err();
    });
  };
  read_out();
  read_err();
  arm_watchdog();

  // The handle's wait gives the raw wait status (process::async_wait would drop the signal).
  child->handle().async_wait([&](boost::system::error_code ec, int code) {
    exited = true;
    watchdog.cancel();
    if (!ec) {
      if (WIFEXITED(code)) {
        result.exit_code = WEXITSTATUS(code);
      } else if (WIFSIGNALED(code)) {
        result.signal = WTERMSIG(code);
        result.exit_code = -1;
      } else {
        result.exit_code = code;
      }
    }
    if (open_streams == 0) {
      finish_if_done();
      return;
    }
    drain.expires_after(options.drain_grace);
    drain.async_wait([&](boost::system::error_code e) {
      if (e) return;
      ::kill(-pid, SIGKILL);  // grandchildren holding the pipes
      boost::system::error_code ignored;
      out_pipe.close(ignored);
      err_pipe.close(ignored);
    });
  });

  deadline.expires_after(options.timeout);
  deadline.async_wait([&](boost::system::error_code ec) {
    if (ec || exited) return;  // after the exit, the drain timer ends the wait
    result.timed_out = true;
    kill_group();
  });

  ctx.run();
  child->detach();  // already reaped; keep the destructor from signalling a reused pid
  result.stderr_text = err_text.str(result.stderr_truncated);
  result.seconds = std::chrono::duration<double>(clock::now() - began).count();
  if (callback_error) std::rethrow_exception(callback_error);
  return result;
}

}  // namespace socratic
