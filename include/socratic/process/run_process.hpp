#pragma once
/// @file
/// @brief run_process: run a command with a timeout, output caps (head and tail kept), a chosen
/// environment and working folder; the child is in its own process group (killed whole at the
/// timeout), and the group dies with its parent (even one killed with SIGKILL) and when the call
/// returns: nothing the child started outlives it. Socratic starts nvcc, shells and agent CLIs this way;
/// stream_process is the line-by-line call style of the same spawner (detail/child.hpp).
/// Heavy (Boost.Process, Asio): include only where a process is started.

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "socratic/core/error.hpp"
#include "socratic/detail/separate_compilation.hpp"
#include "socratic/process/detail/child.hpp"
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

/// @brief Runs `argv` (program first) and returns how it ended. Never throws for a failure of
/// the child; a program that cannot be started gives `started == false`.
SOCRATIC_DECL ProcessResult run_process(const std::vector<std::string>& argv,
                                        const ProcessOptions& options = {});

}  // namespace socratic

#ifndef SOCRATIC_SEPARATE_COMPILATION
#include "socratic/process/impl/run_process.ipp"
#endif
