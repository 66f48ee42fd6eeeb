// The judge's end of the PyTorch reference worker (kernels/harness/python/reference_worker.py,
// docs/reference-worker.md): started once per runner process, it reads the judge's inputs and
// writes the fp32 references into the judge's buffers through CUDA IPC. It runs in the judge's
// trust domain, never inside a sandboxed worker; whatever goes wrong with it is the judge's
// error (runner_error), never the candidate's. When it is also a scenario's baseline (the
// reference in eager PyTorch or under torch.compile, problem.cu), the judge stops it (SIGSTOP)
// while another side is timed, as it stops the workers; a request to a stopped worker resumes it
// for the request's time alone.
#pragma once

#include <cuda_runtime.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

extern char** environ;

namespace socratic::harness::suite {

/// A device pointer as the worker opens it: its allocation's IPC handle (hex) and the offset.
struct SharedPointer {
  std::string handle_hex;
  std::size_t offset = 0;
};

class ReferenceWorkerClient {
 public:
  ReferenceWorkerClient() = default;
  ReferenceWorkerClient(const ReferenceWorkerClient&) = delete;
  ReferenceWorkerClient& operator=(const ReferenceWorkerClient&) = delete;
  ~ReferenceWorkerClient() { stop(); }

  bool running() const { return pid_ > 0; }
  bool paused() const { return paused_; }

  /// SIGSTOP, waited for: the worker launches nothing until resume() (or a request).
  void pause() {
    if (!running() || paused_) return;
    signal_and_wait(SIGSTOP, WUNTRACED);
    paused_ = true;
  }
  void resume() {
    if (!running() || !paused_) return;
    signal_and_wait(SIGCONT, WCONTINUED);
    paused_ = false;
  }

  /// Starts `python worker`; its stdin and stdout are the request and reply pipes, its stderr
  /// the runner's (free text). Throws when it cannot start or says no hello.
  void start(const std::string& python, const std::string& worker) {
    stop();
    int to_child[2], from_child[2];
    if (pipe2(to_child, O_CLOEXEC) != 0 || pipe2(from_child, O_CLOEXEC) != 0)
      throw std::runtime_error("reference worker: pipe: " + std::string(std::strerror(errno)));
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, to_child[0], 0);
    posix_spawn_file_actions_adddup2(&actions, from_child[1], 1);
    std::vector<char*> argv = {const_cast<char*>(python.c_str()), const_cast<char*>("-u"),
                               const_cast<char*>(worker.c_str()), nullptr};
    pid_t pid = 0;
    const int rc = posix_spawn(&pid, python.c_str(), &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    close(to_child[0]);
    close(from_child[1]);
    if (rc != 0) {
      close(to_child[1]);
      close(from_child[0]);
      throw std::runtime_error("reference worker: cannot start " + python + " " + worker + ": " + std::strerror(rc));
    }
    pid_ = pid;
    in_ = to_child[1];
    out_ = from_child[0];
    const nlohmann::json hello = request({{"op", "hello"}}, std::chrono::seconds(120));
    bool ipc = false;
    for (const auto& b : hello.value("buffers", nlohmann::json::array())) ipc = ipc || b == "cuda_ipc";
    if (!ipc)
      throw std::runtime_error("reference worker (" + python + " " + worker +
                               ") cannot open CUDA IPC buffers: its hello lists buffers " +
                               hello.value("buffers", nlohmann::json::array()).dump() +
                               (hello.value("cuda", false) ? "" : " and its PyTorch sees no GPU"));
  }

  /// One request and its reply; throws naming the request's op when the worker refuses it, dies
  /// or says nothing within `timeout`.
  nlohmann::json request(nlohmann::json req, std::chrono::milliseconds timeout = std::chrono::minutes(5)) {
    if (!running()) throw std::runtime_error("reference worker: not running");
    if (paused_) {  // stopped while another side is timed: running for this request alone
      resume();
      struct Repause {
        ReferenceWorkerClient& c;
        ~Repause() {
          try {
            c.pause();
          } catch (...) {
          }
        }
      } repause{*this};
      return request(std::move(req), timeout);
    }
    req["id"] = ++sequence_;
    const std::string op = req.value("op", "?");
    const std::string line = req.dump() + "\n";
    for (std::size_t sent = 0; sent < line.size();) {
      const ssize_t n = write(in_, line.data() + sent, line.size() - sent);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) throw died("while the judge sent `" + op + "`");
      sent += static_cast<std::size_t>(n);
    }
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    for (;;) {
      const auto newline = buffer_.find('\n');
      if (newline != std::string::npos) {
        const std::string reply_line = buffer_.substr(0, newline);
        buffer_.erase(0, newline + 1);
        nlohmann::json reply;
        try {
          reply = nlohmann::json::parse(reply_line);
        } catch (const std::exception&) {
          throw std::runtime_error("reference worker: its reply to `" + op + "` is not JSON: " + reply_line.substr(0, 200));
        }
        if (reply.value("id", nlohmann::json()) != req["id"])
          throw std::runtime_error("reference worker: a reply to `" + op + "` carries another id: " + reply_line.substr(0, 200));
        if (!reply.value("ok", false))
          throw std::runtime_error("reference worker refused `" + op + "`" +
                                   (reply.value("field", std::string()).empty() ? "" : " (field " + reply["field"].get<std::string>() + ")") +
                                   ": " + reply.value("error", std::string("no reason given")) + detail_of(reply));
        return reply;
      }
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) throw std::runtime_error("reference worker: no reply to `" + op + "` within " +
                                                      std::to_string(timeout.count() / 1000) + " s");
      pollfd p{out_, POLLIN, 0};
      const int r = poll(&p, 1, static_cast<int>(std::min<long long>(left.count(), 1000)));
      if (r < 0 && errno == EINTR) continue;
      if (r <= 0) continue;
      char chunk[65536];
      const ssize_t n = read(out_, chunk, sizeof chunk);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) throw died("before it answered `" + op + "`");
      buffer_.append(chunk, static_cast<std::size_t>(n));
    }
  }

  /// Ends the worker (quit, then SIGKILL if it lingers).
  void stop() {
    if (!running()) return;
    if (paused_) kill(pid_, SIGCONT);
    paused_ = false;
    close(in_);  // end of input: the worker ends
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    int status = 0;
    while (waitpid(pid_, &status, WNOHANG) == 0) {
      if (std::chrono::steady_clock::now() > until) {
        kill(pid_, SIGKILL);
        waitpid(pid_, &status, 0);
        break;
      }
      usleep(10000);
    }
    close(out_);
    pid_ = -1;
  }

  /// `p`'s allocation as an IPC handle plus the offset of `p` in it (handles are taken once per
  /// allocation and forgotten by forget_handles, when the judge frees its buffers).
  SharedPointer share(const void* p) {
    const auto [base, offset] = allocation_of(p);
    auto it = handles_.find(base);
    if (it == handles_.end()) {
      cudaIpcMemHandle_t h;
      const cudaError_t e = cudaIpcGetMemHandle(&h, reinterpret_cast<void*>(base));
      if (e != cudaSuccess)
        throw std::runtime_error(std::string("cudaIpcGetMemHandle (reference buffer): ") + cudaGetErrorString(e));
      static const char* digits = "0123456789abcdef";
      std::string hex;
      for (unsigned char c : std::string(reinterpret_cast<const char*>(&h), sizeof h)) {
        hex += digits[c >> 4];
        hex += digits[c & 15];
      }
      it = handles_.emplace(base, hex).first;
    }
    return {it->second, offset};
  }
  void forget_handles() { handles_.clear(); }

 private:
  /// The allocation holding `p` (cuMemGetAddressRange, from the driver the runtime already
  /// loaded: the runner links nothing more).
  static std::pair<std::uintptr_t, std::size_t> allocation_of(const void* p) {
    using range_fn = int (*)(unsigned long long*, std::size_t*, unsigned long long);
    static range_fn range = [] {
      void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
      if (!lib) lib = dlopen("libcuda.so.1", RTLD_NOW);
      return lib ? reinterpret_cast<range_fn>(dlsym(lib, "cuMemGetAddressRange_v2")) : nullptr;
    }();
    if (!range) throw std::runtime_error("reference worker: cuMemGetAddressRange_v2 not found in libcuda.so.1");
    unsigned long long base = 0;
    std::size_t size = 0;
    const auto ptr = reinterpret_cast<unsigned long long>(p);
    if (range(&base, &size, ptr) != 0)
      throw std::runtime_error("reference worker: cuMemGetAddressRange failed for a judge's buffer");
    return {static_cast<std::uintptr_t>(base), static_cast<std::size_t>(ptr - base)};
  }

  void signal_and_wait(int sig, int how) {
    if (kill(pid_, sig) != 0) throw died("(it could not be " + std::string(sig == SIGSTOP ? "stopped" : "resumed") + ")");
    int status = 0;
    pid_t r;
    do {
      r = waitpid(pid_, &status, how);
    } while (r < 0 && errno == EINTR);
    if (r == pid_ && !WIFSTOPPED(status) && !WIFCONTINUED(status)) {
      close(in_);
      close(out_);
      pid_ = -1;
      paused_ = false;
      throw std::runtime_error("reference worker ended while the judge " +
                               std::string(sig == SIGSTOP ? "stopped" : "resumed") + " it");
    }
  }

  static std::string detail_of(const nlohmann::json& reply) {
    if (!reply.contains("outputs") || !reply["outputs"].is_object()) return {};
    std::string out;
    for (auto it = reply["outputs"].begin(); it != reply["outputs"].end(); ++it)
      if (it->is_object() && !it->value("ok", true)) out += "; " + it->value("error", it.key() + " failed");
    return out;
  }

  std::runtime_error died(const std::string& when) {
    int status = 0;
    std::string how = "ended";
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
      how = WIFSIGNALED(status) ? "was killed by signal " + std::to_string(WTERMSIG(status))
                                : "exited with status " + std::to_string(WEXITSTATUS(status));
      close(in_);
      close(out_);
      pid_ = -1;
    }
    return std::runtime_error("reference worker " + how + " " + when + " (its stderr is the runner's)");
  }

  pid_t pid_ = -1;
  bool paused_ = false;
  int in_ = -1, out_ = -1;
  std::uint64_t sequence_ = 0;
  std::string buffer_;
  std::map<std::uintptr_t, std::string> handles_;
};

}  // namespace socratic::harness::suite
