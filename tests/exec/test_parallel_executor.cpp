// A parallel campaign (`socratic run` with an `agents` section) whose evaluations go through the
// campaign's `executor` section: two replay agents (the recorded CPU softmax campaign), the local
// pool on two fake GPUs, the CPU problem's evaluator command as the job's evaluation. The store
// holds both agents' records, and the pool's journal every evaluation of theirs and of the gate.
#include <set>

#include "catch.hpp"
#include "exec_fixtures.hpp"
#include "socratic/process/run_process.hpp"

using namespace socratic;
using namespace exec_fixtures;
using Catch::Matchers::Contains;

namespace {

ProcessResult socratic_parallel(const std::vector<std::string>& args) {
  std::vector<std::string> argv = {socratic_exe().string()};
  argv.insert(argv.end(), args.begin(), args.end());
  ProcessOptions o;
  o.stdin_data = "";
  o.timeout = std::chrono::minutes(4);
  return run_process(argv, o);
}

std::vector<json> jsonl_lines(const fs::path& file) {
  std::vector<json> out;
  std::istringstream lines(read_text(file));
  for (std::string line; std::getline(lines, line);)
    if (!line.empty()) out.push_back(json::parse(line));
  return out;
}

}  // namespace

TEST_CASE("socratic run: two agents in parallel, their evaluations and the gate's through the local pool", "[exec][tool][parallel]") {
  const fs::path ws = fresh_dir("parallel_executor");
  const ProcessResult init = socratic_parallel(
      {"init", ws.string(), "--problem", "softmax_cpu", "--scenarios", (cpu_problem() / "scenarios.json").string(),
       "--baseline", (cpu_problem() / "baseline.cpp").string(), "--evaluator-command",
       "bash " + (cpu_problem() / "evaluate.sh").string() + " {candidate} {scenarios}", "--goal",
       R"({"every_scenario_speedup_at_least": 1000})", "--agent", "none"});
  INFO(init.stdout_text << init.stderr_text);
  REQUIRE(init.ok());
  const fs::path file = ws / "campaign.json";
  json c = json::parse(read_text(file));
  const std::string recording = (source_dir() / "demo" / "softmax-cpu").string();
  c["agent"]["sandbox"] = "none";  // replay agents run no shell
  c["agents"] = {{"kind", "replay"},
                 {"roles",
                  {{{"id", "r1"}, {"recording", recording}, {"max_proposals", 2}},
                   {{"id", "r2"}, {"recording", recording}, {"max_proposals", 2}}}}};
  c["executor"] = {{"kind", "local"}, {"gpus", "0,1"}, {"build_workers", 0}};
  write_text(file, c.dump(1));

  const ProcessResult r = socratic_parallel({"run", file.string()});
  INFO(r.stdout_text << r.stderr_text);
  REQUIRE(r.exit_code == 1);  // a goal no candidate meets: the agents' proposals end it
  CHECK_THAT(r.stdout_text, Contains("campaign ended: agents_done; 4 candidates in the store, 4 gated in this run"));

  // The store holds both agents' records, the first correct one admitted against the baseline.
  std::map<std::string, int> per_agent;
  std::size_t admitted = 0;
  for (const auto& rec : jsonl_lines(ws / "state" / "store" / "store.jsonl")) {
    if (rec.value("type", "") != "candidate") continue;
    ++per_agent[rec.value("agent", "")];
    admitted += rec["gate"].value("verdict", "") == "admitted";
    CHECK(rec["report"].value("error", "").empty());
  }
  CHECK(per_agent == std::map<std::string, int>{{"r1", 2}, {"r2", 2}});
  CHECK(admitted >= 1);

  // Every evaluation went through the pool: at least one job per gated proposal (two, the
  // candidate's and the incumbent's, once there is an incumbent), each finished.
  const fs::path journal = ws / "state" / "executor" / "journal.jsonl";
  REQUIRE(fs::exists(journal));
  std::size_t submitted = 0, finished = 0;
  for (const auto& e : jsonl_lines(journal)) {
    const std::string event = e.value("event", "");
    submitted += event == "submitted";
    finished += event == "finished";
  }
  CHECK(finished == submitted);

  // The trace: both agents gated, each evaluation recorded with its agent; every one of them
  // (the gate's incumbent runs beside) was a job of the pool.
  std::set<std::string> gated, evaluated;
  std::size_t evaluations = 0;
  for (const auto& e : jsonl_lines(ws / "state" / "trace.jsonl")) {
    if (e.value("type", "") == "gated") gated.insert(e.value("agent", ""));
    if (e.value("type", "") == "evaluation") {
      evaluated.insert(e.value("agent", ""));
      ++evaluations;
    }
  }
  CHECK(gated == std::set<std::string>{"r1", "r2"});
  CHECK(evaluated == std::set<std::string>{"r1", "r2"});
  CHECK(evaluations >= 4);
  CHECK(submitted > evaluations);  // the gate's incumbent measured as jobs too, not only the candidates
}
