// A downstream program: composes the four parts through the installed (or added) package, and
// parses a URL (Boost.URL, which the package links).
#include <iostream>

#include <socratic/http/url.hpp>
#include <socratic/socratic.hpp>

int main() {
  socratic::EvalReport report;
  report.built = true;
  report.expected = {"s1"};
  socratic::ScenarioResult r;
  r.id = "s1";
  r.correct = true;
  r.speedup = 1.25;
  report.scenarios.push_back(r);
  auto goal = socratic::goals::all_of(socratic::goals::all_correct{},
                                      socratic::goals::every_scenario_speedup_at_least{1.2});
  static_assert(socratic::GoalPredicate<decltype(goal)>);
  // A compiled part of Boost (Boost.URL) behind a header: the package links it for its consumers.
  if (socratic::http::parse_url("https://API.example.com/v1").host != "api.example.com") return 2;
  const bool met = goal(report).met;
  std::cout << "socratic " << socratic::version_string << (met ? " goal met\n" : " goal NOT met\n");
  return met ? 0 : 1;
}
