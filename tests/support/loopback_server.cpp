#include "loopback_server.hpp"

#include <openssl/evp.h>
#include <openssl/ssl.h>

#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <map>
#include <mutex>
#include <thread>

#include <boost/asio/buffer.hpp>
#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/ssl/stream.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/empty_body.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/status.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>

namespace socratic::testing {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace bhttp = boost::beast::http;
namespace ssl = boost::asio::ssl;
using tcp = asio::ip::tcp;
using error_code = boost::system::error_code;

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

/// Wakes a blocked accept() by connecting to it.
void poke(std::uint16_t port) {
  asio::io_context ctx;
  tcp::socket s(ctx);
  error_code ec;
  s.connect({asio::ip::make_address("127.0.0.1"), port}, ec);
}

}  // namespace

ScriptedReply ScriptedReply::json_reply(int status, const json& body) {
  ScriptedReply r;
  r.status = status;
  r.headers.push_back({"Content-Type", "application/json"});
  r.body = body.dump();
  return r;
}

ScriptedReply ScriptedReply::sse(std::vector<std::string> pieces) {
  ScriptedReply r;
  r.headers.push_back({"Content-Type", "text/event-stream"});
  r.pieces = std::move(pieces);
  return r;
}

std::string RecordedRequest::header(const std::string& lower_name) const {
  for (const auto& [n, v] : headers)
    if (n == lower_name) return v;
  return {};
}

std::string RecordedRequest::api_key() const {
  if (auto k = header("x-api-key"); !k.empty()) return k;
  const std::string auth = header("authorization");
  return auth.rfind("Bearer ", 0) == 0 ? auth.substr(7) : auth;
}

// ---- the server ------------------------------------------------------------------------------

struct ScriptedServer::impl {
  asio::io_context ctx;
  tcp::acceptor acceptor{ctx};
  std::optional<ssl::context> tls;
  mutable std::mutex mutex;
  std::condition_variable wake;
  std::deque<ScriptedReply> replies;
  ScriptedServer::Script script;
  std::vector<RecordedRequest> received;
  std::map<std::size_t, SentReply> sent;
  std::atomic<bool> stopping{false};
  std::thread thread;
  std::vector<std::thread> connections;
  std::vector<std::shared_ptr<tcp::socket>> sockets;
  std::uint16_t port = 0;

  /// Sleeps, but returns early when the server is being destroyed.
  void pause(std::chrono::milliseconds d) {
    std::unique_lock lock(mutex);
    wake.wait_for(lock, d, [&] { return stopping.load(); });
  }

  ScriptedReply next_reply(std::size_t index, const RecordedRequest& rec) {
    if (script) {
      try {
        return script(rec);
      } catch (const std::exception& e) {
        return ScriptedReply::json_reply(500, json{{"type", "error"}, {"error", {{"type", "api_error"}, {"message", e.what()}}}});
      }
    }
    std::lock_guard lock(mutex);
    if (replies.empty()) {
      ScriptedReply r = ScriptedReply::json_reply(
          599, json{{"error", {{"message", "scripted server: no reply scripted for request #" +
                                                   std::to_string(index)},
                               {"type", "test_script_exhausted"}}}});
      return r;
    }
    ScriptedReply r = std::move(replies.front());
    replies.pop_front();
    return r;
  }

  template <class Stream>
  void serve(Stream& stream, tcp::socket& socket, const std::string& sni) {
    beast::flat_buffer buffer;
    bhttp::request_parser<bhttp::string_body> parser;
    parser.body_limit(256u << 20);
    error_code ec;
    bhttp::read(stream, buffer, parser, ec);
    if (ec) return;
    const auto& req = parser.get();
    RecordedRequest rec;
    rec.method = std::string(req.method_string());
    rec.target = std::string(req.target());
    for (const auto& f : req) rec.headers.push_back({lower(std::string(f.name_string())), std::string(f.value())});
    rec.body = req.body();
    rec.sni = sni;
    std::size_t index;
    {
      std::lock_guard lock(mutex);
      index = received.size();
      received.push_back(rec);
    }
    SentReply out;
    struct record_sent {
      impl& self;
      std::size_t index;
      SentReply& out;
      ~record_sent() {
        {
          std::lock_guard lock(self.mutex);
          self.sent[index] = out;
        }
        self.wake.notify_all();
      }
    } recorder{*this, index, out};
    ScriptedReply reply = next_reply(index, rec);
    if (reply.delay.count() > 0) pause(reply.delay);
    if (stopping) return;
    if (reply.fault == ScriptedReply::Fault::reset) {
      socket.set_option(tcp::socket::linger(true, 0), ec);
      socket.close(ec);
      return;
    }
    std::string head = "HTTP/1.1 " + std::to_string(reply.status) + " " +
                       std::string(bhttp::obsolete_reason(static_cast<bhttp::status>(reply.status))) +
                       "\r\n";
    for (const auto& [n, v] : reply.headers) head += n + ": " + v + "\r\n";
    const bool pieces = !reply.pieces.empty();
    if (pieces && !reply.close_delimited)
      head += "Transfer-Encoding: chunked\r\n";
    else if (!pieces)
      head += "Content-Length: " + std::to_string(reply.body.size()) + "\r\n";
    head += "Connection: close\r\n\r\n";
    asio::write(stream, asio::buffer(head), ec);
    if (ec) return;
    if (!pieces) {
      std::string_view body = reply.body;
      if (reply.fault == ScriptedReply::Fault::truncate) body = body.substr(0, reply.truncate_at);
      out.body_bytes = asio::write(stream, asio::buffer(body.data(), body.size()), ec);
      out.complete = !ec && body.size() == reply.body.size();
    } else {
      for (std::size_t i = 0; i < reply.pieces.size() && !ec && !stopping; ++i) {
        if (i > 0 && reply.gap.count() > 0) pause(reply.gap);
        const std::string& p = reply.pieces[i];
        if (p.empty()) continue;
        if (reply.close_delimited) {
          asio::write(stream, asio::buffer(p), ec);
        } else {
          char size_line[32];
          std::snprintf(size_line, sizeof size_line, "%zx\r\n", p.size());
          asio::write(stream, asio::buffer(std::string(size_line) + p + "\r\n"), ec);
        }
        if (!ec) out.body_bytes += p.size();
      }
      if (!ec && !reply.close_delimited && reply.fault != ScriptedReply::Fault::truncate)
        asio::write(stream, asio::buffer(std::string("0\r\n\r\n")), ec);
      out.complete = !ec && !stopping && reply.fault != ScriptedReply::Fault::truncate;
    }
  }

  void connection(tcp::socket& socket) {
    error_code ec;
    socket.set_option(tcp::no_delay(true), ec);
    if (!tls) {
      serve(socket, socket, "");
    } else {
      ssl::stream<tcp::socket&> stream(socket, *tls);
      stream.handshake(ssl::stream_base::server, ec);
      if (ec) return;  // the client refused our certificate, as some tests intend
      const char* sni = SSL_get_servername(stream.native_handle(), TLSEXT_NAMETYPE_host_name);
      serve(stream, socket, sni ? sni : "");
      if (socket.is_open()) SSL_shutdown(stream.native_handle());  // close_notify, no wait
    }
    if (socket.is_open()) {
      socket.shutdown(tcp::socket::shutdown_both, ec);
      socket.close(ec);
    }
  }

  void run() {
    for (;;) {
      auto socket = std::make_shared<tcp::socket>(ctx);
      error_code ec;
      acceptor.accept(*socket, ec);
      if (stopping) return;
      if (ec) continue;
      std::lock_guard lock(mutex);
      sockets.push_back(socket);
      connections.emplace_back([this, socket] { connection(*socket); });
    }
  }

  void start() {
    tcp::endpoint ep{asio::ip::make_address("127.0.0.1"), 0};
    acceptor.open(ep.protocol());
    acceptor.set_option(tcp::acceptor::reuse_address(true));
    acceptor.bind(ep);
    acceptor.listen();
    port = acceptor.local_endpoint().port();
    thread = std::thread([this] { run(); });
  }

  void stop() {
    {
      std::lock_guard lock(mutex);
      stopping = true;
    }
    wake.notify_all();
    poke(port);
    thread.join();
    std::vector<std::thread> running;
    {
      std::lock_guard lock(mutex);
      error_code ec;
      for (auto& s : sockets) s->shutdown(tcp::socket::shutdown_both, ec);  // unblocks reads
      running.swap(connections);
    }
    for (auto& t : running) t.join();
  }
};

ScriptedServer::ScriptedServer(Script script) : impl_(std::make_unique<impl>()) {
  impl_->script = std::move(script);
  impl_->start();
}

ScriptedServer::ScriptedServer(std::optional<Tls> tls) : impl_(std::make_unique<impl>()) {
  if (tls) {
    impl_->tls.emplace(ssl::context::tls_server);
    impl_->tls->use_certificate_chain(asio::buffer(tls->cert_pem));
    impl_->tls->use_private_key(asio::buffer(tls->key_pem), ssl::context::pem);
  }
  impl_->start();
}

ScriptedServer::~ScriptedServer() { impl_->stop(); }

void ScriptedServer::push(ScriptedReply reply) {
  std::lock_guard lock(impl_->mutex);
  impl_->replies.push_back(std::move(reply));
}
std::uint16_t ScriptedServer::port() const { return impl_->port; }
std::string ScriptedServer::url(const std::string& host) const {
  return std::string(impl_->tls ? "https://" : "http://") + host + ":" + std::to_string(impl_->port);
}
std::vector<RecordedRequest> ScriptedServer::requests() const {
  std::lock_guard lock(impl_->mutex);
  return impl_->received;
}
std::size_t ScriptedServer::unused_replies() const {
  std::lock_guard lock(impl_->mutex);
  return impl_->replies.size();
}

std::optional<SentReply> ScriptedServer::sent(std::size_t index, std::chrono::milliseconds wait) const {
  std::unique_lock lock(impl_->mutex);
  impl_->wake.wait_for(lock, wait, [&] { return impl_->sent.count(index) > 0; });
  if (auto it = impl_->sent.find(index); it != impl_->sent.end()) return it->second;
  return std::nullopt;
}

// ---- the proxy -------------------------------------------------------------------------------

struct TestProxy::impl {
  asio::io_context ctx;
  tcp::acceptor acceptor{ctx};
  std::string credentials;
  mutable std::mutex mutex;
  std::vector<std::string> lines;
  std::atomic<bool> stopping{false};
  std::thread thread;
  std::uint16_t port = 0;

  static void pump(tcp::socket& from, tcp::socket& to) {
    std::array<char, 8192> buf{};
    error_code ec;
    for (;;) {
      const std::size_t n = from.read_some(asio::buffer(buf), ec);
      if (n) asio::write(to, asio::buffer(buf.data(), n), ec);
      if (ec) break;
    }
    to.shutdown(tcp::socket::shutdown_send, ec);
  }

  void connect_to(tcp::socket& s, const std::string& host, const std::string& port, error_code& ec) {
    tcp::resolver resolver(ctx);
    auto endpoints = resolver.resolve(host, port, ec);
    if (!ec) asio::connect(s, endpoints, ec);
  }

  static void reply(tcp::socket& s, const std::string& status_line) {
    error_code ec;
    asio::write(s, asio::buffer("HTTP/1.1 " + status_line + "\r\nContent-Length: 0\r\n\r\n"), ec);
  }

  void handle(tcp::socket& client) {
    beast::flat_buffer buffer;
    bhttp::request_parser<bhttp::string_body> parser;
    error_code ec;
    bhttp::read_header(client, buffer, parser, ec);
    if (ec) return;
    auto& req = parser.get();
    const std::string method(req.method_string());
    const std::string target(req.target());
    {
      std::lock_guard lock(mutex);
      lines.push_back(method + " " + target);
    }
    if (!credentials.empty()) {
      const std::string expected = "Basic " + [&] {
        std::string out(4 * ((credentials.size() + 2) / 3) + 1, '\0');
        out.resize(static_cast<std::size_t>(
            EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                            reinterpret_cast<const unsigned char*>(credentials.data()),
                            static_cast<int>(credentials.size()))));
        return out;
      }();
      if (std::string(req[bhttp::field::proxy_authorization]) != expected) {
        reply(client, "407 Proxy Authentication Required");
        return;
      }
    }
    tcp::socket upstream(ctx);
    if (req.method() == bhttp::verb::connect) {
      const auto colon = target.rfind(':');
      connect_to(upstream, target.substr(0, colon), target.substr(colon + 1), ec);
      if (ec) {
        reply(client, "502 Bad Gateway");
        return;
      }
      reply(client, "200 Connection Established");
    } else {
      // Absolute form: http://HOST:PORT/PATH. Forward in origin form.
      bhttp::read(client, buffer, parser, ec);
      if (ec) return;
      const std::string rest = target.substr(target.find("://") + 3);
      const std::string authority = rest.substr(0, rest.find('/'));
      const auto colon = authority.rfind(':');
      connect_to(upstream, authority.substr(0, colon), authority.substr(colon + 1), ec);
      if (ec) {
        reply(client, "502 Bad Gateway");
        return;
      }
      auto forwarded = parser.release();
      forwarded.target(rest.substr(rest.find('/')));
      forwarded.erase(bhttp::field::proxy_authorization);
      bhttp::write(upstream, forwarded, ec);
      buffer.consume(buffer.size());
    }
    if (buffer.size()) asio::write(upstream, buffer.data(), ec);
    std::thread up([&] { pump(client, upstream); });
    pump(upstream, client);
    up.join();
  }

  void run() {
    for (;;) {
      tcp::socket client(ctx);
      error_code ec;
      acceptor.accept(client, ec);
      if (stopping) return;
      if (ec) continue;
      handle(client);
      client.close(ec);
    }
  }
};

TestProxy::TestProxy(std::string required_credentials) : impl_(std::make_unique<impl>()) {
  impl_->credentials = std::move(required_credentials);
  tcp::endpoint ep{asio::ip::make_address("127.0.0.1"), 0};
  impl_->acceptor.open(ep.protocol());
  impl_->acceptor.set_option(tcp::acceptor::reuse_address(true));
  impl_->acceptor.bind(ep);
  impl_->acceptor.listen();
  impl_->port = impl_->acceptor.local_endpoint().port();
  impl_->thread = std::thread([this] { impl_->run(); });
}

TestProxy::~TestProxy() {
  impl_->stopping = true;
  poke(impl_->port);
  impl_->thread.join();
}

std::uint16_t TestProxy::port() const { return impl_->port; }
std::vector<std::string> TestProxy::request_lines() const {
  std::lock_guard lock(impl_->mutex);
  return impl_->lines;
}

}  // namespace socratic::testing
