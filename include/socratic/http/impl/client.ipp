#pragma once
/// @file
/// @brief Definitions of HttpClient (Boost.Beast over Asio, OpenSSL). Included by client.hpp in
/// header-only builds and by src.hpp in separate-compilation builds; not meant to be included
/// directly.

#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include <array>
#include <chrono>
#include <optional>
#include <string>

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/ssl/error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/buffer_body.hpp>
#include <boost/beast/http/empty_body.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>
#include <boost/beast/ssl/ssl_stream.hpp>

#include "socratic/http/client.hpp"

namespace socratic::http {
namespace detail {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace bhttp = boost::beast::http;
namespace ssl = boost::asio::ssl;
using tcp = boost::asio::ip::tcp;
using error_code = boost::system::error_code;
using steady = std::chrono::steady_clock;

/// Base64 (for Basic proxy credentials), through OpenSSL.
inline std::string base64(std::string_view bytes) {
  std::string out(4 * ((bytes.size() + 2) / 3) + 1, '\0');
  const int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                reinterpret_cast<const unsigned char*>(bytes.data()),
                                static_cast<int>(bytes.size()));
  out.resize(static_cast<std::size_t>(n));
  return out;
}

inline std::string seconds_text(std::chrono::milliseconds d) {
  const double s = static_cast<double>(d.count()) / 1000.0;
  std::string t = std::to_string(s);
  while (!t.empty() && t.back() == '0') t.pop_back();
  if (!t.empty() && t.back() == '.') t.pop_back();
  return t + " s";
}

/// One request's life: an io_context driven one operation at a time, so that the code reads
/// sequentially while every operation still has a deadline (Beast's tcp_stream timeouts).
class exchange {
 public:
  exchange(const HttpOptions& options, const HttpRequest& request, const body_sink& sink)
      : options_(options),
        request_(request),
        sink_(sink),
        url_(parse_url(request.url, "request URL")),
        deadline_(steady::now() + options.total_timeout),
        what_(request.method + " " + url_.redacted()) {}

  HttpResponse run() {
    proxy_ = options_.proxy.proxy_for(url_);
    const Url& first_hop = proxy_ ? *proxy_ : url_;
    beast::tcp_stream tcp_stream(ctx_);
    connect(tcp_stream, first_hop);
    if (proxy_ && url_.is_https()) open_tunnel(tcp_stream);
    if (!url_.is_https()) return talk(tcp_stream);

    ssl::context tls(ssl::context::tls_client);
    configure_tls(tls);
    beast::ssl_stream<beast::tcp_stream> stream(std::move(tcp_stream), tls);
    handshake(stream);
    return talk(stream);
  }

 private:
  [[noreturn]] void fail(TransportFailure f, const std::string& why, bool retryable) const {
    throw transport_error(f, what_ + ": " + why, retryable);
  }

  std::chrono::milliseconds remaining() const {
    return std::chrono::duration_cast<std::chrono::milliseconds>(deadline_ - steady::now());
  }

  /// The limit for the next operation: its own timeout or what is left of the total.
  std::chrono::milliseconds limit(std::chrono::milliseconds own) {
    const auto left = remaining();
    if (left.count() <= 0) total_timeout_expired();
    total_is_tighter_ = left < own;
    return total_is_tighter_ ? left : own;
  }

  [[noreturn]] void total_timeout_expired() const {
    fail(TransportFailure::timeout,
         "the total timeout of " + seconds_text(options_.total_timeout) + " expired", true);
  }

  [[noreturn]] void timed_out(std::string_view phase, std::chrono::milliseconds own) const {
    if (total_is_tighter_) total_timeout_expired();
    fail(TransportFailure::timeout,
         std::string(phase) + " timed out after " + seconds_text(own), true);
  }

  /// Runs the io_context until the operation started by `start` completes.
  template <class Start>
  error_code run_op(Start&& start) {
    error_code result;
    bool done = false;
    start([&result, &done](error_code ec, auto&&...) {
      result = ec;
      done = true;
    });
    ctx_.restart();
    while (!done && ctx_.run_one()) {
    }
    return result;
  }

  void connect(beast::tcp_stream& stream, const Url& hop) {
    const std::string where = (proxy_ ? "proxy " : "") + hop.authority();
    // Resolution has no built-in timeout: a timer cancels it.
    tcp::resolver resolver(ctx_);
    tcp::resolver::results_type endpoints;
    asio::steady_timer timer(ctx_);
    const auto resolve_limit = limit(options_.connect_timeout);
    bool resolve_timed_out = false;
    timer.expires_after(resolve_limit);
    timer.async_wait([&](error_code ec) {
      if (!ec) {
        resolve_timed_out = true;
        resolver.cancel();
      }
    });
    error_code ec = run_op([&](auto handler) {
      resolver.async_resolve(hop.host, std::to_string(hop.port),
                             [&endpoints, handler](error_code e, tcp::resolver::results_type r) mutable {
                               endpoints = std::move(r);
                               handler(e);
                             });
    });
    timer.cancel();
    ctx_.restart();
    ctx_.poll();  // let the cancelled timer's handler run
    if (resolve_timed_out) timed_out("resolving " + where, options_.connect_timeout);
    if (ec) fail(TransportFailure::resolve, "cannot resolve " + where + ": " + ec.message(), true);

    stream.expires_after(limit(options_.connect_timeout));
    ec = run_op([&](auto handler) { stream.async_connect(endpoints, handler); });
    if (ec == beast::error::timeout) timed_out("connecting to " + where, options_.connect_timeout);
    // Refused: the host is up and nothing listens on the port (a server not started, a wrong
    // port). Retryable, as a server may be starting; the retry loop names it when it persists.
    if (ec == asio::error::connection_refused)
      fail(TransportFailure::refused, "cannot connect to " + where + ": nothing is listening on " + hop.authority() +
                                          " (connection refused)", true);
    if (ec) fail(TransportFailure::connect, "cannot connect to " + where + ": " + ec.message(), true);
  }

  std::optional<std::string> proxy_authorization() const {
    if (!proxy_ || proxy_->userinfo.empty()) return std::nullopt;
    return "Basic " + base64(proxy_->userinfo);
  }

  void open_tunnel(beast::tcp_stream& stream) {
    const std::string proxy_name = "proxy " + proxy_->authority();
    bhttp::request<bhttp::empty_body> req{bhttp::verb::connect, url_.authority(), 11};
    req.set(bhttp::field::host, url_.authority());
    req.set(bhttp::field::user_agent, options_.user_agent);
    if (auto auth = proxy_authorization()) req.set(bhttp::field::proxy_authorization, *auth);
    stream.expires_after(limit(options_.connect_timeout));
    error_code ec = run_op([&](auto handler) { bhttp::async_write(stream, req, handler); });
    if (ec == beast::error::timeout) timed_out("writing CONNECT to " + proxy_name, options_.connect_timeout);
    if (ec) fail(TransportFailure::proxy, "cannot send CONNECT to " + proxy_name + ": " + ec.message(), true);

    beast::flat_buffer buffer;
    bhttp::response_parser<bhttp::empty_body> parser;
    parser.skip(true);  // a CONNECT response has no body: the tunnel follows
    stream.expires_after(limit(options_.connect_timeout));
    ec = run_op([&](auto handler) { bhttp::async_read_header(stream, buffer, parser, handler); });
    if (ec == beast::error::timeout) timed_out("waiting for " + proxy_name + " to answer CONNECT", options_.connect_timeout);
    if (ec) fail(TransportFailure::proxy, proxy_name + " broke off the CONNECT: " + ec.message(), true);
    const auto& res = parser.get();
    const int status = static_cast<int>(res.result_int());
    if (status / 100 != 2) {
      // 407: credentials missing or wrong; other statuses: the proxy refuses the destination.
      fail(TransportFailure::proxy,
           proxy_name + " refused CONNECT to " + url_.authority() + ": " + std::to_string(status) +
               " " + std::string(res.reason()) +
               (status == 407 ? " (give credentials as http://USER:PASSWORD@HOST:PORT)" : ""),
           status >= 500);
    }
    if (buffer.size() != 0)
      fail(TransportFailure::proxy, proxy_name + " sent data before the TLS handshake", false);
  }

  void configure_tls(ssl::context& tls) {
    error_code ec;
    tls.set_options(ssl::context::default_workarounds | ssl::context::no_sslv2 |
                    ssl::context::no_sslv3 | ssl::context::no_tlsv1 | ssl::context::no_tlsv1_1);
    tls.set_default_verify_paths(ec);
    if (!options_.ca_file.empty()) {
      tls.load_verify_file(options_.ca_file, ec);
      if (ec)
        fail(TransportFailure::tls,
             "cannot load the CA file \"" + options_.ca_file + "\": " + ec.message(), false);
    }
    tls.set_verify_mode(ssl::verify_peer);
  }

  void handshake(beast::ssl_stream<beast::tcp_stream>& stream) {
    SSL* native = stream.native_handle();
    if (url_.host_is_ip_literal()) {
      // No SNI for IP literals (RFC 6066); verify the certificate's IP address instead.
      X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(native), url_.host.c_str());
    } else {
      if (!SSL_set_tlsext_host_name(native, url_.host.c_str()))
        fail(TransportFailure::tls, "cannot set the TLS server name (SNI)", false);
      SSL_set_hostflags(native, X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS);
      if (!SSL_set1_host(native, url_.host.c_str()))
        fail(TransportFailure::tls, "cannot set the host name to verify", false);
    }
    beast::get_lowest_layer(stream).expires_after(limit(options_.connect_timeout));
    error_code ec = run_op([&](auto handler) { stream.async_handshake(ssl::stream_base::client, handler); });
    if (ec == beast::error::timeout) timed_out("TLS handshake with " + url_.authority(), options_.connect_timeout);
    if (ec) {
      const long verify = SSL_get_verify_result(native);
      std::string why = ec.message();
      if (verify != X509_V_OK)
        why = std::string("certificate verification failed: ") +
              X509_verify_cert_error_string(verify) +
              (options_.ca_file.empty() ? "" : " (trusted: the system's CAs and " + options_.ca_file + ")");
      // A certificate that failed verification will fail again; a broken handshake may not.
      fail(TransportFailure::tls, "TLS handshake with " + url_.authority() + " failed: " + why,
           verify == X509_V_OK);
    }
  }

  template <class Stream>
  HttpResponse talk(Stream& stream) {
    auto& lowest = beast::get_lowest_layer(stream);
    const bool absolute_form = proxy_ && !url_.is_https();
    const auto verb = bhttp::string_to_verb(request_.method);
    if (verb == bhttp::verb::unknown)
      throw input_error({}, "HTTP request", "unknown method \"" + request_.method + "\"");
    bhttp::request<bhttp::string_body> req{
        verb, absolute_form ? "http://" + url_.authority() + url_.target : url_.target, 11};
    req.set(bhttp::field::host, url_.host_header());
    req.set(bhttp::field::user_agent, options_.user_agent);
    req.set(bhttp::field::connection, "close");
    if (absolute_form)
      if (auto auth = proxy_authorization()) req.set(bhttp::field::proxy_authorization, *auth);
    bool has_content_type = false;
    for (const auto& h : request_.headers) {
      req.set(h.name, h.value);
      has_content_type = has_content_type || lower(h.name) == "content-type";
    }
    if (!request_.body.empty() && !has_content_type)
      req.set(bhttp::field::content_type, "application/json");
    req.body() = request_.body;
    req.prepare_payload();

    lowest.expires_after(limit(options_.read_timeout));
    error_code ec = run_op([&](auto handler) { bhttp::async_write(stream, req, handler); });
    if (ec == beast::error::timeout) timed_out("sending the request", options_.read_timeout);
    if (ec) fail(TransportFailure::write, "sending the request failed: " + ec.message(), true);

    beast::flat_buffer buffer;
    bhttp::response_parser<bhttp::buffer_body> parser;
    parser.header_limit(64 * 1024);
    parser.body_limit(static_cast<std::uint64_t>(options_.max_response_bytes));
    lowest.expires_after(limit(options_.read_timeout));
    ec = run_op([&](auto handler) { bhttp::async_read_header(stream, buffer, parser, handler); });
    if (ec == beast::error::timeout) timed_out("waiting for the response", options_.read_timeout);
    if (ec == bhttp::error::body_limit) too_large();
    if (ec) fail(TransportFailure::read, "no valid response: " + describe_read_error(ec), true);

    HttpResponse response;
    const auto& head = parser.get();
    response.status = static_cast<int>(head.result_int());
    response.reason = std::string(head.reason());
    for (const auto& field : head)
      response.headers.push_back({lower(field.name_string()), std::string(field.value())});
    const bool to_sink = sink_ && response.status / 100 == 2;
    response.streamed = to_sink;

    std::array<char, 16384> chunk{};
    std::size_t received = 0;
    while (!parser.is_done()) {
      parser.get().body().data = chunk.data();
      parser.get().body().size = chunk.size();
      lowest.expires_after(limit(options_.read_timeout));
      // read_some, not read: a streamed body must reach the sink as it arrives, not when
      // the chunk buffer is full.
      ec = run_op([&](auto handler) { bhttp::async_read_some(stream, buffer, parser, handler); });
      if (ec == bhttp::error::need_buffer) ec = {};
      if (ec == ssl::error::stream_truncated && parser.need_eof()) {
        // The server closed without TLS close_notify, ending a body delimited by the close.
        parser.put_eof(ec);
      }
      const std::size_t n = chunk.size() - parser.get().body().size;
      received += n;
      if (n > 0 && received <= options_.max_response_bytes) {
        if (to_sink)
          sink_(std::string_view(chunk.data(), n));
        else
          response.body.append(chunk.data(), n);
      }
      if (ec == bhttp::error::body_limit || received > options_.max_response_bytes) too_large();
      if (ec == beast::error::timeout)
        timed_out("reading the response (" + std::to_string(received) + " body bytes so far)",
                  options_.read_timeout);
      if (ec)
        fail(TransportFailure::read,
             "the response broke off after " + std::to_string(received) +
                 " body bytes: " + describe_read_error(ec),
             true);
    }
    error_code ignored;
    lowest.socket().shutdown(tcp::socket::shutdown_both, ignored);
    return response;
  }

  [[noreturn]] void too_large() const {
    fail(TransportFailure::too_large,
         "the response body exceeds the cap of " + std::to_string(options_.max_response_bytes) +
             " bytes (HttpOptions::max_response_bytes)",
         false);
  }

  static std::string describe_read_error(const error_code& ec) {
    if (ec == bhttp::error::partial_message) return "the connection closed before the body was complete";
    if (ec == bhttp::error::end_of_stream) return "the connection closed before a response";
    if (ec == asio::error::connection_reset) return "the connection was reset by the server";
    if (ec == ssl::error::stream_truncated) return "the TLS stream was cut short";
    return ec.message();
  }

  const HttpOptions& options_;
  const HttpRequest& request_;
  const body_sink& sink_;
  Url url_;
  steady::time_point deadline_;
  std::string what_;
  std::optional<Url> proxy_;
  asio::io_context ctx_;
  bool total_is_tighter_ = false;
};

}  // namespace detail

SOCRATIC_DECL HttpResponse HttpClient::send(const HttpRequest& request, const body_sink& sink) const {
  detail::exchange ex(options_, request, sink);
  return ex.run();
}

}  // namespace socratic::http
