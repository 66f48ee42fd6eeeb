// The judge's end of one worker: starts the worker process (this executable again, in worker
// mode), talks to it over a SOCK_SEQPACKET socket pair (worker_wire.hpp), stops and resumes
// it, and says in words why it died. Plain C++17 (Linux), unit-tested without a GPU with a fake
// worker (tests/gpu/fake_worker.cpp).
//
// The worker gets nothing of the judge's: a fresh channel on descriptor 3, /dev/null on 0, the
// judge's stderr on 1 and 2, every other descriptor closed, the environment it is given, and
// SIGKILL when the judge dies (PR_SET_PDEATHSIG, checked against a race with getppid); both
// workers run on one CPU (worker_cpus).
#pragma once

#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <vector>

#include "sandbox_filter.hpp"
#include "worker_wire.hpp"

namespace socratic::harness {

/// The one CPU both workers run on. A worker's timed interval holds its host-side launch work (a
/// few microseconds, next to kernels of 10-40 us), and the two workers never run at once (the
/// other is stopped), so they launch from the same core: otherwise a faster core, or one nearer
/// the GPU, shows as a speedup. The lowest CPU the judge may use other than the one it is on when
/// the first worker starts (its own when it has no other); empty when the mask cannot be read.
inline cpu_set_t worker_cpus() {
  static const cpu_set_t chosen = [] {
    cpu_set_t allowed, one;
    CPU_ZERO(&allowed);
    CPU_ZERO(&one);
    if (sched_getaffinity(0, sizeof allowed, &allowed) != 0) return one;
    const int current = sched_getcpu();
    int pick = -1;
    for (int c = 0; c < CPU_SETSIZE && pick < 0; ++c)
      if (CPU_ISSET(c, &allowed) && c != current) pick = c;
    if (pick < 0 && current >= 0) pick = current;
    if (pick >= 0) CPU_SET(pick, &one);
    return one;
  }();
  return chosen;
}

/// What went wrong with a worker, in the words a report needs.
struct WorkerFailure : std::runtime_error {
  enum class Kind {
    died,      ///< it exited, was killed, or closed its channel
    sandbox,   ///< it attempted a system call the sandbox refuses (and was stopped)
    protocol,  ///< it sent something the wire does not allow at that point
    timeout,   ///< no answer in time
    error,     ///< it reported an error of its own (an `error` message)
  };
  WorkerFailure(Kind k, const std::string& what, std::string who = {})
      : std::runtime_error(what), kind(k), role(std::move(who)) {}
  Kind kind;
  std::string role;  ///< the worker's role ("candidate", "baseline"), set by its link
};

/// The descriptor number the worker finds its channel on.
constexpr int worker_channel_fd = 3;

class WorkerLink {
 public:
  WorkerLink() = default;
  WorkerLink(const WorkerLink&) = delete;
  WorkerLink& operator=(const WorkerLink&) = delete;
  WorkerLink(WorkerLink&& o) noexcept { *this = std::move(o); }
  WorkerLink& operator=(WorkerLink&& o) noexcept {
    if (this != &o) {
      kill_and_reap();
      role_ = std::move(o.role_);
      tag_ = std::move(o.tag_);
      reaped_status_ = o.reaped_status_;
      pid_ = o.pid_;
      fd_ = o.fd_;
      seq_ = o.seq_;
      stopped_ = o.stopped_;
      o.pid_ = -1;
      o.fd_ = -1;
    }
    return *this;
  }
  ~WorkerLink() { kill_and_reap(); }

  /// Starts `argv[0]` with `argv` and `environment` ("NAME=value"). `role` names it in messages
  /// ("the candidate's worker"), `tag` in failures ("candidate"). Throws std::runtime_error when
  /// it cannot be started.
  static WorkerLink spawn(const std::vector<std::string>& argv,
                          const std::vector<std::string>& environment, std::string role,
                          std::string tag = {}) {
    if (argv.empty()) throw std::invalid_argument("WorkerLink::spawn: empty argv");
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0)
      throw std::runtime_error("socketpair: " + std::string(std::strerror(errno)));
    // Everything the child touches between fork and exec is prepared here (no allocation there).
    std::vector<char*> args, envs;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    for (const auto& e : environment) envs.push_back(const_cast<char*>(e.c_str()));
    envs.push_back(nullptr);
    const pid_t parent = getpid();
    const cpu_set_t cpus = worker_cpus();
    const pid_t pid = fork();
    if (pid < 0) {
      const int e = errno;
      close(sv[0]);
      close(sv[1]);
      throw std::runtime_error("fork: " + std::string(std::strerror(e)));
    }
    if (pid == 0) {
      prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (getppid() != parent) _exit(126);  // the judge died before the line above
      const int devnull = open("/dev/null", O_RDONLY);
      if (devnull < 0 || dup2(devnull, 0) < 0 || dup2(2, 1) < 0 ||
          dup2(sv[1], worker_channel_fd) < 0)
        _exit(125);
      // Close everything else (the judge's protocol descriptor above all).
#ifdef SYS_close_range
      if (syscall(SYS_close_range, worker_channel_fd + 1, ~0u, 0) != 0)
#endif
        for (int fd = worker_channel_fd + 1; fd < 65536; ++fd) close(fd);
      execve(args[0], args.data(), envs.data());
      _exit(127);
    }
    close(sv[1]);
    // Set from here, so that it holds when spawn returns (best effort: a mask the kernel refuses
    // leaves the worker where the scheduler puts it).
    if (CPU_COUNT(&cpus) > 0) sched_setaffinity(pid, sizeof cpus, &cpus);
    WorkerLink w;
    w.role_ = std::move(role);
    w.tag_ = std::move(tag);
    w.pid_ = pid;
    w.fd_ = sv[0];
    return w;
  }

  pid_t pid() const { return pid_; }
  const std::string& role() const { return role_; }
  bool alive() const { return pid_ > 0; }

  /// Sends a request; returns its sequence number (the reply must carry it).
  std::uint64_t send(wire::Type type, const std::string& payload = {}) {
    const std::uint64_t seq = ++seq_;
    const std::string bytes = wire::encode(type, seq, payload.data(), payload.size());
    ssize_t n;
    do {
      n = ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    } while (n < 0 && errno == EINTR);
    if (n != static_cast<ssize_t>(bytes.size())) throw died("while the judge was sending it a request");
    return seq;
  }
  template <class T>
  std::uint64_t send_value(wire::Type type, const T& value) {
    return send(type, std::string(reinterpret_cast<const char*>(&value), sizeof value));
  }

  /// Waits for the answer to `seq`, one of `allowed`. It spins (no sleep) for `spin` first, for
  /// the answers the judge times. An `error` answer throws WorkerFailure::error with the
  /// worker's text; anything else that does not fit throws protocol.
  wire::Message receive(std::uint64_t seq, std::initializer_list<wire::Type> allowed,
                        std::chrono::milliseconds timeout,
                        std::chrono::microseconds spin = std::chrono::microseconds(0)) {
    using clock = std::chrono::steady_clock;
    const auto began = clock::now();
    const auto deadline = began + timeout;
    std::string buffer(wire::max_message_bytes + 1, '\0');
    for (;;) {
      const bool spinning = clock::now() - began < spin;
      if (!spinning) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - clock::now());
        if (left.count() <= 0)
          throw failure(WorkerFailure::Kind::timeout,
                              role_ + " gave no answer within " +
                                  std::to_string(timeout.count() / 1000.0) + " s");
        pollfd p{fd_, POLLIN, 0};
        const int r = poll(&p, 1, static_cast<int>(std::min<long long>(left.count(), 1000)));
        if (r < 0 && errno != EINTR) throw died("(poll failed)");
        if (r <= 0) continue;
      }
      const ssize_t n = recv(fd_, buffer.data(), buffer.size(), MSG_DONTWAIT);
      if (n < 0) {
        if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) continue;
        throw died("(its channel failed: " + std::string(std::strerror(errno)) + ")");
      }
      if (n == 0) throw died("");
      return check(buffer.data(), static_cast<std::size_t>(n), seq, allowed);
    }
  }

  /// Throws when a message is waiting that nobody asked for (a worker that answers twice, or
  /// writes to its channel on its own): called before every request that is timed.
  void assert_quiet() {
    char buffer[256];
    const ssize_t n = recv(fd_, buffer, sizeof buffer, MSG_DONTWAIT | MSG_PEEK | MSG_TRUNC);
    if (n < 0) return;  // nothing waiting (EAGAIN) or nothing to say about it here
    if (n == 0) throw died("");
    const ssize_t got = recv(fd_, buffer, sizeof buffer, MSG_DONTWAIT | MSG_TRUNC);
    if (refusal(buffer, static_cast<std::size_t>(got))) refused(buffer);
    std::string what = "a message of " + std::to_string(got) + " bytes that answers no request";
    try {
      const auto m = wire::decode(buffer, std::min<std::size_t>(static_cast<std::size_t>(got), sizeof buffer));
      what = std::string("an unrequested ") + wire::type_name(m.type) + " message (sequence " +
             std::to_string(m.seq) + ")";
    } catch (const wire::ProtocolError&) {
    }
    throw failure(WorkerFailure::Kind::protocol, role_ + " sent " + what);
  }

  /// SIGSTOP, and wait until it is stopped: it cannot launch anything until resume().
  void stop() {
    if (stopped_ || pid_ <= 0) return;
    if (kill(pid_, SIGSTOP) != 0) throw died("(it could not be stopped)");
    int status = 0;
    pid_t r;
    do {
      r = waitpid(pid_, &status, WUNTRACED);
    } while (r < 0 && errno == EINTR);
    if (r == pid_ && !WIFSTOPPED(status)) {
      reaped_status_ = status;
      pid_ = -pid_;  // remembered for the message, never signalled again
      throw died("");
    }
    stopped_ = true;
  }
  void resume() {
    if (!stopped_ || pid_ <= 0) return;
    kill(pid_, SIGCONT);
    int status = 0;
    pid_t r;
    do {
      r = waitpid(pid_, &status, WCONTINUED);
    } while (r < 0 && errno == EINTR);
    stopped_ = false;
  }

  /// Ends the worker: `quit` when it is healthy, SIGKILL in any case, then reaps it.
  void kill_and_reap() {
    if (fd_ >= 0) {
      close(fd_);
      fd_ = -1;
    }
    if (pid_ > 0) {
      kill(pid_, SIGKILL);
      int status = 0;
      while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
      }
    }
    pid_ = -1;
  }

 private:
  static bool refusal(const char* data, std::size_t n) {
    if (n != sizeof(SandboxRefusalRecord)) return false;
    SandboxRefusalRecord r;
    std::memcpy(&r, data, sizeof r);
    return r.magic == SandboxRefusalRecord{}.magic;
  }

  [[noreturn]] void refused(const char* data) {
    SandboxRefusalRecord r;
    std::memcpy(&r, data, sizeof r);
    reap();
    throw failure(WorkerFailure::Kind::sandbox,
                        role_ + " attempted the system call " + sandbox_syscall_name(r.syscall_nr) +
                            ", which the sandbox refuses (" + refusal_detail(r) +
                            "); the worker was stopped");
  }

  static std::string refusal_detail(const SandboxRefusalRecord& r) {
    const std::string name = sandbox_syscall_name(r.syscall_nr);
    if (name == "mprotect" || name == "pkey_mprotect" || name == "mmap")
      return "memory may not become executable";
    if (name == "openat" || name == "open") return "files open read-only";
    if (name == "clone" || name == "fork" || name == "vfork") return "no threads or processes";
    if (name == "rt_sigaction" || name == "setitimer" || name == "timer_create" || name == "alarm")
      return "no signal handlers or timers";
    if (name == "ptrace" || name == "process_vm_writev" || name == "process_vm_readv" ||
        name == "kill" || name == "tgkill")
      return "no access to other processes";
    if (name == "socket" || name == "connect") return "no network";
    return "not allowed in a worker";
  }

  wire::Message check(const char* data, std::size_t n, std::uint64_t seq,
                      std::initializer_list<wire::Type> allowed) {
    if (refusal(data, n)) refused(data);
    if (n > wire::max_message_bytes)
      throw failure(WorkerFailure::Kind::protocol,
                          role_ + " sent a message longer than " +
                              std::to_string(wire::max_message_bytes) + " bytes");
    try {
      wire::Message m = wire::decode(data, n);
      wire::expect(m, seq, allowed);
      if (m.type == wire::Type::done) wire::call_reply(m);  // its numbers, checked here once
      if (m.type == wire::Type::error)
        throw failure(WorkerFailure::Kind::error, role_ + ": " + wire::error_text(m));
      return m;
    } catch (const wire::ProtocolError& e) {
      throw failure(WorkerFailure::Kind::protocol, role_ + " sent " + e.what());
    }
  }

  // The worker is gone (or closed its channel): reap it and say how it ended. Killed by SIGSYS
  // is a refusal too: the kernel delivers it that way when the call was made with signals
  // blocked (glibc blocks them around clone), so the reporter never ran.
  WorkerFailure died(const std::string& when) {
    const std::string how = reap();
    const bool sigsys = WIFSIGNALED(reaped_status_) && WTERMSIG(reaped_status_) == SIGSYS;
    const bool reporter = WIFEXITED(reaped_status_) && WEXITSTATUS(reaped_status_) == sandbox_exit_code;
    return failure(sigsys || reporter ? WorkerFailure::Kind::sandbox : WorkerFailure::Kind::died,
                   role_ + " " + how + (when.empty() ? "" : " " + when));
  }

  WorkerFailure failure(WorkerFailure::Kind kind, const std::string& what) const {
    return WorkerFailure(kind, what, tag_);
  }

  std::string reap() {
    int status = reaped_status_;
    if (pid_ > 0) {
      // A worker that closed its channel but lives on is killed: it has left the protocol.
      pid_t r;
      do {
        r = waitpid(pid_, &status, WNOHANG);
      } while (r < 0 && errno == EINTR);
      // It may still be dying (a signal's default action): give it a second.
      for (int i = 0; i < 100 && r == 0; ++i) {
        usleep(10000);
        r = waitpid(pid_, &status, WNOHANG);
      }
      if (r == 0) {
        kill(pid_, SIGKILL);
        while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
        }
        pid_ = -1;
        reaped_status_ = 0;
        return "closed its channel and was killed";
      }
      pid_ = -1;
      reaped_status_ = status;
    }
    if (WIFEXITED(status)) {
      const int code = WEXITSTATUS(status);
      if (code == sandbox_exit_code) return "was stopped by the sandbox";
      if (code == 127) return "could not be started (exec failed)";
      return "exited with code " + std::to_string(code);
    }
    if (WIFSIGNALED(status)) {
      const int sig = WTERMSIG(status);
      const char* name = sigabbrev_np(sig);
      return "was killed by signal " + std::to_string(sig) + (name ? " (SIG" + std::string(name) + ")" : "") +
             (sig == SIGSYS ? ": it attempted a system call the sandbox refuses (with signals "
                              "blocked, as glibc does to start a thread)"
                            : "");
    }
    return "ended";
  }

  std::string role_;
  std::string tag_;
  pid_t pid_ = -1;
  int fd_ = -1;
  std::uint64_t seq_ = 0;
  bool stopped_ = false;
  int reaped_status_ = 0;
};

}  // namespace socratic::harness
