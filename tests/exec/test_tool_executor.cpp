// `socratic eval --executor local` with the CUDA evaluator on the fake toolchain of the
// evaluator tests (tests/eval/fake_tool.cpp plays nvcc and the runner): several candidates
// built ahead and judged on fake GPUs give the reports a plain `socratic eval` gives; and a
// campaign file's `executor` section.
#include "../eval/eval_fixtures.hpp"
#include "catch.hpp"
#include "exec_fixtures.hpp"
#include "socratic/core/report.hpp"
#include "socratic/process/run_process.hpp"

using namespace socratic;
using namespace exec_fixtures;
using Catch::Matchers::Contains;

namespace {

struct SocraticRun {
  int exit_code;
  std::string out, err;
};

SocraticRun run_socratic(const std::vector<std::string>& args, const fs::path& data) {
  std::vector<std::string> argv = {socratic_exe().string()};
  argv.insert(argv.end(), args.begin(), args.end());
  ProcessOptions o;
  o.environment = scrubbed_environment();
  o.environment->push_back("SOCRATIC_DATA_DIR=" + data.string());
  o.environment->push_back("SOCRATIC_SKIP_GPU_CHECK=1");  // the fake runner needs no GPU
  o.timeout = std::chrono::minutes(2);
  const ProcessResult r = run_process(argv, o);
  return {r.exit_code, r.stdout_text, r.stderr_text};
}

/// The parts of a report that are its verdict (not its timings).
json verdict(const EvalReport& r) {
  json scenarios = json::array();
  for (const auto& s : r.scenarios)
    scenarios.push_back({{"id", s.id}, {"correct", s.correct}, {"reason", s.reason}, {"speedup", s.speedup}});
  return {{"problem", r.problem}, {"set", r.scenario_set}, {"source", r.candidate.source.string()},
          {"hash", r.candidate.content_hash}, {"built", r.built}, {"error", r.error}, {"expected", r.expected},
          {"scenarios", scenarios}, {"banned", r.banned.size()}};
}

}  // namespace

TEST_CASE("socratic eval --executor local: CUDA candidates through the pool, the same reports as in-process", "[exec][tool]") {
  eval_test::TempDir tmp("exec_eval");
  const fs::path tools = eval_test::fake_tools(tmp / "bin");
  const fs::path data = eval_test::fake_data_dir(tmp / "data");
  const fs::path honest = eval_test::write_file(tmp / "work/honest.cu", "// honest\nfake: speedup b 2.0\n");
  const fs::path failing = eval_test::write_file(tmp / "work/failing.cu", "fake: fail b off by one\n");
  const fs::path broken = eval_test::write_file(tmp / "work/broken.cu", "FAKE_COMPILE_ERROR\n");
  const std::vector<std::string> common = {"--problem", "toy", "--scenarios", "toy", "--nvcc", (tools / "nvcc").string(),
                                           "--arch", "sm_90a", "--cache-dir", (tmp / "cache").string(), "--no-scan",
                                           "--watchdog", "5"};
  std::vector<std::string> args = {"eval", honest.string(), failing.string(), broken.string(), "--executor", "local",
                                   "--gpus", "0,1", "--build-workers", "2", "--json", (tmp / "reports.json").string()};
  args.insert(args.end(), common.begin(), common.end());
  const SocraticRun pooled = run_socratic(args, data);
  INFO(pooled.out << pooled.err);
  CHECK(pooled.exit_code == 1);  // judged, not all accepted
  CHECK_THAT(pooled.err, Contains("3 job(s) on local GPU pool (GPUs 0,1, 2 build workers"));
  const json reports = read_json_file(tmp / "reports.json");
  REQUIRE(reports.is_array());
  REQUIRE(reports.size() == 3);
  std::vector<EvalReport> through_pool;
  for (const auto& r : reports) through_pool.push_back(r.get<EvalReport>());
  CHECK(through_pool[0].all_correct());
  CHECK_FALSE(through_pool[1].all_correct());
  CHECK_FALSE(through_pool[2].built);
  CHECK_THAT(through_pool[2].build_log, Contains(broken.string().c_str()));  // the submitted file, not a snapshot

  // The same candidates judged in this process: the same verdicts, word for word.
  for (std::size_t i = 0; i < 3; ++i) {
    const fs::path cand = i == 0 ? honest : i == 1 ? failing : broken;
    std::vector<std::string> one = {"eval", cand.string(), "--json", (tmp / "one.json").string()};
    one.insert(one.end(), common.begin(), common.end());
    const SocraticRun direct = run_socratic(one, data);
    INFO(direct.out << direct.err);
    const EvalReport in_process = read_json_file(tmp / "one.json").get<EvalReport>();
    CHECK(verdict(through_pool[i]) == verdict(in_process));
  }

  // A correctness-first cascade: the failing candidate stops after its first stage.
  std::vector<std::string> cascade = {"eval", failing.string(), "--executor", "local", "--gpus", "0", "--cascade", "3",
                                      "--json", (tmp / "cascade.json").string()};
  cascade.insert(cascade.end(), common.begin(), common.end());
  const SocraticRun c = run_socratic(cascade, data);
  INFO(c.out << c.err);
  const EvalReport stopped = read_json_file(tmp / "cascade.json").get<EvalReport>();
  CHECK(stopped.expected == std::vector<std::string>{"a", "b", "c", "d"});
  CHECK_THAT(stopped.find("c")->reason, Contains("not run: the correctness stage failed on"));

  // Bad executor flags are refused before anything runs.
  std::vector<std::string> bad = {"eval", honest.string(), "--executor", "cloud"};
  bad.insert(bad.end(), common.begin(), common.end());
  CHECK(run_socratic(bad, data).exit_code == 2);
  bad = {"eval", honest.string(), "--executor", "slurm"};
  bad.insert(bad.end(), common.begin(), common.end());
  const SocraticRun no_dir = run_socratic(bad, data);
  CHECK(no_dir.exit_code == 2);
  CHECK_THAT(no_dir.err, Contains("needs --run-dir"));
  bad = {"eval", honest.string(), failing.string()};
  bad.insert(bad.end(), common.begin(), common.end());
  CHECK_THAT(run_socratic(bad, data).err, Contains("several go through --executor"));
}

namespace {

std::string stop_input(const std::string& message, bool active, const fs::path& cwd) {
  return json{{"session_id", "s1"}, {"transcript_path", "/tmp/t.jsonl"}, {"cwd", cwd.string()},
              {"hook_event_name", "Stop"}, {"stop_hook_active", active}, {"last_assistant_message", message}}
      .dump();
}

ProcessResult socratic_with_stdin(const std::vector<std::string>& args, const std::string& input) {
  std::vector<std::string> argv = {socratic_exe().string()};
  argv.insert(argv.end(), args.begin(), args.end());
  ProcessOptions o;
  o.stdin_data = input;
  o.timeout = std::chrono::minutes(3);
  return run_process(argv, o);
}

}  // namespace

TEST_CASE("a campaign file's executor section sends the hook's evaluations through the pool, cascade first", "[exec][tool]") {
  const fs::path ws = fresh_dir("campaign_executor");
  const ProcessResult init = socratic_with_stdin(
      {"init", ws.string(), "--problem", "softmax_cpu", "--scenarios", (cpu_problem() / "scenarios.json").string(),
       "--baseline", (cpu_problem() / "baseline.cpp").string(), "--evaluator-command",
       "bash " + (cpu_problem() / "evaluate.sh").string() + " {candidate} {scenarios}", "--goal", R"({"all_correct":{}})",
       "--agent", "none"},
      "");
  INFO(init.stdout_text << init.stderr_text);
  REQUIRE(init.ok());
  const fs::path file = ws / "campaign.json";
  const fs::path workspace = ws / "workspace";  // init's layout: DIR/workspace, DIR/state
  // The judge in a folder of the test's own, so that the test can edit it.
  fs::create_directories(ws / "judge");
  for (const char* f : {"evaluate.sh", "harness.cpp", "baseline.cpp"})
    fs::copy_file(cpu_problem() / f, ws / "judge" / f);
  json c = json::parse(read_text(file));
  c["evaluator"]["command"] = {"bash", (ws / "judge" / "evaluate.sh").string(), "{candidate}", "{scenarios}"};
  c["executor"] = {{"kind", "local"}, {"gpus", "0"}, {"build_workers", 0}, {"cascade", {{"count", 2}}}};
  write_text(file, c.dump(1));

  write_text(workspace / "candidate.cpp", read_text(cpu_problem() / "fast_tail_bug.cpp"));
  ProcessResult r =
      socratic_with_stdin({"hook", "stop", "--campaign", file.string()}, stop_input("Done.", false, workspace));
  INFO(r.stderr_text);
  REQUIRE(r.exit_code == 0);
  const json block = json::parse(r.stdout_text);
  CHECK(block["decision"] == "block");
  const std::string reason = block["reason"];
  CHECK_THAT(reason, Contains("r128_c4097") && Contains("r512_c1000"));  // every scenario, the unrun ones too
  CHECK_THAT(reason, Contains("not run: the correctness stage failed on r128_c4097"));

  // The job is in the campaign's run folder: a correctness stage on two scenarios, nothing else.
  const fs::path journal = ws / "state" / "executor" / "journal.jsonl";
  REQUIRE(fs::exists(journal));
  std::vector<json> submitted;
  std::istringstream lines(read_text(journal));
  for (std::string line; std::getline(lines, line);)
    if (json e = json::parse(line); e["event"] == "submitted") submitted.push_back(e["job"]);
  REQUIRE(submitted.size() == 1);
  CHECK(submitted[0]["purpose"] == "correctness");
  CHECK(submitted[0]["scenarios"]["ids"] == json::array({"r2048_c64", "r128_c4097"}));

  write_text(workspace / "candidate.cpp", read_text(cpu_problem() / "fast_fixed.cpp"));
  r = socratic_with_stdin({"hook", "stop", "--campaign", file.string()}, stop_input("Fixed.", true, workspace));
  INFO(r.stderr_text);
  CHECK(r.exit_code == 0);
  // Allowed: the goal holds on every scenario; the person is told so (no decision, a systemMessage).
  const json allowed = json::parse(r.stdout_text);
  CHECK_FALSE(allowed.contains("decision"));
  CHECK_THAT(allowed.value("systemMessage", std::string()), Contains("the goal holds on every scenario"));

  // An edited judge stops the evaluation before any job is submitted, as in process.
  std::ofstream(ws / "judge" / "harness.cpp", std::ios::app) << "// a relaxed tolerance\n";
  write_text(workspace / "candidate.cpp", read_text(cpu_problem() / "fast_fixed.cpp") + "// another version\n");
  r = socratic_with_stdin({"hook", "stop", "--campaign", file.string()}, stop_input("Again.", false, workspace));
  CHECK_THAT(r.stdout_text, Contains("integrity check failed") && Contains("harness.cpp"));
  std::size_t jobs = 0;
  std::istringstream again(read_text(journal));
  for (std::string line; std::getline(again, line);) jobs += json::parse(line)["event"] == "submitted";
  CHECK(jobs == 3);  // the tail bug's first stage, the fixed candidate's two: none for the edited judge

  // A bad section is named, field and all.
  c["executor"] = {{"kind", "local"}, {"gpus", "zero"}};
  write_text(file, c.dump(1));
  r = socratic_with_stdin({"hook", "stop", "--campaign", file.string()}, stop_input("x", false, workspace));
  CHECK_THAT(r.stdout_text, Contains("executor field \\\"gpus\\\"") || Contains("executor field \"gpus\""));
}
