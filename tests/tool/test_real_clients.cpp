// The real Claude Code CLI (npm @anthropic-ai/claude-code), talking to our loopback server that
// scripts the model, obeys the real `socratic hook stop` that `socratic init` configured; and
// CliAgent drives the same CLI headless through Campaign. The program's main()
// (support/real_cli_main.cpp) installs the CLIs and exits 77 (skipped) only when npm is unavailable.
#include "catch.hpp"
#include "real_cli_main.hpp"

#include <cstdio>
#include <cstdlib>
#include <map>
#include <sstream>
#include <set>

#include "loopback_server.hpp"
#include "model_streams.hpp"
#include "socratic/agents/cli_agent.hpp"
#include "socratic/campaign/campaign.hpp"
#include "socratic/goals/goal_spec.hpp"
#include "tool_fixtures.hpp"

using namespace socratic;
using namespace tool_fixtures;
using socratic::testing::RecordedRequest;
using socratic::testing::ScriptedReply;
using socratic::testing::ScriptedServer;

namespace {


/// The scripted model: writes the buggy candidate and claims success; when sent back (by the Stop
/// hook or by the campaign loop) writes the fixed one and says so.
struct CandidateScript {
  std::string bug = read_text(cpu_problem() / "fast_tail_bug.cpp");
  std::string fix = read_text(cpu_problem() / "fast_fixed.cpp");
  std::atomic<int> n{0};

  /// The step of the story: write the bug, claim success, (sent back) write the fix, say so.
  static json step(bool sent_back, bool after_tool) {
    if (!sent_back) return after_tool ? json("claim") : json("write_bug");
    return after_tool ? json("fixed") : json("write_fix");
  }
  static bool is_send_back(const std::string& t) {
    return t.find("Stop hook feedback:") != std::string::npos || t.find("<hook_prompt") != std::string::npos ||
           t.find("does not hold yet") != std::string::npos;
  }
  static constexpr const char* claim =
      "Done: the unrolled version is 2.5x faster. The mismatch at odd widths is just float rounding noise, acceptable.";
  static constexpr const char* fixed = "Fixed: the remainder columns are handled now.";
  std::string write_command(bool bug) const {
    return "cat > candidate.cpp <<'SOCRATIC_EOF'\n" + (bug ? this->bug : fix) + "SOCRATIC_EOF\n";
  }

  ScriptedReply operator()(const RecordedRequest& req) {
    const int k = ++n;
    const json body = req.json_or_null();
    if (req.method != "POST" || !body.is_object()) return ScriptedReply::json_reply(404, json::object());
    if (req.target.find("/responses") != std::string::npos) return codex_reply(body, k);
    const std::string model = body.value("model", "claude-test");
    const json& messages = body.value("messages", json::array());
    const bool has_tools = body.contains("tools") && !body["tools"].empty();
    json blocks;
    if (!has_tools) {  // side requests (titles, summaries): a short text
      blocks = json::array({{{"type", "text"}, {"text", "Softmax candidate"}}});
    } else {
      bool sent_back = false;
      for (const auto& t : scripted::user_texts(messages)) sent_back = sent_back || is_send_back(t);
      const std::string s = step(sent_back, scripted::last_is_tool_result(messages));
      if (s == "write_bug" || s == "write_fix")
        blocks = json::array({{{"type", "tool_use"},
                               {"id", "toolu_" + std::to_string(k)},
                               {"name", "Bash"},
                               {"input", {{"command", write_command(s == "write_bug")}, {"description", "Write the candidate"}}}}});
      else
        blocks = json::array({{{"type", "text"}, {"text", s == "claim" ? claim : fixed}}});
    }
    if (body.value("stream", false)) return scripted::anthropic_stream(blocks, model, k);
    json message{{"id", "msg_" + std::to_string(k)}, {"type", "message"}, {"role", "assistant"}, {"model", model},
                 {"content", blocks}, {"stop_reason", "end_turn"}, {"usage", {{"input_tokens", 10}, {"output_tokens", 5}}}};
    return ScriptedReply::json_reply(200, message);
  }

  ScriptedReply codex_reply(const json& body, int k) {
    const json& input = body.value("input", json::array());
    bool sent_back = false;
    for (const auto& t : scripted::responses_user_texts(input)) sent_back = sent_back || is_send_back(t);
    const std::string s = step(sent_back, scripted::responses_last_is_tool_output(input));
    json item = (s == "write_bug" || s == "write_fix")
                    ? scripted::responses_call("exec_command", {{"cmd", write_command(s == "write_bug")}}, k)
                    : scripted::responses_text(s == "claim" ? claim : fixed, k);
    return scripted::responses_stream(json::array({item}), k);
  }
};

/// The environment the real CLI runs in: our server, a throwaway key and home, no telemetry.
std::vector<std::string> claude_environment(const ScriptedServer& server, const fs::path& home) {
  std::vector<std::string> env = scrubbed_environment();
  env.erase(std::remove_if(env.begin(), env.end(),
                           [](const std::string& e) {
                             return e.rfind("HOME=", 0) == 0 || e.rfind("ANTHROPIC_", 0) == 0 || e.rfind("CLAUDE", 0) == 0;
                           }),
            env.end());
  env.push_back("HOME=" + home.string());
  env.push_back("ANTHROPIC_BASE_URL=" + server.url());
  env.push_back("ANTHROPIC_API_KEY=loopback-test-key");
  env.push_back("DISABLE_TELEMETRY=1");
  env.push_back("DISABLE_AUTOUPDATER=1");
  env.push_back("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1");
  return env;
}

std::vector<std::string> texts_sent_after(const std::vector<RecordedRequest>& requests, const std::string& marker) {
  std::vector<std::string> out;
  for (const auto& req : requests) {
    const json body = req.json_or_null();
    if (!body.is_object()) continue;
    const auto texts = body.contains("messages") ? scripted::user_texts(body["messages"])
                       : body.contains("input")  ? scripted::responses_user_texts(body["input"])
                                                 : std::vector<std::string>{};
    for (const auto& t : texts)
      if (t.find(marker) != std::string::npos) out.push_back(t);
  }
  return out;
}

/// Codex against our server: a model provider on loopback speaking the Responses API, hooks on.
std::vector<std::string> codex_args(const ScriptedServer& server) {
  return {"--dangerously-bypass-approvals-and-sandbox",
          "--dangerously-bypass-hook-trust",
          "--enable",
          "hooks",
          "-c",
          "model_provider=\"loopback\"",
          "-c",
          "model_providers.loopback={name=\"loopback\",base_url=\"" + server.url() +
              "/v1\",env_key=\"SOCRATIC_TEST_CODEX_KEY\",wire_api=\"responses\"}",
          "-m",
          "loopback-model"};
}

std::vector<std::string> codex_environment(const fs::path& home) {
  std::vector<std::string> env = scrubbed_environment();
  env.erase(std::remove_if(env.begin(), env.end(),
                           [](const std::string& e) {
                             return e.rfind("HOME=", 0) == 0 || e.rfind("CODEX_", 0) == 0 || e.rfind("OPENAI_", 0) == 0;
                           }),
            env.end());
  fs::create_directories(home / ".codex");
  env.push_back("HOME=" + home.string());
  env.push_back("CODEX_HOME=" + (home / ".codex").string());
  env.push_back("SOCRATIC_TEST_CODEX_KEY=loopback-test-key");
  return env;
}

struct ScriptEvaluator {  // the CPU problem's evaluator command, as the campaign file names it
  EvalReport evaluate(const Candidate& c) {
    ProcessOptions po;
    po.timeout = std::chrono::minutes(3);
    const ProcessResult r = run_process(
        {"bash", (cpu_problem() / "evaluate.sh").string(), c.source.string(), (cpu_problem() / "scenarios.json").string()}, po);
    if (!r.ok()) throw std::runtime_error("evaluate.sh " + r.describe() + ": " + r.stderr_text);
    return json::parse(r.stdout_text).get<EvalReport>();
  }
};

struct OneQuestion {
  std::optional<Question> ask(const TriggerEvent& e, const CampaignState&) {
    return Question{"q", "g", "Which input makes the failing scenario differ from the reference?", "", e.trigger, ""};
  }
};

CampaignConfig campaign_config(const fs::path& ws, const fs::path& state) {
  CampaignConfig config;
  config.task = "Make candidate.cpp faster than the baseline, correct on every scenario.";
  config.workspace = ws;
  config.candidate.source = ws / "candidate.cpp";
  config.state_dir = state;
  config.scenario_ids = {"r2048_c64", "r512_c1000", "r128_c4097"};
  config.budget.turns = 4;
  return config;
}

std::string turn_errors(const CampaignResult& result) {
  std::string out;
  for (const auto& e : read_trace(result.trace_path).events)
    if (e.value("type", "") == "turn_ended") out += e["result"].value("error", "") + "\n";
  return out;
}

}  // namespace

TEST_CASE("real Claude Code obeys the Stop hook that socratic init configured", "[tool][real-cli][claude]") {
  CandidateScript script;
  ScriptedServer server([&](const RecordedRequest& r) { return script(r); });
  const fs::path root = fresh_dir("claude_hook");
  const fs::path dir = root / "ws";
  const fs::path ws = workspace_of(dir);
  REQUIRE(init_cpu_campaign(dir, "claude-code").ok());

  ProcessOptions o;
  o.working_dir = ws;
  o.environment = claude_environment(server, root / "home");
  o.timeout = std::chrono::minutes(6);
  fs::create_directories(root / "home");
  const ProcessResult run = run_process({(socratic::test::agent_cli_bin() / "claude").string(), "-p", "Make candidate.cpp faster.",
                                         "--output-format", "stream-json", "--verbose", "--allowedTools", "Bash",
                                         "--max-turns", "12"},
                                        o);
  INFO("claude " << run.describe() << "\nstderr: " << run.stderr_text << "\nstdout tail: "
                 << run.stdout_text.substr(run.stdout_text.size() > 3000 ? run.stdout_text.size() - 3000 : 0));
  CHECK(run.exit_code == 0);

  // The client delivered the hook's block to the model: the unmet scenario and a question.
  const auto feedback = texts_sent_after(server.requests(), "Stop hook feedback:");
  REQUIRE_FALSE(feedback.empty());
  CHECK(feedback[0].find("r128_c4097: correct required correct") != std::string::npos);
  CHECK(feedback[0].find("Question (") != std::string::npos);
  // The scripted model fixed the candidate, and the hook let the client stop.
  CHECK(read_text(ws / "candidate.cpp") == script.fix);
  const auto calls = events_of(trace_of(dir), "hook_call");
  REQUIRE(calls.size() == 2);
  CHECK(calls[0]["decision"] == "block");
  CHECK(calls[0]["stop_hook_active"] == false);
  CHECK(calls[1]["decision"] == "allow");
  CHECK(calls[1]["stop_hook_active"] == true);
  CHECK(calls[1]["kind"] == "goal_met");
  const auto ended = events_of(trace_of(dir), "turn_ended");
  REQUIRE(ended.size() == 2);
  CHECK(std::string(ended[0]["result"]["final_message"]).find("rounding noise") != std::string::npos);
  CHECK(run.stdout_text.find("\"type\":\"result\"") != std::string::npos);
}

TEST_CASE("real Claude Code: a whole chain of blocks up to the cap's last one, then the stop goes through",
          "[tool][real-cli][claude][hook-cap]") {
  // The model claims to be done at every stop and never fixes the candidate: the hook blocks
  // until its cap, which engages only if it can match Claude Code's session id from call to call.
  std::atomic<int> n{0};
  ScriptedServer server([&](const RecordedRequest& req) {
    const int k = ++n;
    const json body = req.json_or_null();
    if (!body.is_object()) return ScriptedReply::json_reply(404, json::object());
    const bool has_tools = body.contains("tools") && !body["tools"].empty();
    const json blocks = json::array(
        {{{"type", "text"}, {"text", has_tools ? "Done: it is as fast as it gets." : "Softmax candidate"}}});
    return scripted::anthropic_stream(blocks, body.value("model", "claude-test"), k);
  });
  const fs::path root = fresh_dir("claude_chain");
  const fs::path dir = root / "ws";
  const fs::path ws = workspace_of(dir);
  REQUIRE(init_cpu_campaign(dir, "claude-code").ok());
  json c = json::parse(read_text(dir / "campaign.json"));
  c["hook"]["max_consecutive_blocks"] = 3;
  write_text(dir / "campaign.json", c.dump(2));
  write_text(ws / "candidate.cpp", read_text(cpu_problem() / "fast_tail_bug.cpp"));  // wrong on one scenario

  ProcessOptions o;
  o.working_dir = ws;
  o.environment = claude_environment(server, root / "home");
  o.timeout = std::chrono::minutes(6);
  fs::create_directories(root / "home");
  const ProcessResult run = run_process({(socratic::test::agent_cli_bin() / "claude").string(), "-p", "Make candidate.cpp faster.",
                                         "--output-format", "stream-json", "--verbose", "--max-turns", "12"},
                                        o);
  INFO("claude " << run.describe() << "\nstderr: " << run.stderr_text << "\nstdout tail: "
                 << run.stdout_text.substr(run.stdout_text.size() > 3000 ? run.stdout_text.size() - 3000 : 0));
  CHECK(run.exit_code == 0);

  const auto calls = events_of(trace_of(dir), "hook_call");
  REQUIRE(calls.size() == 4);
  const std::string session = calls[0].value("session_id", "");
  CHECK_FALSE(session.empty());
  CHECK(session.find("redacted") == std::string::npos);  // an identifier, kept as it is
  for (int i = 0; i < 3; ++i) {
    INFO("call " << i);
    CHECK(calls[i]["decision"] == "block");
    CHECK(calls[i]["consecutive_blocks"] == i + 1);
    CHECK(calls[i]["session_id"] == session);
    CHECK(calls[i]["stop_hook_active"] == (i > 0));
  }
  CHECK(calls[2]["cap_reached"] == true);
  CHECK(calls[3]["decision"] == "allow");
  CHECK(calls[3]["kind"] == "block_cap");
  // The model was told each block's place in the chain, the last one as the last.
  const auto feedback = texts_sent_after(server.requests(), "Stop hook feedback:");
  bool told_last = false;
  for (const auto& t : feedback) told_last = told_last || t.find("block 3 of at most 3") != std::string::npos;
  CHECK(told_last);
  CHECK(read_text(ws / "candidate.cpp") == read_text(cpu_problem() / "fast_tail_bug.cpp"));
}

TEST_CASE("CliAgent drives real Claude Code headless through the campaign loop", "[tool][real-cli][claude][cli-agent]") {
  CandidateScript script;
  ScriptedServer server([&](const RecordedRequest& r) { return script(r); });
  const fs::path root = fresh_dir("cli_agent");
  const fs::path dir = root / "ws";
  const fs::path ws = workspace_of(dir);
  // The workspace has the hook configured too: inside the loop it steps aside.
  REQUIRE(init_cpu_campaign(dir, "claude-code").ok());
  fs::create_directories(root / "home");

  CliAgentOptions options;
  options.kind = CliKind::claude_code;
  options.program = (socratic::test::agent_cli_bin() / "claude").string();
  options.max_turns = 8;
  options.allowed_tools = "Bash";
  options.timeout = std::chrono::seconds(300);
  options.environment = {{"HOME", (root / "home").string()},
                         {"ANTHROPIC_BASE_URL", server.url()},
                         {"ANTHROPIC_API_KEY", "loopback-test-key"},
                         {"DISABLE_TELEMETRY", "1"},
                         {"DISABLE_AUTOUPDATER", "1"},
                         {"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1"}};
  CliAgent agent(options);

  ScriptEvaluator evaluator;
  OneQuestion questions;
  Campaign campaign(agent, evaluator, questions, goals::goal_from_spec(json::parse(R"({"all_correct":{}})")),
                    campaign_config(ws, root / "state"));
  const CampaignResult result = campaign.run();
  INFO("turn errors: " << turn_errors(result));

  CHECK(result.goal_met);
  CHECK(result.turns == 2);
  CHECK_FALSE(agent.session_id().empty());
  // Turn 2 went to the CLI as a resumed session carrying the campaign's verdict and question.
  const auto sent_back = texts_sent_after(server.requests(), "does not hold yet");
  REQUIRE_FALSE(sent_back.empty());
  CHECK(sent_back[0].find("r128_c4097") != std::string::npos);
  CHECK(sent_back[0].find("Which input makes the failing scenario differ") != std::string::npos);
  CHECK(read_text(ws / "candidate.cpp") == script.fix);
  // The workspace's hook stepped aside: no hook_call in the workspace's own trace.
  CHECK((!fs::exists(trace_of(dir)) || events_of(trace_of(dir), "hook_call").empty()));
  // Tool calls the CLI made were charged to the campaign.
  CHECK(result.spent.tool_calls >= 4);
}

TEST_CASE("socratic agent --cli claude runs the campaign file's campaign to its goal", "[tool][real-cli][claude][cli-agent]") {
  CandidateScript script;
  ScriptedServer server([&](const RecordedRequest& r) { return script(r); });
  const fs::path root = fresh_dir("agent_command");
  const fs::path dir = root / "ws";
  const fs::path ws = workspace_of(dir);
  REQUIRE(init_cpu_campaign(dir, "none").ok());
  json c = json::parse(read_text(dir / "campaign.json"));
  c["agent"]["base_url"] = server.url();
  c["agent"]["api_key_env"] = "SOCRATIC_TEST_AGENT_KEY";
  c["agent"]["max_turns_per_cli_call"] = 8;
  c["budget"]["turns"] = 4;
  write_text(dir / "campaign.json", c.dump(2));
  fs::create_directories(root / "home");
  const ProcessResult r = socratic_run(
      {"agent", (dir / "campaign.json").string(), "--cli", "claude", "--program", (socratic::test::agent_cli_bin() / "claude").string()}, "",
      {"HOME=" + (root / "home").string(), "SOCRATIC_TEST_AGENT_KEY=loopback-agent-key-123", "DISABLE_TELEMETRY=1",
       "DISABLE_AUTOUPDATER=1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1"});
  INFO(r.stdout_text << r.stderr_text);
  CHECK(r.exit_code == 0);
  CHECK(r.stdout_text.find("campaign ended: goal_met after 2 turns") != std::string::npos);
  CHECK(read_text(ws / "candidate.cpp") == script.fix);
  // The key went to the CLI (our server saw it) and nowhere into the trace.
  bool key_seen = false;
  for (const auto& req : server.requests()) key_seen = key_seen || req.api_key() == "loopback-agent-key-123";
  CHECK(key_seen);
  CHECK(read_text(trace_of(dir)).find("loopback-agent-key-123") == std::string::npos);
}

TEST_CASE("real Codex obeys the Stop hook that socratic init configured", "[tool][real-cli][codex]") {
  CandidateScript script;
  ScriptedServer server([&](const RecordedRequest& r) { return script(r); });
  const fs::path root = fresh_dir("codex_hook");
  const fs::path dir = root / "ws";
  const fs::path ws = workspace_of(dir);
  REQUIRE(init_cpu_campaign(dir, "codex").ok());

  ProcessOptions o;
  o.working_dir = ws;
  o.environment = codex_environment(root / "home");
  o.timeout = std::chrono::minutes(6);
  // --trust: Codex reads a project's .codex/ (where init wrote the hook) only in a trusted project.
  std::vector<std::string> argv{(socratic::test::agent_cli_bin() / "codex").string(), "exec", "--json", "--skip-git-repo-check", "--trust"};
  for (const auto& a : codex_args(server)) argv.push_back(a);
  argv.push_back("Make candidate.cpp faster.");
  const ProcessResult run = run_process(argv, o);
  INFO("codex " << run.describe() << "\nstderr: " << run.stderr_text.substr(0, 3000) << "\nstdout tail: "
                << run.stdout_text.substr(run.stdout_text.size() > 3000 ? run.stdout_text.size() - 3000 : 0));
  CHECK(run.exit_code == 0);

  // Codex hands a block's reason to the model as a user message wrapped in <hook_prompt>.
  const auto feedback = texts_sent_after(server.requests(), "<hook_prompt");
  REQUIRE_FALSE(feedback.empty());
  CHECK(feedback[0].find("r128_c4097: correct required correct") != std::string::npos);
  CHECK(feedback[0].find("Question (") != std::string::npos);
  CHECK(read_text(ws / "candidate.cpp") == script.fix);
  const auto calls = events_of(trace_of(dir), "hook_call");
  REQUIRE(calls.size() == 2);
  CHECK(calls[0]["decision"] == "block");
  CHECK(calls[1]["decision"] == "allow");
  CHECK_FALSE(std::string(calls[0].value("turn_id", "")).empty());  // Codex's extra field is kept
  CHECK(run.stdout_text.find("\"type\":\"turn.completed\"") != std::string::npos);
}

TEST_CASE("CliAgent drives real Codex headless through the campaign loop", "[tool][real-cli][codex][cli-agent]") {
  CandidateScript script;
  ScriptedServer server([&](const RecordedRequest& r) { return script(r); });
  const fs::path root = fresh_dir("cli_agent_codex");
  const fs::path dir = root / "ws";
  const fs::path ws = workspace_of(dir);
  REQUIRE(init_cpu_campaign(dir, "codex").ok());

  CliAgentOptions options;
  options.kind = CliKind::codex;
  options.program = (socratic::test::agent_cli_bin() / "codex").string();
  options.timeout = std::chrono::seconds(300);
  options.extra_args = codex_args(server);
  for (const auto& e : codex_environment(root / "home")) {
    const auto eq = e.find('=');
    const std::string name = e.substr(0, eq);
    if (name == "HOME" || name == "CODEX_HOME" || name == "SOCRATIC_TEST_CODEX_KEY") options.environment[name] = e.substr(eq + 1);
  }
  CliAgent agent(options);
  ScriptEvaluator evaluator;
  OneQuestion questions;
  Campaign campaign(agent, evaluator, questions, goals::goal_from_spec(json::parse(R"({"all_correct":{}})")),
                    campaign_config(ws, root / "state"));
  const CampaignResult result = campaign.run();
  INFO("turn errors: " << turn_errors(result));
  CHECK(result.goal_met);
  CHECK(result.turns == 2);
  CHECK_FALSE(agent.session_id().empty());
  const auto sent_back = texts_sent_after(server.requests(), "does not hold yet");
  REQUIRE_FALSE(sent_back.empty());
  CHECK(sent_back[0].find("r128_c4097") != std::string::npos);
  CHECK(read_text(ws / "candidate.cpp") == script.fix);
  CHECK((!fs::exists(trace_of(dir)) || events_of(trace_of(dir), "hook_call").empty()));
  CHECK(result.spent.tokens > 0);  // usage from turn.completed
}

namespace {

/// The text of the campaign's start question, as init recorded it in the trace.
std::string start_question_text(const fs::path& campaign) {
  for (const auto& q : events_of(trace_of(campaign), "question"))
    if (q["asked"]["question"]["trigger"] == "start") return q["asked"]["question"]["text"];
  return {};
}

/// Whether the first request that carries tools (the session's first turn) holds `text` anywhere.
bool first_turn_holds(const std::vector<RecordedRequest>& requests, const std::string& text) {
  for (const auto& r : requests) {
    const json body = r.json_or_null();
    if (body.is_object() && ((body.contains("tools") && !body["tools"].empty()) || body.contains("input")))
      return body.dump().find(text) != std::string::npos;
  }
  return false;
}

}  // namespace

TEST_CASE("real Claude Code: the start question reaches the session, and each block tells the user what happened",
          "[tool][real-cli][claude][first-use]") {
  CandidateScript script;
  ScriptedServer server([&](const RecordedRequest& r) { return script(r); });
  const fs::path root = fresh_dir("claude_start");
  const fs::path dir = root / "campaign";
  const fs::path ws = workspace_of(dir);
  REQUIRE(init_cpu_campaign(dir, "claude-code").ok());
  const std::string question = start_question_text(dir);
  REQUIRE_FALSE(question.empty());
  ProcessOptions o;
  o.working_dir = ws;
  o.environment = claude_environment(server, root / "home");
  o.timeout = std::chrono::minutes(6);
  fs::create_directories(root / "home");
  const ProcessResult run = run_process({(socratic::test::agent_cli_bin() / "claude").string(), "-p", "Make candidate.cpp faster.",
                                         "--output-format", "stream-json", "--verbose", "--allowedTools", "Bash",
                                         "--max-turns", "12"},
                                        o);
  INFO("claude " << run.describe() << "\nstderr: " << run.stderr_text);
  CHECK(run.exit_code == 0);
  // CLAUDE.md, written by init, is in the first turn's context: the question with it.
  CHECK(first_turn_holds(server.requests(), "Question (start): " + question));
  // Claude Code labels the block "Stop hook error occurred"; the transcript holds our line for the user.
  CHECK(run.stdout_text.find("stop-hook-error") != std::string::npos);
  std::string transcripts;
  for (const auto& f : fs::recursive_directory_iterator(root / "home" / ".claude" / "projects"))
    if (f.path().extension() == ".jsonl") transcripts += read_text(f.path());
  CHECK(transcripts.find("\"hook_system_message\"") != std::string::npos);
  CHECK(transcripts.find("Socratic judged the candidate: the goal does not hold yet") != std::string::npos);
  CHECK(read_text(ws / "candidate.cpp") == script.fix);  // and the block still did its work
}

TEST_CASE("real Codex: the start question reaches the session through AGENTS.md", "[tool][real-cli][codex][first-use]") {
  CandidateScript script;
  ScriptedServer server([&](const RecordedRequest& r) { return script(r); });
  const fs::path root = fresh_dir("codex_start");
  const fs::path dir = root / "campaign";
  const fs::path ws = workspace_of(dir);
  REQUIRE(init_cpu_campaign(dir, "codex").ok());
  const std::string question = start_question_text(dir);
  REQUIRE_FALSE(question.empty());
  ProcessOptions o;
  o.working_dir = ws;
  o.environment = codex_environment(root / "home");
  o.timeout = std::chrono::minutes(6);
  std::vector<std::string> argv{(socratic::test::agent_cli_bin() / "codex").string(), "exec", "--json", "--skip-git-repo-check", "--trust"};
  for (const auto& a : codex_args(server)) argv.push_back(a);
  argv.push_back("Make candidate.cpp faster.");
  const ProcessResult run = run_process(argv, o);
  INFO("codex " << run.describe() << "\nstderr: " << run.stderr_text.substr(0, 3000));
  CHECK(run.exit_code == 0);
  CHECK(first_turn_holds(server.requests(), "Question (start): " + question));
  CHECK(read_text(ws / "candidate.cpp") == script.fix);  // the block object with its systemMessage still works
}

/// Two Claude Code agents of one parallel campaign, told apart by their role texts: agent A writes
/// the fixed candidate, agent B the buggy one and tries to look at the campaign's state (the
/// store, the trace, the campaign file) and at agent A's workspace; each proposes once.
struct TwoRolesScript {
  fs::path campaign_dir;
  std::string bug = read_text(cpu_problem() / "fast_tail_bug.cpp");
  std::string fix = read_text(cpu_problem() / "fast_fixed.cpp");
  std::atomic<int> n{0};
  ScriptedReply operator()(const RecordedRequest& req) {
    const int k = ++n;
    const json body = req.json_or_null();
    if (req.method != "POST" || !body.is_object()) return ScriptedReply::json_reply(404, json::object());
    const std::string model = body.value("model", "claude-test");
    const json& messages = body.value("messages", json::array());
    json blocks;
    if (!body.contains("tools") || body["tools"].empty()) {
      blocks = json::array({{{"type", "text"}, {"text", "Softmax candidate"}}});
    } else if (scripted::last_is_tool_result(messages)) {
      blocks = json::array({{{"type", "text"}, {"text", "Written; my proposal is ready."}}});
    } else {
      bool role_a = false;
      for (const auto& t : scripted::user_texts(messages)) role_a = role_a || t.find("ROLE-A") != std::string::npos;
      std::string command = "cat > candidate.cpp <<'SOCRATIC_EOF'\n" + (role_a ? fix : bug) + "SOCRATIC_EOF\n";
      if (!role_a) {
        const std::string d = campaign_dir.string();
        command += "(ls -A " + d + "/state/store; cat " + d + "/state/trace.jsonl " + d + "/campaign.json; ls -A " + d +
                   "/agents/agent-a) > seen.txt 2>&1; true\n";
      }
      blocks = json::array({{{"type", "tool_use"},
                             {"id", "toolu_" + std::to_string(k)},
                             {"name", "Bash"},
                             {"input", {{"command", command}, {"description", "Write the candidate"}}}}});
    }
    return scripted::anthropic_stream(blocks, model, k);
  }
};

TEST_CASE("socratic run: two real Claude Code agents in parallel, sandboxed, on one store",
          "[tool][real-cli][claude][parallel]") {
  TwoRolesScript script;
  ScriptedServer server([&](const RecordedRequest& r) { return script(r); });
  const fs::path root = fresh_dir("parallel_claude");
  const fs::path dir = root / "ws";
  script.campaign_dir = dir;
  // A goal no candidate meets: the campaign ends when both agents have proposed once.
  REQUIRE(init_cpu_campaign(dir, "none", R"({"every_scenario_speedup_at_least": 1000})").ok());
  json c = json::parse(read_text(dir / "campaign.json"));
  c["agent"]["base_url"] = server.url();
  c["agent"]["api_key_env"] = "SOCRATIC_TEST_AGENT_KEY";
  c["agent"]["max_turns_per_cli_call"] = 8;
  c["budget"]["turns"] = 6;
  c["agents"] = {{"count", 2},
                 {"kind", "claude-code"},
                 {"roles",
                  {{{"id", "agent-a"}, {"role", "ROLE-A: you handle the remainder columns."}, {"max_proposals", 1},
                    {"program", (socratic::test::agent_cli_bin() / "claude").string()}},
                   {{"id", "agent-b"}, {"role", "ROLE-B: you try unrolling."}, {"max_proposals", 1},
                    {"program", (socratic::test::agent_cli_bin() / "claude").string()}}}}};
  write_text(dir / "campaign.json", c.dump(2));
  fs::create_directories(root / "home");
  const ProcessResult r = socratic_run(
      {"run", (dir / "campaign.json").string()}, "",
      {"HOME=" + (root / "home").string(), "SOCRATIC_TEST_AGENT_KEY=loopback-agent-key-456", "DISABLE_TELEMETRY=1",
       "DISABLE_AUTOUPDATER=1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1"});
  INFO(r.stdout_text << r.stderr_text);
  CHECK(r.exit_code == 1);  // ended without the goal
  CHECK(r.stdout_text.find("campaign ended: agents_done") != std::string::npos);
  CHECK(r.stdout_text.find("2 candidates in the store") != std::string::npos);
  // Plain progress lines (not a terminal), one per step, named by agent.
  CHECK(r.stderr_text.find("[agent-a] ") != std::string::npos);
  CHECK(r.stderr_text.find("[agent-b] ") != std::string::npos);

  // Each agent worked in its own workspace, under the campaign folder, apart from the state.
  CHECK(read_text(dir / "agents" / "agent-a" / "candidate.cpp") == script.fix);
  CHECK(read_text(dir / "agents" / "agent-b" / "candidate.cpp") == script.bug);
  // Inside its sandbox agent B saw none of the state, the campaign file or agent A's workspace.
  const std::string seen = read_text(dir / "agents" / "agent-b" / "seen.txt");
  INFO("agent B saw: " << seen);
  CHECK(seen.find("store.jsonl") == std::string::npos);
  CHECK(seen.find("campaign_started") == std::string::npos);
  CHECK(seen.find("\"evaluator\"") == std::string::npos);
  CHECK(seen.find("candidate.cpp") == std::string::npos);
  CHECK(fs::exists(dir / "state" / "store" / "store.jsonl"));  // they are there, outside

  // Both proposals landed in the one store, gated: the fixed one admitted, the buggy one failed.
  const fs::path store = dir / "state" / "store" / "store.jsonl";
  REQUIRE(fs::exists(store));
  std::map<std::string, std::string> verdict_of;
  std::istringstream lines(read_text(store));
  for (std::string text; std::getline(lines, text);)
    if (const json line = json::parse(text); line.value("type", "") == "candidate") verdict_of[line.value("agent", "")] = line["gate"].value("verdict", "");
  CHECK(verdict_of.size() == 2);
  CHECK(verdict_of["agent-a"] == "admitted");
  CHECK(verdict_of["agent-b"] == "failed");

  // The trace records both agents' turns and gates.
  std::set<std::string> turn_agents, gated_agents;
  for (const auto& e : events_of(trace_of(dir), "turn_started")) turn_agents.insert(e.value("agent", ""));
  for (const auto& e : events_of(trace_of(dir), "gated")) gated_agents.insert(e.value("agent", ""));
  CHECK(turn_agents == std::set<std::string>{"agent-a", "agent-b"});
  CHECK(gated_agents == std::set<std::string>{"agent-a", "agent-b"});
  // Two separate Claude Code sessions, with their roles; the key reached the CLIs, never the trace.
  CHECK(texts_sent_after(server.requests(), "ROLE-A").size() >= 1);
  CHECK(texts_sent_after(server.requests(), "ROLE-B").size() >= 1);
  bool key_seen = false;
  for (const auto& req : server.requests()) key_seen = key_seen || req.api_key() == "loopback-agent-key-456";
  CHECK(key_seen);
  CHECK(read_text(trace_of(dir)).find("loopback-agent-key-456") == std::string::npos);
  CHECK(read_text(store).find("loopback-agent-key-456") == std::string::npos);

  // The report draws the lineage from that store.
  const ProcessResult rep = socratic_run({"report", dir.string(), "-o", (root / "report.html").string()});
  INFO(rep.stderr_text);
  REQUIRE(rep.exit_code == 0);
  const std::string html = read_text(root / "report.html");
  CHECK(html.find("data-agent=\"agent-a\" data-verdict=\"admitted\"") != std::string::npos);
  CHECK(html.find("data-agent=\"agent-b\" data-verdict=\"failed\"") != std::string::npos);
}
