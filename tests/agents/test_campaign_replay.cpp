// Whole campaigns: LlmAgent with the OpenAI-compatible backend against the scripted loopback
// server and a prepared evaluator reaches its goal; the trace it leaves replays the campaign
// exactly without a server, and a replay that diverges fails loudly; no key reaches the trace.
#include "catch.hpp"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "loopback_server.hpp"
#include "socratic/agents/llm_agent.hpp"
#include "socratic/agents/openai_backend.hpp"
#include "socratic/agents/replay_backend.hpp"
#include "socratic/socratic.hpp"
#include "test_files.hpp"
#include "test_util.hpp"

using namespace socratic;
using namespace socratic::testing;
namespace fs = std::filesystem;

namespace {

/// An evaluator that returns a prepared report for each candidate content (speedup of both
/// scenarios; an unknown content fails to build).
struct PreparedEvaluator {
  std::map<std::string, double> speedup_of;
  int calls = 0;
  EvalReport evaluate(const Candidate& c) {
    ++calls;
    EvalReport r;
    r.problem = "toy";
    r.candidate = c;
    r.expected = {"a", "b"};
    auto it = speedup_of.find(socratic::test::read_text(c.source));
    if (it == speedup_of.end()) {
      r.build_log = "error: unknown candidate";
      return r;
    }
    r.built = true;
    for (const char* id : {"a", "b"}) {
      ScenarioResult s;
      s.id = id;
      s.correct = true;
      s.speedup = it->second;
      s.candidate_ms = 1.0 / it->second;
      s.baseline_ms = 1.0;
      r.scenarios.push_back(s);
    }
    return r;
  }
};
static_assert(Evaluator<PreparedEvaluator>);
static_assert(Agent<LlmAgent<OpenAiBackend>>);
static_assert(Agent<LlmAgent<ReplayBackend>>);

struct FixedQuestions {
  std::optional<Question> ask(const TriggerEvent& e, const CampaignState&) {
    Question q;
    q.trigger = e.trigger;
    if (e.trigger == Trigger::start) {
      q.id = "start-bound";
      q.text = "What bounds this kernel: memory or compute?";
    } else {
      q.id = "limit-evidence";
      q.text = "Which measurement shows the limit you named?";
    }
    return q;
  }
};

using call_spec = std::tuple<std::string, std::string, json>;  // id, tool, arguments

json completion(const std::string& text, const std::vector<call_spec>& calls = {}) {
  json message = {{"role", "assistant"}, {"content", text.empty() ? json(nullptr) : json(text)}};
  if (!calls.empty()) {
    message["tool_calls"] = json::array();
    for (const auto& [id, name, args] : calls)
      message["tool_calls"].push_back(
          {{"id", id}, {"type", "function"}, {"function", {{"name", name}, {"arguments", args.dump()}}}});
  }
  return {{"model", "test-model"},
          {"choices", {{{"index", 0}, {"message", message}, {"finish_reason", calls.empty() ? "stop" : "tool_calls"}}}},
          {"usage", {{"prompt_tokens", 900}, {"completion_tokens", 60}}}};
}

/// The model's side of a two-turn campaign: it claims a limit at 1.1x, is sent back with a
/// question, and reaches 1.3x.
void script_two_turns(ScriptedServer& server) {
  server.push(ScriptedReply::json_reply(200, completion("Reading the kernel first.", {{"c1", "read_file", {{"path", "src/kernel.cu"}}}})));
  server.push(ScriptedReply::json_reply(200, completion("", {{"c2", "write_file", {{"path", "src/kernel.cu"}, {"content", "v1"}}},
                                                             {"c3", "evaluate", json::object()}})));
  server.push(ScriptedReply::json_reply(200, completion("1.1x: this is the hardware limit.")));
  server.push(ScriptedReply::json_reply(200, completion("Measuring did show room.", {{"c4", "replace_in_file", {{"path", "src/kernel.cu"}, {"old", "v1"}, {"new", "v2"}}},
                                                                                   {"c5", "evaluate", json::object()}})));
  server.push(ScriptedReply::json_reply(200, completion("Done: 1.3x on every scenario.")));
}

struct CampaignSetup {
  TempDir dir;
  fs::path ws, state;
  CampaignConfig config;
  PreparedEvaluator evaluator;
  FixedQuestions questions;
  explicit CampaignSetup(const std::string& name) : dir(name) {
    ws = dir.path / "workspace";
    state = dir.path / "state";
    fs::create_directories(ws / "src");
    std::ofstream(ws / "src" / "kernel.cu") << "v0";
    config.task = "Make the kernel at least 1.2x faster than the baseline on every scenario.";
    config.workspace = ws;
    config.candidate.source = ws / "src" / "kernel.cu";
    config.state_dir = state;
    config.scenario_ids = {"a", "b"};
    config.budget.turns = 5;
    evaluator.speedup_of = {{"v0", 1.0}, {"v1", 1.1}, {"v2", 1.3}};
  }
  fs::path trace() const { return state / "trace.jsonl"; }
};

auto goal() { return goals::all_of(goals::all_correct{}, goals::every_scenario_speedup_at_least{1.2}); }

LlmAgentOptions agent_options() {
  LlmAgentOptions o;
  o.model = "test-model";
  return o;
}

OpenAiOptions backend_options(const ScriptedServer& server) {
  OpenAiOptions o = OpenAiOptions::compatible(server.url() + "/v1");
  o.http.proxy = {};
  o.prices = PriceTable{};
  o.prices.set("test-model", ModelPrice{2.0, 8.0, std::nullopt, std::nullopt});
  return o;
}

/// The agent events of one type from a trace, in order.
std::vector<json> agent_events(const fs::path& trace, const std::string& type) {
  std::vector<json> out;
  for (const auto& ev : read_trace(trace).events)
    if (ev["type"] == "agent_event" && ev["event"]["type"] == type) out.push_back(ev["event"]);
  return out;
}

}  // namespace

TEST_CASE("campaign: LlmAgent against the scripted server reaches the goal", "[agents][campaign]") {
  ScriptedServer server;
  script_two_turns(server);
  CampaignSetup s("campaign_live");
  LlmAgent agent(OpenAiBackend(backend_options(server)), agent_options());
  Campaign campaign(agent, s.evaluator, s.questions, goal(), s.config);
  CampaignResult result = campaign.run();

  CHECK(result.goal_met);
  CHECK(result.reason == StopReason::goal_met);
  CHECK(result.turns == 2);
  CHECK(socratic::test::read_text(s.ws / "src" / "kernel.cu") == "v2");
  CHECK(server.unused_replies() == 0);
  // Two by the agent; each stop check found the content the agent had just measured, and repeated
  // that judgement instead of measuring again.
  CHECK(s.evaluator.calls == 2);
  CHECK(result.spent.tokens == 5 * 960);
  CHECK(result.spent.cost_usd == Approx(5 * (900 * 2.0 + 60 * 8.0) / 1e6));

  const auto reqs = server.requests();
  REQUIRE(reqs.size() == 5);
  const json first = reqs[0].json_body()["messages"];
  CHECK_THAT(first[1]["content"].get<std::string>(),
             Catch::Matchers::Contains("at least 1.2x") && Catch::Matchers::Contains("Question (start): What bounds this kernel"));
  const json third = reqs[2].json_body()["messages"];
  CHECK(third[3]["content"] == "v0");  // read_file's result
  CHECK_THAT(third[6]["content"].get<std::string>(), Catch::Matchers::Contains("a: ok speedup 1.100"));
  // Turn 1 opens with the campaign's verdict and the question for the claimed limit.
  const json fourth = reqs[3].json_body()["messages"];
  const std::string sent_back = fourth.back()["content"];
  CHECK_THAT(sent_back, Catch::Matchers::Contains("does not hold") &&
                            Catch::Matchers::Contains("Question (claimed_limit): Which measurement shows the limit you named?") &&
                            Catch::Matchers::Contains("has not changed since evaluation #0"));

  auto exchanges = agent_events(s.trace(), "llm_exchange");
  REQUIRE(exchanges.size() == 5);
  auto results = agent_events(s.trace(), "tool_result");
  REQUIRE(results.size() == 5);
  CHECK(results[0]["output"] == "v0");
}

TEST_CASE("replay: a recorded campaign is reproduced exactly, without a server; divergence fails loudly",
          "[agents][replay]") {
  CampaignSetup live("replay_source");
  {
    ScriptedServer server;
    script_two_turns(server);
    LlmAgent agent(OpenAiBackend(backend_options(server)), agent_options());
    Campaign campaign(agent, live.evaluator, live.questions, goal(), live.config);
    REQUIRE(campaign.run().goal_met);
  }  // the server is gone: the replay cannot reach it

  SECTION("same inputs: same campaign") {
    CampaignSetup again("replay_same");
    LlmAgent agent(ReplayBackend::from_trace(live.trace()), agent_options());
    Campaign campaign(agent, again.evaluator, again.questions, goal(), again.config);
    CampaignResult result = campaign.run();
    CHECK(result.goal_met);
    CHECK(result.turns == 2);
    CHECK(agent.backend().remaining() == 0);
    CHECK(socratic::test::read_text(again.ws / "src" / "kernel.cu") == "v2");
    const auto recorded = agent_events(live.trace(), "llm_exchange");
    const auto replayed = agent_events(again.trace(), "llm_exchange");
    REQUIRE(replayed.size() == recorded.size());
    for (std::size_t i = 0; i < recorded.size(); ++i) {
      INFO("exchange " << i);
      CHECK(replayed[i]["request_hash"] == recorded[i]["request_hash"]);
      CHECK(replayed[i]["response"] == recorded[i]["response"]);
    }
    const auto live_tools = agent_events(live.trace(), "tool_result");
    const auto replay_tools = agent_events(again.trace(), "tool_result");
    REQUIRE(replay_tools.size() == live_tools.size());
    for (std::size_t i = 0; i < live_tools.size(); ++i) CHECK(replay_tools[i]["output"] == live_tools[i]["output"]);
    CHECK(result.spent.tokens == 5 * 960);  // recorded usage counts again: budgets replay too
  }
  SECTION("a different evaluation: the replay stops at the first unrecorded request") {
    CampaignSetup diverged("replay_diverged");
    diverged.evaluator.speedup_of["v1"] = 1.15;  // the evaluate tool now says something else
    LlmAgent agent(ReplayBackend::from_trace(live.trace()), agent_options());
    Campaign campaign(agent, diverged.evaluator, diverged.questions, goal(), diverged.config);
    CampaignResult result = campaign.run();
    CHECK(result.reason == StopReason::agent_error);
    const json ended = read_trace(diverged.trace()).events.back();
    REQUIRE(ended["type"] == "campaign_ended");
    const std::string detail = ended["detail"];
    CHECK_THAT(detail, Catch::Matchers::Contains("replay_miss") &&
                           Catch::Matchers::Contains("no recorded answer for request") &&
                           Catch::Matchers::Contains("#2 in turn 0") &&
                           Catch::Matchers::Contains(agent_events(live.trace(), "llm_exchange")[2]["request_hash"].get<std::string>().c_str()));
  }
}

TEST_CASE("replay: recorded failures are replayed as failures; a file without exchanges is refused",
          "[agents][replay]") {
  LlmRequest req;
  req.model = "m";
  req.messages.push_back(msg(ChatRole::user, "hi"));
  RecordedExchange x;
  x.request_hash = llm_request_hash(req);
  x.error_kind = LlmErrorKind::spend_limit;
  x.error_status = 429;
  x.error_message = "quota";
  x.error_billed.requests = 1;
  ReplayBackend replay({x});
  auto e = catch_llm([&] { replay.complete(req); });
  CHECK(e.kind() == LlmErrorKind::spend_limit);
  CHECK(e.status() == 429);
  CHECK(e.billed().requests == 1);
  auto miss = catch_llm([&] { replay.complete(req); });  // each recording answers once
  CHECK(miss.kind() == LlmErrorKind::replay_miss);
  CHECK_THAT(miss.what(), Catch::Matchers::Contains("every recorded call has been answered"));

  TempDir dir("replay_empty");
  std::ofstream(dir.path / "t.jsonl") << R"({"type":"campaign_started"})" << "\n";
  CHECK_THROWS_WITH(ReplayBackend::from_trace(dir.path / "t.jsonl"), Catch::Matchers::Contains("no llm_exchange"));
  CHECK_THROWS_WITH(ReplayBackend::from_trace(dir.path / "none.jsonl"), Catch::Matchers::Contains("no such file"));

  // The hash covers everything that changes the answer.
  LlmRequest other = req;
  other.temperature = 0.5;
  CHECK(llm_request_hash(other) != llm_request_hash(req));
  other = req;
  other.tools.push_back({"t", "d", json::object()});
  CHECK(llm_request_hash(other) != llm_request_hash(req));
  CHECK(llm_request_hash(req) == llm_request_hash(LlmRequest(req)));
}

TEST_CASE("secrets: a key from a file reaches the server and nothing else", "[agents][secrets][campaign]") {
  CampaignSetup s("secrets");
  s.evaluator.speedup_of["v0"] = 1.3;  // the goal holds after one turn
  const std::string key = "sk-proj-SECRETfromFILE0123456789abcdef";
  std::ofstream(s.dir.path / "openai.key") << key << "\n";
  ::setenv("SOCRATIC_LEAK_PROBE", key.c_str(), 1);  // the same value under an innocent name

  ScriptedServer server;
  auto limited = ScriptedReply::json_reply(429, {{"error", {{"message", "Rate limit for key " + key}, {"type", "requests"}}}});
  limited.headers.push_back({"retry-after-ms", "10"});
  server.push(limited);
  server.push(ScriptedReply::json_reply(200, completion("", {{"c1", "run_shell", {{"command", "echo \"[$OPENAI_API_KEY][$SOCRATIC_LEAK_PROBE]\""}}}})));
  server.push(ScriptedReply::json_reply(200, completion("Finished. (My key is " + key + ".)")));

  std::vector<std::string> log;
  auto options = backend_options(server);
  options.api_key = ApiKey::from_file(s.dir.path / "openai.key");
  options.log = [&](std::string_view line) { log.emplace_back(line); };
  LlmAgent agent(OpenAiBackend(options), agent_options());
  Campaign campaign(agent, s.evaluator, s.questions, goal(), s.config);
  CampaignResult result = campaign.run();
  ::unsetenv("SOCRATIC_LEAK_PROBE");

  CHECK(result.goal_met);
  REQUIRE(server.requests().size() == 3);
  for (const auto& r : server.requests()) CHECK(r.header("authorization") == "Bearer " + key);
  REQUIRE(log.size() == 1);
  CHECK(log[0].find(key) == std::string::npos);
  const std::string trace = socratic::test::read_text(s.trace());
  CHECK(trace.find(key) == std::string::npos);
  CHECK(trace.find("[redacted]") != std::string::npos);  // the model's leak was caught
  const auto shell = agent_events(s.trace(), "tool_result").at(0)["output"].get<std::string>();
  CHECK_THAT(shell, Catch::Matchers::Contains("[][]"));
}
