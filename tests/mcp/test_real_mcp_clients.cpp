// The real Claude Code and Codex CLIs, against the loopback server that scripts the model, with
// the MCP configuration `socratic init` wrote: the scripted model calls Socratic's tools
// (evaluate, then result with the job id it got, then ask) and the campaign's trace records the
// calls. The program's main() (support/real_cli_main.cpp) installs the CLIs and exits 77
// (skipped) only when npm is unavailable.
#include "catch.hpp"
#include "real_cli_main.hpp"

#include <atomic>
#include <cstdio>
#include <regex>

#include "loopback_server.hpp"
#include "model_streams.hpp"
#include "tool_fixtures.hpp"

using namespace socratic;
using namespace tool_fixtures;
using socratic::testing::RecordedRequest;
using socratic::testing::ScriptedReply;
using socratic::testing::ScriptedServer;

namespace {


/// The texts of every tool result the client sent back (Messages and Responses shapes).
std::vector<std::string> tool_outputs(const json& body) {
  std::vector<std::string> out;
  if (body.contains("messages"))
    for (const auto& m : body["messages"]) {
      if (!m.contains("content") || !m["content"].is_array()) continue;
      for (const auto& b : m["content"]) {
        if (b.value("type", "") != "tool_result") continue;
        if (b["content"].is_string()) out.push_back(b["content"]);
        else
          for (const auto& c : b["content"]) out.push_back(c.value("text", ""));
      }
    }
  if (body.contains("input") && body["input"].is_array())
    for (const auto& item : body["input"])
      if (item.value("type", "") == "function_call_output")
        out.push_back(item["output"].is_string() ? item["output"].get<std::string>() : item["output"].dump());
  return out;
}

/// The name the client gave Socratic's tool `tool` (Claude Code: mcp__socratic__TOOL), if listed;
/// `ns` is set when the client lists it inside a Responses namespace (Codex: mcp__socratic).
std::string listed_tool(const json& body, const std::string& tool, std::string* ns = nullptr) {
  if (!body.contains("tools")) return {};
  for (const auto& t : body["tools"]) {
    if (t.value("type", "") == "namespace" && t.value("name", "").find("socratic") != std::string::npos)
      for (const auto& inner : t.value("tools", json::array()))
        if (inner.value("name", "") == tool) {
          if (ns) *ns = t["name"];
          return tool;
        }
    const std::string name = t.value("name", "");
    if (name.find("socratic") != std::string::npos && name.size() >= tool.size() &&
        name.compare(name.size() - tool.size(), tool.size(), tool) == 0)
      return name;
  }
  return {};
}

/// The scripted model: evaluate, result (with the job id the tool returned), ask, then done.
struct McpScript {
  std::atomic<int> n{0};
  std::vector<std::string> tool_names_seen;

  json step(const json& body, std::string& tool, json& input) {
    const std::vector<std::string> outputs = tool_outputs(body);
    std::string job;
    static const std::regex job_id("job-[0-9]+-[0-9a-f]{8}");
    std::smatch m;
    for (const auto& o : outputs)
      if (std::regex_search(o, m, job_id)) job = m.str();
    if (outputs.empty()) {
      tool = "evaluate";
      input = json{{"label", "through mcp"}};
    } else if (outputs.size() == 1) {
      tool = "result";
      input = json{{"job", job}, {"wait_s", 30}};
    } else if (outputs.size() == 2) {
      tool = "ask";
      input = json{{"trigger", "plateau"}, {"evidence", "the scripted model asks"}};
    } else {
      return "Done: evaluated through Socratic's MCP tools.";
    }
    return nullptr;
  }

  ScriptedReply operator()(const RecordedRequest& req) {
    const int k = ++n;
    const json body = req.json_or_null();
    if (req.method != "POST" || !body.is_object()) return ScriptedReply::json_reply(404, json::object());
    const bool codex = req.target.find("/responses") != std::string::npos;
    const bool has_tools = body.contains("tools") && !body["tools"].empty();
    const std::string model = body.value("model", "claude-test");
    if (!codex && !has_tools)
      return scripted::anthropic_stream(json::array({{{"type", "text"}, {"text", "Socratic MCP"}}}), model, k);
    std::string tool;
    json input;
    const json text = step(body, tool, input);
    std::string ns;
    std::string name = tool.empty() ? std::string() : listed_tool(body, tool, &ns);
    if (!tool.empty() && name.empty()) {  // the client did not list our tools: say so and stop
      const std::string say = "The socratic MCP tools are not listed.";
      return codex ? scripted::responses_stream(json::array({scripted::responses_text(say, k)}), k)
                   : scripted::anthropic_stream(json::array({{{"type", "text"}, {"text", say}}}), model, k);
    }
    if (!name.empty()) tool_names_seen.push_back(ns.empty() ? name : ns + "." + name);
    if (codex) {
      json item = name.empty() ? scripted::responses_text(text.get<std::string>(), k) : scripted::responses_call(name, input, k);
      if (!ns.empty()) item["namespace"] = ns;  // a call of a namespaced function names its namespace
      return scripted::responses_stream(json::array({item}), k);
    }
    const json blocks = name.empty() ? json::array({{{"type", "text"}, {"text", text}}})
                                     : json::array({{{"type", "tool_use"},
                                                     {"id", "toolu_" + std::to_string(k)},
                                                     {"name", name},
                                                     {"input", input}}});
    return scripted::anthropic_stream(blocks, model, k);
  }
};

std::vector<std::string> claude_env(const ScriptedServer& server, const fs::path& home) {
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

/// What the trace says the MCP server did: the tools called, in order.
std::vector<std::string> traced_calls(const fs::path& dir) {
  std::vector<std::string> out;
  for (const auto& e : events_of(trace_of(dir), "mcp_call")) out.push_back(e["tool"]);
  return out;
}

}  // namespace

TEST_CASE("real Claude Code calls socratic mcp's tools: evaluate, result, ask, in the trace", "[mcp][real-cli][claude]") {
  McpScript script;
  ScriptedServer server([&](const RecordedRequest& r) { return script(r); });
  const fs::path root = fresh_dir("mcp_claude");
  const fs::path dir = root / "campaign";
  const fs::path ws = workspace_of(dir);
  REQUIRE(init_cpu_campaign(dir, "claude-code").ok());
  fs::create_directories(root / "home");
  ProcessOptions o;
  o.working_dir = ws;
  o.environment = claude_env(server, root / "home");
  o.timeout = std::chrono::minutes(6);
  const ProcessResult run = run_process({(socratic::test::agent_cli_bin() / "claude").string(), "-p", "Evaluate candidate.cpp with Socratic.",
                                         "--output-format", "stream-json", "--verbose", "--max-turns", "12",
                                         // A headless run grants no tool by itself; the project settings'
                                         // allow rules did not grant MCP tools to `claude -p` 2.1.197.
                                         "--allowedTools", "mcp__socratic"},
                                        o);
  INFO("claude " << run.describe() << "\nstderr: " << run.stderr_text << "\nstdout tail: "
                 << run.stdout_text.substr(run.stdout_text.size() > 4000 ? run.stdout_text.size() - 4000 : 0));
  CHECK(run.exit_code == 0);
  CHECK(script.tool_names_seen ==
        std::vector<std::string>{"mcp__socratic__evaluate", "mcp__socratic__result", "mcp__socratic__ask"});
  // The result the model read: the table and the verdict (the baseline: correct on every scenario).
  bool saw_table = false;
  for (const auto& req : server.requests())
    for (const auto& out : tool_outputs(req.json_or_null()))
      saw_table = saw_table || out.find("r128_c4097") != std::string::npos;
  CHECK(saw_table);
  // The trace: the three calls, the evaluation with its label, the job's end, the question.
  CHECK(traced_calls(dir) == std::vector<std::string>{"evaluate", "result", "ask"});
  const auto evaluations = events_of(trace_of(dir), "evaluation");
  REQUIRE_FALSE(evaluations.empty());
  CHECK(evaluations[0]["record"]["report"]["candidate"]["label"] == "through mcp");
  const auto jobs = events_of(trace_of(dir), "mcp_job");
  CHECK(std::any_of(jobs.begin(), jobs.end(), [](const json& e) { return e["status"] == "done"; }));
  bool asked_plateau = false;
  for (const auto& q : events_of(trace_of(dir), "question"))
    asked_plateau = asked_plateau || q["asked"]["question"]["trigger"] == "plateau";
  CHECK(asked_plateau);
  for (const auto& e : events_of(trace_of(dir), "mcp_call")) {  // the client named itself in initialize
    CHECK_FALSE(e.value("client", std::string()).empty());
    CHECK(e["protocol_version"] != "");
  }
  // And the stop hook judged the stop as before.
  CHECK_FALSE(events_of(trace_of(dir), "hook_call").empty());
}

TEST_CASE("real Codex calls socratic mcp's tools from the project's .codex/config.toml", "[mcp][real-cli][codex]") {
  McpScript script;
  ScriptedServer server([&](const RecordedRequest& r) { return script(r); });
  const fs::path root = fresh_dir("mcp_codex");
  const fs::path dir = root / "campaign";
  const fs::path ws = workspace_of(dir);
  REQUIRE(init_cpu_campaign(dir, "codex").ok());
  const fs::path home = root / "home";
  fs::create_directories(home / ".codex");
  std::vector<std::string> env = scrubbed_environment();
  env.erase(std::remove_if(env.begin(), env.end(),
                           [](const std::string& e) {
                             return e.rfind("HOME=", 0) == 0 || e.rfind("CODEX_", 0) == 0 || e.rfind("OPENAI_", 0) == 0;
                           }),
            env.end());
  env.push_back("HOME=" + home.string());
  env.push_back("CODEX_HOME=" + (home / ".codex").string());
  env.push_back("SOCRATIC_TEST_CODEX_KEY=loopback-test-key");
  ProcessOptions o;
  o.working_dir = ws;
  o.environment = env;
  o.timeout = std::chrono::minutes(6);
  const ProcessResult run = run_process(
      {(socratic::test::agent_cli_bin() / "codex").string(), "exec", "--json", "--skip-git-repo-check", "--trust",
       "--dangerously-bypass-approvals-and-sandbox", "--dangerously-bypass-hook-trust", "--enable", "hooks", "-c",
       "model_provider=\"loopback\"", "-c",
       "model_providers.loopback={name=\"loopback\",base_url=\"" + server.url() +
           "/v1\",env_key=\"SOCRATIC_TEST_CODEX_KEY\",wire_api=\"responses\"}",
       "-m", "loopback-model", "Evaluate candidate.cpp with Socratic."},
      o);
  std::string listed;
  for (const auto& req : server.requests()) {
    const json body = req.json_or_null();
    if (body.is_object() && body.contains("tools"))
      for (const auto& t : body["tools"]) {
        const std::string name = t.value("name", t.value("type", std::string("?")));
        listed += name.find("socratic") != std::string::npos ? t.dump() + " " : name + " ";
      }
    if (!listed.empty()) break;
  }
  INFO("codex " << run.describe() << "\ntools listed: " << listed << "\nstderr: " << run.stderr_text.substr(0, 4000)
                << "\nstdout tail: " << run.stdout_text.substr(run.stdout_text.size() > 4000 ? run.stdout_text.size() - 4000 : 0));
  CHECK(run.exit_code == 0);
  REQUIRE(script.tool_names_seen.size() == 3);
  CHECK(traced_calls(dir) == std::vector<std::string>{"evaluate", "result", "ask"});
  CHECK_FALSE(events_of(trace_of(dir), "evaluation").empty());
}
