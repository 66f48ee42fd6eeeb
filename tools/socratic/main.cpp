// socratic: the reference composition of the SDK as a command-line tool.
#include <cstdio>
#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include "args.hpp"
#include "command.hpp"
#include "socratic/core/error.hpp"
#include "socratic/version.hpp"

namespace {

void print_help() {
  std::cout << "socratic " << socratic::version_string
            << ": question-guided GPU kernel optimisation\n\nUsage: socratic COMMAND [ARGS...]\n\n"
               "Commands:\n";
  for (const auto& [name, info] : socratic::tool::commands())
    std::printf("  %-10s %s\n", name.c_str(), info.summary.c_str());
  std::cout << "\nRun `socratic COMMAND --help` for a command's options.\n";
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
    print_help();
    return args.empty() ? socratic::tool::exit_error : socratic::tool::exit_ok;
  }
  if (args[0] == "--version") {
    std::cout << "socratic " << socratic::version_string << "\n";
    return 0;
  }
  auto& registry = socratic::tool::commands();
  auto it = registry.find(args[0]);
  if (it == registry.end()) {
    std::cerr << "socratic: unknown command \"" << args[0] << "\" (see socratic --help)\n";
    return socratic::tool::exit_error;
  }
  try {
    return it->second.run(std::vector<std::string>(args.begin() + 1, args.end()));
  } catch (const socratic::tool::usage_error& e) {
    std::cerr << "socratic " << args[0] << ": " << e.what() << " (see socratic " << args[0]
              << " --help)\n";
  } catch (const std::exception& e) {
    std::cerr << "socratic " << args[0] << ": " << e.what() << "\n";
  }
  return socratic::tool::exit_error;
}
