// AnthropicBackend against the scripted loopback server speaking the Messages API: tool_use /
// tool_result round trips, named-event streaming, 529 and mid-stream overload, billed failures.
#include "catch.hpp"

#include <chrono>
#include <string>
#include <vector>

#include "loopback_server.hpp"
#include "socratic/agents/anthropic_backend.hpp"
#include "test_util.hpp"

using namespace socratic;
using namespace socratic::testing;
using namespace std::chrono_literals;

namespace {

AnthropicOptions anthropic_options(const ScriptedServer& server, Recorder& rec, bool stream = false) {
  AnthropicOptions o;
  o.base_url = server.url();
  o.http.proxy = {};
  o.http.read_timeout = 5s;
  o.stream = stream;
  o.prices = PriceTable{};
  o.prices.set("claude-test", ModelPrice{3.0, 15.0, 0.3, 3.75});
  o.sleep = [&rec](std::chrono::milliseconds d) { rec.sleeps.push_back(d); };
  o.log = [&rec](std::string_view line) { rec.log.emplace_back(line); };
  o.retry.max_retries = 2;  // as the official SDKs (the default retries for minutes); tests of the time limit set theirs
  return o;
}

LlmRequest anthropic_request() {
  LlmRequest r;
  r.model = "claude-test";
  r.system = "You optimise kernels.";
  r.max_tokens = 1024;
  r.tools.push_back({"evaluate", "Evaluates the candidate", {{"type", "object"}, {"properties", json::object()}}});
  r.messages.push_back(msg(ChatRole::user, "Make it faster."));
  return r;
}

json tool_use_message() {
  return {{"id", "msg_1"},
          {"type", "message"},
          {"role", "assistant"},
          {"model", "claude-test"},
          {"content", {{{"type", "text"}, {"text", "Evaluating first."}},
                       {{"type", "tool_use"}, {"id", "toolu_1"}, {"name", "evaluate"}, {"input", json::object()}}}},
          {"stop_reason", "tool_use"},
          {"usage", {{"input_tokens", 100}, {"output_tokens", 30}, {"cache_read_input_tokens", 2000},
                     {"cache_creation_input_tokens", 50}}}};
}

}  // namespace

TEST_CASE("anthropic: tool_use comes back, with headers, usage and cost", "[agents][anthropic]") {
  ScriptedServer server;
  Recorder rec;
  auto options = anthropic_options(server, rec);
  const std::string secret = "sk-ant-test-0123456789-secret";
  ::setenv("SOCRATIC_TEST_ANTHROPIC_KEY", secret.c_str(), 1);
  options.api_key = ApiKey::from_environment("SOCRATIC_TEST_ANTHROPIC_KEY");
  ::unsetenv("SOCRATIC_TEST_ANTHROPIC_KEY");
  server.push(ScriptedReply::json_reply(200, tool_use_message()));
  AnthropicBackend backend(options);
  LlmResponse r = backend.complete(anthropic_request());
  CHECK(r.text == "Evaluating first.");
  REQUIRE(r.tool_calls.size() == 1);
  CHECK(r.tool_calls[0].id == "toolu_1");
  CHECK(r.tool_calls[0].name == "evaluate");
  CHECK(r.tool_calls[0].arguments == json::object());
  CHECK(r.stop_reason == "tool_use");
  CHECK(r.usage.input_tokens == 100);
  CHECK(r.usage.cache_read_tokens == 2000);
  CHECK(r.usage.cache_write_tokens == 50);
  CHECK(r.usage.cost_usd == Approx((100 * 3.0 + 30 * 15.0 + 2000 * 0.3 + 50 * 3.75) / 1e6));

  auto req = server.requests().at(0);
  CHECK(req.target == "/v1/messages");
  CHECK(req.header("x-api-key") == secret);
  CHECK(req.header("anthropic-version") == "2023-06-01");
  CHECK(req.header("authorization").empty());
  json body = req.json_body();
  CHECK(body["system"][0]["text"] == "You optimise kernels.");
  CHECK(body["max_tokens"] == 1024);
  CHECK(body["tools"][0]["input_schema"]["type"] == "object");
  CHECK(body["messages"][0]["role"] == "user");
}

TEST_CASE("anthropic: tool results merge into one user message that alternates",
          "[agents][anthropic]") {
  LlmRequest r = anthropic_request();
  ToolCall a{"toolu_1", "evaluate", json::object(), "{}", ""};
  ToolCall b{"toolu_2", "read_file", {{"path", "k.cu"}}, R"({"path":"k.cu"})", ""};
  r.messages.push_back(msg(ChatRole::assistant, "Two things.", "", {a, b}));
  r.messages.push_back(msg(ChatRole::tool, "speedup 1.2", "toolu_1"));
  r.messages.push_back(msg(ChatRole::tool, "no such file", "toolu_2", {}, true));
  r.messages.push_back(msg(ChatRole::user, "Question: where does the time go?"));
  AnthropicOptions o;
  o.prompt_caching = false;
  json m = anthropic_request_body(r, o)["messages"];
  REQUIRE(m.size() == 3);
  CHECK(m[1]["role"] == "assistant");
  CHECK(m[1]["content"][0] == json{{"type", "text"}, {"text", "Two things."}});
  CHECK(m[1]["content"][2] == json{{"type", "tool_use"}, {"id", "toolu_2"}, {"name", "read_file"}, {"input", {{"path", "k.cu"}}}});
  CHECK(m[2]["role"] == "user");
  REQUIRE(m[2]["content"].size() == 3);
  CHECK(m[2]["content"][0] == json{{"type", "tool_result"}, {"tool_use_id", "toolu_1"}, {"content", "speedup 1.2"}, {"is_error", false}});
  CHECK(m[2]["content"][1]["is_error"] == true);
  CHECK(m[2]["content"][2] == json{{"type", "text"}, {"text", "Question: where does the time go?"}});

  o.prompt_caching = true;
  json cached = anthropic_request_body(r, o);
  CHECK(cached["system"][0]["cache_control"]["type"] == "ephemeral");
  CHECK(cached["tools"].back()["cache_control"]["type"] == "ephemeral");
  CHECK(cached["messages"].back()["content"].back()["cache_control"]["type"] == "ephemeral");
}

namespace {

std::string event(const std::string& name, const json& data) {
  return "event: " + name + "\ndata: " + data.dump() + "\n\n";
}

std::string anthropic_stream() {
  return event("message_start", {{"type", "message_start"}, {"message", {{"id", "msg_2"}, {"model", "claude-test"}, {"content", json::array()}, {"usage", {{"input_tokens", 400}, {"output_tokens", 1}, {"cache_read_input_tokens", 1000}}}}}}) +
         event("content_block_start", {{"type", "content_block_start"}, {"index", 0}, {"content_block", {{"type", "text"}, {"text", ""}}}}) +
         event("ping", {{"type", "ping"}}) +
         event("content_block_delta", {{"type", "content_block_delta"}, {"index", 0}, {"delta", {{"type", "text_delta"}, {"text", "Writing the "}}}}) +
         event("content_block_delta", {{"type", "content_block_delta"}, {"index", 0}, {"delta", {{"type", "text_delta"}, {"text", "kernel."}}}}) +
         event("content_block_stop", {{"type", "content_block_stop"}, {"index", 0}}) +
         event("content_block_start", {{"type", "content_block_start"}, {"index", 1}, {"content_block", {{"type", "tool_use"}, {"id", "toolu_9"}, {"name", "write_file"}, {"input", json::object()}}}}) +
         event("content_block_delta", {{"type", "content_block_delta"}, {"index", 1}, {"delta", {{"type", "input_json_delta"}, {"partial_json", ""}}}}) +
         event("content_block_delta", {{"type", "content_block_delta"}, {"index", 1}, {"delta", {{"type", "input_json_delta"}, {"partial_json", "{\"path\": \"k.c"}}}}) +
         event("content_block_delta", {{"type", "content_block_delta"}, {"index", 1}, {"delta", {{"type", "input_json_delta"}, {"partial_json", "u\", \"content\": \"x\"}"}}}}) +
         event("content_block_stop", {{"type", "content_block_stop"}, {"index", 1}}) +
         event("message_delta", {{"type", "message_delta"}, {"delta", {{"stop_reason", "tool_use"}}}, {"usage", {{"output_tokens", 57}}}}) +
         event("message_stop", {{"type", "message_stop"}});
}

void check_anthropic_stream(const LlmResponse& r) {
  CHECK(r.text == "Writing the kernel.");
  CHECK(r.stop_reason == "tool_use");
  REQUIRE(r.tool_calls.size() == 1);
  CHECK(r.tool_calls[0].id == "toolu_9");
  CHECK(r.tool_calls[0].arguments == json{{"path", "k.cu"}, {"content", "x"}});
  CHECK(r.usage.input_tokens == 400);
  CHECK(r.usage.cache_read_tokens == 1000);
  CHECK(r.usage.output_tokens == 57);  // cumulative in message_delta: replaced, not added
}

}  // namespace

TEST_CASE("anthropic: a stream split at every byte boundary assembles the same answer",
          "[agents][anthropic][stream]") {
  const std::string s = anthropic_stream();
  AnthropicStreamAccumulator whole;
  http::SseParser p([&](const http::SseEvent& e) { whole.add(e.event, e.data); });
  p.feed(s);
  const LlmResponse expected = whole.finish();
  check_anthropic_stream(expected);
  for (std::size_t cut = 1; cut < s.size(); ++cut) {
    AnthropicStreamAccumulator acc;
    http::SseParser split([&](const http::SseEvent& e) { acc.add(e.event, e.data); });
    split.feed(std::string_view(s).substr(0, cut));
    split.feed(std::string_view(s).substr(cut));
    INFO("cut at byte " << cut);
    REQUIRE(acc.finish() == expected);
  }
}

TEST_CASE("anthropic: streamed over the wire in small pieces", "[agents][anthropic][stream]") {
  ScriptedServer server;
  Recorder rec;
  const std::string s = anthropic_stream();
  std::vector<std::string> pieces;
  for (std::size_t i = 0; i < s.size(); i += 97) pieces.push_back(s.substr(i, 97));
  server.push(ScriptedReply::sse(pieces));
  AnthropicBackend backend(anthropic_options(server, rec, true));
  check_anthropic_stream(backend.complete(anthropic_request()));
  CHECK(server.requests().at(0).json_body()["stream"] == true);
}

TEST_CASE("anthropic: a runaway streamed answer is refused at the 8 MiB cap as it arrives, the connection closed",
          "[agents][anthropic][stream][limits]") {
  ScriptedServer server;
  Recorder rec;
  const std::size_t whole = std::size_t(48) << 20;
  std::string stream =
      "event: message_start\ndata: " +
      json{{"type", "message_start"}, {"message", {{"model", "claude-test"}, {"usage", {{"input_tokens", 10}}}}}}.dump() +
      "\n\nevent: content_block_start\ndata: " +
      json{{"type", "content_block_start"}, {"index", 0}, {"content_block", {{"type", "text"}, {"text", ""}}}}.dump() +
      "\n\n";
  const std::string event =
      "event: content_block_delta\ndata: " +
      json{{"type", "content_block_delta"}, {"index", 0}, {"delta", {{"type", "text_delta"}, {"text", std::string(64 * 1024, 'y')}}}}
          .dump() +
      "\n\n";
  while (stream.size() < whole) stream += event;
  std::vector<std::string> pieces;
  for (std::size_t i = 0; i < stream.size(); i += 64 * 1024) pieces.push_back(stream.substr(i, 64 * 1024));
  auto reply = ScriptedReply::sse(std::move(pieces));
  reply.gap = 2ms;
  server.push(std::move(reply));
  AnthropicBackend backend(anthropic_options(server, rec, true));
  auto e = catch_llm([&] { backend.complete(anthropic_request()); });
  CHECK(e.kind() == LlmErrorKind::transport);
  CHECK_THAT(e.what(), Catch::Matchers::Contains("exceeds the cap of 8388608 bytes") &&
                           Catch::Matchers::Contains("agent.http.max_response_bytes"));
  CHECK(e.billed().input_tokens == 10);
  CHECK(server.requests().size() == 1);
  const auto sent = server.sent(0, 20s);
  REQUIRE(sent);
  CHECK_FALSE(sent->complete);
  CHECK(sent->body_bytes < whole / 2);
}

TEST_CASE("anthropic: 529 and a mid-stream overload are retried; the failed stream is billed",
          "[agents][anthropic][retry]") {
  ScriptedServer server;
  Recorder rec;
  server.push(ScriptedReply::json_reply(529, {{"type", "error"}, {"error", {{"type", "overloaded_error"}, {"message", "Overloaded"}}}}));
  const std::string s = anthropic_stream();
  const std::string broken = s.substr(0, s.find("event: content_block_start")) +
                             event("error", {{"type", "error"}, {"error", {{"type", "overloaded_error"}, {"message", "Overloaded"}}}});
  server.push(ScriptedReply::sse({broken}));
  server.push(ScriptedReply::sse({s}));
  AnthropicBackend backend(anthropic_options(server, rec, true));
  LlmResponse r = backend.complete(anthropic_request());
  CHECK(r.tool_calls.size() == 1);
  CHECK(r.usage.requests == 3);
  CHECK(r.usage.failed_requests == 2);
  // The broken stream had read 400 input + 1000 cached tokens before failing: billed.
  CHECK(r.usage.input_tokens == 800);
  CHECK(r.usage.cache_read_tokens == 2000);
  const double ok_cost = (400 * 3.0 + 57 * 15.0 + 1000 * 0.3) / 1e6;
  const double broken_cost = (400 * 3.0 + 1 * 15.0 + 1000 * 0.3) / 1e6;
  CHECK(r.usage.cost_usd == Approx(ok_cost + broken_cost));
  CHECK(rec.sleeps.size() == 2);
  REQUIRE(rec.log.size() == 2);
  CHECK_THAT(rec.log[0], Catch::Matchers::Contains("overloaded"));
}

TEST_CASE("anthropic: overload that persists ends as `overloaded` with the billed usage",
          "[agents][anthropic][retry]") {
  ScriptedServer server;
  Recorder rec;
  auto o = anthropic_options(server, rec);
  o.retry.max_retries = 1;
  for (int i = 0; i < 2; ++i)
    server.push(ScriptedReply::json_reply(529, {{"type", "error"}, {"error", {{"type", "overloaded_error"}, {"message", "Overloaded"}}}}));
  AnthropicBackend backend(o);
  auto e = catch_llm([&] { backend.complete(anthropic_request()); });
  CHECK(e.kind() == LlmErrorKind::overloaded);
  CHECK(e.status() == 529);
  CHECK(e.billed().requests == 2);
}

TEST_CASE("anthropic: spend limits and long prompts are named and not retried",
          "[agents][anthropic]") {
  ScriptedServer server;
  Recorder rec;
  AnthropicBackend backend(anthropic_options(server, rec));
  server.push(ScriptedReply::json_reply(400, {{"type", "error"}, {"error", {{"type", "invalid_request_error"}, {"message", "Your credit balance is too low to access the Anthropic API."}}}}));
  server.push(ScriptedReply::json_reply(429, {{"type", "error"}, {"error", {{"type", "rate_limit_error"}, {"message", "You have reached your specified API usage limits."}}}}));
  server.push(ScriptedReply::json_reply(400, {{"type", "error"}, {"error", {{"type", "invalid_request_error"}, {"message", "prompt is too long: 210000 tokens > 200000 maximum"}}}}));
  server.push(ScriptedReply::json_reply(401, {{"type", "error"}, {"error", {{"type", "authentication_error"}, {"message", "invalid x-api-key"}}}}));
  CHECK(catch_llm([&] { backend.complete(anthropic_request()); }).kind() == LlmErrorKind::spend_limit);
  CHECK(catch_llm([&] { backend.complete(anthropic_request()); }).kind() == LlmErrorKind::spend_limit);
  auto overflow = catch_llm([&] { backend.complete(anthropic_request()); });
  CHECK(overflow.kind() == LlmErrorKind::context_overflow);
  CHECK_THAT(overflow.what(), Catch::Matchers::Contains("210000 tokens"));
  auto auth = catch_llm([&] { backend.complete(anthropic_request()); });
  CHECK(auth.kind() == LlmErrorKind::authentication);
  CHECK_THAT(auth.what(), Catch::Matchers::Contains("no API key was sent"));
  CHECK(server.requests().size() == 4);
  CHECK(rec.sleeps.empty());
}

TEST_CASE("anthropic: transient failures are retried for the policy's time, with the whole reason at the end",
          "[agents][anthropic][retry]") {
  ScriptedServer server;
  Recorder rec;
  auto o = anthropic_options(server, rec, true);
  o.retry = http::RetryPolicy{};  // the default: a time limit, not two retries
  o.api_key = ApiKey::from_environment("SOCRATIC_TEST_RETRY_KEY");
  const auto overloaded = ScriptedReply::json_reply(529, {{"type", "error"}, {"error", {{"type", "overloaded_error"}, {"message", "Overloaded"}}}});
  SECTION("three 529s, a reset, a 500 and one garbled event, then the answer") {
    for (int i = 0; i < 3; ++i) server.push(overloaded);
    ScriptedReply reset;
    reset.fault = ScriptedReply::Fault::reset;
    server.push(reset);
    server.push(ScriptedReply::json_reply(500, {{"type", "error"}, {"error", {{"type", "api_error"}, {"message", "Internal"}}}}));
    const std::string s = anthropic_stream();
    const auto cut = s.find("event: content_block_start");
    server.push(ScriptedReply::sse({s.substr(0, cut) + "event: content_block_start\ndata: {\"type\": \"content_bl\n\n"}));
    server.push(ScriptedReply::sse({s}));
    AnthropicBackend backend(o);
    const LlmResponse r = backend.complete(anthropic_request());
    CHECK(r.tool_calls.size() == 1);
    CHECK(r.usage.requests == 7);
    CHECK(r.usage.failed_requests == 6);
    CHECK(rec.sleeps.size() == 6);
  }
  SECTION("an overload that outlasts the retry time ends with how long was tried and where the key came from") {
    o.retry.max_retry_time = std::chrono::seconds(20);
    for (int i = 0; i < 40; ++i) server.push(overloaded);
    AnthropicBackend backend(o);
    auto e = catch_llm([&] { backend.complete(anthropic_request()); });
    CHECK(e.kind() == LlmErrorKind::overloaded);
    CHECK(e.status() == 529);
    std::chrono::milliseconds waited{0};
    for (auto d : rec.sleeps) waited += d;
    CHECK(waited <= std::chrono::seconds(20));
    CHECK(waited >= std::chrono::seconds(10));  // it kept trying for most of the time allowed
    CHECK_THAT(e.what(), Catch::Matchers::Contains("answered 529") && Catch::Matchers::Contains("attempts over") &&
                             Catch::Matchers::Contains("the retry time of 20 s was spent") &&
                             Catch::Matchers::Contains("environment variable SOCRATIC_TEST_RETRY_KEY"));
  }
  SECTION("a 401 and a quota 429 are not transient: one attempt each, and the reason says so") {
    server.push(ScriptedReply::json_reply(401, {{"type", "error"}, {"error", {{"type", "authentication_error"}, {"message", "invalid x-api-key"}}}}));
    server.push(ScriptedReply::json_reply(429, {{"type", "error"}, {"error", {{"type", "rate_limit_error"}, {"message", "This request would exceed your organization's monthly usage limit."}}}}));
    AnthropicBackend backend(o);
    auto auth = catch_llm([&] { backend.complete(anthropic_request()); });
    CHECK(auth.kind() == LlmErrorKind::authentication);
    CHECK_THAT(auth.what(), Catch::Matchers::Contains("answered 401") && Catch::Matchers::Contains("SOCRATIC_TEST_RETRY_KEY") &&
                                Catch::Matchers::Contains("not retried"));
    auto quota = catch_llm([&] { backend.complete(anthropic_request()); });
    CHECK(quota.kind() == LlmErrorKind::spend_limit);
    CHECK_THAT(quota.what(), Catch::Matchers::Contains("answered 429") && Catch::Matchers::Contains("waiting will not add money"));
    CHECK(rec.sleeps.empty());
    CHECK(server.requests().size() == 2);
  }
}

TEST_CASE("anthropic: no key for Anthropic's API is refused at once, naming the variable",
          "[agents][anthropic][secrets]") {
  ::unsetenv("SOCRATIC_TEST_UNSET_ANTHROPIC_KEY");
  AnthropicOptions o;
  o.api_key = ApiKey::from_environment("SOCRATIC_TEST_UNSET_ANTHROPIC_KEY");
  CHECK_THROWS_WITH(AnthropicBackend(o), Catch::Matchers::Contains("no API key for https://api.anthropic.com") &&
                                             Catch::Matchers::Contains("SOCRATIC_TEST_UNSET_ANTHROPIC_KEY"));
  o.base_url = "http://127.0.0.1:8123";
  CHECK_NOTHROW(AnthropicBackend(o));
}
