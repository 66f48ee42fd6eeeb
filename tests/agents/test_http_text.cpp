// The light HTTP pieces, tested directly: URL parsing, the SSE parser (fed byte by byte and at
// every split point), retry timing, and NO_PROXY matching.
#include "catch.hpp"

#include <chrono>
#include <string>
#include <vector>

#include "socratic/http/proxy.hpp"
#include "socratic/http/retry.hpp"
#include "socratic/http/sse.hpp"
#include "socratic/http/url.hpp"

using namespace socratic;
using namespace socratic::http;
using namespace std::chrono_literals;

TEST_CASE("URLs parse into scheme, host, port and target", "[http][url]") {
  auto u = parse_url("https://API.example.com/v1");
  CHECK(u.scheme == "https");
  CHECK(u.host == "api.example.com");
  CHECK(u.port == 443);
  CHECK(u.target == "/v1");
  CHECK(u.host_header() == "api.example.com");
  CHECK(u.authority() == "api.example.com:443");

  auto v = parse_url("http://user:p%40ss@127.0.0.1:8080?x=1");
  CHECK(v.userinfo == "user:p@ss");
  CHECK(v.port == 8080);
  CHECK(v.target == "/?x=1");
  CHECK(v.host_is_ip_literal());
  CHECK(v.redacted() == "http://127.0.0.1:8080/?x=1");  // no credentials in messages

  auto w = parse_url("http://[::1]:11434/v1/");
  CHECK(w.host == "::1");
  CHECK(w.authority() == "[::1]:11434");
  CHECK(w.host_is_ip_literal());

  CHECK(join_url("http://h/v1/", "/chat/completions") == "http://h/v1/chat/completions");
  CHECK(join_url("http://h/v1", "chat/completions") == "http://h/v1/chat/completions");

  CHECK_THROWS_WITH(parse_url("ftp://x", "base_url"),
                    Catch::Matchers::Contains("base_url") && Catch::Matchers::Contains("ftp"));
  CHECK_THROWS_WITH(parse_url("localhost:8000", "base_url"),
                    Catch::Matchers::Contains("not an absolute URL"));
  CHECK_THROWS_WITH(parse_url("http://h:99999"), Catch::Matchers::Contains("invalid port"));
  CHECK_THROWS_WITH(parse_url("http://h:0"), Catch::Matchers::Contains("invalid port"));
}

TEST_CASE("URL edge cases: empty port, fragment, IPv6 case, errors without credentials", "[http][url]") {
  const auto u = parse_url("HTTP://h:/v1#section");
  CHECK(u.scheme == "http");
  CHECK(u.port == 80);  // `host:` keeps the scheme's port
  CHECK(u.target == "/v1");  // the fragment is not sent
  CHECK(parse_url("https://[FE80::1]/").host == "fe80::1");
  CHECK(parse_url("https://h?q=a%20b").target == "/?q=a%20b");  // sent as written
  CHECK_THROWS_WITH(parse_url("http://", "base_url"), Catch::Matchers::Contains("base_url") &&
                                                          Catch::Matchers::Contains("no host"));
  // A URL that does not parse is named without its credentials.
  try {
    parse_url("http://user:s3cret@host:80x/v1", "HTTPS_PROXY");
    FAIL("parse_url accepted a port that is not a number");
  } catch (const std::exception& e) {
    const std::string message = e.what();
    CHECK(message.find("HTTPS_PROXY") != std::string::npos);
    CHECK(message.find("not a valid URL") != std::string::npos);
    CHECK(message.find("s3cret") == std::string::npos);
    CHECK(message.find("http://***@host:80x/v1") != std::string::npos);
  }
}

namespace {

std::vector<SseEvent> parse_in_pieces(const std::string& stream, std::size_t piece) {
  std::vector<SseEvent> out;
  SseParser p([&](const SseEvent& e) { out.push_back(e); });
  for (std::size_t i = 0; i < stream.size(); i += piece) p.feed(std::string_view(stream).substr(i, piece));
  p.finish();
  return out;
}

}  // namespace

TEST_CASE("the SSE parser gives the same events whatever the chunking", "[http][sse]") {
  // CR LF, bare CR and bare LF line ends; a comment; multi-line data; a named event; an event
  // without data (not dispatched); a BOM; an unterminated last event (discarded).
  const std::string stream =
      "\xEF\xBB\xBF: keep-alive\r\n"
      "data: {\"a\":\"\xC3\xA9\"}\r\n\r\n"
      "event: content_block_delta\rdata: first\rdata:second\r\r"
      "id: 7\nevent: ping\n\n"
      "data:  two spaces\n\n"
      "data: [DONE]\n\n"
      "data: never finished";
  const auto whole = parse_in_pieces(stream, stream.size());
  REQUIRE(whole.size() == 4);
  CHECK(whole[0].event == "message");
  CHECK(whole[0].data == "{\"a\":\"\xC3\xA9\"}");
  CHECK(whole[1].event == "content_block_delta");
  CHECK(whole[1].data == "first\nsecond");
  CHECK(whole[2].data == " two spaces");  // only one space is dropped
  CHECK(whole[2].id == "7");
  CHECK(whole[3].data == "[DONE]");
  for (std::size_t piece = 1; piece <= 7; ++piece) {
    INFO("piece size " << piece);
    const auto split = parse_in_pieces(stream, piece);
    REQUIRE(split.size() == whole.size());
    for (std::size_t i = 0; i < split.size(); ++i) {
      CHECK(split[i].event == whole[i].event);
      CHECK(split[i].data == whole[i].data);
    }
  }
}

TEST_CASE("a CR at a chunk's end followed by LF in the next counts as one line end",
          "[http][sse]") {
  std::vector<SseEvent> got;
  SseParser p([&](const SseEvent& e) { got.push_back(e); });
  p.feed("data: x\r");
  p.feed("\ndata: y\r");
  p.feed("\n\r");
  p.feed("\n");
  REQUIRE(got.size() == 1);
  CHECK(got[0].data == "x\ny");
  CHECK_FALSE(p.finish());
}

TEST_CASE("an over-long SSE line is an error, not unbounded memory", "[http][sse]") {
  SseParser p([](const SseEvent&) {}, 64);
  CHECK_THROWS_WITH(p.feed("data: " + std::string(100, 'x')), Catch::Matchers::Contains("64 bytes"));
}

TEST_CASE("retry delays: server's ask first, backoff otherwise, capped, jittered", "[http][retry]") {
  RetryPolicy policy;
  CHECK(is_retryable_status(408));
  CHECK(is_retryable_status(409));
  CHECK(is_retryable_status(429));
  CHECK(is_retryable_status(500));
  CHECK(is_retryable_status(529));
  CHECK_FALSE(is_retryable_status(400));
  CHECK_FALSE(is_retryable_status(401));
  CHECK_FALSE(is_retryable_status(404));

  CHECK(backoff_delay(policy, 0, 0.0) == 500ms);
  CHECK(backoff_delay(policy, 1, 0.0) == 1000ms);
  CHECK(backoff_delay(policy, 3, 0.0) == 4000ms);
  CHECK(backoff_delay(policy, 10, 0.0) == 30000ms);  // capped
  CHECK(backoff_delay(policy, 0, 0.999) == 375ms);   // at most a quarter shorter (rounded)
  CHECK(backoff_delay(policy, 0, 0.5) == 438ms);

  CHECK(server_retry_delay("250", "") == 250ms);
  CHECK(server_retry_delay("", "2") == 2000ms);
  CHECK(server_retry_delay("", "1.5") == 1500ms);
  CHECK(server_retry_delay("120.4", "9") == 120ms);  // the -ms header wins
  CHECK_FALSE(server_retry_delay("", "soon").has_value());
  CHECK_FALSE(server_retry_delay("-1", "").has_value());
  const auto now = std::chrono::system_clock::from_time_t(1445412470);  // 07:27:50 GMT
  CHECK(server_retry_delay("", "Wed, 21 Oct 2015 07:28:00 GMT", now) == 10000ms);

  CHECK(retry_delay(policy, 0, 3000ms, 0.0) == 3000ms);
  CHECK(retry_delay(policy, 0, 61000ms, 0.0) == 500ms);  // over a minute: not honoured
  CHECK(retry_delay(policy, 2, std::nullopt, 0.0) == 2000ms);
}

TEST_CASE("NO_PROXY exempts hosts, domains, ports and IPv4 blocks", "[http][proxy]") {
  const auto api = parse_url("https://api.openai.com/v1");
  CHECK(no_proxy_matches("openai.com", api));
  CHECK(no_proxy_matches(".openai.com", api));
  CHECK(no_proxy_matches("*.openai.com", api));
  CHECK(no_proxy_matches(" localhost , api.openai.com ", api));
  CHECK(no_proxy_matches("*", api));
  CHECK_FALSE(no_proxy_matches("penai.com", api));
  CHECK_FALSE(no_proxy_matches("api.openai.com.evil", api));
  CHECK(no_proxy_matches("api.openai.com:443", api));
  CHECK_FALSE(no_proxy_matches("api.openai.com:8443", api));
  CHECK_FALSE(no_proxy_matches("", api));
  CHECK_FALSE(no_proxy_matches(":443,,", api));

  const auto node = parse_url("http://10.1.2.3:8000/v1");
  CHECK(no_proxy_matches("10.0.0.0/8", node));
  CHECK(no_proxy_matches("10.1.2.3", node));
  CHECK_FALSE(no_proxy_matches("10.1.3.0/24", node));
  CHECK_FALSE(no_proxy_matches("10.0.0.0/x", node));
  CHECK(no_proxy_matches("[::1]", parse_url("http://[::1]:1/")));
}

TEST_CASE("the proxy for a URL follows its scheme and NO_PROXY", "[http][proxy]") {
  ProxySettings s;
  s.https_proxy = "proxy.corp:3128";
  s.http_proxy = "http://u:p@proxy.corp:8080";
  s.no_proxy = "localhost,127.0.0.1";
  auto p = s.proxy_for(parse_url("https://api.anthropic.com"));
  REQUIRE(p);
  CHECK(p->host == "proxy.corp");
  CHECK(p->port == 3128);
  auto q = s.proxy_for(parse_url("http://vllm.cluster:8000/v1"));
  REQUIRE(q);
  CHECK(q->userinfo == "u:p");
  CHECK_FALSE(s.proxy_for(parse_url("http://127.0.0.1:8000/v1")));
  s.https_proxy = "https://proxy.corp:3128";
  CHECK_THROWS_WITH(s.proxy_for(parse_url("https://api.anthropic.com")),
                    Catch::Matchers::Contains("HTTPS_PROXY") && Catch::Matchers::Contains("not supported"));
}
