#pragma once
/// @brief Ending this process's children with everything they started. Socratic starts each
/// child in its own process group (process/run_process.hpp); SIGKILL on the parent's death
/// reaches the child alone, not what it started (an evaluator script's compiler or benchmark).
/// A server that exits while an evaluation runs kills each child's whole group first, so that
/// nothing outlives it. Linux: the children are found in /proc.

#include <signal.h>
#include <sys/types.h>
#include <unistd.h>

#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "socratic/process/detail/proc_file.hpp"

namespace socratic::mcp::detail {

/// @brief The process ids whose parent is this process (from /proc/PID/stat).
inline std::vector<pid_t> child_processes() {
  std::vector<pid_t> out;
  const pid_t self = ::getpid();
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator("/proc", ec)) {
    const std::string name = entry.path().filename().string();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    const std::string stat = socratic::detail::read_proc_file(entry.path() / "stat");  // empty: gone
    const auto close = stat.rfind(')');  // the command name may hold spaces and parentheses
    if (close == std::string::npos) continue;
    std::istringstream rest(stat.substr(close + 1));
    std::string state;
    long ppid = 0;
    if (rest >> state >> ppid && ppid == self) out.push_back(static_cast<pid_t>(std::stol(name)));
  }
  return out;
}

/// @brief Sends SIGKILL to the process group of every child of this process that leads its own
/// group, and to every other child alone. Returns how many children were found.
inline std::size_t kill_child_process_groups() {
  const std::vector<pid_t> children = child_processes();
  const pid_t own_group = ::getpgrp();
  for (const pid_t child : children) {
    const pid_t group = ::getpgid(child);
    if (group > 0 && group != own_group)
      ::killpg(group, SIGKILL);
    else
      ::kill(child, SIGKILL);
  }
  return children.size();
}

}  // namespace socratic::mcp::detail
