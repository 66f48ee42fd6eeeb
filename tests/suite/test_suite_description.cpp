// The description of a suite's problem: the axis expressions, loading SOL-ExecBench folders and
// describer JSON, every workload made concrete, and the errors on malformed problems.
#include "catch.hpp"

#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "socratic/suite/axis_expression.hpp"
#include "socratic/suite/blob_path.hpp"
#include "socratic/suite/concrete_workload.hpp"
#include "socratic/suite/entry_point_header.hpp"
#include "socratic/suite/judgeable.hpp"
#include "socratic/suite/sol_loader.hpp"

namespace {

namespace fs = std::filesystem;
using namespace socratic::suite;
using socratic::input_error;

fs::path suite_problems() { return fs::path(SOCRATIC_SOURCE_DIR) / "tests" / "suite" / "problems"; }
fs::path malformed(const std::string& name) { return fs::path(SOCRATIC_SOURCE_DIR) / "tests" / "suite" / "malformed" / name; }

std::int64_t eval_with(const std::string& expression, std::map<std::string, std::int64_t> axes = {}) {
  return evaluate_axis_expression(expression, [&](std::string_view n) -> std::optional<std::int64_t> {
    auto it = axes.find(std::string(n));
    if (it == axes.end()) return std::nullopt;
    return it->second;
  });
}

std::string load_error(const fs::path& dir) {
  try {
    load_problem_folder(dir);
  } catch (const input_error& e) {
    return e.what();
  }
  return "(no error)";
}

const ConcreteTensor& tensor_named(const std::vector<ConcreteTensor>& ts, const std::string& n) {
  for (const auto& t : ts)
    if (t.name == n) return t;
  FAIL("no tensor " << n);
  return ts.front();
}

}  // namespace

TEST_CASE("axis expressions follow Python's integer arithmetic", "[suite]") {
  CHECK(eval_with("hidden_size // num_heads", {{"hidden_size", 4096}, {"num_heads", 32}}) == 128);
  CHECK(eval_with("2 + 3 * 4") == 14);
  CHECK(eval_with("(2 + 3) * 4") == 20);
  CHECK(eval_with("-7 // 2") == -4);  // floors, as Python
  CHECK(eval_with("-7 % 3") == 2);    // the divisor's sign
  CHECK(eval_with("7 % -3") == -2);
  CHECK(eval_with("4096 / 32") == 128);
  CHECK(eval_with("2 ** 10") == 1024);
  CHECK(eval_with("-2 ** 2") == -4);  // ** binds tighter than unary minus
  CHECK(eval_with("2 ** 3 ** 2") == 512);  // right-associative
  CHECK(eval_with("  n*( n +1 )//2 ", {{"n", 10}}) == 55);
  CHECK(axis_expression_names("a * (b + a) // c") == std::vector<std::string>{"a", "b", "a", "c"});
}

TEST_CASE("axis expression errors quote the expression and say what failed", "[suite]") {
  CHECK_THROWS_WITH(eval_with("N // (M - 4)", {{"N", 64}, {"M", 4}}),
                    Catch::Matchers::Contains("\"N // (M - 4)\"") &&
                        Catch::Matchers::Contains("division by zero"));
  CHECK_THROWS_WITH(eval_with("K // blocks", {{"K", 1}}), Catch::Matchers::Contains("axis \"blocks\" is not defined"));
  CHECK_THROWS_WITH(eval_with("7 / 2"), Catch::Matchers::Contains("not a whole number"));
  CHECK_THROWS_WITH(eval_with("2 ** 64"), Catch::Matchers::Contains("overflows"));
  CHECK_THROWS_WITH(eval_with("2 ** -1"), Catch::Matchers::Contains("negative power"));
  CHECK_THROWS_WITH(eval_with("(1 + 2"), Catch::Matchers::Contains("\")\" is missing"));
  CHECK_THROWS_WITH(eval_with("1 + 2.5"), Catch::Matchers::Contains("whole-number literals"));
  CHECK_THROWS_WITH(eval_with("import_os()", {{"import_os", 1}}), Catch::Matchers::Contains("unexpected \"(\""));
  CHECK_THROWS_WITH(eval_with("1 +"), Catch::Matchers::Contains("a value is missing"));
}

TEST_CASE("every test problem loads and every workload becomes concrete", "[suite]") {
  std::size_t folders = 0;
  for (const auto& entry : fs::directory_iterator(suite_problems())) {
    if (!is_sol_problem_folder(entry.path())) continue;
    ++folders;
    INFO(entry.path());
    const ProblemDescription p = load_problem_folder(entry.path());
    CHECK(p.name == entry.path().filename().string());
    CHECK_FALSE(p.workloads.empty());
    for (const auto& w : p.workloads) {
      const ConcreteWorkload c = concretize(p, w);
      CHECK(c.axes.size() == p.axes.size());
      CHECK(c.outputs.size() == p.outputs.size());
      CHECK(c.bytes > 0);
    }
  }
  CHECK(folders >= 6);
}

TEST_CASE("the RMSNorm problem: a scalar input, shapes, bytes, FLOPs and a tolerance override", "[suite]") {
  const ProblemDescription p = load_problem_folder(suite_problems() / "rmsnorm_h4096");
  CHECK(p.origin == ProblemOrigin::sol_execbench);
  REQUIRE(p.inputs.size() == 3);
  CHECK(p.inputs[0].name == "hidden_states");  // definition order, not alphabetical
  CHECK(p.inputs[2].name == "eps");
  CHECK(p.inputs[2].is_scalar());
  CHECK(p.inputs[1].dtype == Dtype::bfloat16);
  REQUIRE(p.workloads.size() == 3);
  CHECK(p.workloads[0].line == 1);
  CHECK(p.workloads[0].inputs.at("eps").kind == InputSourceKind::scalar);
  CHECK(p.workloads[0].inputs.at("eps").value.get<double>() == 1e-6);

  const ConcreteWorkload c = concretize(p, p.workloads[1]);  // batch 128
  CHECK(tensor_named(c.inputs, "hidden_states").dims == std::vector<std::int64_t>{128, 4096});
  CHECK(tensor_named(c.inputs, "hidden_states").bytes == 128u * 4096 * 2);
  CHECK(tensor_named(c.inputs, "eps").bytes == 0);  // by value
  CHECK(c.bytes == 128u * 4096 * 2 * 2 + 4096u * 2);
  REQUIRE(c.flops);
  CHECK(*c.flops == 4u * 128 * 4096);
  CHECK(c.output_tolerances[0].atol == 1e-2);
  CHECK(c.output_tolerances[0].required_matched_ratio == 1.0);

  const ConcreteWorkload big = concretize(p, p.workloads[2]);
  CHECK(big.output_tolerances[0].atol == 0.02);
  CHECK(big.output_tolerances[0].required_matched_ratio == 0.999);
  CHECK_FALSE(big.output_tolerances[0].max_error_cap);
}

TEST_CASE("expr axes, two outputs, constraints and fp8 shapes", "[suite]") {
  const ProblemDescription gqa = load_problem_folder(suite_problems() / "gqa_prefill_hr4_d128");
  const ConcreteWorkload c = concretize(gqa, gqa.workloads[2]);  // batch 4, seq 1024, kv heads 2
  CHECK(tensor_named(c.inputs, "q").dims == std::vector<std::int64_t>{4, 1024, 8, 128});
  CHECK(tensor_named(c.outputs, "lse").dims == std::vector<std::int64_t>{4, 1024, 8});
  CHECK(c.outputs.size() == 2);
  REQUIRE(c.output_tolerances[0].max_error_cap);
  CHECK(*c.output_tolerances[0].max_error_cap == 0.25);
  CHECK(c.unchecked_constraints.empty());

  const ProblemDescription fp8 = load_problem_folder(suite_problems() / "fp8_gemm_blockscale_n4096_k7168");
  const ConcreteWorkload f = concretize(fp8, fp8.workloads[1]);  // M 256
  CHECK(tensor_named(f.inputs, "A").dtype == Dtype::float8_e4m3fn);
  CHECK(tensor_named(f.inputs, "A").bytes == 256u * 7168);
  CHECK(tensor_named(f.inputs, "B_scale").dims == std::vector<std::int64_t>{32, 56});
  CHECK(*f.flops == 2ull * 256 * 4096 * 7168);

  const ProblemDescription mse = load_problem_folder(suite_problems() / "mse_loss_d1024");
  CHECK(mse.outputs[0].shape == std::vector<std::string>{});  // 0-d, not a scalar
  const ConcreteWorkload m = concretize(mse, mse.workloads[0]);
  CHECK(m.outputs[0].dims == std::vector<std::int64_t>{});
  CHECK(m.outputs[0].bytes == 4);
  CHECK(m.outputs[0].elements == 1);
}

TEST_CASE("custom inputs come with their entry point and reference.py", "[suite]") {
  const ProblemDescription p = load_problem_folder(suite_problems() / "moe_scatter_add_h2048");
  CHECK(p.custom_inputs_entrypoint == "make_routed_inputs");
  CHECK(p.reference.empty());
  CHECK(fs::path(p.reference_file).filename() == "reference.py");
  for (const auto& w : p.workloads)
    for (const auto& [name, s] : w.inputs) CHECK(s.kind == InputSourceKind::custom);
  const ConcreteWorkload c = concretize(p, p.workloads[1]);  // 1024 tokens, top 8
  CHECK(tensor_named(c.inputs, "token_index").dims == std::vector<std::int64_t>{8192});
  CHECK_FALSE(c.flops);  // the definition gives none: unknown
}

TEST_CASE("malformed problems fail naming the file, the field and the line", "[suite]") {
  using Catch::Matchers::Contains;
  const std::string dtype = load_error(malformed("unknown_dtype"));
  CHECK_THAT(dtype, Contains("unknown_dtype/definition.json: inputs.x.dtype: unknown dtype \"float17\""));
  CHECK_THAT(dtype, Contains("bfloat16"));  // the known names follow
  CHECK_THAT(load_error(malformed("undefined_axis")),
             Contains("definition.json: outputs.y.shape[1]: axis \"D\" is not defined"));
  CHECK_THAT(load_error(malformed("missing_var_axis")),
             Contains("workload.jsonl: line 2 (workload \"c\"): axes.M: missing"));
  const std::string expr = load_error(malformed("expr_fails"));
  CHECK_THAT(expr, Contains("workload.jsonl: line 2 (workload \"a\"): axes.H"));
  CHECK_THAT(expr, Contains("\"N // (M - 4)\": division by zero"));
  CHECK_THAT(load_error(malformed("zero_dim")),
             Contains("workload.jsonl: line 3 (workload \"z\"): axes.M: the value 0 is not a positive dimension"));
  CHECK_THAT(load_error(malformed("bad_jsonl")), Contains("workload.jsonl: line 3: not valid JSON"));
  CHECK_THAT(load_error(malformed("negative_const")),
             Contains("definition.json: axes.N.value: the value -64 is not a positive dimension"));
  CHECK_THAT(load_error(malformed("no_such_problem")), Contains("definition.json: cannot be read"));
}

TEST_CASE("the describer's JSON is read as a folder is, its errors placed by workload index", "[suite]") {
  using Catch::Matchers::Contains;
  ordered_json described = ordered_json::parse(R"({
    "definition": {"name": "kb_scaled_row_sum", "axes": {"rows": {"type": "const", "value": 4096},
                     "cols": {"type": "const", "value": 8192}},
                   "inputs": {"x": {"shape": ["rows", "cols"], "dtype": "float32"}},
                   "outputs": {"out": {"shape": ["rows"], "dtype": "float32"}},
                   "reference": "def run(x):\n    return x.sum(dim=1) * 0.5\n"},
    "workloads": [{"uuid": "default", "axes": {}, "inputs": {"x": {"type": "random"}}}]})");
  const ProblemDescription p = describe_problem(described, "1_scaled_row_sum.py", ProblemOrigin::kernelbench);
  CHECK(p.origin == ProblemOrigin::kernelbench);
  CHECK(p.rule() == CorrectnessRule::kernelbench);
  const ConcreteWorkload c = concretize(p, p.workloads[0]);
  CHECK(c.output_tolerances[0].atol == 1e-4);  // KernelBench's fp32 tolerance
  CHECK(c.bytes == 4096u * 8192 * 4 + 4096u * 4);

  described["definition"]["inputs"]["x"]["dtype"] = "complex64";
  CHECK_THROWS_WITH(describe_problem(described, "1_scaled_row_sum.py", ProblemOrigin::kernelbench),
                    Contains("1_scaled_row_sum.py: definition: inputs.x.dtype: unknown dtype \"complex64\""));
  described["definition"]["inputs"]["x"]["dtype"] = "float32";
  described["definition"]["axes"]["rows"] = {{"type", "var"}};
  CHECK_THROWS_WITH(describe_problem(described, "1_scaled_row_sum.py", ProblemOrigin::kernelbench),
                    Contains("workloads[0] (workload \"default\"): axes.rows: missing"));
  CHECK_THROWS_WITH(describe_problem(ordered_json::parse(R"({"definition": {}})"), "f.py", ProblemOrigin::kernelbench),
                    Contains("f.py: expected {\"definition\""));
}

TEST_CASE("definition errors: cycles, clashes, custom inputs without an entry point", "[suite]") {
  using Catch::Matchers::Contains;
  auto definition = ordered_json::parse(R"({"name": "d", "axes": {"a": {"type": "expr", "expression": "b + 1"},
      "b": {"type": "expr", "expression": "a * 2"}}, "inputs": {"x": {"shape": ["a"], "dtype": "float32"}},
      "outputs": {"y": {"shape": ["b"], "dtype": "float32"}}, "reference": "def run(x): return x"})");
  CHECK_THROWS_WITH(parse_definition(definition, "d.json", ProblemOrigin::sol_execbench),
                    Contains("d.json: axes.a.expression: the expr axes form a cycle: a -> b -> a"));
  definition["axes"] = ordered_json::parse(R"({"a": {"type": "var"}, "b": {"type": "dynamic"}})");
  CHECK_THROWS_WITH(parse_definition(definition, "d.json", ProblemOrigin::sol_execbench),
                    Contains("axes.b.type: unknown axis type \"dynamic\""));
  definition["axes"] = ordered_json::parse(R"({"a": {"type": "var"}, "b": {"type": "var"}})");
  definition["outputs"] = ordered_json::parse(R"({"x": {"shape": ["a"], "dtype": "float32"}})");
  CHECK_THROWS_WITH(parse_definition(definition, "d.json", ProblemOrigin::sol_execbench),
                    Contains("outputs.x: \"x\" is both an input and an output"));
  definition["outputs"] = ordered_json::parse(R"({"y": {"shape": "a", "dtype": "float32"}})");
  CHECK_THROWS_WITH(parse_definition(definition, "d.json", ProblemOrigin::sol_execbench),
                    Contains("outputs.y.shape: expected a list of axis names or null"));
  definition["outputs"] = ordered_json::parse(R"({"y": {"shape": ["a"], "dtype": "float32"}})");
  const ProblemDescription p = parse_definition(definition, "d.json", ProblemOrigin::sol_execbench);
  const auto custom = ordered_json::parse(R"({"uuid": "u", "axes": {"a": 2, "b": 3}, "inputs": {"x": {"type": "custom"}}})");
  CHECK_THROWS_WITH(parse_workload(custom, p, "w.jsonl", "line 1"),
                    Contains("w.jsonl: line 1 (workload \"u\"): inputs: \"custom\" inputs need the definition's \"custom_inputs_entrypoint\""));
  const auto scalar_tensor = ordered_json::parse(R"({"uuid": "u", "axes": {"a": 2, "b": 3}, "inputs": {"x": {"type": "scalar", "value": 1}}})");
  CHECK_THROWS_WITH(parse_workload(scalar_tensor, p, "w.jsonl", "line 1"),
                    Contains("inputs.x.type: \"scalar\" given for a tensor of rank 1"));
  const auto bad_ratio = ordered_json::parse(R"({"uuid": "u", "axes": {"a": 2, "b": 3}, "correctness": {"required_matched_ratio": 1.5}})");
  CHECK_THROWS_WITH(parse_workload(bad_ratio, p, "w.jsonl", "line 4"),
                    Contains("line 4 (workload \"u\"): correctness.required_matched_ratio: the value 1.5 is not in [0, 1]"));
  const auto trace = ordered_json::parse(R"({"definition": "d", "workload": {"uuid": "t", "axes": {"a": 2, "b": 3}, "inputs": {}}, "solution": null})");
  CHECK(parse_workload(trace, p, "w.jsonl", "line 1").uuid == "t");  // a FlashInfer trace line
}

TEST_CASE("a KernelBench Model's state: inputs of the entry point, filled by the reference worker", "[suite]") {
  using Catch::Matchers::Contains;
  ordered_json described = ordered_json::parse(R"json({
    "definition": {"name": "gelu_linear", "axes": {"n": {"type": "const", "value": 8}},
                   "inputs": {"x": {"shape": ["n"], "dtype": "float32"},
                              "linear_weight": {"shape": ["n", "n"], "dtype": "float32",
                                                "description": "the Model's linear.weight (its state, filled from the Model the reference builds)"},
                              "linear_bias": {"shape": ["n"], "dtype": "float32"}},
                   "outputs": {"output": {"shape": ["n"], "dtype": "float32"}}, "reference": "f.py"},
    "workloads": [{"uuid": "w", "axes": {}, "inputs": {"x": {"type": "random"},
                   "linear_weight": {"type": "model_state", "key": "linear.weight"},
                   "linear_bias": {"type": "model_state", "key": "linear.bias"}}}]})json");
  const ProblemDescription p = describe_problem(described, "f.py", ProblemOrigin::kernelbench);
  CHECK_FALSE(not_judgeable_reason(p));
  CHECK(p.workloads[0].inputs.at("linear_weight").kind == InputSourceKind::model_state);
  CHECK(p.workloads[0].inputs.at("linear_weight").state_key == "linear.weight");
  CHECK_THAT(entry_point_header(p), Contains("const float* linear_weight,"));
  CHECK_THAT(entry_point_header(p), Contains("// input, [n, n] float32, the Model's linear.weight\n"));
  // Only the describer's: a suite's workload has no Model.
  auto sol = described;
  CHECK_THROWS_WITH(describe_problem(sol, "f.py", ProblemOrigin::sol_execbench),
                    Contains("inputs.linear_weight.type: unknown input type \"model_state\""));
  sol["workloads"][0]["inputs"]["linear_bias"] = {{"type", "model_state"}};
  CHECK_THROWS_WITH(describe_problem(sol, "f.py", ProblemOrigin::kernelbench), Contains("inputs.linear_bias.key"));
}

TEST_CASE("constraints over a tensor's values are carried for the reference; one over axes is checked", "[suite]") {
  using Catch::Matchers::Contains;
  // A paged-KV decode in SOL-ExecBench's form: the page count relates to the index tensor's last
  // value, which no axis gives. The suite's reference asserts it; the judge carries it.
  auto definition = ordered_json::parse(R"json({"name": "paged", "axes": {
      "batch": {"type": "var"}, "len_indptr": {"type": "var"}, "num_indices": {"type": "var"},
      "pages": {"type": "var"}, "dim": {"type": "const", "value": 64}},
    "constraints": ["len_indptr == batch + 1", "num_indices == indptr[-1].item()", "num_indices <= pages * 4"],
    "inputs": {"q": {"shape": ["batch", "dim"], "dtype": "bfloat16"},
               "cache": {"shape": ["pages", "dim"], "dtype": "bfloat16"},
               "indptr": {"shape": ["len_indptr"], "dtype": "int32"},
               "indices": {"shape": ["num_indices"], "dtype": "int32"}},
    "outputs": {"out": {"shape": ["batch", "dim"], "dtype": "bfloat16"}},
    "reference": "def run(q, cache, indptr, indices): return q"})json");
  const ProblemDescription p = parse_definition(definition, "paged.json", ProblemOrigin::sol_execbench);
  CHECK(p.constraints.size() == 3);
  CHECK_FALSE(axis_constraint("num_indices == indptr[-1].item()", p));
  CHECK_FALSE(axis_constraint("num_indices == indices", p));  // a tensor named: its values
  REQUIRE(axis_constraint("len_indptr == batch + 1", p));
  const auto w = ordered_json::parse(R"({"uuid": "w1", "axes": {"batch": 3, "len_indptr": 4, "num_indices": 10, "pages": 16}})");
  const ConcreteWorkload c = concretize(p, parse_workload(w, p, "w.jsonl", "line 1"));
  CHECK(c.unchecked_constraints == std::vector<std::string>{"num_indices == indptr[-1].item()"});
  // The axes' own relations still hold or fail, naming the workload.
  const auto bad = ordered_json::parse(R"({"uuid": "w2", "axes": {"batch": 3, "len_indptr": 5, "num_indices": 10, "pages": 16}})");
  CHECK_THROWS_WITH(concretize(p, parse_workload(bad, p, "w.jsonl", "line 2")),
                    Contains("\"len_indptr == batch + 1\" does not hold (5 == 4)"));
  // A misspelt axis in a relation between axes is still the definition's error.
  definition["constraints"] = ordered_json::parse(R"(["len_indptr == batchs + 1"])");
  CHECK_THROWS_WITH(parse_definition(definition, "paged.json", ProblemOrigin::sol_execbench),
                    Contains("constraints[0]: expression \"len_indptr \" uses axis") || Contains("uses axis \"batchs\""));
}

TEST_CASE("safetensors files are found as SOL-ExecBench finds them, or the problem says where it looked", "[suite]") {
  const fs::path root = fs::temp_directory_path() / ("socratic-blob-test-" + std::to_string(::getpid()));
  fs::remove_all(root);
  // A dataset: problems under benchmark/, blobs under data/flashinfer-trace/blob/, paths in the
  // workloads relative to the dataset's root.
  const fs::path problem = root / "benchmark" / "L1" / "paged";
  const fs::path blob = root / "data" / "flashinfer-trace" / "blob" / "workloads" / "paged" / "w1.safetensors";
  fs::create_directories(problem);
  fs::create_directories(blob.parent_path());
  std::ofstream(blob) << "not read here";
  std::ofstream(problem / "definition.json") << R"json({"name": "paged", "axes": {"n": {"type": "var"}},
    "inputs": {"idx": {"shape": ["n"], "dtype": "int32"}}, "outputs": {"y": {"shape": ["n"], "dtype": "float32"}},
    "reference": "def run(idx): return idx.float()"})json";
  auto workload = [&](const std::string& path) {
    std::ofstream(problem / "workload.jsonl")
        << R"({"uuid": "w1", "axes": {"n": 4}, "inputs": {"idx": {"type": "safetensors", "path": ")" << path
        << R"(", "tensor_key": "idx"}}})" << "\n";
  };
  ::unsetenv(blob_root_variable);
  // Relative to the dataset's root, a folder above the problem.
  CHECK(find_blob("data/flashinfer-trace/blob/workloads/paged/w1.safetensors", problem) == blob);
  workload("data/flashinfer-trace/blob/workloads/paged/w1.safetensors");
  CHECK_FALSE(not_judgeable_reason(load_problem_folder(problem)));
  // Relative to a root that holds only the path's tail: the leading folders are dropped.
  CHECK(find_blob("somewhere/else/blob/workloads/paged/w1.safetensors", problem) == std::nullopt);
  ::setenv(blob_root_variable, (root / "data" / "flashinfer-trace").c_str(), 1);
  CHECK(find_blob("somewhere/else/blob/workloads/paged/w1.safetensors", problem) == blob);
  ::unsetenv(blob_root_variable);
  // Found nowhere: not judgeable, naming the file, the folder and the variable to set.
  workload("blob/workloads/paged/missing.safetensors");
  const auto why = not_judgeable_reason(load_problem_folder(problem));
  REQUIRE(why);
  CHECK_THAT(*why, Catch::Matchers::Contains("workload \"w1\": inputs.idx: its safetensors file \"blob/workloads/paged/missing.safetensors\""));
  CHECK_THAT(*why, Catch::Matchers::Contains("set $FLASHINFER_TRACE_DIR"));
  fs::remove_all(root);
}

TEST_CASE("a FlashInfer-Bench TraceSet: each definition a problem, its workloads the Trace lines naming it", "[suite]") {
  using Catch::Matchers::Contains;
  const fs::path set = fs::path(SOCRATIC_SOURCE_DIR) / "tests" / "suite" / "trace_set";
  CHECK(is_trace_set(set));
  const fs::path norm = set / "definitions" / "norm" / "fused_add_rmsnorm_h2048.json";
  REQUIRE(is_trace_set_definition(norm));
  CHECK(*trace_set_root(norm) == set);
  // The mirror file (workloads/norm/NAME.jsonl) is read alone.
  CHECK(trace_set_workload_files(norm) == std::vector<fs::path>{set / "workloads" / "norm" / "fused_add_rmsnorm_h2048.jsonl"});
  const ProblemDescription p = load_trace_set_definition(norm);
  CHECK(p.origin == ProblemOrigin::flashinfer_bench);
  REQUIRE(p.workloads.size() == 2);
  CHECK(p.workloads[1].uuid == "far-b512");
  CHECK(concretize(p, p.workloads[1]).bytes == 512u * 2048 * 2 * 3 + 2048 * 2);  // a scalar is no tensor
  // No mirror file: every workload file is read, and only the lines naming this definition count.
  const ProblemDescription shared = load_trace_set_definition(set / "definitions" / "elementwise" / "scaled_add_n.json");
  REQUIRE(shared.workloads.size() == 2);
  CHECK(shared.workloads[0].uuid == "sa-1k");
  CHECK(shared.workloads[1].uuid == "sa-1m");
  CHECK(shared.workloads[1].line == 3);
  // Outside a TraceSet, or a set with no workload for it: named errors.
  CHECK_FALSE(is_trace_set_definition(suite_problems() / "rmsnorm_h4096" / "definition.json"));
  const fs::path root = fs::temp_directory_path() / ("socratic-trace-set-test-" + std::to_string(::getpid()));
  fs::remove_all(root);
  fs::create_directories(root / "definitions" / "norm");
  fs::create_directories(root / "workloads" / "norm");
  fs::copy_file(norm, root / "definitions" / "norm" / "fused_add_rmsnorm_h2048.json");
  CHECK_THROWS_WITH(load_trace_set_definition(root / "definitions" / "norm" / "fused_add_rmsnorm_h2048.json"),
                    Contains("no workload names \"fused_add_rmsnorm_h2048\" under " + (root / "workloads").string()));
  std::ofstream(root / "workloads" / "norm" / "fused_add_rmsnorm_h2048.jsonl")
      << R"({"definition": "fused_add_rmsnorm_h2048", "workload": {"uuid": "w", "axes": {"batch_size": 4}, "inputs": {}}})" << "\n"
      << R"({"definition": "fused_add_rmsnorm_h2048", "workload": {"uuid": "w2", "axes": {"batch": 4}, "inputs": {}}})" << "\n";
  CHECK_THROWS_WITH(load_trace_set_definition(root / "definitions" / "norm" / "fused_add_rmsnorm_h2048.json"),
                    Contains("fused_add_rmsnorm_h2048.jsonl: line 2"));
  fs::remove_all(root);
}

TEST_CASE("a KernelBench file whose forward pass the describer could not run: read, not judgeable, with the reason",
          "[suite]") {
  using Catch::Matchers::Contains;
  const auto described = ordered_json::parse(R"({
    "definition": {"name": "sdpa", "axes": {"b": {"type": "const", "value": 2}},
                   "inputs": {"q": {"shape": ["b"], "dtype": "float32"}}, "outputs": {},
                   "reference": "sdpa.py"},
    "workloads": [{"uuid": "default", "axes": {}, "inputs": {"q": {"type": "random"}}}],
    "kernelbench": {"outputs_unknown": "the forward pass on meta tensors failed: AttributeError: no scaled_dot_product_attention"}})");
  const ProblemDescription p = describe_problem(described, "sdpa.py", ProblemOrigin::kernelbench);
  CHECK(p.outputs.empty());
  CHECK_THAT(not_judgeable_reason(p).value_or(""),
             Contains("its outputs are unknown: the forward pass on meta tensors failed: AttributeError"));
  // Without the describer's reason, no outputs is still a malformed definition.
  auto plain = described;
  plain.erase("kernelbench");
  CHECK_THROWS_WITH(describe_problem(plain, "sdpa.py", ProblemOrigin::kernelbench),
                    Contains("a definition needs at least one output"));
}
