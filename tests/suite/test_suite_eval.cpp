// A suite problem judged where it lies, on CPU (issue 38 item 1): `socratic eval --problem PATH
// --build-only` builds the generated adapter with an honest candidate for rmsnorm_h4096 (nvcc),
// refuses a candidate whose signature disagrees naming both (nvcc), refuses unjudgeable problems
// with the reason; `socratic init` with a problem path writes a campaign whose file loads, whose
// scenarios are the workloads and whose evaluator is the same CudaEvaluator. Two nvcc compiles.
#include "catch.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "campaign_file.hpp"
#include "socratic/core/json.hpp"
#include "socratic/eval/cuda_evaluator.hpp"
#include "socratic/process/run_process.hpp"
#include "test_files.hpp"

namespace {

namespace fs = std::filesystem;
using Catch::Matchers::Contains;

fs::path tree() { return fs::path(SOCRATIC_SOURCE_DIR); }
fs::path rmsnorm() { return tree() / "tests/suite/problems/rmsnorm_h4096"; }
fs::path eval_dir() { return tree() / "tests/suite/eval"; }

socratic::ProcessResult tool(const std::vector<std::string>& args, const fs::path& cache) {
  std::vector<std::string> argv{SOCRATIC_TOOL_PATH};
  argv.insert(argv.end(), args.begin(), args.end());
  socratic::ProcessOptions o;
  o.timeout = std::chrono::minutes(5);
  std::vector<std::string> env = socratic::scrubbed_environment();
  env.push_back("SOCRATIC_DATA_DIR=" + tree().string());
  env.push_back("SOCRATIC_CACHE_DIR=" + cache.string());
  o.environment = env;
  return socratic::run_process(argv, o);
}

#ifdef SOCRATIC_SUITE_NVCC
std::vector<std::string> build_only(const fs::path& candidate, const fs::path& cache) {
  return {"eval", candidate.string(), "--problem", rmsnorm().string(), "--build-only", "--arch", "sm_90a",
          "--nvcc", SOCRATIC_SUITE_NVCC, "--cache-dir", cache.string(), "-q"};
}
#endif

}  // namespace

#ifdef SOCRATIC_SUITE_NVCC
TEST_CASE("eval --problem PATH --build-only: the adapter and an honest candidate compile; a signature that "
          "disagrees fails naming both",
          "[suite][bridge][nvcc]") {
  const fs::path cache = socratic::test::fresh_dir("suite_eval_build");
  const auto ok = tool(build_only(eval_dir() / "rmsnorm_h4096_candidate.cu", cache), cache);
  INFO(ok.stdout_text << ok.stderr_text);
  CHECK(ok.exit_code == 0);
  CHECK_THAT(ok.stdout_text, Contains("build: ok"));
  CHECK_THAT(ok.stdout_text, Contains("banned libraries: none found in the binary"));
  CHECK_THAT(ok.stdout_text, Contains("nothing was run"));
  // The adapter, content-addressed in the cache, is what was compiled.
  bool adapter = false;
  for (const auto& e : fs::directory_iterator(cache / "adapters"))
    adapter = adapter || socratic::test::read_text(e.path()).find((cache / "candidates").string()) != std::string::npos;
  CHECK(adapter);  // it includes the candidate's snapshot, not the file in the source tree

  const auto wrong = tool(build_only(eval_dir() / "rmsnorm_h4096_wrong_signature.cu", cache), cache);
  INFO(wrong.stdout_text << wrong.stderr_text);
  CHECK(wrong.exit_code == 1);
  CHECK_THAT(wrong.stdout_text, Contains("build: FAILED"));
  CHECK_THAT(wrong.stdout_text, Contains("rmsnorm_h4096_wrong_signature.cu"));  // the candidate's definition
  CHECK_THAT(wrong.stdout_text, Contains("/adapters/"));                        // the adapter's declaration
  CHECK_THAT(wrong.stdout_text, Contains("`socratic problem header " + rmsnorm().string() + "` prints"));
  fs::remove_all(cache);
}

TEST_CASE("eval SOLUTION.json --problem PATH --build-only: the exported SOL-ExecBench solution's entry point is "
          "built as the candidate, its torch binding left out",
          "[suite][bridge][nvcc]") {
  const fs::path cache = socratic::test::fresh_dir("suite_eval_solution");
  const auto exported = tool({"problem", "export", rmsnorm().string(), "--candidate",
                              (eval_dir() / "rmsnorm_h4096_candidate.cu").string(), "-o", (cache / "sol").string() + "/"},
                             cache);
  REQUIRE(exported.exit_code == 0);
  const auto r = tool(build_only(cache / "sol", cache), cache);  // the folder holding solution.json
  INFO(r.stdout_text << r.stderr_text);
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.stderr_text, Contains("binding.cpp uses torch (the binding): left out") &&
                                Contains("judged as rmsnorm_h4096_candidate.cu"));
  CHECK_THAT(r.stdout_text, Contains("build: ok") && Contains("/solutions/"));
  fs::remove_all(cache);
}
#endif

#ifdef SOCRATIC_SUITE_NVCC
TEST_CASE("eval --problem PATH --build-only: a candidate calling cuBLAS/cuBLASLt links under a suite problem's "
          "default policy and is banned when the policy bans them (issue 38 item 4)",
          "[suite][bridge][nvcc]") {
  const fs::path cache = socratic::test::fresh_dir("suite_eval_libraries");
  const fs::path candidate = eval_dir() / "rmsnorm_h4096_cublas.cu";
  const auto ok = tool(build_only(candidate, cache), cache);
  INFO(ok.stdout_text << ok.stderr_text);
  CHECK(ok.exit_code == 0);
  CHECK_THAT(ok.stdout_text, Contains("build: ok"));
  CHECK_THAT(ok.stdout_text, Contains("libraries: allowed: cublas, cudnn, cutlass; banned: none (the default for a "
                                      "SOL-ExecBench/FlashInfer-Bench problem)"));
  CHECK_THAT(ok.stdout_text, Contains("banned libraries: none found in the binary"));
  // Linked, not left undefined: the judge's build gave it the libraries (and --as-needed kept them).
  CHECK_THAT(ok.stdout_text, Contains("allowed: cublas (DT_NEEDED libcublas.so"));
  CHECK_THAT(ok.stdout_text, Contains("allowed: cublaslt (DT_NEEDED libcublasLt.so"));

  // The same bytes, libraries banned (a Socratic problem's default): refused, and not linked.
  std::vector<std::string> args = build_only(candidate, cache);
  args.insert(args.end(), {"--ban-libraries", "all", "--json"});
  const auto banned = tool(args, cache);
  INFO(banned.stdout_text << banned.stderr_text);
  CHECK(banned.exit_code == 1);
  CHECK_THAT(banned.stderr_text, Contains("libraries: allowed: none; banned: cublas, cudnn, cutlass (--ban-libraries all, "
                                          "over the default for a SOL-ExecBench/FlashInfer-Bench problem)"));
  CHECK_THAT(banned.stderr_text, Contains("BANNED: cublas (.dynsym: imported symbol cublasCreate_v2"));
  CHECK_THAT(banned.stderr_text, Contains("BANNED: cublaslt (.dynsym: imported symbol cublasLtCreate"));
  CHECK_THAT(banned.stderr_text, !Contains("DT_NEEDED libcublas"));
  const socratic::json report = socratic::json::parse(banned.stdout_text);
  CHECK(report.value("allowed_libraries", socratic::json::array()).empty());
  CHECK(report["banned"].size() >= 2);

  const auto bad = tool({"eval", candidate.string(), "-p", rmsnorm().string(), "--build-only", "--arch", "sm_90a",
                         "--allow-libraries", "cublas,mkl"},
                        cache);
  CHECK(bad.exit_code == 2);
  CHECK_THAT(bad.stderr_text, Contains("--allow-libraries[1]: \"mkl\" is not a library family; valid names: cublas, "
                                       "cudnn, cutlass, or all"));
  fs::remove_all(cache);
}
#endif

TEST_CASE("the evaluator's library policy follows the problem's origin; a campaign's override changes it",
          "[suite][bridge]") {
  const fs::path cache = socratic::test::fresh_dir("suite_eval_policy");
  socratic::CudaEvaluatorConfig config;
  config.data_dir = tree();
  config.arch = "sm_90a";
  config.cache_dir = cache;
  config.allow_unscanned = true;
  config.reference_python = "/usr/bin/python3";
  config.problem = rmsnorm().string();
  CHECK(socratic::CudaEvaluator(config).library_policy() ==
        socratic::default_library_policy(socratic::LibraryPolicyOrigin::sol_execbench));
  config.problem = (tree() / "tests/suite/problems/swiglu_mlp_h2048_i5632").string();
  config.libraries.ban = {socratic::LibraryFamily::cudnn};
  config.libraries.source = "the campaign file's evaluator.settings.libraries";
  CHECK(socratic::CudaEvaluator(config).library_policy().allowed_names() == std::vector<std::string>{"cublas", "cutlass"});
  // A Socratic problem (the registry's rmsnorm): everything banned, as the study had it.
  socratic::CudaEvaluatorConfig native = config;
  native.problem = "rmsnorm";
  native.scenarios = tree() / "scenarios" / "rmsnorm.json";
  native.libraries = {};
  CHECK(socratic::CudaEvaluator(native).library_policy() ==
        socratic::default_library_policy(socratic::LibraryPolicyOrigin::socratic));
  fs::remove_all(cache);
}

TEST_CASE("eval --problem PATH: unjudgeable problems and unknown workloads are refused with the reason",
          "[suite][bridge]") {
  const fs::path cache = socratic::test::fresh_dir("suite_eval_refusals");
  const fs::path candidate = eval_dir() / "rmsnorm_h4096_candidate.cu";
  const auto fp4 = tool({"eval", candidate.string(), "-p", (tree() / "tests/suite/problems/nvfp4_quantize_h4096").string(),
                         "--build-only", "--arch", "sm_90a", "--cache-dir", cache.string()},
                        cache);
  CHECK(fp4.exit_code == 2);
  CHECK_THAT(fp4.stderr_text, Contains("cannot be judged on the GPU"));
  CHECK_THAT(fp4.stderr_text, Contains("needs fp4 arithmetic"));
  const auto unknown = tool({"eval", candidate.string(), "-p", rmsnorm().string(), "-s", "rms-b1,rms-b9",
                             "--build-only", "--arch", "sm_90a", "--cache-dir", cache.string()},
                            cache);
  CHECK(unknown.exit_code == 2);
  CHECK_THAT(unknown.stderr_text, Contains("workload \"rms-b9\": no such workload (the problem has rms-b1, rms-b128, rms-b4096)"));
  const auto nowhere = tool({"eval", candidate.string(), "-p", "./no_such_problem", "--build-only", "--arch", "sm_90a"}, cache);
  CHECK(nowhere.exit_code == 2);
  CHECK_THAT(nowhere.stderr_text, Contains("no such problem file or folder"));
  fs::remove_all(cache);
}

TEST_CASE("the evaluator of a suite problem: its workloads as scenarios, the problem's files trusted, the "
          "eager-PyTorch baseline by default and torch.compile's when asked",
          "[suite][bridge]") {
  const fs::path cache = socratic::test::fresh_dir("suite_eval_config");
  socratic::CudaEvaluatorConfig config;
  config.data_dir = tree();
  config.problem = rmsnorm().string();
  config.arch = "sm_90a";
  config.cache_dir = cache;
  config.allow_unscanned = true;
  config.reference_python = "/usr/bin/python3";
  config.only_scenarios = {"rms-b4096", "rms-b1"};
  {
    socratic::CudaEvaluator eager(config);
    CHECK(eager.scenarios().ids() == std::vector<std::string>{"rms-b4096", "rms-b1"});  // the order asked
    CHECK(eager.config().baseline_kind == socratic::BaselineKind::pytorch_eager);
    REQUIRE(eager.suite_problem().has_value());
    CHECK(eager.suite_problem()->description.name == "rmsnorm_h4096");
    CHECK(eager.integrity_manifest().covers(rmsnorm() / "definition.json"));
    CHECK(eager.integrity_manifest().covers(rmsnorm() / "workload.jsonl"));
    // The runner reads the resolved workloads, written content-addressed in the cache.
    const socratic::json set = socratic::json::parse(socratic::test::read_text(eager.resolved_scenarios()));
    CHECK(set.at("problem") == "suite");
    CHECK(set.at("scenarios").at(0).at("reference").at("definition") == (rmsnorm() / "definition.json").string());
  }
  {
    // `--baseline pytorch_compile`: the word, not a file.
    socratic::CudaEvaluatorConfig compiled = config;
    compiled.baseline = "pytorch_compile";
    socratic::CudaEvaluator evaluator(compiled);
    CHECK(evaluator.config().baseline_kind == socratic::BaselineKind::pytorch_compile);
    CHECK_FALSE(evaluator.config().baseline.has_value());
  }
  {
    // A registry problem has no PyTorch reference to time.
    socratic::CudaEvaluatorConfig native_problem = config;
    native_problem.problem = "rmsnorm";
    native_problem.scenarios = tree() / "scenarios" / "rmsnorm.json";
    native_problem.only_scenarios.clear();
    native_problem.baseline = "pytorch_eager";
    CHECK_THROWS_WITH(socratic::CudaEvaluator(native_problem), Contains("needs a suite problem with a PyTorch reference"));
  }
  config.baseline = eval_dir() / "rmsnorm_h4096_baseline.cu";
  socratic::CudaEvaluator native(config);
  CHECK(native.config().baseline_kind == socratic::BaselineKind::native_cuda);
  CHECK(native.integrity_manifest().covers(eval_dir() / "rmsnorm_h4096_baseline.cu"));
  fs::remove_all(cache);
}

TEST_CASE("init --problem PATH: a campaign whose problem is a path, its workloads the scenarios, read back",
          "[suite][bridge]") {
  const fs::path dir = socratic::test::fresh_dir("suite_eval_init");
  const fs::path cache = dir / "cache";
  const auto init = tool({"init", (dir / "campaign").string(), "--problem", rmsnorm().string()}, cache);
  INFO(init.stdout_text << init.stderr_text);
  REQUIRE(init.exit_code == 0);
  CHECK_THAT(init.stdout_text, Contains("the entry point's skeleton: no baseline yet"));
  const std::string candidate = socratic::test::read_text(dir / "campaign/workspace/candidate.cu");
  CHECK_THAT(candidate, Contains("extern \"C\" void rmsnorm_h4096(\n    const __nv_bfloat16* hidden_states,"));
  CHECK_THAT(candidate, Contains(") {\n  // TODO"));

  const socratic::tool::CampaignFile c = socratic::tool::load_campaign_file(dir / "campaign/campaign.json");
  CHECK(c.problem == rmsnorm().string());
  CHECK(socratic::tool::campaign_scenario_ids(c) == std::vector<std::string>{"rms-b1", "rms-b128", "rms-b4096"});
  // The task tells the agent the suite's library rule, not the study's ban.
  CHECK_THAT(c.task, Contains("the suite's rule allows cuBLAS, cuDNN and CUTLASS"));
  CHECK_THAT(c.task, !Contains("without banned libraries"));
  // The problem's path is written relative to the campaign file, and read back relative to it.
  const socratic::json written = socratic::json::parse(socratic::test::read_text(dir / "campaign/campaign.json"));
  CHECK(written.at("problem").get<std::string>().find('/') != std::string::npos);

  // A campaign file written by hand, the problem a path relative to it.
  socratic::json hand = written;
  const fs::path moved = dir / "elsewhere";
  fs::create_directories(moved);
  hand["problem"] = fs::relative(rmsnorm(), moved).string();
  hand["scenarios"] = fs::absolute(c.scenarios).string();
  hand["workspace"] = (dir / "campaign/workspace").string();
  hand["state_dir"] = (dir / "campaign/state").string();
  socratic::test::write_text(moved / "campaign.json", hand.dump(2));
  const auto again = socratic::tool::load_campaign_file(moved / "campaign.json");
  CHECK(fs::path(again.problem) == rmsnorm());

  // The campaign's library policy override (issue 38 item 4): read, and refused naming file and field.
  hand["evaluator"]["settings"]["libraries"] = socratic::json{{"ban", {"cutlass"}}};
  socratic::test::write_text(moved / "libraries.json", hand.dump(2));
  const auto overridden = socratic::tool::load_campaign_file(moved / "libraries.json");
  CHECK(overridden.evaluator.libraries.ban == std::set<socratic::LibraryFamily>{socratic::LibraryFamily::cutlass});
  hand["evaluator"]["settings"]["libraries"] = socratic::json{{"allow", {"cublas", "cufft"}}};
  socratic::test::write_text(moved / "bad_libraries.json", hand.dump(2));
  CHECK_THROWS_WITH(socratic::tool::load_campaign_file(moved / "bad_libraries.json"),
                    Contains((moved / "bad_libraries.json").string() + ": evaluator field \"settings.libraries\".allow[1]: "
                             "\"cufft\" is not a library family; valid names: cublas, cudnn, cutlass, or all"));

  // The same evaluator the campaign makes (campaign_parts.hpp): the problem's path and the selection.
  socratic::CudaEvaluatorConfig config;
  config.data_dir = tree();
  config.problem = again.problem;
  config.scenarios = again.scenarios;
  config.arch = "sm_90a";
  config.cache_dir = cache;
  config.allow_unscanned = true;
  config.reference_python = "/usr/bin/python3";
  const socratic::CudaEvaluator evaluator(config);
  CHECK(evaluator.scenarios().ids() == std::vector<std::string>{"rms-b1", "rms-b128", "rms-b4096"});
  fs::remove_all(dir);
}

TEST_CASE("a suite problem's trusted files: its workloads' safetensors files join the integrity manifest",
          "[suite][bridge]") {
  const fs::path dir = socratic::test::fresh_dir("suite_eval_blobs");
  fs::copy(rmsnorm(), dir / "p", fs::copy_options::recursive);
  fs::create_directories(dir / "p" / "blob");
  std::ofstream(dir / "p" / "blob" / "w.safetensors") << "stand-in bytes";
  {
    std::ofstream jsonl(dir / "p" / "workload.jsonl", std::ios::app);
    jsonl << R"({"uuid": "rms-blob", "axes": {"batch_size": 2}, "inputs": {"eps": {"type": "scalar", "value": 1e-6},)"
          << R"( "weight": {"type": "safetensors", "path": "blob/w.safetensors", "tensor_key": "w"}}})" << "\n";
  }
  const socratic::SuiteProblem s = socratic::load_suite_problem(dir / "p", tree(), "/usr/bin/python3");
  CHECK(std::find(s.files.begin(), s.files.end(), (dir / "p" / "blob" / "w.safetensors").lexically_normal()) !=
        s.files.end());
  CHECK(s.files.size() == 4);  // definition.json, workload.jsonl, sol_times.json, the blob (no reference.py)
  fs::remove_all(dir);
}

TEST_CASE("a definition in a FlashInfer-Bench TraceSet is a suite problem: its file, its workload files trusted",
          "[suite][bridge]") {
  const fs::path set = fs::path(SOCRATIC_SOURCE_DIR) / "tests" / "suite" / "trace_set";
  const fs::path norm = set / "definitions" / "norm" / "fused_add_rmsnorm_h2048.json";
  CHECK(socratic::problem_path_format(norm) == socratic::ProblemPathFormat::trace_set_definition);
  const socratic::SuiteProblem s = socratic::load_suite_problem(norm, tree(), "/usr/bin/python3");
  CHECK(s.definition == norm);
  CHECK(s.description.origin == socratic::suite::ProblemOrigin::flashinfer_bench);
  CHECK(s.files == std::vector<fs::path>{norm, set / "workloads" / "norm" / "fused_add_rmsnorm_h2048.jsonl"});
  // A definition whose workloads share a file with others: every workload file is read, and trusted.
  const socratic::SuiteProblem shared =
      socratic::load_suite_problem(set / "definitions" / "elementwise" / "scaled_add_n.json", tree(), "/usr/bin/python3");
  CHECK(shared.description.workloads.size() == 2);
  CHECK(std::find(shared.files.begin(), shared.files.end(), set / "workloads" / "shared" / "mixed.jsonl") != shared.files.end());
  // A .json outside a TraceSet is no problem, and says what was expected.
  CHECK_THROWS_WITH(socratic::problem_path_format(set / "workloads" / "norm" / "fused_add_rmsnorm_h2048.jsonl"),
                    Contains("a definition in a FlashInfer-Bench TraceSet"));
}
