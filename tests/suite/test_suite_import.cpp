// A SOL-ExecBench solution as a candidate (issue 38 item 4): recognised, accepted when a source
// defines the C entry point (what `socratic problem export` writes: the torch binding is left
// out), refused with the file, the languages and binding, the reason and the documented way to
// adapt it otherwise; and `socratic eval SOLUTION.json --problem PATH` saying so before anything
// is built. CPU only.
#include "catch.hpp"

#include <filesystem>
#include <string>
#include <vector>

#include "socratic/core/json.hpp"
#include "socratic/process/run_process.hpp"
#include "socratic/suite/sol_loader.hpp"
#include "socratic/suite/solution_export.hpp"
#include "socratic/suite/solution_import.hpp"
#include "test_files.hpp"

namespace {

namespace fs = std::filesystem;
using Catch::Matchers::Contains;
using namespace socratic::suite;

fs::path import_problem() { return fs::path(SOCRATIC_SOURCE_DIR) / "tests" / "suite" / "problems" / "rmsnorm_h4096"; }
fs::path import_candidate() {
  return fs::path(SOCRATIC_SOURCE_DIR) / "tests" / "suite" / "eval" / "rmsnorm_h4096_candidate.cu";
}

/// A solution written as SOL-ExecBench's own CUDA C++ example is: `run` takes torch::Tensor.
ordered_json torch_solution() {
  return ordered_json::parse(R"({
    "name": "rmsnorm_cuda_v1", "definition": "rmsnorm_h4096", "author": "someone",
    "spec": {"languages": ["cuda_cpp"], "target_hardware": ["B200"], "entry_point": "kernel.cu::run",
             "dependencies": [], "destination_passing_style": true},
    "sources": [{"path": "kernel.cu", "content": "#include <torch/extension.h>\n__global__ void k() {}\nvoid run(torch::Tensor hidden_states, torch::Tensor weight, double eps, torch::Tensor output) {\n  k<<<1, 1>>>();\n}\n"}]
  })");
}

std::string refusal(const ordered_json& j, const ProblemDescription& p) {
  try {
    (void)import_sol_solution(j, p, "sol/solution.json");
  } catch (const std::exception& e) {
    return e.what();
  }
  return "accepted";
}

socratic::ProcessResult run_tool(const std::vector<std::string>& argv) {
  socratic::ProcessOptions o;
  o.timeout = std::chrono::minutes(1);
  o.environment = socratic::scrubbed_environment();
  return socratic::run_process(argv, o);
}

}  // namespace

TEST_CASE("import: Socratic's own exported solution is the candidate again, without its binding", "[suite]") {
  const ProblemDescription p = load_problem_folder(import_problem());
  ExportCandidate c;
  c.source = socratic::test::read_text(import_candidate());
  c.file_name = "rmsnorm_h4096_candidate.cu";
  const ordered_json exported = ordered_json::parse(solution_json(p, c).dump());
  REQUIRE(is_sol_solution(exported));
  const ImportedSolution s = import_sol_solution(exported, p, "out/solution.json");
  CHECK(s.name == "rmsnorm_h4096_socratic");
  CHECK(s.entry_file == "rmsnorm_h4096_candidate.cu");
  REQUIRE(s.files.size() == 1);  // binding.cpp (torch) is left out
  CHECK(s.files[0].second == c.source);
  REQUIRE(!s.notes.empty());
  CHECK_THAT(s.notes[0], Contains("binding.cpp uses torch"));
  CHECK_FALSE(is_sol_solution(ordered_json::parse(R"({"name": "x"})")));
}

TEST_CASE("import: a solution the judge cannot run is refused with the reason and the way to adapt it", "[suite]") {
  const ProblemDescription p = load_problem_folder(import_problem());
  // The torch binding's `run(torch::Tensor ...)`: no C entry point.
  const std::string torch = refusal(torch_solution(), p);
  CHECK_THAT(torch, Contains("sol/solution.json") && Contains("languages [\"cuda_cpp\"], binding \"torch\"") &&
                        Contains("entry point \"kernel.cu::run\"") && Contains("torch::Tensor") && Contains("libtorch") &&
                        Contains("extern \"C\" void rmsnorm_h4096(...)") && Contains("socratic problem header") &&
                        Contains("A SOL-ExecBench solution as a candidate"));

  ordered_json triton = torch_solution();
  triton["spec"]["languages"] = ordered_json::array({"triton"});
  CHECK_THAT(refusal(triton, p), Contains("spec.languages") && Contains("a Python solution"));

  ordered_json other = torch_solution();
  other["definition"] = "gemm_n4096";
  CHECK_THAT(refusal(other, p), Contains("definition") && Contains("\"gemm_n4096\", and the problem is \"rmsnorm_h4096\""));

  // The C entry point defined in a file that also includes torch: still needs libtorch.
  ordered_json mixed = torch_solution();
  mixed["sources"][0]["content"] = "#include <torch/extension.h>\nextern \"C\" void rmsnorm_h4096(const void* x) {}\n";
  CHECK_THAT(refusal(mixed, p), Contains("kernel.cu defines the C entry point rmsnorm_h4096 and includes torch"));

  // A second compiled source the entry file does not include: one translation unit only.
  ordered_json two = torch_solution();
  two["sources"] = ordered_json::parse(R"([{"path": "main.cu", "content": "extern \"C\" void rmsnorm_h4096(int n) { helper(); }"},
                                           {"path": "helper.cu", "content": "void helper() {}"}])");
  CHECK_THAT(refusal(two, p), Contains("helper.cu is compiled on its own") && Contains("#include \"helper.cu\" from main.cu"));
  two["sources"][0]["content"] = "#include \"helper.cu\"\nextern \"C\" void rmsnorm_h4096(int n) { helper(); }";
  CHECK(refusal(two, p) == "accepted");

  ordered_json escape = two;
  escape["sources"][1]["path"] = "../helper.cu";
  CHECK_THAT(refusal(escape, p), Contains("sources[1].path") && Contains("not a relative path inside the solution"));
}

TEST_CASE("eval: a SOL-ExecBench solution given as the candidate is refused before anything is built", "[suite]") {
  const fs::path dir = socratic::test::fresh_dir("suite_import_eval");
  socratic::test::write_text(dir / "sol" / "solution.json", torch_solution().dump(2));
  // The folder holding solution.json is taken as the solution too.
  const auto r = run_tool({SOCRATIC_TOOL_PATH, "eval", (dir / "sol").string(), "--problem", import_problem().string(),
                           "--build-only", "--arch", "sm_90a", "--cache-dir", (dir / "cache").string()});
  INFO(r.stdout_text << r.stderr_text);
  CHECK(r.exit_code != 0);
  CHECK_THAT(r.stderr_text, Contains((dir / "sol" / "solution.json").string()) && Contains("binding \"torch\"") &&
                                Contains("A SOL-ExecBench solution as a candidate"));
  CHECK_FALSE(fs::exists(dir / "cache" / "solutions"));
  fs::remove_all(dir);
}
