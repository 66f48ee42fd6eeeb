// The two LLM examples, run as their users would run them, against the scripted loopback server:
// the custom backend speaks Ollama's native protocol, the campaign example streams Chat
// Completions and builds its CPU "kernel" for real.
#include "catch.hpp"

#include <filesystem>
#include <string>
#include <vector>

#include "scripted_server.hpp"
#include "socratic/campaign/trace.hpp"
#include "socratic/process/run_process.hpp"

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
namespace {

/// A Chat Completions answer as a stream of SSE chunks.
std::string sse_completion(const std::string& text, const json& tool_calls = json::array()) {
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
