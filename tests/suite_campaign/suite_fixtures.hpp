#pragma once
// The suite tests' toy suite and readers (test_suite_tool.cpp, test_suite_slurm.cpp): three toy CPU
// problems judged by a command evaluator (toy_problem/) and three replay agents, the stores' keys,
// the suite trace's events, and `socratic suite FILE` started in the background.
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>

#include <string>
#include <vector>

#include "catch.hpp"
#include "socratic/store/candidate_store.hpp"
#include "tool_fixtures.hpp"

extern char** environ;

namespace suite_fixtures {

using namespace socratic;
using namespace tool_fixtures;

inline fs::path toy() { return source_dir() / "tests" / "suite_campaign" / "toy_problem"; }

/// A suite of three toy problems in `dir` (its suite file returned): `gain` and `easy` meet their
/// goal at the recording's second version, `stuck` never does; twelve proposals in all.
inline fs::path write_toy_suite(const fs::path& dir) {
  const fs::path rec = source_dir() / "demo" / "softmax-cpu";
  json problems = json::array();
  for (const std::string name : {"gain", "easy", "stuck"}) {
    fs::create_directories(dir / ("ws-" + name));
    fs::copy_file(rec / "baseline.cpp", dir / ("ws-" + name) / "candidate.cpp", fs::copy_options::overwrite_existing);
    problems.push_back({{"name", name},
                        {"workspace", "ws-" + name},
                        {"evaluator",
                         {{"kind", "command"},
                          {"command", {"bash", (toy() / "evaluate.sh").string(), "{candidate}", "{scenarios}",
                                       (toy() / ("table-" + name + ".txt")).string()}}}}});
  }
  json roles = json::array();
  for (const std::string id : {"r1", "r2", "r3"})
    roles.push_back({{"id", id}, {"recording", rec.string()}, {"max_proposals", 3}});
  const json suite{{"schema_version", 1},
                   {"title", "Toy suite"},
                   {"state_dir", "state"},
                   {"defaults",
                    {{"problem", "toy_cpu"},
                     {"scenarios", (toy() / "scenarios.json").string()},
                     {"candidate", "candidate.cpp"},
                     {"questions", {{"kinds", {"cpu"}}}},
                     {"budget", {{"turns", 40}}}}},
                   {"agent", {{"sandbox", "none"}}},
                   {"problems", problems},
                   {"agents", {{"kind", "replay"}, {"roles", roles}}},
                   {"policy", {{"kind", "planner"}, {"plateau", 2}, {"proposals_per_round", 1}}},
                   {"budget", {{"proposals", 12}}}};
  write_text(dir / "suite.json", suite.dump(2));
  return dir / "suite.json";
}

inline std::vector<std::string> store_keys(const fs::path& state, const std::string& problem) {
  const fs::path dir = state / "problems" / problem / "state" / "store";
  std::vector<std::string> keys;
  if (!fs::exists(dir / "store.jsonl")) return keys;
  StoreOptions ro;
  ro.read_only = true;
  for (const auto& r : CandidateStore::open(dir, ro).summaries()) keys.push_back(r.key);
  return keys;
}

inline std::vector<json> suite_events(const fs::path& state, const std::string& type) {
  std::vector<json> out;
  for (const auto& e : read_trace(state / "suite_trace.jsonl").events)
    if (e.value("type", "") == type) out.push_back(e);
  return out;
}

/// Starts `socratic suite FILE` with its output in files; returns its pid.
inline pid_t start_suite(const fs::path& file, const fs::path& log) {
  const std::string exe = socratic_exe().string(), cmd = "suite", path = file.string();
  char* argv[] = {const_cast<char*>(exe.c_str()), const_cast<char*>(cmd.c_str()), const_cast<char*>(path.c_str()), nullptr};
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
  posix_spawn_file_actions_addopen(&actions, 2, log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
  pid_t pid = -1;
  const int rc = posix_spawn(&pid, exe.c_str(), &actions, nullptr, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  REQUIRE(rc == 0);
  return pid;
}

}  // namespace suite_fixtures
