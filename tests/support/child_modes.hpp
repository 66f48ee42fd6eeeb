#pragma once
// Child modes of a test program: code a test runs as a separate process (to kill it with SIGKILL
// at a known point, say) lives in the program itself, registered under a name and started as
// `PROGRAM --child NAME ARGS...`, instead of in a helper program compiled on its own.
#include <filesystem>
#include <string>
#include <vector>

namespace socratic::test {

/// @brief A child mode's main(): `args` are the ARGS after its name.
using ChildMain = int (*)(const std::vector<std::string>& args);

/// @brief Registers `main` under `name` (at static initialisation: `const bool registered =
/// register_child_mode(...)`); a name registered twice is an error at start-up.
bool register_child_mode(const char* name, ChildMain main);

/// @brief When argv is `PROGRAM --child NAME ARGS...`, runs that mode, sets `status` to its exit
/// status and returns true (an unknown NAME exits 2, naming the known ones); otherwise false.
bool run_child_mode(int argc, char* argv[], int& status);

/// @brief The command line that starts this program in child mode `name` with `args`.
std::vector<std::string> child_command(const std::string& name, const std::vector<std::string>& args);

}  // namespace socratic::test
