#pragma once
/// @file
/// @brief The vocabulary between LlmAgent and an LlmBackend: requests, responses, tool calls,
/// and the errors a backend reports. Light: no transport headers.

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "socratic/core/error.hpp"
#include "socratic/core/json.hpp"
#include "socratic/core/message.hpp"

namespace socratic {

/// @brief A tool the model may call: name, description, JSON Schema of its arguments.
struct ToolSpec {
  std::string name;
  std::string description;
  json parameters = json::object();
  friend bool operator==(const ToolSpec&, const ToolSpec&) = default;
};

/// @brief A tool call the model made. When the model sent arguments that are not valid JSON,
/// `arguments` is null and `parse_error` says why (the agent tells the model; nothing crashes).
struct ToolCall {
  std::string id;
  std::string name;
  json arguments = json::object();
  std::string raw_arguments;  ///< as the model sent them
  std::string parse_error;    ///< non-empty when raw_arguments did not parse
  friend bool operator==(const ToolCall&, const ToolCall&) = default;
};

enum class ChatRole { system, user, assistant, tool };

constexpr std::string_view to_string(ChatRole r) noexcept {
  switch (r) {
    case ChatRole::system: return "system";
    case ChatRole::user: return "user";
    case ChatRole::assistant: return "assistant";
    case ChatRole::tool: return "tool";
  }
  return "user";
}

/// @brief One message of a conversation, in a provider-neutral form.
struct ChatMessage {
  ChatRole role = ChatRole::user;
  std::string content;
  std::vector<ToolCall> tool_calls;  ///< assistant messages: the calls it made
  std::string tool_call_id;          ///< tool messages: the call answered
  bool is_error = false;             ///< tool messages: the tool failed
  friend bool operator==(const ChatMessage&, const ChatMessage&) = default;
};

/// @brief A request to a model.
struct LlmRequest {
  std::string model;
  std::string system;
  std::vector<ChatMessage> messages;
  std::vector<ToolSpec> tools;
  int max_tokens = 8192;
  std::optional<double> temperature;
  friend bool operator==(const LlmRequest&, const LlmRequest&) = default;
};

/// @brief A model's answer: text and/or tool calls, why it stopped, what it cost.
struct LlmResponse {
  std::string text;
  std::vector<ToolCall> tool_calls;
  std::string stop_reason;  ///< provider's word: `end_turn`, `tool_use`, `stop`, `length`, ...
  std::string model;
  Usage usage;
  friend bool operator==(const LlmResponse&, const LlmResponse&) = default;
};

/// @brief What went wrong talking to a model, so callers can react (retry, shorten, stop).
enum class LlmErrorKind {
  transport,         ///< connection, TLS, timeout (after retries)
  http,              ///< an HTTP status not covered below
  authentication,    ///< 401/403: bad or missing key
  rate_limited,      ///< 429 still failing after retries
  spend_limit,       ///< quota or billing limit: never retried
  overloaded,        ///< 529 / overloaded_error after retries
  context_overflow,  ///< the conversation does not fit the model's window
  bad_request,       ///< 400 for another reason
  bad_response,      ///< the answer could not be parsed or broke the protocol
  replay_miss,       ///< replay backend: no recorded answer for this request
};

constexpr std::string_view to_string(LlmErrorKind k) noexcept {
  switch (k) {
    case LlmErrorKind::transport: return "transport";
    case LlmErrorKind::http: return "http";
    case LlmErrorKind::authentication: return "authentication";
    case LlmErrorKind::rate_limited: return "rate_limited";
    case LlmErrorKind::spend_limit: return "spend_limit";
    case LlmErrorKind::overloaded: return "overloaded";
    case LlmErrorKind::context_overflow: return "context_overflow";
    case LlmErrorKind::bad_request: return "bad_request";
    case LlmErrorKind::bad_response: return "bad_response";
    case LlmErrorKind::replay_miss: return "replay_miss";
  }
  return "unknown";
}

/// @brief Thrown by backends. Carries the kind, the HTTP status (0 if none), and the usage of
/// calls that failed but were billed.
class llm_error : public error {
 public:
  llm_error(LlmErrorKind kind, std::string message, int status = 0, Usage billed = {})
      : error(std::string(to_string(kind)) + ": " + message),
        kind_(kind),
        status_(status),
        billed_(billed) {}
  LlmErrorKind kind() const noexcept { return kind_; }
  int status() const noexcept { return status_; }
  const Usage& billed() const noexcept { return billed_; }

 private:
  LlmErrorKind kind_;
  int status_;
  Usage billed_;
};

inline void to_json(json& j, const ToolSpec& t) {
  j = json{{"name", t.name}, {"description", t.description}, {"parameters", t.parameters}};
}
inline void from_json(const json& j, ToolSpec& t) {
  t.name = required<std::string>(j, "name", "tool spec");
  t.description = optional_field<std::string>(j, "description", "");
  t.parameters = optional_field<json>(j, "parameters", json::object());
}
inline void to_json(json& j, const ToolCall& c) {
  j = json{{"id", c.id}, {"name", c.name}, {"arguments", c.arguments},
           {"raw_arguments", c.raw_arguments}, {"parse_error", c.parse_error}};
}
inline void from_json(const json& j, ToolCall& c) {
  c.id = optional_field<std::string>(j, "id", "");
  c.name = required<std::string>(j, "name", "tool call");
  c.arguments = optional_field<json>(j, "arguments", json::object());
  c.raw_arguments = optional_field<std::string>(j, "raw_arguments", "");
  c.parse_error = optional_field<std::string>(j, "parse_error", "");
}
inline void to_json(json& j, const ChatRole& r) { j = std::string(to_string(r)); }
inline void from_json(const json& j, ChatRole& r) {
  const auto s = j.get<std::string>();
  for (auto c : {ChatRole::system, ChatRole::user, ChatRole::assistant, ChatRole::tool})
    if (to_string(c) == s) {
      r = c;
      return;
    }
  throw input_error({}, "chat message", "unknown role \"" + s + "\"");
}
inline void to_json(json& j, const ChatMessage& m) {
  j = json{{"role", m.role}, {"content", m.content}};
  if (!m.tool_calls.empty()) j["tool_calls"] = m.tool_calls;
  if (!m.tool_call_id.empty()) j["tool_call_id"] = m.tool_call_id;
  if (m.is_error) j["is_error"] = true;
}
inline void from_json(const json& j, ChatMessage& m) {
  m.role = required<ChatRole>(j, "role", "chat message");
  m.content = optional_field<std::string>(j, "content", "");
  m.tool_calls = optional_field<std::vector<ToolCall>>(j, "tool_calls", {});
  m.tool_call_id = optional_field<std::string>(j, "tool_call_id", "");
  m.is_error = optional_field<bool>(j, "is_error", false);
}
inline void to_json(json& j, const LlmRequest& r) {
  j = json{{"model", r.model}, {"system", r.system}, {"messages", r.messages},
           {"tools", r.tools}, {"max_tokens", r.max_tokens}};
  j["temperature"] = r.temperature ? json(*r.temperature) : json(nullptr);
}
inline void from_json(const json& j, LlmRequest& r) {
  r.model = optional_field<std::string>(j, "model", "");
  r.system = optional_field<std::string>(j, "system", "");
  r.messages = optional_field<std::vector<ChatMessage>>(j, "messages", {});
  r.tools = optional_field<std::vector<ToolSpec>>(j, "tools", {});
  r.max_tokens = optional_field<int>(j, "max_tokens", 8192);
  r.temperature = optional_value<double>(j, "temperature");
}
inline void to_json(json& j, const LlmResponse& r) {
  j = json{{"text", r.text}, {"tool_calls", r.tool_calls}, {"stop_reason", r.stop_reason},
           {"model", r.model}, {"usage", r.usage}};
}
inline void from_json(const json& j, LlmResponse& r) {
  r.text = optional_field<std::string>(j, "text", "");
  r.tool_calls = optional_field<std::vector<ToolCall>>(j, "tool_calls", {});
  r.stop_reason = optional_field<std::string>(j, "stop_reason", "");
  r.model = optional_field<std::string>(j, "model", "");
  r.usage = optional_field<Usage>(j, "usage", {});
}

/// @brief One retry of a model call: what failed, which attempt, how long until the next. A
/// backend's retry observer receives it as it happens; LlmAgent records each in the campaign
/// trace (an `agent_event` of type `retry`, docs/trace.md).
struct RetryNotice {
  std::string call;                          ///< e.g. `POST http://127.0.0.1:8000/v1/chat/completions`
  LlmErrorKind kind = LlmErrorKind::transport;  ///< the cause
  int status = 0;                            ///< the HTTP status; 0 below HTTP
  int attempt = 1;                           ///< the attempt that failed (1: the first)
  std::chrono::milliseconds wait{0};         ///< before the next attempt
  std::chrono::milliseconds spent{0};        ///< spent on this call so far, attempts and waits, this wait excluded
  std::chrono::milliseconds retry_time{0};   ///< RetryPolicy::max_retry_time (0: no time limit)
  std::string message;                       ///< the failure, secrets removed
};

inline void to_json(json& j, const RetryNotice& n) {
  j = json{{"type", "retry"},
           {"call", n.call},
           {"cause", std::string(to_string(n.kind))},
           {"status", n.status},
           {"attempt", n.attempt},
           {"wait_ms", n.wait.count()},
           {"spent_s", static_cast<double>(n.spent.count()) / 1000.0},
           {"retry_time_s", static_cast<double>(n.retry_time.count()) / 1000.0},
           {"message", n.message}};
}

/// @brief Receives each retry of a backend's calls (set with `set_retry_observer`).
using retry_observer = std::function<void(const RetryNotice&)>;

}  // namespace socratic
