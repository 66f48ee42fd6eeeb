#pragma once
/// @file
/// @brief mcp::Server: the Model Context Protocol's server side as a state machine over
/// messages, independent of any I/O (a line in, at most one message out), so that tests drive it
/// without a process and `socratic mcp` wraps it around stdin and stdout.
///
/// Two protocol eras are spoken on one connection:
/// - 2025-11-25 (and, negotiated down, 2025-06-18, 2025-03-26, 2024-11-05): `initialize`, then
///   the `notifications/initialized` notification, then requests; `ping` at any time.
/// - 2026-07-28: no handshake. Every request carries `_meta` with
///   `io.modelcontextprotocol/protocolVersion` and `io.modelcontextprotocol/clientCapabilities`;
///   `server/discover` says what the server supports; results carry `resultType`.
/// The era is a property of each request (its `_meta`), not of the connection. docs/mcp.md.
///
/// Tools: a failure inside a tool (bad arguments, a missing file, an evaluator error) is a tool
/// result with `isError: true`, which the model reads; JSON-RPC errors are kept for protocol
/// faults (malformed messages, unknown methods, an unknown tool's name, a missing handshake).

#include <algorithm>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "socratic/core/json.hpp"
#include "socratic/mcp/jsonrpc.hpp"

namespace socratic::mcp {

/// @brief The stateless revision: version and capabilities in every request's `_meta`.
inline constexpr const char* stateless_version = "2026-07-28";
/// @brief The newest revision with the `initialize` handshake.
inline constexpr const char* latest_handshake_version = "2025-11-25";
inline constexpr const char* meta_protocol_version = "io.modelcontextprotocol/protocolVersion";
inline constexpr const char* meta_client_capabilities = "io.modelcontextprotocol/clientCapabilities";
inline constexpr const char* meta_client_info = "io.modelcontextprotocol/clientInfo";

/// @brief The handshake revisions this server accepts in `initialize`, newest first.
inline const std::vector<std::string>& handshake_versions() {
  static const std::vector<std::string> v{"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"};
  return v;
}
/// @brief Every revision spoken, newest first (what `server/discover` and version errors list).
inline std::vector<std::string> supported_versions() {
  std::vector<std::string> v{stateless_version};
  for (const auto& h : handshake_versions()) v.push_back(h);
  return v;
}

/// @brief Who is calling a tool, as the request (stateless) or the handshake said.
struct CallContext {
  std::string protocol_version;
  json client_capabilities = json::object();
  json client_info = json::object();
  json request_id;
};

/// @brief What a tool returns: text for the model, optional structured content (an object),
/// and whether it is a failure the model should read.
struct ToolResult {
  std::string text;
  json structured = nullptr;  ///< an object, or null
  bool is_error = false;

  static ToolResult error(std::string text) { return ToolResult{std::move(text), nullptr, true}; }
};

/// @brief One tool: its name, description and JSON Schema of its arguments, and the call.
struct ToolDefinition {
  std::string name;
  std::string title;
  std::string description;
  json input_schema = json{{"type", "object"}};
  json annotations = nullptr;  ///< readOnlyHint, destructiveHint, ... (or null)
  /// Runs the call; an exception becomes an `isError` result with its message.
  std::function<ToolResult(const json& arguments, const CallContext&)> call;
};

/// @brief Who the server is.
struct ServerInfo {
  std::string name = "socratic";
  std::string title = "Socratic";
  std::string version;
  std::string instructions;  ///< shown to the model by clients that pass instructions on
};

/// @brief Limits on what a client may send.
struct ServerLimits {
  std::size_t max_message_bytes = default_max_message_bytes;
  std::size_t max_argument_bytes = 64 * 1024;  ///< a tool call's `arguments`, serialised
};

/// @brief The protocol state machine. Not thread-safe: one reader calls handle().
class Server {
 public:
  Server(ServerInfo info, std::vector<ToolDefinition> tools, ServerLimits limits = {})
      : info_(std::move(info)), tools_(std::move(tools)), limits_(limits) {}

  /// @brief Called after every tools/call (also a failed one): the tool, its arguments, the
  /// result and the caller. `socratic mcp` records it in the campaign's trace.
  std::function<void(const std::string& tool, const json& arguments, const ToolResult&, const CallContext&)> on_tool_call;
  /// @brief Human-readable lines about the connection (stderr in `socratic mcp`).
  std::function<void(const std::string&)> log;

  /// @brief Handles one line; returns the message to send back, if any.
  std::optional<json> handle_line(std::string_view line) { return handle(parse_message(line, limits_.max_message_bytes)); }

  /// @brief Handles one parsed message; returns the message to send back, if any.
  std::optional<json> handle(const IncomingMessage& message) {
    if (const auto* f = std::get_if<Fault>(&message)) {
      say("refused a message: " + f->message);
      return make_error(*f);
    }
    if (const auto* n = std::get_if<Notification>(&message)) {
      on_notification(*n);
      return std::nullopt;
    }
    if (const auto* r = std::get_if<Response>(&message)) {
      say("ignored a response (id " + r->id.dump() + "): this server sends no requests");
      return std::nullopt;
    }
    const Request& req = std::get<Request>(message);
    try {
      return on_request(req);
    } catch (const std::exception& e) {  // a fault of ours, not the client's: say where
      return make_error(req.id, error_code::internal_error, std::string("internal error in ") + req.method + ": " + e.what());
    }
  }

  /// @brief Whether a handshake completed (`notifications/initialized` seen after `initialize`).
  bool initialized() const noexcept { return initialized_; }
  /// @brief The version the handshake settled on (empty before `initialize`).
  const std::string& negotiated_version() const noexcept { return negotiated_; }
  const std::vector<ToolDefinition>& tools() const noexcept { return tools_; }

 private:
  void say(const std::string& line) const {
    if (log) log(line);
  }

  void on_notification(const Notification& n) {
    if (n.method == "notifications/initialized") {
      if (negotiated_.empty()) {
        say("notifications/initialized before initialize: ignored");
        return;
      }
      initialized_ = true;
      say("initialized (protocol " + negotiated_ + ")");
    } else if (n.method == "notifications/cancelled") {
      // Every call here answers at once (evaluations are jobs); there is nothing in flight to stop.
      say("notifications/cancelled for request " + n.params.value("requestId", json()).dump() +
          ": already answered (an evaluation job goes on; it stops when the client goes away)");
    } else {
      say("ignored notification " + n.method);
    }
  }

  /// The caller of a request: the stateless `_meta`, or the handshake. A fault when neither.
  std::optional<json> caller_of(const Request& req, CallContext& ctx, bool needs_caller) const {
    ctx.request_id = req.id;
    const json meta = req.params.value("_meta", json::object());
    if (meta.is_object() && meta.contains(meta_protocol_version)) {
      const json& v = meta[meta_protocol_version];
      if (!v.is_string() || v.get<std::string>() != stateless_version)
        return make_error(req.id, error_code::unsupported_protocol_version,
                          "unsupported protocol version " + v.dump() + " in _meta (without a handshake only " +
                              std::string(stateless_version) + " is spoken; older revisions start with initialize)",
                          json{{"supportedVersions", supported_versions()}, {"requested", v}});
      if (!meta.contains(meta_client_capabilities) || !meta[meta_client_capabilities].is_object())
        return make_error(req.id, error_code::invalid_params,
                          std::string("_meta needs \"") + meta_client_capabilities + "\" (an object) with protocol " +
                              stateless_version);
      ctx.protocol_version = stateless_version;
      ctx.client_capabilities = meta[meta_client_capabilities];
      ctx.client_info = meta.value(meta_client_info, json::object());
      return std::nullopt;
    }
    if (!negotiated_.empty()) {
      ctx.protocol_version = negotiated_;
      ctx.client_capabilities = client_capabilities_;
      ctx.client_info = client_info_;
      return std::nullopt;
    }
    if (!needs_caller) return std::nullopt;
    return make_error(req.id, error_code::server_not_initialized,
                      "no handshake yet: send initialize (protocol " + std::string(latest_handshake_version) +
                          " or older), or put _meta {\"" + meta_protocol_version + "\": \"" + stateless_version +
                          "\", \"" + meta_client_capabilities + "\": {}} in every request");
  }

  json with_result_type(json result, const CallContext& ctx) const {
    if (ctx.protocol_version == stateless_version) result["resultType"] = "complete";
    return result;
  }

  json capabilities() const { return json{{"tools", {{"listChanged", false}}}}; }
  json server_info() const { return json{{"name", info_.name}, {"title", info_.title}, {"version", info_.version}}; }

  std::optional<json> on_request(const Request& req) {
    CallContext ctx;
    if (req.method == "initialize") return initialize(req);
    if (req.method == "server/discover") {
      if (auto fault = caller_of(req, ctx, false)) return fault;
      json r{{"supportedVersions", supported_versions()}, {"capabilities", capabilities()}, {"serverInfo", server_info()}};
      if (!info_.instructions.empty()) r["instructions"] = info_.instructions;
      r["resultType"] = "complete";
      return make_result(req.id, r);
    }
    if (auto fault = caller_of(req, ctx, req.method != "ping")) return fault;
    if (req.method == "ping") {
      if (ctx.protocol_version == stateless_version)  // removed in 2026-07-28
        return make_error(req.id, error_code::method_not_found, "ping is not part of protocol " + std::string(stateless_version));
      return make_result(req.id, json::object());
    }
    if (req.method == "tools/list") {
      json list = json::array();
      for (const auto& t : tools_) {
        json d{{"name", t.name}, {"title", t.title}, {"description", t.description}, {"inputSchema", t.input_schema}};
        if (!t.annotations.is_null()) d["annotations"] = t.annotations;
        list.push_back(std::move(d));
      }
      return make_result(req.id, with_result_type(json{{"tools", list}}, ctx));
    }
    if (req.method == "tools/call") return call_tool(req, ctx);
    return make_error(req.id, error_code::method_not_found, "unknown method \"" + req.method + "\"",
                      json{{"method", req.method}});
  }

  std::optional<json> initialize(const Request& req) {
    const json& p = req.params;
    if (!p.contains("protocolVersion") || !p["protocolVersion"].is_string())
      return make_error(req.id, error_code::invalid_params, "initialize needs params.protocolVersion (a string)");
    const std::string asked = p["protocolVersion"].get<std::string>();
    const auto& known = handshake_versions();
    // The client's version when spoken, else the newest with a handshake (the client decides).
    negotiated_ = std::find(known.begin(), known.end(), asked) != known.end() ? asked : latest_handshake_version;
    client_capabilities_ = p.value("capabilities", json::object());
    client_info_ = p.value("clientInfo", json::object());
    initialized_ = false;
    say("initialize from " + client_info_.value("name", std::string("a client")) + " asking " + asked + ": " + negotiated_);
    json r{{"protocolVersion", negotiated_}, {"capabilities", capabilities()}, {"serverInfo", server_info()}};
    if (!info_.instructions.empty()) r["instructions"] = info_.instructions;
    return make_result(req.id, r);
  }

  std::optional<json> call_tool(const Request& req, const CallContext& ctx) {
    const json& p = req.params;
    if (!p.contains("name") || !p["name"].is_string())
      return make_error(req.id, error_code::invalid_params, "tools/call needs params.name (a string)");
    const std::string name = p["name"].get<std::string>();
    const auto it = std::find_if(tools_.begin(), tools_.end(), [&](const ToolDefinition& t) { return t.name == name; });
    if (it == tools_.end()) {
      std::string names;
      for (const auto& t : tools_) names += (names.empty() ? "" : ", ") + t.name;
      return make_error(req.id, error_code::invalid_params, "unknown tool \"" + name + "\" (tools: " + names + ")",
                        json{{"tool", name}});
    }
    const json arguments = p.contains("arguments") ? p["arguments"] : json::object();
    ToolResult result;
    if (!arguments.is_object()) {
      result = ToolResult::error("arguments of " + name + " must be an object, got " + std::string(arguments.type_name()));
    } else if (const std::size_t size = arguments.dump().size(); size > limits_.max_argument_bytes) {
      result = ToolResult::error("arguments of " + name + " are " + std::to_string(size) + " bytes, over the limit of " +
                                 std::to_string(limits_.max_argument_bytes) + " bytes: pass a file's path, not its text");
    } else {
      try {
        result = it->call(arguments, ctx);
      } catch (const std::exception& e) {
        result = ToolResult::error(name + " failed: " + e.what());
      }
    }
    if (on_tool_call) {
      try {
        on_tool_call(name, arguments.is_object() ? arguments : json::object(), result, ctx);
      } catch (const std::exception& e) {
        say("could not record the call of " + name + ": " + e.what());
      }
    }
    json r{{"content", json::array({{{"type", "text"}, {"text", result.text}}})}, {"isError", result.is_error}};
    if (result.structured.is_object()) r["structuredContent"] = result.structured;
    return make_result(req.id, with_result_type(std::move(r), ctx));
  }

  ServerInfo info_;
  std::vector<ToolDefinition> tools_;
  ServerLimits limits_;
  std::string negotiated_;
  bool initialized_ = false;
  json client_capabilities_ = json::object();
  json client_info_ = json::object();
};

}  // namespace socratic::mcp
