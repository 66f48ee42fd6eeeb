#pragma once
// A scripted MCP client over pipes: starts `socratic mcp ...` with its stdin and stdout on pipes
// (stderr to a file), writes lines, reads newline-delimited messages with a timeout.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "socratic/core/json.hpp"

namespace mcp_test {

using socratic::json;
namespace fs = std::filesystem;

class PipeClient {
 public:
  PipeClient(const std::vector<std::string>& argv, const fs::path& stderr_file, const fs::path& cwd = {}) {
    int in[2], out[2];
    if (::pipe2(in, O_CLOEXEC) != 0 || ::pipe2(out, O_CLOEXEC) != 0) throw std::runtime_error("pipe2 failed");
    pid_ = ::fork();
    if (pid_ < 0) throw std::runtime_error("fork failed");
    if (pid_ == 0) {
      ::dup2(in[0], 0);
      ::dup2(out[1], 1);
      const int err = ::open(stderr_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      if (err >= 0) ::dup2(err, 2);
      if (!cwd.empty() && ::chdir(cwd.c_str()) != 0) ::_exit(126);
      std::vector<char*> args;
      for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
      args.push_back(nullptr);
      ::execv(args[0], args.data());
      ::_exit(127);
    }
    ::close(in[0]);
    ::close(out[1]);
    to_child_ = in[1];
    from_child_ = out[0];
  }
  PipeClient(const PipeClient&) = delete;
  PipeClient& operator=(const PipeClient&) = delete;
  ~PipeClient() {
    close_stdin();
    if (from_child_ >= 0) ::close(from_child_);
    if (pid_ > 0 && !exited_) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
  }

  pid_t pid() const { return pid_; }

  /// Writes `text` and a newline.
  void send_raw(const std::string& text) {
    const std::string line = text + "\n";
    std::size_t done = 0;
    while (done < line.size()) {
      const ssize_t n = ::write(to_child_, line.data() + done, line.size() - done);
      if (n < 0) {
        if (errno == EINTR) continue;
        throw std::runtime_error(std::string("write to the server: ") + std::strerror(errno));
      }
      done += static_cast<std::size_t>(n);
    }
  }
  void send(const json& message) { send_raw(message.dump()); }

  /// The next line the server wrote, parsed; nullopt at the timeout or at EOF.
  std::optional<json> receive(std::chrono::milliseconds timeout = std::chrono::seconds(20)) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    for (;;) {
      if (const auto nl = pending_.find('\n'); nl != std::string::npos) {
        const std::string line = pending_.substr(0, nl);
        pending_.erase(0, nl + 1);
        lines_.push_back(line);
        return json::parse(line);
      }
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) return std::nullopt;
      pollfd p{from_child_, POLLIN, 0};
      if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) continue;
      char buf[65536];
      const ssize_t n = ::read(from_child_, buf, sizeof buf);
      if (n <= 0) return std::nullopt;
      pending_.append(buf, static_cast<std::size_t>(n));
    }
  }

  /// Sends a request and returns the response with its id (other messages are skipped).
  json request(const json& id, const std::string& method, const json& params = json::object()) {
    send(json{{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", params}});
    for (;;) {
      auto m = receive();
      if (!m) throw std::runtime_error("no response to " + method);
      if (m->contains("id") && (*m)["id"] == id) return *m;
    }
  }

  void close_stdin() {
    if (to_child_ >= 0) ::close(to_child_);
    to_child_ = -1;
  }

  /// Waits for the server to exit; its exit status, or nullopt at the timeout.
  std::optional<int> wait_exit(std::chrono::milliseconds timeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (std::chrono::steady_clock::now() < deadline) {
      int status = 0;
      if (::waitpid(pid_, &status, WNOHANG) == pid_) {
        exited_ = true;
        return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
      }
      ::usleep(20000);
    }
    return std::nullopt;
  }

  /// Every line the server wrote so far (each must be one JSON message).
  const std::vector<std::string>& lines() const { return lines_; }

 private:
  pid_t pid_ = -1;
  int to_child_ = -1, from_child_ = -1;
  bool exited_ = false;
  std::string pending_;
  std::vector<std::string> lines_;
};

/// Whether a process is gone (no such process, or a zombie awaiting its reaper).
inline bool process_gone(pid_t pid) {
  if (::kill(pid, 0) != 0) return errno == ESRCH;
  std::error_code ec;
  const fs::path stat = fs::path("/proc") / std::to_string(pid) / "stat";
  FILE* f = std::fopen(stat.c_str(), "r");
  if (!f) return true;
  char buf[512] = {0};
  const std::size_t n = std::fread(buf, 1, sizeof buf - 1, f);
  std::fclose(f);
  const std::string s(buf, n);
  const auto close = s.rfind(')');
  return close != std::string::npos && close + 2 < s.size() && s[close + 2] == 'Z';
}

}  // namespace mcp_test
