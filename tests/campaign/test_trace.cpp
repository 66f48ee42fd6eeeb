#include "catch.hpp"

#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>

#include <thread>

#include "child_modes.hpp"
#include "fixtures.hpp"
#include "socratic/process/run_process.hpp"

extern char** environ;

using namespace socratic;
using namespace fixtures;

TEST_CASE("trace lines round-trip and carry version, sequence and time", "[trace]") {
  auto dir = fresh_dir("trace_rt");
  const auto path = dir / "t.jsonl";
  {
    TraceWriter w(path);
    CHECK(w.write({{"type", "a"}, {"x", 1}}) == 0);
    CHECK(w.write({{"type", "b"}, {"report", report_with(1.5, 2.0)}}) == 1);
    w.sync();
  }
  auto contents = read_trace(path);
  REQUIRE(contents.events.size() == 2);
  CHECK_FALSE(contents.truncated_tail);
  CHECK(contents.events[0]["v"] == trace_version);
  CHECK(contents.events[0]["time"].get<std::string>().size() == 24);
  CHECK(contents.events[1]["report"].get<EvalReport>().find("b")->speedup == 2.0);
  {  // a second writer continues the sequence
    TraceWriter w(path);
    CHECK(w.write({{"type", "c"}}) == 2);
  }
  CHECK(read_trace(path).events.size() == 3);
  CHECK_THROWS_WITH(TraceWriter(path).write({{"no_type", 1}}), Catch::Matchers::Contains("type"));
}

TEST_CASE("a truncated last line is dropped and the writer repairs it", "[trace]") {
  auto dir = fresh_dir("trace_trunc");
  const auto path = dir / "t.jsonl";
  {
    TraceWriter w(path);
    w.write({{"type", "a"}});
    w.write({{"type", "b"}});
  }
  {
    std::ofstream out(path, std::ios::app);
    out << R"({"type":"evaluation","record":{"ind)";  // killed mid-line
  }
  auto contents = read_trace(path);
  CHECK(contents.truncated_tail);
  CHECK(contents.events.size() == 2);
  {
    TraceWriter w(path);  // cuts the partial line before appending
    CHECK(w.write({{"type", "c"}}) == 2);
  }
  auto repaired = read_trace(path);
  CHECK_FALSE(repaired.truncated_tail);
  REQUIRE(repaired.events.size() == 3);
  CHECK(repaired.events[2]["type"] == "c");

  SECTION("a complete JSON object without its newline is also a cut line") {
    std::ofstream(path, std::ios::app) << R"({"type":"d","seq":3})";
    auto c = read_trace(path);
    CHECK(c.truncated_tail);
    CHECK(c.events.size() == 3);
  }
}

TEST_CASE("a corrupt line in the middle is an error naming the line", "[trace]") {
  auto dir = fresh_dir("trace_corrupt");
  const auto path = dir / "t.jsonl";
  std::ofstream(path) << "{\"type\":\"a\",\"seq\":0}\n{\"type\":\"b\",\"se\n{\"type\":\"c\",\"seq\":2}\n";
  CHECK_THROWS_WITH(read_trace(path), Catch::Matchers::Contains("t.jsonl") &&
                                          Catch::Matchers::Contains("line 2") &&
                                          Catch::Matchers::Contains("corrupt"));
  std::ofstream(path) << "{\"type\":\"a\"}\n[1,2]\n{\"type\":\"c\"}\n";
  CHECK_THROWS_WITH(read_trace(path), Catch::Matchers::Contains("line 2") &&
                                          Catch::Matchers::Contains("without a string \"type\""));
  std::ofstream(path) << "{\"type\":\"a\",\"v\":99}\n";
  CHECK_THROWS_WITH(read_trace(path), Catch::Matchers::Contains("newer"));
  CHECK_THROWS_WITH(read_trace(dir / "absent.jsonl"), Catch::Matchers::Contains("cannot open"));
}

TEST_CASE("a campaign killed with SIGKILL resumes from its trace", "[campaign][resume]") {
  auto dir = fresh_dir("resume");
  const std::string ready = (dir / "ready").string();
  std::vector<std::string> args = socratic::test::child_command("resume-campaign", {dir.string(), ready});
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  REQUIRE(posix_spawn(&pid, argv[0], nullptr, nullptr, argv.data(), environ) == 0);
  for (int i = 0; i < 600 && !std::filesystem::exists(ready); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  REQUIRE(std::filesystem::exists(ready));
  REQUIRE(::kill(pid, SIGKILL) == 0);
  int status = 0;
  ::waitpid(pid, &status, 0);
  REQUIRE(WIFSIGNALED(status));

  // What the killed campaign left: 2 turns started, 3 evaluations, 2 questions, no ending.
  const CampaignConfig cfg = config_in(dir);
  const auto before = summarize_trace(read_trace(cfg.state_dir / "trace.jsonl").events);
  CHECK_FALSE(before.ended);
  CHECK(before.turns_started == 2);
  CHECK(before.state.evaluations.size() == 3);
  CHECK(before.state.asked.size() == 2);
  REQUIRE(before.state.best() != nullptr);
  CHECK(before.state.best()->index == 2);

  // The second turn (turn 1) was cut off: it is open when the trace ends, counted while it may
  // still be running.
  REQUIRE(before.open_turns.size() == 1);
  CHECK(before.open_turns[0].turn == 1);
  CHECK(before.state.spent.turns == 2);

  // Lose the workspace's candidate too: resume restores the best snapshot.
  std::filesystem::remove(cfg.candidate.source);
  // Two turns in all: the cut one gives its turn back, so the resumed campaign still gets one.
  CampaignConfig resumed_cfg = cfg;
  resumed_cfg.budget.turns = 2;

  PreparedEvaluator evaluator;
  evaluator.reports["v1"] = report_with(1.0, 1.0);
  evaluator.reports["v2"] = report_with(1.1, 1.3);
  evaluator.reports["v3"] = report_with(1.4, 1.5);
  std::string restored_content;
  ScriptedAgent agent;
  agent.steps = {Step{"v3", false, "now faster"}};
  agent.steps[0].during = [&] { /* content was overwritten already; checked via the trace */ };
  FixedQuestionSource questions;
  // Record what the workspace held before the agent wrote anything.
  struct Peek {
    ScriptedAgent& inner;
    std::string& seen;
    TurnResult turn(const Message& m, Tools& t) {
      seen = read_text(t.candidate().source);
      return inner.turn(m, t);
    }
  } peek{agent, restored_content};
  Campaign campaign(peek, evaluator, questions, speedup_goal(), resumed_cfg);
  CampaignResult result = campaign.run();

  CHECK(result.goal_met);
  CHECK(restored_content == "v2");
  REQUIRE(agent.received.size() == 1);
  const Message& m = agent.received[0];
  CHECK(m.resumed);
  CHECK(m.turn == 2);
  CHECK(m.text.find("resumed") != std::string::npos);
  CHECK(m.text.find("evaluation #2") != std::string::npos);
  CHECK(m.text.find("Turn 1 was cut off before it ended") != std::string::npos);
  // Budgets continue from what was spent: 1 whole turn before the kill (the cut one is given
  // back) + 1 now; turn numbers are not reused.
  CHECK(result.spent.turns == 2);
  CHECK(result.spent.evaluations == 4);
  CHECK(result.spent.agent_evaluations == 2);
  // History and questions carried over; no question id asked twice.
  CHECK(campaign.state().evaluations.size() == 4);
  std::set<std::string> ids;
  for (const auto& a : campaign.state().asked) CHECK(ids.insert(a.question.id).second);
  const auto events = read_trace(result.trace_path).events;
  int resumed = 0, restored = 0;
  for (const auto& e : events) {
    resumed += e["type"] == "campaign_resumed";
    restored += e["type"] == "candidate_restored";
  }
  CHECK(resumed == 1);
  CHECK(restored == 1);
  for (const auto& e : events)
    if (e["type"] == "campaign_resumed") CHECK(e["cut_turns"] == json::array({{{"agent", "main"}, {"turn", 1}}}));
  // Read again (a later resume, a report), the trace says the same.
  const TraceSummary after = summarize_trace(events);
  REQUIRE(after.cut_turns.size() == 1);
  CHECK(after.cut_turns[0].turn == 1);
  CHECK(after.open_turns.empty());
  CHECK(after.state.spent.turns == 2);
}

TEST_CASE("a campaign without an id is named after its state folder, or the workspace when that is hidden",
          "[campaign][trace]") {
  CHECK(socratic::detail::default_campaign_id("runs/attention-7") == "attention-7");
  CHECK(socratic::detail::default_campaign_id("runs/attention-7/") == "attention-7");
  CHECK(socratic::detail::default_campaign_id("/work/ws/.socratic") == "ws");
  CHECK(socratic::detail::default_campaign_id("/work/ws/.socratic/") == "ws");
}

TEST_CASE("a test program's unknown child mode exits 2 naming the modes it has", "[campaign][resume]") {
  socratic::ProcessOptions o;
  o.timeout = std::chrono::seconds(30);
  const socratic::ProcessResult r = socratic::run_process(socratic::test::child_command("no-such-mode", {}), o);
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.stderr_text, Catch::Matchers::Contains("--child MODE") && Catch::Matchers::Contains("resume-campaign"));
}
