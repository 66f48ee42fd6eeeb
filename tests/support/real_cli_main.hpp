#pragma once
// The main() of the test programs that drive the real agent CLIs (tests/tool, tests/mcp): installs
// Claude Code and Codex with scripts/install-agent-clis.sh (once; cached), then runs Catch2's
// session. Exit 77 (skipped, never passed) where npm is missing; 1 when the install fails.
#include <cstdio>
#include <filesystem>
#include <string>

#include "catch.hpp"
#include "catch_runner.hpp"
#include "socratic/process/run_process.hpp"

namespace socratic::test {

/// Installs the CLIs, sets `cli_bin` to their node_modules/.bin, runs the session.
inline int run_with_agent_clis(int argc, char* argv[], const std::filesystem::path& source_dir,
                               std::filesystem::path& cli_bin) {
  const std::string script = (source_dir / "scripts" / "install-agent-clis.sh").string();
  ProcessOptions o;
  o.timeout = std::chrono::minutes(15);
  const ProcessResult install = run_process({"bash", script}, o);
  if (install.exit_code == 77) {
    std::printf("SKIPPED: npm is not available, so the real Claude Code / Codex CLIs cannot be installed\n%s\n",
                install.stderr_text.c_str());
    return 77;
  }
  if (!install.ok()) {
    std::fprintf(stderr, "install-agent-clis.sh %s:\n%s\n", install.describe().c_str(), install.stderr_text.c_str());
    return 1;
  }
  // The script's last line is the folder.
  std::string bin = install.stdout_text;
  while (!bin.empty() && (bin.back() == '\n' || bin.back() == '\r')) bin.pop_back();
  bin = bin.substr(bin.rfind('\n') == std::string::npos ? 0 : bin.rfind('\n') + 1);
  cli_bin = bin;
  return socratic::test::run_catch_session(argc, argv);
}

}  // namespace socratic::test
