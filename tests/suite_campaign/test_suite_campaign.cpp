// The suite campaign's library (include/socratic/suite_campaign): the planner on prepared
// standings, the runner over in-process problems with scripted agents (each problem a
// ParallelCampaign on its own store, left open between rounds), the budgets, the moves and their
// reasons, two agents on one problem and one on another, and the report at 5 and 235 rows.
#include "catch.hpp"

#include <regex>
#include <set>

#include "png_pixels.hpp"
#include "socratic/goals/goal_spec.hpp"
#include "socratic/process/run_process.hpp"
#include "socratic/suite_campaign/suite_report.hpp"
#include "socratic/suite_campaign/suite_runner.hpp"
#include "store_fixtures.hpp"

using namespace socratic;
using namespace store_fixtures;
namespace fs = std::filesystem;

namespace {

fs::path suite_root(const std::string& name) {
  auto d = fs::temp_directory_path() / ("socratic-suite-test-" + name + "-" + std::to_string(::getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

/// Problems run in process: each a ParallelCampaign over its own folder, its agents proposing
/// the problem's script (the same for every agent, by the agent's proposal number there).
struct InProcessSuite {
  fs::path root;
  std::map<std::string, std::vector<std::string>> scripts;
  std::map<std::string, std::optional<int>> max_proposals;
  goals::ParsedGoal goal = goals::parse_goal(json{{"every_scenario_speedup_at_least", 1.0}});
  PreparedMeasure measure;
  std::mutex mutex;
  std::vector<SuiteRoundWork> rounds;  ///< every problem's share of every round, as run

  fs::path folder(const std::string& p) const { return root / p; }
  ProblemStanding standing(const std::string& p) {
    return read_standing(p, folder(p) / "state" / "trace.jsonl", folder(p) / "state" / "store",
                         [this](const EvalReport& r) { return Verdict(goal(r)); });
  }
  SuiteRoundOutcome round(const SuiteRoundWork& w) {
    {
      std::lock_guard lock(mutex);
      rounds.push_back(w);
    }
    BaselineEvaluator evaluator{measure};
    NumberedQuestions questions;
    ParallelConfig pc;
    pc.leave_open_when_agents_done = true;
    pc.drafts.plateau_attempts = 0;
    pc.max_proposals = max_proposals[w.problem];
    ParallelCampaign campaign(evaluator, PairMeasure(measure), questions, goal, campaign_in(folder(w.problem)), pc);
    for (const auto& id : w.agents) {
      ProposingAgent agent;
      agent.contents = scripts.at(w.problem);
      for (auto& c : agent.contents) c += "// by " + id + "\n";  // each agent's own bytes
      ParallelAgentSpec spec;
      spec.id = id;
      spec.workspace = folder(w.problem) / "agents" / id;
      spec.candidate.source = spec.workspace / "kernel.cu";
      spec.max_proposals = w.targets.at(id);
      fs::create_directories(spec.workspace);
      campaign.add_agent(spec, AnyAgent(std::move(agent)));
    }
    const ParallelResult r = campaign.run();
    return SuiteRoundOutcome{r.reason, r.left_open, r.detail, {}};
  }
  SuiteRunner runner(SuiteConfig config) {
    config.state_dir = root / "suite";
    for (const auto& [p, s] : scripts) (void)s;
    return SuiteRunner(
        config, [this](const std::string& p) { return standing(p); }, [this](const SuiteRoundWork& w) { return round(w); });
  }
};

std::vector<std::string> script(std::initializer_list<double> ms) {
  std::vector<std::string> out;
  int i = 0;
  for (double m : ms) out.push_back("ms " + std::to_string(m) + "\n// proposal " + std::to_string(i++) + "\n");
  return out;
}

std::vector<json> events_of_type(const std::vector<json>& events, const std::string& type) {
  std::vector<json> out;
  for (const auto& e : events)
    if (e.value("type", "") == type) out.push_back(e);
  return out;
}

/// Every store's keys once; every agent's records on a problem within the targets it was given.
void check_nothing_counted_twice(InProcessSuite& s, const std::vector<std::string>& problems) {
  for (const auto& p : problems) {
    const fs::path dir = s.folder(p) / "state" / "store";
    if (!fs::exists(dir / "store.jsonl")) continue;
    StoreOptions ro;
    ro.read_only = true;
    const CandidateStore store = CandidateStore::open(dir, ro);
    std::set<std::string> keys;
    std::map<std::string, int> per_agent;
    for (const auto& r : store.summaries()) {
      INFO(p << " " << r.key);
      CHECK(keys.insert(r.key).second);
      ++per_agent[r.agent];
    }
    std::map<std::string, int> allowed;
    for (const auto& w : s.rounds)
      if (w.problem == p)
        for (const auto& [a, t] : w.targets) allowed[a] = std::max(allowed[a], t);
    for (const auto& [a, n] : per_agent) {
      INFO(p << " agent " << a);
      CHECK(n <= allowed[a]);
    }
  }
}

ProblemStanding standing_with(const std::string& name, double distance, int attempts, bool incumbent = true) {
  ProblemStanding s;
  s.name = name;
  s.distance = distance;
  s.attempts_since_admission = attempts;
  if (incumbent) s.incumbent = RecordSummary{};
  return s;
}

}  // namespace

TEST_CASE("suite planner: apportions by distance, plateaus weigh less, every move has its reason", "[suite]") {
  SuitePolicy policy;
  policy.kind = SuitePolicyKind::planner;
  policy.plateau = 3;
  const std::vector<std::string> agents{"a1", "a2", "a3", "a4"};
  // First round: nothing judged yet, every problem as far as the others: one agent each, then one more to the first.
  std::vector<ProblemStanding> st{standing_with("p", INFINITY, 0, false), standing_with("q", INFINITY, 0, false),
                                  standing_with("r", INFINITY, 0, false)};
  SuitePlan first = plan_round(policy, agents, st, {});
  CHECK(first.assignment.size() == 4);
  std::map<std::string, int> load;
  for (const auto& [a, p] : first.assignment) ++load[p];
  CHECK(load == std::map<std::string, int>{{"p", 2}, {"q", 1}, {"r", 1}});
  CHECK(first.moves.size() == 4);
  CHECK(first.moves[0].reason.find("first assignment; to p (no correct candidate yet)") != std::string::npos);

  // q far from its goal, p near, r on a plateau: r's agent leaves for q, saying why.
  st = {standing_with("p", 0.05, 0), standing_with("q", 1.5, 0), standing_with("r", 0.6, 5)};
  const SuitePlan next = plan_round(policy, agents, st, first.assignment);
  load.clear();
  for (const auto& [a, p] : next.assignment) ++load[p];
  CHECK(load["q"] == 4);  // weights 0.05, 1.5, 0.6 x 0.25: q's 3.53 seats and the largest remainder
  CHECK(load["r"] == 0);
  bool away_from_plateau = false;
  for (const auto& m : next.moves) {
    INFO(m.agent << ": " << m.reason);
    CHECK(m.to == "q");
    if (m.from == "r")
      away_from_plateau = m.reason.find("away from r (distance to its goal 0.600, on a plateau (5 attempts since its last "
                                        "admission)); to q (distance to its goal 1.500)") != std::string::npos;
  }
  CHECK(away_from_plateau);
  // A problem whose goal is met is never assigned; an agent there moves, "p finished (goal met)".
  st[0].goal_met = true;
  st[0].distance = 0;
  const SuitePlan after = plan_round(policy, agents, st, next.assignment);
  for (const auto& [a, p] : after.assignment) CHECK(p != "p");

  // goal_distance: log(required/measured) per numeric condition, 1 per other.
  CHECK(goal_distance(Verdict::pass()) == 0);
  const Verdict v = Verdict::fail({{"s1", "speedup", ">= 1.00", "0.50 (lower bound 0.49)"}, {"s2", "correct", "correct", "incorrect"}});
  CHECK(goal_distance(v) == Approx(std::log(2.0) + 1));
}

TEST_CASE("suite fixed share: two agents on one problem and one on another; a problem's budget; the suite's", "[suite]") {
  InProcessSuite s;
  s.root = suite_root("fixed");
  s.scripts["p"] = script({1.2, 1.19, 1.18, 1.17, 1.16, 1.15});
  s.scripts["q"] = script({1.5, 1.4, 1.3, 1.25, 1.2, 1.15, 1.1, 1.05});
  s.max_proposals["p"] = 4;  // p's own budget: its campaign ends proposals_spent at 4 records
  SuiteConfig config;
  config.agents = {"a1", "a2", "a3"};
  config.problems = {"p", "q"};
  config.policy.kind = SuitePolicyKind::fixed;
  config.policy.assign = {{"a1", "p"}, {"a2", "p"}, {"a3", "q"}};
  config.proposals_per_round = 1;
  config.budget.proposals = 10;  // the suite's own
  SuiteRunner runner = s.runner(config);
  const SuiteResult r = runner.run();
  CHECK(r.reason == SuiteEndReason::proposals_spent);
  int total = 0;
  for (const auto& st : r.standings) total += st.records;
  CHECK(total == 10);  // never more than the suite's budget

  // Round 1: a1 and a2 on p, a3 on q.
  REQUIRE(!s.rounds.empty());
  std::map<std::string, std::set<std::string>> first;
  for (const auto& w : s.rounds)
    if (w.round == 1) first[w.problem] = std::set<std::string>(w.agents.begin(), w.agents.end());
  CHECK(first["p"] == std::set<std::string>{"a1", "a2"});
  CHECK(first["q"] == std::set<std::string>{"a3"});
  ProblemStanding p = s.standing("p"), q = s.standing("q");
  CHECK(p.records == 4);
  CHECK(p.finished);
  CHECK(p.end_reason == StopReason::proposals_spent);
  CHECK(p.records_by_agent.count("a3") == 0);
  CHECK(p.records_by_agent["a1"] == 2);
  CHECK(p.records_by_agent["a2"] == 2);
  CHECK(q.records == 6);
  CHECK(q.records_by_agent["a3"] >= 2);
  CHECK(q.records_by_agent["a1"] >= 1);  // moved there once p was done

  const auto trace = read_suite_trace(s.root / "suite");
  const auto moves = events_of_type(trace, "agent_moved");
  int from_p = 0;
  for (const auto& m : moves)
    if (m.value("from", "") == "p") {
      ++from_p;
      CHECK(m.value("to", "") == "q");
      CHECK(m.value("reason", "") == "p finished (proposals_spent); q has the fewest agents");
    }
  CHECK(from_p == 2);
  CHECK(events_of_type(trace, "problem_ended").size() == 1);
  const auto ended = events_of_type(trace, "suite_ended");
  REQUIRE(ended.size() == 1);
  CHECK(ended[0].value("reason", "") == "proposals_spent");
  check_nothing_counted_twice(s, {"p", "q"});

  // Run again: the suite had ended; nothing runs, nothing is added.
  const std::size_t rounds_run = s.rounds.size();
  SuiteRunner again = s.runner(config);
  const SuiteResult r2 = again.run();
  CHECK(r2.already_ended);
  CHECK(s.rounds.size() == rounds_run);
  CHECK(events_of_type(read_suite_trace(s.root / "suite"), "suite_ended").size() == 1);
}

TEST_CASE("suite planner end to end: three problems, agents moved to the furthest and away from a plateau; the report",
          "[suite]") {
  InProcessSuite s;
  s.root = suite_root("planner");
  s.measure.noise = 0.002;
  s.scripts["near"] = script({1.05, 1.02, 0.9, 0.85, 0.8, 0.75, 0.7, 0.65, 0.6, 0.55});
  s.scripts["far"] = script({2.0, 1.6, 1.3, 1.1, 0.9, 0.8, 0.75, 0.7, 0.65, 0.6});
  s.scripts["stuck"] = script({1.2, 1.2, 1.2, 1.2, 1.2, 1.2, 1.2, 1.2, 1.2, 1.2});
  s.max_proposals["stuck"] = 8;
  SuiteConfig config;
  config.agents = {"a1", "a2", "a3"};
  config.problems = {"near", "far", "stuck"};
  config.policy.kind = SuitePolicyKind::planner;
  config.policy.plateau = 2;
  config.proposals_per_round = 1;
  config.budget.proposals = 40;
  SuiteRunner runner = s.runner(config);
  const SuiteResult r = runner.run();
  INFO("ended " << to_string(r.reason) << ": " << r.detail);
  CHECK(r.reason == SuiteEndReason::problems_done);
  REQUIRE(r.standings.size() == 3);
  CHECK(r.standings[0].goal_met);
  CHECK(r.standings[1].goal_met);
  CHECK_FALSE(r.standings[2].goal_met);
  CHECK(r.standings[2].end_reason == StopReason::proposals_spent);

  // Round 1: one agent per problem.
  std::map<std::string, int> first;
  for (const auto& w : s.rounds)
    if (w.round == 1) first[w.problem] = static_cast<int>(w.agents.size());
  CHECK(first == std::map<std::string, int>{{"far", 1}, {"near", 1}, {"stuck", 1}});
  const auto trace = read_suite_trace(s.root / "suite");
  bool to_furthest = false, off_plateau = false, after_goal = false;
  for (const auto& m : events_of_type(trace, "agent_moved")) {
    const std::string why = m.value("reason", "");
    to_furthest |= m.value("from", "") == "near" && m.value("to", "") == "far" && why.find("distance to its goal") != std::string::npos;
    off_plateau |= m.value("from", "") == "stuck" && why.find("on a plateau") != std::string::npos;
    after_goal |= why.find("finished (goal met)") != std::string::npos;
  }
  CHECK(to_furthest);
  CHECK(off_plateau);
  CHECK(after_goal);
  // Each round's plan once, in order.
  const auto planned = events_of_type(trace, "round_planned");
  CHECK(static_cast<int>(planned.size()) == r.rounds);
  check_nothing_counted_twice(s, config.problems);

  // The report: a row per problem, fast_p over the suite, the gains and the questions before them.
  SuiteReportModel m;
  m.end_reason = std::string(to_string(r.reason));
  m.rounds = r.rounds;
  for (const auto& st : r.standings) m.rows.push_back(suite_row(st, "problems/" + st.name + ".html"));
  for (const auto& e : events_of_type(trace, "agent_moved")) m.moves.push_back(e);
  complete_suite_model(m);
  CHECK(m.fast_p["1.0"] == Approx(2.0 / 3));
  REQUIRE(m.rows[0].judged);
  CHECK(m.rows[0].all_correct);
  CHECK(m.rows[0].geomean > 1.0);
  CHECK(m.rows[0].scenarios.size() == 3);
  CHECK_FALSE(m.rows[2].score);
  CHECK(m.rows[2].geomean < 1.0);
  REQUIRE_FALSE(m.rows[1].gains.empty());
  bool questioned = false;
  for (const auto& g : m.rows[1].gains) questioned |= g.origin == "question" && !g.question_id.empty();
  CHECK(questioned);  // a gain made after the coordinator's question to its agent
  const json j = suite_report_json(m);
  CHECK(j["problems"].size() == 3);
  CHECK(j["problems"][2]["score"] == "absent");
  const std::string md = suite_report_markdown(m);
  CHECK(md.find("| near | goal met |") != std::string::npos);
  CHECK(md.find("[report](problems/near.html)") != std::string::npos);
  const std::string html = suite_report_html(m);
  CHECK(html.find("<a href=\"problems/far.html\">report</a>") != std::string::npos);
}

namespace {

/// A suite of `n` synthetic rows: varied scenarios (1 to 40), some incorrect, some without a best.
SuiteReportModel synthetic_suite(int n) {
  SuiteReportModel m;
  m.title = "Synthetic suite of " + std::to_string(n);
  m.end_reason = "wall_time_budget";
  m.rounds = 12;
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> speed(0.4, 6.0);
  for (int i = 0; i < n; ++i) {
    SuiteRow r;
    r.problem = "L" + std::to_string(1 + i % 3) + "_" + std::to_string(i) + "_op<&>";
    r.link = "problems/" + std::to_string(i) + ".html";
    r.records = i % 17;
    if (i % 11 != 5) {
      r.judged = true;
      r.incumbent = "c" + std::to_string(i % 9);
      r.incumbent_agent = "agent-" + std::to_string(i % 4);
      const int scenarios = 1 + (i * 7) % 40;
      r.all_correct = i % 13 != 0;
      double log_sum = 0;
      for (int k = 0; k < scenarios; ++k) {
        SuiteScenarioCell c{"w" + std::to_string(k), !(i % 13 == 0 && k == 0), 1.0 + k, 0, speed(rng), 0.3};
        c.candidate_ms = c.baseline_ms / c.speedup;
        log_sum += std::log(c.speedup);
        r.scenarios.push_back(c);
      }
      if (r.all_correct) r.geomean = std::exp(log_sum / scenarios);
      r.goal_met = r.all_correct && r.geomean > 1.5;
      r.status = r.goal_met ? "goal met" : "open";
      r.roofline_fraction = i % 2 ? 0.3 : std::nan("");
      if (i % 5 == 0) r.score = 0.1 * (i % 10);
      r.gains.push_back({r.incumbent, r.incumbent_agent, "question", "memory.coalescing", {"memory.coalescing"}});
    } else {
      r.status = "open";
    }
    m.rows.push_back(r);
  }
  for (int k = 0; k < 3 * n; ++k)
    m.moves.push_back({{"round", k / 10}, {"agent", "agent-" + std::to_string(k % 4)}, {"from", "L1"}, {"to", "L2"},
                       {"reason", "away from L1 (on a plateau); to L2 (no correct candidate yet)"}});
  complete_suite_model(m);
  return m;
}

/// Every opening tag of these elements is closed, in order (a small well-formedness check).
void check_balanced(const std::string& html) {
  const std::regex tag("<(/?)(table|tr|td|th|svg|rect|div|p|h1|h2|script|title|a|span|b)[ >]");
  std::vector<std::string> open;
  for (auto it = std::sregex_iterator(html.begin(), html.end(), tag); it != std::sregex_iterator(); ++it) {
    const std::string name = (*it)[2];
    if ((*it)[1] == "") {
      open.push_back(name);
    } else {
      INFO("closing " << name << " at " << it->position());
      REQUIRE(!open.empty());
      REQUIRE(open.back() == name);
      open.pop_back();
    }
  }
  CHECK(open.empty());
}

}  // namespace

TEST_CASE("suite report: readable and bounded at 5 and at 235 problems", "[suite][report]") {
  for (int n : {5, 235}) {
    INFO(n << " problems");
    const SuiteReportModel m = synthetic_suite(n);
    const std::string html = suite_report_html(m);
    check_balanced(html);
    std::size_t rows = 0;
    for (std::size_t i = 0; (i = html.find("class=\"problem-row\"", i)) != std::string::npos; ++i) ++rows;
    CHECK(rows == static_cast<std::size_t>(n));
    CHECK(html.size() < 40000 + static_cast<std::size_t>(n) * 9000);  // a row stays one line, whatever its scenarios
    const std::string markup = html.substr(0, html.find("<script type=\"application/json\""));
    CHECK(markup.find("op&lt;&amp;&gt;") != std::string::npos);  // names escaped in the markup
    CHECK(markup.find("op<&>") == std::string::npos);
    // The data block parses back: every problem, fast_p at the three p.
    const auto begin = html.find("id=\"socratic-data\">") + 19;
    const json data = json::parse(html.substr(begin, html.find("</script>", begin) - begin));
    CHECK(data["problems"].size() == static_cast<std::size_t>(n));
    for (const char* p : {"1.0", "1.5", "2.0"}) CHECK(data["fast_p"].contains(p));
    CHECK(data["fast_p"]["1.0"].get<double>() >= data["fast_p"]["2.0"].get<double>());
    // The plots keep their size: one bar per problem in a 900 px wide plot.
    CHECK(html.find("viewBox=\"0 0 900.0 260.0\"") != std::string::npos);
    const std::string md = suite_report_markdown(m);
    CHECK(std::count(md.begin(), md.end(), '\n') > n);
    CHECK((md.find(" more") != std::string::npos || n < 10));  // at most 8 scenarios in a Markdown cell
  }
  // fast_p by its definition.
  std::vector<SuiteRow> rows(4);
  rows[0].all_correct = true, rows[0].geomean = 1.2;
  rows[1].all_correct = true, rows[1].geomean = 2.5;
  rows[2].all_correct = false, rows[2].geomean = std::nan("");
  rows[3].all_correct = true, rows[3].geomean = 0.9;
  CHECK(suite_fast_p(rows, 1.0) == Approx(0.5));
  CHECK(suite_fast_p(rows, 1.5) == Approx(0.25));
  CHECK(suite_fast_p(rows, 2.0) == Approx(0.25));
}

TEST_CASE("suite report in Chromium: the DOM holds every row, screenshots at 5 and 235 problems", "[suite][report][chromium]") {
  fs::path chromium;
  for (const char* name : {"chromium", "chromium-browser", "google-chrome"})
    if (chromium.empty()) chromium = find_program(name);
  if (chromium.empty()) FAIL("chromium is not installed: run scripts/install-deps.sh --tests");
  const fs::path dir = suite_root("chromium");
  auto headless = [&](const std::vector<std::string>& extra, const std::string& profile) {
    std::vector<std::string> argv{chromium.string(), "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                                  "--disable-background-networking", "--disable-component-update", "--disable-sync",
                                  "--hide-scrollbars", "--user-data-dir=" + (dir / profile).string()};
    argv.insert(argv.end(), extra.begin(), extra.end());
    ProcessOptions o;
    o.timeout = std::chrono::seconds(120);
    o.max_output_bytes = 64 << 20;
    return run_process(argv, o);
  };
  for (int n : {5, 235}) {
    INFO(n << " problems");
    const fs::path html = dir / ("suite-" + std::to_string(n) + ".html");
    write_text(html, suite_report_html(synthetic_suite(n)));
    if (n == 235) {
      const ProcessResult dom = headless({"--dump-dom", "file://" + html.string()}, "dom");
      INFO(dom.stderr_text);
      REQUIRE(dom.ok());
      std::size_t rows = 0, bars = 0;
      for (std::size_t i = 0; (i = dom.stdout_text.find("class=\"problem-row\"", i)) != std::string::npos; ++i) ++rows;
      for (std::size_t i = 0; (i = dom.stdout_text.find("class=\"bar", i)) != std::string::npos; ++i) ++bars;
      CHECK(rows == 235);
      CHECK(bars == 235);
    }
    const fs::path png = dir / ("suite-" + std::to_string(n) + ".png");
    const ProcessResult shot =
        headless({"--screenshot=" + png.string(), "--window-size=1400,1000", "file://" + html.string()}, "shot" + std::to_string(n));
    INFO(shot.stderr_text);
    REQUIRE(fs::exists(png));
    const png_pixels::Image img = png_pixels::decode(read_text(png));
    CHECK(img.width == 1400);
    // The geomean plot is drawn: green bars (faster) and red ones (slower) on the first screen.
    int green = 0, red = 0;
    for (unsigned y = 0; y < img.height; y += 2)
      for (unsigned x = 0; x < img.width; x += 2) {
        const std::uint32_t c = img.rgb(x, y);
        const int r = c >> 16, g = (c >> 8) & 0xff, b = c & 0xff;
        green += g > r + 40 && g > b + 20;
        red += r > g + 60 && r > b + 60;
      }
    CHECK(green > 50);
    CHECK(red > 10);
  }
}
