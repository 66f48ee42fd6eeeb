// The child modes' registry (child_modes.hpp).
#include "child_modes.hpp"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>

namespace {

std::map<std::string, socratic::test::ChildMain>& modes() {
  static std::map<std::string, socratic::test::ChildMain> registered;
  return registered;
}

}  // namespace

bool socratic::test::register_child_mode(const char* name, ChildMain main) {
  if (!modes().emplace(name, main).second) {
    std::fprintf(stderr, "test program: child mode \"%s\" registered twice\n", name);
    std::abort();
  }
  return true;
}

bool socratic::test::run_child_mode(int argc, char* argv[], int& status) {
  if (argc < 2 || std::strcmp(argv[1], "--child") != 0) return false;
  const auto it = argc > 2 ? modes().find(argv[2]) : modes().end();
  if (it == modes().end()) {
    std::fprintf(stderr, "usage: %s --child MODE ARGS... (modes:", argv[0]);
    for (const auto& [name, main] : modes()) std::fprintf(stderr, " %s", name.c_str());
    std::fprintf(stderr, ")\n");
    status = 2;
    return true;
  }
  status = it->second(std::vector<std::string>(argv + 3, argv + argc));
  return true;
}

std::vector<std::string> socratic::test::child_command(const std::string& name, const std::vector<std::string>& args) {
  std::vector<std::string> command = {std::filesystem::read_symlink("/proc/self/exe").string(), "--child", name};
  command.insert(command.end(), args.begin(), args.end());
  return command;
}
