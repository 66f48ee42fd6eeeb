// The suite runner's host-side logic, on CPU: the resolved workload (kernels/suite/
// resolved_workload.hpp) and its errors by field, the dtypes' names and sizes. The adapter is the
// host's (include/socratic/suite/suite_adapter.hpp): tests/suite/test_suite_bridge.cpp checks it,
// and tests/suite/test_suite_eval.cpp compiles it with a candidate; the reference worker client
// stopped and resumed around a stand-in worker.
#include "catch.hpp"

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <random>
#include <fstream>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

#include "input_conventions.hpp"
#include "reference_client.hpp"
#include "resolved_workload.hpp"

namespace fs = std::filesystem;
using nlohmann::json;
using namespace socratic::harness;
using namespace socratic::harness::suite;

namespace {

json two_outputs() {
  return json::parse(R"({
    "name": "row_sum_and_argmax_c32",
    "inputs": [{"name": "x", "dtype": "float32", "shape": [8, 32], "init": {"kind": "randn"}},
               {"name": "scale", "dtype": "float32", "shape": null, "value": 0.5}],
    "outputs": [{"name": "total", "dtype": "float32", "shape": [8]},
                {"name": "largest", "dtype": "int64", "shape": [8], "tolerance": {"atol": 0, "rtol": 0}}],
    "axes": [{"name": "rows", "value": 8, "var": true}, {"name": "columns", "value": 32}],
    "tolerance": {"rule": "sol", "atol": 1e-3, "rtol": 1e-2, "max_error_cap": 0.5},
    "reference": {"python": "/usr/bin/python3", "worker": "w.py", "definition": "d.json"},
    "regimes": [1, 0.25]})");
}

std::string error_of(const json& j) {
  try {
    parse_resolved_workload(j);
  } catch (const std::exception& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("a resolved workload: inputs in order, scalars, outputs with their own tolerance, axes",
          "[harness][suite]") {
  const ResolvedWorkload w = parse_resolved_workload(two_outputs());
  REQUIRE(w.inputs.size() == 2);
  CHECK(w.inputs[0].elements == 256);
  CHECK(w.inputs[0].init.kind == InitKind::randn);
  CHECK(w.inputs[1].scalar);
  CHECK(w.inputs[1].value == 0.5);
  REQUIRE(w.outputs.size() == 2);
  CHECK(w.outputs[0].tolerance.atol == 1e-3);
  CHECK(w.outputs[0].tolerance.max_error_cap.value() == 0.5);
  CHECK(w.outputs[1].dtype == Dtype::int64);
  CHECK(w.outputs[1].tolerance.atol == 0);
  CHECK(w.outputs[1].tolerance.max_error_cap.value() == 0.5);  // the rest inherited
  REQUIRE(w.axes.size() == 2);
  CHECK(w.axes[0].variable);
  CHECK_FALSE(w.axes[1].variable);
  CHECK(w.regimes == std::vector<double>{1, 0.25});
}

TEST_CASE("a resolved workload's errors name the field", "[harness][suite]") {
  auto with = [](const std::string& pointer, const json& value) {
    json j = two_outputs();
    j[json::json_pointer(pointer)] = value;
    return error_of(j);
  };
  CHECK_THAT(with("/inputs/0/dtype", "float4_e2m1"),
             Catch::Matchers::Contains("field \"inputs[0].dtype\": \"float4_e2m1\" is not a dtype"));
  CHECK_THAT(with("/inputs/0/init/kind", "gaussian"),
             Catch::Matchers::Contains("field \"inputs[0].init.kind\": expected randn"));
  CHECK_THAT(with("/inputs/0/shape/1", -3), Catch::Matchers::Contains("field \"inputs[0].shape[1]\""));
  CHECK_THAT(with("/outputs/1/shape", nullptr), Catch::Matchers::Contains("field \"outputs[1].shape\""));
  CHECK_THAT(with("/outputs/1/name", "x"), Catch::Matchers::Contains("\"x\" is used twice"));
  CHECK_THAT(with("/tolerance/matched_ratio", 1.5),
             Catch::Matchers::Contains("field \"tolerance.matched_ratio\": must be in (0, 1]"));
  CHECK_THAT(with("/tolerance/rule", "close"), Catch::Matchers::Contains("field \"tolerance.rule\""));
  CHECK_THAT(with("/axes/0/value", 2.5), Catch::Matchers::Contains("field \"axes[0].value\""));
  CHECK_THAT(with("/regimes/1", 0), Catch::Matchers::Contains("field \"regimes[1]\": must be > 0"));
  CHECK_THAT(with("/bogus", 1), Catch::Matchers::Contains("field \"parameters.bogus\": unknown member"));
  json no_reference = two_outputs();
  no_reference["reference"].erase("python");
  CHECK_THAT(error_of(no_reference), Catch::Matchers::Contains("field \"reference.python\": required"));
  json int_randn = two_outputs();
  int_randn["inputs"][0]["dtype"] = "int32";
  CHECK_THAT(error_of(int_randn), Catch::Matchers::Contains("this one is int32 (use randint)"));
}

TEST_CASE("a resolved workload's baseline: absent, native, or the reference in PyTorch", "[harness][suite]") {
  CHECK(parse_resolved_workload(two_outputs()).reference.baseline.empty());  // the runner's option decides
  for (const char* word : {"native", "pytorch_eager", "pytorch_compile"}) {
    json j = two_outputs();
    j["reference"]["baseline"] = word;
    CHECK(parse_resolved_workload(j).reference.baseline == word);
  }
  json eager = two_outputs();
  eager["reference"]["baseline"] = "eager";
  CHECK_THAT(error_of(eager), Catch::Matchers::Contains("field \"reference.baseline\": expected native, pytorch_eager"));
  eager["reference"]["baseline"] = true;
  CHECK_THAT(error_of(eager), Catch::Matchers::Contains("reference.baseline"));
}

TEST_CASE("SOL's structured input conventions: parsed by name, unscaled, on floating tensors of the "
          "dimensions they need",
          "[harness][suite]") {
  auto first_init = [](const json& init, const json& shape = json::array({8, 8}), const char* dtype = "float32") {
    json j = two_outputs();
    j["inputs"][0]["init"] = init;
    j["inputs"][0]["shape"] = shape;
    j["inputs"][0]["dtype"] = dtype;
    return j;
  };
  const std::pair<const char*, InitKind> words[] = {
      {"cos_normal", InitKind::cos_normal},         {"sin_normal", InitKind::sin_normal},
      {"positive_normal", InitKind::positive_normal}, {"causal_mask", InitKind::causal_mask},
      {"cumsum_uniform", InitKind::cumsum_uniform}, {"softmax_normal", InitKind::softmax_normal}};
  for (const auto& [word, kind] : words) {
    INFO(word);
    const auto w = parse_resolved_workload(first_init({{"kind", word}}));
    CHECK(w.inputs[0].init.kind == kind);
    CHECK_FALSE(w.inputs[0].init.scaled);  // never scaled by the trial's regime, even when asked
    CHECK_THAT(error_of(first_init({{"kind", word}}, json::array({8, 8}), "int32")),
               Catch::Matchers::Contains("fills floating-point tensors; this one is int32"));
  }
  const auto cumsum = parse_resolved_workload(first_init({{"kind", "cumsum_uniform"}})).inputs[0].init;
  CHECK(cumsum.low == -0.1);  // SOL's decays by default
  CHECK(cumsum.high == 0.0);
  CHECK(init_is_per_row(InitKind::softmax_normal));
  CHECK_FALSE(init_is_per_row(InitKind::causal_mask));
  CHECK_THAT(error_of(first_init({{"kind", "causal_mask"}}, json::array({64}))),
             Catch::Matchers::Contains("field \"inputs[0].init.kind\": causal_mask needs a tensor of at least two"));
  CHECK_THAT(error_of(first_init({{"kind", "softmax_normal"}}, json::array())),
             Catch::Matchers::Contains("a per-row generator needs a tensor of at least one dimension"));
  CHECK_THAT(error_of(first_init({{"kind", "cumsum_uniform"}, {"low", 0}, {"high", -0.1}})),
             Catch::Matchers::Contains("field \"inputs[0].init.high\": must be greater than low"));

  // Filled by the reference worker: custom (any dtype) and safetensors (its file and key).
  const auto custom = parse_resolved_workload(first_init({{"kind", "custom"}}, json::array({7}), "int32")).inputs[0];
  CHECK(custom.init.kind == InitKind::custom);
  CHECK(init_by_worker(InitKind::custom));
  CHECK_FALSE(init_by_worker(InitKind::softmax_normal));
  const auto blob = parse_resolved_workload(
      first_init({{"kind", "safetensors"}, {"path", "/p/blob/w.safetensors"}, {"tensor_key", "w"}})).inputs[0];
  CHECK(blob.init.kind == InitKind::safetensors);
  CHECK(blob.init.path == "/p/blob/w.safetensors");
  CHECK(blob.init.tensor_key == "w");
  CHECK_THAT(error_of(first_init({{"kind", "safetensors"}, {"path", "/w.safetensors"}})),
             Catch::Matchers::Contains("field \"inputs[0].init.tensor_key\": required"));
  CHECK_THAT(error_of(first_init({{"kind", "randn"}, {"path", "/w.safetensors"}})),
             Catch::Matchers::Contains("field \"inputs[0].init.path\": only a safetensors input has one"));
  // A KernelBench Model's state: the worker copies its Model's tensor under `key`.
  const auto state = parse_resolved_workload(first_init({{"kind", "model_state"}, {"key", "conv.weight"}})).inputs[0];
  CHECK(state.init.kind == InitKind::model_state);
  CHECK(state.init.state_key == "conv.weight");
  CHECK(init_by_worker(InitKind::model_state));
  CHECK_THAT(error_of(first_init({{"kind", "model_state"}})),
             Catch::Matchers::Contains("field \"inputs[0].init.key\": required"));
  CHECK_THAT(error_of(first_init({{"kind", "custom"}, {"key", "conv.weight"}})),
             Catch::Matchers::Contains("field \"inputs[0].init.key\": only a model_state input has one"));
}

TEST_CASE("SOL's structured input conventions: the generators' arithmetic, on the host", "[harness][suite]") {
  std::mt19937_64 rng(2026);
  std::normal_distribution<float> normal;
  const int n = 40000;
  double cos_sum = 0, sin_sum = 0, positive_sum = 0;
  float positive_min = 1e9f;
  for (int i = 0; i < n; ++i) {
    const float x = normal(rng);
    const float c = suite::cos_of_clamped_normal(x), s = suite::sin_of_clamped_normal(x);
    CHECK(std::fabs(c * c + s * s - 1.0f) < 1e-5f);
    cos_sum += c, sin_sum += s;
    const float p = suite::positive_statistic(x);
    positive_sum += p, positive_min = std::fmin(positive_min, p);
  }
  // E[cos N] = exp(-1/2) for N standard normal (the clamp to [-pi, pi] moves it by < 0.002);
  // E[sin N] = 0; E[|N|] + 0.1 = sqrt(2/pi) + 0.1.
  CHECK(cos_sum / n == Approx(std::exp(-0.5)).margin(0.015));
  CHECK(sin_sum / n == Approx(0.0).margin(0.015));
  CHECK(positive_sum / n == Approx(std::sqrt(2.0 / M_PI) + 0.1).margin(0.015));
  CHECK(positive_min >= 0.1f);
  // The clamp: beyond pi the angle is pi.
  CHECK(suite::cos_of_clamped_normal(10.0f) == Approx(-1.0));
  CHECK(suite::sin_of_clamped_normal(-10.0f) == Approx(0.0).margin(1e-6));
  CHECK(suite::cos_of_clamped_normal(1.0f) == Approx(std::cos(1.0)));

  // A causal mask over [2, 3, 3]: 0 on and below the diagonal of each 3 x 3 matrix, the lowest
  // finite value above it.
  const bool masked[9] = {false, true, true, false, false, true, false, false, false};
  for (std::uint64_t i = 0; i < 18; ++i) {
    INFO("element " << i);
    CHECK(suite::causal_masked(i, 3, 3) == masked[i % 9]);
    CHECK(suite::causal_mask_value(i, 3, 3, Dtype::fp32) == (masked[i % 9] ? -3.40282347e38f : 0.0f));
  }
  CHECK(suite::causal_mask_value(1, 3, 3, Dtype::fp16) == -65504.0f);
  std::uint32_t bits = 0;
  const float bf16_lowest = suite::lowest_finite(Dtype::bf16);
  std::memcpy(&bits, &bf16_lowest, 4);
  CHECK(bits == 0xFF7F0000u);  // exactly bf16's lowest finite value (-FLT_MAX would round to -inf)

  // Per row: the running sum of uniform values in [-0.1, 0), and a softmax of normal logits; each
  // draw a pure function of the flat index, as on the device.
  const std::int64_t rows = 6, columns = 50;
  std::vector<float> uniforms(rows * columns), logits(rows * columns), out(rows * columns, 7.0f);
  std::uniform_real_distribution<float> unit(0.0f, 1.0f);
  for (auto& u : uniforms) u = unit(rng);
  for (auto& l : logits) l = normal(rng);
  auto store = [&](std::uint64_t k, float v) { out[k] = v; };
  for (std::int64_t r = 0; r < rows; ++r)
    suite::cumsum_of_uniform_row(static_cast<std::uint64_t>(r * columns), columns, -0.1f, 0.0f,
                                 [&](std::uint64_t k) { return uniforms[k]; }, store);
  for (std::int64_t r = 0; r < rows; ++r) {
    float previous = 0, expected = 0;
    for (std::int64_t c = 0; c < columns; ++c) {
      const float v = out[r * columns + c];
      expected += -0.1f + 0.1f * uniforms[r * columns + c];
      CHECK(v == Approx(expected).margin(1e-5));
      CHECK(v <= previous);  // decays: each step in [-0.1, 0]
      CHECK(previous - v <= 0.1f + 1e-6f);
      previous = v;
    }
  }
  for (std::int64_t r = 0; r < rows; ++r)
    suite::softmax_of_normal_row(static_cast<std::uint64_t>(r * columns), columns,
                                 [&](std::uint64_t k) { return logits[k]; }, store);
  for (std::int64_t r = 0; r < rows; ++r) {
    double total = 0, exp_total = 0;
    for (std::int64_t c = 0; c < columns; ++c) exp_total += std::exp(logits[r * columns + c]);
    for (std::int64_t c = 0; c < columns; ++c) {
      const float v = out[r * columns + c];
      CHECK(v > 0);
      CHECK(v == Approx(std::exp(logits[r * columns + c]) / exp_total).epsilon(1e-4));
      total += v;
    }
    CHECK(total == Approx(1.0).epsilon(1e-5));
  }
}

namespace {
/// The state letter of process `pid` (/proc/PID/stat): 'T' when stopped.
char process_state(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
  const auto close = text.rfind(')');
  return close == std::string::npos || close + 2 >= text.size() ? '?' : text[close + 2];
}
}  // namespace

TEST_CASE("the reference worker as a baseline: stopped while others are timed, resumed for a request",
          "[harness][suite]") {
  // A stand-in worker (no PyTorch needed): hello offers cuda_ipc, every request is answered
  // with its pid.
  const fs::path script = fs::temp_directory_path() / ("socratic-fake-reference-" + std::to_string(getpid()) + ".py");
  {
    std::ofstream f(script);
    f << "import json, os, sys\n"
         "for line in sys.stdin:\n"
         "    r = json.loads(line)\n"
         "    out = {'id': r['id'], 'ok': True, 'pid': os.getpid()}\n"
         "    if r['op'] == 'hello': out['buffers'] = ['file', 'cuda_ipc']\n"
         "    sys.stdout.write(json.dumps(out) + '\\n'); sys.stdout.flush()\n";
  }
  const char* python = std::getenv("SOCRATIC_TEST_PYTHON") ? std::getenv("SOCRATIC_TEST_PYTHON") : "/usr/bin/python3";
  if (!fs::exists(python)) {
    fs::remove(script);
    FAIL("no python3 at " << python << " (set SOCRATIC_TEST_PYTHON)");
  }
  suite::ReferenceWorkerClient client;
  client.start(python, script.string());
  const auto pid = static_cast<pid_t>(client.request({{"op", "ping"}})["pid"].get<int>());
  CHECK(process_state(pid) != 'T');
  client.pause();
  CHECK(client.paused());
  CHECK(process_state(pid) == 'T');
  // A request while stopped (the judge's reference during the timed phase): answered, and the
  // worker is stopped again afterwards.
  CHECK(client.request({{"op", "run"}})["ok"] == true);
  CHECK(client.paused());
  CHECK(process_state(pid) == 'T');
  client.resume();
  CHECK_FALSE(client.paused());
  CHECK(process_state(pid) != 'T');
  client.pause();
  client.stop();  // a stopped worker still ends (resumed, then its input closed)
  CHECK_FALSE(client.running());
  const bool still_running = fs::exists("/proc/" + std::to_string(pid) + "/stat") && process_state(pid) != 'Z';
  CHECK_FALSE(still_running);
  fs::remove(script);
}

TEST_CASE("the runner's dtypes: sizes, names both ways, which compare exactly", "[harness][suite]") {
  for (const char* name : {"float64", "float32", "float16", "bfloat16", "float8_e4m3fn", "float8_e5m2", "int64",
                           "int32", "int16", "int8", "uint8", "bool"}) {
    const auto d = dtype_from_definition_name(name);
    REQUIRE(d);
    CHECK(std::string(dtype_definition_name(*d)) == name);
  }
  CHECK_FALSE(dtype_from_definition_name("float4_e2m1fn_x2"));
  CHECK(dtype_bytes(Dtype::fp64) == 8);
  CHECK(dtype_bytes(Dtype::int64) == 8);
  CHECK(dtype_bytes(Dtype::fp32) == 4);
  CHECK(dtype_bytes(Dtype::bf16) == 2);
  CHECK(dtype_bytes(Dtype::fp8_e4m3) == 1);
  CHECK(dtype_bytes(Dtype::boolean) == 1);
  CHECK(is_floating(Dtype::fp8_e5m2));
  CHECK_FALSE(is_floating(Dtype::uint8));
  CHECK_FALSE(is_floating(Dtype::boolean));
}
