#pragma once
/// @file
/// @brief A workload as the GPU judge takes it: the **resolved workload** of
/// docs/runner-protocol.md ("Suite problems"), which kernels/suite/resolved_workload.hpp parses in
/// socratic-runner-suite. Every axis evaluated, every shape concrete, every input's generator
/// named (the suite's own generator for its dtype), the workload's tolerances per output, the
/// FLOPs and the bytes, and where the reference worker finds the reference. Pure: nothing is read
/// or allocated.
///
/// The inputs follow SOL-ExecBench's generator (its bench utilities, read for this): a `random`
/// float tensor is a standard normal (fp8: clamped to +-2 before the cast, which the runner does),
/// a bool tensor 0 or 1, int8 uniform in [-128, 128), wider integers in [-1024, 1024) (uint8, which
/// SOL does not generate, in [0, 256)); a `scalar` input its value (a 0-d tensor given a value is
/// filled with it, unscaled). What the runner cannot
/// generate (`safetensors`, `custom`, a random Python scalar, a sampling problem's `probs`, which
/// SOL makes a softmax) refuses the problem: input_refusal_reason, used by judgeable.hpp.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "socratic/core/error.hpp"
#include "socratic/core/json.hpp"
#include "socratic/core/scenario.hpp"
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
  std::string kind = "randn";  ///< randn, uniform, randint, ones, zeros, full
  double mean = 0, std = 1;    ///< randn
  double low = 0, high = 1;    ///< randint (high exclusive), uniform
  json to_json() const {
    if (kind == "randint") return json{{"kind", kind}, {"low", low}, {"high", high}};
    if (kind == "randn") return json{{"kind", kind}, {"mean", mean}, {"std", std}};
    return json{{"kind", kind}};
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
      case InputSourceKind::custom:
        return where + t.name +
               ": `custom` inputs are made by the reference's custom_inputs_entrypoint; the judge's runner "
               "generates inputs itself (randn, uniform, randint, ones, zeros, full) and cannot run it yet";
      case InputSourceKind::safetensors:
        return where + t.name + ": `safetensors` inputs (" + it->second.path +
               ") are not loaded by the judge's runner yet: it generates every input on the GPU";
      case InputSourceKind::scalar:
        if (!t.is_scalar() && !t.shape->empty())
          return where + t.name + ": a `scalar` source for a tensor input of " + std::to_string(t.shape->size()) +
                 " dimensions (only a 0-d tensor can hold one value)";
        if (!it->second.value.is_number() && !it->second.value.is_boolean())
          return where + t.name + ": a `scalar` source without a number or bool value";
        break;
      case InputSourceKind::random:
        if (t.is_scalar())
          return where + t.name + ": a random Python scalar; the judge's runner takes scalars as values "
                                  "(give it `{\"type\": \"scalar\", \"value\": ...}`)";
        if (p.op_type == "sampling" && t.name == "probs")
          return where + t.name + ": SOL-ExecBench makes a sampling problem's `probs` a softmax of random "
                                  "logits; the judge's runner has no such generator yet";
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
    } else {
      in["shape"] = *c.inputs[i].dims;
      in["init"] = random_generator(t.dtype).to_json();
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
