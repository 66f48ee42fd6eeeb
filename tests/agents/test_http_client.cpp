// HttpClient against the scripted loopback server: round trips, streaming, faults, timeouts,
// size caps, TLS with a certificate made in the test, and proxies.
#include "catch.hpp"

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>

#include <unistd.h>

#include "loopback_server.hpp"
#include "socratic/http/client.hpp"
#include "test_pki.hpp"

using namespace socratic;
using namespace socratic::http;
using namespace socratic::testing;
using namespace std::chrono_literals;

namespace {

HttpOptions direct_options() {
  HttpOptions o;
  o.proxy = ProxySettings{};  // tests never inherit the machine's proxy
  o.connect_timeout = 5s;
  o.read_timeout = 5s;
  o.total_timeout = 20s;
  return o;
}

/// A PKI whose server certificate names only "localhost", written out for the client.
struct TlsFixture {
  TestPki pki = make_test_pki({"localhost"}, {});
  std::filesystem::path ca_file;
  TlsFixture() {
    ca_file = std::filesystem::temp_directory_path() /
              ("socratic_test_ca_" + std::to_string(::getpid()) + ".pem");
    std::ofstream(ca_file) << pki.ca_cert_pem;
  }
  ~TlsFixture() { std::filesystem::remove(ca_file); }
  ScriptedServer::Tls server_tls() const { return {pki.server_cert_pem, pki.server_key_pem}; }
};

template <class F>
transport_error catch_transport(F&& f) {
  try {
    f();
  } catch (const transport_error& e) {
    return e;
  }
  FAIL("no transport_error was thrown");
  return transport_error(TransportFailure::read, "", false);
}

}  // namespace

TEST_CASE("a request and its response travel whole", "[http][client]") {
  ScriptedServer server;
  auto reply = ScriptedReply::json_reply(201, {{"ok", true}});
  reply.headers.push_back({"X-Request-Id", "abc"});
  server.push(reply);
  HttpClient client(direct_options());
  auto r = client.send({"POST", server.url() + "/v1/things?x=1",
                        {{"Authorization", "Bearer k"}}, R"({"q":1})"});
  CHECK(r.status == 201);
  CHECK(r.header("x-request-id") == "abc");
  CHECK(r.header("X-REQUEST-ID") == "abc");
  CHECK(json::parse(r.body) == json{{"ok", true}});
  auto reqs = server.requests();
  REQUIRE(reqs.size() == 1);
  CHECK(reqs[0].method == "POST");
  CHECK(reqs[0].target == "/v1/things?x=1");
  CHECK(reqs[0].header("authorization") == "Bearer k");
  CHECK(reqs[0].header("content-type") == "application/json");
  CHECK(reqs[0].header("host") == "127.0.0.1:" + std::to_string(server.port()));
  CHECK(reqs[0].body == R"({"q":1})");
}

TEST_CASE("a 2xx body streams to the sink piece by piece; an error body is collected",
          "[http][client]") {
  ScriptedServer server;
  auto stream = ScriptedReply::sse({"data: a", "bc\n", "\n", "data: [DONE]\n\n"});
  stream.gap = 5ms;
  server.push(stream);
  server.push(ScriptedReply::json_reply(400, {{"error", "bad"}}));
  HttpClient client(direct_options());
  std::string seen;
  int calls = 0;
  auto r = client.send({"POST", server.url(), {}, "{}"}, [&](std::string_view c) {
    seen += c;
    ++calls;
  });
  CHECK(r.streamed);
  CHECK(r.body.empty());
  CHECK(seen == "data: abc\n\ndata: [DONE]\n\n");
  CHECK(calls >= 2);

  seen.clear();
  auto e = client.send({"POST", server.url(), {}, "{}"}, [&](std::string_view c) { seen += c; });
  CHECK(e.status == 400);
  CHECK_FALSE(e.streamed);
  CHECK(json::parse(e.body)["error"] == "bad");
  CHECK(seen.empty());
}

TEST_CASE("a body delimited by the connection's close is read to the end", "[http][client]") {
  ScriptedServer server;
  auto r = ScriptedReply::sse({"data: 1\n\n", "data: 2\n\n"});
  r.close_delimited = true;
  server.push(r);
  std::string seen;
  HttpClient(direct_options()).send({"GET", server.url(), {}, ""}, [&](std::string_view c) { seen += c; });
  CHECK(seen == "data: 1\n\ndata: 2\n\n");
}

TEST_CASE("faults become transport errors that say what happened", "[http][client]") {
  ScriptedServer server;
  HttpClient client(direct_options());
  const HttpRequest req{"POST", server.url() + "/v1/chat/completions", {}, "{}"};

  SECTION("connection reset") {
    ScriptedReply r;
    r.fault = ScriptedReply::Fault::reset;
    server.push(r);
    auto e = catch_transport([&] { client.send(req); });
    CHECK(e.failure() == TransportFailure::read);
    CHECK(e.retryable());
    CHECK_THAT(e.what(), Catch::Matchers::Contains("POST http://127.0.0.1:") &&
                             Catch::Matchers::Contains("/v1/chat/completions"));
  }
  SECTION("truncated body") {
    auto r = ScriptedReply::json_reply(200, {{"text", std::string(1000, 'x')}});
    r.fault = ScriptedReply::Fault::truncate;
    r.truncate_at = 300;
    server.push(r);
    auto e = catch_transport([&] { client.send(req); });
    CHECK(e.failure() == TransportFailure::read);
    CHECK(e.retryable());
    CHECK_THAT(e.what(), Catch::Matchers::Contains("after 300 body bytes") &&
                             Catch::Matchers::Contains("closed before the body was complete"));
  }
  SECTION("truncated chunked stream") {
    auto r = ScriptedReply::sse({"data: {}\n\n", "data: {"});
    r.fault = ScriptedReply::Fault::truncate;
    server.push(r);
    std::string seen;
    auto e = catch_transport([&] { client.send(req, [&](std::string_view c) { seen += c; }); });
    CHECK(e.failure() == TransportFailure::read);
    CHECK(seen.rfind("data: {}\n\n", 0) == 0);
  }
  SECTION("connection refused") {
    const std::string dead = "http://127.0.0.1:1/x";
    auto e = catch_transport([&] { client.send({"GET", dead, {}, ""}); });
    CHECK(e.failure() == TransportFailure::refused);
    CHECK(e.retryable());
    CHECK_THAT(e.what(), Catch::Matchers::Contains("cannot connect to 127.0.0.1:1") &&
                             Catch::Matchers::Contains("nothing is listening on 127.0.0.1:1"));
  }
}

TEST_CASE("responses over the size cap are refused, streamed or not", "[http][client]") {
  ScriptedServer server;
  auto options = direct_options();
  options.max_response_bytes = 64 * 1024;
  HttpClient client(options);
  server.push(ScriptedReply::json_reply(200, {{"big", std::string(100 * 1024, 'x')}}));
  auto e = catch_transport([&] { client.send({"GET", server.url(), {}, ""}); });
  CHECK(e.failure() == TransportFailure::too_large);
  CHECK_FALSE(e.retryable());
  CHECK_THAT(e.what(), Catch::Matchers::Contains("65536 bytes"));

  std::vector<std::string> pieces(40, "data: " + std::string(4000, 'y') + "\n\n");
  server.push(ScriptedReply::sse(pieces));
  std::size_t streamed = 0;
  auto s = catch_transport(
      [&] { client.send({"GET", server.url(), {}, ""}, [&](std::string_view c) { streamed += c.size(); }); });
  CHECK(s.failure() == TransportFailure::too_large);
  CHECK(streamed <= options.max_response_bytes);
}

TEST_CASE("a silent server hits the read timeout; a slow trickle hits the total timeout",
          "[http][client]") {
  ScriptedServer server;
  auto options = direct_options();
  options.read_timeout = 300ms;
  HttpClient client(options);
  ScriptedReply slow = ScriptedReply::json_reply(200, {{"late", true}});
  slow.delay = 3s;
  server.push(slow);
  const auto began = std::chrono::steady_clock::now();
  auto e = catch_transport([&] { client.send({"GET", server.url(), {}, ""}); });
  const auto took = std::chrono::steady_clock::now() - began;
  CHECK(e.failure() == TransportFailure::timeout);
  CHECK(e.retryable());
  CHECK_THAT(e.what(), Catch::Matchers::Contains("timed out after 0.3 s"));
  CHECK(took < 2s);

  options.read_timeout = 5s;
  options.total_timeout = 400ms;
  HttpClient impatient(options);
  auto trickle = ScriptedReply::sse(std::vector<std::string>(50, "data: x\n\n"));
  trickle.gap = 50ms;
  server.push(trickle);
  auto t = catch_transport([&] { impatient.send({"GET", server.url(), {}, ""}, [](std::string_view) {}); });
  CHECK(t.failure() == TransportFailure::timeout);
  CHECK_THAT(t.what(), Catch::Matchers::Contains("total timeout of 0.4 s"));
}

TEST_CASE("TLS: verified against a CA made in the test, with SNI", "[http][tls]") {
  TlsFixture tls;
  ScriptedServer server(tls.server_tls());
  auto options = direct_options();
  options.ca_file = tls.ca_file.string();
  HttpClient client(options);

  SECTION("trusted CA and matching name") {
    server.push(ScriptedReply::json_reply(200, {{"secure", true}}));
    auto r = client.send({"POST", server.url("localhost") + "/v1/messages", {}, "{}"});
    CHECK(r.status == 200);
    REQUIRE(server.requests().size() == 1);
    CHECK(server.requests()[0].sni == "localhost");
  }
  SECTION("an unknown CA is refused") {
    HttpClient untrusting(direct_options());
    auto e = catch_transport([&] { untrusting.send({"GET", server.url("localhost"), {}, ""}); });
    CHECK(e.failure() == TransportFailure::tls);
    CHECK_FALSE(e.retryable());
    CHECK_THAT(e.what(), Catch::Matchers::Contains("certificate verification failed") &&
                             Catch::Matchers::Contains("local issuer"));
    CHECK(server.requests().empty());
  }
  SECTION("a certificate for another name is refused") {
    auto e = catch_transport([&] { client.send({"GET", server.url("127.0.0.1"), {}, ""}); });
    CHECK(e.failure() == TransportFailure::tls);
    CHECK_THAT(e.what(), Catch::Matchers::Contains("mismatch"));
    CHECK(server.requests().empty());
  }
  SECTION("a missing CA file is named") {
    auto o = options;
    o.ca_file = "/nonexistent/ca.pem";
    auto e = catch_transport([&] { HttpClient(o).send({"GET", server.url("localhost"), {}, ""}); });
    CHECK_THAT(e.what(), Catch::Matchers::Contains("/nonexistent/ca.pem"));
  }
}

TEST_CASE("HTTPS through a CONNECT proxy, with and without credentials", "[http][proxy]") {
  TlsFixture tls;
  ScriptedServer server(tls.server_tls());
  auto options = direct_options();
  options.ca_file = tls.ca_file.string();

  SECTION("open proxy") {
    TestProxy proxy;
    options.proxy.https_proxy = "127.0.0.1:" + std::to_string(proxy.port());
    server.push(ScriptedReply::json_reply(200, {{"via", "proxy"}}));
    auto r = HttpClient(options).send({"POST", server.url("localhost") + "/v1/messages", {}, "{}"});
    CHECK(json::parse(r.body)["via"] == "proxy");
    CHECK(proxy.request_lines() ==
          std::vector<std::string>{"CONNECT localhost:" + std::to_string(server.port())});
    CHECK(server.requests().at(0).sni == "localhost");  // TLS end to end through the tunnel
  }
  SECTION("NO_PROXY bypasses it") {
    TestProxy proxy;
    options.proxy.https_proxy = "http://127.0.0.1:" + std::to_string(proxy.port());
    options.proxy.no_proxy = "localhost";
    server.push(ScriptedReply::json_reply(200, {{"direct", true}}));
    HttpClient(options).send({"GET", server.url("localhost"), {}, ""});
    CHECK(proxy.request_lines().empty());
  }
  SECTION("a proxy that wants credentials") {
    TestProxy proxy("alice:s3cret-proxy-pass");
    options.proxy.https_proxy = "http://127.0.0.1:" + std::to_string(proxy.port());
    auto e = catch_transport([&] { HttpClient(options).send({"GET", server.url("localhost"), {}, ""}); });
    CHECK(e.failure() == TransportFailure::proxy);
    CHECK_THAT(e.what(), Catch::Matchers::Contains("407"));

    options.proxy.https_proxy = "http://alice:s3cret-proxy-pass@127.0.0.1:" + std::to_string(proxy.port());
    server.push(ScriptedReply::json_reply(200, {{"ok", 1}}));
    auto r = HttpClient(options).send({"GET", server.url("localhost") + "/x", {}, ""});
    CHECK(r.status == 200);
    CHECK(server.requests().at(0).header("proxy-authorization").empty());  // not leaked upstream
  }
}

TEST_CASE("plain HTTP through a proxy uses the absolute form", "[http][proxy]") {
  ScriptedServer server;
  TestProxy proxy;
  auto options = direct_options();
  options.proxy.http_proxy = "http://127.0.0.1:" + std::to_string(proxy.port());
  server.push(ScriptedReply::json_reply(200, {{"ok", 1}}));
  auto r = HttpClient(options).send({"POST", server.url() + "/v1/chat/completions", {}, "{}"});
  CHECK(r.status == 200);
  CHECK(proxy.request_lines() ==
        std::vector<std::string>{"POST " + server.url() + "/v1/chat/completions"});
  CHECK(server.requests().at(0).target == "/v1/chat/completions");
}
