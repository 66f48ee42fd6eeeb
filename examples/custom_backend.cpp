// A model backend written from scratch: Ollama's native /api/chat protocol (not its OpenAI-like
// /v1), in about fifty lines, driving the reference LlmAgent for one turn.
//
//   ollama serve & ollama pull qwen2.5-coder
//   OLLAMA_HOST=http://127.0.0.1:11434 OLLAMA_MODEL=qwen2.5-coder ./example_custom_backend
//
// A backend is any type with `LlmResponse complete(const LlmRequest&)` that throws llm_error
// when it cannot answer. Nothing else: no base class, no registration.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>

#include <socratic/agents/llm_agent.hpp>
#include <socratic/http/client.hpp>

using namespace socratic;

class OllamaBackend {
 public:
  explicit OllamaBackend(std::string host) : url_(http::join_url(host, "/api/chat")) {}

  LlmResponse complete(const LlmRequest& request) {
    json messages = json::array({{{"role", "system"}, {"content", request.system}}});
    for (const ChatMessage& m : request.messages) {
      json out = {{"role", std::string(to_string(m.role))}, {"content", m.content}};
      for (const ToolCall& c : m.tool_calls)
        out["tool_calls"].push_back({{"function", {{"name", c.name}, {"arguments", c.arguments.is_object() ? c.arguments : json::object()}}}});
      messages.push_back(out);
    }
    json tools = json::array();
    for (const ToolSpec& t : request.tools)
      tools.push_back({{"type", "function"}, {"function", {{"name", t.name}, {"description", t.description}, {"parameters", t.parameters}}}});
    const json body = {{"model", request.model}, {"messages", messages}, {"tools", tools}, {"stream", false},
                       {"options", {{"num_predict", request.max_tokens}}}};

    http::HttpResponse res;
    try {
      res = client_.send({"POST", url_, {{"Content-Type", "application/json"}}, body.dump()});
    } catch (const http::transport_error& e) {
      throw llm_error(LlmErrorKind::transport, e.what());
    }
    if (res.status != 200) throw llm_error(LlmErrorKind::http, url_ + " answered " + std::to_string(res.status) + ": " + res.body, res.status);
    const json answer = json::parse(res.body, nullptr, false);
    if (answer.is_discarded() || !answer.contains("message")) throw llm_error(LlmErrorKind::bad_response, "not a chat answer: " + res.body.substr(0, 200));

    LlmResponse r;
    r.model = answer.value("model", request.model);
    r.stop_reason = answer.value("done_reason", "");
    r.text = answer["message"].value("content", "");
    for (const json& c : answer["message"].value("tool_calls", json::array())) {
      ToolCall call;
      call.id = "call_" + std::to_string(calls_++);  // Ollama gives no ids: make stable ones
      call.name = c["function"].value("name", "");
      call.arguments = c["function"].value("arguments", json::object());
      call.raw_arguments = call.arguments.dump();
      r.tool_calls.push_back(call);
    }
    r.usage.input_tokens = answer.value("prompt_eval_count", 0LL);
    r.usage.output_tokens = answer.value("eval_count", 0LL);
    return r;
  }

 private:
  std::string url_;
  http::HttpClient client_;
  long calls_ = 0;
};
static_assert(LlmBackend<OllamaBackend>, "OllamaBackend must satisfy LlmBackend");

int main() {
  const char* host = std::getenv("OLLAMA_HOST");
  const char* model = std::getenv("OLLAMA_MODEL");
  if (!host || !model) {
    std::cerr << "custom_backend: set OLLAMA_HOST (e.g. http://127.0.0.1:11434) and OLLAMA_MODEL "
                 "(e.g. qwen2.5-coder) to talk to an Ollama server.\n";
    return 2;
  }
  // A workspace with one file, and Tools built from plain functions (no campaign needed).
  const auto workspace = std::filesystem::temp_directory_path() / "socratic_custom_backend";
  std::filesystem::create_directories(workspace);
  std::ofstream(workspace / "kernel.cu") << "__global__ void scale(float* x, float a, int n) {\n"
                                            "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                                            "  if (i < n) x[i] *= a;\n}\n";
  Tools tools(workspace, Candidate{workspace / "kernel.cu", "", ""}, [] {
    EvaluateResult r;
    r.refused = true;
    r.refusal = "no evaluator in this example";
    return r;
  });

  LlmAgentOptions options;
  options.model = model;
  LlmAgent agent(OllamaBackend(host), options);
  Message task;
  task.text = "Read kernel.cu and explain in three sentences what would make it faster.";
  const TurnResult result = agent.turn(task, tools);
  if (!result.error.empty()) {
    std::cerr << "custom_backend: " << result.error << "\n";
    return 1;
  }
  std::cout << result.final_message << "\n(" << result.tool_calls << " tool calls, "
            << result.usage.input_tokens << " input and " << result.usage.output_tokens
            << " output tokens)\n";
  return 0;
}
