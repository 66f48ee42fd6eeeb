// OpenAiBackend against the scripted loopback server speaking Chat Completions: tool-call round
// trips, streaming (fragments split anywhere), retries, error classification, usage and cost.
#include "catch.hpp"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <string>
#include <vector>

#include "loopback_server.hpp"
#include "socratic/agents/openai_backend.hpp"
#include "test_util.hpp"

using namespace socratic;
using namespace socratic::testing;
using namespace std::chrono_literals;

namespace {

OpenAiOptions local_options(const ScriptedServer& server, Recorder& rec, bool stream = false) {
  OpenAiOptions o = OpenAiOptions::compatible(server.url() + "/v1");
  o.http.proxy = {};
  o.http.read_timeout = 5s;
  o.stream = stream;
  o.prices = PriceTable{};
  o.prices.set("test-model*", ModelPrice{1.0, 4.0, 0.25, std::nullopt});
  o.sleep = [&rec](std::chrono::milliseconds d) { rec.sleeps.push_back(d); };
  o.log = [&rec](std::string_view line) { rec.log.emplace_back(line); };
  o.retry.max_retries = 2;  // as the official SDKs (the default retries for minutes); tests of the time limit set theirs
  return o;
}

LlmRequest sample_request() {
  LlmRequest r;
  r.model = "test-model";
  r.system = "You optimise kernels.";
  r.max_tokens = 512;
  r.tools.push_back({"read_file", "Reads a file", {{"type", "object"}, {"properties", {{"path", {{"type", "string"}}}}}}});
  r.messages.push_back(msg(ChatRole::user, "Make it faster."));
  return r;
}

json tool_call_completion(const std::string& arguments) {
  return {{"id", "chatcmpl-1"},
          {"model", "test-model-2025"},
          {"choices",
           {{{"index", 0},
             {"finish_reason", "tool_calls"},
             {"message",
              {{"role", "assistant"},
               {"content", nullptr},
               {"tool_calls",
                {{{"id", "call_a"}, {"type", "function"},
                  {"function", {{"name", "read_file"}, {"arguments", arguments}}}}}}}}}}},
          {"usage", {{"prompt_tokens", 1000}, {"completion_tokens", 20},
                     {"prompt_tokens_details", {{"cached_tokens", 800}}}}}};
}

json text_completion(const std::string& text) {
  return {{"model", "test-model"},
          {"choices", {{{"index", 0}, {"finish_reason", "stop"},
                        {"message", {{"role", "assistant"}, {"content", text}}}}}},
          {"usage", {{"prompt_tokens", 10}, {"completion_tokens", 5}}}};
}

}  // namespace

TEST_CASE("openai: a tool call goes out and comes back", "[agents][openai]") {
  ScriptedServer server;
  Recorder rec;
  auto options = local_options(server, rec);
  options.api_key = ApiKey::from_environment("SOCRATIC_TEST_UNSET_VARIABLE");
  server.push(ScriptedReply::json_reply(200, tool_call_completion(R"({"path": "kernel.cu"})")));
  OpenAiBackend backend(options);
  LlmResponse r = backend.complete(sample_request());

  REQUIRE(r.tool_calls.size() == 1);
  CHECK(r.tool_calls[0].id == "call_a");
  CHECK(r.tool_calls[0].name == "read_file");
  CHECK(r.tool_calls[0].arguments == json{{"path", "kernel.cu"}});
  CHECK(r.tool_calls[0].parse_error.empty());
  CHECK(r.stop_reason == "tool_calls");
  CHECK(r.model == "test-model-2025");
  CHECK(r.usage.input_tokens == 200);
  CHECK(r.usage.cache_read_tokens == 800);
  CHECK(r.usage.output_tokens == 20);
  CHECK(r.usage.requests == 1);
  CHECK(r.usage.cost_usd == Approx((200 * 1.0 + 800 * 0.25 + 20 * 4.0) / 1e6));

  auto req = server.requests().at(0);
  CHECK(req.target == "/v1/chat/completions");
  CHECK(req.header("authorization").empty());  // no key given, none sent
  json body = req.json_body();
  CHECK(body["model"] == "test-model");
  CHECK(body["max_tokens"] == 512);
  CHECK(body["messages"][0] == json{{"role", "system"}, {"content", "You optimise kernels."}});
  CHECK(body["messages"][1] == json{{"role", "user"}, {"content", "Make it faster."}});
  CHECK(body["tools"][0]["type"] == "function");
  CHECK(body["tools"][0]["function"]["name"] == "read_file");
  CHECK_FALSE(body.contains("stream"));
}

TEST_CASE("openai: the tool result goes back as a tool message with the call's id",
          "[agents][openai]") {
  LlmRequest r = sample_request();
  ToolCall call{"call_a", "read_file", {{"path", "k.cu"}}, R"({"path":"k.cu"})", ""};
  r.messages.push_back(msg(ChatRole::assistant, "", "", {call}));
  r.messages.push_back(msg(ChatRole::tool, "__global__ void k() {}", "call_a"));
  ToolCall bad{"call_b", "read_file", nullptr, "{\"path\": ", "not valid JSON"};
  r.messages.push_back(msg(ChatRole::assistant, "Let me look.", "", {bad}));
  r.messages.push_back(msg(ChatRole::tool, "error: arguments not JSON", "call_b", {}, true));
  OpenAiOptions o;
  json body = openai_request_body(r, o);
  const json& m = body["messages"];
  CHECK(m[2]["role"] == "assistant");
  CHECK(m[2]["content"].is_null());
  CHECK(m[2]["tool_calls"][0] ==
        json{{"id", "call_a"}, {"type", "function"},
             {"function", {{"name", "read_file"}, {"arguments", R"({"path":"k.cu"})"}}}});
  CHECK(m[3] == json{{"role", "tool"}, {"tool_call_id", "call_a"}, {"content", "__global__ void k() {}"}});
  CHECK(m[4]["content"] == "Let me look.");
  CHECK(m[4]["tool_calls"][0]["function"]["arguments"] == "{\"path\": ");  // as the model wrote it
  o.max_tokens_field = "max_completion_tokens";
  o.stream = true;
  body = openai_request_body(r, o);
  CHECK(body["max_completion_tokens"] == 512);
  CHECK_FALSE(body.contains("max_tokens"));
  CHECK(body["stream"] == true);
  CHECK(body["stream_options"]["include_usage"] == true);
}

TEST_CASE("openai: malformed arguments are kept with the reason, not thrown", "[agents][openai]") {
  ScriptedServer server;
  Recorder rec;
  server.push(ScriptedReply::json_reply(200, tool_call_completion(R"({"path": "kernel.cu")")));
  server.push(ScriptedReply::json_reply(200, tool_call_completion(R"(["kernel.cu"])")));
  server.push(ScriptedReply::json_reply(200, tool_call_completion("")));
  OpenAiBackend backend(local_options(server, rec));
  auto a = backend.complete(sample_request()).tool_calls.at(0);
  CHECK(a.arguments.is_null());
  CHECK(a.raw_arguments == R"({"path": "kernel.cu")");
  CHECK_THAT(a.parse_error, Catch::Matchers::Contains("not valid JSON"));
  auto b = backend.complete(sample_request()).tool_calls.at(0);
  CHECK_THAT(b.parse_error, Catch::Matchers::Contains("not an object"));
  auto c = backend.complete(sample_request()).tool_calls.at(0);  // no arguments: an empty object
  CHECK(c.parse_error.empty());
  CHECK(c.arguments == json::object());
}

namespace {

// A stream with text, two tool calls whose fragments interleave, a finish reason, a usage
// chunk with empty choices, and [DONE].
const std::string tool_stream =
    "data: {\"model\":\"test-model\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"Ré\"}}]}\n\n"
    "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"sumé\"}}]}\n\n"
    ": keep-alive\n\n"
    "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"call_1\",\"type\":\"function\",\"function\":{\"name\":\"write_file\",\"arguments\":\"\"}}]}}]}\n\n"
    "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"{\\\"path\\\": \\\"k.cu\\\", \"}}]}}]}\n\n"
    "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":1,\"id\":\"call_2\",\"type\":\"function\",\"function\":{\"name\":\"evaluate\",\"arguments\":\"{}\"}}]}}]}\n\n"
    "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"\\\"content\\\": \\\"__global__ \\u00e9\\\"}\"}}]}}]}\n\n"
    "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}]}\n\n"
    "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":300,\"completion_tokens\":40}}\n\n"
    "data: [DONE]\n\n";

void check_tool_stream_result(const LlmResponse& r) {
  CHECK(r.text == "Résumé");
  CHECK(r.stop_reason == "tool_calls");
  CHECK(r.model == "test-model");
  REQUIRE(r.tool_calls.size() == 2);
  CHECK(r.tool_calls[0].id == "call_1");
  CHECK(r.tool_calls[0].name == "write_file");
  CHECK(r.tool_calls[0].arguments == json{{"path", "k.cu"}, {"content", "__global__ \xC3\xA9"}});
  CHECK(r.tool_calls[1].id == "call_2");
  CHECK(r.tool_calls[1].name == "evaluate");
  CHECK(r.tool_calls[1].arguments == json::object());
  CHECK(r.usage.input_tokens == 300);
  CHECK(r.usage.output_tokens == 40);
}

}  // namespace

TEST_CASE("openai: a stream split at every byte boundary assembles the same answer",
          "[agents][openai][stream]") {
  OpenAiStreamAccumulator whole;
  http::SseParser sse([&](const http::SseEvent& e) { whole.add(e.data); });
  sse.feed(tool_stream);
  const LlmResponse expected = whole.finish();
  check_tool_stream_result(expected);
  for (std::size_t cut = 1; cut < tool_stream.size(); ++cut) {
    OpenAiStreamAccumulator acc;
    http::SseParser split([&](const http::SseEvent& e) { acc.add(e.data); });
    split.feed(std::string_view(tool_stream).substr(0, cut));
    split.feed(std::string_view(tool_stream).substr(cut));
    INFO("cut at byte " << cut);
    REQUIRE(acc.finish() == expected);
  }
}

TEST_CASE("openai: streamed tool calls over the wire, in awkward pieces", "[agents][openai][stream]") {
  ScriptedServer server;
  Recorder rec;
  // Pieces cut inside "data:", inside a JSON string, inside a UTF-8 character (é is C3 A9),
  // and between the two newlines that end an event.
  std::vector<std::string> pieces;
  const std::size_t cuts[] = {3, 57, tool_stream.find("\xC3\xA9") + 1, tool_stream.find("\n\n") + 1, 700};
  std::size_t at = 0;
  std::vector<std::size_t> sorted(std::begin(cuts), std::end(cuts));
  std::sort(sorted.begin(), sorted.end());
  for (auto c : sorted) {
    pieces.push_back(tool_stream.substr(at, c - at));
    at = c;
  }
  pieces.push_back(tool_stream.substr(at));
  auto reply = ScriptedReply::sse(pieces);
  reply.gap = 3ms;
  server.push(reply);
  OpenAiBackend backend(local_options(server, rec, true));
  check_tool_stream_result(backend.complete(sample_request()));
  CHECK(server.requests().at(0).json_body()["stream"] == true);
}

TEST_CASE("openai: a stream that stops early is retried; an error chunk is classified",
          "[agents][openai][stream]") {
  ScriptedServer server;
  Recorder rec;
  server.push(ScriptedReply::sse({tool_stream.substr(0, 400)}));  // ends cleanly but early
  server.push(ScriptedReply::sse({tool_stream}));
  OpenAiBackend backend(local_options(server, rec, true));
  LlmResponse r = backend.complete(sample_request());
  check_tool_stream_result(r);
  CHECK(r.usage.requests == 2);
  CHECK(r.usage.failed_requests == 1);
  CHECK(rec.sleeps.size() == 1);

  server.push(ScriptedReply::sse({"data: {\"error\":{\"message\":\"This model's maximum context length is 4096 tokens\",\"type\":\"invalid_request_error\",\"code\":\"context_length_exceeded\"}}\n\n"}));
  auto e = catch_llm([&] { backend.complete(sample_request()); });
  CHECK(e.kind() == LlmErrorKind::context_overflow);
  CHECK_THAT(e.what(), Catch::Matchers::Contains("mid-stream"));
}

TEST_CASE("openai: retries honour retry-after and stop at the right errors", "[agents][openai][retry]") {
  ScriptedServer server;
  Recorder rec;
  OpenAiBackend backend(local_options(server, rec));

  SECTION("429 with retry-after, then retry-after-ms, then success") {
    auto limited = ScriptedReply::json_reply(429, {{"error", {{"message", "Rate limit reached"}, {"type", "requests"}, {"code", "rate_limit_exceeded"}}}});
    limited.headers.push_back({"retry-after", "2"});
    server.push(limited);
    limited.headers = {{"Content-Type", "application/json"}, {"retry-after-ms", "1234"}, {"retry-after", "2"}};
    server.push(limited);
    server.push(ScriptedReply::json_reply(200, text_completion("done")));
    auto r = backend.complete(sample_request());
    CHECK(r.text == "done");
    CHECK(rec.sleeps == std::vector<std::chrono::milliseconds>{2000ms, 1234ms});
    CHECK(r.usage.requests == 3);
    CHECK(r.usage.failed_requests == 2);
    REQUIRE(rec.log.size() == 2);
    CHECK_THAT(rec.log[0], Catch::Matchers::Contains("2000 ms"));
    rec.log.erase(rec.log.begin());
    CHECK_THAT(rec.log[0], Catch::Matchers::Contains("rate_limited") && Catch::Matchers::Contains("1234 ms"));
  }
  SECTION("500 then success, with backoff") {
    server.push(ScriptedReply::json_reply(500, {{"error", {{"message", "boom"}}}}));
    server.push(ScriptedReply::json_reply(200, text_completion("ok")));
    CHECK(backend.complete(sample_request()).text == "ok");
    REQUIRE(rec.sleeps.size() == 1);
    CHECK(rec.sleeps[0] >= 375ms);
    CHECK(rec.sleeps[0] <= 500ms);
  }
  SECTION("connection reset, then a truncated body, then success") {
    ScriptedReply reset;
    reset.fault = ScriptedReply::Fault::reset;
    server.push(reset);
    auto cut = ScriptedReply::json_reply(200, text_completion("never"));
    cut.fault = ScriptedReply::Fault::truncate;
    cut.truncate_at = 20;
    server.push(cut);
    server.push(ScriptedReply::json_reply(200, text_completion("third time")));
    auto r = backend.complete(sample_request());
    CHECK(r.text == "third time");
    CHECK(r.usage.requests == 3);
    CHECK(rec.sleeps.size() == 2);
    CHECK(rec.sleeps[1] >= 750ms);  // the second backoff step
  }
  SECTION("retries run out: the last error, with every attempt counted") {
    for (int i = 0; i < 3; ++i) server.push(ScriptedReply::json_reply(503, {{"error", {{"message", "unavailable"}}}}));
    auto e = catch_llm([&] { backend.complete(sample_request()); });
    CHECK(e.kind() == LlmErrorKind::http);
    CHECK(e.status() == 503);
    CHECK(e.billed().requests == 3);
    CHECK(e.billed().failed_requests == 3);
    CHECK_THAT(e.what(), Catch::Matchers::Contains("after 3 attempts") && Catch::Matchers::Contains("unavailable"));
    CHECK(server.requests().size() == 3);
  }
  SECTION("a spend-limit 429 is never retried") {
    server.push(ScriptedReply::json_reply(429, {{"error", {{"message", "You exceeded your current quota, please check your plan and billing details."}, {"type", "insufficient_quota"}, {"code", "insufficient_quota"}}}}));
    auto e = catch_llm([&] { backend.complete(sample_request()); });
    CHECK(e.kind() == LlmErrorKind::spend_limit);
    CHECK(e.status() == 429);
    CHECK(rec.sleeps.empty());
    CHECK(server.requests().size() == 1);
  }
  SECTION("a 400 is never retried") {
    server.push(ScriptedReply::json_reply(400, {{"error", {{"message", "Invalid schema for function 'x'"}, {"type", "invalid_request_error"}}}}));
    auto e = catch_llm([&] { backend.complete(sample_request()); });
    CHECK(e.kind() == LlmErrorKind::bad_request);
    CHECK(server.requests().size() == 1);
    CHECK_THAT(e.what(), Catch::Matchers::Contains("400") && Catch::Matchers::Contains("Invalid schema"));
  }
  SECTION("vLLM's flat error body and llama.cpp's overflow type are context overflows") {
    server.push(ScriptedReply::json_reply(400, {{"object", "error"}, {"message", "This model's maximum context length is 32768 tokens. However, you requested 40000 tokens."}, {"type", "BadRequestError"}, {"param", nullptr}, {"code", 400}}));
    server.push(ScriptedReply::json_reply(400, {{"error", {{"code", 400}, {"message", "the request exceeds the available context size, try increasing it"}, {"type", "exceed_context_size_error"}, {"n_prompt_tokens", 5000}, {"n_ctx", 4096}}}}));
    auto vllm = catch_llm([&] { backend.complete(sample_request()); });
    CHECK(vllm.kind() == LlmErrorKind::context_overflow);
    CHECK_THAT(vllm.what(), Catch::Matchers::Contains("32768"));
    auto llamacpp = catch_llm([&] { backend.complete(sample_request()); });
    CHECK(llamacpp.kind() == LlmErrorKind::context_overflow);
    CHECK(server.requests().size() == 2);
  }
  SECTION("malformed JSON in a 200 is a bad response") {
    ScriptedReply r;
    r.body = "{\"choices\": [";
    server.push(r);
    auto e = catch_llm([&] { backend.complete(sample_request()); });
    CHECK(e.kind() == LlmErrorKind::bad_response);
    CHECK_THAT(e.what(), Catch::Matchers::Contains("not valid JSON"));
  }
  SECTION("an oversized body is refused, not retried") {
    Recorder r2;
    auto o = local_options(server, r2);
    o.http.max_response_bytes = 4096;
    OpenAiBackend small(o);
    server.push(ScriptedReply::json_reply(200, text_completion(std::string(10000, 'x'))));
    auto e = catch_llm([&] { small.complete(sample_request()); });
    CHECK(e.kind() == LlmErrorKind::transport);
    CHECK_THAT(e.what(), Catch::Matchers::Contains("exceeds the cap of 4096"));
    CHECK(server.requests().size() == 1);
  }
  SECTION("a slow server times out, is retried, then gives up") {
    Recorder r2;
    auto o = local_options(server, r2);
    o.http.read_timeout = 200ms;
    o.retry.max_retries = 1;
    OpenAiBackend impatient(o);
    for (int i = 0; i < 2; ++i) {
      auto slow = ScriptedReply::json_reply(200, text_completion("late"));
      slow.delay = 2s;
      server.push(slow);
    }
    auto e = catch_llm([&] { impatient.complete(sample_request()); });
    CHECK(e.kind() == LlmErrorKind::transport);
    CHECK_THAT(e.what(), Catch::Matchers::Contains("timed out after 0.2 s"));
    CHECK(e.billed().requests == 2);
  }
}

namespace {

/// `text` in pieces of `piece` bytes.
std::vector<std::string> split_into(const std::string& text, std::size_t piece) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < text.size(); i += piece) out.push_back(text.substr(i, piece));
  return out;
}

/// A runaway answer is refused at the default cap while it arrives: the connection is closed
/// before the server could send the rest (so the client never held it), and it is not retried.
void check_refused_while_arriving(const ScriptedServer& server, const llm_error& e, std::size_t whole) {
  CHECK(e.kind() == LlmErrorKind::transport);
  CHECK_THAT(e.what(), Catch::Matchers::Contains("exceeds the cap of 8388608 bytes (8.0 MiB)") &&
                           Catch::Matchers::Contains("agent.http.max_response_bytes"));
  CHECK(server.requests().size() == 1);
  const auto sent = server.sent(0, 20s);
  REQUIRE(sent);
  CHECK_FALSE(sent->complete);
  CHECK(sent->body_bytes < whole / 2);
}

}  // namespace

TEST_CASE("openai: a 48 MiB answer sent slowly is refused at the 8 MiB cap as it arrives, plain or streamed",
          "[agents][openai][limits]") {
  ScriptedServer server;
  Recorder rec;
  const std::size_t whole = std::size_t(48) << 20;
  SECTION("a plain body, chunked, with no length announced") {
    const std::string body = text_completion(std::string(whole, 'x')).dump();
    ScriptedReply r;
    r.headers.push_back({"Content-Type", "application/json"});
    r.pieces = split_into(body, 64 * 1024);
    r.gap = 2ms;
    server.push(std::move(r));
    OpenAiBackend backend(local_options(server, rec));
    const auto began = std::chrono::steady_clock::now();
    auto e = catch_llm([&] { backend.complete(sample_request()); });
    CHECK(std::chrono::steady_clock::now() - began < 1500ms);  // the whole body takes over 1.5 s
    check_refused_while_arriving(server, e, whole);
  }
  SECTION("a stream whose text runs away") {
    const std::string event =
        "data: " + json{{"choices", {{{"index", 0}, {"delta", {{"content", std::string(64 * 1024, 'y')}}}}}}}.dump() + "\n\n";
    std::string stream;
    stream.reserve(whole + (std::size_t(1) << 20));
    while (stream.size() < whole) stream += event;
    auto r = ScriptedReply::sse(split_into(stream, 64 * 1024));
    r.gap = 2ms;
    server.push(std::move(r));
    OpenAiBackend backend(local_options(server, rec, true));
    auto e = catch_llm([&] { backend.complete(sample_request()); });
    check_refused_while_arriving(server, e, whole);
  }
  SECTION("the cap is the backend's setting") {
    Recorder r2;
    auto o = local_options(server, r2, true);
    o.max_response_bytes = 100 * 1024;
    std::string stream;
    for (int i = 0; i < 4; ++i)
      stream += "data: " + json{{"choices", {{{"index", 0}, {"delta", {{"content", std::string(40 * 1024, 'z')}}}}}}}.dump() + "\n\n";
    stream += "data: [DONE]\n\n";
    server.push(ScriptedReply::sse({stream}));
    OpenAiBackend small(o);
    auto e = catch_llm([&] { small.complete(sample_request()); });
    CHECK_THAT(e.what(), Catch::Matchers::Contains("exceeds the cap of 102400 bytes") &&
                             Catch::Matchers::Contains("122880 bytes assembled"));
  }
}

TEST_CASE("openai: authentication failures say where the key came from, never the key",
          "[agents][openai][secrets]") {
  ScriptedServer server;
  Recorder rec;
  const std::string secret = "sk-test-DO-NOT-LEAK-0123456789abcdef";
  ::setenv("SOCRATIC_TEST_OPENAI_KEY", secret.c_str(), 1);
  auto options = local_options(server, rec);
  options.api_key = ApiKey::from_environment("SOCRATIC_TEST_OPENAI_KEY");
  // The server echoes the key back, as some gateways do.
  server.push(ScriptedReply::json_reply(401, {{"error", {{"message", "Incorrect API key provided: " + secret}, {"type", "invalid_request_error"}, {"code", "invalid_api_key"}}}}));
  OpenAiBackend backend(options);
  auto e = catch_llm([&] { backend.complete(sample_request()); });
  ::unsetenv("SOCRATIC_TEST_OPENAI_KEY");
  CHECK(e.kind() == LlmErrorKind::authentication);
  CHECK(server.requests().at(0).header("authorization") == "Bearer " + secret);
  CHECK_THAT(e.what(), Catch::Matchers::Contains("SOCRATIC_TEST_OPENAI_KEY"));
  CHECK(std::string(e.what()).find(secret) == std::string::npos);
  CHECK(server.requests().size() == 1);
}

TEST_CASE("openai: a connection refused that persists is named within seconds, each retry observed",
          "[agents][openai][retry]") {
  ScriptedServer server;  // only for its options: the backend calls a port where nothing listens
  Recorder rec;
  OpenAiOptions o = local_options(server, rec);
  o.base_url = "http://127.0.0.1:1/v1";
  o.retry = http::RetryPolicy{};  // the default: retries for ten minutes
  std::vector<RetryNotice> seen;
  OpenAiBackend backend(o);
  backend.set_retry_observer([&seen](const RetryNotice& n) { seen.push_back(n); });
  auto e = catch_llm([&] { backend.complete(sample_request()); });
  CHECK(e.kind() == LlmErrorKind::transport);
  CHECK_THAT(e.what(), Catch::Matchers::Contains("nothing is listening on 127.0.0.1:1") &&
                           Catch::Matchers::Contains("refused 5 times in a row") &&
                           Catch::Matchers::Contains("is the model server running"));
  CHECK(e.billed().failed_requests == 5);
  REQUIRE(rec.sleeps.size() == 4);  // five attempts, four waits: 0.5, 1, 2, 4 s less jitter
  std::chrono::milliseconds waited{0};
  for (auto d : rec.sleeps) waited += d;
  CHECK(waited < 8s);
  // The observer saw each retry as it happened: the cause, the attempt, the wait.
  REQUIRE(seen.size() == 4);
  for (std::size_t i = 0; i < seen.size(); ++i) {
    CHECK(seen[i].attempt == static_cast<int>(i) + 1);
    CHECK(seen[i].kind == LlmErrorKind::transport);
    CHECK(seen[i].wait == rec.sleeps[i]);
    CHECK(seen[i].retry_time == 600'000ms);
    CHECK_THAT(seen[i].message, Catch::Matchers::Contains("connection refused"));
  }
  const json j = seen[1];
  CHECK(j["type"] == "retry");
  CHECK(j["cause"] == "transport");
  CHECK(j["attempt"] == 2);
  CHECK(j["wait_ms"] == rec.sleeps[1].count());

  SECTION("503s from a server that is starting are not refusals: retried as before") {
    rec.sleeps.clear();
    OpenAiOptions patient = local_options(server, rec);
    patient.retry = http::RetryPolicy{};
    patient.retry.max_refused_in_a_row = 2;
    server.push(ScriptedReply::json_reply(503, {{"error", {{"message", "starting"}}}}));
    server.push(ScriptedReply::json_reply(503, {{"error", {{"message", "starting"}}}}));
    server.push(ScriptedReply::json_reply(200, text_completion("up")));
    CHECK(OpenAiBackend(patient).complete(sample_request()).text == "up");  // 503s are not refusals
  }
}

TEST_CASE("openai: no key for a server elsewhere is refused at once, naming where it was looked for",
          "[agents][openai][secrets]") {
  const auto unset = ApiKey::from_environment("SOCRATIC_TEST_UNSET_VARIABLE");
  OpenAiOptions remote = OpenAiOptions::compatible("https://api.example.invalid/v1", unset);
  const auto began = std::chrono::steady_clock::now();
  CHECK_THROWS_WITH(OpenAiBackend(remote), Catch::Matchers::Contains("no API key for https://api.example.invalid") &&
                                               Catch::Matchers::Contains("SOCRATIC_TEST_UNSET_VARIABLE"));
  CHECK(std::chrono::steady_clock::now() - began < std::chrono::seconds(1));  // no call was tried
  CHECK_THROWS_WITH(OpenAiBackend(OpenAiOptions::compatible("https://api.example.invalid/v1")),
                    Catch::Matchers::Contains("none was given"));
  remote.remote_without_key = true;  // a keyless server elsewhere, said so
  CHECK_NOTHROW(OpenAiBackend(remote));
  // This machine's servers need none.
  for (const char* local : {"http://127.0.0.1:8000/v1", "http://localhost:8000/v1", "http://[::1]:8000/v1",
                            "http://127.1.2.3:9/v1"})
    CHECK_NOTHROW(OpenAiBackend(OpenAiOptions::compatible(local, unset)));
  CHECK(socratic::detail::is_loopback_host("model.localhost"));
  CHECK_FALSE(socratic::detail::is_loopback_host("127.0.0.1.example.com"));
  CHECK_FALSE(socratic::detail::is_loopback_host("10.0.0.5"));
}
