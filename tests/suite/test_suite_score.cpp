// The suite's own score beside the speedup (issue 38 item 5): SOL-ExecBench's
// S = 1/(1 + (T - T_SOL)/(T_b - T_SOL)) on hand-computed cases and its edge cases, T_SOL read from
// workload.jsonl's `t_sol_ms` and from sol_times.json (tests/suite/problems/rmsnorm_h4096 gives
// both), the per-workload score and the problem's mean in the report's JSON and table, and the
// suite report's row computing its score from the best candidate's report. CPU only.
#include "catch.hpp"

#include <cmath>
#include <filesystem>
#include <string>

#include "socratic/core/json.hpp"
#include "socratic/eval/report_table.hpp"
#include "socratic/process/run_process.hpp"
#include "socratic/suite/sol_loader.hpp"
#include "socratic/suite/sol_score.hpp"
#include "socratic/suite_campaign/suite_report.hpp"
#include "test_files.hpp"

namespace {

namespace fs = std::filesystem;
using Catch::Matchers::Contains;
using namespace socratic;

fs::path score_problems() { return fs::path(SOCRATIC_SOURCE_DIR) / "tests" / "suite" / "problems"; }

/// Three workloads: w1 and w2 with T_SOL = 1 ms, w3 without.
suite::ProblemDescription three_workloads(suite::ProblemOrigin origin = suite::ProblemOrigin::sol_execbench) {
  suite::ProblemDescription p;
  p.name = "score_test";
  p.origin = origin;
  for (const char* id : {"w1", "w2", "w3"}) {
    suite::Workload w;
    w.uuid = id;
    if (std::string(id) != "w3") w.t_sol_ms = 1.0;
    p.workloads.push_back(w);
  }
  return p;
}

ScenarioResult timed(const std::string& id, double candidate_ms, double baseline_ms, bool correct = true) {
  ScenarioResult s;
  s.id = id;
  s.correct = correct;
  s.candidate_ms = candidate_ms;
  s.baseline_ms = baseline_ms;
  s.speedup = baseline_ms / candidate_ms;
  return s;
}

EvalReport three_scenarios(bool w2_correct = true) {
  EvalReport r;
  r.problem = "score_test";
  r.built = true;
  r.expected = {"w1", "w2", "w3"};
  r.scenarios = {timed("w1", 2, 4), timed("w2", 4, 4, w2_correct), timed("w3", 1, 3)};
  return r;
}

}  // namespace

TEST_CASE("sol_score: SOL-ExecBench's formula on hand-computed times", "[suite][score]") {
  // gap T_b - T_SOL = 3: (2 - 1)/3 = 1/3, S = 1/(4/3)
  CHECK(suite::sol_score(2, 4, 1) == Approx(0.75));
  CHECK(suite::sol_score(4, 4, 1) == Approx(0.5));  // at the baseline's time
  CHECK(suite::sol_score(7, 4, 1) == Approx(1.0 / 3.0));  // (7 - 1)/3 = 2
  CHECK(suite::sol_score(1, 4, 1) == Approx(1.0));  // at the bound
  // Faster than the bound: the formula gives 1/(1 - 0.5/3) = 1.2; clamped to 1.
  CHECK(suite::sol_score(0.5, 4, 1) == 1.0);
  // No gap to close (T_b <= T_SOL): 1 at or under the bound, else 0, as sol_score.py decides.
  CHECK(suite::sol_score(0.9, 1, 1) == 1.0);
  CHECK(suite::sol_score(2, 0.5, 1) == 0.0);
  // Times that are not positive numbers give no score.
  CHECK(std::isnan(suite::sol_score(0, 4, 1)));
  CHECK(std::isnan(suite::sol_score(2, std::nan(""), 1)));
  CHECK(std::isnan(suite::sol_score(2, 4, -1)));
}

TEST_CASE("T_SOL is read from workload.jsonl's t_sol_ms and from sol_times.json", "[suite][score]") {
  const auto p = suite::load_problem_folder(score_problems() / "rmsnorm_h4096");
  REQUIRE(p.workloads.size() == 3);
  REQUIRE(p.workloads[0].t_sol_ms);
  CHECK(*p.workloads[0].t_sol_ms == Approx(0.0000051));  // sol_times.json
  CHECK(*p.workloads[1].t_sol_ms == Approx(0.000439));   // sol_times.json
  CHECK(*p.workloads[2].t_sol_ms == Approx(0.01398));    // workload.jsonl

  const auto dir = socratic::test::fresh_dir("sol_times");
  for (const char* f : {"definition.json", "workload.jsonl"})
    fs::copy_file(score_problems() / "rmsnorm_h4096" / f, dir / f);
  auto error_of = [&](const std::string& sol_times) {
    socratic::test::write_text(dir / "sol_times.json", sol_times);
    try {
      (void)suite::load_problem_folder(dir);
    } catch (const std::exception& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK(error_of(R"({"rms-b1": 0.001})") == "no error");
  CHECK_THAT(error_of(R"({"rms-b2": 0.001})"), Contains("sol_times.json") && Contains("\"rms-b2\" is not a workload"));
  CHECK_THAT(error_of(R"({"rms-b1": -2})"), Contains("rms-b1") && Contains("not positive"));
  CHECK_THAT(error_of(R"({"rms-b1": "fast"})"), Contains("expected a time in milliseconds"));
  CHECK_THAT(error_of(R"({"rms-b4096": 0.5})"), Contains("workload.jsonl's t_sol_ms gives"));
  CHECK_THAT(error_of("[1]"), Contains("expected an object of workload uuid"));
  fs::remove(dir / "sol_times.json");
  // A bad t_sol_ms in workload.jsonl names the line and the field.
  std::string lines = socratic::test::read_text(dir / "workload.jsonl");
  lines.replace(lines.find("\"t_sol_ms\": 0.01398"), 19, "\"t_sol_ms\": 0");
  socratic::test::write_text(dir / "workload.jsonl", lines);
  try {
    (void)suite::load_problem_folder(dir);
    FAIL("a zero t_sol_ms was accepted");
  } catch (const std::exception& e) {
    CHECK_THAT(std::string(e.what()), Contains("line 3") && Contains("t_sol_ms") && Contains("not positive"));
  }
  fs::remove_all(dir);
}

TEST_CASE("the report carries S per workload and its mean, in JSON and in the table", "[suite][score]") {
  EvalReport r = three_scenarios();
  suite::apply_sol_scores(r, three_workloads(), "pytorch_eager");
  CHECK(r.scenarios[0].sol_time_ms == 1.0);
  CHECK(r.scenarios[0].sol_score == Approx(0.75));
  CHECK(r.scenarios[1].sol_score == Approx(0.5));
  CHECK(std::isnan(r.scenarios[2].sol_time_ms));
  CHECK(std::isnan(r.scenarios[2].sol_score));
  CHECK(r.mean_sol_score() == Approx(0.625));  // over w1 and w2, the workloads with a T_SOL

  const json j = json::parse(json(r).dump());  // as written: a scenario without a T_SOL has neither member
  CHECK(j.at("sol_score").get<double>() == Approx(0.625));
  CHECK(j.at("sol_score_baseline") == "pytorch_eager");
  CHECK(j.at("scenarios").at(0).at("sol_score").get<double>() == Approx(0.75));
  CHECK_FALSE(j.at("scenarios").at(2).contains("sol_score"));
  CHECK_FALSE(j.at("scenarios").at(2).contains("sol_time_ms"));
  const EvalReport back = j.get<EvalReport>();
  CHECK(back.scenarios[0].sol_time_ms == 1.0);
  CHECK(back.mean_sol_score() == Approx(0.625));
  CHECK(back.sol_score_baseline == "pytorch_eager");

  const std::string table = format_report_table(r);
  CHECK_THAT(table, Contains("  S ") || Contains(" S  "));
  CHECK_THAT(table, Contains("0.750") && Contains("0.500"));
  CHECK_THAT(table, Contains("T_b = this report's baseline (pytorch_eager): mean 0.625 over 2 of 3 workloads with a T_SOL"));
  CHECK_THAT(format_report_compact(r), Contains("mean 0.625"));

  // An incorrect workload with a T_SOL has no score, and the mean is not taken without it.
  EvalReport wrong = three_scenarios(false);
  suite::apply_sol_scores(wrong, three_workloads(), "pytorch_eager");
  CHECK(std::isnan(wrong.scenarios[1].sol_score));
  CHECK(std::isnan(wrong.mean_sol_score()));
  CHECK(json::parse(json(wrong).dump()).at("sol_score").is_null());
  CHECK_THAT(format_report_table(wrong), Contains("mean n/a (a workload with a T_SOL is not correct or not timed)"));

  // A time that does not count (below the roofline: no speedup) gets no score either.
  EvalReport floor = three_scenarios();
  floor.scenarios[0].speedup = std::nan("");
  floor.scenarios[0].flags.push_back("below_roofline");
  suite::apply_sol_scores(floor, three_workloads(), "pytorch_eager");
  CHECK(std::isnan(floor.scenarios[0].sol_score));
  CHECK(std::isnan(floor.mean_sol_score()));

  // Flags on the edge cases.
  EvalReport edge = three_scenarios();
  edge.scenarios[0] = timed("w1", 0.5, 4);  // under the bound
  edge.scenarios[1] = timed("w2", 2, 0.8);  // the baseline under the bound
  suite::apply_sol_scores(edge, three_workloads(), "native_cuda");
  CHECK(edge.scenarios[0].sol_score == 1.0);
  CHECK(edge.scenarios[0].has_flag("below_sol"));
  CHECK(edge.scenarios[1].sol_score == 0.0);
  CHECK(edge.scenarios[1].has_flag("baseline_below_sol"));
}

TEST_CASE("the score is said to be absent when the problem gives no T_SOL", "[suite][score]") {
  auto p = three_workloads();
  for (auto& w : p.workloads) w.t_sol_ms.reset();
  EvalReport r = three_scenarios();
  suite::apply_sol_scores(r, p, "pytorch_eager");
  CHECK(std::isnan(r.mean_sol_score()));
  const json j = r;
  CHECK(j.at("sol_score") == "absent");
  CHECK_THAT(j.at("sol_score_absent").get<std::string>(), Contains("gives no T_SOL"));
  CHECK_THAT(format_report_table(r), Contains("SOL score: absent (the problem gives no T_SOL"));
  CHECK_THAT(format_report_table(r), !Contains(" S "));

  // A KernelBench problem has no SOL score at all, and a native report says nothing of it.
  EvalReport kb = three_scenarios();
  suite::apply_sol_scores(kb, three_workloads(suite::ProblemOrigin::kernelbench), "pytorch_eager");
  CHECK(std::isnan(kb.scenarios[0].sol_score));
  CHECK_FALSE(json(kb).contains("sol_score"));
  CHECK_THAT(format_report_table(kb), !Contains("SOL score"));
}

TEST_CASE("the suite report's row takes its score from the best candidate's report", "[suite][score]") {
  ProblemStanding s;
  s.name = "score_test";
  EvaluationRecord check;
  check.report = three_scenarios();
  suite::apply_sol_scores(check.report, three_workloads(), "pytorch_eager");
  s.incumbent_check = check;

  const SuiteRow computed = suite_row(s, {}, 0.9);  // computed from the times, over the file's number
  REQUIRE(computed.score);
  CHECK(*computed.score == Approx(0.625));
  CHECK(computed.score_source == "sol_execbench");
  CHECK(computed.scenarios[0].sol_score == Approx(0.75));

  SuiteReportModel m;
  m.rows.push_back(computed);
  ProblemStanding absent = s;
  absent.name = "no_tsol";
  auto p = three_workloads();
  for (auto& w : p.workloads) w.t_sol_ms.reset();
  absent.incumbent_check->report = three_scenarios();
  suite::apply_sol_scores(absent.incumbent_check->report, p, "pytorch_eager");
  m.rows.push_back(suite_row(absent));
  ProblemStanding filed = absent;
  filed.name = "filed";
  m.rows.push_back(suite_row(filed, {}, 0.4));  // no T_SOL: the suite file's score stays
  complete_suite_model(m);

  const json j = suite_report_json(m);
  CHECK(j.at("problems").at(0).at("score").get<double>() == Approx(0.625));
  CHECK(j.at("problems").at(0).at("score_source") == "sol_execbench");
  CHECK(j.at("problems").at(0).at("scenarios").at(1).at("sol_score").get<double>() == Approx(0.5));
  CHECK(j.at("problems").at(1).at("score") == "absent");
  CHECK_THAT(j.at("problems").at(1).at("score_source").get<std::string>(), Contains("absent: the problem gives no T_SOL"));
  CHECK(j.at("problems").at(2).at("score").get<double>() == Approx(0.4));
  CHECK(j.at("problems").at(2).at("score_source") == "suite file");
  const std::string html = suite_report_html(m);
  CHECK_THAT(html, Contains("title=\"sol_execbench\">0.625<"));
  CHECK_THAT(html, Contains("S 0.750"));
}

TEST_CASE("problem check shows each workload's T_SOL", "[suite][score]") {
  socratic::ProcessOptions o;
  o.timeout = std::chrono::minutes(1);
  o.environment = socratic::scrubbed_environment();
  const auto r = socratic::run_process({SOCRATIC_TOOL_PATH, "problem", "check", (score_problems() / "rmsnorm_h4096").string()}, o);
  INFO(r.stdout_text << r.stderr_text);
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.stdout_text, Contains("T_SOL 0.01398 ms") && Contains("T_SOL 0.000439 ms"));
}
