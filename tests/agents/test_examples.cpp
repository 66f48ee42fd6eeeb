// The two LLM examples, run as their users would run them, against the scripted loopback server:
// the custom backend speaks Ollama's native protocol, the campaign example streams Chat
// Completions and builds its CPU "kernel" for real. And `socratic run`, driving the same agent from
// a campaign file.
#include "catch.hpp"

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "loopback_server.hpp"
#include "socratic/record/trace.hpp"
#include "socratic/process/run_process.hpp"
#include "test_util.hpp"

using namespace socratic;
using namespace socratic::testing;

namespace {

/// The test's environment without proxies or keys, plus `extra`.
std::vector<std::string> example_environment(std::vector<std::string> extra) {
  std::vector<std::string> env;
  for (auto& e : scrubbed_environment()) {
    const std::string name = e.substr(0, e.find('='));
    std::string lower = name;
    for (auto& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (lower.find("proxy") != std::string::npos) continue;
    env.push_back(e);
  }
  env.insert(env.end(), extra.begin(), extra.end());
  return env;
}

ProcessOptions with_environment(std::vector<std::string> extra) {
  ProcessOptions po;
  po.environment = example_environment(std::move(extra));
  po.timeout = std::chrono::seconds(60);
  return po;
}

/// A Chat Completions answer as a stream of SSE chunks.
[[maybe_unused]] std::string sse_completion(const std::string& text, const json& tool_calls = json::array()) {
  auto chunk = [](const json& delta, const json& finish) {
    return "data: " + json{{"model", "test-model"}, {"choices", {{{"index", 0}, {"delta", delta}, {"finish_reason", finish}}}}}.dump() + "\n\n";
  };
  std::string out;
  if (!text.empty()) out += chunk({{"content", text}}, nullptr);
  for (std::size_t i = 0; i < tool_calls.size(); ++i)
    out += chunk({{"tool_calls", {{{"index", i}, {"id", tool_calls[i]["id"]}, {"type", "function"},
                                   {"function", {{"name", tool_calls[i]["name"]}, {"arguments", tool_calls[i]["arguments"].dump()}}}}}}}, nullptr);
  out += chunk(json::object(), tool_calls.empty() ? "stop" : "tool_calls");
  out += "data: " + json{{"choices", json::array()}, {"usage", {{"prompt_tokens", 800}, {"completion_tokens", 90}}}}.dump() + "\n\n";
  return out + "data: [DONE]\n\n";
}

}  // namespace

#ifdef EXAMPLE_CUSTOM_BACKEND_PATH
TEST_CASE("example custom_backend: a from-scratch Ollama backend drives a turn", "[agents][examples]") {
  ScriptedServer server;
  server.push(ScriptedReply::json_reply(200, {{"model", "coder"},
                                              {"message", {{"role", "assistant"}, {"content", ""},
                                                           {"tool_calls", {{{"function", {{"name", "read_file"}, {"arguments", {{"path", "kernel.cu"}}}}}}}}}},
                                              {"done", true}, {"done_reason", "stop"},
                                              {"prompt_eval_count", 120}, {"eval_count", 15}}));
  server.push(ScriptedReply::json_reply(200, {{"model", "coder"},
                                              {"message", {{"role", "assistant"}, {"content", "It is memory bound; vectorise the loads."}}},
                                              {"done", true}, {"done_reason", "stop"},
                                              {"prompt_eval_count", 300}, {"eval_count", 20}}));
  ProcessOptions po;
  po.environment = example_environment({"OLLAMA_HOST=" + server.url(), "OLLAMA_MODEL=coder"});
  po.timeout = std::chrono::seconds(60);
  const ProcessResult r = run_process({EXAMPLE_CUSTOM_BACKEND_PATH}, po);
  INFO(r.describe() << "\n" << r.stdout_text << r.stderr_text);
  REQUIRE(r.ok());
  CHECK_THAT(r.stdout_text, Catch::Matchers::Contains("It is memory bound") &&
                                Catch::Matchers::Contains("1 tool calls, 420 input and 35 output tokens"));
  const auto reqs = server.requests();
  REQUIRE(reqs.size() == 2);
  CHECK(reqs[0].target == "/api/chat");
  const json second = reqs[1].json_body();
  CHECK(second["model"] == "coder");
  CHECK(second["stream"] == false);
  CHECK(second["messages"].back()["role"] == "tool");
  CHECK_THAT(second["messages"].back()["content"].get<std::string>(), Catch::Matchers::Contains("__global__ void scale"));

  const ProcessResult unset = run_process({EXAMPLE_CUSTOM_BACKEND_PATH}, with_environment({}));
  CHECK(unset.exit_code == 2);
  CHECK_THAT(unset.stderr_text, Catch::Matchers::Contains("OLLAMA_HOST"));
}
#endif

#ifdef EXAMPLE_OPENAI_CAMPAIGN_PATH
TEST_CASE("example openai_campaign: a streamed campaign builds, checks and times the candidate",
          "[agents][examples]") {
  const std::string ikj =
      "extern \"C\" void matmul(int n, const float* a, const float* b, float* c) {\n"
      "  for (int i = 0; i < n * n; ++i) c[i] = 0;\n"
      "  for (int i = 0; i < n; ++i)\n    for (int k = 0; k < n; ++k) {\n"
      "      const float aik = a[i * n + k];\n"
      "      for (int j = 0; j < n; ++j) c[i * n + j] += aik * b[k * n + j];\n    }\n}\n";
  ScriptedServer server;
  server.push(ScriptedReply::sse({sse_completion("Reordering the loops.",
                                                 json::array({{{"id", "c1"}, {"name", "write_file"}, {"arguments", {{"path", "matmul.cpp"}, {"content", ikj}}}},
                                                              {{"id", "c2"}, {"name", "evaluate"}, {"arguments", json::object()}}}))}));
  // Whether 3x is reached depends on the machine: answer every further turn with a stop.
  for (int turn = 0; turn < 6; ++turn) server.push(ScriptedReply::sse({sse_completion("Done.")}));

  ProcessOptions po;
  po.environment = example_environment({"OPENAI_BASE_URL=" + server.url() + "/v1", "SOCRATIC_MODEL=test-model"});
  po.timeout = std::chrono::seconds(600);
  const ProcessResult r = run_process({EXAMPLE_OPENAI_CAMPAIGN_PATH}, po);
  INFO(r.describe() << "\n" << r.stdout_text << r.stderr_text);
  REQUIRE(r.started);
  CHECK((r.exit_code == 0 || r.exit_code == 1));  // goal met, or not on this machine
  CHECK_THAT(r.stdout_text, Catch::Matchers::Contains("ended: "));
  REQUIRE(server.requests().size() >= 2);
  CHECK(server.requests()[0].json_body()["stream"] == true);
  CHECK(server.requests()[0].header("authorization").empty());

  const auto trace = std::filesystem::temp_directory_path() / "socratic_openai_campaign" / "state" / "trace.jsonl";
  int agent_evaluations = 0;
  for (const auto& ev : read_trace(trace).events) {
    if (ev["type"] != "evaluation" || ev["record"]["origin"] != "agent") continue;
    ++agent_evaluations;
    const json& report = ev["record"]["report"];
    CHECK(report["built"] == true);
    REQUIRE(report["scenarios"].size() == 2);
    for (const auto& s : report["scenarios"]) {
      CHECK(s["correct"] == true);
      CHECK(s["speedup"].get<double>() > 0);
    }
  }
  CHECK(agent_evaluations == 1);

  const ProcessResult no_key = run_process({EXAMPLE_OPENAI_CAMPAIGN_PATH}, with_environment({}));
  CHECK(no_key.exit_code == 2);
  CHECK_THAT(no_key.stderr_text, Catch::Matchers::Contains("no API key") && Catch::Matchers::Contains("OPENAI_API_KEY"));
}
#endif

#ifdef SOCRATIC_TOOL_PATH
TEST_CASE("socratic run: a campaign file drives the LLM agent against the scripted server to its goal",
          "[agents][tool]") {
  const std::filesystem::path problem = std::filesystem::path(SOCRATIC_SOURCE_DIR) / "tests" / "tool" / "cpu_problem";
  TempDir dir("socratic_run");
  const auto ws = dir.path / "ws";
  // The campaign starts from a candidate that is wrong on one scenario; the goal is correctness.
  ProcessOptions quick = with_environment({});
  const ProcessResult init = run_process(
      {SOCRATIC_TOOL_PATH, "init", ws.string(), "--problem", "softmax_cpu", "--scenarios",
       (problem / "scenarios.json").string(), "--baseline", (problem / "fast_tail_bug.cpp").string(),
       "--evaluator-command", "bash " + (problem / "evaluate.sh").string() + " {candidate} {scenarios}",
       "--goal", R"({"all_correct":{}})", "--turns", "3", "--agent", "none"},
      quick);
  INFO(init.describe() << "\n" << init.stdout_text << init.stderr_text);
  REQUIRE(init.ok());

  ScriptedServer server;
  std::ifstream fixed_in(problem / "fast_fixed.cpp");
  const std::string fixed((std::istreambuf_iterator<char>(fixed_in)), std::istreambuf_iterator<char>());
  server.push(ScriptedReply::sse({sse_completion("Handling the remainder columns.",
                                                 json::array({{{"id", "c1"}, {"name", "write_file"}, {"arguments", {{"path", "candidate.cpp"}, {"content", fixed}}}},
                                                              {{"id", "c2"}, {"name", "evaluate"}, {"arguments", json::object()}}}))}));
  for (int turn = 0; turn < 4; ++turn) server.push(ScriptedReply::sse({sse_completion("Done: every scenario is correct.")}));

  json campaign = json::parse(std::ifstream(ws / "campaign.json"));
  campaign["agent"]["backend"] = "openai";
  campaign["agent"]["model"] = "test-model";
  campaign["agent"]["base_url"] = server.url() + "/v1";
  campaign["agent"]["api_key_env"] = "SOCRATIC_RUN_TEST_KEY";
  std::ofstream(ws / "campaign.json") << campaign.dump(2);

  const std::string key = "sk-run-test-0123456789abcdef";
  ProcessOptions po = with_environment({"SOCRATIC_RUN_TEST_KEY=" + key});
  po.timeout = std::chrono::seconds(300);
  const ProcessResult r = run_process({SOCRATIC_TOOL_PATH, "run", (ws / "campaign.json").string()}, po);
  INFO(r.describe() << "\n" << r.stdout_text << r.stderr_text);
  CHECK(r.exit_code == 0);  // the goal holds
  CHECK_THAT(r.stdout_text + r.stderr_text, Catch::Matchers::Contains("openai backend") &&
                                                Catch::Matchers::Contains("evaluations 1"));
  REQUIRE(server.requests().size() >= 2);
  CHECK(server.requests()[0].header("authorization") == "Bearer " + key);  // the key went to the server only

  const auto trace = ws / "state" / "trace.jsonl";
  std::string ended;
  int agent_evaluations = 0;
  for (const auto& ev : read_trace(trace).events) {
    if (ev["type"] == "campaign_ended") ended = ev["reason"];
    if (ev["type"] == "evaluation" && ev["record"]["origin"] == "agent") ++agent_evaluations;
  }
  CHECK(ended == "goal_met");
  CHECK(agent_evaluations == 1);
  std::ifstream trace_in(trace);
  const std::string trace_text((std::istreambuf_iterator<char>(trace_in)), std::istreambuf_iterator<char>());
  CHECK(trace_text.find(key) == std::string::npos);
}

TEST_CASE("socratic run: a failed model call ends the run with its reason on the terminal; run again, the "
          "campaign continues", "[agents][tool][resume]") {
  const std::filesystem::path problem = std::filesystem::path(SOCRATIC_SOURCE_DIR) / "tests" / "tool" / "cpu_problem";
  TempDir dir("socratic_run_agent_error");
  const auto ws = dir.path / "ws";
  const ProcessResult init = run_process(
      {SOCRATIC_TOOL_PATH, "init", ws.string(), "--problem", "softmax_cpu", "--scenarios",
       (problem / "scenarios.json").string(), "--baseline", (problem / "fast_tail_bug.cpp").string(),
       "--evaluator-command", "bash " + (problem / "evaluate.sh").string() + " {candidate} {scenarios}",
       "--goal", R"({"all_correct":{}})", "--turns", "4", "--agent", "none"},
      with_environment({}));
  INFO(init.describe() << "\n" << init.stdout_text << init.stderr_text);
  REQUIRE(init.ok());
  ScriptedServer server;
  json campaign = json::parse(std::ifstream(ws / "campaign.json"));
  campaign["agent"]["backend"] = "openai";
  campaign["agent"]["model"] = "test-model";
  campaign["agent"]["base_url"] = server.url() + "/v1";
  campaign["agent"]["api_key_env"] = "SOCRATIC_RUN_TEST_KEY";
  std::ofstream(ws / "campaign.json") << campaign.dump(2);
  ProcessOptions po = with_environment({"SOCRATIC_RUN_TEST_KEY=sk-run-test-0123456789abcdef"});
  po.timeout = std::chrono::seconds(300);

  // The key is refused: the run ends, and the terminal says why, not only `agent_error`.
  server.push(ScriptedReply::json_reply(401, {{"error", {{"message", "Incorrect API key provided"}, {"code", "invalid_api_key"}}}}));
  const ProcessResult failed = run_process({SOCRATIC_TOOL_PATH, "run", (ws / "campaign.json").string()}, po);
  INFO(failed.describe() << "\n" << failed.stdout_text << failed.stderr_text);
  CHECK(failed.exit_code == 1);
  CHECK_THAT(failed.stdout_text, Catch::Matchers::Contains("campaign ended: agent_error (") &&
                                     Catch::Matchers::Contains("SOCRATIC_RUN_TEST_KEY") &&
                                     Catch::Matchers::Contains("run the same command again to continue"));

  // Fixed: the same command continues the campaign (same history, same budgets) and says so.
  std::ifstream fixed_in(problem / "fast_fixed.cpp");
  const std::string fixed((std::istreambuf_iterator<char>(fixed_in)), std::istreambuf_iterator<char>());
  server.push(ScriptedReply::sse({sse_completion("Handling the remainder columns.",
                                                 json::array({{{"id", "c1"}, {"name", "write_file"}, {"arguments", {{"path", "candidate.cpp"}, {"content", fixed}}}}}))}));
  for (int turn = 0; turn < 4; ++turn) server.push(ScriptedReply::sse({sse_completion("Done: every scenario is correct.")}));
  const ProcessResult again = run_process({SOCRATIC_TOOL_PATH, "run", (ws / "campaign.json").string()}, po);
  INFO(again.describe() << "\n" << again.stdout_text << again.stderr_text);
  CHECK(again.exit_code == 0);
  CHECK_THAT(again.stderr_text, Catch::Matchers::Contains("campaign continues: it had ended with agent_error"));
  CHECK_THAT(again.stdout_text, Catch::Matchers::Contains("campaign ended: goal_met after 2 turns"));
  std::vector<std::string> kinds;
  for (const auto& ev : read_trace(ws / "state" / "trace.jsonl").events)
    if (ev["type"] == "campaign_ended" || ev["type"] == "campaign_continued") kinds.push_back(ev["type"]);
  CHECK(kinds == std::vector<std::string>{"campaign_ended", "campaign_continued", "campaign_ended"});
  // The model saw the campaign's history in the continued turn's first message.
  REQUIRE(server.requests().size() >= 2);
  CHECK_THAT(server.requests()[1].body, Catch::Matchers::Contains("had ended (agent_error"));
}
#endif
