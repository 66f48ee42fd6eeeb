#pragma once
/// @file
/// @brief OpenAiBackend: the Chat Completions API with tool calling, plain or streamed, for
/// OpenAI and every server that copies it (vLLM, llama.cpp server, Ollama's `/v1`, OpenRouter,
/// LiteLLM, ...). Satisfies `LlmBackend`.
///
/// Server notes: vLLM needs `--enable-auto-tool-choice --tool-call-parser NAME` for tools and
/// answers errors with a flat body; llama.cpp server needs `--jinja` and reports an overflowing
/// prompt as `exceed_context_size_error`; Ollama's native `/api/chat` is a different protocol
/// (use its `/v1` base URL here).

#include <map>
#include <string>
#include <utility>

#include "socratic/agents/detail/backend_common.hpp"
#include "socratic/agents/llm_backend.hpp"
#include "socratic/concepts.hpp"
#include "socratic/http/sse.hpp"

namespace socratic {

/// @brief Settings of an OpenAI-compatible backend.
struct OpenAiOptions : BackendOptions {
  OpenAiOptions() { base_url = "https://api.openai.com/v1"; }
  /// Name of the output limit field: `max_tokens` (every server) or `max_completion_tokens`
  /// (OpenAI's reasoning models require it).
  std::string max_tokens_field = "max_tokens";
  /// Streaming: ask for the usage chunk (`stream_options.include_usage`).
  bool include_usage = true;

  /// @brief OpenAI itself, key from `$OPENAI_API_KEY` (or the file in `$OPENAI_API_KEY_FILE`).
  static OpenAiOptions openai() {
    OpenAiOptions o;
    o.api_key = ApiKey::from_environment_or_file("OPENAI_API_KEY");
    return o;
  }
  /// @brief A server at `base_url` (e.g. `http://127.0.0.1:8000/v1`), with an optional key.
  static OpenAiOptions compatible(std::string base_url, ApiKey key = {}) {
    OpenAiOptions o;
    o.base_url = std::move(base_url);
    o.api_key = std::move(key);
    return o;
  }
};

namespace detail {

inline json openai_tool_call(const ToolCall& c) {
  // Malformed arguments go back as the model wrote them, so its history stays its own.
  const std::string arguments =
      c.parse_error.empty() ? (c.arguments.is_null() ? "{}" : c.arguments.dump()) : c.raw_arguments;
  return json{{"id", c.id}, {"type", "function"},
              {"function", {{"name", c.name}, {"arguments", arguments}}}};
}

inline Usage openai_usage(const json& u) {
  Usage usage;
  if (!u.is_object()) return usage;
  const long long prompt = optional_field<long long>(u, "prompt_tokens", 0);
  long long cached = 0;
  if (u.contains("prompt_tokens_details") && u["prompt_tokens_details"].is_object())
    cached = optional_field<long long>(u["prompt_tokens_details"], "cached_tokens", 0);
  usage.input_tokens = prompt - cached;  // OpenAI counts cached tokens inside prompt_tokens
  usage.cache_read_tokens = cached;
  usage.output_tokens = optional_field<long long>(u, "completion_tokens", 0);
  return usage;
}

}  // namespace detail

/// @brief The request body for `r` (exposed for tests and for users who log requests).
inline json openai_request_body(const LlmRequest& r, const OpenAiOptions& o) {
  json messages = json::array();
  if (!r.system.empty()) messages.push_back({{"role", "system"}, {"content", r.system}});
  for (const auto& m : r.messages) {
    json msg{{"role", std::string(to_string(m.role))}};
    switch (m.role) {
      case ChatRole::assistant:
        msg["content"] = m.content.empty() && !m.tool_calls.empty() ? json(nullptr) : json(m.content);
        if (!m.tool_calls.empty()) {
          msg["tool_calls"] = json::array();
          for (const auto& c : m.tool_calls) msg["tool_calls"].push_back(detail::openai_tool_call(c));
        }
        break;
      case ChatRole::tool:
        msg["tool_call_id"] = m.tool_call_id;
        msg["content"] = m.content;
        break;
      default:
        msg["content"] = m.content;
    }
    messages.push_back(std::move(msg));
  }
  json body{{"model", r.model}, {"messages", std::move(messages)}, {o.max_tokens_field, r.max_tokens}};
  if (r.temperature) body["temperature"] = *r.temperature;
  if (!r.tools.empty()) {
    body["tools"] = json::array();
    for (const auto& t : r.tools)
      body["tools"].push_back({{"type", "function"},
                               {"function", {{"name", t.name}, {"description", t.description},
                                             {"parameters", t.parameters}}}});
  }
  if (o.stream) {
    body["stream"] = true;
    if (o.include_usage) body["stream_options"] = {{"include_usage", true}};
  }
  return body;
}

/// @brief Reads a (non-streamed) Chat Completions response.
/// @throws detail::attempt_error (bad_response) when it lacks a choice.
inline LlmResponse parse_openai_response(const json& j, const std::string& what = "server") {
  auto bad = [&](const std::string& why) {
    detail::attempt_error a;
    a.kind = LlmErrorKind::bad_response;
    a.message = what + " sent a response without " + why + ": " + detail::clip(j.dump(), 300);
    return a;
  };
  if (j.is_object() && j.contains("error") && !j["error"].is_null() && !j.contains("choices")) {
    // Some gateways (OpenRouter among them) report errors inside a 200.
    const auto f = detail::read_error_body(j.dump());
    detail::attempt_error a = detail::classify_error(0, f);
    a.message = what + " answered with an error: " +
                detail::clip((f.type.empty() ? "" : f.type + ": ") + f.message);
    throw a;
  }
  if (!j.is_object() || !j.contains("choices") || !j["choices"].is_array() || j["choices"].empty())
    throw bad("choices");
  const json& choice = j["choices"][0];
  if (!choice.contains("message") || !choice["message"].is_object()) throw bad("a message");
  const json& m = choice["message"];
  LlmResponse r;
  r.model = optional_field<std::string>(j, "model", "");
  r.stop_reason = optional_field<std::string>(choice, "finish_reason", "");
  if (m.contains("content") && m["content"].is_string()) r.text = m["content"].get<std::string>();
  if (m.contains("tool_calls") && m["tool_calls"].is_array()) {
    int index = 0;
    for (const auto& tc : m["tool_calls"]) {
      ToolCall c;
      c.id = optional_field<std::string>(tc, "id", "");
      if (c.id.empty()) c.id = "call_" + std::to_string(index);  // some local servers omit it
      const json fn = tc.contains("function") ? tc["function"] : json::object();
      c.name = optional_field<std::string>(fn, "name", "");
      if (fn.contains("arguments") && fn["arguments"].is_string()) {
        c.raw_arguments = fn["arguments"].get<std::string>();
        detail::parse_tool_arguments(c);
      } else if (fn.contains("arguments") && fn["arguments"].is_object()) {
        c.arguments = fn["arguments"];  // a few servers send an object, not a string
        c.raw_arguments = c.arguments.dump();
      }
      r.tool_calls.push_back(std::move(c));
      ++index;
    }
  }
  if (j.contains("usage")) r.usage = detail::openai_usage(j["usage"]);
  return r;
}

/// @brief Builds a response from streamed Chat Completions chunks (SSE `data:` payloads).
/// Tool-call fragments merge by `index`: id and name arrive first, arguments accumulate.
class OpenAiStreamAccumulator {
 public:
  explicit OpenAiStreamAccumulator(std::string what = "server") : what_(std::move(what)) {}

  /// @brief One event's data. @throws detail::attempt_error for an error event or bad JSON.
  void add(std::string_view data) {
    if (http::detail::trim(data) == "[DONE]") {
      done_ = true;
      return;
    }
    json chunk = json::parse(data, nullptr, false);
    if (chunk.is_discarded() || !chunk.is_object()) {
      detail::attempt_error a;
      a.kind = LlmErrorKind::bad_response;
      a.retryable = true;  // one garbled chunk is a glitch of the stream: ask again
      a.message = what_ + " streamed a chunk that is not a JSON object: " + detail::clip(data, 200);
      throw a;
    }
    if (chunk.contains("error") && !chunk["error"].is_null()) {
      const auto f = detail::read_error_body(std::string(data));
      detail::attempt_error a = detail::classify_error(0, f);
      a.message = what_ + " reported an error mid-stream: " +
                  detail::clip((f.type.empty() ? "" : f.type + ": ") + f.message);
      throw a;
    }
    if (response_.model.empty()) response_.model = optional_field<std::string>(chunk, "model", "");
    if (chunk.contains("usage") && chunk["usage"].is_object()) {
      response_.usage = detail::openai_usage(chunk["usage"]);
      has_usage_ = true;
    }
    if (!chunk.contains("choices") || !chunk["choices"].is_array()) return;
    for (const auto& choice : chunk["choices"]) {
      if (optional_field<int>(choice, "index", 0) != 0) continue;
      if (choice.contains("finish_reason") && choice["finish_reason"].is_string())
        response_.stop_reason = choice["finish_reason"].get<std::string>();
      if (!choice.contains("delta") || !choice["delta"].is_object()) continue;
      const json& delta = choice["delta"];
      if (delta.contains("content") && delta["content"].is_string()) {
        response_.text += delta["content"].get<std::string>();
        held_ += delta["content"].get_ref<const std::string&>().size();
      }
      if (!delta.contains("tool_calls") || !delta["tool_calls"].is_array()) continue;
      int position = 0;
      for (const auto& frag : delta["tool_calls"]) {
        const int index = optional_field<int>(frag, "index", position++);
        auto& call = calls_[index];
        if (auto id = optional_field<std::string>(frag, "id", ""); !id.empty()) call.id = id;
        if (frag.contains("function") && frag["function"].is_object()) {
          const json& fn = frag["function"];
          const std::size_t before = call.name.size() + call.raw_arguments.size();
          call.name += optional_field<std::string>(fn, "name", "");
          if (fn.contains("arguments") && fn["arguments"].is_string())
            call.raw_arguments += fn["arguments"].get<std::string>();
          else if (fn.contains("arguments") && fn["arguments"].is_object())
            call.raw_arguments += fn["arguments"].dump();
          held_ += call.name.size() + call.raw_arguments.size() - before;
        }
      }
    }
  }

  /// @brief Whether the stream said it was complete (`[DONE]`, or at least a finish reason).
  bool complete() const noexcept { return done_ || !response_.stop_reason.empty(); }
  bool has_usage() const noexcept { return has_usage_; }
  /// @brief Bytes of text, tool names and arguments assembled so far.
  std::size_t held_bytes() const noexcept { return held_; }

  /// @brief The assembled response. @throws detail::attempt_error when the stream ended early.
  LlmResponse finish() {
    if (!complete()) {
      detail::attempt_error a;
      a.kind = LlmErrorKind::transport;
      a.retryable = true;
      a.message = what_ + " ended the stream before it was complete (no finish_reason, no [DONE])";
      throw a;
    }
    LlmResponse r = response_;
    for (auto& [index, call] : calls_) {
      if (call.id.empty()) call.id = "call_" + std::to_string(index);
      detail::parse_tool_arguments(call);
      r.tool_calls.push_back(call);
    }
    return r;
  }

 private:
  std::string what_;
  LlmResponse response_;
  std::map<int, ToolCall> calls_;
  bool done_ = false;
  bool has_usage_ = false;
  std::size_t held_ = 0;
};

/// @brief An `LlmBackend` for the Chat Completions API.
///
/// @par Example
/// @code
/// OpenAiBackend gpt(OpenAiOptions::openai());                         // api.openai.com
/// OpenAiBackend local(OpenAiOptions::compatible("http://127.0.0.1:8000/v1"));  // vLLM
/// LlmResponse r = gpt.complete(request);
/// @endcode
class OpenAiBackend {
 public:
  explicit OpenAiBackend(OpenAiOptions options)
      : options_(std::move(options)),
        client_(detail::client_options(options_)),
        endpoint_(http::join_url(options_.base_url, "/chat/completions")) {
    http::parse_url(endpoint_, "OpenAiOptions::base_url");  // fail now, not at the first call
    detail::require_key_for_remote(options_, endpoint_, "OpenAiOptions");
  }

  /// @brief One model call, retried as the policy allows. @throws llm_error.
  LlmResponse complete(const LlmRequest& request) {
    const std::string body = openai_request_body(request, options_).dump();
    const std::string what = "POST " + http::parse_url(endpoint_).redacted();
    detail::retrying_caller caller(options_, &retry_observer_);
    LlmResponse r = caller.run(what, [&] { return attempt(request, body, what); });
    return r;
  }

  const OpenAiOptions& options() const noexcept { return options_; }
  /// @brief Receives each retry as it happens (LlmAgent records them in the trace); empty: none.
  void set_retry_observer(retry_observer observer) { retry_observer_ = std::move(observer); }

 private:
  LlmResponse attempt(const LlmRequest& request, const std::string& body, const std::string& what) {
    http::HttpRequest req{"POST", endpoint_, detail::common_headers(options_), body};
    if (!options_.api_key.empty())
      req.headers.push_back({"Authorization", "Bearer " + options_.api_key.reveal()});
    if (options_.stream) req.headers.push_back({"Accept", "text/event-stream"});

    LlmResponse r;
    const std::size_t cap = options_.max_response_bytes;
    if (!options_.stream) {
      const auto res = detail::send_capped(client_, req, what, cap);
      if (res.status / 100 != 2) throw detail::http_failure(what, res, options_.api_key);
      r = parse_openai_response(detail::parse_success_body(what, res.body), what);
    } else {
      OpenAiStreamAccumulator acc(what);
      http::SseParser sse(
          [&](const http::SseEvent& e) {
            acc.add(e.data);
            if (acc.held_bytes() > cap)
              throw detail::answer_too_large(what, cap, std::to_string(acc.held_bytes()) + " bytes assembled");
          },
          cap);
      const auto res = client_.send(req, [&](std::string_view chunk) { detail::feed_capped(sse, chunk, what, cap); });
      if (res.status / 100 != 2) throw detail::http_failure(what, res, options_.api_key);
      sse.finish();
      r = acc.finish();
      if (!acc.has_usage() && options_.log)
        options_.log(what + ": the stream carried no usage (server ignores stream_options?)");
    }
    detail::price(r.usage, options_.prices, r.model, request.model);
    return r;
  }

  OpenAiOptions options_;
  retry_observer retry_observer_;
  http::HttpClient client_;
  std::string endpoint_;
};

static_assert(LlmBackend<OpenAiBackend>, "OpenAiBackend must satisfy LlmBackend");

}  // namespace socratic
