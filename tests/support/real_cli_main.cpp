// main() of socratic_real_cli_tests (real_cli_main.hpp).
#include "real_cli_main.hpp"

#include <chrono>
#include <cstdio>
#include <string>

#include "catch_runner.hpp"
#include "socratic/process/run_process.hpp"

namespace {

std::filesystem::path installed_bin;

}  // namespace

const std::filesystem::path& socratic::test::agent_cli_bin() { return installed_bin; }

int main(int argc, char* argv[]) {
  using namespace socratic;
  const std::string script = (std::filesystem::path(SOCRATIC_SOURCE_DIR) / "scripts" / "install-agent-clis.sh").string();
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
  installed_bin = bin;
  return socratic::test::run_catch_session(argc, argv);
}
