#include "catch.hpp"

#include <filesystem>
#include <set>

#include "socratic/record/trace.hpp"
#include "socratic/record/trace_state.hpp"
#include "socratic/core/budget.hpp"
#include "socratic/core/campaign_state.hpp"
#include "socratic/core/trace_events.hpp"
#include "socratic/goals/goal_spec.hpp"
#include "socratic/report/detail/report_model.hpp"

using namespace socratic;
using Catch::Matchers::Contains;

namespace {
std::filesystem::path repository_root() { return SOCRATIC_SOURCE_DIR; }
}  // namespace

TEST_CASE("every trace event type, stop reason, origin and hook verdict reads back as itself", "[trace][types]") {
  std::set<std::string> names;
  for (TraceEventType t : all_trace_event_types) {
    CHECK(parse_trace_event_type(to_string(t)) == t);
    CHECK(json(t).get<TraceEventType>() == t);
    names.insert(std::string(to_string(t)));
  }
  CHECK(names.size() == all_trace_event_types.size());  // no two types share a name
  for (HookVerdict v : all_hook_verdicts) CHECK(json(v).get<HookVerdict>() == v);
  for (StopReason r : {StopReason::goal_met, StopReason::turn_budget, StopReason::agent_error, StopReason::cancelled,
                       StopReason::proposals_spent, StopReason::agents_done, StopReason::waiting_for_agent})
    CHECK(json(r).get<StopReason>() == r);
  for (EvaluationOrigin o : {EvaluationOrigin::agent, EvaluationOrigin::stop_check, EvaluationOrigin::gate,
                             EvaluationOrigin::incumbent_check})
    CHECK(json(o).get<EvaluationOrigin>() == o);
  // Written as the names docs/trace.md lists.
  CHECK(json(TraceEventType::campaign_ended).dump() == "\"campaign_ended\"");
  CHECK(json(StopReason::wall_time_budget).dump() == "\"wall_time_budget\"");
  CHECK(json(EvaluationOrigin::stop_check).dump() == "\"stop_check\"");
  CHECK(json(HookVerdict::block_cap).dump() == "\"block_cap\"");
}

TEST_CASE("names this version does not know are refused by name, never mapped to a known one", "[trace][types]") {
  CHECK_FALSE(parse_trace_event_type("campaign_exploded"));
  CHECK_FALSE(trace_event_type(json{{"type", "campaign_exploded"}}));
  CHECK_FALSE(trace_event_type(json{{"seq", 1}}));
  CHECK_THROWS_WITH(json("time_up").get<StopReason>(), Contains("unknown stop reason \"time_up\""));
  CHECK_THROWS_WITH(json("maybe").get<HookVerdict>(), Contains("unknown verdict kind \"maybe\""));
  CHECK_THROWS_WITH(json("oracle").get<EvaluationOrigin>(), Contains("unknown origin \"oracle\""));

  // In a trace: an unknown event type is skipped (a newer writer's), an unknown stop reason is an
  // error naming the event.
  std::vector<json> events{{{"type", "campaign_started"}, {"seq", 0}, {"agent", "main"}},
                           {{"type", "something_new"}, {"seq", 1}, {"agent", "main"}},
                           {{"type", "campaign_ended"}, {"seq", 2}, {"agent", "main"}, {"reason", "turn_budget"}}};
  const TraceSummary ok = summarize_trace(events);
  CHECK(ok.ended);
  CHECK(ok.end_reason == StopReason::turn_budget);
  events[2]["reason"] = "time_up";
  CHECK_THROWS_WITH(summarize_trace(events), Contains("seq 2") && Contains("time_up"));
}

TEST_CASE("traces written before the types were closed sets read as before", "[trace][types]") {
  for (const char* name : {"demo/softmax-cpu/trace.jsonl", "demo/attention-h200/trace.jsonl"}) {
    INFO(name);
    const TraceContents contents = read_trace(repository_root() / name);
    REQUIRE_FALSE(contents.events.empty());
    for (const json& e : contents.events) {
      INFO("seq " << e.value("seq", -1));
      const auto type = trace_event_type(e);
      REQUIRE(type);  // every type an older writer used is one of the set
      CHECK(to_string(*type) == e["type"].get<std::string>());
      if (type == TraceEventType::hook_call) CHECK(parse_hook_verdict(e["kind"].get<std::string>()));
      if (type == TraceEventType::evaluation)  // the origin is written back as it was read
        CHECK(json(e["record"].get<EvaluationRecord>())["origin"] == e["record"].value("origin", "agent"));
    }
    const TraceSummary s = summarize_trace(contents.events);
    CHECK_FALSE(s.state.evaluations.empty());
    const auto m = socratic::detail::report::build_model(contents.events, CreditRule{}, json());
    CHECK(m.hook_driven);
    CHECK_FALSE(m.stops.empty());
    for (const auto& stop : m.stops) CHECK(stop.hook_verdict);
  }
}

TEST_CASE("a parsed goal keeps its spec and judges as the goal built from it", "[goals][types]") {
  const json spec = json::parse(R"({"all_of": [{"all_correct": {}}, {"on_scenarios": {"ids": ["a"], "goal": {"every_scenario_speedup_at_least": {"minimum": 1.5}}}}]})");
  const goals::ParsedGoal goal = goals::parse_goal(spec, "goal", std::vector<std::string>{"a", "b"});
  CHECK(goal.spec() == spec);
  CHECK(goal.describe() == goals::goal_from_spec(spec).describe());
  CHECK(goals::ParsedGoal().spec() == goals::default_goal_spec());
  // The scenario check runs where the goal is parsed, and names the node.
  CHECK_THROWS_WITH(goals::parse_goal(spec, "goal", std::vector<std::string>{"b"}), Contains("goal.all_of[1]"));
  CHECK_THROWS_WITH(goals::parse_goal(json::parse(R"({"fastest": 2})"), "--goal"), Contains("--goal"));
}
