#include "catch.hpp"

#include <cmath>

#include "socratic/goals.hpp"

using namespace socratic;
using namespace socratic::goals;

namespace {

ScenarioResult result(const std::string& id, bool correct, double speedup) {
  ScenarioResult r;
  r.id = id;
  r.correct = correct;
  r.reason = correct ? "" : "max error 0.2 > tolerance 0.01";
  r.speedup = speedup;
  return r;
}

EvalReport report(std::vector<ScenarioResult> results, std::vector<std::string> expected = {}) {
  EvalReport r;
  r.built = true;
  if (expected.empty())
    for (const auto& s : results) expected.push_back(s.id);
  r.expected = std::move(expected);
  r.scenarios = std::move(results);
  return r;
}

bool names(const Verdict& v, const std::string& scenario, const std::string& condition) {
  for (const auto& u : v.unmet)
    if (u.scenario == scenario && u.condition == condition) return true;
  return false;
}

const double not_a_number = std::nan("");

}  // namespace

TEST_CASE("all_correct", "[goals]") {
  CHECK(all_correct{}(report({result("a", true, 1), result("b", true, 2)})).met);
  Verdict v = all_correct{}(report({result("a", true, 1), result("b", false, 2)}));
  CHECK_FALSE(v.met);
  CHECK(names(v, "b", "correct"));
  CHECK(v.unmet.size() == 1);
  CHECK(v.unmet[0].measured.find("tolerance") != std::string::npos);
}

TEST_CASE("every_scenario_speedup_at_least names each slow, incorrect or unmeasured scenario", "[goals]") {
  every_scenario_speedup_at_least g{1.1};
  CHECK(g(report({result("a", true, 1.2), result("b", true, 1.1)})).met);
  Verdict v = g(report({result("a", true, 1.2), result("b", true, 1.05), result("c", false, 3.0),
                        result("d", true, not_a_number)}));
  CHECK_FALSE(v.met);
  CHECK_FALSE(names(v, "a", "speedup"));
  CHECK(names(v, "b", "speedup"));
  CHECK(names(v, "c", "speedup"));  // incorrect: its speedup does not count
  CHECK(names(v, "d", "speedup"));  // NaN speedup never passes
  for (const auto& u : v.unmet) CHECK(u.required == ">= 1.100");
  CHECK(g.describe() == "every scenario speedup >= 1.100");
}

TEST_CASE("geomean_speedup_at_least needs every scenario correct and a finite geomean", "[goals]") {
  geomean_speedup_at_least g{1.5};
  CHECK(g(report({result("a", true, 1.0), result("b", true, 4.0)})).met);  // geomean 2
  Verdict slow = g(report({result("a", true, 1.0), result("b", true, 2.0)}));
  CHECK(names(slow, "", "geomean_speedup"));
  Verdict wrong = g(report({result("a", true, 1.0), result("b", false, 9.0)}));
  CHECK(names(wrong, "b", "correct"));
  Verdict unmeasured = g(report({result("a", true, 4.0), result("b", true, not_a_number)}));
  CHECK(names(unmeasured, "", "geomean_speedup"));
  CHECK(unmeasured.unmet.back().measured == "not measured");
}

TEST_CASE("no_banned_libraries", "[goals]") {
  EvalReport r = report({result("a", true, 1)});
  CHECK(no_banned_libraries{}(r).met);
  r.banned.push_back({"cand.so", "cublas", "DT_NEEDED libcublas.so.13"});
  Verdict v = no_banned_libraries{}(r);
  CHECK_FALSE(v.met);
  CHECK(v.unmet[0].measured.find("libcublas.so.13") != std::string::npos);
}

TEST_CASE("no predicate passes a report with missing scenarios, a failed build, a harness error "
          "or no scenarios", "[goals]") {
  EvalReport missing = report({result("a", true, 5)}, {"a", "b"});
  EvalReport unbuilt = report({result("a", true, 5)});
  unbuilt.built = false;
  EvalReport broken = report({result("a", true, 5)});
  broken.error = "runner killed by signal 11 during scenario b";
  EvalReport empty;
  empty.built = true;
  auto user = goal([](const EvalReport& r) { return r.geomean_speedup() > 0 ? Verdict::pass() : Verdict::fail({}); },
                   "user");
  for (const EvalReport* r : {&missing, &unbuilt, &broken, &empty}) {
    CHECK_FALSE(all_correct{}(*r).met);
    CHECK_FALSE(every_scenario_speedup_at_least{1.0}(*r).met);
    CHECK_FALSE(geomean_speedup_at_least{1.0}(*r).met);
    CHECK_FALSE(no_banned_libraries{}(*r).met);
    CHECK_FALSE(negate(geomean_speedup_at_least{100.0})(*r).met);
    CHECK_FALSE(all_of()(*r).met);
  }
  CHECK(names(all_correct{}(missing), "b", "present"));
  CHECK(names(all_correct{}(broken), "", "harness"));
  CHECK(names(all_correct{}(empty), "", "scenarios"));
}

TEST_CASE("combinators", "[goals]") {
  const EvalReport fast = report({result("s512_causal", true, 1.3), result("s512", true, 1.3)});
  const EvalReport mixed = report({result("s512_causal", true, 0.9), result("s512", true, 1.3)});

  SECTION("all_of collects every part's unmet conditions without duplicates") {
    auto g = all_of(all_correct{}, every_scenario_speedup_at_least{1.2}, no_banned_libraries{});
    CHECK(g(fast).met);
    Verdict v = g(mixed);
    CHECK(v.unmet.size() == 1);
    CHECK(names(v, "s512_causal", "speedup"));
    CHECK(g.describe().find("all scenarios correct") != std::string::npos);
  }
  SECTION("any_of passes when one part passes, else lists all") {
    auto g = any_of(every_scenario_speedup_at_least{1.2}, geomean_speedup_at_least{1.05});
    CHECK(g(mixed).met);  // geomean ~1.08
    auto strict = any_of(every_scenario_speedup_at_least{1.2}, geomean_speedup_at_least{1.5});
    Verdict v = strict(mixed);
    CHECK_FALSE(v.met);
    CHECK(names(v, "s512_causal", "speedup"));
    CHECK(names(v, "", "geomean_speedup"));
  }
  SECTION("negate") {
    CHECK(negate(every_scenario_speedup_at_least{1.2})(mixed).met);
    CHECK_FALSE(negate(every_scenario_speedup_at_least{1.2})(fast).met);
  }
  SECTION("scenario_filter applies a goal to a subset") {
    auto causal = [](const std::string& id) { return id.find("causal") != std::string::npos; };
    auto non_causal = [](const std::string& id) { return id.find("causal") == std::string::npos; };
    CHECK_FALSE(scenario_filter(causal, every_scenario_speedup_at_least{1.2})(mixed).met);
    CHECK(scenario_filter(non_causal, every_scenario_speedup_at_least{1.2})(mixed).met);
    CHECK(scenario_filter(std::vector<std::string>{"s512"}, every_scenario_speedup_at_least{1.2})(mixed).met);
    // selecting nothing is not a pass
    CHECK_FALSE(scenario_filter([](const std::string&) { return false; }, all_correct{})(mixed).met);
    // missing scenarios inside the subset still fail
    EvalReport missing = report({result("s512", true, 2)}, {"s512", "s512_causal"});
    CHECK_FALSE(scenario_filter(causal, all_correct{})(missing).met);
  }
  SECTION("any user callable is a goal, alone or combined") {
    auto lambda = [](const EvalReport& r) {
      return r.find("s512")->speedup > 1.25 ? Verdict::pass()
                                            : Verdict::fail({{"s512", "custom", "> 1.25", "no"}});
    };
    static_assert(GoalPredicate<decltype(lambda)>);
    CHECK(lambda(mixed).met);
    CHECK(all_of(lambda, all_correct{})(mixed).met);
    CHECK(describe_goal(lambda) == "user-defined goal");
    CHECK(describe_goal(goal(lambda, "s512 above 1.25")) == "s512 above 1.25");
  }
}
