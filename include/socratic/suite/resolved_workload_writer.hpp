#pragma once
/// @file
/// @brief A workload as the GPU judge takes it: the **resolved workload** of
/// docs/runner-protocol.md ("Suite problems"), which kernels/suite/resolved_workload.hpp parses in
/// socratic-runner-suite. Every axis evaluated, every shape concrete, every input's generator
/// named (the suite's own generator for its dtype), the workload's tolerances per output, the
/// FLOPs and the bytes, and where the reference worker finds the reference. Pure: nothing is read
/// or allocated.
///
/// The inputs follow SOL-ExecBench's generator (its bench io, read for this; sol_named_input for
/// its name conventions): a `random` float tensor is a standard normal (fp8: clamped to +-2 before the cast, which the runner does),
/// a bool tensor 0 or 1, int8 uniform in [-128, 128), wider integers in [-1024, 1024) (uint8, which
/// SOL does not generate, in [0, 256)); a `scalar` input its value (a 0-d tensor given a value is
/// filled with it, unscaled). SOL's name conventions (norm weights and biases, masks, RoPE cos/sin,
/// positive statistics, SSM decays, softmax outputs and a sampling problem's `probs`, weight
/// matrices) are generators of the runner's (kernels/suite/input_conventions.hpp). What the runner
/// cannot generate (a random, custom or safetensors Python scalar, fp8 `probs`) refuses the problem:
/// input_refusal_reason, used by judgeable.hpp. `custom` and `safetensors` tensors are filled by
/// the trusted reference worker (its `fill_inputs`: the reference's custom_inputs_entrypoint seeded
/// from the judge's secret, the file the workload names, found as SOL-ExecBench finds it: blob_path.hpp).

#include <cctype>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <initializer_list>
#include <string_view>
#include <optional>
#include <string>
#include <vector>

#include "socratic/core/error.hpp"
#include "socratic/core/json.hpp"
#include "socratic/core/scenario.hpp"
#include "socratic/suite/blob_path.hpp"
#include "socratic/suite/concrete_workload.hpp"
#include "socratic/suite/problem_description.hpp"

namespace socratic::suite {

/// @brief Where the judge's runner finds the reference: the interpreter with PyTorch, the worker
/// script (kernels/harness/python/reference_worker.py) and the definition it loads.
struct ReferenceLocation {
  std::string python;
  std::string worker;
  std::string definition;
};

/// @brief How the runner fills a tensor input: the resolved workload's `init` object.
struct InputGenerator {
  /// randn, uniform, randint, ones, zeros, full; SOL's conventions: cos_normal, sin_normal,
  /// positive_normal, causal_mask, cumsum_uniform, softmax_normal (kernels/suite/input_conventions.hpp)
  std::string kind = "randn";
  double mean = 0, std = 1;    ///< randn
  double low = 0, high = 1;    ///< randint (high exclusive), uniform
  bool scaled = true;          ///< whether the trial's regime scales it
  json to_json() const {
    json j{{"kind", kind}};
    if (kind == "randint" || kind == "uniform" || kind == "cumsum_uniform") j["low"] = low, j["high"] = high;
    if (kind == "randn") j["mean"] = mean, j["std"] = std;
    if (!scaled) j["scaled"] = false;
    return j;
  }
};

/// @brief The generator SOL-ExecBench uses for a `random` tensor of `d` (see the file comment).
inline InputGenerator random_generator(Dtype d) {
  InputGenerator g;
  switch (d) {
    case Dtype::boolean: g.kind = "randint", g.low = 0, g.high = 2; break;
    case Dtype::int8: g.kind = "randint", g.low = -128, g.high = 128; break;
    case Dtype::uint8: g.kind = "randint", g.low = 0, g.high = 256; break;
    case Dtype::int16:
    case Dtype::int32:
    case Dtype::int64: g.kind = "randint", g.low = -1024, g.high = 1024; break;
    default: break;  // floats: a standard normal
  }
  return g;
}

namespace detail {

inline bool ends_with(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}
inline bool ends_with_any(const std::string& s, std::initializer_list<std::string_view> suffixes) {
  for (auto x : suffixes)
    if (ends_with(s, x)) return true;
  return false;
}
inline std::string without_digits(std::string s) {
  while (!s.empty() && std::isdigit(static_cast<unsigned char>(s.back()))) s.pop_back();
  return s;
}
inline std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}
inline bool mentions(const std::string& text, std::string_view what) { return lower(text).find(what) != std::string::npos; }

/// A norm's weight (`norm_weight`, `..._norm_weight`, `post_layernorm_weight`, `norm2_weight`), or
/// its bias with `_bias`.
inline bool is_norm_parameter(const std::string& name, const std::string& suffix) {
  if (name == "norm" + suffix) return true;
  if (!ends_with(name, suffix)) return false;
  const std::string prefix = name.substr(0, name.size() - suffix.size());
  return ends_with_any(prefix, {"_norm", "_layernorm", "layernorm"}) ||
         ends_with_any(without_digits(prefix), {"norm", "layernorm"});
}

}  // namespace detail

/// @brief What SOL-ExecBench's name conventions make of a `random` floating-point tensor input
/// (its bench io: names and descriptions of norm weights and biases, masks, RoPE cos/sin,
/// positive statistics, SSM decays, softmax outputs, weight matrices), as a generator the runner
/// has, or the reason the runner cannot make it; nothing when no convention applies (a standard
/// normal). fp8 and fp4 tensors follow no convention, as in SOL. `dims`: the tensor's dimensions.
struct NamedInput {
  std::optional<InputGenerator> generator;
  std::string refusal;
};
inline std::optional<NamedInput> sol_named_input(const TensorSpec& t, const std::vector<std::int64_t>& dims) {
  if (!dtype_is_floating(t.dtype) || t.dtype == Dtype::float8_e4m3fn || t.dtype == Dtype::float8_e5m2 ||
      t.dtype == Dtype::float4_e2m1 || t.dtype == Dtype::float4_e2m1fn_x2)
    return std::nullopt;
  const std::string& n = t.name;
  auto make = [](std::string kind, double low = 0, double high = 1) {
    InputGenerator g;
    g.kind = std::move(kind), g.low = low, g.high = high, g.scaled = false;
    return NamedInput{g, {}};
  };
  if (detail::is_norm_parameter(n, "_weight")) return make("ones");
  if (detail::is_norm_parameter(n, "_bias")) return make("zeros");
  const bool square = dims.size() >= 2 && dims[dims.size() - 1] == dims[dims.size() - 2];
  if (square && (n == "attention_mask" || n == "causal_mask" ||
                 (detail::mentions(t.description, "attention mask") && detail::mentions(t.description, "causal"))))
    return make("causal_mask");  // 0 on and below the diagonal, the dtype's lowest value above
  if (n == "x_mask" || n == "text_mask" || n == "aspect_ratio_mask" || n == "drop_mask" || n == "attention_mask" ||
      (detail::ends_with(n, "_mask") &&
       (detail::mentions(t.description, "binary") || detail::mentions(t.description, "{0, 1}") ||
        detail::mentions(t.description, "0 or 1") || detail::mentions(t.description, "1.0 for valid") ||
        detail::mentions(t.description, "0.0 for masked"))))
    return make("randint", 0, 2);
  if (n == "cos" || n == "sin" || n == "cos_cached" || n == "sin_cached" || n == "rope_cos" || n == "rope_sin")
    return make(n == "cos" || n == "cos_cached" || n == "rope_cos" ? "cos_normal" : "sin_normal");
  const std::string base = detail::without_digits(n);
  if (n == "rstd" || n == "std" || n == "variance" || n == "var" ||
      detail::ends_with_any(n, {"_rstd", "_std", "_variance", "_var"}) || base == "rstd" || base == "std" ||
      base == "variance" || base == "var" || detail::ends_with_any(base, {"_rstd", "_std", "_var"}))
    return make("positive_normal");  // |standard normal| + 0.1
  if (n == "A_cumsum") return make("cumsum_uniform", -0.1, 0.0);  // along the last dimension
  if (n == "A_log") return make("uniform", -5.0, -1.0);
  if (n == "A") return make("uniform", -1.0, -0.001);
  if (n == "g") return make("uniform", -5.0, 0.0);
  if (n == "attn_weights" || n == "attention_weights" || n == "routing_weights" ||
      (detail::mentions(t.description, "softmax") && detail::mentions(t.description, "output")))
    return make("softmax_normal");  // along the last dimension
  if (dims.size() >= 2 &&
      (n == "weight" || base == "weight" ||
       detail::ends_with_any(n, {"_weight", "_weights", "_proj", "_projs", "_proj_weight", "_proj_weights", "_weight_matrix"}) ||
       detail::ends_with_any(base, {"_weight", "_weights", "_proj", "_projs", "_proj_weight", "_proj_weights", "_weight_matrix"}))) {
    InputGenerator g;  // a standard normal over sqrt(fan_in)
    g.std = 1.0 / std::sqrt(static_cast<double>(dims.back() > 0 ? dims.back() : 1));
    return NamedInput{g, {}};
  }
  return std::nullopt;
}

/// @brief Whether the runner makes a sampling problem's `probs` (SOL: a softmax, along the last
/// dimension, of the random tensor it would otherwise be) in dtype `d`.
inline bool softmax_probs_dtype(Dtype d) {
  return d == Dtype::float64 || d == Dtype::float32 || d == Dtype::float16 || d == Dtype::bfloat16;
}

/// @brief The resolved workload's name for a correctness rule (`sol`, `flashinfer`, `kernelbench`).
constexpr std::string_view resolved_rule_name(CorrectnessRule r) {
  switch (r) {
    case CorrectnessRule::sol_execbench: return "sol";
    case CorrectnessRule::flashinfer_bench: return "flashinfer";
    case CorrectnessRule::kernelbench: return "kernelbench";
  }
  return "sol";
}

/// @brief Why the runner cannot make workload `w`'s inputs, or nothing when it can. The message
/// names the input and its source.
inline std::optional<std::string> input_refusal_reason(const ProblemDescription& p, const Workload& w) {
  const std::string where = "workload \"" + w.uuid + "\": inputs.";
  for (const auto& t : p.inputs) {
    const auto it = w.inputs.find(t.name);
    const InputSourceKind kind = it == w.inputs.end() ? InputSourceKind::random : it->second.kind;
    switch (kind) {
      case InputSourceKind::model_state:  // a tensor by its parse (sol_loader.hpp)
        break;
      case InputSourceKind::custom:  // the reference worker fills it (fill_inputs): a tensor only
      case InputSourceKind::safetensors:
        if (t.is_scalar())
          return where + t.name + ": a `" + std::string(kind == InputSourceKind::custom ? "custom" : "safetensors") +
                 "` Python scalar; the judge's runner takes scalars as values (give it `{\"type\": \"scalar\", "
                 "\"value\": ...}`)";
        break;
      case InputSourceKind::scalar:
        if (!t.is_scalar() && !t.shape->empty())
          return where + t.name + ": a `scalar` source for a tensor input of " + std::to_string(t.shape->size()) +
                 " dimensions (only a 0-d tensor can hold one value)";
        if (!it->second.value.is_number() && !it->second.value.is_boolean())
          return where + t.name + ": a `scalar` source without a number or bool value";
        break;
      case InputSourceKind::random:
        if (!t.is_scalar()) {
          std::vector<std::int64_t> dims;
          try {
            const auto axes = resolve_axes(p, w);
            for (const auto& a : *t.shape)
              for (const auto& [name, v] : axes)
                if (name == a) dims.push_back(v);
          } catch (const input_error&) {
            break;  // the writer reports the axis itself
          }
          if (auto named = sol_named_input(t, dims); named && !named->generator) return where + t.name + ": " + named->refusal;
        }
        if (t.is_scalar())
          return where + t.name + ": a random Python scalar; the judge's runner takes scalars as values "
                                  "(give it `{\"type\": \"scalar\", \"value\": ...}`)";
        if (p.op_type == "sampling" && t.name == "probs" && !softmax_probs_dtype(t.dtype))
          return where + t.name + ": SOL-ExecBench makes a sampling problem's `probs` a softmax of random "
                                  "logits; the judge's runner makes it for float64, float32, float16 and bfloat16, not " +
                 std::string(dtype_name(t.dtype));
        break;
    }
  }
  return std::nullopt;
}

/// @brief The resolved workload of `w` (a scenario's parameters, without its `id`): throws
/// input_error naming the workload when it cannot be resolved (an axis, a constraint, an input
/// the runner cannot make). `regimes`: the value scales of the correctness trials; the default
/// is three fresh rounds of the suite's own distribution.
inline json resolved_workload(const ProblemDescription& p, const Workload& w, const ReferenceLocation& reference,
                              const std::vector<double>& regimes = {1.0, 1.0, 1.0}) {
  namespace fs = std::filesystem;
  for (const auto* list : {&p.inputs, &p.outputs})
    for (const auto& t : *list)
      if (auto why = dtype_not_runnable_reason(t.dtype)) throw input_error(p.source, t.name, *why);
  if (auto why = input_refusal_reason(p, w)) throw input_error(p.source, {}, *why);
  const ConcreteWorkload c = concretize(p, w);
  json out = json::object();
  out["name"] = p.name;
  json inputs = json::array();
  for (std::size_t i = 0; i < p.inputs.size(); ++i) {
    const TensorSpec& t = p.inputs[i];
    json in{{"name", t.name}, {"dtype", std::string(dtype_name(t.dtype))}};
    if (t.is_scalar()) {
      const json& v = w.inputs.at(t.name).value;
      in["shape"] = nullptr;
      in["value"] = v.is_boolean() ? json(v.get<bool>() ? 1 : 0) : v;
    } else if (auto it = w.inputs.find(t.name); it != w.inputs.end() && it->second.kind == InputSourceKind::scalar) {
      // A 0-d tensor given a value: filled with it, never scaled by the trial's regime.
      const json& v = it->second.value;
      in["shape"] = json::array();
      in["init"] = json{{"kind", "full"}, {"value", v.is_boolean() ? json(v.get<bool>() ? 1 : 0) : v}, {"scaled", false}};
    } else if (it != w.inputs.end() && it->second.kind == InputSourceKind::custom) {
      // The reference worker calls custom_inputs_entrypoint, seeded from the judge's secret.
      in["shape"] = *c.inputs[i].dims;
      in["init"] = json{{"kind", "custom"}};
    } else if (it != w.inputs.end() && it->second.kind == InputSourceKind::model_state) {
      // The reference worker copies the seeded Model's tensor (its state_dict's `key`).
      in["shape"] = *c.inputs[i].dims;
      in["init"] = json{{"kind", "model_state"}, {"key", it->second.state_key}};
    } else if (it != w.inputs.end() && it->second.kind == InputSourceKind::safetensors) {
      // The reference worker loads it: the path found under the blob roots of the problem's
      // folder (the definition's) as SOL-ExecBench finds it, made absolute here, since the worker
      // runs elsewhere. Not found (problem list says so first): the worker's error names it.
      const fs::path problem_dir = fs::path(reference.definition).parent_path();
      fs::path file = find_blob(it->second.path, problem_dir).value_or(fs::path(it->second.path));
      if (file.is_relative()) file = fs::absolute(problem_dir / file);
      in["shape"] = *c.inputs[i].dims;
      in["init"] = json{{"kind", "safetensors"}, {"path", file.lexically_normal().string()},
                        {"tensor_key", it->second.tensor_key}};
    } else {
      in["shape"] = *c.inputs[i].dims;
      const auto named = sol_named_input(t, *c.inputs[i].dims);
      InputGenerator g = named ? *named->generator : random_generator(t.dtype);
      if (p.op_type == "sampling" && t.name == "probs" && softmax_probs_dtype(t.dtype)) {
        g = InputGenerator{};  // SOL: the softmax of the normal logits it would otherwise be
        g.kind = "softmax_normal", g.scaled = false;
      }
      in["init"] = g.to_json();
    }
    inputs.push_back(std::move(in));
  }
  out["inputs"] = std::move(inputs);
  json outputs = json::array();
  for (std::size_t i = 0; i < p.outputs.size(); ++i) {
    const TensorSpec& t = p.outputs[i];
    const Tolerance& tol = c.output_tolerances[i];
    json tolerance{{"atol", tol.atol}, {"rtol", tol.rtol}, {"matched_ratio", tol.required_matched_ratio}};
    if (tol.max_error_cap) tolerance["max_error_cap"] = *tol.max_error_cap;
    outputs.push_back(json{{"name", t.name},
                           {"dtype", std::string(dtype_name(t.dtype))},
                           {"shape", c.outputs[i].dims.value_or(std::vector<std::int64_t>{})},
                           {"tolerance", std::move(tolerance)}});
  }
  out["outputs"] = std::move(outputs);
  json axes = json::array();
  for (const auto& [name, value] : c.axes) {
    json a{{"name", name}, {"value", value}};
    if (const Axis* axis = p.find_axis(name); axis && axis->kind == AxisKind::variable) a["var"] = true;
    axes.push_back(std::move(a));
  }
  out["axes"] = std::move(axes);
  out["tolerance"] = json{{"rule", std::string(resolved_rule_name(p.rule()))}};
  out["reference"] = json{{"python", reference.python}, {"worker", reference.worker}, {"definition", reference.definition}};
  // A KernelBench file: the worker builds its Model (the reference's `kind`).
  if (p.origin == ProblemOrigin::kernelbench) out["reference"]["kind"] = "kernelbench";
  if (c.flops) out["flops"] = static_cast<double>(*c.flops);
  out["min_bytes"] = static_cast<double>(c.bytes);
  out["regimes"] = regimes;
  return out;
}

/// @brief `w`'s axis values as one line (`batch_size=128 hidden_size=4096`): a scenario's note.
inline std::string workload_axes_text(const ProblemDescription& p, const Workload& w) {
  std::string out;
  for (const auto& [name, value] : resolve_axes(p, w)) out += (out.empty() ? "" : " ") + name + "=" + std::to_string(value);
  return out;
}

/// @brief The scenario set socratic-runner-suite judges: one scenario per workload (its uuid the
/// id, its axis values the description), in the order of `uuids` (empty: every workload, in the
/// problem's order). Throws input_error for a uuid the problem lacks.
inline ScenarioSet resolved_scenario_set(const ProblemDescription& p, const ReferenceLocation& reference,
                                         const std::vector<std::string>& uuids = {}) {
  ScenarioSet set;
  set.name = p.name;
  set.problem = "suite";
  set.description = "the workloads of " + p.source + " (" + std::string(origin_name(p.origin)) + "), resolved";
  auto add = [&](const Workload& w) {
    set.scenarios.push_back(Scenario{w.uuid, resolved_workload(p, w, reference), workload_axes_text(p, w)});
  };
  if (uuids.empty()) {
    for (const auto& w : p.workloads) add(w);
    return set;
  }
  for (const auto& id : uuids) {
    const Workload* found = nullptr;
    for (const auto& w : p.workloads)
      if (w.uuid == id) found = &w;
    if (!found) {
      std::string known;
      for (const auto& w : p.workloads) known += (known.empty() ? "" : ", ") + w.uuid;
      throw input_error(p.source, "workload \"" + id + "\"", "no such workload (the problem has " + known + ")");
    }
    add(*found);
  }
  return set;
}

}  // namespace socratic::suite
