#pragma once
/// @file
/// @brief Definitions of the process spawner (Boost.Process v2 over Asio). Included by
/// detail/child.hpp in header-only builds and by socratic/src.hpp in separate-compilation
/// builds; not meant to be included directly.

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>

#include <algorithm>
#include <array>
#include <chrono>
#include <exception>
#include <filesystem>
#include <functional>
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

#include "socratic/process/detail/child.hpp"

namespace socratic {

/// @brief Finds a program on PATH (or returns `name` when it contains a slash). Empty if absent.
SOCRATIC_DECL std::filesystem::path find_program(const std::string& name) {
  if (name.find('/') != std::string::npos) return name;
  namespace bpe = boost::process::v2::environment;
  return bpe::find_executable(name);
}

namespace detail {

/// In the child, before exec: its own process group (a timeout kills its children too), and
/// SIGKILL when the parent dies (a killed tool leaves no child behind). A parent that died
/// before the request took effect is caught by comparing the parent's pid. Only stdin, stdout and
/// stderr pass the exec: Boost 1.81 leaves its own copies of the pipes open in the child, and a
/// grandchild that inherits them keeps the output open after the child's exit (the caller then
/// waits out the drain grace for nothing).
struct child_lifetime {
  pid_t parent = ::getpid();
  template <class Launcher>
  boost::system::error_code on_exec_setup(Launcher&, const std::filesystem::path&, const char* const*) {
    ::setpgid(0, 0);
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(127);
    constexpr unsigned close_on_exec = 1u << 2;  // CLOSE_RANGE_CLOEXEC (Linux 5.11)
    if (::syscall(SYS_close_range, 3u, ~0u, close_on_exec) != 0)
      for (int fd = 3; fd < 1024; ++fd) ::fcntl(fd, F_SETFD, FD_CLOEXEC);
    return {};
  }
};

/// Ends the child's process group when this process dies, however it dies (SIGKILL included):
/// PR_SET_PDEATHSIG reaches only the child itself, so a shell's own children (a harness under
/// `sh -c`, nvcc's compilers) would live on under pid 1. The guard is a forked process (it never
/// execs) that joins the child's group and blocks on a pipe whose only writer is this process;
/// end of file (this process exited, or release()) makes it kill the group, itself included. As a
/// member it also keeps the group's id from being reused while this process may still signal it.
class group_guard {
 public:
  explicit group_guard(pid_t group) {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) return;  // no guard: the child still dies with this process
    const int open_max = static_cast<int>(std::min<long>(::sysconf(_SC_OPEN_MAX), 1 << 16));
    const pid_t pid = ::fork();
    if (pid == 0) watch(group, fds[0], open_max);  // never returns
    ::close(fds[0]);
    if (pid < 0) {
      ::close(fds[1]);
      return;
    }
    guard_ = pid;
    writer_ = fds[1];
  }
  group_guard(const group_guard&) = delete;
  group_guard& operator=(const group_guard&) = delete;
  ~group_guard() { release(); }

  /// Ends what is left of the group (grandchildren that outlived the child) and reaps the guard.
  void release() noexcept {
    if (guard_ <= 0) return;
    ::close(writer_);
    while (::waitpid(guard_, nullptr, 0) < 0 && errno == EINTR) {
    }
    guard_ = -1;
  }

 private:
  /// The guard's whole life, after fork() in a process that may have threads: system calls only.
  [[noreturn]] static void watch(pid_t group, int reader, int open_max) {
    struct sigaction ignore {};
    ignore.sa_handler = SIG_IGN;
    // The caller's handlers (a Ctrl-C notice) are not the guard's; a `kill 0` in the child's
    // script must not end the guard before the group.
    for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, SIGTSTP, SIGTTIN, SIGTTOU, SIGUSR1, SIGUSR2})
      ::sigaction(sig, &ignore, nullptr);
    // Only this process's copy of the writer may remain, or end of file would never come.
    if (::syscall(SYS_close_range, 0u, static_cast<unsigned>(reader) - 1u, 0u) != 0 ||
        ::syscall(SYS_close_range, static_cast<unsigned>(reader) + 1u, ~0u, 0u) != 0) {
      for (int fd = 0; fd < open_max; ++fd)
        if (fd != reader) ::close(fd);
    }
    // Not a member (the group is gone, or the child left it for a session of its own): its id
    // may be reused, so it is not signalled.
    if (::setpgid(0, group) != 0) ::_exit(0);
    ::prctl(PR_SET_NAME, "socratic-guard");  // what `ps` shows
    char byte;
    while (::read(reader, &byte, 1) < 0 && errno == EINTR) {
    }
    ::kill(-group, SIGKILL);
    ::_exit(0);
  }

  pid_t guard_ = -1;
  int writer_ = -1;
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
  boost::system::error_code on_setup(Launcher& launcher, const std::filesystem::path&, const char* const*) {
    launcher.env = pointers.data();
    return {};
  }
  std::vector<const char*> pointers;
};

/// Runs `spec` to its end, handing stdout and stderr chunks to the sinks. `on_stdout_closed`
/// runs once when stdout ends (a last line without its newline). Exceptions thrown by a sink
/// end the child and propagate after it has been reaped.
SOCRATIC_DECL child_outcome run_child(const child_spec& spec, const chunk_sink& on_stdout, const chunk_sink& on_stderr,
                                      const std::function<void()>& on_stdout_closed) {
  namespace asio = boost::asio;
  namespace bp = boost::process::v2;
  using clock = std::chrono::steady_clock;

  child_outcome result;
  const auto began = clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(clock::now() - began).count(); };
  if (spec.argv.empty()) {
    result.error = "empty command";
    return result;
  }
  const std::filesystem::path exe = find_program(spec.argv[0]);
  if (exe.empty()) {
    result.error = "program \"" + spec.argv[0] + "\" not found on PATH";
    return result;
  }

  asio::io_context ctx;
  asio::readable_pipe out_pipe(ctx), err_pipe(ctx);
  asio::writable_pipe in_pipe(ctx);
  const std::vector<std::string> env = spec.environment ? *spec.environment : scrubbed_environment();
  const std::vector<std::string> args(spec.argv.begin() + 1, spec.argv.end());

  std::optional<bp::process> child;
  try {
    const std::filesystem::path cwd = spec.working_dir.empty() ? std::filesystem::current_path() : spec.working_dir;
    child.emplace(ctx, exe, args, bp::process_stdio{in_pipe, out_pipe, err_pipe}, bp::process_start_dir{cwd},
                  child_environment{env}, child_lifetime{});
  } catch (const std::exception& e) {
    result.error = std::string("cannot start \"") + spec.argv[0] + "\": " + e.what();
    result.seconds = elapsed();
    return result;
  }
  result.started = true;
  const pid_t pid = child->id();
  group_guard guard(pid);

  std::array<char, 16384> out_buf{}, err_buf{};
  int open_streams = 2;
  bool exited = false;
  bool killed = false;
  std::exception_ptr sink_error;
  asio::steady_timer deadline(ctx), watchdog(ctx), drain(ctx);

  // Once we decide to end the child, nothing more it prints is believed (`killed`). A child
  // that already exited is not signalled: its pid may have been reused; the group may still
  // hold grandchildren, which the drain timer ends.
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
    if (spec.no_progress_timeout.count() <= 0) return;
    watchdog.expires_after(spec.no_progress_timeout);
    watchdog.async_wait([&](boost::system::error_code ec) {
      if (ec || exited || killed) return;
      result.watchdog_fired = true;
      kill_group();
    });
  };
  auto deliver = [&](const chunk_sink& sink, const char* data, std::size_t n, bool is_stdout) {
    if (!sink || (killed && is_stdout && !spec.keep_stdout_after_kill)) return;
    if (killed) {  // read what is left, but a dead child makes no progress and cannot stop twice
      try {
        (void)sink(data, n);
      } catch (...) {
        if (!sink_error) sink_error = std::current_exception();
      }
      return;
    }
    sink_action action = sink_action::proceed;
    try {
      action = sink(data, n);
    } catch (...) {
      if (!sink_error) sink_error = std::current_exception();
      action = sink_action::stop;
    }
    if (action == sink_action::stop) {
      result.stopped = true;
      kill_group();
    } else if (action == sink_action::progress) {
      arm_watchdog();
    }
  };

  std::function<void()> read_out, read_err;
  read_out = [&] {
    out_pipe.async_read_some(asio::buffer(out_buf), [&](boost::system::error_code ec, std::size_t n) {
      if (n) deliver(on_stdout, out_buf.data(), n, true);
      if (ec) {
        if (on_stdout_closed && !killed) {
          try {
            on_stdout_closed();
          } catch (...) {
            if (!sink_error) sink_error = std::current_exception();
          }
        }
        --open_streams;
        finish_if_done();
        return;
      }
      read_out();
    });
  };
  read_err = [&] {
    err_pipe.async_read_some(asio::buffer(err_buf), [&](boost::system::error_code ec, std::size_t n) {
      if (n) deliver(on_stderr, err_buf.data(), n, false);
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

  if (!spec.stdin_data.empty()) {
    asio::async_write(in_pipe, asio::buffer(spec.stdin_data), [&](boost::system::error_code, std::size_t) {
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
    // Grandchildren may keep the pipes open: give them a moment, then end them.
    drain.expires_after(spec.drain_grace);
    drain.async_wait([&](boost::system::error_code e) {
      if (e) return;
      ::kill(-pid, SIGKILL);  // the group's leader is reaped; its id stays the group's
      boost::system::error_code ignored;
      out_pipe.close(ignored);
      err_pipe.close(ignored);
    });
  });

  deadline.expires_after(spec.timeout);
  deadline.async_wait([&](boost::system::error_code ec) {
    if (ec || exited) return;  // cancelled, or exited: the drain timer ends the wait
    result.timed_out = true;
    kill_group();
  });

  ctx.run();
  child->detach();  // already reaped; keep the destructor from signalling a reused pid
  guard.release();  // nothing the child started outlives the call
  if (result.timed_out) {
    result.exit_code = -1;
    if (result.signal == 0) result.signal = SIGKILL;
  }
  result.seconds = elapsed();
  if (sink_error) std::rethrow_exception(sink_error);
  return result;
}

}  // namespace detail
}  // namespace socratic
