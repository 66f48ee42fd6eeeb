#pragma once
/// @file
/// @brief AnthropicBackend: the Messages API with `tool_use` / `tool_result`, plain or streamed
/// (named events), retrying 429, 5xx and 529 (overloaded), also when `overloaded_error` or a
/// garbled event arrives in the middle of a stream. Satisfies `LlmBackend`.

#include <map>
#include <string>
#include <utility>

#include "socratic/agents/detail/backend_common.hpp"
#include "socratic/agents/llm_backend.hpp"
#include "socratic/concepts.hpp"
#include "socratic/http/sse.hpp"

namespace socratic {

/// @brief Settings of the Anthropic backend.
struct AnthropicOptions : BackendOptions {
  AnthropicOptions() { base_url = "https://api.anthropic.com"; }
  std::string version = "2023-06-01";  ///< the `anthropic-version` header
  /// Marks the system prompt, the tools and the newest message for prompt caching, so each
  /// step of an agent's loop re-reads its long history at the cache price.
  bool prompt_caching = true;

  /// @brief Anthropic itself, key from `$ANTHROPIC_API_KEY` (or `$ANTHROPIC_API_KEY_FILE`).
  static AnthropicOptions anthropic() {
    AnthropicOptions o;
    o.api_key = ApiKey::from_environment_or_file("ANTHROPIC_API_KEY");
    return o;
  }
};

namespace detail {

inline Usage anthropic_usage(const json& u) {
  Usage usage;
  if (!u.is_object()) return usage;
  usage.input_tokens = optional_field<long long>(u, "input_tokens", 0);
  usage.output_tokens = optional_field<long long>(u, "output_tokens", 0);
  usage.cache_read_tokens = optional_field<long long>(u, "cache_read_input_tokens", 0);
  usage.cache_write_tokens = optional_field<long long>(u, "cache_creation_input_tokens", 0);
  return usage;
}

/// Appends content blocks to the conversation, merging with the previous message when it has
/// the same role (the API wants user and assistant turns to alternate).
inline void append_blocks(json& messages, const char* role, json blocks) {
  if (blocks.empty()) return;
  if (!messages.empty() && messages.back()["role"] == role) {
    for (auto& b : blocks) messages.back()["content"].push_back(std::move(b));
    return;
  }
  messages.push_back({{"role", role}, {"content", std::move(blocks)}});
}

}  // namespace detail

/// @brief The request body for `r` (exposed for tests).
inline json anthropic_request_body(const LlmRequest& r, const AnthropicOptions& o) {
  json messages = json::array();
  for (const auto& m : r.messages) {
    json blocks = json::array();
    switch (m.role) {
      case ChatRole::assistant:
        if (!m.content.empty()) blocks.push_back({{"type", "text"}, {"text", m.content}});
        for (const auto& c : m.tool_calls)
          blocks.push_back({{"type", "tool_use"}, {"id", c.id}, {"name", c.name},
                            {"input", c.arguments.is_object() ? c.arguments : json::object()}});
        if (blocks.empty()) blocks.push_back({{"type", "text"}, {"text", "(no answer)"}});
        detail::append_blocks(messages, "assistant", std::move(blocks));
        break;
      case ChatRole::tool:
        blocks.push_back({{"type", "tool_result"}, {"tool_use_id", m.tool_call_id},
                          {"content", m.content.empty() ? "(no output)" : m.content},
                          {"is_error", m.is_error}});
        detail::append_blocks(messages, "user", std::move(blocks));
        break;
      default:  // user (and stray system messages, which the API only takes at the top)
        blocks.push_back({{"type", "text"}, {"text", m.content.empty() ? "(empty)" : m.content}});
        detail::append_blocks(messages, "user", std::move(blocks));
    }
  }
  json body{{"model", r.model}, {"max_tokens", r.max_tokens}};
  if (!r.system.empty()) {
    body["system"] = json::array({{{"type", "text"}, {"text", r.system}}});
    if (o.prompt_caching) body["system"][0]["cache_control"] = {{"type", "ephemeral"}};
  }
  if (r.temperature) body["temperature"] = *r.temperature;
  if (!r.tools.empty()) {
    body["tools"] = json::array();
    for (const auto& t : r.tools)
      body["tools"].push_back(
          {{"name", t.name}, {"description", t.description}, {"input_schema", t.parameters}});
    if (o.prompt_caching) body["tools"].back()["cache_control"] = {{"type", "ephemeral"}};
  }
  if (o.prompt_caching && !messages.empty())
    messages.back()["content"].back()["cache_control"] = {{"type", "ephemeral"}};
  body["messages"] = std::move(messages);
  if (o.stream) body["stream"] = true;
  return body;
}

/// @brief Reads a (non-streamed) Messages response.
inline LlmResponse parse_anthropic_response(const json& j, const std::string& what = "server") {
  if (!j.is_object() || !j.contains("content") || !j["content"].is_array()) {
    detail::attempt_error a;
    a.kind = LlmErrorKind::bad_response;
    a.message = what + " sent a response without content blocks: " + detail::clip(j.dump(), 300);
    throw a;
  }
  LlmResponse r;
  r.model = optional_field<std::string>(j, "model", "");
  r.stop_reason = optional_field<std::string>(j, "stop_reason", "");
  for (const auto& block : j["content"]) {
    const std::string type = optional_field<std::string>(block, "type", "");
    if (type == "text") {
      r.text += optional_field<std::string>(block, "text", "");
    } else if (type == "tool_use") {
      ToolCall c;
      c.id = optional_field<std::string>(block, "id", "");
      c.name = optional_field<std::string>(block, "name", "");
      c.arguments = block.contains("input") ? block["input"] : json::object();
      c.raw_arguments = c.arguments.dump();
      if (!c.arguments.is_object()) {
        c.parse_error = "the input is not a JSON object";
        c.arguments = nullptr;
      }
      r.tool_calls.push_back(std::move(c));
    }  // thinking and other blocks are not part of the answer
  }
  if (j.contains("usage")) r.usage = detail::anthropic_usage(j["usage"]);
  return r;
}

/// @brief Builds a response from the Messages stream's named events.
class AnthropicStreamAccumulator {
 public:
  explicit AnthropicStreamAccumulator(std::string what = "server") : what_(std::move(what)) {}

  /// @brief One event. @throws detail::attempt_error for `error` events (with the usage billed
  /// so far) and for malformed data.
  void add(std::string_view event, std::string_view data) {
    if (event == "ping") return;
    json j = json::parse(data, nullptr, false);
    if (j.is_discarded() || !j.is_object()) {
      detail::attempt_error a;
      a.kind = LlmErrorKind::bad_response;
      a.retryable = true;  // one garbled event is a glitch of the stream: ask again
      a.message = what_ + " streamed an event that is not a JSON object: " + detail::clip(data, 200);
      a.billed = usage_;
      throw a;
    }
    const std::string type = optional_field<std::string>(j, "type", std::string(event));
    if (type == "error") {
      const auto f = detail::read_error_body(std::string(data));
      detail::attempt_error a = detail::classify_error(0, f);
      a.message = what_ + " reported an error mid-stream: " +
                  detail::clip((f.type.empty() ? "" : f.type + ": ") + f.message);
      a.billed = usage_;  // the input was read: that is billed even though the answer broke
      throw a;
    }
    if (type == "message_start" && j.contains("message")) {
      const json& m = j["message"];
      response_.model = optional_field<std::string>(m, "model", "");
      if (m.contains("usage")) usage_ = detail::anthropic_usage(m["usage"]);
    } else if (type == "content_block_start") {
      const int index = optional_field<int>(j, "index", 0);
      const json block = j.contains("content_block") ? j["content_block"] : json::object();
      auto& b = blocks_[index];
      b.type = optional_field<std::string>(block, "type", "");
      b.id = optional_field<std::string>(block, "id", "");
      b.name = optional_field<std::string>(block, "name", "");
      b.text = optional_field<std::string>(block, "text", "");
    } else if (type == "content_block_delta") {
      auto& b = blocks_[optional_field<int>(j, "index", 0)];
      const json delta = j.contains("delta") ? j["delta"] : json::object();
      const std::string kind = optional_field<std::string>(delta, "type", "");
      const std::size_t before = b.text.size() + b.input.size();
      if (kind == "text_delta") b.text += optional_field<std::string>(delta, "text", "");
      if (kind == "input_json_delta") b.input += optional_field<std::string>(delta, "partial_json", "");
      held_ += b.text.size() + b.input.size() - before;
    } else if (type == "message_delta") {
      if (j.contains("delta"))
        response_.stop_reason = optional_field<std::string>(j["delta"], "stop_reason", response_.stop_reason);
      if (j.contains("usage") && j["usage"].is_object()) {
        // Counts in message_delta are cumulative: they replace, never add.
        const json& u = j["usage"];
        const Usage d = detail::anthropic_usage(u);
        if (u.contains("output_tokens")) usage_.output_tokens = d.output_tokens;
        if (u.contains("input_tokens")) usage_.input_tokens = d.input_tokens;
        if (u.contains("cache_read_input_tokens")) usage_.cache_read_tokens = d.cache_read_tokens;
        if (u.contains("cache_creation_input_tokens")) usage_.cache_write_tokens = d.cache_write_tokens;
      }
    } else if (type == "message_stop") {
      stopped_ = true;
    }
  }

  /// @brief Usage reported so far (billed even if the stream breaks).
  const Usage& usage() const noexcept { return usage_; }
  /// @brief Bytes of text and tool input assembled so far.
  std::size_t held_bytes() const noexcept { return held_; }

  /// @brief The assembled response. @throws detail::attempt_error when `message_stop` never came.
  LlmResponse finish() {
    if (!stopped_) {
      detail::attempt_error a;
      a.kind = LlmErrorKind::transport;
      a.retryable = true;
      a.message = what_ + " ended the stream before message_stop";
      a.billed = usage_;
      throw a;
    }
    LlmResponse r = response_;
    r.usage = usage_;
    for (auto& [index, b] : blocks_) {
      if (b.type == "text") r.text += b.text;
      if (b.type != "tool_use") continue;
      ToolCall c;
      c.id = b.id;
      c.name = b.name;
      c.raw_arguments = b.input;
      detail::parse_tool_arguments(c);
      r.tool_calls.push_back(std::move(c));
    }
    return r;
  }

 private:
  struct block {
    std::string type, id, name, text, input;
  };
  std::string what_;
  LlmResponse response_;
  Usage usage_;
  std::map<int, block> blocks_;
  bool stopped_ = false;
  std::size_t held_ = 0;
};

/// @brief An `LlmBackend` for the Anthropic Messages API.
///
/// @par Example
/// @code
/// AnthropicBackend claude(AnthropicOptions::anthropic());
/// LlmResponse r = claude.complete(request);
/// @endcode
class AnthropicBackend {
 public:
  explicit AnthropicBackend(AnthropicOptions options)
      : options_(std::move(options)),
        client_(detail::client_options(options_)),
        endpoint_(http::join_url(options_.base_url, "/v1/messages")) {
    http::parse_url(endpoint_, "AnthropicOptions::base_url");
    detail::require_key_for_remote(options_, endpoint_, "AnthropicOptions");
  }

  /// @brief One model call, retried as the policy allows. @throws llm_error.
  LlmResponse complete(const LlmRequest& request) {
    const std::string body = anthropic_request_body(request, options_).dump();
    const std::string what = "POST " + http::parse_url(endpoint_).redacted();
    detail::retrying_caller caller(options_, &retry_observer_);
    return caller.run(what, [&] { return attempt(request, body, what); });
  }

  const AnthropicOptions& options() const noexcept { return options_; }
  /// @brief Receives each retry as it happens (LlmAgent records them in the trace); empty: none.
  void set_retry_observer(retry_observer observer) { retry_observer_ = std::move(observer); }

 private:
  LlmResponse attempt(const LlmRequest& request, const std::string& body, const std::string& what) {
    http::HttpRequest req{"POST", endpoint_, detail::common_headers(options_), body};
    req.headers.push_back({"anthropic-version", options_.version});
    if (!options_.api_key.empty()) req.headers.push_back({"x-api-key", options_.api_key.reveal()});
    if (options_.stream) req.headers.push_back({"Accept", "text/event-stream"});

    LlmResponse r;
    const std::size_t cap = options_.max_response_bytes;
    if (!options_.stream) {
      const auto res = detail::send_capped(client_, req, what, cap);
      if (res.status / 100 != 2) throw detail::http_failure(what, res, options_.api_key);
      r = parse_anthropic_response(detail::parse_success_body(what, res.body), what);
    } else {
      AnthropicStreamAccumulator acc(what);
      http::SseParser sse(
          [&](const http::SseEvent& e) {
            acc.add(e.event, e.data);
            if (acc.held_bytes() > cap)
              throw detail::answer_too_large(what, cap, std::to_string(acc.held_bytes()) + " bytes assembled");
          },
          cap);
      try {
        const auto res =
            client_.send(req, [&](std::string_view chunk) { detail::feed_capped(sse, chunk, what, cap); });
        if (res.status / 100 != 2) throw detail::http_failure(what, res, options_.api_key);
        sse.finish();
        r = acc.finish();
      } catch (detail::attempt_error& e) {
        e.billed = acc.usage();
        detail::price(e.billed, options_.prices, "", request.model);
        throw;
      } catch (const http::transport_error& e) {
        detail::attempt_error a;
        a.kind = LlmErrorKind::transport;
        a.message = e.what();
        a.retryable = e.retryable();
        a.billed = acc.usage();
        detail::price(a.billed, options_.prices, "", request.model);
        throw a;
      }
    }
    detail::price(r.usage, options_.prices, r.model, request.model);
    return r;
  }

  AnthropicOptions options_;
  retry_observer retry_observer_;
  http::HttpClient client_;
  std::string endpoint_;
};

static_assert(LlmBackend<AnthropicBackend>, "AnthropicBackend must satisfy LlmBackend");

}  // namespace socratic
