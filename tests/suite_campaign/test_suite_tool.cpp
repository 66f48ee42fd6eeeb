// `socratic suite SUITE.json` end to end: three toy CPU problems (inline campaign fields, each
// judged by a command evaluator, tests/suite_campaign/toy_problem) and three replay agents (the
// recorded CPU softmax campaign's versions) under the planner; the progress lines, the ending,
// the moves, the suite report and each problem's own report; then the same suite killed with
// SIGKILL at random points and run again until it ends: the same records, nothing counted twice.
#include "catch.hpp"

#include <dlfcn.h>

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

namespace {

/// A suite of two toy problems (`gain`, `stuck`) and two inbox agents whose mailboxes are under
/// `DIR/mail`: `m1` assigned to gain, `m2` to stuck, one proposal each per round; each agent has 2
/// turns per problem, so a pause that counted a turn would spend them before gain's goal.
fs::path write_inbox_suite(const fs::path& dir) {
  const fs::path rec = source_dir() / "demo" / "softmax-cpu";
  json problems = json::array();
  for (const std::string name : {"gain", "stuck"}) {
    fs::create_directories(dir / ("ws-" + name));
    fs::copy_file(rec / "baseline.cpp", dir / ("ws-" + name) / "candidate.cpp", fs::copy_options::overwrite_existing);
    problems.push_back({{"name", name},
                        {"workspace", "ws-" + name},
                        {"evaluator",
                         {{"kind", "command"},
                          {"command", {"bash", (toy() / "evaluate.sh").string(), "{candidate}", "{scenarios}",
                                       (toy() / ("table-" + name + ".txt")).string()}}}}});
  }
  const json suite{{"schema_version", 1},
                   {"state_dir", "state"},
                   {"defaults",
                    {{"problem", "toy_cpu"},
                     {"scenarios", (toy() / "scenarios.json").string()},
                     {"candidate", "candidate.cpp"},
                     {"questions", {{"kinds", {"cpu"}}}}}},
                   {"agent", {{"sandbox", "none"}}},
                   {"problems", problems},
                   {"agents",
                    {{"kind", "inbox"},
                     {"budget", {{"turns", 2}}},
                     {"roles", {{{"id", "m1"}, {"inbox", "mail/m1"}}, {{"id", "m2"}, {"folder", "mail/m2"}}}}}},
                   {"policy", {{"kind", "fixed"}, {"assign", {{"m1", "gain"}, {"m2", "stuck"}}}, {"proposals_per_round", 1}}},
                   {"budget", {{"proposals", 10}}}};
  write_text(dir / "suite.json", suite.dump(2));
  return dir / "suite.json";
}

/// Answers turn `n` of `mailbox` with the recorded version `hash` (the first 8 hex digits);
/// `ready`: its READY marker written last, as an outside agent must.
void answer_turn(const fs::path& mailbox, int n, const std::string& hash, bool ready, const std::string& message = {}) {
  const fs::path rec = source_dir() / "demo" / "softmax-cpu" / "candidates";
  const fs::path turn = mailbox / "inbox" / ("turn-" + std::to_string(n));
  fs::create_directories(turn);
  for (const auto& e : fs::directory_iterator(rec))
    if (e.path().filename().string().rfind(hash, 0) == 0) fs::copy_file(e.path(), turn / "candidate.cpp", fs::copy_options::overwrite_existing);
  REQUIRE(fs::exists(turn / "candidate.cpp"));
  if (!message.empty()) write_text(turn / "message.md", message);
  if (ready) write_text(turn / "READY", "");
}

int count_events(const fs::path& trace, const std::string& type) {
  int n = 0;
  for (const auto& e : read_trace(trace).events) n += e.value("type", "") == type;
  return n;
}

}  // namespace

TEST_CASE("socratic suite: inbox agents pause the suite, resume when their inbox is filled", "[suite][tool][inbox]") {
  const fs::path dir = fresh_dir("suite_inbox");
  const fs::path file = write_inbox_suite(dir);
  const fs::path state = dir / "state", m1 = dir / "mail" / "m1" / "gain", m2 = dir / "mail" / "m2" / "stuck";
  const auto trace_of = [&](const std::string& p) { return state / "problems" / p / "state" / "trace.jsonl"; };

  // First run: nothing in the inboxes. The suite pauses, each agent's turn 0 written to its outbox.
  const ProcessResult first = socratic_run({"suite", file.string()});
  INFO(first.stdout_text << first.stderr_text);
  CHECK(first.exit_code == 1);
  CHECK(first.stdout_text.find("suite paused: waiting_for_agent (gain: m1 waits for inbox/turn-0/READY in " + m1.string() +
                               " (written: outbox/turn-0.json)") != std::string::npos);
  CHECK(first.stdout_text.find("stuck: m2 waits for inbox/turn-0/READY") != std::string::npos);
  CHECK(first.stdout_text.find("resume with the same command") != std::string::npos);
  CHECK(first.stdout_text.find("  gain: open, 0 proposals") != std::string::npos);
  REQUIRE(fs::exists(m1 / "outbox" / "turn-0.json"));
  const json out0 = json::parse(read_text(m1 / "outbox" / "turn-0.json"));
  CHECK(out0["agent"] == "m1");
  CHECK(out0["problem"] == "gain");
  CHECK(out0["turn"] == 0);
  CHECK(out0["candidate"] == "candidate.cpp");
  CHECK(out0["workspace"] == (state / "problems" / "gain" / "agents" / "m1").string());
  CHECK(!out0["message"]["text"].get<std::string>().empty());
  CHECK(!out0.contains("gate"));
  // The report says the pause (not an ending).
  const json rep = json::parse(read_text(state / "report" / "suite-report.json"));
  CHECK(rep["end_reason"] == "");
  CHECK(rep["paused"].get<std::string>().find("waiting_for_agent (gain: m1 waits for inbox/turn-0/READY") == 0);
  CHECK(fs::exists(m2 / "outbox" / "turn-0.json"));
  // Not ended, not failed: no ending saved, no problem ended, no turn begun, no agent error.
  CHECK(suite_events(state, "suite_paused").size() == 1);
  CHECK(suite_events(state, "suite_ended").empty());
  CHECK(suite_events(state, "problem_ended").empty());
  CHECK(!json::parse(read_text(state / "suite.json"))["ended"].is_string());
  for (const std::string p : {"gain", "stuck"}) {
    CHECK(count_events(trace_of(p), "turn_started") == 0);
    CHECK(count_events(trace_of(p), "campaign_ended") == 0);
    CHECK(read_text(trace_of(p)).find("waiting_for_agent") != std::string::npos);
  }

  // m1 answers turn 0 (the recorded baseline version: admitted, the goal not met); m2 writes its
  // candidate but not READY (a half-written answer): not taken.
  answer_turn(m1, 0, "ab90c471", true, "turn 0: the baseline, as a start");
  answer_turn(m2, 0, "ab90c471", false);
  const ProcessResult second = socratic_run({"suite", file.string()});
  INFO(second.stdout_text << second.stderr_text);
  CHECK(second.exit_code == 1);
  CHECK(second.stdout_text.find("suite paused: waiting_for_agent") != std::string::npos);
  CHECK(second.stdout_text.find("m1 waits for inbox/turn-1/READY") != std::string::npos);
  CHECK(second.stdout_text.find("m2 waits for inbox/turn-0/READY") != std::string::npos);
  CHECK(store_keys(state, "gain").size() == 1);
  CHECK(store_keys(state, "stuck").empty());
  CHECK(count_events(trace_of("gain"), "turn_started") == 1);
  CHECK(count_events(trace_of("stuck"), "turn_started") == 0);
  CHECK(read_text(state / "problems" / "gain" / "agents" / "m1" / "candidate.cpp") ==
        read_text(m1 / "inbox" / "turn-0" / "candidate.cpp"));
  REQUIRE(fs::exists(m1 / "outbox" / "turn-1.json"));
  const json out1 = json::parse(read_text(m1 / "outbox" / "turn-1.json"));
  CHECK(out1["turn"] == 1);
  CHECK(out1["gate"]["record"] == "c0");
  CHECK(out1["gate"]["verdict"] == "admitted");
  CHECK(out1["message"]["text"].get<std::string>().find("Your proposal c0 was admitted") == 0);
  // The proposal's own figures, each workload as the gate measured it (the first: over the baseline).
  CHECK(out1["message"]["text"].get<std::string>().find("Per workload (speedup over the baseline):\n- ") !=
        std::string::npos);
  if (out1["message"].contains("question") && !out1["message"]["question"].is_null()) {
    CHECK(!out1["message"]["question"]["id"].get<std::string>().empty());
    CHECK(out1["message"]["text"].get<std::string>().find(out1["message"]["question"]["text"].get<std::string>()) !=
          std::string::npos);
  }
  // Its final message is the trace's turn end.
  CHECK(read_text(trace_of("gain")).find("turn 0: the baseline, as a start") != std::string::npos);

  // Both answer: m1's turn 1 (1.25x: gain's goal), m2's turn 0 made READY. Each agent has 2
  // turns on a problem: the pauses took none.
  answer_turn(m1, 1, "0135c9ab", true);
  write_text(m2 / "inbox" / "turn-0" / "READY", "");
  const ProcessResult third = socratic_run({"suite", file.string()});
  INFO(third.stdout_text << third.stderr_text);
  CHECK(third.stdout_text.find("  gain: goal met, 2 proposals, best c1 1.250x") != std::string::npos);
  CHECK(third.stdout_text.find("suite paused: waiting_for_agent") != std::string::npos);
  const auto gain_keys = store_keys(state, "gain");
  CHECK(gain_keys.size() == 2);
  CHECK(std::set<std::string>(gain_keys.begin(), gain_keys.end()).size() == 2);
  CHECK(count_events(trace_of("gain"), "turn_started") == 2);
  CHECK(store_keys(state, "stuck").size() == 1);
  CHECK(fs::exists(m2 / "outbox" / "turn-1.json"));
  // Gain met its goal: m1 moves to stuck, where its own mailbox starts at turn 0.
  CHECK(fs::exists(dir / "mail" / "m1" / "stuck" / "outbox" / "turn-0.json"));
  CHECK(suite_events(state, "problem_ended").size() == 1);
  CHECK(suite_events(state, "suite_ended").empty());
}

TEST_CASE("socratic suite: a setup no problem can run on is the person's to fix, and ends nothing", "[suite][tool]") {
  const fs::path dir = fresh_dir("suite_setup_fault");
  const fs::path file = write_toy_suite(dir);
  const std::string good = read_text(file);
  // Every problem judged by the CUDA evaluator, which has no problem "toy_cpu": no campaign can
  // start. The suite says so, names the cause, and saves no ending.
  json bad = json::parse(good);
  for (auto& p : bad["problems"]) p["evaluator"] = {{"kind", "cuda"}, {"arch", "sm_bogus"}};
  write_text(file, bad.dump(2));
  const ProcessResult first = socratic_run({"suite", file.string()});
  INFO(first.stdout_text + first.stderr_text);
  CHECK(first.exit_code == 2);
  CHECK(first.stderr_text.find("no problem of the suite could run") != std::string::npos);
  CHECK(first.stderr_text.find("unknown problem \"toy_cpu\"") != std::string::npos);
  CHECK(first.stderr_text.find("nothing was ended: fix it and run the same command again") != std::string::npos);
  const fs::path state = dir / "state";
  CHECK(suite_events(state, "suite_ended").empty());
  CHECK(suite_events(state, "suite_stopped").size() == 1);
  // Fixed, the same command goes on to the suite's own end.
  write_text(file, good);
  const ProcessResult second = socratic_run({"suite", file.string()});
  INFO(second.stdout_text + second.stderr_text);
  CHECK(second.stderr_text.find("it had ended before") == std::string::npos);
  const auto ended = suite_events(state, "suite_ended");
  REQUIRE(ended.size() == 1);
  CHECK(ended[0].value("reason", "") == "proposals_spent");
}

TEST_CASE("socratic suite: a suite problem's folder inline: its workloads, the entry point's skeleton, the task", "[suite][tool][inbox]") {
  // No GPU needed: the inbox agent pauses before any evaluation, so the suite stops at the first
  // message, which is what an outside agent starts from.
  const fs::path dir = fresh_dir("suite_problem_path");
  const fs::path problem = source_dir() / "tests" / "suite" / "problems" / "rmsnorm_h4096";
  const json suite{{"schema_version", 1},
                   {"state_dir", "state"},
                   {"defaults", {{"candidate", "candidate.cu"}, {"evaluator", {{"kind", "cuda"}, {"arch", "sm_90a"}}}}},
                   {"problems", json::array({{{"name", "norm"}, {"problem", fs::relative(problem, dir).string()},
                                              {"workspace", "ws"}}})},
                   {"agents", {{"kind", "inbox"}, {"roles", json::array({{{"id", "a1"}}})}}},
                   {"policy", {{"kind", "fixed"}, {"proposals_per_round", 1}}}};
  write_text(dir / "suite.json", suite.dump(2));
  const ProcessResult r = socratic_run({"suite", (dir / "suite.json").string()});
  INFO(r.stdout_text << r.stderr_text);
  CHECK(r.exit_code == 1);
  CHECK(r.stdout_text.find("suite paused: waiting_for_agent") != std::string::npos);
  // The workspace got the entry point's skeleton; the campaign every workload of the problem.
  CHECK(read_text(dir / "ws" / "candidate.cu").find("extern \"C\" void rmsnorm_h4096(") != std::string::npos);
  const json campaign = json::parse(read_text(dir / "state" / "problems" / "norm" / "campaign.json"));
  CHECK(campaign["problem"] == problem.lexically_normal().string());
  const json set = json::parse(read_text(campaign["scenarios"].get<std::string>()));
  std::vector<std::string> ids;
  for (const auto& s : set["scenarios"]) ids.push_back(s["id"]);
  CHECK(ids == std::vector<std::string>{"rms-b1", "rms-b128", "rms-b4096"});
  // The first message: the task names the entry point and the baseline; the start question.
  const json out = json::parse(read_text(dir / "mailboxes" / "a1" / "norm" / "outbox" / "turn-0.json"));
  const std::string text = out["message"]["text"];
  CHECK(text.find("entry point rmsnorm_h4096") != std::string::npos);
  CHECK(text.find("eager PyTorch") != std::string::npos);
  CHECK(out["message"]["question"]["trigger"] == "start");

  // Answered on a machine without a GPU: the judge cannot start. That is the person's to fix:
  // nothing is stored, the turn is not spent, no verdict or question goes to the agent, and the
  // suite ends nothing (the same command judges the proposal where a GPU is).
  if (void* cuda = ::dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL)) {
    ::dlclose(cuda);
    WARN("a CUDA driver is present: the no-GPU half of this case does not apply here");
    return;
  }
  const fs::path answer = dir / "mailboxes" / "a1" / "norm" / "inbox" / "turn-0";
  fs::create_directories(answer);
  fs::copy_file(source_dir() / "tests" / "suite_gpu" / "rmsnorm_h4096.cu", answer / "candidate.cu");
  write_text(answer / "READY", "");
  const ProcessResult again = socratic_run({"suite", (dir / "suite.json").string()});
  INFO(again.stdout_text << again.stderr_text);
  CHECK(again.exit_code == 2);
  CHECK(again.stderr_text.find("no problem of the suite could run") != std::string::npos);
  CHECK(again.stderr_text.find("needs a GPU") != std::string::npos);
  CHECK(again.stderr_text.find("not the candidate's fault") != std::string::npos);
  CHECK(store_keys(dir / "state", "norm").empty());
  CHECK_FALSE(fs::exists(dir / "mailboxes" / "a1" / "norm" / "outbox" / "turn-1.json"));
  CHECK(suite_events(dir / "state", "suite_ended").empty());
}
