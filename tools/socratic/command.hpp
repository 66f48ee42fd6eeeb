#pragma once
// The socratic tool's command registry: each cmd_*.cpp registers itself with one static
// `command_registration`, so adding a command touches no shared file. The commands are compiled
// as one unity translation unit (tools/socratic/CMakeLists.txt), so names at file scope, even in
// anonymous namespaces, must differ between files: name them after the command
// (`ask_registration`, `ask_usage`).

#include <functional>
#include <map>
#include <string>
#include <vector>

namespace socratic::tool {

/// A command's entry point: the arguments after its name; returns the exit code.
using command_fn = std::function<int(const std::vector<std::string>& args)>;

struct command_info {
  std::string summary;  ///< one line for `socratic --help`
  command_fn run;
};

inline std::map<std::string, command_info>& commands() {
  static std::map<std::string, command_info> registry;
  return registry;
}

struct command_registration {
  command_registration(const std::string& name, std::string summary, command_fn fn) {
    commands()[name] = command_info{std::move(summary), std::move(fn)};
  }
};

/// Exit codes shared by all commands: 0 success, 1 "the answer is no" (a finding, a failed
/// check), 2 an error (bad input, missing tool).
inline constexpr int exit_ok = 0;
inline constexpr int exit_findings = 1;
inline constexpr int exit_error = 2;

}  // namespace socratic::tool
