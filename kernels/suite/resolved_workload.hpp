// A resolved workload: one workload of a suite problem (SOL-ExecBench, FlashInfer-Bench,
// KernelBench) as the host hands it to socratic-runner-suite, in a scenario's parameters: every
// axis evaluated, every shape concrete, every input's generator named, the tolerance and the
// reference's whereabouts given (docs/runner-protocol.md, "Suite problems: the resolved
// workload"). Plain C++17 + nlohmann/json: the CPU tests parse it without CUDA.
#pragma once

#include <cmath>
#include <cstdint>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "dtype.hpp"

namespace socratic::harness::suite {

/// How the judge fills an input tensor (on the GPU, from the trial's seed). The last six are
/// SOL-ExecBench's conventions (input_conventions.hpp): cos / sin of a clamped normal, |normal| +
/// 0.1, a causal mask over the last two dimensions, and two per-row ones along the last dimension:
/// the running sum of uniform values in [low, high), a softmax of normal logits. The last two are
/// filled by the trusted reference worker (`fill_inputs`, docs/reference-worker.md): a workload's
/// `custom` inputs (the reference's custom_inputs_entrypoint, seeded from the judge's secret), its
/// `safetensors` inputs (`path`, absolute, and `tensor_key`) and a KernelBench Model's state
/// (`model_state`: `key` in the seeded Model's state_dict).
enum class InitKind {
  randn, uniform, randint, ones, zeros, full,
  cos_normal, sin_normal, positive_normal, causal_mask, cumsum_uniform, softmax_normal,
  custom, safetensors, model_state
};

/// Whether `k` fills each row of the last dimension as a whole (a second kind of kernel).
inline bool init_is_per_row(InitKind k) { return k == InitKind::cumsum_uniform || k == InitKind::softmax_normal; }
/// Whether the reference worker fills inputs of kind `k` (no generator kernel).
inline bool init_by_worker(InitKind k) {
  return k == InitKind::custom || k == InitKind::safetensors || k == InitKind::model_state;
}

struct InputInit {
  InitKind kind = InitKind::randn;
  double mean = 0, std = 1;     ///< randn
  double low = 0, high = 1;     ///< uniform [low, high); randint [low, high)
  double value = 0;             ///< full
  bool scaled = true;           ///< whether the trial's regime scales it (randn, uniform)
  std::string path, tensor_key; ///< safetensors: the file (absolute) and the tensor's key in it
  std::string state_key;        ///< model_state: the Model's state_dict key
};

/// An element-wise rule of the suites (i38a's include/socratic/suite/correctness_rule.hpp
/// judges it on the host); on the judge its bound at the reference's largest magnitude,
/// atol + rtol x max|ref|, is the rounding floor of Socratic's rule.
enum class ToleranceRule { sol, flashinfer, kernelbench };

struct Tolerance {
  ToleranceRule rule = ToleranceRule::sol;
  double atol = 1e-2, rtol = 1e-2;
  double matched_ratio = 1.0;
  std::optional<double> max_error_cap;
};

/// One input or output of the entry point, in the definition's order.
struct Argument {
  std::string name;
  Dtype dtype = Dtype::fp32;
  bool scalar = false;                 ///< a Python scalar (by value), not a tensor
  std::vector<std::int64_t> shape;     ///< [] for a 0-d tensor
  std::size_t elements = 1;
  InputInit init;                      ///< tensor inputs
  double value = 0;                    ///< scalar inputs
  Tolerance tolerance;                 ///< outputs
};

struct Axis {
  std::string name;
  std::int64_t value = 0;
  bool variable = false;  ///< a `var` axis: passed to the entry point as int64_t
};

struct Reference {
  std::string python;      ///< the interpreter that runs the worker (PyTorch)
  std::string worker;      ///< kernels/harness/python/reference_worker.py
  std::string definition;  ///< the definition.json (or, kind kernelbench, the .py file) the worker loads
  /// What `definition` is: "sol" (a SOL-ExecBench / FlashInfer-Bench definition.json) or
  /// "kernelbench" (a KernelBench problem file, its Model built as KernelBench builds it).
  std::string kind = "sol";
  /// The scenario's baseline: "native" (the runner's --baseline), "pytorch_eager" or
  /// "pytorch_compile" (this reference, timed by the judge); empty: the runner's option decides.
  std::string baseline;
};

struct ResolvedWorkload {
  std::string name;               ///< the definition's name (messages)
  std::vector<Argument> inputs;   ///< tensors and scalars, in the definition's order
  std::vector<Argument> outputs;  ///< tensors, in the definition's order
  std::vector<Axis> axes;         ///< in the definition's order
  Reference reference;
  std::optional<double> flops, min_bytes;
  std::vector<double> regimes{1.0};  ///< value scales of the correctness trials
};

namespace detail {

[[noreturn]] inline void fail(const std::string& field, const std::string& what) {
  throw std::runtime_error("field \"" + field + "\": " + what);
}

inline const nlohmann::json& member(const nlohmann::json& j, const std::string& field, const char* key) {
  if (!j.contains(key)) fail(field + "." + key, "required");
  return j[key];
}

inline std::string string_member(const nlohmann::json& j, const std::string& field, const char* key) {
  const auto& v = member(j, field, key);
  if (!v.is_string() || v.get<std::string>().empty())
    fail(field + "." + key, "expected a non-empty string, got " + v.dump());
  return v.get<std::string>();
}

inline double number(const nlohmann::json& v, const std::string& field) {
  if (!v.is_number() || !std::isfinite(v.get<double>())) fail(field, "expected a finite number, got " + v.dump());
  return v.get<double>();
}

inline double number_or(const nlohmann::json& j, const std::string& field, const char* key, double fallback) {
  return j.contains(key) ? number(j[key], field + "." + key) : fallback;
}

inline void only_keys(const nlohmann::json& j, const std::string& field, const std::set<std::string>& allowed) {
  if (!j.is_object()) fail(field, "expected an object, got " + j.dump());
  for (auto it = j.begin(); it != j.end(); ++it)
    if (!allowed.count(it.key())) {
      std::string list;
      for (const auto& a : allowed) list += (list.empty() ? "" : ", ") + a;
      fail(field + "." + it.key(), "unknown member (expected " + list + ")");
    }
}

inline Dtype dtype(const nlohmann::json& j, const std::string& field) {
  const std::string name = string_member(j, field, "dtype");
  const auto d = dtype_from_definition_name(name);
  if (!d)
    fail(field + ".dtype", "\"" + name +
                               "\" is not a dtype the GPU judge runs (float64, float32, float16, bfloat16, "
                               "float8_e4m3fn, float8_e5m2, int64, int32, int16, int8, uint8, bool)");
  return *d;
}

inline Tolerance tolerance(const nlohmann::json& j, const std::string& field, Tolerance t) {
  only_keys(j, field, {"rule", "atol", "rtol", "matched_ratio", "max_error_cap"});
  if (j.contains("rule")) {
    const auto& r = j["rule"];
    if (r == "sol") t.rule = ToleranceRule::sol;
    else if (r == "flashinfer") t.rule = ToleranceRule::flashinfer;
    else if (r == "kernelbench") t.rule = ToleranceRule::kernelbench;
    else fail(field + ".rule", "expected \"sol\", \"flashinfer\" or \"kernelbench\", got " + r.dump());
  }
  t.atol = number_or(j, field, "atol", t.atol);
  t.rtol = number_or(j, field, "rtol", t.rtol);
  t.matched_ratio = number_or(j, field, "matched_ratio", t.matched_ratio);
  if (t.atol < 0) fail(field + ".atol", "must be >= 0");
  if (t.rtol < 0) fail(field + ".rtol", "must be >= 0");
  if (!(t.matched_ratio > 0 && t.matched_ratio <= 1)) fail(field + ".matched_ratio", "must be in (0, 1]");
  if (j.contains("max_error_cap")) {
    const double cap = number(j["max_error_cap"], field + ".max_error_cap");
    if (!(cap > 0)) fail(field + ".max_error_cap", "must be > 0");
    t.max_error_cap = cap;
  }
  return t;
}

inline InputInit init(const nlohmann::json& j, const std::string& field, Dtype d) {
  only_keys(j, field, {"kind", "mean", "std", "low", "high", "value", "scaled", "path", "tensor_key", "key"});
  InputInit in;
  const std::string kind = string_member(j, field, "kind");
  if (kind == "randn") in.kind = InitKind::randn;
  else if (kind == "uniform") in.kind = InitKind::uniform;
  else if (kind == "randint") in.kind = InitKind::randint;
  else if (kind == "ones") in.kind = InitKind::ones;
  else if (kind == "zeros") in.kind = InitKind::zeros;
  else if (kind == "full") in.kind = InitKind::full;
  else if (kind == "cos_normal") in.kind = InitKind::cos_normal;
  else if (kind == "sin_normal") in.kind = InitKind::sin_normal;
  else if (kind == "positive_normal") in.kind = InitKind::positive_normal;
  else if (kind == "causal_mask") in.kind = InitKind::causal_mask;
  else if (kind == "cumsum_uniform") in.kind = InitKind::cumsum_uniform;
  else if (kind == "softmax_normal") in.kind = InitKind::softmax_normal;
  else if (kind == "custom") in.kind = InitKind::custom;
  else if (kind == "safetensors") in.kind = InitKind::safetensors;
  else if (kind == "model_state") in.kind = InitKind::model_state;
  else
    fail(field + ".kind", "expected randn, uniform, randint, ones, zeros, full, cos_normal, sin_normal, "
                          "positive_normal, causal_mask, cumsum_uniform, softmax_normal, custom, safetensors "
                          "or model_state, got \"" + kind + "\"");
  if (in.kind == InitKind::model_state) in.state_key = string_member(j, field, "key");
  else if (j.contains("key")) fail(field + ".key", "only a model_state input has one");
  if (in.kind == InitKind::safetensors) {
    in.path = string_member(j, field, "path");
    in.tensor_key = string_member(j, field, "tensor_key");
  } else if (j.contains("path") || j.contains("tensor_key")) {
    fail(field + (j.contains("path") ? ".path" : ".tensor_key"), "only a safetensors input has one");
  }
  in.mean = number_or(j, field, "mean", 0);
  in.std = number_or(j, field, "std", 1);
  const bool cumsum = in.kind == InitKind::cumsum_uniform;  // SOL's decays: uniform in [-0.1, 0]
  in.low = number_or(j, field, "low", cumsum ? -0.1 : 0);
  in.high = number_or(j, field, "high", in.kind == InitKind::randint ? (d == Dtype::boolean ? 2 : 100) : cumsum ? 0 : 1);
  if (in.kind == InitKind::full) in.value = number(member(j, field, "value"), field + ".value");
  if (j.contains("scaled")) {
    if (!j["scaled"].is_boolean()) fail(field + ".scaled", "expected true or false");
    in.scaled = j["scaled"].get<bool>();
  }
  if (in.std < 0) fail(field + ".std", "must be >= 0");
  if ((in.kind == InitKind::uniform || in.kind == InitKind::randint || in.kind == InitKind::cumsum_uniform) &&
      !(in.low < in.high))
    fail(field + ".high", "must be greater than low (" + std::to_string(in.low) + ")");
  const bool floats_only = in.kind == InitKind::randn || in.kind == InitKind::uniform ||
                           (in.kind >= InitKind::cos_normal && in.kind <= InitKind::softmax_normal);
  if (floats_only && !is_floating(d))
    fail(field + ".kind", "\"" + kind + "\" fills floating-point tensors; this one is " + dtype_name(d) +
                              " (use randint)");
  // SOL's structured conventions are what they are: the trial's regime never scales them.
  if (in.kind >= InitKind::cos_normal) in.scaled = false;
  return in;
}

inline Argument tensor(const nlohmann::json& j, const std::string& field, bool output, const Tolerance& base) {
  Argument a;
  a.name = string_member(j, field, "name");
  a.dtype = dtype(j, field);
  const auto& shape = member(j, field, "shape");
  if (shape.is_null()) {
    if (output) fail(field + ".shape", "an output is a tensor: give its shape ([] for a 0-d tensor)");
    a.scalar = true;
    a.value = number(member(j, field, "value"), field + ".value");
    only_keys(j, field, {"name", "dtype", "shape", "value"});
    return a;
  }
  if (!shape.is_array()) fail(field + ".shape", "expected a list of sizes or null (a scalar), got " + shape.dump());
  for (std::size_t i = 0; i < shape.size(); ++i) {
    const auto& s = shape[i];
    if (!s.is_number_integer() || s.get<long long>() < 0)
      fail(field + ".shape[" + std::to_string(i) + "]", "expected an integer >= 0, got " + s.dump());
    a.shape.push_back(s.get<std::int64_t>());
    a.elements *= static_cast<std::size_t>(s.get<std::int64_t>());
  }
  if (output) {
    only_keys(j, field, {"name", "dtype", "shape", "tolerance"});
    a.tolerance = j.contains("tolerance") ? tolerance(j["tolerance"], field + ".tolerance", base) : base;
  } else {
    only_keys(j, field, {"name", "dtype", "shape", "init"});
    a.init = init(member(j, field, "init"), field + ".init", a.dtype);
    if (a.init.kind == InitKind::causal_mask && a.shape.size() < 2)
      fail(field + ".init.kind", "causal_mask needs a tensor of at least two dimensions (rows, columns)");
    if (init_is_per_row(a.init.kind) && a.shape.empty())
      fail(field + ".init.kind", "a per-row generator needs a tensor of at least one dimension");
  }
  return a;
}

}  // namespace detail

/// The resolved workload of a scenario's parameters. Throws std::runtime_error naming the
/// field ("field \"inputs[1].init.kind\": expected randn, ...").
inline ResolvedWorkload parse_resolved_workload(const nlohmann::json& p) {
  using namespace detail;
  only_keys(p, "parameters",
            {"name", "inputs", "outputs", "axes", "tolerance", "reference", "flops", "min_bytes", "regimes"});
  ResolvedWorkload w;
  w.name = p.contains("name") ? string_member(p, "parameters", "name") : "suite";
  const Tolerance base = p.contains("tolerance") ? tolerance(p["tolerance"], "tolerance", Tolerance{}) : Tolerance{};
  std::set<std::string> names;
  auto unique = [&](const std::string& field, const std::string& name) {
    if (!names.insert(name).second) fail(field + ".name", "\"" + name + "\" is used twice");
  };
  for (const char* list : {"inputs", "outputs"}) {
    const auto& a = member(p, "parameters", list);
    if (!a.is_array() || a.empty()) fail(list, "expected a non-empty list");
    for (std::size_t i = 0; i < a.size(); ++i) {
      const std::string field = std::string(list) + "[" + std::to_string(i) + "]";
      Argument arg = tensor(a[i], field, std::string(list) == "outputs", base);
      unique(field, arg.name);
      (std::string(list) == "outputs" ? w.outputs : w.inputs).push_back(std::move(arg));
    }
  }
  if (p.contains("axes")) {
    const auto& a = p["axes"];
    if (!a.is_array()) fail("axes", "expected a list of {name, value, var} in the definition's order");
    for (std::size_t i = 0; i < a.size(); ++i) {
      const std::string field = "axes[" + std::to_string(i) + "]";
      only_keys(a[i], field, {"name", "value", "var"});
      Axis x;
      x.name = string_member(a[i], field, "name");
      const auto& v = member(a[i], field, "value");
      if (!v.is_number_integer()) fail(field + ".value", "expected an integer, got " + v.dump());
      x.value = v.get<std::int64_t>();
      if (a[i].contains("var")) {
        if (!a[i]["var"].is_boolean()) fail(field + ".var", "expected true or false");
        x.variable = a[i]["var"].get<bool>();
      }
      w.axes.push_back(x);
    }
  }
  const auto& r = member(p, "parameters", "reference");
  only_keys(r, "reference", {"python", "worker", "definition", "kind", "baseline"});
  w.reference.python = string_member(r, "reference", "python");
  w.reference.worker = string_member(r, "reference", "worker");
  w.reference.definition = string_member(r, "reference", "definition");
  if (r.contains("kind")) {
    w.reference.kind = string_member(r, "reference", "kind");
    if (w.reference.kind != "sol" && w.reference.kind != "kernelbench")
      fail("reference.kind", "expected sol or kernelbench, got \"" + w.reference.kind + "\"");
  }
  if (r.contains("baseline")) {
    w.reference.baseline = string_member(r, "reference", "baseline");
    if (w.reference.baseline != "native" && w.reference.baseline != "pytorch_eager" &&
        w.reference.baseline != "pytorch_compile")
      fail("reference.baseline", "expected native, pytorch_eager or pytorch_compile, got \"" +
                                     w.reference.baseline + "\"");
  }
  if (p.contains("flops")) w.flops = number(p["flops"], "flops");
  if (p.contains("min_bytes")) w.min_bytes = number(p["min_bytes"], "min_bytes");
  if (p.contains("regimes")) {
    const auto& g = p["regimes"];
    if (!g.is_array() || g.empty()) fail("regimes", "expected a non-empty list of value scales");
    w.regimes.clear();
    for (std::size_t i = 0; i < g.size(); ++i) {
      const double s = number(g[i], "regimes[" + std::to_string(i) + "]");
      if (!(s > 0)) fail("regimes[" + std::to_string(i) + "]", "must be > 0");
      w.regimes.push_back(s);
    }
  }
  return w;
}

}  // namespace socratic::harness::suite
