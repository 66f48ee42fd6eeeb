// `socratic problem list / check / header` on the test problems: the built tool, run as a user
// runs it. SOCRATIC_DATA_DIR chooses whether a KernelBench describer is there (a stand-in script
// that prints a described problem, or none).
#include "catch.hpp"

#include <filesystem>
#include <string>
#include <vector>

#include "socratic/core/json.hpp"
#include "socratic/process/run_process.hpp"
#include "test_files.hpp"

namespace {

namespace fs = std::filesystem;
using Catch::Matchers::Contains;

fs::path tool_suite_dir() { return fs::path(SOCRATIC_SOURCE_DIR) / "tests" / "suite"; }

/// A data folder with no KernelBench describer, or with `describer` as its script.
fs::path data_dir_with(const std::string& name, const std::string& describer = {}) {
  const fs::path dir = socratic::test::fresh_dir("suite_tool_" + name);
  fs::create_directories(dir / "kernels");
  if (!describer.empty()) socratic::test::write_text(dir / "kernels/harness/python/kernelbench_describe.py", describer);
  return dir;
}

socratic::ProcessResult problem_command(const std::vector<std::string>& args, const fs::path& data_dir) {
  std::vector<std::string> argv{SOCRATIC_TOOL_PATH, "problem"};
  argv.insert(argv.end(), args.begin(), args.end());
  socratic::ProcessOptions o;
  o.timeout = std::chrono::minutes(2);
  std::vector<std::string> env = socratic::scrubbed_environment();
  env.push_back("SOCRATIC_DATA_DIR=" + data_dir.string());
  o.environment = env;
  return socratic::run_process(argv, o);
}

/// Prints a described problem for scaled-row-sum files, fails on anything else.
constexpr const char* stand_in_describer = R"(import json, sys
if not sys.argv[1].endswith("1_scaled_row_sum.py"):
    sys.exit("cannot describe " + sys.argv[1])
print(json.dumps({"definition": {"name": "scaled_row_sum",
    "axes": {"rows": {"type": "const", "value": 4096}, "cols": {"type": "const", "value": 8192}},
    "inputs": {"x": {"shape": ["rows", "cols"], "dtype": "float32"}},
    "outputs": {"out": {"shape": ["rows"], "dtype": "float32"}},
    "reference": "def run(x):\n    return x.sum(dim=1) * 0.5\n"},
    "workloads": [{"uuid": "default", "axes": {}, "inputs": {"x": {"type": "random"}}}]}))
)";

}  // namespace

TEST_CASE("problem list: one line per problem, KernelBench files waiting for the describer", "[suite]") {
  const fs::path data = data_dir_with("list");
  const auto r = problem_command({"list", (tool_suite_dir() / "problems").string()}, data);
  INFO(r.stdout_text << r.stderr_text);
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.stdout_text, Contains("rmsnorm_h4096  sol_execbench  workloads 3  inputs 3  outputs 1  "
                                              "dtypes bfloat16,float32  judgeable"));
  CHECK_THAT(r.stdout_text, Contains("gqa_prefill_hr4_d128  sol_execbench  workloads 3  inputs 4  outputs 2"));
  CHECK_THAT(r.stdout_text, Contains("not judgeable: outputs.q: float4_e2m1fn_x2 needs fp4 arithmetic"));
  CHECK_THAT(r.stdout_text, Contains("1_scaled_row_sum.py  kernelbench  not judgeable: not yet: needs the "
                                              "KernelBench describer"));
  CHECK_THAT(r.stdout_text, Contains("12 problems, 8 judgeable"));
  CHECK_THAT(r.stdout_text, Contains("moe_scatter_add_h2048  sol_execbench  workloads 3  inputs 4  outputs 1  "
                                     "dtypes bfloat16,int32,float32  judgeable"));
  CHECK_THAT(r.stdout_text, Contains("rope_neox_d128  sol_execbench  workloads 3  inputs 5  outputs 2  "
                                     "dtypes bfloat16,float32,int64  judgeable"));
  fs::remove_all(data);
}

TEST_CASE("problem list --json: path, name, format, judgeable and reason for each", "[suite]") {
  const fs::path data = data_dir_with("list_json", stand_in_describer);
  const auto r = problem_command({"list", (tool_suite_dir() / "problems").string(), "--json"}, data);
  INFO(r.stdout_text << r.stderr_text);
  REQUIRE(r.exit_code == 0);
  const socratic::json lines = socratic::json::parse(r.stdout_text);
  REQUIRE(lines.is_array());
  CHECK(lines.size() == 12);
  std::size_t judgeable = 0;
  for (const auto& line : lines) {
    for (const char* key : {"path", "name", "format", "judgeable", "reason"}) CHECK(line.contains(key));
    judgeable += line.at("judgeable").get<bool>();
    if (line.at("name") == "scaled_row_sum") {  // described by the stand-in
      CHECK(line.at("format") == "kernelbench");
      CHECK(line.at("workloads") == 1);
      CHECK(line.at("judgeable") == true);
    }
    if (line.at("path").get<std::string>().find("2_gelu_linear.py") != std::string::npos) {
      CHECK(line.at("judgeable") == false);  // the describer failed on it: listed with the error
      CHECK_THAT(line.at("error").get<std::string>(), Contains("the KernelBench describer failed"));
      CHECK_THAT(line.at("error").get<std::string>(), Contains("cannot describe"));
    }
  }
  CHECK(judgeable == 9);
  fs::remove_all(data);
}

TEST_CASE("problem list: malformed problems are listed with their errors, the walk goes on", "[suite]") {
  const fs::path data = data_dir_with("list_malformed");
  const auto r = problem_command({"list", (tool_suite_dir() / "malformed").string()}, data);
  INFO(r.stdout_text << r.stderr_text);
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.stdout_text, Contains("not judgeable: malformed: "));
  CHECK_THAT(r.stdout_text, Contains("inputs.x.dtype: unknown dtype \"float17\""));
  CHECK_THAT(r.stdout_text, Contains("workload.jsonl: line 3: not valid JSON"));
  CHECK_THAT(r.stdout_text, Contains("7 problems, 0 judgeable"));
  const auto missing = problem_command({"list", (tool_suite_dir() / "no_such_folder").string()}, data);
  CHECK(missing.exit_code == 2);
  CHECK_THAT(missing.stderr_text, Contains("is not a folder"));
  fs::remove_all(data);
}

TEST_CASE("problem check: every workload's axes, shapes, bytes, FLOPs, and the header", "[suite]") {
  const fs::path data = data_dir_with("check");
  const auto r = problem_command({"check", (tool_suite_dir() / "problems" / "rmsnorm_h4096").string()}, data);
  INFO(r.stdout_text << r.stderr_text);
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.stdout_text, Contains("rmsnorm_h4096 (sol_execbench, correctness rule sol_execbench)"));
  CHECK_THAT(r.stdout_text, Contains("workload rms-b128: batch_size=128 hidden_size=4096"));
  CHECK_THAT(r.stdout_text, Contains("in  hidden_states [128, 4096] bfloat16 (random)"));
  CHECK_THAT(r.stdout_text, Contains("in  eps scalar float32 (scalar 1e-06)"));
  CHECK_THAT(r.stdout_text, Contains("bytes 2105344, FLOPs 2097152"));
  CHECK_THAT(r.stdout_text, Contains("matched ratio 0.999"));
  CHECK_THAT(r.stdout_text, Contains("extern \"C\" void rmsnorm_h4096("));
  CHECK_THAT(r.stdout_text, Contains("\njudgeable\n"));

  const auto fp4 = problem_command({"check", (tool_suite_dir() / "problems" / "nvfp4_quantize_h4096").string()}, data);
  CHECK(fp4.exit_code == 1);
  CHECK_THAT(fp4.stdout_text, Contains("not judgeable: outputs.q: float4_e2m1fn_x2 needs fp4"));
  const auto moe = problem_command({"check", (tool_suite_dir() / "problems" / "moe_scatter_add_h2048").string()}, data);
  CHECK(moe.exit_code == 0);  // its `custom` inputs: filled by the reference worker
  CHECK_THAT(moe.stdout_text, Contains("FLOPs unknown"));
  CHECK_THAT(moe.stdout_text, Contains("(custom)"));

  const auto bad = problem_command({"check", (tool_suite_dir() / "malformed" / "zero_dim").string()}, data);
  CHECK(bad.exit_code == 2);
  CHECK_THAT(bad.stderr_text, Contains("workload.jsonl: line 3 (workload \"z\"): axes.M"));
  const auto kb = problem_command({"check", (tool_suite_dir() / "problems" / "kernelbench" / "1_scaled_row_sum.py").string()}, data);
  CHECK(kb.exit_code == 1);
  CHECK_THAT(kb.stderr_text, Contains("needs the KernelBench describer"));
  const auto neither = problem_command({"check", tool_suite_dir().string()}, data);
  CHECK(neither.exit_code == 2);
  CHECK_THAT(neither.stderr_text, Contains("is neither a problem folder"));
  fs::remove_all(data);
}

TEST_CASE("problem header prints the entry point's header alone", "[suite]") {
  const fs::path data = data_dir_with("header");
  const auto r = problem_command({"header", (tool_suite_dir() / "problems" / "gqa_prefill_hr4_d128").string()}, data);
  INFO(r.stdout_text << r.stderr_text);
  CHECK(r.exit_code == 0);
  CHECK(r.stdout_text.rfind("// Entry point of \"gqa_prefill_hr4_d128\"", 0) == 0);
  CHECK_THAT(r.stdout_text, Contains("float* lse,"));
  CHECK_THAT(r.stdout_text, Contains("cudaStream_t stream);"));
  fs::remove_all(data);
}

TEST_CASE("problem list and check: a FlashInfer-Bench TraceSet's definitions are its problems", "[suite]") {
  const fs::path data = data_dir_with("trace_set");
  const fs::path set = tool_suite_dir() / "trace_set";
  const auto r = problem_command({"list", set.string()}, data);
  INFO(r.stdout_text << r.stderr_text);
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.stdout_text, Contains("definitions/elementwise/scaled_add_n.json  flashinfer_bench  workloads 2  inputs 3  "
                                     "outputs 1  dtypes float32  judgeable"));
  CHECK_THAT(r.stdout_text, Contains("definitions/norm/fused_add_rmsnorm_h2048.json  flashinfer_bench  workloads 2"));
  CHECK_THAT(r.stdout_text, Contains("2 problems, 2 judgeable"));
  const auto c = problem_command({"check", (set / "definitions" / "norm" / "fused_add_rmsnorm_h2048.json").string()}, data);
  INFO(c.stdout_text << c.stderr_text);
  CHECK(c.exit_code == 0);
  CHECK_THAT(c.stdout_text, Contains("fused_add_rmsnorm_h2048 (flashinfer_bench, correctness rule"));
  CHECK_THAT(c.stdout_text, Contains("workload far-b512: batch_size=512 hidden_size=2048"));
  fs::remove_all(data);
}

TEST_CASE("problem check: a describer's Python without PyTorch is named, with the variable that chooses another",
          "[suite]") {
  const fs::path data = data_dir_with("no_torch", "raise ModuleNotFoundError(\"No module named 'torch'\")\n");
  const auto r = problem_command({"check", (tool_suite_dir() / "problems" / "kernelbench" / "1_scaled_row_sum.py").string()}, data);
  INFO(r.stdout_text << r.stderr_text);
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.stderr_text, Contains("No module named 'torch'"));
  CHECK_THAT(r.stderr_text, Contains("has no PyTorch: set SOCRATIC_REFERENCE_PYTHON to a Python that imports torch"));
  fs::remove_all(data);
}
