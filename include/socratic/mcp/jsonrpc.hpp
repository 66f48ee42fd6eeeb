#pragma once
/// @file
/// @brief JSON-RPC 2.0 as MCP's stdio transport frames it: one message per line (UTF-8 JSON, no
/// embedded newline), a size cap on what is read, and the validation that tells a request, a
/// notification and a response apart. Protocol faults become JSON-RPC errors here; what a tool
/// did wrong never does (server.hpp: an `isError` result). Schema: docs/mcp.md.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include "socratic/core/json.hpp"

namespace socratic::mcp {

/// @brief JSON-RPC 2.0 error codes, and the one the 2026-07-28 revision adds.
namespace error_code {
inline constexpr int parse_error = -32700;       ///< the line is not JSON
inline constexpr int invalid_request = -32600;   ///< JSON, but not a JSON-RPC 2.0 message
inline constexpr int method_not_found = -32601;  ///< an unknown method (and an unknown tool: MCP says so)
inline constexpr int invalid_params = -32602;    ///< params of the wrong shape
inline constexpr int internal_error = -32603;    ///< the server failed; the message says where
/// A request before `initialize` on a connection that uses the handshake.
inline constexpr int server_not_initialized = -32002;
/// 2026-07-28: the `_meta` protocol version is not one this server speaks (data.supportedVersions).
inline constexpr int unsupported_protocol_version = -32022;
}  // namespace error_code

/// @brief The largest message read (a line of stdin), bytes. Arguments beyond it are refused
/// with an error before any parsing: a client cannot make the server hold an unbounded line.
inline constexpr std::size_t default_max_message_bytes = 1 << 20;

/// @brief A request: a method and an id, answered by exactly one response.
struct Request {
  json id;  ///< a string or a number
  std::string method;
  json params = json::object();
};

/// @brief A notification: a method without an id, never answered.
struct Notification {
  std::string method;
  json params = json::object();
};

/// @brief A response the client sent (to a request of ours; this server sends none, so it is
/// only logged).
struct Response {
  json id;
  json body;
};

/// @brief A message that is not valid JSON-RPC: the error to send back (id null when the
/// message's id could not be read).
struct Fault {
  json id = nullptr;
  int code = error_code::invalid_request;
  std::string message;
  json data = nullptr;
};

/// @brief A line as read: one of the four (named apart from socratic::Message, an agent's message).
using IncomingMessage = std::variant<Request, Notification, Response, Fault>;

/// @brief A result response.
inline json make_result(const json& id, json result) {
  return json{{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(result)}};
}

/// @brief An error response.
inline json make_error(const json& id, int code, const std::string& message, const json& data = nullptr) {
  json e{{"code", code}, {"message", message}};
  if (!data.is_null()) e["data"] = data;
  return json{{"jsonrpc", "2.0"}, {"id", id}, {"error", std::move(e)}};
}

/// @brief The error response for a fault.
inline json make_error(const Fault& f) { return make_error(f.id, f.code, f.message, f.data); }

/// @brief A notification message.
inline json make_notification(const std::string& method, json params = json::object()) {
  return json{{"jsonrpc", "2.0"}, {"method", method}, {"params", std::move(params)}};
}

/// @brief Reads one line as a JSON-RPC 2.0 message. `max_bytes` caps the line; a batch (an
/// array) is refused: MCP's stdio transport has had none since 2025-06-18.
inline IncomingMessage parse_message(std::string_view line, std::size_t max_bytes = default_max_message_bytes) {
  while (!line.empty() && (line.back() == '\r' || line.back() == '\n')) line.remove_suffix(1);
  if (line.size() > max_bytes)
    return Fault{nullptr, error_code::invalid_request,
                 "message of " + std::to_string(line.size()) + " bytes is over the limit of " +
                     std::to_string(max_bytes) + " bytes"};
  json j;
  try {
    j = json::parse(line);
  } catch (const json::parse_error& e) {
    return Fault{nullptr, error_code::parse_error, std::string("not JSON: ") + e.what()};
  }
  if (j.is_array())
    return Fault{nullptr, error_code::invalid_request, "JSON-RPC batches are not supported; send one message per line"};
  if (!j.is_object()) return Fault{nullptr, error_code::invalid_request, "a JSON-RPC message is an object"};
  json id = j.contains("id") ? j["id"] : json();
  const bool id_ok = id.is_string() || id.is_number_integer() || id.is_number_unsigned();
  const json reply_id = id_ok ? id : json(nullptr);
  if (j.value("jsonrpc", json()) != "2.0")
    return Fault{reply_id, error_code::invalid_request, "member \"jsonrpc\" must be \"2.0\""};
  if (j.contains("id") && !id_ok)
    return Fault{nullptr, error_code::invalid_request, "member \"id\" must be a string or an integer"};
  if (!j.contains("method")) {
    if (j.contains("result") || j.contains("error")) return Response{id, j};
    return Fault{reply_id, error_code::invalid_request, "a message needs \"method\" (or \"result\"/\"error\")"};
  }
  if (!j["method"].is_string()) return Fault{reply_id, error_code::invalid_request, "member \"method\" must be a string"};
  json params = j.contains("params") ? j["params"] : json::object();
  if (!params.is_object())
    return Fault{reply_id, error_code::invalid_params, "member \"params\" must be an object"};
  const std::string method = j["method"].get<std::string>();
  if (!j.contains("id")) return Notification{method, std::move(params)};
  return Request{id, method, std::move(params)};
}

/// @brief One message as a line (compact JSON, newline-terminated; invalid UTF-8 replaced, so a
/// line never breaks the framing).
inline std::string frame(const json& message) {
  std::string line = message.dump(-1, ' ', false, json::error_handler_t::replace);
  line.push_back('\n');
  return line;
}

}  // namespace socratic::mcp
