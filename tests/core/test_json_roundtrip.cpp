#include "catch.hpp"

#include <cmath>

#include "socratic/core.hpp"
#include "socratic/agents/llm_types.hpp"

using namespace socratic;

namespace {

template <class T>
T round_trip(const T& value) {
  const std::string text = json(value).dump();
  return json::parse(text).get<T>();
}

EvalReport sample_report() {
  EvalReport r;
  r.problem = "attention";
  r.scenario_set = "attention_edge";
  r.candidate = Candidate{"/ws/candidate.cu", "v3", "abc123"};
  r.gpu = "NVIDIA H200";
  r.arch = "sm_90";
  r.built = true;
  r.build_log = "ok";
  r.expected = {"a", "b"};
  ScenarioResult a;
  a.id = "a";
  a.correct = true;
  a.max_abs_error = 1e-3;
  a.candidate_ms = 0.5;
  a.baseline_ms = 1.0;
  a.speedup = 2.0;
  a.samples = 30;
  a.flags = {"noisy"};
  ScenarioResult b;
  b.id = "b";
  b.correct = false;
  b.reason = "max error 0.3 > tolerance 0.01";
  r.scenarios = {a, b};
  r.banned = {{"cand.so", "cublas", "DT_NEEDED libcublas.so.13"}};
  r.timings.build_s = 1.5;
  r.timings.build_cached = true;
  return r;
}

}  // namespace

TEST_CASE("value types survive a JSON round trip", "[core][json]") {
  SECTION("EvalReport, with NaN fields written as null and read back as NaN") {
    const EvalReport r = sample_report();
    const EvalReport back = round_trip(r);
    CHECK(back.expected == r.expected);
    REQUIRE(back.scenarios.size() == 2);
    CHECK(back.scenarios[0].speedup == 2.0);
    CHECK(std::isnan(back.scenarios[1].speedup));
    CHECK(back.banned == r.banned);
    CHECK(back.timings == r.timings);
    CHECK(json(r)["schema_version"] == schema_version);
    CHECK(json::parse(json(r).dump())["geomean_speedup"].is_null());  // b has no speedup
  }
  SECTION("Verdict, Question, TriggerEvent, Message, TurnResult, Usage, Budget, Spent") {
    Verdict v = Verdict::fail({{"s1", "speedup", ">= 1.1", "0.9"}});
    CHECK(round_trip(v) == v);
    Question q{"mh-01", "memory", "Is the kernel reading K twice?", "ncu dram bytes",
               Trigger::plateau, "no gain in 5 evaluations"};
    CHECK(round_trip(q) == q);
    TriggerEvent e{Trigger::suspicious_gain, "gain", "3x jump", 40, {{"factor", 3.0}}};
    CHECK(round_trip(e) == e);
    Message m{2, "text", q, v, true};
    CHECK(round_trip(m) == m);
    Message bare{0, "start", std::nullopt, std::nullopt, false};
    CHECK(round_trip(bare) == bare);
    TurnResult t{"done", 4, Usage{10, 20, 0, 0, 0.01, 2, 1}, ""};
    CHECK(round_trip(t) == t);
    Budget b;
    b.turns = 3;
    b.cost_usd = 1.5;
    CHECK(round_trip(b) == b);
    Spent s{1, 2, 3, 2, 400, 5.5, 0.2};
    CHECK(round_trip(s) == s);
  }
  SECTION("LLM vocabulary") {
    LlmRequest req;
    req.model = "m";
    req.system = "sys";
    req.messages = {ChatMessage{ChatRole::user, "hi", {}, "", false},
                    ChatMessage{ChatRole::assistant, "", {ToolCall{"c1", "read_file", {{"path", "a"}}, "{\"path\":\"a\"}", ""}}, "", false},
                    ChatMessage{ChatRole::tool, "contents", {}, "c1", true}};
    req.tools = {ToolSpec{"read_file", "reads", {{"type", "object"}}}};
    req.temperature = 0.2;
    CHECK(round_trip(req) == req);
    LlmResponse resp{"text", {}, "end_turn", "m", Usage{1, 2, 0, 0, 0, 1, 0}};
    CHECK(round_trip(resp) == resp);
  }
}

TEST_CASE("bad documents fail with the field named", "[core][json]") {
  CHECK_THROWS_WITH(json::parse(R"({"expected":["a"]})").get<EvalReport>(),
                    Catch::Matchers::Contains("built"));
  CHECK_THROWS_WITH(json::parse(R"({"text":"q","trigger":"sometime"})").get<Question>(),
                    Catch::Matchers::Contains("unknown trigger \"sometime\""));
  CHECK_THROWS_WITH(json::parse(R"({"turns":-1})").get<Budget>(),
                    Catch::Matchers::Contains("negative"));
  CHECK_THROWS_WITH(json::parse(R"({"turns":1,"turn":2})").get<Budget>(),
                    Catch::Matchers::Contains("unknown field \"turn\""));
  CHECK_THROWS_WITH(json::parse(R"({"schema_version":99,"built":true,"expected":[]})").get<EvalReport>(),
                    Catch::Matchers::Contains("newer than this Socratic reads"));
}

TEST_CASE("report helpers: missing scenarios, geomean, all_correct", "[core]") {
  EvalReport r = sample_report();
  r.scenarios[1].correct = true;
  r.scenarios[1].speedup = 0.5;
  CHECK(r.all_correct());
  CHECK(r.geomean_speedup() == Approx(1.0));
  r.expected.push_back("c");
  CHECK(r.missing() == std::vector<std::string>{"c"});
  CHECK_FALSE(r.all_correct());
  CHECK(std::isnan(r.geomean_speedup()));
  EvalReport empty;
  empty.built = true;
  CHECK_FALSE(empty.all_correct());
  CHECK(std::isnan(empty.geomean_speedup()));
}

TEST_CASE("a short call's speedup bound holds the run-to-run spread the run's noise misses",
          "[core]") {
  ScenarioResult s;
  s.id = "x";
  s.speedup = 1.05;
  s.candidate_noise = s.baseline_noise = 0.02;
  s.samples = 96;
  s.candidate_ms = 0.0065;
  s.baseline_ms = 0.0068;
  const double within = 1.2533 * std::sqrt(2 * 0.02 * 0.02) / std::sqrt(96.0);
  CHECK(speedup_systematic_error(s) == 0);  // not flagged: the run's noise alone
  CHECK(speedup_relative_error(s) == Approx(within));
  s.flags = {"short_call"};
  CHECK(speedup_systematic_error(s) == Approx(0.015));
  CHECK(speedup_relative_error(s) == Approx(std::sqrt(within * within + 0.015 * 0.015)));
  // A 5 % gain at 6.5 us: its bound is below the point estimate by more than the 2.9 % the
  // baseline against itself moved between runs there.
  CHECK(speedup_lower_bound(s) < 1.05 / 1.029);
  s.candidate_ms = 0.0044;
  CHECK(speedup_systematic_error(s) == Approx(0.03));
  CHECK(speedup_lower_bound(s) < 1.0);  // a 5 % gain under 5 us is not established
}
