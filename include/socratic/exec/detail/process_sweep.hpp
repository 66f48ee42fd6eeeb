#pragma once
/// @file
/// @brief Finding and ending every process of one evaluation, however it was started. Each
/// evaluation process gets `SOCRATIC_EXEC_JOB=TOKEN` in its environment and its descendants
/// inherit it (the name is not one the secret filter of process/environment.hpp removes), also those in process groups or sessions of their own (the runner, nvcc, a
/// command evaluator's children): a sweep reads `/proc/PID/environ` and kills the processes that
/// carry the token. This is how a hung evaluation is ended whole, and how a restarted pool ends
/// what a killed one left behind. Linux only.

#include <signal.h>
#include <sys/types.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "socratic/process/detail/proc_file.hpp"

namespace socratic::exec::detail {

inline constexpr const char* token_variable = "SOCRATIC_EXEC_JOB";

/// @brief Live processes (other than this one) whose environment holds `SOCRATIC_EXEC_JOB=token`
/// (with `prefix`, any token that starts with `token`).
inline std::vector<pid_t> processes_with_token(const std::string& token, bool prefix = false,
                                               const std::filesystem::path& proc = "/proc") {
  std::vector<pid_t> out;
  if (token.empty()) return out;
  const std::string needle = std::string(token_variable) + "=" + token;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(proc, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    const pid_t pid = static_cast<pid_t>(std::atol(name.c_str()));
    if (pid == ::getpid()) continue;
    // Empty when the process is gone (it may exit while it is read) or not ours to read.
    const std::string env = socratic::detail::read_proc_file(entry.path() / "environ");
    // Entries are NUL-separated: match a whole entry, not a prefix of a longer token.
    for (std::size_t at = env.find(needle); at != std::string::npos; at = env.find(needle, at + 1)) {
      const bool starts = at == 0 || env[at - 1] == '\0';
      const std::size_t end = at + needle.size();
      if (starts && (prefix || end == env.size() || env[end] == '\0')) {
        out.push_back(pid);
        break;
      }
    }
  }
  return out;
}

/// @brief SIGKILLs every process carrying `token` until none is left (new children may appear
/// while it works), waiting at most `patience`. Returns how many it signalled.
inline std::size_t kill_processes_with_token(const std::string& token,
                                             std::chrono::milliseconds patience = std::chrono::seconds(5),
                                             bool prefix = false) {
  std::size_t signalled = 0;
  const auto deadline = std::chrono::steady_clock::now() + patience;
  while (true) {
    const std::vector<pid_t> pids = processes_with_token(token, prefix);
    if (pids.empty()) break;
    for (pid_t pid : pids)
      if (::kill(pid, SIGKILL) == 0) ++signalled;
    if (std::chrono::steady_clock::now() >= deadline) break;
    // A killed process keeps its environment readable until it is a zombie: give it a moment.
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return signalled;
}

}  // namespace socratic::exec::detail
