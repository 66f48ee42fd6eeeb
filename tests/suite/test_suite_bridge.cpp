// The host bridge to the GPU judge, on CPU (issue 38 item 1): the resolved workload written from a
// problem's description (include/socratic/suite/resolved_workload_writer.hpp) and read back by
// the runner's own parser (kernels/suite/resolved_workload.hpp), for every workload of every
// judgeable test problem; the refusals and their reasons; the adapter generated from the
// description (include/socratic/suite/suite_adapter.hpp), which regenerates the committed
// tests/suite_gpu/row_sum_and_argmax_adapter.cu.
#include "catch.hpp"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "resolved_workload.hpp"  // the runner's parser (kernels/suite), plain C++17
#include "socratic/suite/concrete_workload.hpp"
#include "socratic/suite/judgeable.hpp"
#include "socratic/suite/resolved_workload_writer.hpp"
#include "socratic/suite/sol_loader.hpp"
#include "socratic/suite/suite_adapter.hpp"

namespace {

namespace fs = std::filesystem;
namespace host = socratic::suite;
namespace runner = socratic::harness::suite;
using Catch::Matchers::Contains;

fs::path source_dir() { return fs::path(SOCRATIC_SOURCE_DIR); }

host::ReferenceLocation reference_for(const host::ProblemDescription& p) {
  return {"/usr/bin/python3", (source_dir() / "kernels/harness/python/reference_worker.py").string(),
          (fs::path(p.source) / "definition.json").string()};
}

std::vector<fs::path> sol_test_problems() {
  std::vector<fs::path> out;
  for (const auto& e : fs::directory_iterator(source_dir() / "tests/suite/problems"))
    if (host::is_sol_problem_folder(e.path())) out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

std::string read_text(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

TEST_CASE("resolved workloads: written by the host, read back by the runner's parser, for every judgeable "
          "workload of the test problems",
          "[suite][bridge]") {
  std::size_t judged = 0, refused = 0;
  for (const fs::path& dir : sol_test_problems()) {
    const host::ProblemDescription p = host::load_problem_folder(dir);
    INFO(dir.string());
    if (auto why = host::not_judgeable_reason(p)) {
      ++refused;
      UNSCOPED_INFO("refused: " << *why);
      CHECK_THROWS(host::resolved_scenario_set(p, reference_for(p)));
      continue;
    }
    const socratic::ScenarioSet set = host::resolved_scenario_set(p, reference_for(p));
    REQUIRE(set.scenarios.size() == p.workloads.size());
    CHECK(set.problem == "suite");
    for (std::size_t k = 0; k < p.workloads.size(); ++k) {
      const host::Workload& w = p.workloads[k];
      const socratic::Scenario& sc = set.scenarios[k];
      INFO("workload " << w.uuid);
      CHECK(sc.id == w.uuid);
      CHECK(sc.description == host::workload_axes_text(p, w));
      // Through a file, as the judge hands it over: the scenario object, id and note included.
      const socratic::json as_written = socratic::json::parse(socratic::json(sc).dump());
      socratic::json params = as_written;
      params.erase("id");
      params.erase("description");
      runner::ResolvedWorkload r;
      REQUIRE_NOTHROW(r = runner::parse_resolved_workload(params));
      const host::ConcreteWorkload c = host::concretize(p, w);
      CHECK(r.name == p.name);
      REQUIRE(r.inputs.size() == p.inputs.size());
      for (std::size_t i = 0; i < p.inputs.size(); ++i) {
        const auto& in = r.inputs[i];
        CHECK(in.name == p.inputs[i].name);
        CHECK(std::string(socratic::harness::dtype_definition_name(in.dtype)) == host::dtype_name(p.inputs[i].dtype));
        CHECK(in.scalar == p.inputs[i].is_scalar());
        if (in.scalar) {
          const auto& v = w.inputs.at(in.name).value;
          CHECK(in.value == (v.is_boolean() ? (v.get<bool>() ? 1.0 : 0.0) : v.get<double>()));
          continue;
        }
        CHECK(in.shape == *c.inputs[i].dims);
        CHECK(in.elements == c.inputs[i].elements);
        const auto source = w.inputs.find(in.name);
        if (source != w.inputs.end() && source->second.kind == host::InputSourceKind::scalar) {
          CHECK(in.init.kind == runner::InitKind::full);  // a 0-d tensor given its value
          CHECK(in.init.value == source->second.value.get<double>());
          CHECK_FALSE(in.init.scaled);
          continue;
        }
        if (source != w.inputs.end() && source->second.kind == host::InputSourceKind::custom) {
          CHECK(in.init.kind == runner::InitKind::custom);  // the reference worker fills it
          continue;
        }
        const bool floating = host::dtype_is_floating(p.inputs[i].dtype);
        if (!host::sol_named_input(p.inputs[i], *c.inputs[i].dims))
          CHECK(in.init.kind == (floating ? runner::InitKind::randn : runner::InitKind::randint));
      }
      REQUIRE(r.outputs.size() == p.outputs.size());
      for (std::size_t i = 0; i < p.outputs.size(); ++i) {
        const auto& out = r.outputs[i];
        const host::Tolerance& want = c.output_tolerances[i];
        CHECK(out.name == p.outputs[i].name);
        CHECK(out.shape == c.outputs[i].dims.value_or(std::vector<std::int64_t>{}));
        CHECK(out.tolerance.rule == runner::ToleranceRule::sol);
        CHECK(out.tolerance.atol == want.atol);
        CHECK(out.tolerance.rtol == want.rtol);
        CHECK(out.tolerance.matched_ratio == want.required_matched_ratio);
        CHECK(out.tolerance.max_error_cap == want.max_error_cap);
      }
      REQUIRE(r.axes.size() == c.axes.size());
      for (std::size_t i = 0; i < c.axes.size(); ++i) {
        CHECK(r.axes[i].name == c.axes[i].first);
        CHECK(r.axes[i].value == c.axes[i].second);
        CHECK(r.axes[i].variable == (p.find_axis(c.axes[i].first)->kind == host::AxisKind::variable));
      }
      CHECK(r.flops.has_value() == c.flops.has_value());
      if (c.flops) CHECK(*r.flops == static_cast<double>(*c.flops));
      CHECK(r.min_bytes.value() == static_cast<double>(c.bytes));
      CHECK(r.regimes.size() == 3);
      CHECK(r.reference.definition == (dir / "definition.json").string());
      ++judged;
    }
  }
  CHECK(judged >= 21);  // nine judgeable problems of three workloads (and more)
  CHECK(refused == 1);  // fp4
}

TEST_CASE("resolved workloads: a workload's tolerance override and the suite's integer generators",
          "[suite][bridge]") {
  const host::ProblemDescription rms = host::load_problem_folder(source_dir() / "tests/suite/problems/rmsnorm_h4096");
  const auto set = host::resolved_scenario_set(rms, reference_for(rms), {"rms-b4096"});
  REQUIRE(set.scenarios.size() == 1);
  const auto r = runner::parse_resolved_workload(set.scenarios[0].params);
  CHECK(r.outputs[0].tolerance.atol == 0.02);
  CHECK(r.outputs[0].tolerance.matched_ratio == 0.999);
  CHECK(r.inputs[2].value == 1e-5);
  CHECK(r.axes[0].variable);
  CHECK_FALSE(r.axes[1].variable);
  CHECK(*r.flops == 4.0 * 4096 * 4096);
  CHECK(host::random_generator(host::Dtype::int8).low == -128);
  CHECK(host::random_generator(host::Dtype::int32).high == 1024);
  CHECK(host::random_generator(host::Dtype::boolean).high == 2);
  CHECK_THROWS_WITH(host::resolved_scenario_set(rms, reference_for(rms), {"rms-b7"}),
                    Contains("workload \"rms-b7\"") && Contains("no such workload (the problem has rms-b1, rms-b128, rms-b4096)"));
}

TEST_CASE("SOL-ExecBench's input name conventions: each a generator of the runner's", "[suite][bridge]") {
  auto named = [](const std::string& name, std::vector<std::int64_t> dims, host::Dtype d = host::Dtype::bfloat16,
                  const std::string& description = "") {
    host::TensorSpec t;
    t.name = name, t.dtype = d, t.description = description;
    return host::sol_named_input(t, dims);
  };
  CHECK(named("input_layernorm_weight", {4096})->generator->kind == "ones");
  CHECK(named("norm2_weight", {4096})->generator->kind == "ones");
  CHECK(named("q_norm_bias", {128})->generator->kind == "zeros");
  CHECK_FALSE(named("weight", {4096}));  // a vector named `weight`: a standard normal, as in SOL
  const auto matrix = named("o_proj", {4096, 1024});
  REQUIRE(matrix->generator);
  CHECK(matrix->generator->kind == "randn");
  CHECK(matrix->generator->std == Approx(1.0 / 32));
  CHECK(named("text_mask", {8, 16})->generator->kind == "randint");
  CHECK(named("pad_mask", {8, 16}, host::Dtype::float32, "1.0 for valid tokens")->generator->high == 2);
  CHECK(named("A_log", {64})->generator->low == -5.0);
  CHECK_FALSE(named("A_log", {64}, host::Dtype::int32));             // integers follow no convention
  CHECK_FALSE(named("o_proj", {64, 64}, host::Dtype::float8_e4m3fn));  // nor fp8
  // SOL's structured conventions: generators of the runner's own (kernels/suite/input_conventions.hpp).
  auto kind_of = [&](const std::string& name, std::vector<std::int64_t> dims, const std::string& description = "") {
    const auto n = named(name, std::move(dims), host::Dtype::bfloat16, description);
    REQUIRE(n);
    REQUIRE(n->generator);
    CHECK_FALSE(n->generator->scaled);
    return n->generator->kind;
  };
  CHECK(kind_of("causal_mask", {2, 128, 128}) == "causal_mask");
  CHECK(kind_of("attention_mask", {128, 128}) == "causal_mask");  // square: causal before binary, as in SOL
  CHECK(kind_of("bias", {128, 128}, "Additive attention mask, causal") == "causal_mask");
  CHECK_FALSE(named("causal_mask", {128, 64}));  // not square: no convention (a standard normal)
  CHECK(kind_of("attention_mask", {8, 16}) == "randint");              // nor here: a binary mask
  CHECK(kind_of("cos", {4096, 64}) == "cos_normal");
  CHECK(kind_of("rope_cos", {4096, 64}) == "cos_normal");
  CHECK(kind_of("sin_cached", {4096, 64}) == "sin_normal");
  CHECK(kind_of("rstd2", {16}) == "positive_normal");
  CHECK(kind_of("x_variance", {16}) == "positive_normal");
  CHECK(kind_of("A_cumsum", {4, 8, 64}) == "cumsum_uniform");
  CHECK(named("A_cumsum", {4, 8, 64})->generator->low == -0.1);
  CHECK(named("A_cumsum", {4, 8, 64})->generator->high == 0.0);
  CHECK(named("A_cumsum", {4, 8, 64})->generator->to_json().at("low") == -0.1);
  CHECK(kind_of("routing_weights", {16, 8}) == "softmax_normal");
  CHECK(kind_of("p", {16, 8}, "the softmax output of the router") == "softmax_normal");
  CHECK_FALSE(named("cos", {4096, 64}, host::Dtype::float8_e4m3fn));  // fp8 follows no convention, as in SOL

  // Through the writer: an RMSNorm whose weight is a norm weight is all ones, unscaled.
  host::ProblemDescription p = host::load_problem_folder(source_dir() / "tests/suite/problems/rmsnorm_h4096");
  p.inputs[1].name = "post_norm_weight";
  for (auto& w : p.workloads) w.inputs["post_norm_weight"] = w.inputs["weight"], w.inputs.erase("weight");
  const auto r = runner::parse_resolved_workload(host::resolved_workload(p, p.workloads[0], reference_for(p)));
  CHECK(r.inputs[1].init.kind == runner::InitKind::ones);
  CHECK_FALSE(r.inputs[1].init.scaled);
  // RoPE's tables through the writer and the runner's parser: cos and sin of a clamped normal.
  const auto rope = host::load_problem_folder(source_dir() / "tests/suite/problems/rope_neox_d128");
  CHECK_FALSE(host::not_judgeable_reason(rope));
  const auto rr = runner::parse_resolved_workload(host::resolved_workload(rope, rope.workloads[1], reference_for(rope)));
  CHECK(rr.inputs[2].name == "cos");
  CHECK(rr.inputs[2].init.kind == runner::InitKind::cos_normal);
  CHECK(rr.inputs[3].init.kind == runner::InitKind::sin_normal);
  CHECK(rr.inputs[0].init.kind == runner::InitKind::randn);
}

TEST_CASE("custom and safetensors inputs: named in the resolved workload for the reference worker to fill",
          "[suite][bridge]") {
  const fs::path problems = source_dir() / "tests/suite/problems";
  const auto moe = host::load_problem_folder(problems / "moe_scatter_add_h2048");
  CHECK_FALSE(host::not_judgeable_reason(moe));
  const auto m = runner::parse_resolved_workload(host::resolved_workload(moe, moe.workloads[1], reference_for(moe)));
  REQUIRE(m.inputs.size() == 4);
  for (const auto& in : m.inputs) CHECK(in.init.kind == runner::InitKind::custom);
  CHECK(m.inputs[2].shape == std::vector<std::int64_t>{8192});  // token_index: tokens * top_k
  CHECK(m.axes.size() == 4);  // every axis, as SOL's axes_and_scalars has them

  // A safetensors input: its path found under the problem's folder, made absolute for the worker;
  // a file found nowhere makes the problem not judgeable.
  const fs::path copy = fs::temp_directory_path() / ("socratic-bridge-blob-" + std::to_string(::getpid()));
  fs::remove_all(copy);
  fs::create_directories(copy);
  fs::copy(problems / "rmsnorm_h4096", copy / "rmsnorm_h4096", fs::copy_options::recursive);
  host::ProblemDescription p = host::load_problem_folder(copy / "rmsnorm_h4096");
  p.workloads[0].inputs["weight"] = host::InputSource{host::InputSourceKind::safetensors, {}, "blob/w.safetensors", "w", {}};
  CHECK_THAT(host::not_judgeable_reason(p).value_or(""), Contains("its safetensors file \"blob/w.safetensors\""));
  fs::create_directories(copy / "rmsnorm_h4096" / "blob");
  std::ofstream(copy / "rmsnorm_h4096" / "blob" / "w.safetensors") << "stand-in bytes";
  CHECK_FALSE(host::not_judgeable_reason(p));
  const auto j = host::resolved_workload(p, p.workloads[0], reference_for(p));
  CHECK(j.at("inputs")[1].at("init") ==
        socratic::json({{"kind", "safetensors"},
                        {"path", fs::absolute(copy / "rmsnorm_h4096/blob/w.safetensors").lexically_normal().string()},
                        {"tensor_key", "w"}}));
  const auto r = runner::parse_resolved_workload(j);
  CHECK(r.inputs[1].init.kind == runner::InitKind::safetensors);
  CHECK(r.inputs[1].init.tensor_key == "w");
  CHECK(fs::path(r.inputs[1].init.path).is_absolute());
  CHECK(r.inputs[0].init.kind == runner::InitKind::randn);  // the others as before
  // A KernelBench Model's state: named by its key for the worker, parsed back by the runner.
  const auto described = host::ordered_json::parse(R"json({
    "definition": {"name": "linear", "axes": {"n": {"type": "const", "value": 8}},
                   "inputs": {"x": {"shape": ["n"], "dtype": "float32"}, "fc_weight": {"shape": ["n", "n"], "dtype": "float32"}},
                   "outputs": {"output": {"shape": ["n"], "dtype": "float32"}}, "reference": "linear.py"},
    "workloads": [{"uuid": "w", "axes": {}, "inputs": {"x": {"type": "random"},
                   "fc_weight": {"type": "model_state", "key": "fc.weight"}}}]})json");
  const auto kb = host::describe_problem(described, copy.string(), host::ProblemOrigin::kernelbench);
  const auto s = runner::parse_resolved_workload(host::resolved_workload(kb, kb.workloads[0], reference_for(kb)));
  CHECK(s.inputs[1].init.kind == runner::InitKind::model_state);
  CHECK(s.inputs[1].init.state_key == "fc.weight");
  CHECK(s.inputs[1].shape == std::vector<std::int64_t>{8, 8});
  p.workloads[0].inputs["weight"].path = "/data/blobs/w.safetensors";  // an absolute path as given
  CHECK(host::resolved_workload(p, p.workloads[0], reference_for(p)).at("inputs")[1].at("init").at("path") ==
        "/data/blobs/w.safetensors");
  fs::remove_all(copy);
}

TEST_CASE("refusals: what the judge's runner cannot make is refused with the reason, never judged wrong",
          "[suite][bridge]") {
  const fs::path problems = source_dir() / "tests/suite/problems";
  const auto fp4 = host::load_problem_folder(problems / "nvfp4_quantize_h4096");
  CHECK_THAT(host::not_judgeable_reason(fp4).value_or(""), Contains("needs fp4 arithmetic"));

  host::ProblemDescription p = host::load_problem_folder(problems / "rmsnorm_h4096");
  p.custom_inputs_entrypoint = "make_inputs";
  p.workloads[0].inputs["eps"] = host::InputSource{host::InputSourceKind::custom, {}, {}, {}, {}};
  CHECK_THAT(host::not_judgeable_reason(p).value_or(""),
             Contains("workload \"rms-b1\": inputs.eps: a `custom` Python scalar; the judge's runner takes scalars as values"));
  CHECK_THROWS_WITH(host::resolved_workload(p, p.workloads[0], reference_for(p)), Contains("`custom` Python scalar"));
  p = host::load_problem_folder(problems / "rmsnorm_h4096");
  p.workloads[1].inputs.erase("eps");  // left out: random, and eps is a Python scalar
  CHECK_THAT(host::not_judgeable_reason(p).value_or(""), Contains("workload \"rms-b128\": inputs.eps: a random Python scalar"));
  p = host::load_problem_folder(problems / "rmsnorm_h4096");
  p.op_type = "sampling";
  p.inputs[0].name = "probs";
  for (auto& w : p.workloads) w.inputs["probs"] = w.inputs["hidden_states"], w.inputs.erase("hidden_states");
  // A sampling problem's probs: SOL's softmax of the normal logits, along the last dimension.
  CHECK_FALSE(host::not_judgeable_reason(p));
  const auto probs = runner::parse_resolved_workload(host::resolved_workload(p, p.workloads[0], reference_for(p)));
  CHECK(probs.inputs[0].init.kind == runner::InitKind::softmax_normal);
  p.inputs[0].dtype = host::Dtype::float8_e4m3fn;  // fp8 probs: no softmax the runner makes
  CHECK_THAT(host::not_judgeable_reason(p).value_or(""), Contains("a softmax of random logits; the judge's runner "
                                                                  "makes it for float64, float32, float16 and bfloat16"));
}

TEST_CASE("the adapter: generated from the description with the header's parameters; the committed "
          "adapter of tests/suite_gpu is regenerated byte for byte",
          "[suite][bridge]") {
  const host::ProblemDescription p =
      host::load_problem_folder(source_dir() / "tests/suite_python/sol/row_sum_and_argmax");
  const std::string source = host::adapter_source(p);
  CHECK_THAT(source, Contains("const float* x,\n    float scale,\n    float* total,\n    int64_t* largest,\n    "
                              "int64_t rows,\n    cudaStream_t stream);"));
  CHECK_THAT(source, Contains("static_cast<float>(call->scalars[0].real)"));
  CHECK_THAT(source, Contains("call->var_axis_count != 1"));
  // Every parameter of the header is declared in the adapter, in the header's order.
  const std::string header = host::entry_point_header(p);
  for (const auto& prm : host::entry_point_parameters(p)) CHECK_THAT(header, Contains(prm.declaration()));

  // tests/suite_gpu/row_sum_and_argmax_adapter.cu: a two-line note, then the generator's output.
  const std::string committed = read_text(source_dir() / "tests/suite_gpu/row_sum_and_argmax_adapter.cu");
  const auto body = committed.find("// Generated by include/socratic/suite/suite_adapter.hpp");
  REQUIRE(body != std::string::npos);
  CHECK(committed.substr(body) == host::adapter_source(p, "row_sum_and_argmax.cu"));

  // A parameter named like a keyword or the stream is renamed in both, the same way.
  host::ProblemDescription odd = p;
  odd.inputs[0].name = "float";
  odd.outputs[0].name = "stream";
  const std::string odd_source = host::adapter_source(odd);
  CHECK_THAT(odd_source, Contains("const float* float_input,"));
  CHECK_THAT(odd_source, Contains("float* stream,"));
  CHECK_THAT(odd_source, Contains("cudaStream_t stream_cuda);"));
  CHECK_THAT(odd_source, Contains("static_cast<float*>(call->outputs[0]),"));
  CHECK_THAT(host::entry_point_header(odd), Contains("const float* float_input,"));
}
