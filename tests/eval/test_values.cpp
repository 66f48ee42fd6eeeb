// Pure parts of the evaluator: the problem registry and scenario validation, statistics and
// roofline helpers, runner event parsing, integrity manifests, report tables.
#include <cmath>
#include <limits>
#include <map>
#include <regex>
#include <set>

#include "catch.hpp"
#include "eval_fixtures.hpp"
#include "socratic/eval/integrity.hpp"
#include "socratic/eval/problem_registry.hpp"
#include "socratic/eval/report_table.hpp"
#include "socratic/eval/roofline.hpp"
#include "socratic/eval/runner_protocol.hpp"
#include "socratic/eval/stats.hpp"

using namespace socratic;
using eval_test::TempDir;
using eval_test::write_file;
using Catch::Matchers::Contains;

namespace {
const double nan_value = std::numeric_limits<double>::quiet_NaN();
}

TEST_CASE("the registry reads problems.json and each problem.json", "[eval][registry]") {
  TempDir tmp("registry");
  eval_test::fake_data_dir(tmp.path);
  const ProblemRegistry reg = ProblemRegistry::load(tmp / "kernels");
  const ProblemSpec& toy = reg.get("toy");
  CHECK(toy.entry_point == "toy_forward");
  CHECK(toy.runner_sources == std::vector<std::string>{"problem.cu"});
  CHECK(toy.baseline_path() == (tmp / "kernels/toy/baseline.cu").lexically_normal());
  REQUIRE(toy.parameter("dtype"));
  CHECK(toy.parameter("dtype")->allowed.size() == 2);
  CHECK(toy.parameter("n")->required);
  CHECK(toy.parameter("n")->min == 1.0);
  CHECK(toy.parameter("causal")->default_value == json(false));
  CHECK(toy.divisible == std::vector<std::vector<std::string>>{{"n", "groups"}});
  CHECK_THROWS_WITH(reg.get("attention"), Contains("unknown problem \"attention\"") && Contains("known: toy"));

  // The entry point the candidate exports must be the one its interface header declares.
  write_file(tmp / "kernels/toy/toy_args.h", "extern \"C\" int toy_forward_v2(const void* args);\n");
  CHECK_THROWS_WITH(ProblemRegistry::load(tmp / "kernels").get("toy"),
                    Contains("problem.json") && Contains("field \"entry_point\"") &&
                        Contains("\"toy_forward\" is not declared in args_header"));
  CHECK(declares_identifier("int toy_forward(void);", "toy_forward"));
  CHECK_FALSE(declares_identifier("int toy_forward_v2(void);", "toy_forward"));
}

TEST_CASE("the repository's problems and scenario sets pass validation", "[eval][registry]") {
  // Each problem engineer writes kernels/<problem>/problem.json and scenarios/*.json in the format
  // of docs/runner-protocol.md: every one that exists must load and validate.
  namespace fs = std::filesystem;
  const fs::path root = SOCRATIC_SOURCE_DIR;
  const json index = read_json_file(root / "kernels/problems.json");
  std::map<std::string, ProblemSpec> problems;
  for (const auto& p : index.at("problems")) {
    const fs::path file = root / "kernels" / p.at("folder").get<std::string>() / "problem.json";
    if (fs::exists(file)) problems.emplace(p.at("name"), load_problem_spec(file, p.at("name").get<std::string>()));
  }
  int validated = 0;
  for (const auto& entry : fs::directory_iterator(root / "scenarios")) {
    if (entry.path().extension() != ".json") continue;
    const std::string problem = read_json_file(entry.path()).value("problem", "");
    auto it = problems.find(problem);
    if (it == problems.end()) continue;
    INFO(entry.path().string());
    CHECK_NOTHROW(load_scenarios_for(it->second, entry.path()));
    ++validated;
  }
  if (problems.size() == index.at("problems").size()) CHECK_NOTHROW(ProblemRegistry::load(root / "kernels"));
  CHECK(validated > 0);  // the repository has scenario sets of its problems: none validated is a failure
}

TEST_CASE("a repository problem's folder holds only its judge", "[eval][registry][integrity]") {
  // The evaluator protects and hashes every file under a problem's folder (integrity manifest,
  // runner build), so a tool or a contestant kept there would fail running campaigns when edited
  // and rebuild the runner. Allowed: problem.json, the args header, the baseline, the runner's
  // sources, and the headers those include (transitively).
  namespace fs = std::filesystem;
  const fs::path root = SOCRATIC_SOURCE_DIR;
  const ProblemRegistry registry = ProblemRegistry::load(root / "kernels");
  const json index = read_json_file(root / "kernels/problems.json");
  REQUIRE(index.at("problems").size() >= 2);
  const std::regex include_line(R"re(#include\s*"([^"]+)")re");
  for (const auto& entry : index.at("problems")) {
    const ProblemSpec& p = registry.get(entry.at("name").get<std::string>());
    std::set<std::string> judge = {"problem.json", p.args_header, p.baseline};
    judge.insert(p.runner_sources.begin(), p.runner_sources.end());
    std::vector<std::string> todo(judge.begin(), judge.end());
    while (!todo.empty()) {
      const fs::path file = p.folder / todo.back();
      todo.pop_back();
      const std::string text = socratic::read_file_bytes(file);
      for (std::sregex_iterator it(text.begin(), text.end(), include_line), end; it != end; ++it) {
        const std::string header = (*it)[1];
        if (fs::exists(p.folder / header) && judge.insert(header).second) todo.push_back(header);
      }
    }
    for (const auto& f : fs::recursive_directory_iterator(p.folder)) {
      const std::string relative = fs::relative(f.path(), p.folder).string();
      INFO("problem " << p.name << ": " << relative);
      CHECK(judge.count(relative) == 1);
    }
  }
}

TEST_CASE("problem.json errors name the file, the parameter and the field", "[eval][registry]") {
  TempDir tmp("registry_errors");
  eval_test::fake_data_dir(tmp.path);
  const auto problem_file = tmp / "kernels/toy/problem.json";
  json doc = read_json_file(problem_file);
  auto expect_error = [&](json broken, const std::string& a, const std::string& b) {
    write_file(problem_file, broken.dump());
    CHECK_THROWS_WITH(ProblemRegistry::load(tmp / "kernels"),
                      Contains("problem.json") && Contains(a) && Contains(b));
  };
  SECTION("unknown type") {
    doc["parameters"]["n"]["type"] = "integer";
    expect_error(doc, "parameter \"n\" field \"type\"", "\"int\", \"number\", \"string\" or \"bool\"");
  }
  SECTION("unknown field in a parameter") {
    doc["parameters"]["n"]["minimum"] = 1;
    expect_error(doc, "parameter \"n\"", "unknown field \"minimum\"");
  }
  SECTION("a default outside the enum") {
    doc["parameters"]["dtype"]["default"] = "fp8";
    expect_error(doc, "parameter \"dtype\" field \"default\"", "must be one of");
  }
  SECTION("required with a default") {
    doc["parameters"]["n"]["default"] = 4;
    expect_error(doc, "parameter \"n\"", "cannot have a default");
  }
  SECTION("divisible names an unknown parameter") {
    doc["divisible"] = json::array({json::array({"n", "heads"})});
    expect_error(doc, "divisible", "\"heads\", which is not a declared parameter");
  }
  SECTION("a missing baseline file") {
    doc["baseline"] = "nope.cu";
    expect_error(doc, "field \"baseline\"", "does not exist");
  }
  SECTION("name differs from the registration") {
    doc["name"] = "other";
    expect_error(doc, "field \"name\"", "registers \"toy\"");
  }
  SECTION("unknown top-level field") {
    doc["runner_source"] = json::array();
    expect_error(doc, "field \"runner_source\"", "unknown field");
  }
}

TEST_CASE("scenario sets are validated against the problem's parameters", "[eval][registry]") {
  TempDir tmp("scenario_validation");
  eval_test::fake_data_dir(tmp.path);
  const ProblemSpec toy = ProblemRegistry::load(tmp / "kernels").get("toy");

  SECTION("a valid set gets the declared defaults") {
    const ScenarioSet set = load_scenarios_for(toy, tmp / "scenarios/toy.json");
    REQUIRE(set.scenarios.size() == 4);
    CHECK(set.scenarios[0].params == json{{"n", 8}, {"groups", 1}, {"dtype", "bf16"}, {"causal", false}});
    CHECK(set.scenarios[1].params["dtype"] == "fp16");
    CHECK(set.scenarios[3].params["scale"] == 0.5);
    CHECK_FALSE(set.scenarios[0].params.contains("scale"));  // optional, no default: stays absent
  }
  auto expect = [&](const std::string& scenarios, const std::string& where, const std::string& what) {
    const auto file = write_file(tmp / "scenarios/bad.json",
                                 R"({"name": "bad", "problem": "toy", "scenarios": )" + scenarios + "}");
    CHECK_THROWS_WITH(load_scenarios_for(toy, file), Contains("bad.json") && Contains(where) && Contains(what));
  };
  SECTION("unknown parameter, with a suggestion") {
    expect(R"([{"id": "x", "n": 8, "dtpye": "bf16"}])", "scenario \"x\" field \"dtpye\"",
           "unknown parameter (did you mean \"dtype\"?)");
  }
  SECTION("unknown parameter, far from any") {
    expect(R"([{"id": "x", "n": 8, "window": 3}])", "scenario \"x\" field \"window\"", "known: causal, dtype");
  }
  SECTION("missing required") { expect(R"([{"id": "x"}])", "scenario \"x\" field \"n\"", "required parameter is missing"); }
  SECTION("wrong type") {
    expect(R"([{"id": "x", "n": "8"}])", "scenario \"x\" field \"n\"", "expected an integer, found string");
    expect(R"([{"id": "x", "n": 8.5}])", "scenario \"x\" field \"n\"", "expected an integer");
    expect(R"([{"id": "x", "n": 8, "causal": 1}])", "scenario \"x\" field \"causal\"", "expected true or false");
  }
  SECTION("below the minimum") { expect(R"([{"id": "x", "n": 0}])", "scenario \"x\" field \"n\"", "must be >= 1, found 0"); }
  SECTION("outside the enum") {
    expect(R"([{"id": "x", "n": 8, "dtype": "fp8"}])", "scenario \"x\" field \"dtype\"",
           "must be one of \"bf16\", \"fp16\", found \"fp8\"");
  }
  SECTION("not divisible") {
    expect(R"([{"id": "x", "n": 10, "groups": 4}])", "scenario \"x\" fields \"n\", \"groups\"",
           "n (10) must be a multiple of groups (4)");
  }
  SECTION("an id the runner's --only could not name") {
    expect(R"([{"id": "x,y", "n": 8}])", "scenario \"x,y\" field \"id\"", "commas");
  }
  SECTION("every issue is listed, the first one leads") {
    expect(R"([{"id": "x", "n": 0}, {"id": "y", "n": 8, "bogus": 1}])", "scenario \"x\" field \"n\"",
           "scenario \"y\" field \"bogus\"");
  }
  SECTION("an unknown default is named once, where it is written") {
    const auto file = write_file(tmp / "scenarios/bad.json", R"({"name": "bad", "problem": "toy",
      "defaults": {"nn": 1}, "scenarios": [{"id": "x", "n": 8}, {"id": "y", "n": 8}]})");
    CHECK_THROWS_WITH(load_scenarios_for(toy, file), Contains("defaults field \"nn\"") && !Contains("scenario \"y\""));
  }
  SECTION("a set for another problem") {
    const auto file = write_file(tmp / "scenarios/other.json",
                                 R"({"name": "o", "problem": "attention", "scenarios": [{"id": "x", "n": 8}]})");
    CHECK_THROWS_WITH(load_scenarios_for(toy, file), Contains("field \"problem\"") && Contains("not \"toy\""));
  }
}

TEST_CASE("statistics helpers", "[eval][stats]") {
  const std::vector<double> odd = {3, 1, 2}, even = {4, 1, 3, 2};
  CHECK(stats::median(odd) == 2);
  CHECK(stats::median(even) == 2.5);
  CHECK(std::isnan(stats::median(std::vector<double>{})));
  CHECK(std::isnan(stats::median(std::vector<double>{1, nan_value})));
  CHECK(stats::mean(even) == 2.5);
  const std::vector<double> samples = {1.0, 1.02, 0.98, 1.0};
  CHECK(stats::relative_spread(samples) == Approx(0.016329931618554516).epsilon(1e-12));
  CHECK(std::isnan(stats::relative_spread(std::vector<double>{1.0})));
  CHECK(stats::geomean(std::vector<double>{1, 4}) == Approx(2.0));
  CHECK(stats::geomean(std::vector<double>{2, 8, 4}) == Approx(4.0));
  CHECK(std::isnan(stats::geomean(std::vector<double>{2, 0})));
  CHECK(std::isnan(stats::geomean(std::vector<double>{2, nan_value})));
  std::size_t skipped = 0;
  CHECK(stats::geomean_of_finite(std::vector<double>{2, nan_value, 8}, &skipped) == Approx(4.0));
  CHECK(skipped == 1);
  CHECK(stats::faster_beyond_noise(1.0, 0.01, 1.05, 0.01));
  CHECK_FALSE(stats::faster_beyond_noise(1.0, 0.03, 1.05, 0.03));
  CHECK_FALSE(stats::faster_beyond_noise(1.0, nan_value, 1.0, nan_value));
}

TEST_CASE("roofline helpers", "[eval][roofline]") {
  const roofline::Peaks h200{989.0, 4800.0};
  // 1 TFLOP of work at 989 TFLOP/s: ~1.011 ms; 1 GB at 4800 GB/s: ~0.208 ms. Compute-bound.
  CHECK(roofline::floor_ms(1e12, 1e9, h200) == Approx(1.0 / 989.0 * 1e3));
  // Memory-bound: 48 GB in 10 ms.
  CHECK(roofline::floor_ms(1e9, 48e9, h200) == Approx(10.0));
  CHECK(roofline::floor_ms(1e12, 1e9, {nan_value, 4800.0}) == Approx(1e9 / 4800e9 * 1e3));
  CHECK(std::isnan(roofline::floor_ms(1e12, 1e9, {})));
  CHECK(roofline::tflops(2e12, 4.0) == Approx(500.0));
  CHECK(std::isnan(roofline::tflops(2e12, 0)));
  CHECK(roofline::fraction(0.5, 2.0) == Approx(0.25));
  CHECK(roofline::below_floor(0.9, 1.0));
  CHECK_FALSE(roofline::below_floor(0.99, 1.0));  // within the 2 % tolerance
  CHECK_FALSE(roofline::below_floor(nan_value, 1.0));
  CHECK(roofline::above_peak(1100.0, h200));
  CHECK_FALSE(roofline::above_peak(1000.0, h200));
}

TEST_CASE("runner events parse per docs/runner-protocol.md", "[eval][protocol]") {
  using Kind = RunnerEvent::Kind;
  auto hello = parse_runner_event(
      R"({"event":"hello","protocol":1,"problem":"attention","device":"NVIDIA H200","arch":"sm_90",)"
      R"("sm_count":132,"l2_bytes":62914560,"peak_tflops":989.4,"peak_gbps":4800})");
  REQUIRE(hello.kind == Kind::hello);
  CHECK(hello.hello.device == "NVIDIA H200");
  CHECK(hello.hello.l2_bytes == 62914560);
  CHECK(hello.hello.peak_tflops == Approx(989.4));
  auto begin = parse_runner_event(R"({"event":"scenario_begin","index":3,"id":"b2_s1024"})");
  CHECK(begin.kind == Kind::scenario_begin);
  CHECK(begin.index == 3);
  CHECK(begin.id == "b2_s1024");
  ScenarioResult r;
  r.id = "b2";
  r.correct = true;
  r.speedup = 1.5;
  r.flags = {"noisy"};
  auto end = parse_runner_event(json{{"event", "scenario_end"}, {"result", r}, {"timing_s", 0.25}}.dump());
  REQUIRE(end.kind == Kind::scenario_end);
  CHECK(end.result.id == "b2");
  CHECK(end.result.speedup == 1.5);
  CHECK(end.result.has_flag("noisy"));
  CHECK(std::isnan(end.result.candidate_ms));  // null in JSON
  CHECK(end.timing_s == 0.25);
  CHECK(std::isnan(end.check_s));
  auto libs = parse_runner_event(R"({"event":"libraries","mapped":["/usr/lib/libcudnn.so.9"]})");
  CHECK(libs.mapped == std::vector<std::string>{"/usr/lib/libcudnn.so.9"});
  CHECK(parse_runner_event(R"({"event":"fatal","message":"boom"})").message == "boom");
  CHECK(parse_runner_event(R"({"event":"done","scenarios":36})").scenarios == 36);
  CHECK(parse_runner_event(R"({"event":"telemetry","x":1})").kind == Kind::unknown);

  auto bad = parse_runner_event("Segmentation fault");
  CHECK(bad.kind == Kind::malformed);
  CHECK(bad.message == "not JSON");
  CHECK(parse_runner_event("[1,2]").message == "not a JSON object");
  CHECK(parse_runner_event(R"({"id":"x"})").message == "no string member \"event\"");
  auto no_result = parse_runner_event(R"({"event":"scenario_end"})");
  CHECK(no_result.kind == Kind::malformed);
  CHECK_THAT(no_result.message, Contains("event \"scenario_end\"") && Contains("missing field \"result\""));
  auto bad_number = parse_runner_event(R"({"event":"scenario_end","result":{"id":"x","correct":true,"speedup":"fast"}})");
  CHECK(bad_number.kind == Kind::malformed);
  CHECK_THAT(bad_number.message, Contains("speedup"));
  CHECK(parse_runner_event(R"({"event":"scenario_begin","id":"x"})").kind == Kind::malformed);
}

TEST_CASE("integrity manifests detect modified, removed and added files", "[eval][integrity]") {
  TempDir tmp("integrity");
  eval_test::fake_data_dir(tmp.path);
  const auto scenarios = tmp / "scenarios/toy.json";
  IntegrityManifest m = record_integrity({scenarios, tmp / "kernels/problems.json"},
                                         {tmp / "kernels/harness", tmp / "kernels/toy"}, tmp.path);
  CHECK(m.files.size() == 2 + 2 + 4);
  CHECK(verify_integrity(m).empty());
  CHECK(m.covers(tmp / "kernels/toy/problem.cu"));
  CHECK_FALSE(m.covers(tmp / "kernels/other.cu"));

  // A manifest saved at campaign start reads back the same.
  save_integrity_manifest(m, tmp / "manifest.json");
  CHECK(load_integrity_manifest(tmp / "manifest.json") == m);

  SECTION("modified") {
    write_file(tmp / "kernels/toy/problem.cu", "// toy problem, now lenient\n");
    const auto issues = verify_integrity(m);
    REQUIRE(issues.size() == 1);
    CHECK_THAT(issues[0], Contains("kernels/toy/problem.cu was modified") && Contains("sha256"));
  }
  SECTION("removed") {
    std::filesystem::remove(scenarios);
    const auto issues = verify_integrity(m);
    REQUIRE(issues.size() == 1);
    CHECK_THAT(issues[0], Contains("scenarios/toy.json was removed"));
  }
  SECTION("added to a protected folder") {
    write_file(tmp / "kernels/harness/override.cuh", "#define TOLERANCE 1e9\n");
    const auto issues = verify_integrity(m);
    REQUIRE(issues.size() == 1);
    CHECK_THAT(issues[0], Contains("new file kernels/harness/override.cuh appeared in kernels/harness"));
  }
  SECTION("a corrupt manifest names its field") {
    write_file(tmp / "bad_manifest.json", R"({"files": {"/x": "not-a-digest"}})");
    CHECK_THROWS_WITH(load_integrity_manifest(tmp / "bad_manifest.json"),
                      Contains("bad_manifest.json") && Contains("not a SHA-256"));
  }
}

namespace {
EvalReport sample_report() {
  EvalReport r;
  r.problem = "attention";
  r.scenario_set = "fa3_grid";
  r.candidate.source = "attn.cu";
  r.gpu = "NVIDIA H200";
  r.arch = "sm_90";
  r.built = true;
  r.expected = {"s512_d64", "s1k_d128", "s2k_d256"};
  ScenarioResult a;
  a.id = "s512_d64";
  a.correct = true;
  a.max_abs_error = 0.0012;
  a.tolerance = 0.004;
  a.candidate_ms = 0.5;
  a.baseline_ms = 0.6;
  a.speedup = 1.2;
  a.tflops = 300;
  a.roofline_fraction = 0.42;
  a.candidate_noise = 0.003;
  a.baseline_noise = 0.004;
  ScenarioResult b = a;
  b.id = "s1k_d128";
  b.speedup = 1.2 * 1.2;
  b.flags = {"noisy"};
  ScenarioResult c;
  c.id = "s2k_d256";
  c.correct = false;
  c.reason = "max error 0.5 > tolerance 0.004";
  r.scenarios = {a, b, c};
  r.banned = {{"candidate.so", "cublas", "DT_NEEDED libcublas.so.13"}};
  r.timings = {1.5, 2.0, 3.0, 6.6, true};
  return r;
}
}  // namespace

TEST_CASE("the report table shows every scenario, the geomean, findings and the build", "[eval][table]") {
  EvalReport r = sample_report();
  const std::string table = format_report_table(r);
  CHECK_THAT(table, Contains("problem attention | scenarios fa3_grid | candidate attn.cu | NVIDIA H200 sm_90"));
  CHECK_THAT(table, Contains("build: ok (cached), 1.50 s"));
  CHECK_THAT(table, Contains("s512_d64") && Contains("PASS") && Contains("1.20e-03/4.00e-03") &&
                        Contains("0.5000") && Contains("1.200x") && Contains("300.0") && Contains("42.0%") &&
                        Contains("0.3%/0.4%"));
  CHECK_THAT(table, Contains("noisy"));
  CHECK_THAT(table, Contains("FAIL") && Contains("reason: max error 0.5 > tolerance 0.004"));
  CHECK_THAT(table, Contains("2/3 correct; geomean speedup n/a"));
  CHECK_THAT(table, Contains("banned: cublas in candidate.so: DT_NEEDED libcublas.so.13"));
  CHECK_THAT(table, Contains("time: build 1.50 s, check 2.00 s, timing 3.00 s, total 6.60 s"));

  r.scenarios[2] = r.scenarios[0];
  r.scenarios[2].id = "s2k_d256";
  r.scenarios[2].speedup = 1.2 * 1.2 * 1.2;
  CHECK_THAT(format_report_table(r), Contains("3/3 correct; geomean speedup 1.440x"));

  r.scenarios.pop_back();
  CHECK_THAT(format_report_table(r), Contains("MISSING") && Contains("reason: no result for this scenario"));

  EvalReport failed;
  failed.expected = {"x"};
  failed.build_log = "attn.cu(12): error: identifier \"foo\" is undefined\nsome note\n";
  CHECK_THAT(format_report_table(failed), Contains("build: FAILED") && Contains("attn.cu(12): error") &&
                                             Contains("no scenario was judged (1 expected)") && !Contains("MISSING"));
}

TEST_CASE("the compact report puts failures first and fits a model's context", "[eval][table]") {
  EvalReport r = sample_report();
  const std::string compact = format_report_compact(r);
  CHECK(compact.rfind("NOT ACCEPTED; 2/3 correct", 0) == 0);
  const auto fail_at = compact.find("s2k_d256: FAIL max error 0.5 > tolerance 0.004");
  const auto ok_at = compact.find("s512_d64: ok 1.200x (0.5 vs 0.6 ms, 300.0 TFLOP/s, 42.0% of roofline)");
  REQUIRE(fail_at != std::string::npos);
  REQUIRE(ok_at != std::string::npos);
  CHECK(fail_at < ok_at);
  CHECK_THAT(compact, Contains("s1k_d128: ok 1.440x") && Contains("[noisy]"));
  CHECK_THAT(compact, Contains("BANNED cublas: DT_NEEDED libcublas.so.13"));

  // Scenarios failing for one reason share a line.
  EvalReport same = sample_report();
  same.expected = {"a", "b", "c", "d", "e", "f"};
  same.scenarios.clear();
  for (const auto& id : same.expected) {
    ScenarioResult r;
    r.id = id;
    r.reason = "not run: no driver";
    same.scenarios.push_back(r);
  }
  same.scenarios[5].reason = "tolerance: too far";
  const std::string grouped = format_report_compact(same);
  CHECK_THAT(grouped, Contains("a, b, c, d and 1 more: FAIL not run: no driver\nf: FAIL tolerance: too far\n"));

  EvalReport failed;
  failed.expected = {"x"};
  failed.build_log = "warning: unused\nk.cu(3): error: expected a \";\"\n";
  const std::string text = format_report_compact(failed);
  CHECK_THAT(text, Contains("BUILD FAILED") && Contains("k.cu(3): error") && !Contains("warning: unused"));
}
