#pragma once
// The socratic tool's command registry: each cmd_*.cpp registers itself with one static
// `command_registration`, so adding a command touches no shared file. A command declares its
// options on its CLI11 subcommand (cli.hpp) and returns what runs after a successful parse. The
// commands are compiled as one unity translation unit (tools/socratic/CMakeLists.txt), so names
// at file scope, even in anonymous namespaces, must differ between files: name them after the
// command (`ask_registration`, `AskOptions`).

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cli.hpp"

namespace socratic::tool {

/// Runs a command after its command line parsed; returns the exit code.
using command_run = std::function<int()>;

/// Declares a command's options, positionals and subcommands on `app` (bound to state the returned
/// runner owns) and returns the runner.
using command_setup = std::function<command_run(CLI::App& app)>;

/// The groups of `socratic --help`, in order.
inline const std::vector<std::string>& command_groups() {
  static const std::vector<std::string> groups{"Campaigns", "Judging a kernel", "Questions"};
  return groups;
}

struct command_info {
  std::string summary;  ///< one line for `socratic --help`
  std::string group;    ///< one of command_groups()
  command_setup setup;
  /// When set, a command-line error under this command comes here first, with the command path
  /// ("socratic hook stop") and the one-line message; an exit code means it was handled (`hook
  /// stop` blocks with it: a broken hook never lets an agent stop unverified).
  std::function<std::optional<int>(const std::string& path, const std::string& message)> on_usage_error;
};

inline std::map<std::string, command_info>& commands() {
  static std::map<std::string, command_info> registry;
  return registry;
}

struct command_registration {
  command_registration(const std::string& name, std::string summary, std::string group, command_setup setup,
                       std::function<std::optional<int>(const std::string&, const std::string&)> on_usage_error = {}) {
    commands()[name] = command_info{std::move(summary), std::move(group), std::move(setup), std::move(on_usage_error)};
  }
};

/// Exit codes shared by all commands: 0 success, 1 "the answer is no" (a finding, a failed
/// check), 2 an error (bad input, missing tool).
inline constexpr int exit_ok = 0;
inline constexpr int exit_findings = 1;
inline constexpr int exit_error = 2;

}  // namespace socratic::tool
