// `socratic mcp` as a process: a scripted client over pipes speaks both protocol revisions to
// it on the CPU test problem's campaign (socratic init), evaluates through jobs, and goes away
// mid-evaluation; the campaign's trace records the calls.
#include "catch.hpp"

#include <thread>

#include "pipe_client.hpp"
#include "socratic/mcp/server.hpp"
#include "tool_fixtures.hpp"

using namespace tool_fixtures;
using mcp_test::PipeClient;
using socratic::json;

namespace {

std::vector<std::string> mcp_argv(const fs::path& campaign, std::vector<std::string> extra = {}) {
  std::vector<std::string> argv{socratic_exe().string(), "mcp", "--campaign", campaign.string()};
  argv.insert(argv.end(), extra.begin(), extra.end());
  return argv;
}

void handshake(PipeClient& c) {
  const json init = c.request(0, "initialize",
                              {{"protocolVersion", "2025-11-25"},
                               {"capabilities", json::object()},
                               {"clientInfo", {{"name", "scripted-client"}, {"version", "1"}}}});
  REQUIRE(init["result"]["protocolVersion"] == "2025-11-25");
  c.send(json{{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}});
}

json call(PipeClient& c, int id, const std::string& tool, const json& args, const json& meta = nullptr) {
  json params{{"name", tool}, {"arguments", args}};
  if (!meta.is_null()) params["_meta"] = meta;
  const json r = c.request(id, "tools/call", params);
  INFO(r.dump());
  REQUIRE(r.contains("result"));
  return r["result"];
}

std::string text_of(const json& result) { return result["content"][0]["text"].get<std::string>(); }

/// Polls `result` until the job is no longer queued or running.
json wait_for(PipeClient& c, int& id, const std::string& job, const json& meta = nullptr) {
  for (int i = 0; i < 20; ++i) {
    const json r = call(c, ++id, "result", {{"job", job}, {"wait_s", 15}}, meta);
    const std::string status = r["structuredContent"]["status"];
    if (status != "queued" && status != "running") return r;
  }
  FAIL("job " << job << " did not finish");
  return {};
}

fs::path cpu_campaign(const std::string& name, const std::vector<std::string>& extra = {}) {
  const fs::path dir = fresh_dir(name);
  const auto r = init_cpu_campaign(dir, "none", R"({"all_correct":{}})", extra);
  INFO(r.stdout_text << r.stderr_text);
  REQUIRE(r.ok());
  return dir;
}

}  // namespace

TEST_CASE("socratic mcp, 2025-11-25 over pipes: evaluate, result, ask, standing, all in the trace", "[mcp][stdio]") {
  const fs::path dir = cpu_campaign("mcp_handshake");
  write_text(workspace_of(dir) / "candidate.cpp", read_text(cpu_problem() / "fast_tail_bug.cpp"));
  PipeClient c(mcp_argv(dir / "campaign.json"), dir / "server.err");
  handshake(c);

  const json list = c.request(1, "tools/list");
  std::vector<std::string> names;
  for (const auto& t : list["result"]["tools"]) names.push_back(t["name"]);
  CHECK(names == std::vector<std::string>{"evaluate", "result", "ask", "scan", "standing"});

  int id = 1;
  const json started = call(c, ++id, "evaluate", {{"label", "unrolled"}});
  CHECK(started["isError"] == false);
  const std::string job = started["structuredContent"]["job"];
  CHECK(job.rfind("job-", 0) == 0);
  const json done = wait_for(c, id, job);
  INFO(done.dump(2));
  CHECK(done["isError"] == false);
  CHECK(done["structuredContent"]["status"] == "done");
  CHECK(done["structuredContent"]["goal_met"] == false);
  CHECK(done["structuredContent"]["evaluation_index"] == 0);
  const std::string table = text_of(done);
  CHECK(table.find("r128_c4097") != std::string::npos);
  CHECK(table.find("the goal does not hold") != std::string::npos);
  const fs::path report_file = done["structuredContent"]["report_file"].get<std::string>();
  CHECK(fs::exists(report_file));
  CHECK(json::parse(read_text(report_file))["scenarios"].size() == 3);

  const json asked = call(c, ++id, "ask", {{"trigger", "correctness_explained_away"}, {"evidence", "odd widths"}});
  CHECK(asked["isError"] == false);
  CHECK(text_of(asked).find("Question (correctness_explained_away)") != std::string::npos);
  const json bad_trigger = call(c, ++id, "ask", {{"trigger", "boredom"}});
  CHECK(bad_trigger["isError"] == true);
  CHECK(text_of(bad_trigger).find("unknown trigger \"boredom\"") != std::string::npos);

  // The fix, then the standing shows an incumbent that meets the goal.
  write_text(workspace_of(dir) / "candidate.cpp", read_text(cpu_problem() / "fast_fixed.cpp"));
  const json second = wait_for(c, id, call(c, ++id, "evaluate", json::object())["structuredContent"]["job"]);
  CHECK(second["structuredContent"]["goal_met"] == true);
  const json standing = call(c, ++id, "standing", json::object());
  INFO(text_of(standing));
  CHECK(standing["structuredContent"]["evaluations"] == 2);
  CHECK(standing["structuredContent"]["incumbent"]["evaluation_index"] == 1);
  CHECK(standing["structuredContent"]["incumbent"]["goal_met"] == true);
  CHECK(standing["structuredContent"]["best_per_scenario"].size() == 3);

  const json missing = call(c, ++id, "evaluate", {{"candidate", "nowhere.cpp"}});
  CHECK(missing["isError"] == true);
  const json no_job = call(c, ++id, "result", {{"job", "job-999-0"}});
  CHECK(no_job["isError"] == true);

  c.close_stdin();
  CHECK(c.wait_exit(std::chrono::seconds(10)) == 0);

  // The trace: every call with the agent's id, the evaluations, the jobs' ends, the question.
  const auto calls = events_of(trace_of(dir), "mcp_call");
  std::vector<std::string> tools;
  for (const auto& e : calls) {
    tools.push_back(e["tool"]);
    CHECK(e["agent"] == "main");
    CHECK(e["client"] == "scripted-client");
  }
  CHECK(std::count(tools.begin(), tools.end(), "evaluate") == 3);
  CHECK(std::count(tools.begin(), tools.end(), "ask") == 2);
  CHECK(std::count(tools.begin(), tools.end(), "standing") == 1);
  CHECK(std::count(tools.begin(), tools.end(), "result") >= 3);
  const auto evaluations = events_of(trace_of(dir), "evaluation");
  REQUIRE(evaluations.size() == 2);
  CHECK(evaluations[0]["record"]["origin"] == "agent");
  CHECK(evaluations[0]["record"]["report"]["candidate"]["label"] == "unrolled");
  const auto jobs = events_of(trace_of(dir), "mcp_job");
  CHECK(std::count_if(jobs.begin(), jobs.end(), [](const json& e) { return e["status"] == "done"; }) == 2);
  const auto questions = events_of(trace_of(dir), "question");
  REQUIRE_FALSE(questions.empty());
  CHECK(questions.back()["asked"]["question"]["evidence"] == "odd widths");
  // Nothing but protocol messages on stdout.
  for (const auto& l : c.lines()) CHECK(json::parse(l).value("jsonrpc", "") == "2.0");
}

TEST_CASE("socratic mcp, 2026-07-28 over pipes: no handshake, server/discover, tools with _meta", "[mcp][stdio]") {
  const fs::path dir = cpu_campaign("mcp_stateless");
  PipeClient c(mcp_argv(dir / "campaign.json"), dir / "server.err");
  const json meta{{"io.modelcontextprotocol/protocolVersion", "2026-07-28"},
                  {"io.modelcontextprotocol/clientCapabilities", json::object()},
                  {"io.modelcontextprotocol/clientInfo", {{"name", "stateless-client"}, {"version", "1"}}}};
  const json discover = c.request("d", "server/discover", {{"_meta", meta}});
  CHECK(discover["result"]["supportedVersions"][0] == "2026-07-28");
  CHECK(discover["result"]["resultType"] == "complete");
  const json list = c.request("l", "tools/list", {{"_meta", meta}});
  CHECK(list["result"]["tools"].size() == 5);
  int id = 0;
  const json started = call(c, ++id, "evaluate", json::object(), meta);
  CHECK(started["resultType"] == "complete");
  const json done = wait_for(c, id, started["structuredContent"]["job"], meta);
  CHECK(done["structuredContent"]["status"] == "done");
  // The baseline itself: identical to it, so not faster; but correct everywhere.
  CHECK(done["structuredContent"]["all_correct"] == true);
  // Without _meta and without a handshake: refused, with the way in.
  const json refused = c.request(99, "tools/list");
  CHECK(refused["error"]["code"] == socratic::mcp::error_code::server_not_initialized);
  c.close_stdin();
  CHECK(c.wait_exit(std::chrono::seconds(10)) == 0);
  const auto calls = events_of(trace_of(dir), "mcp_call");
  REQUIRE(calls.size() >= 2);
  CHECK(calls[0]["protocol_version"] == "2026-07-28");
  CHECK(calls[0]["client"] == "stateless-client");
}

TEST_CASE("socratic mcp: bad input gets errors and the connection goes on", "[mcp][stdio]") {
  const fs::path dir = cpu_campaign("mcp_bad_input");
  PipeClient c(mcp_argv(dir / "campaign.json", {"--max-message-bytes", "4096"}), dir / "server.err");
  c.send_raw("{this is not json");
  auto r = c.receive();
  REQUIRE(r);
  CHECK((*r)["error"]["code"] == -32700);
  CHECK((*r)["id"].is_null());
  c.send_raw("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"" +
             std::string(200000, 'x') + "\"}}");
  r = c.receive();
  REQUIRE(r);
  CHECK((*r)["error"]["code"] == -32600);
  CHECK(std::string((*r)["error"]["message"]).find("over the limit of 4096 bytes") != std::string::npos);
  handshake(c);
  CHECK(c.request(2, "no/such/method")["error"]["code"] == -32601);
  CHECK(c.request(3, "tools/call", {{"name", "judge_everything"}})["error"]["code"] == -32602);
  const json big = c.request(4, "tools/call", {{"name", "ask"}, {"arguments", {{"trigger", "start"}, {"evidence", std::string(3000, 'e')}}}});
  CHECK(big["result"]["isError"] == false);  // under both limits
  const json extra = call(c, 5, "evaluate", {{"candidate", 7}});
  CHECK(extra["isError"] == true);
  CHECK(text_of(extra).find("must be a string") != std::string::npos);
  CHECK(c.request(6, "ping")["result"] == json::object());
  c.close_stdin();
  CHECK(c.wait_exit(std::chrono::seconds(10)) == 0);
}

TEST_CASE("socratic mcp: a client that goes away mid-evaluation leaves no process and a recorded job",
          "[mcp][stdio][orphans]") {
  const fs::path root = fresh_dir("mcp_gone");
  const fs::path slow = root / "judge" / "slow_evaluator.sh";  // its folder is the judge's: nothing else there
  // The evaluator starts a child of its own (as a compiler or a benchmark would) and hangs.
  // (The folder is named in the script, not passed: an argument naming a folder makes it the judge's.)
  const fs::path pids = root / "pids";
  fs::create_directories(pids);
  write_text(slow, "#!/usr/bin/env bash\necho $$ > '" + pids.string() + "/evaluator.pid'\nsleep 300 &\necho $! > '" +
                       pids.string() + "/sleep.pid'\nwait\n");
  const fs::path dir = root / "campaign";
  const auto init = socratic_run({"init", dir.string(), "--problem", "softmax_cpu", "--scenarios",
                                  (cpu_problem() / "scenarios.json").string(), "--baseline",
                                  (cpu_problem() / "baseline.cpp").string(), "--evaluator-command",
                                  "bash " + slow.string() + " {candidate}"});
  INFO(init.stdout_text << init.stderr_text);
  REQUIRE(init.ok());
  std::optional<int> exit_status;
  {
    PipeClient c(mcp_argv(dir / "campaign.json"), root / "server.err");
    handshake(c);
    const json started = call(c, 1, "evaluate", json::object());
    const std::string job = started["structuredContent"]["job"];
    for (int i = 0; i < 200 && !fs::exists(pids / "sleep.pid"); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    REQUIRE(fs::exists(pids / "sleep.pid"));
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    c.close_stdin();  // the client goes away
    exit_status = c.wait_exit(std::chrono::seconds(10));
    CHECK(exit_status == 0);
  }
  const pid_t evaluator = std::stoi(read_text(pids / "evaluator.pid"));
  const pid_t sleeper = std::stoi(read_text(pids / "sleep.pid"));
  bool gone = false;
  for (int i = 0; i < 100 && !gone; ++i) {
    gone = mcp_test::process_gone(evaluator) && mcp_test::process_gone(sleeper);
    if (!gone) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  CHECK(gone);
  if (!gone) {  // leave nothing behind even when the check fails
    ::kill(sleeper, SIGKILL);
    ::kill(evaluator, SIGKILL);
  }
  // Nothing lost: the job's file and the trace say it was cancelled, and why.
  const auto jobs = events_of(dir / "state" / "trace.jsonl", "mcp_job");
  REQUIRE_FALSE(jobs.empty());
  CHECK(jobs.back()["status"] == "cancelled");
  CHECK(std::string(jobs.back()["error"]).find("client closed stdin") != std::string::npos);
  int cancelled_files = 0;
  for (const auto& f : fs::directory_iterator(dir / "state" / "mcp" / "jobs"))
    cancelled_files += json::parse(read_text(f.path()))["status"] == "cancelled";
  CHECK(cancelled_files == 1);
  CHECK(events_of(dir / "state" / "trace.jsonl", "evaluation").empty());  // never recorded as judged
}

TEST_CASE("socratic init --agent writes the client's MCP configuration beside the stop hook", "[mcp][init]") {
  const fs::path claude = fresh_dir("mcp_init_claude");
  REQUIRE(init_cpu_campaign(claude, "claude-code").ok());
  const json mcp = json::parse(read_text(workspace_of(claude) / ".mcp.json"));
  const json server = mcp["mcpServers"]["socratic"];
  CHECK(server["command"] == socratic_exe().string());
  CHECK(server["args"] == json::array({"mcp", "--campaign", (claude / "campaign.json").string()}));
  const json settings = json::parse(read_text(workspace_of(claude) / ".claude" / "settings.json"));
  CHECK(settings["enabledMcpjsonServers"] == json::array({"socratic"}));
  CHECK(settings["permissions"]["allow"].size() == 8);
  CHECK(settings["permissions"]["allow"][0] == "mcp__socratic__evaluate");
  CHECK(settings["hooks"]["Stop"].size() == 1);  // the hook is still there

  const fs::path codex = fresh_dir("mcp_init_codex");
  REQUIRE(init_cpu_campaign(codex, "codex").ok());
  const std::string toml = read_text(workspace_of(codex) / ".codex" / "config.toml");
  CHECK(toml.find("[mcp_servers.socratic]") != std::string::npos);
  CHECK(toml.find("args = [\"mcp\", \"--campaign\", \"" + (codex / "campaign.json").string() + "\"]") != std::string::npos);
  CHECK(fs::exists(workspace_of(codex) / ".codex" / "hooks.json"));
  // Again with --force: one table, not two.
  REQUIRE(init_cpu_campaign(codex, "codex", R"({"all_correct":{}})", {"--force"}).ok());
  CHECK(count_of(read_text(workspace_of(codex) / ".codex" / "config.toml"), "[mcp_servers.socratic]") == 1);
}

TEST_CASE("socratic mcp --store: propose through the gate, notes between agents, over pipes", "[mcp][stdio][store]") {
  const fs::path root = fresh_dir("mcp_store");
  const fs::path dir = root / "campaign";
  const std::string pair = (source_dir() / "tests" / "mcp" / "evaluate_pair.sh").string();
  const auto init = socratic_run({"init", dir.string(), "--problem", "softmax_cpu", "--scenarios",
                                  (cpu_problem() / "scenarios.json").string(), "--baseline",
                                  (cpu_problem() / "baseline.cpp").string(), "--evaluator-command",
                                  "bash " + pair + " {candidate} {baseline} {scenarios}"});
  INFO(init.stdout_text << init.stderr_text);
  REQUIRE(init.ok());
  json campaign = json::parse(read_text(dir / "campaign.json"));
  campaign["evaluator"]["baseline"] = (cpu_problem() / "baseline.cpp").string();  // the first proposal's
  write_text(dir / "campaign.json", campaign.dump(2));
  write_text(workspace_of(dir) / "fixed.cpp", read_text(cpu_problem() / "fast_fixed.cpp"));
  write_text(workspace_of(dir) / "bug.cpp", read_text(cpu_problem() / "fast_tail_bug.cpp"));
  const fs::path store = root / "store";

  {
    PipeClient a(mcp_argv(dir / "campaign.json", {"--store", store.string(), "--agent-id", "a1"}), root / "a1.err");
    handshake(a);
    CHECK(a.request(1, "tools/list")["result"]["tools"].size() == 8);
    int id = 1;
    const json admitted = wait_for(a, id, call(a, ++id, "propose", {{"candidate", "fixed.cpp"}})["structuredContent"]["job"]);
    INFO(admitted.dump(2));
    CHECK(admitted["structuredContent"]["verdict"] == "admitted");
    CHECK(admitted["structuredContent"]["record"] == "c0");
    CHECK(text_of(admitted).find("r128_c4097") != std::string::npos);
    CHECK_FALSE(call(a, ++id, "note", {{"text", "the tail loop matters at odd widths"}})["isError"]);
    a.close_stdin();
    CHECK(a.wait_exit(std::chrono::seconds(10)) == 0);
  }
  PipeClient b(mcp_argv(dir / "campaign.json", {"--store", store.string(), "--agent-id", "a2"}), root / "a2.err");
  handshake(b);
  int id = 1;
  const json seen = call(b, ++id, "notes", json::object());
  INFO(text_of(seen));
  CHECK(seen["structuredContent"]["incumbent"]["id"] == "c0");
  CHECK(seen["structuredContent"]["incumbent"]["agent"] == "a1");
  CHECK(seen["structuredContent"]["notes"][0]["text"] == "the tail loop matters at odd widths");
  const json failed = wait_for(b, id, call(b, ++id, "propose", {{"candidate", "bug.cpp"}, {"parents", {"c0"}}})["structuredContent"]["job"]);
  CHECK(failed["structuredContent"]["verdict"] == "failed");
  b.close_stdin();
  CHECK(b.wait_exit(std::chrono::seconds(10)) == 0);
  // The campaign's trace holds both gate measurements, each with its agent.
  const auto evaluations = events_of(trace_of(dir), "evaluation");
  REQUIRE(evaluations.size() == 2);
  CHECK(evaluations[0]["record"]["origin"] == "gate");
  CHECK(evaluations[0]["agent"] == "a1");
  CHECK(evaluations[1]["agent"] == "a2");
}

TEST_CASE("socratic mcp --store: propose says why when the evaluator cannot time against an incumbent", "[mcp][stdio][store]") {
  const fs::path dir = cpu_campaign("mcp_store_no_baseline");
  write_text(workspace_of(dir) / "candidate.cpp", read_text(cpu_problem() / "fast_fixed.cpp"));
  PipeClient c(mcp_argv(dir / "campaign.json", {"--store", (dir / "store").string()}), dir / "server.err");
  handshake(c);
  const json r = call(c, 1, "propose", json::object());
  CHECK(r["isError"] == true);
  CHECK(text_of(r).find("names no {baseline}") != std::string::npos);
  c.close_stdin();
  CHECK(c.wait_exit(std::chrono::seconds(10)) == 0);
}
