// socratic: the reference composition of the SDK as a command-line tool.
#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include "cli.hpp"
#include "command.hpp"
#include "socratic/core/error.hpp"
#include "socratic/version.hpp"

namespace {

using namespace socratic::tool;

std::string hint(const std::string& path) { return " (see `" + path + " --help`)"; }

}  // namespace

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  CLI::App app("question-guided GPU kernel optimisation", "socratic");
  app.formatter(std::make_shared<HelpFormatter>());
  app.set_version_flag("-V,--version", std::string("socratic ") + socratic::version_string);
  app.require_subcommand(1);
  std::map<std::string, command_run> runners;
  for (const auto& group : command_groups())
    for (const auto& [name, info] : commands()) {
      if (info.group != group) continue;
      CLI::App* sub = app.add_subcommand(name, info.summary);
      sub->group(group);
      runners[name] = info.setup(*sub);
    }
  for (const auto& [name, info] : commands())  // group "": internal commands, not listed in --help
    if (info.group.empty()) {
      CLI::App* sub = app.add_subcommand(name, info.summary);
      sub->group("");
      runners[name] = info.setup(*sub);
    }
  app.footer("Run `socratic COMMAND --help` for a command's options. Exit codes, for every command: 0 success,\n"
             "1 \"the answer is no\" (a finding, a failed check, a goal not met), 2 an error.\n");  // after: inherited

  if (args.empty()) {
    std::cout << app.help();
    return exit_error;
  }
  if (args[0] == "help") {  // `socratic help [COMMAND...]`
    const CommandPath target = command_path(app, std::vector<std::string>(args.begin() + 1, args.end()));
    const std::string& path = target.path;
    std::cout << target.app->help(target.app == &app ? std::string() : path.substr(0, path.rfind(' ')));
    return exit_ok;
  }
  if (args[0].front() != '-' && !commands().count(args[0])) {
    std::vector<std::string> names;
    for (const auto& [name, info] : commands()) names.push_back(name);
    const std::string guess = socratic::tool::detail::closest(args[0], names);
    std::cerr << "socratic: unknown command \"" << args[0] << "\""
              << (guess.empty() ? "" : "; did you mean " + guess + "?") << hint("socratic") << "\n";
    return exit_error;
  }

  const CommandPath where = command_path(app, args);
  const std::string& path = where.path;
  const std::string name = args[0];
  auto usage_failure = [&](const std::string& message) {
    if (auto it = commands().find(name); it != commands().end() && it->second.on_usage_error)
      if (auto handled = it->second.on_usage_error(path, message)) return *handled;
    std::cerr << path << ": " << message << hint(path) << "\n";
    return exit_error;
  };
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    std::cout << app.help();
    return exit_ok;
  } catch (const CLI::CallForVersion&) {
    std::cout << app.version() << "\n";
    return exit_ok;
  } catch (const CLI::ParseError& e) {
    return usage_failure(describe_parse_error(e, *where.app, where.rest));
  }

  std::string chosen;
  for (const CLI::App* sub : app.get_subcommands()) chosen = sub->get_name();
  try {
    return runners.at(chosen)();
  } catch (const usage_error& e) {
    return usage_failure(e.what());
  } catch (const std::exception& e) {
    std::cerr << path << ": " << e.what() << "\n";
  }
  return exit_error;
}
