// attention_selftest: checks of the attention problem that need no GPU.
//
//   attention_selftest kernels/attention/problem.json scenarios/attention_*.json
//
// - every scenario obeys problem.json (types, min, enum, required, unknown names, divisible) and
//   configures; ids are unique;
// - the FA3 grid file is exactly the 36-scenario grid (FIELD-NOTES section 5);
// - FLOPs equal 4 * b * hq * d * (visible pairs counted one row at a time);
// - bad parameters are refused with an error naming the field;
// - the rounding floor and cap have the documented values.
// Exit 0 when all hold; each failure is printed.
//
// Build: nvcc -std=c++17 -I kernels/harness -I kernels/attention
//        tests/kernels/attention_selftest.cu kernels/attention/problem.cu
//        kernels/attention/reference.cu -o attention_selftest
#include <cmath>
#include <cstdio>
#include <fstream>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "problem.cuh"
#include "shape.cuh"

using nlohmann::json;

namespace {

int failures = 0;

void expect(bool ok, const std::string& what) {
  if (!ok) {
    ++failures;
    std::printf("FAIL %s\n", what.c_str());
  }
}

json read(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error(path + ": cannot open");
  return json::parse(in);
}

// The declared-parameter rules of problem.json, as the host applies them.
void validate(const json& problem, const json& params, const std::string& where) {
  const json& decl = problem.at("parameters");
  for (auto it = params.begin(); it != params.end(); ++it)
    expect(decl.contains(it.key()), where + ": unknown parameter " + it.key());
  for (auto it = decl.begin(); it != decl.end(); ++it) {
    const std::string name = it.key();
    const json& rule = it.value();
    if (!params.contains(name)) {
      expect(!rule.value("required", false), where + ": missing required " + name);
      continue;
    }
    const json& v = params.at(name);
    const std::string type = rule.at("type");
    if (type == "int") expect(v.is_number_integer(), where + ": " + name + " not an int");
    if (type == "number") expect(v.is_number(), where + ": " + name + " not a number");
    if (type == "bool") expect(v.is_boolean(), where + ": " + name + " not a bool");
    if (type == "string") expect(v.is_string(), where + ": " + name + " not a string");
    if (rule.contains("min") && v.is_number())
      expect(v.get<double>() >= rule["min"].get<double>(), where + ": " + name + " below min");
    if (rule.contains("enum")) {
      bool found = false;
      for (const auto& e : rule["enum"]) found = found || e == v;
      expect(found, where + ": " + name + " not in enum");
    }
  }
  for (const auto& pair : problem.at("divisible")) {
    const std::string a = pair[0], b = pair[1];
    if (params.contains(a) && params.contains(b))
      expect(params[a].get<long long>() % params[b].get<long long>() == 0,
             where + ": " + a + " not divisible by " + b);
  }
}

double brute_force_pairs(const socratic::attention::Shape& s) {
  double pairs = 0;
  for (long long i = 0; i < s.seqlen_q; ++i) {
    long long seen = s.seqlen_kv;
    if (s.causal) seen = std::min<long long>(s.seqlen_kv, std::max(0LL, i + s.seqlen_kv - s.seqlen_q + 1));
    pairs += static_cast<double>(seen);
  }
  return pairs;
}

void expect_refused(const json& params, const std::string& field) {
  try {
    socratic_make_problem()->configure(params);
    expect(false, "accepted " + params.dump());
  } catch (const std::runtime_error& e) {
    const std::string message = e.what();
    expect(message.find("field \"" + field + "\"") != std::string::npos,
           "error for " + params.dump() + " names " + field + ": got \"" + message + "\"");
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: attention_selftest problem.json scenarios.json...\n");
    return 2;
  }
  const json problem = read(argv[1]);
  int scenarios = 0;
  for (int f = 2; f < argc; ++f) {
    const json file = read(argv[f]);
    const json defaults = file.value("defaults", json::object());
    std::set<std::string> ids;
    for (const auto& entry : file.at("scenarios")) {
      json params = entry;
      const std::string id = params.at("id");
      const std::string where = std::string(argv[f]) + ": scenario \"" + id + "\"";
      expect(ids.insert(id).second, where + ": duplicate id");
      params.erase("id");
      for (auto it = defaults.begin(); it != defaults.end(); ++it)
        if (!params.contains(it.key())) params[it.key()] = it.value();
      validate(problem, params, where);
      expect(params.contains("seqlen_kv"), where + ": seqlen_kv not written out");
      try {
        auto p = socratic_make_problem();
        p->configure(params);
        const auto shape = socratic::attention::parse_shape(params);
        const double expected = 4.0 * shape.batch * shape.heads_q * shape.head_dim * brute_force_pairs(shape);
        expect(std::fabs(p->flops() - expected) <= 1e-9 * expected, where + ": flops");
        expect(p->min_bytes() == 2.0 * (2.0 * shape.q_elements() + 2.0 * shape.kv_elements()),
               where + ": min_bytes");
        expect(p->tensors().size() == 4 && p->tensors()[3].output, where + ": tensors");
      } catch (const std::exception& e) {
        expect(false, where + ": " + e.what());
      }
      ++scenarios;
    }
    if (file.at("name") == "attention_fa3_grid") {
      expect(file["scenarios"].size() == 36, "FA3 grid has 36 scenarios");
      std::set<std::string> expected_ids;
      for (int causal = 0; causal < 2; ++causal)
        for (int d : {64, 128, 256})
          for (int s : {512, 1024, 2048, 4096, 8192, 16384})
            expected_ids.insert("s" + std::to_string(s) + "_d" + std::to_string(d) + "_b" +
                                std::to_string(16384 / s) + "_h" + std::to_string(2048 / d) +
                                (causal ? "_causal" : ""));
      expect(ids == expected_ids, "FA3 grid ids");
      for (const auto& e : file["scenarios"]) {
        expect(e["batch"].get<int>() * e["seqlen_q"].get<int>() == 16384, "grid: 16k tokens");
        expect(e["heads_q"].get<int>() * e["head_dim"].get<int>() == 2048, "grid: hidden 2048");
      }
    }
  }

  // Refusals name the field.
  const json good = {{"batch", 1}, {"seqlen_q", 10}, {"heads_q", 4}, {"heads_kv", 2}, {"head_dim", 64}};
  auto with = [&](const std::string& k, const json& v) {
    json j = good;
    j[k] = v;
    return j;
  };
  expect_refused(with("head_dim", 100), "head_dim");
  expect_refused(with("head_dim", 512), "head_dim");
  expect_refused(with("heads_q", 5), "heads_q");
  expect_refused(with("dtype", "fp8"), "dtype");
  expect_refused(with("causal", "yes"), "causal");
  expect_refused(with("softmax_scale", -1.0), "softmax_scale");
  expect_refused(with("seqlen_q", 0), "seqlen_q");
  expect_refused(with("batch", 2.5), "batch");
  expect_refused(with("sliding_window", 128), "sliding_window");
  json missing = good;
  missing.erase("batch");
  expect_refused(missing, "batch");

  // Defaults: seqlen_kv = seqlen_q, scale = 1/sqrt(d), bf16, not causal.
  const auto shape = socratic::attention::parse_shape(good);
  expect(shape.seqlen_kv == 10 && !shape.causal && shape.dtype == 0 &&
             std::fabs(shape.softmax_scale - 0.125f) < 1e-7f,
         "defaults");

  // Tolerance numbers: one ulp at |ref| + 0.3, cap 2^-5 (bf16) / 2^-8 (fp16) of |ref| + floor.
  auto p = socratic_make_problem();
  p->configure(good);
  expect(p->rounding_floor(1.0) == std::ldexp(1.0, -7), "bf16 floor at 1.0 is 2^-7");
  expect(p->rounding_floor(0.1) == std::ldexp(1.0, -9), "bf16 floor at 0.1 is 2^-9");
  expect(p->max_error_cap(1.0) == std::ldexp(1.0, -5) + std::ldexp(1.0, -7), "bf16 cap at 1.0");
  p->configure(with("dtype", "fp16"));
  expect(p->rounding_floor(1.0) == std::ldexp(1.0, -10), "fp16 floor at 1.0 is 2^-10");
  expect(p->max_error_cap(32.0) == 32.0 / 256 + std::ldexp(1.0, -5), "fp16 cap at 32 (ulp of 32.3 is 2^-5)");
  // Causal bottom-right with seqlen_q > seqlen_kv: rows 0..2 see nothing, then 1..4 keys.
  p->configure({{"batch", 1}, {"seqlen_q", 7}, {"seqlen_kv", 4}, {"heads_q", 1}, {"heads_kv", 1},
                {"head_dim", 8}, {"causal", true}});
  expect(p->flops() == 4.0 * 8 * (1 + 2 + 3 + 4), "causal flops, seqlen_q > seqlen_kv");

  std::printf("%d scenarios checked, %d failures\n", scenarios, failures);
  return failures == 0 ? 0 : 1;
}
