// CudaEvaluator end to end on the fake data folder, nvcc and runner; CommandEvaluator with
// shell scripts; the `socratic eval` command.
#include <cmath>
#include <cstdlib>
#include <memory>

#include "catch.hpp"
#include "eval_fixtures.hpp"
#include "socratic/eval/command_evaluator.hpp"
#include "socratic/eval/cuda_evaluator.hpp"

using namespace socratic;
using namespace std::chrono_literals;
using eval_test::TempDir;
using eval_test::write_file;
using Catch::Matchers::Contains;

namespace {

/// A CudaEvaluator over the fake data folder. The ban scan finds `cublasGemmEx` in the built
/// "binary" (the fake nvcc's output is the source text) and `libcudnn` among mapped libraries.
struct EvaluatorFixture {
  TempDir tmp{"evaluator"};
  std::filesystem::path tools, data;
  CudaEvaluatorConfig config;
  std::shared_ptr<int> mapped_scans = std::make_shared<int>(0);  ///< calls of the mapped hook
  EvaluatorFixture() {
    tools = eval_test::fake_tools(tmp / "bin");
    data = eval_test::fake_data_dir(tmp / "data");
    config.data_dir = data;
    config.problem = "toy";
    config.scenarios = data / "scenarios/toy.json";
    config.cache_dir = tmp / "cache";
    config.nvcc = tools / "nvcc";
    config.nvidia_smi = tools / "nvidia-smi";
    config.runner_limits.watchdog = 10s;  // tests of hangs set their own
    config.ban_scan.binary = [](const std::filesystem::path& so) {
      std::vector<BannedFinding> out;
      if (eval_test::read_file(so).find("cublasGemmEx") != std::string::npos)
        out.push_back({so.string(), "cublas", "undefined symbol cublasGemmEx@libcublas.so.13"});
      return out;
    };
    config.ban_scan.mapped = [count = mapped_scans](const std::vector<std::string>& mapped) {
      ++*count;
      std::vector<BannedFinding> out;
      for (const auto& m : mapped)
        if (m.find("libcudnn") != std::string::npos) out.push_back({"", "cudnn", "mapped " + m});
      return out;
    };
  }
  Candidate candidate(const std::string& text, const std::string& name = "cand.cu") {
    Candidate c;
    c.source = write_file(tmp / "work" / name, text);
    c.label = name;
    return c;
  }
  std::size_t nvcc_calls() const { return eval_test::count_lines(tools / "nvcc.calls"); }
};

}  // namespace

TEST_CASE("CudaEvaluator: builds, runs every scenario and reports", "[eval][evaluator]") {
  EvaluatorFixture f;
  CudaEvaluator ev(f.config);
  CHECK(ev.target().sm() == "sm_90a");  // from the fake nvidia-smi
  const Candidate c = f.candidate("// an honest candidate\nfake: speedup b 2.0\n");
  const EvalReport r = ev.evaluate(c);
  INFO(r.error);
  CHECK(r.error.empty());
  CHECK(r.built);
  CHECK(r.problem == "toy");
  CHECK(r.scenario_set == "toy_set");
  CHECK(r.gpu == "Fake GPU");
  CHECK(r.arch == "sm_90");
  CHECK(r.expected == std::vector<std::string>{"a", "b", "c", "d"});
  REQUIRE(r.scenarios.size() == 4);
  CHECK(r.all_correct());
  CHECK(r.banned.empty());
  CHECK(r.geomean_speedup() == Approx(std::pow(1.25 * 1.25 * 1.25 * 2.0, 0.25)));
  CHECK(r.candidate.content_hash == detail::sha256_hex(eval_test::read_file(c.source)));
  CHECK_FALSE(r.timings.build_cached);
  CHECK(r.timings.total_s >= r.timings.build_s);
  CHECK(r.timings.timing_s == Approx(4 * 0.002));
  CHECK(f.nvcc_calls() == 3);  // runner, baseline, candidate

  // What nvcc was asked to do (docs/runner-protocol.md, "Building").
  const std::string calls = eval_test::read_file(f.tools / "nvcc.calls");
  CHECK_THAT(calls, Contains("socratic-runner-toy | -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -I") &&
                        Contains("kernels/harness/runner.cu") && Contains("kernels/toy/problem.cu") && Contains("-ldl"));
  CHECK_THAT(calls, Contains("baseline.so | -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -shared -Xcompiler -fPIC"));

  const EvalReport again = ev.evaluate(c);
  CHECK(again.all_correct());
  CHECK(again.timings.build_cached);
  CHECK(f.nvcc_calls() == 3);  // nothing rebuilt

  // A second evaluator sharing the cache builds nothing either.
  CudaEvaluator other(f.config);
  CHECK(other.evaluate(c).timings.build_cached);
  CHECK(f.nvcc_calls() == 3);
}

TEST_CASE("CudaEvaluator: the runner's build is told where nlohmann/json is", "[eval][evaluator]") {
  EvaluatorFixture f;
  // Where CMake found it, unless that is a folder the compiler searches anyway.
  for (const auto& d : detail::json_include_dirs()) {
    CHECK(d != "/usr/include");
    CHECK(std::filesystem::exists(d / "nlohmann" / "json.hpp"));
  }
  f.config.runner_include_dirs = {f.tmp / "json-include"};
  CudaEvaluator ev(f.config);
  REQUIRE(ev.evaluate(f.candidate("// honest\n")).error.empty());
  const std::string calls = eval_test::read_file(f.tools / "nvcc.calls");
  const std::string runner_line = calls.substr(calls.find("socratic-runner-toy |"));
  CHECK_THAT(runner_line.substr(0, runner_line.find('\n')), Contains("-I" + (f.tmp / "json-include").string()));
}

TEST_CASE("CudaEvaluator: problem.json's entry_point is the symbol the runner is built to call, and the "
          "candidate's library must export it", "[eval][evaluator]") {
  EvaluatorFixture f;
  CudaEvaluator ev(f.config);
  // A library exporting another name: the candidate's build failed, said before any run, naming
  // problem.json and the symbol.
  const EvalReport wrong = ev.evaluate(f.candidate("// FAKE_ELF_EXPORTS toy_forward_v2\n", "wrong.cu"));
  INFO(wrong.build_log << wrong.error);
  CHECK_FALSE(wrong.built);
  CHECK(wrong.error.empty());  // the candidate's to fix, not a fault of the judge
  CHECK(wrong.scenarios.empty());
  CHECK_THAT(wrong.build_log, Contains("does not export the entry point \"toy_forward\"") &&
                                  Contains("kernels/toy/problem.json names (field entry_point)") &&
                                  Contains("toy_args.h"));
  // Exporting it, the candidate is judged.
  const EvalReport right = ev.evaluate(f.candidate("// FAKE_ELF_EXPORTS helper toy_forward\n", "right.cu"));
  INFO(right.build_log << right.error);
  CHECK(right.built);
  CHECK(right.error.empty());
  CHECK(right.scenarios.size() == 4);
  // The runner looks up that same name: its build is told it.
  const std::string calls = eval_test::read_file(f.tools / "nvcc.calls");
  const std::string runner_line = calls.substr(calls.find("socratic-runner-toy |"));
  CHECK_THAT(runner_line.substr(0, runner_line.find('\n')), Contains("-DSOCRATIC_PROBLEM_ENTRY_POINT=") &&
                                                                Contains("toy_forward"));
}

TEST_CASE("elf_exports reads a shared object's dynamic symbols as dlsym would", "[eval][evaluator]") {
  TempDir dir("elf_exports");
  write_file(dir / "lib.cpp",
             "extern \"C\" void socratic_toy_entry() {}\n"
             "static void kept_inside() {}\n"
             "void mangled_one() { kept_inside(); }\n"
             "extern \"C\" __attribute__((visibility(\"hidden\"))) void hidden_entry() {}\n"
             "extern \"C\" void only_declared();\n"
             "extern \"C\" void calls() { only_declared(); }\n");
  const std::string cc = "c++ -shared -fPIC -o '" + (dir / "lib.so").string() + "' '" + (dir / "lib.cpp").string() + "'";
  REQUIRE(std::system(cc.c_str()) == 0);
  CHECK(elf_exports(dir / "lib.so", "socratic_toy_entry") == true);
  CHECK(elf_exports(dir / "lib.so", "calls") == true);
  CHECK(elf_exports(dir / "lib.so", "kept_inside") == false);
  CHECK(elf_exports(dir / "lib.so", "mangled_one") == false);  // a C++ name is mangled
  CHECK(elf_exports(dir / "lib.so", "hidden_entry") == false);
  CHECK(elf_exports(dir / "lib.so", "only_declared") == false);  // undefined here
  CHECK_FALSE(elf_exports(dir / "lib.cpp", "socratic_toy_entry").has_value());  // not ELF: nothing to read
}

TEST_CASE("CudaEvaluator: the baseline's own bytes are reported identical to it; a campaign's snapshot is judged",
          "[eval][evaluator]") {
  EvaluatorFixture f;
  CudaEvaluator ev(f.config);
  const std::string baseline = eval_test::read_file(f.data / "kernels/toy/baseline.cu");
  const EvalReport same = ev.evaluate(f.candidate(baseline, "copy.cu"));
  CHECK(same.identical_to_baseline);
  const EvalReport edited = ev.evaluate(f.candidate(baseline + "// edited\n", "edited.cu"));
  CHECK_FALSE(edited.identical_to_baseline);
  // The baseline judged in place, with the header it includes from its folder.
  Candidate in_place;
  in_place.source = f.data / "kernels/toy/baseline.cu";
  CHECK(ev.evaluate(in_place).identical_to_baseline);
  // A copy with that header edited beside it is not the baseline.
  Candidate with_header = f.candidate(baseline, "with_header.cu");
  write_file(with_header.source.parent_path() / "toy_args.h", "// an edited interface\n");
  CHECK_FALSE(ev.evaluate(with_header).identical_to_baseline);
  // A campaign hands over its snapshot and hash: the snapshot's bytes are judged under that hash,
  // whatever the workspace's file holds by now.
  Candidate c = f.candidate("// the agent's newer edit\nfake: speedup b 3.0\n", "moving.cu");
  c.snapshot = write_file(f.tmp / "state/candidates/snap.cu", "// what the campaign read\nfake: speedup b 2.0\n");
  c.content_hash = detail::sha256_hex(eval_test::read_file(c.snapshot));
  const EvalReport judged = ev.evaluate(c);
  CHECK(judged.candidate.content_hash == c.content_hash);
  REQUIRE(judged.find("b"));
  CHECK(judged.find("b")->speedup == Approx(2.0));
}

TEST_CASE("CudaEvaluator: a candidate split into headers is judged, and hashed, with them",
          "[eval][evaluator]") {
  EvaluatorFixture f;
  CudaEvaluator ev(f.config);
  Candidate c = f.candidate("#include \"parts/tile.cuh\"\nfake: speedup b 2.0\n", "split.cu");
  const auto header = c.source.parent_path() / "parts" / "tile.cuh";
  write_file(header, "// tile v1\n");
  const EvalReport first = ev.evaluate(c);
  INFO(first.error << first.build_log);
  REQUIRE(first.built);
  CHECK(first.candidate.content_hash == read_candidate_files(c.source).hash());
  CHECK(first.candidate.content_hash != detail::sha256_hex(eval_test::read_file(c.source)));
  // The build reads the snapshot's copy of the header, before the candidate's own folder.
  const auto snapshot = f.config.cache_dir / "candidates" / first.candidate.content_hash;
  CHECK(eval_test::read_file(snapshot / "parts" / "tile.cuh") == "// tile v1\n");
  const std::string calls = eval_test::read_file(f.tools / "nvcc.calls");
  CHECK_THAT(calls, Contains("-I" + snapshot.string()));
  // An edit to the header alone is another candidate: built again, under another hash.
  write_file(header, "// tile v2\n");
  const EvalReport second = ev.evaluate(c);
  CHECK(second.candidate.content_hash != first.candidate.content_hash);
  CHECK_FALSE(second.timings.build_cached);
}

TEST_CASE("CudaEvaluator: the runner reads the scenarios with declared defaults", "[eval][evaluator]") {
  EvaluatorFixture f;
  CudaEvaluator ev(f.config);
  CHECK(ev.scenarios().scenarios[0].params["dtype"] == "bf16");
  CHECK(ev.scenarios().scenarios[0].params["groups"] == 1);
  const auto resolved_dir = f.tmp / "cache/scenarios";
  REQUIRE(std::filesystem::exists(resolved_dir));
  const json resolved = read_json_file(std::filesystem::directory_iterator(resolved_dir)->path());
  CHECK(resolved.at("scenarios").at(0).at("causal") == false);
  CHECK(resolved.at("problem") == "toy");
}

TEST_CASE("CudaEvaluator: a compile error is a report with the log", "[eval][evaluator]") {
  EvaluatorFixture f;
  CudaEvaluator ev(f.config);
  const Candidate c = f.candidate("FAKE_COMPILE_ERROR\n", "broken.cu");
  const EvalReport r = ev.evaluate(c);
  CHECK_FALSE(r.built);
  CHECK(r.error.empty());
  CHECK(r.scenarios.empty());
  CHECK(r.expected.size() == 4);
  CHECK_FALSE(r.all_correct());
  // The log names the agent's file, not the evaluator's snapshot of it.
  CHECK_THAT(r.build_log, Contains(c.source.string() + "(3): error") && !Contains("/candidates/"));
}

TEST_CASE("CudaEvaluator: build_only does everything before the GPU; only_scenarios judges a subset", "[eval][evaluator]") {
  EvaluatorFixture f;
  CudaEvaluator ev(f.config);
  const Candidate c = f.candidate("// an honest candidate\nfake: speedup b 2.0\n");
  const EvalReport built = ev.build_only(c);
  CHECK(built.built);
  CHECK(built.error.empty());
  CHECK(built.scenarios.empty());  // the runner did not run
  CHECK(built.expected.size() == 4);
  CHECK(f.nvcc_calls() == 3);
  const EvalReport full = ev.evaluate(c);  // reuses the build
  CHECK(full.timings.build_cached);
  CHECK(full.all_correct());
  CHECK(f.nvcc_calls() == 3);
  const EvalReport broken = ev.build_only(f.candidate("FAKE_COMPILE_ERROR\n", "broken.cu"));
  CHECK_FALSE(broken.built);  // already the report evaluate() would give

  CudaEvaluatorConfig subset = f.config;
  subset.only_scenarios = {"d", "b"};
  CudaEvaluator few(subset);
  const EvalReport r = few.evaluate(c);
  CHECK(r.expected == std::vector<std::string>{"b", "d"});  // in the set's order
  REQUIRE(r.scenarios.size() == 2);
  CHECK(r.all_correct());
  subset.only_scenarios = {"zz"};
  CHECK_THROWS_WITH(CudaEvaluator(subset), Contains("scenario \"zz\"") && Contains("not in the set"));
}

TEST_CASE("CudaEvaluator: a crash fails one scenario and the rest still run", "[eval][evaluator]") {
  EvaluatorFixture f;
  CudaEvaluator ev(f.config);
  const EvalReport r = ev.evaluate(f.candidate("fake: crash c 11\n"));
  REQUIRE(r.scenarios.size() == 4);
  CHECK(r.scenarios[0].correct);
  CHECK(r.scenarios[1].correct);
  CHECK_FALSE(r.scenarios[2].correct);
  CHECK_THAT(r.scenarios[2].reason, Contains("runner killed by signal 11 (SIGSEGV) during this scenario"));
  CHECK(r.scenarios[3].correct);
  CHECK_THAT(r.error, Contains("scenario \"c\"") && Contains("restarting the runner"));
  CHECK(std::isnan(r.geomean_speedup()));
}

TEST_CASE("CudaEvaluator: a hang is ended by the watchdog", "[eval][evaluator]") {
  EvaluatorFixture f;
  f.config.runner_limits.watchdog = 1500ms;
  CudaEvaluator ev(f.config);
  const EvalReport r = ev.evaluate(f.candidate("fake: hang a\n"));
  CHECK(r.scenarios[0].reason == "no output for 1.5 s: watchdog killed the runner during this scenario");
  CHECK(r.scenarios[3].correct);
}

TEST_CASE("CudaEvaluator: banned libraries in the binary and in the process", "[eval][evaluator]") {
  EvaluatorFixture f;
  CudaEvaluator ev(f.config);
  SECTION("in the binary") {
    const EvalReport r = ev.evaluate(f.candidate("// calls cublasGemmEx\n"));
    REQUIRE(r.banned.size() == 1);
    CHECK(r.banned[0].library == "cublas");
    CHECK(r.all_correct());  // correct, but not acceptable: goals check `banned`
  }
  SECTION("mapped at run time, each library file judged once") {
    const auto lib = write_file(f.tmp / "lib/libcudnn.so.9", "not really cuDNN");
    const Candidate c = f.candidate("fake: map_after b " + lib.string() + "\nfake: map_after c /no/such/libfoo.so\n");
    const EvalReport r = ev.evaluate(c);
    REQUIRE(r.banned.size() == 1);
    CHECK(r.banned[0].library == "cudnn");
    CHECK(r.banned[0].file == "process");
    CHECK(*f.mapped_scans == 2);
    CHECK(ev.evaluate(c).banned.size() == 1);
    CHECK(*f.mapped_scans == 3);  // the library is remembered; the vanished path is judged again
    write_file(lib, "a different library now");
    CHECK(ev.evaluate(c).banned.size() == 1);
    CHECK(*f.mapped_scans == 5);
  }
}

TEST_CASE("CudaEvaluator: impossible times never count", "[eval][evaluator]") {
  EvaluatorFixture f;
  CudaEvaluator ev(f.config);
  // b claims 1/1.25 = 0.8 ms against a 5 ms floor; c claims 5000 TFLOP/s on a 989 TFLOP/s device.
  const EvalReport r = ev.evaluate(f.candidate("fake: roofline b 5.0\nfake: tflops c 5000\n"));
  CHECK(r.scenarios[1].has_flag("below_roofline"));
  CHECK(std::isnan(r.scenarios[1].speedup));
  CHECK(r.scenarios[1].roofline_fraction == Approx(5.0 / 0.8));
  CHECK(r.scenarios[2].has_flag("above_peak"));
  CHECK(std::isnan(r.scenarios[2].speedup));
  CHECK(std::isnan(r.geomean_speedup()));
  CHECK_THAT(r.error, Contains("below the roofline floor was not flagged") && Contains("above the device's peak"));
}

TEST_CASE("CudaEvaluator: an edited judge yields an error, never a verdict", "[eval][evaluator][integrity]") {
  EvaluatorFixture f;
  CudaEvaluator ev(f.config);
  const Candidate c = f.candidate("// honest\n");
  REQUIRE(ev.evaluate(c).all_correct());
  SECTION("the problem's reference") {
    write_file(f.data / "kernels/toy/problem.cu", "// tolerance relaxed\n");
    const EvalReport r = ev.evaluate(c);
    CHECK_THAT(r.error, Contains("integrity check failed") && Contains("kernels/toy/problem.cu was modified"));
    CHECK(r.scenarios.empty());
    CHECK_FALSE(r.all_correct());
  }
  SECTION("the scenario set") {
    write_file(f.data / "scenarios/toy.json", R"({"name": "toy_set", "problem": "toy", "scenarios": [{"id": "a", "n": 1}]})");
    CHECK_THAT(ev.evaluate(c).error, Contains("scenarios/toy.json was modified"));
  }
  SECTION("a file added to the harness") {
    write_file(f.data / "kernels/harness/patch.cuh", "\n");
    CHECK_THAT(ev.evaluate(c).error, Contains("new file kernels/harness/patch.cuh"));
  }
  SECTION("the built runner in the cache") {
    std::filesystem::path runner;
    for (const auto& e : std::filesystem::recursive_directory_iterator(f.tmp / "cache/builds/objects"))
      if (e.path().filename() == "socratic-runner-toy") runner = e.path();
    REQUIRE_FALSE(runner.empty());
    std::filesystem::remove(runner);
    std::filesystem::copy_file("/bin/true", runner);
    CHECK_THAT(ev.evaluate(c).error, Contains("built harness file") && Contains("socratic-runner-toy"));
  }
}

TEST_CASE("CudaEvaluator: a manifest recorded at campaign start", "[eval][evaluator][integrity]") {
  EvaluatorFixture f;
  const IntegrityManifest at_start = CudaEvaluator(f.config).integrity_manifest();
  save_integrity_manifest(at_start, f.tmp / "manifest.json");
  // The reference is edited between campaign start and this evaluator's construction.
  write_file(f.data / "kernels/toy/problem.cu", "// edited later\n");
  f.config.integrity_manifest = f.tmp / "manifest.json";
  CudaEvaluator ev(f.config);
  CHECK_THAT(ev.evaluate(f.candidate("// honest\n")).error, Contains("kernels/toy/problem.cu was modified"));

  // A manifest that does not cover what the evaluation trusts is refused.
  IntegrityManifest partial = at_start;
  partial.folders.clear();
  save_integrity_manifest(partial, f.tmp / "partial.json");
  f.config.integrity_manifest = f.tmp / "partial.json";
  CHECK_THROWS_WITH(CudaEvaluator(f.config), Contains("partial.json") && Contains("does not"));
}

TEST_CASE("CudaEvaluator: configuration errors are thrown at construction", "[eval][evaluator]") {
  EvaluatorFixture f;
  SECTION("an invalid scenario set names file, scenario and field") {
    write_file(f.data / "scenarios/bad.json",
               R"({"name": "bad", "problem": "toy", "scenarios": [{"id": "big", "n": 8, "heads": 2}]})");
    f.config.scenarios = f.data / "scenarios/bad.json";
    CHECK_THROWS_WITH(CudaEvaluator(f.config),
                      Contains("bad.json") && Contains("scenario \"big\" field \"heads\"") && Contains("unknown parameter"));
  }
  SECTION("a tolerance factor that is not positive") {
    f.config.k = 0;
    CHECK_THROWS_WITH(CudaEvaluator(f.config), Contains("k must be a positive number"));
  }
  SECTION("an unknown problem") {
    f.config.problem = "nope";
    CHECK_THROWS_WITH(CudaEvaluator(f.config), Contains("unknown problem \"nope\""));
  }
  SECTION("no GPU and no configured architecture") {
    f.config.nvidia_smi = f.tmp / "no-nvidia-smi";
    CHECK_THROWS_WITH(CudaEvaluator(f.config), Contains("cannot determine the GPU architecture"));
    f.config.arch = "sm_100a";
    CHECK(CudaEvaluator(f.config).target().sm() == "sm_100a");
  }
  SECTION("no scanner") {
    f.config.ban_scan = {};
    CHECK_THROWS_WITH(CudaEvaluator(f.config), Contains("no banned-library scanner"));
    f.config.allow_unscanned = true;
    CHECK(CudaEvaluator(f.config).evaluate(f.candidate("// calls cublasGemmEx\n")).banned.empty());
  }
}

TEST_CASE("CudaEvaluator: a runner that never reaches the GPU judges nothing", "[eval][evaluator]") {
  EvaluatorFixture f;
  CudaEvaluator ev(f.config);
  const EvalReport r = ev.evaluate(f.candidate("fake: no_device cudaSetDevice(0): no CUDA-capable device is detected\n"));
  CHECK(r.built);
  CHECK(r.scenarios.empty());
  CHECK_THAT(r.error, Contains("the runner did not start on the GPU") &&
                          Contains("runner reported: cudaSetDevice(0): no CUDA-capable device is detected"));
  CHECK(r.fault == EvalFault::harness);  // the machine's, never the candidate's: a gate stores nothing
}

TEST_CASE("CudaEvaluator: a harness that does not build is an error, not a verdict", "[eval][evaluator]") {
  EvaluatorFixture f;
  write_file(f.data / "kernels/toy/problem.cu", "FAKE_COMPILE_ERROR\n");
  CudaEvaluator ev(f.config);
  const EvalReport r = ev.evaluate(f.candidate("// honest\n"));
  CHECK_THAT(r.error, Contains("harness build failed") && Contains("runner"));
  CHECK(r.fault == EvalFault::harness);
  CHECK(r.scenarios.empty());
  f.config.nvcc = f.tmp / "no-nvcc";
  write_file(f.data / "kernels/toy/problem.cu", "// toy problem\n");
  CudaEvaluator no_compiler(f.config);
  const EvalReport none = no_compiler.evaluate(f.candidate("// honest\n"));
  CHECK_THAT(none.error, Contains("evaluator failure") && Contains("cannot run the CUDA compiler"));
  CHECK(none.fault == EvalFault::harness);
}

// ---- CommandEvaluator --------------------------------------------------------------------------

namespace {
std::filesystem::path script(const std::filesystem::path& path, const std::string& body) {
  write_file(path, "#!/bin/sh\n" + body);
  std::filesystem::permissions(path, std::filesystem::perms::owner_all);
  return path;
}
}  // namespace

TEST_CASE("CommandEvaluator: the baseline's bytes are reported identical; a snapshot is not hashed again",
          "[eval][command]") {
  TempDir tmp("command_baseline");
  EvalReport sample;
  sample.built = true;
  sample.expected = {"x"};
  ScenarioResult x;
  x.id = "x";
  x.correct = true;
  x.speedup = 1.01;
  sample.scenarios = {x};
  write_file(tmp / "report.json", json(sample).dump());
  CommandEvaluatorConfig cfg;
  cfg.command = {"cat", (tmp / "report.json").string()};
  cfg.baseline = write_file(tmp / "baseline.cpp", "// the baseline\n");
  CommandEvaluator ev(cfg);
  Candidate copy;
  copy.source = write_file(tmp / "ws/candidate.cpp", "// the baseline\n");
  CHECK(ev.evaluate(copy).identical_to_baseline);
  Candidate edited;
  edited.source = write_file(tmp / "ws/edited.cpp", "// the baseline, edited\n");
  CHECK_FALSE(ev.evaluate(edited).identical_to_baseline);
  // With the campaign's snapshot, its hash stands (the workspace file may have moved on).
  Candidate snap = edited;
  snap.snapshot = write_file(tmp / "state/candidates/h.cpp", "// the baseline\n");
  snap.content_hash = detail::sha256_hex("// the baseline\n");
  const EvalReport r = ev.evaluate(snap);
  CHECK(r.candidate.content_hash == snap.content_hash);
  CHECK(r.identical_to_baseline);
}

TEST_CASE("CommandEvaluator reads the report a command prints", "[eval][command]") {
  TempDir tmp("command");
  const auto cand = write_file(tmp / "k.cu", "// kernel\n");
  EvalReport sample;
  sample.built = true;
  sample.expected = {"x", "y"};
  ScenarioResult x;
  x.id = "x";
  x.correct = true;
  x.speedup = 2.0;
  ScenarioResult y = x;
  y.id = "y";
  y.speedup = 0.5;
  sample.scenarios = {x, y};
  write_file(tmp / "report.json", json(sample).dump());

  SECTION("a report, after free text, with the candidate substituted") {
    CommandEvaluatorConfig cfg;
    cfg.command = {script(tmp / "eval.sh", "echo \"judging $1 ($2)\"; tr -d '\\n' < " + (tmp / "report.json").string() +
                                               "; echo\n").string(),
                   "{candidate}", "label={label}"};
    cfg.expected = {"x", "y"};
    CommandEvaluator ev(cfg);
    Candidate c;
    c.source = cand;
    c.label = "v1";
    const EvalReport r = ev.evaluate(c);
    INFO(r.error);
    CHECK(r.error.empty());
    CHECK(r.all_correct());
    CHECK(r.geomean_speedup() == Approx(1.0));
    CHECK(r.candidate.source == cand);
    CHECK(r.candidate.content_hash == detail::sha256_hex("// kernel\n"));
    CHECK(r.timings.total_s > 0);
  }
  auto run = [&](const std::string& body, std::chrono::milliseconds timeout = 10s) {
    CommandEvaluatorConfig cfg;
    cfg.command = {script(tmp / "eval.sh", body).string(), "{candidate}"};
    cfg.timeout = timeout;
    cfg.expected = {"x", "y"};
    Candidate c;
    c.source = cand;
    return CommandEvaluator(cfg).evaluate(c);
  };
  SECTION("a nonzero exit") {
    const EvalReport r = run("echo 'no GPU here' >&2; exit 3\n");
    CHECK_THAT(r.error, Contains("exited with code 3") && Contains("no GPU here"));
    CHECK(r.expected == std::vector<std::string>{"x", "y"});
    CHECK_FALSE(r.all_correct());
    CHECK(r.fault == EvalFault::harness);  // the judge failed by itself: not the candidate's failure
    CHECK(json(r)["fault"] == "harness");
    CHECK(json(r).get<EvalReport>().fault == EvalFault::harness);
  }
  SECTION("a judge killed by a signal or a timeout may have been brought down by the candidate: no fault") {
    const EvalReport killed = run("kill -SEGV $$\n");
    CHECK_THAT(killed.error, Contains("the candidate may have crashed or hung it"));
    CHECK(killed.fault == EvalFault::none);
    CHECK(run("exit 139\n").fault == EvalFault::none);  // a shell's 128+N
    CHECK_FALSE(json(killed).contains("fault"));
  }
  SECTION("a nonzero exit after a report: the report is kept, and it is no success") {
    const EvalReport r = run("cat " + (tmp / "report.json").string() + "; echo 'one scenario slow' >&2; exit 1\n");
    CHECK_THAT(r.error, Contains("exited with code 1 after printing its report (kept)") && Contains("one scenario slow"));
    REQUIRE(r.scenarios.size() == 2);
    CHECK(r.find("y")->speedup == 0.5);
    CHECK(r.built);
    CHECK_FALSE(r.all_correct());
    CHECK_THAT(run("echo 'not json'; exit 4\n").error, Contains("exited with code 4 and printed no EvalReport JSON"));
  }
  SECTION("a timeout") {
    const EvalReport r = run("sleep 30\n", 300ms);
    CHECK_THAT(r.error, Contains("timed out"));
    CHECK(r.fault == EvalFault::none);
  }
  SECTION("not a report") {
    CHECK_THAT(run("echo '{\"built\": true}'\n").error, Contains("printed no EvalReport JSON") && Contains("expected"));
    CHECK_THAT(run("true\n").error, Contains("stdout was empty"));
    CHECK(run("true\n").fault == EvalFault::harness);
  }
  SECTION("a report that drops a scenario") {
    EvalReport dropped = sample;
    dropped.expected = {"x"};
    write_file(tmp / "dropped.json", json(dropped).dump());
    const EvalReport r = run("cat " + (tmp / "dropped.json").string() + "\n");
    CHECK_THAT(r.error, Contains("differ from the scenario set's") && Contains("missing: y"));
    CHECK(r.fault == EvalFault::harness);
  }
  SECTION("a command that cannot start") {
    CommandEvaluatorConfig cfg;
    cfg.command = {(tmp / "missing.sh").string()};
    Candidate c;
    c.source = cand;
    const EvalReport r = CommandEvaluator(cfg).evaluate(c);
    CHECK_THAT(r.error, Contains("could not start"));
    CHECK(r.fault == EvalFault::harness);
  }
}

TEST_CASE("CommandEvaluator: an edited script, a file beside it or a swapped command is judge_modified, never a verdict",
          "[eval][command][integrity]") {
  TempDir tmp("command_judge");
  EvalReport perfect;
  perfect.built = true;
  perfect.expected = {"x"};
  ScenarioResult x;
  x.id = "x";
  x.correct = true;
  x.speedup = 1.0;
  perfect.scenarios = {x};
  write_file(tmp / "judge" / "report.json", json(perfect).dump());
  write_file(tmp / "judge" / "harness.cpp", "// the harness\n");
  const auto ws = tmp / "ws";
  const auto cand = write_file(ws / "k.cu", "// kernel\n");
  CommandEvaluatorConfig cfg;
  cfg.command = {"sh", script(tmp / "judge" / "eval.sh", "cat " + (tmp / "judge" / "report.json").string() + "\n").string(),
                 "{candidate}", (ws / "notes.txt").string()};
  cfg.workspace = ws;
  cfg.expected = {"x"};
  write_file(ws / "notes.txt", "the agent's own file\n");
  Candidate c;
  c.source = cand;
  CommandEvaluator ev(cfg);
  // The script and its folder are the judge; the program on PATH and the workspace are not.
  const auto judged = ev.judge_paths();
  CHECK(judged.size() == 3);
  CHECK(std::find(judged.begin(), judged.end(), std::filesystem::canonical(tmp / "judge" / "harness.cpp")) != judged.end());
  REQUIRE(ev.evaluate(c).all_correct());

  SECTION("the script") {
    write_file(tmp / "judge" / "eval.sh", "#!/bin/sh\necho '{\"built\":true,\"expected\":[\"x\"],\"scenarios\":[]}'\n");
    const EvalReport r = ev.evaluate(c);
    CHECK_FALSE(r.all_correct());
    CHECK_THAT(r.error, Contains("integrity check failed") && Contains("eval.sh was modified"));
    REQUIRE(r.judge_modified.size() == 1);
    CHECK_THAT(r.judge_modified[0], Contains((tmp / "judge" / "eval.sh").string()));
    CHECK(json(r)["judge_modified"] == json(r.judge_modified));  // in the report's JSON (and the trace)
  }
  SECTION("a file beside it") {
    write_file(tmp / "judge" / "harness.cpp", "// tolerance relaxed\n");
    CHECK_THAT(ev.evaluate(c).error, Contains("harness.cpp was modified"));
  }
  SECTION("the agent's own files change freely") {
    write_file(ws / "notes.txt", "edited\n");
    CHECK(ev.evaluate(c).all_correct());
  }
  SECTION("a later process checks against the manifest of the campaign's start") {
    save_integrity_manifest(ev.integrity_manifest(), tmp / "integrity.json");
    CommandEvaluatorConfig later = cfg;
    later.integrity_manifest = tmp / "integrity.json";
    CHECK(CommandEvaluator(later).evaluate(c).all_correct());
    // The command swapped for one that prints a perfect report by itself.
    later.command = {"sh", "-c", "cat " + (tmp / "judge" / "report.json").string()};
    EvalReport r = CommandEvaluator(later).evaluate(c);
    CHECK_THAT(r.error, Contains("the evaluator command changed"));
    // Or for another script, never recorded.
    later.command = {"sh", script(tmp / "other" / "eval.sh", "cat " + (tmp / "judge" / "report.json").string() + "\n").string()};
    r = CommandEvaluator(later).evaluate(c);
    CHECK_THAT(r.error, Contains("other/eval.sh was not recorded at the campaign's start"));
    CHECK_FALSE(r.judge_modified.empty());
  }
}

// ---- socratic eval -----------------------------------------------------------------------------

#ifdef SOCRATIC_TOOL
namespace {
struct ToolRun {
  int exit_code;
  std::string out, err;
};
ToolRun run_tool(const std::vector<std::string>& args, const std::filesystem::path& data) {
  std::vector<std::string> argv = {SOCRATIC_TOOL, "eval"};
  argv.insert(argv.end(), args.begin(), args.end());
  ProcessOptions o;
  o.environment = scrubbed_environment();
  o.environment->push_back("SOCRATIC_DATA_DIR=" + data.string());
  o.environment->push_back("SOCRATIC_SKIP_GPU_CHECK=1");  // the fake runner needs no GPU
  o.timeout = 60s;
  const ProcessResult r = run_process(argv, o);
  return {r.exit_code, r.stdout_text, r.stderr_text};
}
}  // namespace

TEST_CASE("socratic eval: table, JSON and exit codes", "[eval][tool]") {
  EvaluatorFixture f;
  auto args = [&](const std::string& candidate) {
    return std::vector<std::string>{candidate, "--problem", "toy", "--scenarios", "toy", "--nvcc", (f.tools / "nvcc").string(),
                                    "--arch", "sm_90a", "--cache-dir", (f.tmp / "cache").string(), "--no-scan",
                                    "--watchdog", "2", "--json", (f.tmp / "report.json").string()};
  };
  SECTION("every scenario correct: exit 0") {
    const auto r = run_tool(args(f.candidate("// honest\n").source.string()), f.data);
    INFO(r.out << r.err);
    CHECK(r.exit_code == 0);
    CHECK_THAT(r.out, Contains("4/4 correct; geomean speedup 1.250x") && Contains("PASS"));
    CHECK_THAT(r.err, Contains("--no-scan"));
    const EvalReport report = read_json_file(f.tmp / "report.json").get<EvalReport>();
    CHECK(report.all_correct());
    CHECK(report.scenarios.size() == 4);
  }
  SECTION("runner options reach the runner") {
    const Candidate c = f.candidate("// honest\n");
    auto a = args(c.source.string());
    a.insert(a.end(), {"--seed", "18446744073709551615", "--k", "3"});
    CHECK(run_tool(a, f.data).exit_code == 0);
    std::string calls;  // the fake runner logs its options beside the candidate's .so
    for (const auto& e : std::filesystem::recursive_directory_iterator(f.tmp / "cache/builds/objects"))
      if (e.path().filename() == "candidate.so.calls") calls = eval_test::read_file(e.path());
    CHECK(calls == "--only a,b,c,d --k 3 --seed 18446744073709551615\n");
  }
  SECTION("a failing scenario: exit 1") {
    const auto r = run_tool(args(f.candidate("fake: fail b off by one\n").source.string()), f.data);
    CHECK(r.exit_code == 1);
    CHECK_THAT(r.out, Contains("reason: off by one"));
  }
  SECTION("a compile error: exit 1 with the log") {
    const auto r = run_tool(args(f.candidate("FAKE_COMPILE_ERROR\n").source.string()), f.data);
    CHECK(r.exit_code == 1);
    CHECK_THAT(r.out, Contains("build: FAILED") && Contains("error"));
  }
  SECTION("no GPU for the runner: exit 2") {
    const auto r = run_tool(args(f.candidate("fake: no_device no CUDA-capable device\n").source.string()), f.data);
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.out, Contains("error: the runner did not start on the GPU"));
  }
  SECTION("errors: exit 2") {
    auto bad_args = args(f.candidate("// honest\n").source.string());
    bad_args[2] = "nope";
    CHECK(run_tool(bad_args, f.data).exit_code == 2);
    CHECK(run_tool({"missing.cu", "--problem", "toy", "--scenarios", "toy"}, f.data).exit_code == 2);
    write_file(f.data / "scenarios/bad.json", R"({"name": "b", "problem": "toy", "scenarios": [{"id": "x"}]})");
    auto bad_set = args(f.candidate("// honest\n").source.string());
    bad_set[4] = "bad";
    const auto r = run_tool(bad_set, f.data);
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Contains("bad.json") && Contains("scenario \"x\" field \"n\""));
  }
  SECTION("--build-only builds and scans, runs nothing and says so") {
    const Candidate c = f.candidate("// honest\n");
    auto a = args(c.source.string());
    a.push_back("--build-only");
    const auto r = run_tool(a, f.data);
    INFO(r.out << r.err);
    CHECK(r.exit_code == 0);
    CHECK_THAT(r.out, Contains("build: ok") && Contains("banned libraries: not checked (--no-scan)") &&
                          Contains("nothing was run: --build-only"));
    CHECK_FALSE(r.out.find("correct") != std::string::npos);
    for (const auto& e : std::filesystem::recursive_directory_iterator(f.tmp / "cache/builds/objects"))
      CHECK(e.path().filename() != "candidate.so.calls");  // the fake runner never ran
    const EvalReport report = read_json_file(f.tmp / "report.json").get<EvalReport>();
    CHECK(report.built);
    CHECK(report.scenarios.empty());

    auto broken = args(f.candidate("FAKE_COMPILE_ERROR\n", "broken.cu").source.string());
    broken.push_back("--build-only");
    const auto b = run_tool(broken, f.data);
    CHECK(b.exit_code == 1);
    CHECK_THAT(b.out, Contains("build: FAILED") && Contains("FAKE_COMPILE_ERROR"));
    a.insert(a.end(), {"--executor", "local"});
    CHECK_THAT(run_tool(a, f.data).err, Contains("--build-only builds here and runs nothing"));
  }
  SECTION("without a GPU: --build-only needs --arch; evaluating names the missing GPU and --build-only") {
    auto without_gpu = [&](std::vector<std::string> extra) {
      std::vector<std::string> argv = {SOCRATIC_TOOL, "eval", f.candidate("// honest\n").source.string(), "--problem",
                                       "toy", "--scenarios", "toy", "--nvcc", (f.tools / "nvcc").string(), "--cache-dir",
                                       (f.tmp / "cache").string(), "--no-scan"};
      argv.insert(argv.end(), extra.begin(), extra.end());
      ProcessOptions o;
      o.environment = scrubbed_environment();
      o.environment->push_back("SOCRATIC_DATA_DIR=" + f.data.string());
      o.environment->push_back("SOCRATIC_CUDA_DRIVER=/nonexistent/libcuda.so.1");
      o.timeout = 60s;
      return run_process(argv, o);
    };
    const ProcessResult no_arch = without_gpu({"--build-only"});
    CHECK(no_arch.exit_code == 2);
    CHECK_THAT(no_arch.stderr_text, Contains("--build-only without a GPU here needs --arch"));
    const ProcessResult built = without_gpu({"--build-only", "--arch", "sm_90a"});
    INFO(built.stdout_text << built.stderr_text);
    CHECK(built.exit_code == 0);
    CHECK_THAT(built.stdout_text, Contains("nothing was run"));
    const ProcessResult evaluated = without_gpu({"--arch", "sm_90a"});
    CHECK(evaluated.exit_code == 2);
    CHECK_THAT(evaluated.stderr_text, Contains("no GPU to run the candidate on") && Contains("--build-only --arch"));
    const ProcessResult pooled = without_gpu({"--arch", "sm_90a", "--executor", "local", "--gpus", "0"});
    CHECK(pooled.exit_code == 2);
    CHECK_THAT(pooled.stderr_text, Contains("no GPU here for --executor local") && Contains("--build-only"));
  }
  SECTION("--json - prints the report on stdout and the table on stderr") {
    auto a = args(f.candidate("// honest\n").source.string());
    a.back() = "-";
    const auto r = run_tool(a, f.data);
    CHECK(r.exit_code == 0);
    CHECK(json::parse(r.out).get<EvalReport>().all_correct());
    CHECK_THAT(r.err, Contains("4/4 correct"));
  }
  SECTION("-o FILE writes the JSON report, --json alone prints it on stdout") {
    auto a = args(f.candidate("// honest\n").source.string());
    a.resize(a.size() - 2);  // drop the old `--json FILE`
    auto to_file = a;
    to_file.insert(to_file.end(), {"-o", (f.tmp / "out.json").string()});
    auto r = run_tool(to_file, f.data);
    CHECK(r.exit_code == 0);
    CHECK_THAT(r.out, Contains("4/4 correct"));
    CHECK(read_json_file(f.tmp / "out.json").get<EvalReport>().scenarios.size() == 4);
    auto to_stdout = a;
    to_stdout.insert(to_stdout.begin() + 1, "--json");  // followed by an option: no file, stdout
    r = run_tool(to_stdout, f.data);
    CHECK(r.exit_code == 0);
    CHECK(json::parse(r.out).get<EvalReport>().all_correct());
  }
}
#endif

// ---- host overhead (hidden: run with `eval_tests "[bench]"`) ----------------------------------

TEST_CASE("host overhead of a cached evaluation over 36 scenarios", "[.][bench]") {
  EvaluatorFixture f;
  json set = {{"name", "toy36"}, {"problem", "toy"}, {"scenarios", json::array()}};
  for (int i = 0; i < 36; ++i) {
    std::string id = "s";  // appended, not "s" + ...: g++ 12 warns (-Wrestrict) on the latter
    id += std::to_string(i);
    set["scenarios"].push_back({{"id", id}, {"n", 8 << (i % 6)}});
  }
  write_file(f.data / "scenarios/toy36.json", set.dump());
  f.config.scenarios = f.data / "scenarios/toy36.json";
  CudaEvaluator ev(f.config);
  const Candidate c = f.candidate("// honest\n");
  const EvalReport cold = ev.evaluate(c);
  REQUIRE(cold.all_correct());
  for (int i = 0; i < 5; ++i) {
    const EvalReport r = ev.evaluate(c);
    REQUIRE(r.all_correct());
    REQUIRE(r.timings.build_cached);
    // The fake runner itself sleeps 3 ms per scenario (108 ms in all); the rest is the host.
    WARN("cached evaluation " << i << ": total " << r.timings.total_s << " s, build " << r.timings.build_s
                              << " s, runner " << r.timings.check_s + r.timings.timing_s << " s");
  }
}
