// LlmAgent's loop with a scripted in-process backend: tool round trips, what the model is told,
// budgets, backend failures, context shortening (the conversation and the trace keep outputs
// whole) and recovery from a context overflow.
#include "catch.hpp"

#include <deque>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "socratic/agents/llm_agent.hpp"
#include "test_util.hpp"

using namespace socratic;
using namespace socratic::testing;
namespace fs = std::filesystem;

namespace {

/// A backend that answers from a script and keeps every request: what a user-written backend
/// for tests looks like.
struct ScriptedBackend {
  using step = std::function<LlmResponse(const LlmRequest&)>;
  std::deque<step> script;
  std::vector<LlmRequest> requests;
  LlmResponse complete(const LlmRequest& r) {
    requests.push_back(r);
    if (script.empty()) throw llm_error(LlmErrorKind::bad_response, "script exhausted");
    step s = std::move(script.front());
    script.pop_front();
    return s(r);
  }
};
static_assert(LlmBackend<ScriptedBackend>);
static_assert(Agent<LlmAgent<ScriptedBackend>>);

ToolCall tc(std::string id, std::string name, json args) {
  ToolCall c;
  c.id = std::move(id);
  c.name = std::move(name);
  c.arguments = std::move(args);
  c.raw_arguments = c.arguments.dump();
  return c;
}

ScriptedBackend::step answer(std::string text, std::vector<ToolCall> calls = {}, long long in = 1000,
                             long long out = 50) {
  return [=](const LlmRequest&) {
    LlmResponse r;
    r.text = text;
    r.tool_calls = calls;
    r.stop_reason = calls.empty() ? "stop" : "tool_calls";
    r.usage.input_tokens = in;
    r.usage.output_tokens = out;
    r.usage.requests = 1;
    r.usage.cost_usd = 0.001;
    return r;
  };
}

/// Tools over a workspace, recording what the agent charges and records.
struct Harness {
  TempDir dir{"agent"};
  fs::path ws = dir.path / "ws";
  std::vector<std::string> charges;
  std::vector<json> records;
  std::vector<Usage> usages;
  int evaluations = 0;
  int charge_limit = 1000;
  bool usage_ok = true;
  Harness() {
    fs::create_directories(ws / "src");
    std::ofstream(ws / "src" / "kernel.cu") << "v0";
  }
  Tools tools() {
    return Tools(
        ws, Candidate{ws / "src" / "kernel.cu", "", ""},
        [this] {
          ++evaluations;
          EvaluateResult r;
          r.summary = "evaluation #" + std::to_string(evaluations) + ": all correct, geomean 1.30";
          return r;
        },
        [this](std::string_view t) {
          charges.emplace_back(t);
          return static_cast<int>(charges.size()) <= charge_limit;
        },
        [this](const Usage& u) {
          usages.push_back(u);
          return usage_ok;
        },
        [this](const json& e) { records.push_back(e); });
  }
  std::vector<json> records_of(const std::string& type) const {
    std::vector<json> out;
    for (const auto& r : records)
      if (r["type"] == type) out.push_back(r);
    return out;
  }
};

LlmAgentOptions options() {
  LlmAgentOptions o;
  o.model = "scripted";
  return o;
}

Message message(int turn, std::string text) {
  Message m;
  m.turn = turn;
  m.text = std::move(text);
  return m;
}

}  // namespace

TEST_CASE("agent: tools run, results go back, the turn ends on an answer", "[agents][agent]") {
  Harness h;
  ScriptedBackend backend;
  backend.script = {answer("Writing and measuring.",
                           {tc("c1", "write_file", {{"path", "src/kernel.cu"}, {"content", "v1"}}),
                            tc("c2", "evaluate", json::object())}),
                    answer("Done: 1.30x on every scenario.")};
  LlmAgent agent(std::move(backend), options());
  Tools tools = h.tools();
  TurnResult r = agent.turn(message(0, "Make it faster."), tools);

  CHECK(r.error.empty());
  CHECK(r.final_message == "Done: 1.30x on every scenario.");
  CHECK(r.tool_calls == 2);
  CHECK(r.usage.input_tokens == 2000);
  CHECK(r.usage.requests == 2);
  CHECK(r.usage.cost_usd == Approx(0.002));
  CHECK(h.usages.size() == 2);  // reported live, per call
  CHECK(h.charges == std::vector<std::string>{"write_file", "evaluate"});
  CHECK(h.evaluations == 1);

  const auto& reqs = agent.backend().requests;
  REQUIRE(reqs.size() == 2);
  CHECK(reqs[0].model == "scripted");
  CHECK(reqs[0].system == default_agent_system_prompt());
  CHECK(reqs[0].tools.size() == 6);
  REQUIRE(reqs[0].messages.size() == 1);
  CHECK(reqs[0].messages[0].content == "Make it faster.");
  const auto& m = reqs[1].messages;
  REQUIRE(m.size() == 4);
  CHECK(m[1].role == ChatRole::assistant);
  CHECK(m[1].tool_calls.size() == 2);
  CHECK(m[2].role == ChatRole::tool);
  CHECK(m[2].tool_call_id == "c1");
  CHECK(m[2].content == "wrote 2 bytes to src/kernel.cu");
  CHECK(m[3].tool_call_id == "c2");
  CHECK(m[3].content == "evaluation #1: all correct, geomean 1.30");

  auto exchanges = h.records_of("llm_exchange");
  REQUIRE(exchanges.size() == 2);
  CHECK(exchanges[0]["request_hash"] == llm_request_hash(reqs[0]));
  CHECK(exchanges[1]["request_hash"] == llm_request_hash(reqs[1]));
  CHECK(exchanges[1]["response"]["text"] == "Done: 1.30x on every scenario.");
  auto results = h.records_of("tool_result");
  REQUIRE(results.size() == 2);
  CHECK(results[0]["tool"] == "write_file");
  CHECK(results[0]["arguments"]["path"] == "src/kernel.cu");
  CHECK(results[1]["output"] == "evaluation #1: all correct, geomean 1.30");

  std::ifstream in(h.ws / "src" / "kernel.cu");
  std::string content((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK(content == "v1");
}

TEST_CASE("agent: the conversation continues across turns", "[agents][agent]") {
  Harness h;
  ScriptedBackend backend;
  backend.script = {answer("This is the hardware limit."), answer("Measured again: 1.4x.")};
  LlmAgent agent(std::move(backend), options());
  Tools t0 = h.tools();
  agent.turn(message(0, "Make it faster."), t0);
  Tools t1 = h.tools();
  TurnResult r = agent.turn(message(1, "Unmet: speedup >= 1.5.\nQuestion: Does the baseline win in cycles?"), t1);
  CHECK(r.final_message == "Measured again: 1.4x.");
  const auto& m = agent.backend().requests.at(1).messages;
  REQUIRE(m.size() == 3);
  CHECK(m[0].content == "Make it faster.");
  CHECK(m[1].content == "This is the hardware limit.");
  CHECK(m[2].content == "Unmet: speedup >= 1.5.\nQuestion: Does the baseline win in cycles?");
}

TEST_CASE("agent: malformed arguments are told to the model, not charged", "[agents][agent]") {
  Harness h;
  ToolCall broken;
  broken.id = "c1";
  broken.name = "write_file";
  broken.arguments = nullptr;
  broken.raw_arguments = "{\"path\": \"src/kernel.cu\", \"content\": \"v1";
  broken.parse_error = "the arguments are not valid JSON: unexpected end of input";
  ScriptedBackend backend;
  backend.script = {answer("", {broken}), answer("Retrying properly.", {tc("c2", "write_file", {{"path", "src/kernel.cu"}, {"content", "v1"}})}),
                    answer("ok")};
  LlmAgent agent(std::move(backend), options());
  Tools tools = h.tools();
  TurnResult r = agent.turn(message(0, "go"), tools);
  CHECK(r.tool_calls == 1);
  CHECK(h.charges == std::vector<std::string>{"write_file"});
  const auto& told = agent.backend().requests.at(1).messages.back();
  CHECK(told.role == ChatRole::tool);
  CHECK(told.is_error);
  CHECK_THAT(told.content, Catch::Matchers::Contains("could not be read") &&
                               Catch::Matchers::Contains("unexpected end of input"));
  CHECK(h.records_of("tool_result").at(0)["arguments"] == broken.raw_arguments);
}

TEST_CASE("agent: a spent budget stops the tools and ends the turn", "[agents][agent]") {
  SECTION("tool-call budget") {
    Harness h;
    h.charge_limit = 1;
    ScriptedBackend backend;
    backend.script = {answer("Three things.", {tc("a", "list_folder", json::object()),
                                               tc("b", "list_folder", json::object()),
                                               tc("c", "list_folder", json::object())}),
                      answer("never asked")};
    LlmAgent agent(std::move(backend), options());
    Tools tools = h.tools();
    TurnResult r = agent.turn(message(0, "go"), tools);
    CHECK(r.tool_calls == 1);
    CHECK(r.final_message == "Three things.");
    CHECK(agent.backend().requests.size() == 1);
    const auto& conv = agent.conversation();
    REQUIRE(conv.size() == 5);  // every call is answered, so the next request stays valid
    CHECK_THAT(conv[3].content, Catch::Matchers::Contains("not run"));
    CHECK_THAT(conv[4].content, Catch::Matchers::Contains("not run"));
  }
  SECTION("token budget") {
    Harness h;
    h.usage_ok = false;
    ScriptedBackend backend;
    backend.script = {answer("Reading.", {tc("a", "list_folder", json::object())})};
    LlmAgent agent(std::move(backend), options());
    Tools tools = h.tools();
    TurnResult r = agent.turn(message(0, "go"), tools);
    CHECK(r.tool_calls == 0);
    CHECK(h.charges.empty());
    CHECK(agent.conversation().back().content == "not run: a budget is spent; end your turn");
  }
}

TEST_CASE("agent: a backend failure ends the turn with the error and its billed usage",
          "[agents][agent]") {
  Harness h;
  ScriptedBackend backend;
  Usage billed;
  billed.requests = 3;
  billed.failed_requests = 3;
  billed.input_tokens = 700;
  backend.script = {[=](const LlmRequest&) -> LlmResponse {
    throw llm_error(LlmErrorKind::rate_limited, "429 after 3 attempts", 429, billed);
  }};
  LlmAgent agent(std::move(backend), options());
  Tools tools = h.tools();
  TurnResult r = agent.turn(message(0, "go"), tools);
  CHECK_THAT(r.error, Catch::Matchers::Contains("rate_limited") && Catch::Matchers::Contains("429"));
  CHECK(r.usage.requests == 3);
  CHECK(r.usage.input_tokens == 700);
  REQUIRE(h.usages.size() == 1);
  CHECK(h.usages[0].failed_requests == 3);
  auto ex = h.records_of("llm_exchange");
  REQUIRE(ex.size() == 1);
  CHECK(ex[0]["error"]["kind"] == "rate_limited");
  CHECK(ex[0]["error"]["billed"]["input_tokens"] == 700);
}

namespace {

/// A backend that retries: it tells its observer of two retries before it answers.
struct RetryingBackend {
  retry_observer observer;
  int calls = 0;
  void set_retry_observer(retry_observer o) { observer = std::move(o); }
  LlmResponse complete(const LlmRequest& r) {
    ++calls;
    for (int attempt = 1; attempt <= 2; ++attempt)
      if (observer)
        observer(RetryNotice{"POST http://127.0.0.1:8000/v1/chat/completions", LlmErrorKind::overloaded, 529, attempt,
                             std::chrono::milliseconds(500 * attempt), std::chrono::milliseconds(700 * (attempt - 1)),
                             std::chrono::milliseconds(600'000), "answered 529: Overloaded"});
    return answer("done")(r);
  }
};
static_assert(LlmBackend<RetryingBackend>);

}  // namespace

TEST_CASE("agent: each retry of the backend is recorded in the trace as it happens, within its turn only",
          "[agents][agent][retry]") {
  Harness h;
  LlmAgent agent(RetryingBackend{}, options());
  {
    Tools tools = h.tools();
    CHECK(agent.turn(message(0, "go"), tools).final_message == "done");
  }
  const auto retries = h.records_of("retry");
  REQUIRE(retries.size() == 2);
  CHECK(retries[0]["cause"] == "overloaded");
  CHECK(retries[0]["status"] == 529);
  CHECK(retries[0]["attempt"] == 1);
  CHECK(retries[0]["wait_ms"] == 500);
  CHECK(retries[1]["attempt"] == 2);
  CHECK(retries[1]["spent_s"] == 0.7);
  CHECK(retries[1]["retry_time_s"] == 600.0);
  CHECK_THAT(retries[1]["message"].get<std::string>(), Catch::Matchers::Contains("Overloaded"));
  // The records come before the exchange they delayed, in the order they happened.
  std::vector<std::string> order;
  for (const auto& r : h.records)
    if (r["type"] == "retry" || r["type"] == "llm_exchange") order.push_back(r["type"]);
  CHECK(order == std::vector<std::string>{"retry", "retry", "llm_exchange"});
  // Between turns the backend holds no observer: the turn's Tools are gone.
  CHECK_FALSE(agent.backend().observer);
}

TEST_CASE("agent: a backend that cannot even send (bad configuration) ends the turn, not the process",
          "[agents][agent]") {
  Harness h;
  ScriptedBackend backend;
  backend.script = {[](const LlmRequest&) -> LlmResponse {
    throw input_error({}, "HTTPS_PROXY", "unsupported scheme \"socks5\"");
  }};
  LlmAgent agent(std::move(backend), options());
  Tools tools = h.tools();
  TurnResult r = agent.turn(message(0, "go"), tools);
  CHECK_THAT(r.error, Catch::Matchers::Contains("HTTPS_PROXY") && Catch::Matchers::Contains("socks5"));
}

namespace {

void write_big_file(const fs::path& p, char c) {
  std::ofstream(p) << std::string(4000, c) << "\n";
}

bool is_shortened(const ChatMessage& m) {
  return m.content.find("omitted to save context") != std::string::npos;
}

}  // namespace

TEST_CASE("agent: old tool outputs are shortened near the window; the trace keeps them whole",
          "[agents][agent][context]") {
  Harness h;
  for (char c : {'a', 'b', 'c'}) write_big_file(h.ws / (std::string(1, c) + ".txt"), c);
  ScriptedBackend backend;
  backend.script = {answer("", {tc("1", "read_file", {{"path", "a.txt"}})}, 0, 0),
                    answer("", {tc("2", "read_file", {{"path", "b.txt"}})}, 0, 0),
                    answer("", {tc("3", "read_file", {{"path", "c.txt"}})}, 0, 0),
                    answer("read them all", {}, 0, 0)};
  auto o = options();
  o.system_prompt = "short";
  o.tool_specs = std::vector<ToolSpec>{AgentToolbox::specs().at(0)};  // read_file only: a small request
  o.context_window = 3000;  // tokens; about 8 KiB of text at 3.5 characters per token
  o.max_tokens = 500;
  o.keep_recent_tool_outputs = 1;
  o.shortened_keep_chars = 100;
  LlmAgent agent(std::move(backend), o);
  Tools tools = h.tools();
  TurnResult r = agent.turn(message(0, "read the files"), tools);
  CHECK(r.final_message == "read them all");

  const auto& reqs = agent.backend().requests;
  REQUIRE(reqs.size() == 4);
  CHECK_FALSE(is_shortened(reqs[1].messages[2]));  // one output: fits
  const auto& last = reqs[3].messages;
  REQUIRE(last.size() == 7);
  CHECK(is_shortened(last[2]));        // a.txt: oldest, shortened
  CHECK(is_shortened(last[4]));        // b.txt
  CHECK_FALSE(is_shortened(last[6]));  // c.txt: newest, whole
  CHECK(last[2].content.size() < 400);
  CHECK(last[2].content.rfind("aaaa", 0) == 0);  // head and tail kept

  CHECK(agent.conversation()[2].content.size() == 4001);  // the agent's memory is whole
  CHECK(h.records_of("tool_result").at(0)["output"].get<std::string>().size() == 4001);
  auto shortened = h.records_of("context_shortened");
  REQUIRE_FALSE(shortened.empty());
  CHECK(shortened[0]["estimated_tokens_before"].get<long long>() > shortened[0]["limit"].get<long long>());
}

TEST_CASE("agent: a runaway model answer is kept up to max_answer_bytes, and the trace says how much was dropped",
          "[agents][agent][context]") {
  Harness h;
  ScriptedBackend backend;
  backend.script = {answer(std::string(5000, 'y'), {}, 0, 0)};
  auto o = options();
  o.max_answer_bytes = 1000;
  LlmAgent agent(std::move(backend), o);
  Tools tools = h.tools();
  const TurnResult r = agent.turn(message(0, "go"), tools);
  CHECK(r.error.empty());
  CHECK(r.final_message.size() < 1200);
  CHECK_THAT(r.final_message, Catch::Matchers::StartsWith(std::string(1000, 'y')) &&
                                  Catch::Matchers::Contains("4000 more bytes of this answer were dropped"));
  CHECK(agent.conversation().back().content == r.final_message);
  const auto ex = h.records_of("llm_exchange");
  REQUIRE(ex.size() == 1);
  CHECK(ex[0]["answer_dropped_bytes"] == 4000);
  CHECK(ex[0]["response"]["text"].get<std::string>().size() < 1200);
}

TEST_CASE("agent: a context overflow from the server shortens old outputs and retries once",
          "[agents][agent][context]") {
  Harness h;
  for (char c : {'a', 'b'}) write_big_file(h.ws / (std::string(1, c) + ".txt"), c);
  ScriptedBackend backend;
  backend.script = {answer("", {tc("1", "read_file", {{"path", "a.txt"}})}, 0, 0),
                    answer("", {tc("2", "read_file", {{"path", "b.txt"}})}, 0, 0),
                    [](const LlmRequest&) -> LlmResponse {
                      throw llm_error(LlmErrorKind::context_overflow, "prompt is too long", 400);
                    },
                    answer("fits now", {}, 0, 0)};
  auto o = options();
  o.context_window = 4000;
  o.max_tokens = 500;
  o.shorten_at = 10.0;  // never shorten ahead of time: only the server's complaint triggers it
  LlmAgent agent(std::move(backend), o);
  Tools tools = h.tools();
  TurnResult r = agent.turn(message(0, "go"), tools);
  CHECK(r.error.empty());
  CHECK(r.final_message == "fits now");
  const auto& reqs = agent.backend().requests;
  REQUIRE(reqs.size() == 4);
  CHECK_FALSE(is_shortened(reqs[2].messages[2]));
  CHECK(is_shortened(reqs[3].messages[2]));
  CHECK_FALSE(is_shortened(reqs[3].messages[4]));
  auto ex = h.records_of("llm_exchange");
  REQUIRE(ex.size() == 4);
  CHECK(ex[2]["error"]["kind"] == "context_overflow");

  SECTION("overflows that shortening cannot cure end the turn, naming the message too large to fit") {
    ScriptedBackend b2;
    auto fail = [](const LlmRequest&) -> LlmResponse {
      throw llm_error(LlmErrorKind::context_overflow, "prompt is too long", 400);
    };
    b2.script = {answer("", {tc("1", "read_file", {{"path", "a.txt"}})}, 0, 0),
                 answer("", {tc("2", "read_file", {{"path", "b.txt"}})}, 0, 0), fail, fail, fail, fail, fail, fail};
    LlmAgent again(std::move(b2), o);
    Tools t2 = h.tools();
    TurnResult r2 = again.turn(message(3, "go"), t2);
    // The campaign's turn number (the one the progress lines show), not the agent's own count.
    CHECK_THAT(r2.error, Catch::Matchers::Contains("context_overflow") &&
                             Catch::Matchers::Contains("of turn 3 (model scripted) failed") &&
                             Catch::Matchers::Contains("could not make the request") &&
                             Catch::Matchers::Contains("its largest message, a tool output") &&
                             Catch::Matchers::Contains("the server did not state its window"));
    CHECK_THAT(r2.error, !Catch::Matchers::Contains("agent.context_window"));
  }
  SECTION("a model answer too large for the server's stated window is named as the cause") {
    ScriptedBackend b3;
    auto fail = [](const LlmRequest&) -> LlmResponse {
      throw llm_error(LlmErrorKind::context_overflow,
                      "This model's maximum context length is 8192 tokens. However, you requested 140000 tokens", 400);
    };
    b3.script = {answer(std::string(400000, 'x'), {tc("1", "read_file", {{"path", "a.txt"}})}, 0, 0),
                 fail, fail, fail, fail, fail, fail};
    LlmAgent big(std::move(b3), o);
    Tools t3 = h.tools();
    TurnResult r3 = big.turn(message(0, "go"), t3);
    CHECK_THAT(r3.error, Catch::Matchers::Contains("its largest message, the model's own answer (message 2 of 3)") &&
                             Catch::Matchers::Contains("the server states a window of 8192 tokens"));
    CHECK_THAT(r3.error, !Catch::Matchers::Contains("window assumed was 1024"));
  }
}

namespace {

/// A model behind a server with a small window that it states only in its refusals (as
/// llama.cpp does), or not at all: requests estimated above it (4 characters a token, plus the
/// output limit) are refused with 400. It reads the files a.txt to d.txt, one per step, then
/// answers.
struct SmallWindowBackend {
  long long window = 6000;
  bool states_window = true;
  int refusals = 0;
  std::vector<LlmRequest> requests;
  LlmResponse complete(const LlmRequest& r) {
    requests.push_back(r);
    std::size_t chars = r.system.size();
    for (const auto& t : r.tools) chars += t.description.size() + t.parameters.dump().size();
    std::size_t results = 0;
    for (const auto& m : r.messages) {
      chars += m.content.size() + 16;
      if (m.role == ChatRole::tool) ++results;
    }
    if (static_cast<long long>(chars / 4) + r.max_tokens > window) {
      ++refusals;
      throw llm_error(LlmErrorKind::context_overflow,
                      states_window ? "the request exceeds the available context size [n_ctx " + std::to_string(window) + "]"
                                    : std::string("prompt is too long"),
                      400);
    }
    const std::string file(1, static_cast<char>('a' + results));
    if (results < 4) return answer("", {tc(file, "read_file", {{"path", file + ".txt"}})}, 0, 0)(r);
    return answer("read them all", {}, 0, 0)(r);
  }
};
static_assert(LlmBackend<SmallWindowBackend>);

}  // namespace

TEST_CASE("agent: a model with a small window, unknown to the agent, is learned and the campaign goes on",
          "[agents][agent][context]") {
  Harness h;
  for (char c : {'a', 'b', 'c', 'd'}) write_big_file(h.ws / (std::string(1, c) + ".txt"), c);
  for (const bool states : {true, false}) {
    DYNAMIC_SECTION((states ? "the server states its window" : "the server states nothing")) {
      SmallWindowBackend backend;
      backend.states_window = states;
      LlmAgent agent(std::move(backend), options());  // the default window (128k) and output limit (8192)
      Tools tools = h.tools();
      TurnResult r = agent.turn(message(0, "read the four files"), tools);
      INFO("error: " << r.error);
      CHECK(r.error.empty());
      CHECK(r.final_message == "read them all");
      CHECK(agent.backend().refusals >= 1);
      CHECK(agent.backend().requests.back().max_tokens <= 1500);  // the output limit now fits the window
      const auto learned = h.records_of("context_shortened");
      REQUIRE_FALSE(learned.empty());
      CHECK(learned[0]["after_overflow"] == true);
      if (states) CHECK(learned[0]["window"] == 6000);
      // The same window given up front (campaign file: agent.context_window): no refusal at all.
      SmallWindowBackend told;
      auto o = options();
      o.context_window = 6000;
      LlmAgent informed(std::move(told), o);
      Tools t2 = h.tools();
      CHECK(informed.turn(message(0, "read the four files"), t2).final_message == "read them all");
      CHECK(informed.backend().refusals == 0);
    }
  }
}

TEST_CASE("agent: a turn that never ends on its own is ended at the step limit", "[agents][agent]") {
  Harness h;
  ScriptedBackend backend;
  for (int i = 0; i < 5; ++i) backend.script.push_back(answer("", {tc(std::to_string(i), "list_folder", json::object())}));
  auto o = options();
  o.max_steps_per_turn = 3;
  LlmAgent agent(std::move(backend), o);
  Tools tools = h.tools();
  TurnResult r = agent.turn(message(0, "go"), tools);
  CHECK(r.tool_calls == 3);
  CHECK_THAT(r.final_message, Catch::Matchers::Contains("3 model calls"));
}

TEST_CASE("agent: a judge edited through the shell ends the turn; a writable judge is refused",
          "[agents][agent][judge]") {
  Harness h;
  const fs::path judge = h.dir.path / "judge";
  fs::create_directories(judge);
  std::ofstream(judge / "reference.cu") << "the reference";
  auto o = options();
  o.judge_paths = {judge};

  SECTION("the shell's sandbox refuses the edit") {
    ScriptedBackend backend;
    backend.script = {answer("", {tc("1", "run_shell", {{"command", "echo faster >> ../judge/reference.cu"}})}),
                      answer("Done.")};
    LlmAgent agent(std::move(backend), o);
    Tools tools = h.tools();
    TurnResult r = agent.turn(message(0, "go"), tools);
    CHECK(r.error.empty());
    const auto shell = h.records_of("tool_result").at(0);
    CHECK(shell["is_error"] == true);
    // Under /tmp (the sandbox's own, empty) the judge is not even there; elsewhere it is read-only.
    CHECK_THAT(shell["output"].get<std::string>(), Catch::Matchers::Contains("Read-only file system") ||
                                                       Catch::Matchers::Contains("No such file or directory"));
    CHECK(h.records_of("shell_sandbox").at(0)["kind"] == "bubblewrap");
    std::ifstream in(judge / "reference.cu");
    CHECK(std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>()) == "the reference");
  }
  SECTION("without the sandbox (the user's choice, recorded), tampering is detected after the turn") {
    o.tools.sandbox.kind = ShellSandboxKind::none;
    ScriptedBackend backend;
    backend.script = {answer("", {tc("1", "run_shell", {{"command", "echo faster >> ../judge/reference.cu"}})}),
                      answer("Done.")};
    LlmAgent agent(std::move(backend), o);
    Tools tools = h.tools();
    TurnResult r = agent.turn(message(0, "go"), tools);
    CHECK_THAT(r.error, Catch::Matchers::Contains("judge's files changed") &&
                            Catch::Matchers::Contains(("modified: " + (judge / "reference.cu").string()).c_str()));
    REQUIRE(h.records_of("judge_modified").size() == 1);
    const auto box = h.records_of("shell_sandbox").at(0);
    CHECK(box["kind"] == "none");
    CHECK_THAT(box["warning"].get<std::string>(), Catch::Matchers::Contains("by the user's choice"));
  }
  SECTION("a sandbox that cannot be had ends the first turn with the reason, before any model call") {
    o.tools.sandbox.bwrap = "/nonexistent/bwrap";
    ScriptedBackend backend;
    backend.script = {answer("Done.")};
    LlmAgent agent(backend, o);
    Tools tools = h.tools();
    TurnResult r = agent.turn(message(0, "go"), tools);
    CHECK_THAT(r.error, Catch::Matchers::Contains("cannot be sandboxed") &&
                            Catch::Matchers::Contains("is not installed") && Catch::Matchers::Contains("\"none\""));
    CHECK(agent.backend().requests.empty());
    CHECK(h.records_of("shell_sandbox").at(0).contains("problem"));
  }
  SECTION("an untouched judge passes") {
    ScriptedBackend backend;
    backend.script = {answer("", {tc("1", "run_shell", {{"command", "cat ../judge/reference.cu"}})}), answer("Done.")};
    LlmAgent agent(std::move(backend), o);
    Tools tools = h.tools();
    CHECK(agent.turn(message(0, "go"), tools).error.empty());
  }
  SECTION("a judge inside the workspace must be read-only") {
    fs::create_directories(h.ws / "harness");
    std::ofstream(h.ws / "harness" / "runner.cu") << "runner";
    o.judge_paths = {h.ws / "harness"};
    ScriptedBackend backend;
    backend.script = {answer("Done.")};
    LlmAgent agent(backend, o);
    Tools tools = h.tools();
    TurnResult r = agent.turn(message(0, "go"), tools);
    CHECK_THAT(r.error, Catch::Matchers::Contains("inside the workspace and is not read-only"));
    o.tools.read_only = {"harness"};
    LlmAgent guarded(backend, o);
    Tools t2 = h.tools();
    CHECK(guarded.turn(message(0, "go"), t2).error.empty());
  }
}
