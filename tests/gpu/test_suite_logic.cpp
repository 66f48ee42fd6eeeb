// The suite runner's host-side logic, on CPU: the resolved workload (kernels/suite/
// resolved_workload.hpp) and its errors by field, the dtypes' names and sizes. The adapter is the
// host's (include/socratic/suite/suite_adapter.hpp): tests/suite/test_suite_bridge.cpp checks it,
// and tests/suite/test_suite_eval.cpp compiles it with a candidate; the reference worker client
// stopped and resumed around a stand-in worker.
#include "catch.hpp"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

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
