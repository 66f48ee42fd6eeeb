// `socratic run` at the agent's boundary, as an outside tester tries it: a scripted model on the
// loopback server drives the real tool on the CPU problem (a campaign made by `socratic init`)
// and tries to rewrite its judge through the shell, to read the API key through /proc, to
// clobber the campaign's trace, to leave a shell command running past a killed tool; and the
// model's server fails (transient errors, a refused key) or has a small window.
#include "catch.hpp"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "loopback_server.hpp"
#include "socratic/agents/replay_backend.hpp"
#include "socratic/record/trace.hpp"
#include "socratic/record/trace_state.hpp"
#include "socratic/core/detail/sha256.hpp"
#include "socratic/process/run_process.hpp"
#include "test_util.hpp"

#ifdef SOCRATIC_TOOL_PATH
namespace run_boundary {

using namespace socratic;
using namespace socratic::testing;
namespace fs = std::filesystem;

std::string text_of(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}
void put_text(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary) << text;
}

/// One Chat Completions answer, streamed: text and/or tool calls ({id, name, arguments}), and
/// the prompt's size in tokens as the server counted it.
std::string chat_stream(const std::string& text, const json& calls = json::array(), long long prompt_tokens = 800) {
  auto chunk = [](const json& delta, const json& finish) {
    return "data: " +
           json{{"model", "test-model"}, {"choices", {{{"index", 0}, {"delta", delta}, {"finish_reason", finish}}}}}.dump() +
           "\n\n";
  };
  std::string out;
  if (!text.empty()) out += chunk({{"content", text}}, nullptr);
  for (std::size_t i = 0; i < calls.size(); ++i)
    out += chunk({{"tool_calls", {{{"index", i}, {"id", calls[i]["id"]}, {"type", "function"},
                                   {"function", {{"name", calls[i]["name"]}, {"arguments", calls[i]["arguments"].dump()}}}}}}},
                 nullptr);
  out += chunk(json::object(), calls.empty() ? "stop" : "tool_calls");
  out += "data: " + json{{"choices", json::array()}, {"usage", {{"prompt_tokens", prompt_tokens}, {"completion_tokens", 90}}}}.dump() + "\n\n";
  return out + "data: [DONE]\n\n";
}
ScriptedReply say(const std::string& text) { return ScriptedReply::sse({chat_stream(text)}); }
ScriptedReply shell(const std::string& id, const std::string& command, int timeout_s = 60) {
  return ScriptedReply::sse({chat_stream("", json::array({{{"id", id}, {"name", "run_shell"},
                                                          {"arguments", {{"command", command}, {"timeout_s", timeout_s}}}}}))});
}
ScriptedReply call(const std::string& id, const std::string& tool, const json& arguments) {
  return ScriptedReply::sse({chat_stream("", json::array({{{"id", id}, {"name", tool}, {"arguments", arguments}}}))});
}

const std::string run_key = "sk-run-boundary-0123456789abcdefXYZ";

/// A campaign made by `socratic init` on a copy of the CPU problem (its judge, which the tests may
/// watch being attacked), its model on `server`.
struct RunCampaign {
  TempDir tmp;
  fs::path judge, dir, ws;
  explicit RunCampaign(const std::string& name, const ScriptedServer& server, const json& agent_extra = json::object(),
                       const std::string& baseline = "fast_tail_bug.cpp")
      : tmp(name) {
    judge = tmp.path / "judge";
    fs::copy(fs::path(SOCRATIC_SOURCE_DIR) / "tests" / "tool" / "cpu_problem", judge);
    dir = tmp.path / "campaign";
    ws = dir / "workspace";
    ProcessOptions po;
    po.timeout = std::chrono::seconds(60);
    const ProcessResult init = run_process(
        {SOCRATIC_TOOL_PATH, "init", dir.string(), "--problem", "softmax_cpu", "--scenarios",
         (judge / "scenarios.json").string(), "--baseline", (judge / baseline).string(), "--evaluator-command",
         "bash " + (judge / "evaluate.sh").string() + " {candidate} {scenarios}", "--goal", R"({"all_correct":{}})",
         "--turns", "2", "--agent", "none"},
        po);
    INFO(init.describe() << init.stdout_text << init.stderr_text);
    REQUIRE(init.ok());
    json c = json::parse(text_of(dir / "campaign.json"));
    c["agent"]["backend"] = "openai";
    c["agent"]["model"] = "test-model";
    c["agent"]["base_url"] = server.url() + "/v1";
    c["agent"]["api_key_env"] = "SOCRATIC_RUN_BOUNDARY_KEY";
    c["agent"]["retry"] = {{"max_time_s", 20}, {"max_retries", 8}, {"initial_delay_s", 0.05}};
    for (auto it = agent_extra.begin(); it != agent_extra.end(); ++it) c["agent"][it.key()] = it.value();
    put_text(dir / "campaign.json", c.dump(2));
  }
  fs::path trace() const { return dir / "state" / "trace.jsonl"; }
  ProcessOptions options() const {
    ProcessOptions po;
    std::vector<std::string> env;
    for (const auto& e : scrubbed_environment())
      if (e.find("proxy=") == std::string::npos && e.find("PROXY=") == std::string::npos) env.push_back(e);
    env.push_back("SOCRATIC_RUN_BOUNDARY_KEY=" + run_key);
    po.environment = env;
    po.timeout = std::chrono::seconds(180);
    return po;
  }
  ProcessResult run() const { return run_process({SOCRATIC_TOOL_PATH, "run", (dir / "campaign.json").string()}, options()); }
  std::vector<json> events(const std::string& type) const {
    std::vector<json> out;
    for (const auto& e : read_trace(trace()).events)
      if (e.value("type", "") == type) out.push_back(e);
    return out;
  }
  std::vector<json> agent_events(const std::string& type) const {
    std::vector<json> out;
    for (const auto& e : events("agent_event"))
      if (e["event"].value("type", "") == type) out.push_back(e["event"]);
    return out;
  }
  std::string ended() const {
    const auto e = events("campaign_ended");
    return e.empty() ? std::string() : e.back().value("reason", "");
  }
};

/// Pids of live, non-zombie processes whose command line contains `marker`.
int processes_with(const std::string& marker) {
  int n = 0;
  for (const auto& e : fs::directory_iterator("/proc")) {
    const std::string name = e.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::string cmd = text_of(e.path() / "cmdline");
    std::replace(cmd.begin(), cmd.end(), '\0', ' ');
    const std::string stat = text_of(e.path() / "stat");
    const auto close = stat.rfind(')');
    if (close != std::string::npos && stat.size() > close + 2 && stat[close + 2] == 'Z') continue;
    if (cmd.find(marker) != std::string::npos) ++n;
  }
  return n;
}

}  // namespace run_boundary

using namespace run_boundary;

TEST_CASE("socratic run: the model rewrites the evaluator's script through the shell", "[agents][tool][boundary]") {
  const std::string perfect =
      R"(echo '{"schema_version":1,"built":true,"expected":["r2048_c64","r512_c1000","r128_c4097"],"scenarios":[)"
      R"({"id":"r2048_c64","correct":true,"speedup":10},{"id":"r512_c1000","correct":true,"speedup":10},)"
      R"({"id":"r128_c4097","correct":true,"speedup":10}]}')";
  ScriptedServer server;
  SECTION("in the sandbox the judge is not there to change") {
    RunCampaign c("run_escape", server);
    const std::string before = socratic::detail::sha256_file(c.judge / "evaluate.sh");
    server.push(shell("c1", "cat " + (c.dir / "campaign.json").string() + " | wc -c; printf '%s\\n' \"" + perfect +
                                "\" > " + (c.judge / "evaluate.sh").string() + "; wc -c < " + (c.judge / "evaluate.sh").string()));
    for (int i = 0; i < 4; ++i) server.push(say("Done: 10x on every scenario."));
    const ProcessResult r = c.run();
    INFO(r.stdout_text << r.stderr_text);
    CHECK(r.exit_code == 1);  // the goal does not hold: the candidate is still wrong on one scenario
    CHECK(c.ended() != "goal_met");
    CHECK(socratic::detail::sha256_file(c.judge / "evaluate.sh") == before);
    const auto shells = c.agent_events("tool_result");
    REQUIRE_FALSE(shells.empty());
    // Hidden, the campaign file and the judge's script can be neither read nor written.
    CHECK_THAT(shells[0]["output"].get<std::string>(),
               Catch::Matchers::Contains("campaign.json: Permission denied") &&
                   Catch::Matchers::Contains("evaluate.sh: Permission denied"));
    CHECK(c.agent_events("shell_sandbox").at(0)["kind"] == "bubblewrap");
    CHECK(c.events("judge_modified").empty());
  }
  SECTION("without the sandbox (the user's choice) the change is caught as judge_modified, naming the file") {
    RunCampaign c("run_escape_unboxed", server, {{"sandbox", "none"}});
    server.push(shell("c1", "printf '%s\\n' \"" + perfect + "\" > " + (c.judge / "evaluate.sh").string()));
    server.push(call("c2", "evaluate", json::object()));
    for (int i = 0; i < 4; ++i) server.push(say("Done: 10x on every scenario."));
    const ProcessResult r = c.run();
    INFO(r.stdout_text << r.stderr_text);
    CHECK(r.exit_code == 1);
    CHECK(c.ended() != "goal_met");
    CHECK_THAT(r.stderr_text, Catch::Matchers::Contains("agent.sandbox is \"none\""));
    const auto modified = c.events("judge_modified");
    REQUIRE_FALSE(modified.empty());
    CHECK_THAT(modified[0]["files"][0].get<std::string>(),
               Catch::Matchers::Contains((c.judge / "evaluate.sh").string() + " was modified"));
    CHECK(c.agent_events("shell_sandbox").at(0)["kind"] == "none");
    CHECK_FALSE(c.agent_events("judge_modified").empty());  // and the agent's own check after the turn
  }
}

TEST_CASE("socratic run: without a sandbox to be had it refuses at the start, saying how to opt out",
          "[agents][tool][boundary]") {
  ScriptedServer server;
  RunCampaign c("run_no_bwrap", server);
  ProcessOptions po = c.options();
  for (auto& e : *po.environment)
    if (e.rfind("PATH=", 0) == 0) e = "PATH=" + (c.tmp.path / "no-programs-here").string();  // no bwrap to be found
  const ProcessResult r = run_process({SOCRATIC_TOOL_PATH, "run", (c.dir / "campaign.json").string()}, po);
  INFO(r.stdout_text << r.stderr_text);
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.stderr_text, Catch::Matchers::Contains("the agent's shell cannot be sandboxed here") &&
                                Catch::Matchers::Contains("bubblewrap (\"bwrap\") is not installed") &&
                                Catch::Matchers::Contains("set agent.sandbox to \"none\""));
  CHECK(server.requests().empty());  // not one model call
}

TEST_CASE("socratic run: the shell sees no parent environment and no key", "[agents][tool][boundary][secrets]") {
  ScriptedServer server;
  RunCampaign c("run_key", server);
  server.push(shell("c1", "tr '\\0' '\\n' < /proc/$PPID/environ; cat /proc/[0-9]*/environ | tr '\\0' '\\n'; env; "
                          "ls /proc | grep -c '^[0-9]'"));
  for (int i = 0; i < 4; ++i) server.push(say("Done."));
  const ProcessResult r = c.run();
  INFO(r.stdout_text << r.stderr_text);
  const auto shells = c.agent_events("tool_result");
  REQUIRE_FALSE(shells.empty());
  const std::string out = shells[0]["output"];
  CHECK_THAT(out, Catch::Matchers::Contains("PATH="));  // it did read environments
  CHECK(out.find("SOCRATIC_RUN_BOUNDARY_KEY") == std::string::npos);
  CHECK(out.find("redacted") == std::string::npos);  // not even a redacted trace of it
  // What the model received back (the next request) holds no key either.
  REQUIRE(server.requests().size() >= 2);
  CHECK(server.requests()[1].body.find(run_key) == std::string::npos);
  CHECK(server.requests()[1].body.find("SOCRATIC_RUN_BOUNDARY_KEY") == std::string::npos);
  CHECK(server.requests()[0].header("authorization") == "Bearer " + run_key);  // it went to the server
  CHECK(text_of(c.trace()).find(run_key) == std::string::npos);
}

TEST_CASE("socratic run: the campaign's own files cannot be clobbered, even lying in the workspace",
          "[agents][tool][boundary]") {
  ScriptedServer server;
  RunCampaign c("run_state", server);
  // An older layout: the workspace is the campaign's folder, the state inside it.
  json file = json::parse(text_of(c.dir / "campaign.json"));
  file["workspace"] = ".";
  file["candidate"] = "workspace/candidate.cpp";
  file["state_dir"] = ".socratic";
  put_text(c.dir / "campaign.json", file.dump(2));
  const std::string campaign_text = text_of(c.dir / "campaign.json");
  server.push(call("c1", "write_file", {{"path", ".socratic/trace.jsonl"}, {"content", "lost\n"}}));
  server.push(call("c2", "write_file", {{"path", "campaign.json"}, {"content", "{}"}}));
  server.push(shell("c3", "echo lost > .socratic/trace.jsonl; echo '{}' > campaign.json; ls -A .socratic | wc -l"));
  for (int i = 0; i < 4; ++i) server.push(say("Done."));
  const ProcessResult r = c.run();
  INFO(r.stdout_text << r.stderr_text);
  const fs::path trace = c.dir / ".socratic" / "trace.jsonl";
  std::vector<json> results;
  for (const auto& e : read_trace(trace).events)  // the history is whole and readable
    if (e.value("type", "") == "agent_event" && e["event"].value("type", "") == "tool_result") results.push_back(e["event"]);
  REQUIRE(results.size() == 3);
  CHECK(results[0]["is_error"] == true);
  CHECK_THAT(results[0]["output"].get<std::string>(), Catch::Matchers::Contains("campaign's own files"));
  CHECK_THAT(results[1]["output"].get<std::string>(), Catch::Matchers::Contains("campaign's own files"));
  CHECK_THAT(results[2]["output"].get<std::string>(), Catch::Matchers::Contains("Read-only file system"));
  CHECK(text_of(c.dir / "campaign.json") == campaign_text);
  CHECK(read_trace(trace).events.at(0).value("type", "") == "campaign_started");
  // It can be reported, and resumed.
  const ProcessResult report = run_process({SOCRATIC_TOOL_PATH, "report", trace.string(), "--output",
                                            (c.tmp.path / "report.html").string()},
                                           c.options());
  INFO(report.stdout_text << report.stderr_text);
  CHECK(report.exit_code == 0);
}

TEST_CASE("socratic run killed with SIGKILL mid-command leaves no process behind; the resume finds the workspace untouched",
          "[agents][tool][boundary]") {
  ScriptedServer server;
  RunCampaign c("run_orphan", server);
  const std::string marker = "2.0" + std::to_string(::getpid());  // seconds, unique to this test
  server.push(shell("c1", "(sleep " + marker + "; echo late > late.txt) & sleep " + marker + "; echo on-time > on-time.txt"));
  for (int i = 0; i < 6; ++i) server.push(say("Done."));
  ProcessOptions po = c.options();
  std::atomic<bool> finished{false};
  std::thread first([&] {
    (void)run_process({SOCRATIC_TOOL_PATH, "run", (c.dir / "campaign.json").string()}, po);
    finished = true;
  });
  for (int i = 0; i < 500 && processes_with("sleep " + marker) < 2; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  REQUIRE(processes_with("sleep " + marker) >= 2);
  // The tool itself: the process whose command line is `socratic run <this campaign>` and whose
  // parent is this test (a child the tool has forked but not yet exec'd carries the same command
  // line for a moment; killing that one would leave the tool running).
  int tool_pid = 0;
  for (const auto& e : fs::directory_iterator("/proc")) {
    const std::string name = e.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::string cmd = text_of(e.path() / "cmdline");
    std::replace(cmd.begin(), cmd.end(), '\0', ' ');
    if (cmd.rfind(std::string(SOCRATIC_TOOL_PATH) + " run " + (c.dir / "campaign.json").string(), 0) != 0) continue;
    const std::string stat = text_of(e.path() / "stat");  // pid (comm) state ppid ...
    std::istringstream after(stat.substr(stat.rfind(')') + 1));
    std::string state;
    int ppid = 0;
    after >> state >> ppid;
    if (ppid == ::getpid()) tool_pid = std::stoi(name);
  }
  REQUIRE(tool_pid > 0);
  ::kill(tool_pid, SIGKILL);
  first.join();
  for (int i = 0; i < 100 && processes_with("sleep " + marker) > 0; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  CHECK(processes_with("sleep " + marker) == 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(2500));  // past the sleeps
  CHECK_FALSE(fs::exists(c.ws / "late.txt"));
  CHECK_FALSE(fs::exists(c.ws / "on-time.txt"));
  // Resumed, the campaign goes on in a workspace that nothing else writes.
  const ProcessResult again = c.run();
  INFO(again.stdout_text << again.stderr_text);
  CHECK_FALSE(c.ended().empty());
  CHECK_FALSE(fs::exists(c.ws / "late.txt"));
}

/// The pid of `socratic run CAMPAIGN` started by this test (not a child it forked, which carries
/// the same command line for a moment).
int tool_pid_running(const fs::path& campaign) {
  for (const auto& e : fs::directory_iterator("/proc")) {
    const std::string name = e.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::string cmd = text_of(e.path() / "cmdline");
    std::replace(cmd.begin(), cmd.end(), '\0', ' ');
    if (cmd.rfind(std::string(SOCRATIC_TOOL_PATH) + " run " + campaign.string(), 0) != 0) continue;
    const std::string stat = text_of(e.path() / "stat");  // pid (comm) state ppid ...
    std::istringstream after(stat.substr(stat.rfind(')') + 1));
    std::string state;
    int ppid = 0;
    after >> state >> ppid;
    if (ppid == ::getpid()) return std::stoi(name);
  }
  return 0;
}

TEST_CASE("socratic run stopped by Ctrl-C mid-evaluation: the evaluator's children die, the notice says what was kept "
          "and how to resume, and the cut turn is given back",
          "[agents][tool][boundary][interrupt]") {
  ScriptedServer server;
  RunCampaign c("run_interrupt", server);
  // The evaluator's harness starts children of its own (one in the background, its output
  // elsewhere): grandchildren of the tool, out of reach of the parent-death signal.
  // Only while the flag file exists: the judge is the same file when the campaign resumes.
  const std::string marker = "30.0" + std::to_string(::getpid());
  const fs::path flag = c.tmp.path / "slow";
  put_text(flag, "");
  const std::string script = text_of(c.judge / "evaluate.sh");
  put_text(c.judge / "evaluate.sh", "#!/usr/bin/env bash\nif [ -e " + flag.string() + " ]; then sleep " + marker +
                                        " >/dev/null 2>&1 & sleep " + marker + "; fi\n" +
                                        script.substr(script.find('\n') + 1));
  server.push(call("e1", "evaluate", json::object()));
  for (int i = 0; i < 6; ++i) server.push(say("Done."));
  const fs::path campaign = c.dir / "campaign.json";
  ProcessResult first;
  std::thread runner([&] { first = run_process({SOCRATIC_TOOL_PATH, "run", campaign.string()}, c.options()); });
  for (int i = 0; i < 500 && processes_with("sleep " + marker) < 2; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  const int evaluating = processes_with("sleep " + marker);
  const int tool = tool_pid_running(campaign);
  if (tool > 0) ::kill(tool, SIGINT);
  runner.join();
  INFO(first.stdout_text << first.stderr_text);
  REQUIRE(evaluating == 2);
  REQUIRE(tool > 0);
  CHECK(first.signal == SIGINT);
  for (int i = 0; i < 100 && processes_with("sleep " + marker) > 0; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  CHECK(processes_with("sleep " + marker) == 0);
  CHECK_THAT(first.stderr_text, Catch::Matchers::Contains("stopped by Ctrl-C (SIGINT). Kept:") &&
                                    Catch::Matchers::Contains("trace      " + c.trace().string() + " (0 whole turns") &&
                                    Catch::Matchers::Contains((c.dir / "state" / "candidates").string()) &&
                                    Catch::Matchers::Contains("Turn 0 of agent main was cut off") &&
                                    Catch::Matchers::Contains("Resume with:\n  socratic run " + campaign.string()));

  // Resumed: the cut turn is given back (the campaign has 2 turns, and gets 2 more) and said so.
  fs::remove(flag);
  const ProcessResult again = c.run();
  INFO(again.stdout_text << again.stderr_text);
  const auto resumed = c.events("campaign_resumed");
  REQUIRE(resumed.size() == 1);
  CHECK(resumed[0]["cut_turns"] == json::array({{{"agent", "main"}, {"turn", 0}}}));
  const auto started = c.events("turn_started");
  REQUIRE(started.size() >= 2);
  CHECK_THAT(started[1]["message"]["text"].get<std::string>(), Catch::Matchers::Contains("Turn 0 was cut off"));
  CHECK(summarize_trace(read_trace(c.trace()).events).state.spent.turns == static_cast<int>(started.size()) - 1);
}

TEST_CASE("socratic run: transient server failures are retried; a refused key ends with the whole reason",
          "[agents][tool][boundary][retry]") {
  ScriptedServer server;
  SECTION("529s, a reset and a garbled chunk, then answers: the campaign reaches its goal") {
    RunCampaign c("run_transient", server, json::object(), "fast_fixed.cpp");
    const auto overloaded = ScriptedReply::json_reply(529, {{"error", {{"type", "overloaded_error"}, {"message", "Overloaded"}}}});
    server.push(overloaded);
    server.push(overloaded);
    ScriptedReply reset;
    reset.fault = ScriptedReply::Fault::reset;
    server.push(reset);
    server.push(ScriptedReply::sse({"data: {\"choices\": [{\"delta\": \n\n"}));
    server.push(say("Done: every scenario is correct."));
    const ProcessResult r = c.run();
    INFO(r.stdout_text << r.stderr_text);
    CHECK(r.exit_code == 0);
    CHECK(c.ended() == "goal_met");
    CHECK(server.requests().size() == 5);
    // Each retry said on the terminal as it happened: the cause, the attempt, the wait.
    CHECK_THAT(r.stderr_text, Catch::Matchers::Contains("model server: POST") &&
                                  Catch::Matchers::Contains("retry 1 in") && Catch::Matchers::Contains("retry 4 in") &&
                                  Catch::Matchers::Contains("529"));
    // ... and in the trace, as agent events of the turn, which every reader of the trace takes.
    const auto retries = c.agent_events("retry");
    REQUIRE(retries.size() == 4);
    CHECK(retries[0]["cause"] == "overloaded");
    CHECK(retries[0]["status"] == 529);
    CHECK(retries[3]["attempt"] == 4);
    CHECK(retries[3]["wait_ms"].get<long long>() > 0);
    CHECK(summarize_trace(read_trace(c.trace()).events).end_reason == StopReason::goal_met);
    CHECK_NOTHROW(ReplayBackend::from_trace(c.trace()));
  }
  SECTION("nothing listens at the base URL: named within seconds, the campaign ends with that reason") {
    RunCampaign c("run_nothing_listens", server, {{"base_url", "http://127.0.0.1:1/v1"},
                                                  {"retry", {{"max_time_s", 600}, {"max_retries", 100}, {"initial_delay_s", 0.05}}}});
    const auto began = std::chrono::steady_clock::now();
    const ProcessResult r = c.run();
    INFO(r.stdout_text << r.stderr_text);
    CHECK(r.exit_code == 1);
    CHECK(std::chrono::steady_clock::now() - began < std::chrono::seconds(60));
    CHECK(c.ended() == "agent_error");
    const auto ended = c.events("campaign_ended");
    REQUIRE(ended.size() == 1);
    CHECK_THAT(ended[0].value("detail", ""), Catch::Matchers::Contains("nothing is listening on 127.0.0.1:1") &&
                                                 Catch::Matchers::Contains("refused 5 times in a row"));
    CHECK_THAT(r.stderr_text, Catch::Matchers::Contains("nothing is listening on 127.0.0.1:1"));
    CHECK(c.agent_events("retry").size() == 4);
  }
  SECTION("no key for a server elsewhere: refused at the start, naming the variable, nothing sent") {
    RunCampaign c("run_no_key", server, {{"base_url", "https://api.example.invalid/v1"},
                                         {"api_key_env", "SOCRATIC_RUN_NO_SUCH_KEY"}});
    const auto began = std::chrono::steady_clock::now();
    const ProcessResult r = c.run();
    INFO(r.stdout_text << r.stderr_text);
    CHECK(r.exit_code != 0);
    CHECK(std::chrono::steady_clock::now() - began < std::chrono::seconds(30));
    CHECK_THAT(r.stderr_text, Catch::Matchers::Contains("no API key for https://api.example.invalid") &&
                                  Catch::Matchers::Contains("SOCRATIC_RUN_NO_SUCH_KEY"));
    CHECK(server.requests().empty());
  }
  SECTION("a 401 is not retried, and the reason names the call, the status and where the key came from") {
    RunCampaign c("run_refused", server);
    server.push(ScriptedReply::json_reply(401, {{"error", {{"type", "invalid_request_error"}, {"code", "invalid_api_key"},
                                                           {"message", "Incorrect API key provided: sk-run-b***XYZ."}}}}));
    const ProcessResult r = c.run();
    INFO(r.stdout_text << r.stderr_text);
    CHECK(r.exit_code == 1);
    CHECK(c.ended() == "agent_error");
    CHECK(server.requests().size() == 1);
    const auto ended = c.events("turn_ended");
    REQUIRE_FALSE(ended.empty());
    const std::string why = ended.back()["result"].value("error", "");
    CHECK_THAT(why, Catch::Matchers::Contains("model call 1 of turn 0 (model test-model)") &&
                        Catch::Matchers::Contains("answered 401") &&
                        Catch::Matchers::Contains("environment variable SOCRATIC_RUN_BOUNDARY_KEY") &&
                        Catch::Matchers::Contains("not retried"));
    CHECK(text_of(c.trace()).find(run_key) == std::string::npos);
  }
}

TEST_CASE("socratic run: a model with a small window, set in the campaign file or learned", "[agents][tool][boundary][context]") {
  std::atomic<int> refusals{0};
  // Refuses requests over 24 KB as llama.cpp does (400, its window stated only in its own field).
  ScriptedServer server([&](const RecordedRequest& req) {
    if (req.body.size() > 24'000) {
      ++refusals;
      return ScriptedReply::json_reply(400, {{"error", {{"code", 400}, {"message", "the request exceeds the available context size, try increasing it"},
                                                         {"type", "exceed_context_size_error"}, {"n_ctx", 6000}}}});
    }
    const json body = req.json_body();
    int results = 0;
    for (const auto& m : body["messages"]) results += m.value("role", "") == "tool" ? 1 : 0;
    const long long prompt = static_cast<long long>(req.body.size() / 4);
    if (results < 4)
      return ScriptedReply::sse({chat_stream("", json::array({{{"id", "r" + std::to_string(results)}, {"name", "run_shell"},
                                                               {"arguments", {{"command", "head -c 9000 /dev/zero | tr '\\0' x"}}}}}), prompt)});
    return ScriptedReply::sse({chat_stream("Done: every scenario is correct.", json::array(), prompt)});
  });
  SECTION("learned from the server's refusal") {
    RunCampaign c("run_window", server, json::object(), "fast_fixed.cpp");
    const ProcessResult r = c.run();
    INFO(r.stdout_text << r.stderr_text);
    CHECK(c.ended() == "goal_met");
    CHECK(refusals >= 1);
    CHECK(c.agent_events("context_shortened").at(0)["window"] == 6000);
  }
  SECTION("set in the campaign file: no refusal at all") {
    RunCampaign c("run_window_set", server, {{"context_window", 6000}}, "fast_fixed.cpp");
    const ProcessResult r = c.run();
    INFO(r.stdout_text << r.stderr_text);
    CHECK(c.ended() == "goal_met");
    CHECK(refusals == 0);
  }
}
#endif
