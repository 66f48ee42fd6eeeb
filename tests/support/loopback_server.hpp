#pragma once
// The tests' one loopback model server: HTTP or HTTPS on 127.0.0.1, scripted per test, either as
// a queue (each request receives the next reply) or as a function of the request (a model that
// answers what it is asked, for the real agent CLIs); replies can carry faults (reset, truncated
// body, silence). And a CONNECT proxy. Their Beast code sits in loopback_server.cpp (the
// socratic_test_server library), so the tests that use them compile without Beast.

#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "socratic/core/json.hpp"

namespace socratic::testing {

/// @brief What the server does with one request.
struct ScriptedReply {
  enum class Fault {
    none,
    reset,              ///< read the request, then reset the connection (RST) without answering
    truncate,           ///< declare the whole body's length, send `truncate_at` bytes, close
  };
  int status = 200;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
  /// When non-empty, the body is sent as these pieces, `gap` apart, with chunked transfer
  /// encoding (or delimited by the connection's close when `close_delimited`).
  std::vector<std::string> pieces;
  bool close_delimited = false;
  std::chrono::milliseconds delay{0};  ///< silence before the status line
  std::chrono::milliseconds gap{0};    ///< silence between pieces
  Fault fault = Fault::none;
  std::size_t truncate_at = 0;

  /// @brief A JSON reply.
  static ScriptedReply json_reply(int status, const json& body);
  /// @brief An SSE stream sent in the given pieces (split them anywhere).
  static ScriptedReply sse(std::vector<std::string> pieces);
};

/// @brief A request the server received.
struct RecordedRequest {
  std::string method;
  std::string target;
  std::vector<std::pair<std::string, std::string>> headers;  ///< names lower case
  std::string body;
  std::string sni;  ///< the TLS server name the client sent (TLS only)

  std::string header(const std::string& lower_name) const;
  json json_body() const { return json::parse(body); }
  /// @brief The body as JSON, or null when it is not JSON.
  json json_or_null() const { return json::parse(body, nullptr, false).is_discarded() ? json() : json::parse(body); }
  /// @brief The key the client sent: `x-api-key`, else the bearer token of `authorization`.
  std::string api_key() const;
};

/// @brief How much of a reply's body the server wrote before it was done or the client went.
struct SentReply {
  std::size_t body_bytes = 0;  ///< body bytes written (pieces without their chunk framing)
  bool complete = false;       ///< every byte was written (false: a write failed, the client closed)
};

/// @brief The server. Listens on 127.0.0.1, on an ephemeral port, until destroyed; each
/// connection is served on its own thread (real clients open several at once).
class ScriptedServer {
 public:
  struct Tls {
    std::string cert_pem, key_pem;
  };
  /// @brief Answers a request (called on the connection's thread; it must be thread-safe).
  using Script = std::function<ScriptedReply(const RecordedRequest&)>;
  explicit ScriptedServer(std::optional<Tls> tls = std::nullopt);
  /// @brief A server whose every reply `script` computes (the queue is not used).
  explicit ScriptedServer(Script script);
  ~ScriptedServer();
  ScriptedServer(const ScriptedServer&) = delete;
  ScriptedServer& operator=(const ScriptedServer&) = delete;

  void push(ScriptedReply reply);
  std::uint16_t port() const;
  /// @brief `http://127.0.0.1:PORT` (or https, or another host name that reaches loopback).
  std::string url(const std::string& host = "127.0.0.1") const;
  std::vector<RecordedRequest> requests() const;
  std::size_t unused_replies() const;
  /// @brief What the server wrote of its reply to request #`index` once it stopped writing,
  /// waiting up to `wait` for it to stop; nullopt if it had not.
  std::optional<SentReply> sent(std::size_t index, std::chrono::milliseconds wait) const;

 private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

/// @brief An HTTP proxy on 127.0.0.1: CONNECT tunnels and absolute-form requests, optionally
/// requiring Basic credentials.
class TestProxy {
 public:
  explicit TestProxy(std::string required_credentials = {});
  ~TestProxy();
  TestProxy(const TestProxy&) = delete;
  TestProxy& operator=(const TestProxy&) = delete;

  std::uint16_t port() const;
  /// @brief Request lines it received, e.g. `CONNECT 127.0.0.1:4431`.
  std::vector<std::string> request_lines() const;

 private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

}  // namespace socratic::testing
