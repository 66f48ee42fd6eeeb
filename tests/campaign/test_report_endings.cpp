// The HTML report says how a campaign ended, every time, with the whole reason: the detail of
// each `campaign_ended` (an agent error's message, a server that is not listening), the run that
// took it back, and each turn an agent ended with an error.
#include "catch.hpp"

#include <regex>

#include "fixtures.hpp"
#include "socratic/report/html_report.hpp"

using namespace socratic;
using namespace fixtures;

TEST_CASE("report: every campaign end and every agent error, with its detail", "[campaign][report]") {
  struct FailingAgent {
    TurnResult turn(const Message&, Tools&) {
      return TurnResult{"", 0, {}, "model call 1 failed: nothing is listening on 127.0.0.1:8000 (connection refused)"};
    }
  };
  auto dir = fresh_dir("report_endings");
  PreparedEvaluator evaluator;
  evaluator.reports["v"] = report_with(2, 2);
  FixedQuestionSource questions;
  FailingAgent failing;
  CHECK(Campaign(failing, evaluator, questions, speedup_goal(), config_in(dir)).run().reason == StopReason::agent_error);
  std::string html = html_report(read_trace(dir / "state" / "trace.jsonl").events);

  // Ended on the agent's error: the outcome says why, and the endings table has it twice (the
  // turn's error and the campaign's end), each with its detail.
  CHECK_THAT(html, Catch::Matchers::Contains("ended without its goal: agent_error (model call 1 failed: nothing is "
                                             "listening on 127.0.0.1:8000 (connection refused))"));
  auto rows = [](const std::string& h, const std::string& kind) {
    std::vector<std::string> out;
    const std::regex row("<tr data-ending=\"" + kind + "\">(.*?)</tr>");
    for (auto it = std::sregex_iterator(h.begin(), h.end(), row); it != std::sregex_iterator(); ++it)
      out.push_back((*it)[1]);
    return out;
  };
  REQUIRE(rows(html, "agent_error").size() == 1);
  CHECK_THAT(rows(html, "agent_error")[0], Catch::Matchers::Contains("agent error (main, turn 0)") &&
                                               Catch::Matchers::Contains("nothing is listening on 127.0.0.1:8000"));
  REQUIRE(rows(html, "ended").size() == 1);
  CHECK_THAT(rows(html, "ended")[0], Catch::Matchers::Contains("<td class=\"text\">agent_error</td>") &&
                                         Catch::Matchers::Contains("nothing is listening on 127.0.0.1:8000"));

  // Run again once the server is up: the ending is taken back, the campaign meets its goal; the
  // report lists both ends in order, and the run between them.
  ScriptedAgent working;
  working.steps = {Step{"v"}};
  CHECK(Campaign(working, evaluator, questions, speedup_goal(), config_in(dir)).run().goal_met);
  html = html_report(read_trace(dir / "state" / "trace.jsonl").events);
  CHECK_THAT(html, Catch::Matchers::Contains("Outcome: <b class=\"met\">goal met</b>"));
  CHECK(rows(html, "ended").size() == 2);
  REQUIRE(rows(html, "continued").size() == 1);
  CHECK_THAT(rows(html, "continued")[0], Catch::Matchers::Contains("the ending before was taken back") &&
                                             Catch::Matchers::Contains("nothing is listening on 127.0.0.1:8000"));
  CHECK_THAT(rows(html, "ended")[1], Catch::Matchers::Contains("goal_met"));
  const auto first = html.find("data-ending=\"agent_error\""), taken_back = html.find("data-ending=\"continued\"");
  CHECK(first < taken_back);

  // The data block carries them too, for scripts.
  std::smatch m;
  REQUIRE(std::regex_search(html, m, std::regex("<script type=\"application/json\" id=\"socratic-data\">(.*)</script>")));
  const json data = json::parse(m[1].str());
  REQUIRE(data["endings"].size() == 4);
  CHECK(data["endings"][1]["reason"] == "agent_error");
  CHECK_THAT(data["endings"][1]["detail"].get<std::string>(), Catch::Matchers::Contains("127.0.0.1:8000"));
  CHECK(data["end_reason"] == "goal_met");
}
