#pragma once
/// @file
/// @brief run_process: run a command with a timeout, output caps (head and tail kept), a chosen
/// environment and working folder. The one way Socratic starts nvcc, the runner, shells and
/// agent CLIs. Heavy (Boost.Process, Asio): include only where a process is started.

#include <signal.h>
#include <sys/types.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

// Boost 1.81's Process v2 needs these before it when told to use std::filesystem.
#include <boost/optional.hpp>
#include <boost/version.hpp>
#include <boost/type_traits/remove_pointer.hpp>
#ifndef BOOST_PROCESS_USE_STD_FS
#define BOOST_PROCESS_USE_STD_FS 1
#endif
#include <boost/asio/io_context.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/readable_pipe.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/writable_pipe.hpp>
#include <boost/asio/write.hpp>
#include <boost/process/v2/environment.hpp>
#include <boost/process/v2/process.hpp>
#include <boost/process/v2/start_dir.hpp>
#include <boost/process/v2/stdio.hpp>

#include "socratic/core/error.hpp"
#include "socratic/process/environment.hpp"

namespace socratic {

/// @brief How to run a process.
struct ProcessOptions {
  std::filesystem::path working_dir;  ///< empty: the caller's
  /// Full environment of the child ("NAME=value" entries). nullopt: the caller's environment
  /// with secrets removed (see scrubbed_environment()).
  std::optional<std::vector<std::string>> environment;
  std::string stdin_data;                              ///< written to the child's stdin, then closed
  std::chrono::milliseconds timeout{std::chrono::minutes(10)};
  std::size_t max_output_bytes = 1 << 20;  ///< per stream; beyond it the middle is dropped
  /// Time to wait for the pipes to close after the child exits (grandchildren may hold them).
  std::chrono::milliseconds drain_grace{500};
};

/// @brief What happened.
struct ProcessResult {
  int exit_code = -1;       ///< exit status, or -1 when killed by a signal or not started
  int signal = 0;           ///< the signal that ended it, if any
  bool timed_out = false;   ///< killed at the timeout
  bool started = false;     ///< false when the program could not be started (see `error`)
  std::string error;        ///< why it could not be started
  std::string stdout_text;  ///< head and tail when capped
  std::string stderr_text;
  bool stdout_truncated = false;
  bool stderr_truncated = false;
  double seconds = 0;

  bool ok() const noexcept { return started && !timed_out && signal == 0 && exit_code == 0; }
  /// @brief One line saying how it ended, for logs and error messages.
  std::string describe() const {
    if (!started) return "could not start: " + error;
    if (timed_out) return "timed out after " + std::to_string(seconds) + " s and was killed";
    if (signal) return "killed by signal " + std::to_string(signal);
    return "exited with code " + std::to_string(exit_code);
  }
};

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

/// Puts the child in its own process group, so a timeout kills its children too.
struct own_process_group {
  template <class Launcher>
  boost::system::error_code on_exec_setup(Launcher&, const std::filesystem::path&,
                                          const char* const*) {
    ::setpgid(0, 0);
    return {};
  }
};

/// Sets the child's environment. (Boost 1.81's process_environment has no header-only
/// definition of its setup hook, so it links only with separate compilation.)
struct child_environment {
  explicit child_environment(const std::vector<std::string>& entries) {
    pointers.reserve(entries.size() + 1);
    for (const auto& e : entries) pointers.push_back(e.c_str());
    pointers.push_back(nullptr);
  }
  template <class Launcher>
  boost::system::error_code on_setup(Launcher& launcher, const std::filesystem::path&,
                                     const char* const*) {
    launcher.env = pointers.data();
    return {};
  }
  std::vector<const char*> pointers;
};

}  // namespace detail

/// @brief Finds a program on PATH (or returns `name` when it contains a slash). Empty if absent.
inline std::filesystem::path find_program(const std::string& name) {
  if (name.find('/') != std::string::npos) return name;
  namespace bpe = boost::process::v2::environment;
  return bpe::find_executable(name);
}

/// @brief Runs `argv` (program first) and returns how it ended. Never throws for a failure of
/// the child; a program that cannot be started gives `started == false`.
inline ProcessResult run_process(const std::vector<std::string>& argv,
                                 const ProcessOptions& options = {}) {
  namespace asio = boost::asio;
  namespace bp = boost::process::v2;
  using clock = std::chrono::steady_clock;

  ProcessResult result;
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

  detail::capped_text out_text(options.max_output_bytes), err_text(options.max_output_bytes);
  std::array<char, 16384> out_buf{}, err_buf{};
  int open_streams = 2;
  bool exited = false;
  asio::steady_timer deadline(ctx), drain(ctx);

  auto kill_group = [pid] {
    ::kill(-pid, SIGKILL);
    ::kill(pid, SIGKILL);
  };
  auto finish_if_done = [&] {
    if (exited && open_streams == 0) {
      deadline.cancel();
      drain.cancel();
    }
  };

  std::function<void()> read_out, read_err;
  read_out = [&] {
    out_pipe.async_read_some(asio::buffer(out_buf), [&](boost::system::error_code ec, std::size_t n) {
      if (n) out_text.append(out_buf.data(), n);
      if (ec) {
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

  if (!options.stdin_data.empty()) {
    asio::async_write(in_pipe, asio::buffer(options.stdin_data),
                      [&](boost::system::error_code, std::size_t) {
                        boost::system::error_code ignored;
                        in_pipe.close(ignored);
                      });
  } else {
    boost::system::error_code ignored;
    in_pipe.close(ignored);
  }

  // The handle's wait gives the raw wait status (process::async_wait would drop the signal).
  child->handle().async_wait([&](boost::system::error_code ec, int code) {
    exited = true;
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
    // Grandchildren may keep the pipes open: give them a moment, then end them.
    drain.expires_after(options.drain_grace);
    drain.async_wait([&](boost::system::error_code e) {
      if (e) return;
      kill_group();
      boost::system::error_code ignored;
      out_pipe.close(ignored);
      err_pipe.close(ignored);
    });
  });

  deadline.expires_after(options.timeout);
  deadline.async_wait([&](boost::system::error_code ec) {
    if (ec) return;  // cancelled: finished in time
    if (exited && open_streams == 0) return;
    if (!exited) result.timed_out = true;
    kill_group();
  });

  ctx.run();
  child->detach();  // already reaped; keep the destructor from signalling a reused pid
  if (result.timed_out) {
    result.exit_code = -1;
    if (result.signal == 0) result.signal = SIGKILL;
  }
  result.stdout_text = out_text.str(result.stdout_truncated);
  result.stderr_text = err_text.str(result.stderr_truncated);
  result.seconds = std::chrono::duration<double>(clock::now() - began).count();
  return result;
}

}  // namespace socratic
