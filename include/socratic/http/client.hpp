#pragma once
/// @file
/// @brief HttpClient: one HTTP/1.1 exchange over TCP or TLS (certificate and host-name
/// verification, SNI), through an HTTP proxy when the environment says so, with connect, read
/// and total timeouts and a cap on the response size. Bodies can be streamed to a callback
/// (server-sent events). Retries are the caller's business (see retry.hpp).
///
/// The declarations here are light. The definitions (Boost.Beast, Asio, OpenSSL) live in
/// impl/client.ipp and are included below, unless `SOCRATIC_SEPARATE_COMPILATION` is defined:
/// then exactly one translation unit of the program includes `socratic/http/src.hpp`, and every
/// other one compiles without Beast (as {fmt} does with FMT_HEADER_ONLY).

#include <chrono>
#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "socratic/core/error.hpp"
#include "socratic/core/detail/separate_compilation.hpp"
#include "socratic/http/proxy.hpp"
#include "socratic/http/url.hpp"
#include "socratic/version.hpp"

namespace socratic::http {

/// @brief A header field. Response header names are lower case.
struct Header {
  std::string name;
  std::string value;
};

/// @brief A request. Headers may carry credentials: the client never writes them anywhere but
/// to the connection.
struct HttpRequest {
  std::string method = "POST";
  std::string url;
  std::vector<Header> headers;  ///< added to Host, User-Agent, Content-Length, Connection
  std::string body;
};

/// @brief A response. When the body was streamed to a sink, `body` is empty and `streamed` true.
struct HttpResponse {
  int status = 0;
  std::string reason;
  std::vector<Header> headers;
  std::string body;
  bool streamed = false;

  /// @brief The first header named `name` (case-insensitive), or an empty string.
  std::string header(std::string_view name) const {
    const std::string wanted = detail::lower(name);
    for (const auto& h : headers)
      if (h.name == wanted) return h.value;
    return {};
  }
};

/// @brief Limits and trust settings.
struct HttpOptions {
  std::chrono::milliseconds connect_timeout{10'000};  ///< name resolution, TCP, proxy, TLS
  std::chrono::milliseconds read_timeout{300'000};    ///< longest silence while reading
  std::chrono::milliseconds total_timeout{600'000};   ///< the whole exchange
  std::size_t max_response_bytes = 64u << 20;         ///< body cap (streamed bytes included)
  ProxySettings proxy = ProxySettings::from_environment();
  /// Extra trust anchors (a PEM file) added to the system's, e.g. a company's TLS-inspecting
  /// proxy or a test's own certificate authority. Verification itself cannot be turned off.
  std::string ca_file;
  std::string user_agent = std::string("socratic/") + version_string;
};

/// @brief Why an exchange failed below HTTP (no status, or an unusable response).
enum class TransportFailure {
  resolve,     ///< the host name did not resolve
  connect,     ///< no TCP connection (unreachable, reset during the handshake)
  refused,     ///< the host answered that nothing listens on the port (connection refused)
  proxy,       ///< the proxy refused or broke the tunnel
  tls,         ///< handshake failed: certificate, host name, protocol
  write,       ///< sending the request failed
  read,        ///< the connection broke or the response was malformed or cut short
  timeout,     ///< a connect, read or total timeout expired
  too_large,   ///< the response exceeded `max_response_bytes`
};

constexpr std::string_view to_string(TransportFailure f) noexcept {
  switch (f) {
    case TransportFailure::resolve: return "resolve";
    case TransportFailure::connect: return "connect";
    case TransportFailure::refused: return "refused";
    case TransportFailure::proxy: return "proxy";
    case TransportFailure::tls: return "tls";
    case TransportFailure::write: return "write";
    case TransportFailure::read: return "read";
    case TransportFailure::timeout: return "timeout";
    case TransportFailure::too_large: return "too_large";
  }
  return "unknown";
}

/// @brief A failed exchange. The message names the method, the URL (without credentials), the
/// phase and the cause; it never contains header values.
class transport_error : public error {
 public:
  transport_error(TransportFailure failure, std::string message, bool retryable)
      : error(std::move(message)), failure_(failure), retryable_(retryable) {}
  TransportFailure failure() const noexcept { return failure_; }
  /// @brief Whether trying again may help (a reset connection may; a bad certificate will not).
  bool retryable() const noexcept { return retryable_; }

 private:
  TransportFailure failure_;
  bool retryable_;
};

/// @brief Receives a streamed body, chunk by chunk as it arrives. May throw to abort.
using body_sink = std::function<void(std::string_view chunk)>;

/// @brief Sends HTTP requests, one connection per request (model calls last seconds; a fresh
/// connection per call keeps failure handling simple).
///
/// @par Example
/// @code
/// http::HttpClient client;  // proxies from the environment
/// auto r = client.send({"POST", "https://api.example.com/v1/x", {{"Content-Type", "application/json"}}, "{}"});
/// if (r.status != 200) ...
/// @endcode
class HttpClient {
 public:
  explicit HttpClient(HttpOptions options = {}) : options_(std::move(options)) {}

  /// @brief Performs one exchange. With a sink, a 2xx body goes to the sink as it arrives;
  /// any other status's body is collected into the response (so errors can be read).
  /// @throws transport_error when no complete response arrived; input_error for a bad URL.
  SOCRATIC_DECL HttpResponse send(const HttpRequest& request, const body_sink& sink = {}) const;

  const HttpOptions& options() const noexcept { return options_; }
  HttpOptions& options() noexcept { return options_; }

 private:
  HttpOptions options_;
};

}  // namespace socratic::http

#ifndef SOCRATIC_SEPARATE_COMPILATION
#include "socratic/http/impl/client.ipp"
#endif
