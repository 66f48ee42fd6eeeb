// The credit rule per agent and per question (questions/credit.hpp): a gain credits only the
// questions asked of the agent that made it, since that agent's previous gain; questions that
// share a gain are marked shared, in the rule's outcome and in the HTML report.
#include "support.hpp"

#include <map>
#include <regex>

#include "socratic/questions/credit.hpp"
#include "socratic/report/html_report.hpp"

using namespace socratic;

namespace {

/// Two agents, A and B, and five questions. Speedups by evaluation (agent): #0 1.20 (A), #1 1.00
/// (B), #2 1.50 (A), #3 1.00 (B), #4 1.01 (B), #5 1.00 (B), #6 1.80 (A), #7 2.20 (B).
CampaignState two_agents() {
  const std::vector<std::pair<double, const char*>> evaluations = {
      {1.20, "A"}, {1.00, "B"}, {1.50, "A"}, {1.00, "B"}, {1.01, "B"}, {1.00, "B"}, {1.80, "A"}, {2.20, "B"}};
  CampaignState s;
  s.campaign_id = "two-agents";
  for (std::size_t i = 0; i < evaluations.size(); ++i) {
    EvaluationRecord e = qtest::evaluation(static_cast<int>(i), {evaluations[i].first});
    e.agent_id = evaluations[i].second;
    s.evaluations.push_back(e);
  }
  auto ask = [&](const std::string& id, const std::string& agent, int after) {
    s.asked.push_back(AskedQuestion{Question{id, "g", id + "?", "", Trigger::plateau, ""}, 0, after, 0, agent});
  };
  ask("b.before-a-gain", "B", 1);  // A's gain at #2 follows at once; B's own evaluations never gain in 3
  ask("a.one", "A", 2);            // asked of A after its gain at #2: A's next gain is #6
  ask("a.two", "A", 3);            // also asked of A before #6: shares it
  ask("a.before-its-gain", "A", 1);  // asked of A before its gain at #2: credited by #2, alone
  ask("b.late", "B", 5);           // B's gain at #7 is B's first evaluation after it: credited
  return s;
}

}  // namespace

TEST_CASE("credit: a gain is credited to the questions asked of the agent that made it, shared credit marked",
          "[questions][credit]") {
  const CampaignState s = two_agents();
  const auto outcomes = credit_questions(s, CreditRule{});
  REQUIRE(outcomes.size() == 5);
  std::map<std::string, CreditOutcome> by_id;
  for (const auto& o : outcomes) by_id[o.question_id] = o;

  // A's gain at #2 comes one evaluation after B's question: not B's credit.
  CHECK_FALSE(by_id["b.before-a-gain"].credited);
  CHECK(by_id["b.before-a-gain"].agent == "B");
  // A's gain at #2 credits the question asked of A before it, alone.
  CHECK(by_id["a.before-its-gain"].credited);
  CHECK(by_id["a.before-its-gain"].credited_by == 2);
  CHECK(by_id["a.before-its-gain"].shared_by == 1);
  CHECK_FALSE(by_id["a.before-its-gain"].shared());
  // Two questions asked of A since its gain at #2 share its gain at #6 (A's first and second
  // evaluation after them): both credited, both marked shared.
  for (const char* id : {"a.one", "a.two"}) {
    INFO(id);
    CHECK(by_id[id].credited);
    CHECK(by_id[id].credited_by == 6);
    CHECK(by_id[id].shared_by == 2);
    CHECK(by_id[id].shared());
  }
  CHECK(by_id["a.one"].gain == Approx(1.8 / 1.5 - 1));
  // B's gain at #7 credits B's question.
  CHECK(by_id["b.late"].credited);
  CHECK(by_id["b.late"].credited_by == 7);
  CHECK(by_id["b.late"].shared_by == 1);

  // The same history without agent ids is one agent's: every gain may credit every question
  // asked since the previous gain.
  CampaignState one = s;
  for (auto& e : one.evaluations) e.agent_id.clear();
  for (auto& q : one.asked) q.agent_id.clear();
  std::map<std::string, CreditOutcome> single;
  for (const auto& o : credit_questions(one, CreditRule{})) single[o.question_id] = o;
  CHECK(single["b.before-a-gain"].credited);
  CHECK(single["b.before-a-gain"].credited_by == 2);
  CHECK(single["b.before-a-gain"].shared_by == 2);  // with a.before-its-gain
}

TEST_CASE("credit: each question is credited once; those asked since the agent's previous gain share its next",
          "[questions][credit]") {
  // One agent, gains at #1 and #3: the question asked before #1 is #1's alone; the two asked
  // since #1 share #3, and the first is not credited again.
  CampaignState s = qtest::history({1.0, 1.3, 1.3, 1.6});
  s.asked.push_back(AskedQuestion{Question{"q.before", "g", "?", "", Trigger::plateau, ""}, 0, -1, 0, "main"});
  s.asked.push_back(AskedQuestion{Question{"q.after", "g", "?", "", Trigger::plateau, ""}, 0, 1, 0, "main"});
  s.asked.push_back(AskedQuestion{Question{"q.after2", "g", "?", "", Trigger::plateau, ""}, 0, 2, 0, "main"});
  for (auto& e : s.evaluations) e.agent_id = "main";
  const auto o = credit_questions(s, CreditRule{});
  REQUIRE(o.size() == 3);
  CHECK(o[0].credited_by == 1);  // alone: the only question before the gain at #1
  CHECK(o[0].shared_by == 1);
  CHECK(o[1].credited_by == 3);  // asked since the gain at #1: the gain at #3 is theirs, shared
  CHECK(o[2].credited_by == 3);
  CHECK(o[1].shared_by == 2);
}

namespace {

json line(long seq, const std::string& type, json body, const std::string& agent) {
  body["v"] = 1;
  body["seq"] = seq;
  body["type"] = type;
  body["time"] = "2026-12-01T10:00:00Z";
  body["elapsed_s"] = seq * 1.0;
  body["agent"] = agent;
  return body;
}

/// The two agents' history as trace events, each question after the evaluation it followed.
std::vector<json> two_agents_trace() {
  const CampaignState s = two_agents();
  std::vector<json> events;
  long seq = 0;
  events.push_back(line(seq++, "campaign_started", {{"campaign_id", s.campaign_id}, {"goal", "geomean speedup >= 3.000"}}, "A"));
  auto questions_after = [&](int index) {
    for (const auto& q : s.asked)
      if (q.after_evaluation == index) {
        AskedQuestion from_event = q;
        from_event.agent_id.clear();  // as older writers wrote it: the agent is the event's
        events.push_back(line(seq++, "question", {{"asked", from_event}}, q.agent_id));
      }
  };
  for (const auto& e : s.evaluations) {
    events.push_back(line(seq++, "evaluation", {{"record", e}}, e.agent_id));
    questions_after(e.index);
  }
  events.push_back(line(seq++, "campaign_ended", {{"reason", "turn_budget"}}, "A"));
  return events;
}

}  // namespace

TEST_CASE("report: the questions' credit per agent, shared credit marked with the questions that share it",
          "[questions][credit][report]") {
  const std::string html = html_report(two_agents_trace());
  // In the order asked: Q1 b.before-a-gain (after #1), Q2 a.before-its-gain (after #1, to A),
  // Q3 a.one (after #2), Q4 a.two (after #3), Q5 b.late (after #5).
  auto row = [&](const std::string& id) {
    const auto at = html.find("<tr data-question-id=\"" + id + "\"");  // its row in the table
    REQUIRE(at != std::string::npos);
    return html.substr(at, html.find("</tr>", at) - at);
  };
  CHECK_THAT(row("b.before-a-gain"), Catch::Matchers::Contains("data-credited=\"false\"") &&
                                         Catch::Matchers::Contains("data-agent=\"B\""));
  CHECK_THAT(row("a.before-its-gain"), Catch::Matchers::Contains("data-credited=\"true\" data-shared-by=\"1\"") &&
                                           !Catch::Matchers::Contains("class=\"shared\""));
  CHECK_THAT(row("a.one"), Catch::Matchers::Contains("data-credited=\"true\" data-shared-by=\"2\"") &&
                               Catch::Matchers::Contains("<span class=\"shared\">shared</span> by 2 questions (with Q4)"));
  CHECK_THAT(row("a.two"), Catch::Matchers::Contains("(with Q3)") && Catch::Matchers::Contains("at evaluation 6"));
  CHECK_THAT(row("b.late"), Catch::Matchers::Contains("data-credited=\"true\" data-shared-by=\"1\"") &&
                                Catch::Matchers::Contains("at evaluation 7"));
  // The rule, stated above the table.
  CHECK_THAT(html, Catch::Matchers::Contains("credited to the questions asked of the agent that made it"));
  // The data block carries the agent and the sharing of each question.
  std::smatch m;
  REQUIRE(std::regex_search(html, m, std::regex("<script type=\"application/json\" id=\"socratic-data\">(.*)</script>")));
  const json data = json::parse(m[1].str());
  REQUIRE(data["questions"].size() == 5);
  CHECK(data["questions"][2]["agent"] == "A");
  CHECK(data["questions"][2]["shared_by"] == 2);
  CHECK(data["questions"][0]["credited"] == false);
}
