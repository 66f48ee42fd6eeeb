// `socratic suite SUITE.json` end to end: three toy CPU problems (inline campaign fields, each
// judged by a command evaluator, tests/suite_campaign/toy_problem) and three replay agents (the
// recorded CPU softmax campaign's versions) under the planner; the progress lines, the ending,
// the moves, the suite report and each problem's own report; then the same suite killed with
// SIGKILL at random points and run again until it ends: the same records, nothing counted twice.
#include "catch.hpp"

#include <sys/wait.h>

#include <random>
#include <set>
#include <thread>

#include "suite_fixtures.hpp"

using namespace socratic;
using namespace tool_fixtures;
using namespace suite_fixtures;

TEST_CASE("socratic suite: three CPU problems, three replay agents, the planner, the report", "[suite][tool]") {
  const fs::path dir = fresh_dir("suite_tool");
  const fs::path file = write_toy_suite(dir);
  const ProcessResult r = socratic_run({"suite", file.string()});
  INFO(r.stdout_text << r.stderr_text);
  REQUIRE(r.exit_code == 1);  // not every goal met
  CHECK(r.stdout_text.find("suite ended: proposals_spent (12 proposals; 2 of 3 goals met); 2 of 3 problems met their goal; "
                           "12 proposals in the stores") != std::string::npos);
  CHECK(r.stdout_text.find("  gain: goal met, 2 proposals, best c1 1.250x") != std::string::npos);
  CHECK(r.stdout_text.find("  stuck: open, 8 proposals, best c0") != std::string::npos);
  CHECK(r.stderr_text.find("socratic suite: 3 problems, 3 agents, policy planner") != std::string::npos);
  // One progress line per problem, per round (not a terminal: plain lines).
  CHECK(r.stderr_text.find("[gain] round 1 | agents r1 | 0 proposals | incumbent none | working") != std::string::npos);
  CHECK(r.stderr_text.find("[stuck] round 1 | agents r3 |") != std::string::npos);
  CHECK(r.stderr_text.find("[easy] round 3 | no agents | 2 proposals | incumbent c1 2.000x | goal met") != std::string::npos);

  const fs::path state = dir / "state";
  // r1 and r2 went to stuck once their problems met their goals, the reason logged.
  int moved_after_goal = 0;
  for (const auto& m : suite_events(state, "agent_moved"))
    if (m.value("to", "") == "stuck" && m.value("reason", "").find("finished (goal met)") != std::string::npos) ++moved_after_goal;
  CHECK(moved_after_goal == 2);
  CHECK(suite_events(state, "problem_ended").size() == 2);
  CHECK(store_keys(state, "gain").size() == 2);
  CHECK(store_keys(state, "easy").size() == 2);
  CHECK(store_keys(state, "stuck").size() == 8);
  // Each problem is a campaign of its own: its trace, its store, its agents' workspaces.
  CHECK(fs::exists(state / "problems" / "stuck" / "state" / "trace.jsonl"));
  CHECK(fs::exists(state / "problems" / "stuck" / "agents" / "r1" / "candidate.cpp"));
  CHECK(!fs::exists(state / "problems" / "gain" / "agents" / "r3"));  // r3 never worked on gain

  // The report: JSON, Markdown, HTML, and each problem's own.
  const json rep = json::parse(read_text(state / "report" / "suite-report.json"));
  REQUIRE(rep["problems"].size() == 3);
  CHECK(rep["end_reason"] == "proposals_spent");
  CHECK(rep["fast_p"]["1.0"].get<double>() == Approx(2.0 / 3));
  CHECK(rep["fast_p"]["1.5"].get<double>() == Approx(1.0 / 3));  // easy: 2x
  CHECK(rep["problems"][0]["geomean_speedup"].get<double>() == Approx(1.25));
  CHECK(rep["problems"][0]["roofline_fraction"].get<double>() == Approx(0.3125));
  CHECK(rep["problems"][0]["score"] == "absent");
  CHECK(rep["problems"][0]["report"] == "problems/gain.html");
  CHECK(rep["problems"][0]["gains"].size() == 2);
  CHECK(rep["problems"][0]["gains"][1]["origin"] == "question");
  CHECK(fs::exists(state / "report" / "problems" / "gain.html"));
  CHECK(read_text(state / "report" / "problems" / "stuck.html").find("data-candidate=") != std::string::npos);
  CHECK(read_text(state / "report" / "suite-report.md").find("| gain | goal met | c1 by r1 |") != std::string::npos);
  CHECK(read_text(state / "report" / "suite-report.html").find("<a href=\"problems/easy.html\">report</a>") != std::string::npos);

  // Run again: it had ended; nothing more.
  const ProcessResult again = socratic_run({"suite", file.string()});
  CHECK(again.stdout_text.find("it had ended before") != std::string::npos);
  CHECK(store_keys(state, "stuck").size() == 8);
  // --report alone, and a bad suite file named with its field.
  CHECK(socratic_run({"suite", file.string(), "--report", "-o", (dir / "r2").string()}).exit_code == 0);
  CHECK(fs::exists(dir / "r2" / "suite-report.html"));
  json bad = json::parse(read_text(file));
  bad["policy"]["kind"] = "lottery";
  write_text(dir / "bad.json", bad.dump());
  const ProcessResult b = socratic_run({"suite", (dir / "bad.json").string()});
  CHECK(b.exit_code == 2);
  CHECK(b.stderr_text.find("policy field \"kind\": \"lottery\" is not fixed or planner") != std::string::npos);
}

TEST_CASE("socratic suite: killed with SIGKILL at random points, resumed, nothing counted twice", "[suite][tool][kill]") {
  const fs::path dir = fresh_dir("suite_kill");
  const fs::path file = write_toy_suite(dir);
  const fs::path log = dir / "runs.log";
  std::mt19937 rng(2026);
  // The uninterrupted run takes about 2.7 s: kills every 100-600 ms land in every phase of it, and
  // at least three of them before it ends whenever it takes more than 1.8 s (three of the longest).
  // At most eight kills, then a run left to finish: on a loaded machine a run can need longer than
  // any delay to make progress, and the resume is what is tested, not the machine's speed.
  std::uniform_int_distribution<int> delay_ms(100, 600);
  int kills = 0;
  bool finished = false;
  while (kills < 8) {
    const pid_t pid = start_suite(file, log);
    const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(delay_ms(rng));
    int status = 0;
    while (std::chrono::steady_clock::now() < until)
      if (::waitpid(pid, &status, WNOHANG) == pid) {
        finished = true;
        break;
      } else {
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
      }
    if (finished) break;
    ::kill(pid, SIGKILL);
    ::waitpid(pid, &status, 0);
    ++kills;
  }
  if (!finished) {
    const pid_t pid = start_suite(file, log);
    int status = 0;
    ::waitpid(pid, &status, 0);
    finished = WIFEXITED(status);
  }
  INFO(read_text(log));
  REQUIRE(finished);
  CHECK(kills >= 3);
  const fs::path state = dir / "state";
  // The same as the uninterrupted run: 12 proposals, each key once, the same ending.
  std::size_t total = 0;
  for (const std::string p : {"gain", "easy", "stuck"}) {
    const auto keys = store_keys(state, p);
    INFO(p);
    CHECK(std::set<std::string>(keys.begin(), keys.end()).size() == keys.size());
    total += keys.size();
  }
  CHECK(total == 12);
  CHECK(store_keys(state, "gain").size() == 2);
  CHECK(store_keys(state, "easy").size() == 2);
  const auto ended = suite_events(state, "suite_ended");
  REQUIRE(ended.size() == 1);
  CHECK(ended[0].value("reason", "") == "proposals_spent");
  // Each round planned once, in order, and each problem's end logged once.
  std::vector<int> planned;
  for (const auto& e : suite_events(state, "round_planned")) planned.push_back(e.value("round", 0));
  for (std::size_t i = 0; i < planned.size(); ++i) CHECK(planned[i] == static_cast<int>(i) + 1);
  CHECK(suite_events(state, "problem_ended").size() == 2);
  CHECK(suite_events(state, "suite_started").size() == 1);
  // Each problem's campaign started once, resumed after the kills.
  for (const std::string p : {"gain", "easy", "stuck"}) {
    int started = 0;
    for (const auto& e : read_trace(state / "problems" / p / "state" / "trace.jsonl").events)
      started += e.value("type", "") == "campaign_started";
    CHECK(started == 1);
  }
}

TEST_CASE("socratic suite: one local pool serves every problem's evaluations", "[suite][tool][exec]") {
  const fs::path dir = fresh_dir("suite_pool");
  const fs::path file = write_toy_suite(dir);
  json suite = json::parse(read_text(file));
  suite["executor"] = {{"kind", "local"}, {"gpus", "0,1"}, {"build_workers", 0}};  // two fake GPUs
  suite["budget"] = {{"proposals", 6}};
  write_text(file, suite.dump(2));
  const ProcessResult r = socratic_run({"suite", file.string()});
  INFO(r.stdout_text << r.stderr_text);
  REQUIRE(r.exit_code == 1);
  CHECK(r.stdout_text.find("suite ended: proposals_spent (6 proposals; 2 of 3 goals met)") != std::string::npos);
  // One pool, one journal: the jobs of all three problems, each finished.
  const fs::path journal = dir / "state" / "executor" / "journal.jsonl";
  REQUIRE(fs::exists(journal));
  std::set<std::string> problems;
  std::size_t submitted = 0, finished = 0;
  std::istringstream lines(read_text(journal));
  for (std::string line; std::getline(lines, line);) {
    if (line.empty()) continue;
    const json e = json::parse(line);
    if (e.value("event", "") == "submitted") {
      ++submitted;
      problems.insert(fs::path(e["job"]["evaluator"].value("working_dir", "")).filename().string());
    }
    finished += e.value("event", "") == "finished";
  }
  CHECK(problems == std::set<std::string>{"gain", "easy", "stuck"});
  CHECK(submitted >= 6);
  CHECK(finished == submitted);
  for (const std::string p : {"gain", "easy", "stuck"}) CHECK(!fs::exists(dir / "state" / "problems" / p / "state" / "executor"));
}

TEST_CASE("socratic suite: a problems folder of campaign files, the real CPU softmax problem among them", "[suite][tool]") {
  const fs::path dir = fresh_dir("suite_dir");
  // The folder's problem: the CPU softmax campaign `socratic init` makes (its evaluator compiles
  // and times the candidate against the baseline, and checks it on every scenario).
  const ProcessResult init =
      init_cpu_campaign(dir / "more" / "softmax", "none", R"({"every_scenario_speedup_at_least": 1.5})");
  INFO(init.stdout_text << init.stderr_text);
  REQUIRE(init.ok());
  const fs::path file = write_toy_suite(dir);
  json suite = json::parse(read_text(file));
  suite["problems"] = json::array({suite["problems"][0]});  // gain, inline; then the folder's
  suite["problems_dir"] = "more";
  suite["agents"]["roles"] = json::array({suite["agents"]["roles"][0]});  // one agent: r1
  suite["policy"] = {{"kind", "fixed"}, {"proposals_per_round", 1}};
  suite["budget"] = {{"proposals", 4}};
  write_text(file, suite.dump(2));

  const ProcessResult r = socratic_run({"suite", file.string()});
  INFO(r.stdout_text << r.stderr_text);
  REQUIRE(r.exit_code == 1);
  CHECK(r.stdout_text.find("suite ended: proposals_spent (4 proposals; 1 of 2 goals met)") != std::string::npos);
  // r1 was dealt gain, then moved to softmax once gain met its goal.
  bool moved = false;
  for (const auto& m : suite_events(dir / "state", "agent_moved"))
    moved |= m.value("from", "") == "gain" && m.value("to", "") == "softmax" &&
             m.value("reason", "") == "gain finished (goal met); softmax has the fewest agents";
  CHECK(moved);
  // The folder's campaign kept its own layout: its state, its store, r1's workspace beside it.
  const fs::path softmax = dir / "more" / "softmax";
  StoreOptions ro;
  ro.read_only = true;
  const auto records = CandidateStore::open(softmax / "state" / "store", ro).summaries();
  REQUIRE(records.size() == 2);
  CHECK(records[0].verdict == GateOutcome::admitted);  // the baseline's bytes, correct
  CHECK(records[1].verdict == GateOutcome::failed);    // the recorded version with the tail bug: the real check caught it
  CHECK(fs::exists(softmax / "agents" / "r1" / "candidate.cpp"));
  const json rep = json::parse(read_text(dir / "state" / "report" / "suite-report.json"));
  REQUIRE(rep["problems"].size() == 2);
  CHECK(rep["problems"][1]["problem"] == "softmax");
  CHECK(rep["problems"][1]["judged"] == true);
  CHECK(rep["problems"][1]["scenarios"].size() == 3);
  CHECK(rep["problems"][1]["goal_met"] == false);
}
