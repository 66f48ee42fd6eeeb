#pragma once
// Shared by the tool tests: temp folders, files, running the socratic binary, the CPU problem.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "socratic/record/trace.hpp"
#include "socratic/core/json.hpp"
#include "socratic/process/run_process.hpp"
#include "test_files.hpp"

namespace tool_fixtures {

namespace fs = std::filesystem;
using socratic::json;

inline fs::path source_dir() { return SOCRATIC_SOURCE_DIR; }
inline fs::path cpu_problem() { return source_dir() / "tests" / "tool" / "cpu_problem"; }
inline fs::path socratic_exe() { return SOCRATIC_TOOL_PATH; }

using socratic::test::fresh_dir;
using socratic::test::read_text;
using socratic::test::write_text;

/// Runs the socratic binary with `args`, stdin text and extra environment entries.
inline socratic::ProcessResult socratic_run(const std::vector<std::string>& args, const std::string& stdin_text = {},
                                            const std::vector<std::string>& extra_env = {},
                                            const fs::path& cwd = {}) {
  std::vector<std::string> argv{socratic_exe().string()};
  argv.insert(argv.end(), args.begin(), args.end());
  socratic::ProcessOptions o;
  o.stdin_data = stdin_text;
  o.timeout = std::chrono::minutes(5);
  o.working_dir = cwd;
  std::vector<std::string> env;
  for (const auto& e : socratic::scrubbed_environment()) {  // extra entries replace inherited ones
    bool replaced = false;
    for (const auto& x : extra_env) replaced = replaced || x.substr(0, x.find('=') + 1) == e.substr(0, e.find('=') + 1);
    if (!replaced) env.push_back(e);
  }
  env.insert(env.end(), extra_env.begin(), extra_env.end());
  o.environment = env;
  return socratic::run_process(argv, o);
}

/// The layout `socratic init DIR` makes: DIR/campaign.json, the state DIR/state, the agent's
/// workspace DIR/workspace.
inline fs::path workspace_of(const fs::path& dir) { return dir / "workspace"; }
inline fs::path trace_of(const fs::path& dir) { return dir / "state" / "trace.jsonl"; }

/// `socratic init DIR` for the CPU softmax problem, judged by its evaluator command.
inline socratic::ProcessResult init_cpu_campaign(const fs::path& dir, const std::string& agent,
                                                 const std::string& goal = R"({"all_correct":{}})",
                                                 const std::vector<std::string>& extra = {}) {
  std::vector<std::string> args{"init",
                                dir.string(),
                                "--problem",
                                "softmax_cpu",
                                "--scenarios",
                                (cpu_problem() / "scenarios.json").string(),
                                "--baseline",
                                (cpu_problem() / "baseline.cpp").string(),
                                "--evaluator-command",
                                "bash " + (cpu_problem() / "evaluate.sh").string() + " {candidate} {scenarios}",
                                "--goal",
                                goal,
                                "--agent",
                                agent};
  args.insert(args.end(), extra.begin(), extra.end());
  return socratic_run(args);
}

/// How many times `what` occurs in `text`.
inline std::size_t count_of(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto p = text.find(what); p != std::string::npos; p = text.find(what, p + what.size())) ++n;
  return n;
}

inline std::vector<json> events_of(const fs::path& trace, const std::string& type) {
  std::vector<json> out;
  for (const auto& e : socratic::read_trace(trace).events)
    if (e.value("type", "") == type) out.push_back(e);
  return out;
}

/// A hook input as Claude Code sends it.
inline std::string hook_input(const std::string& message, bool active, const fs::path& cwd,
                              const std::string& session = "session-1") {
  return json{{"session_id", session},
              {"transcript_path", "/tmp/transcript.jsonl"},
              {"cwd", cwd.string()},
              {"hook_event_name", "Stop"},
              {"stop_hook_active", active},
              {"last_assistant_message", message}}
      .dump();
}

}  // namespace tool_fixtures
