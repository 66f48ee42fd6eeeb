#pragma once
// The test program that drives the real agent CLIs (tests/tool/test_real_clients.cpp,
// tests/mcp/test_real_mcp_clients.cpp): its main() (real_cli_main.cpp) installs Claude Code and
// Codex with scripts/install-agent-clis.sh (once; cached), then runs Catch2's session. Exit 77
// (skipped, never passed) where npm is missing; 1 when the install fails.
#include <filesystem>

namespace socratic::test {

/// @brief The installed CLIs' folder (node_modules/.bin, with `claude` and `codex`).
const std::filesystem::path& agent_cli_bin();

}  // namespace socratic::test
