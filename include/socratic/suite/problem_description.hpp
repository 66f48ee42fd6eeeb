#pragma once
/// @file
/// @brief A problem from the field's suites, as one value whatever its format: named axes, input
/// and output tensors, the PyTorch reference, workloads and the suite's correctness rule.
/// Loaders (sol_loader.hpp) make it; nothing here reads files.

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "socratic/core/json.hpp"
#include "socratic/suite/dtype.hpp"
#include "socratic/suite/tolerance.hpp"

namespace socratic::suite {

/// @brief Where a problem comes from: its format and the suite whose rules judge it.
enum class ProblemOrigin { sol_execbench, flashinfer_bench, kernelbench, native };

constexpr std::string_view origin_name(ProblemOrigin o) {
  switch (o) {
    case ProblemOrigin::sol_execbench: return "sol_execbench";
    case ProblemOrigin::flashinfer_bench: return "flashinfer_bench";
    case ProblemOrigin::kernelbench: return "kernelbench";
    case ProblemOrigin::native: return "native";
  }
  return "?";
}

/// @brief The correctness rule a problem of this origin is judged by (native problems keep their
/// own tolerances, kernels/harness/problem.cuh; they are judged by SOL-ExecBench's form here).
constexpr CorrectnessRule origin_rule(ProblemOrigin o) {
  switch (o) {
    case ProblemOrigin::flashinfer_bench: return CorrectnessRule::flashinfer_bench;
    case ProblemOrigin::kernelbench: return CorrectnessRule::kernelbench;
    default: return CorrectnessRule::sol_execbench;
  }
}

/// @brief How an axis gets its value: spelled `const`, `var`, `expr` in a definition.
enum class AxisKind { constant, variable, expression };

constexpr std::string_view axis_kind_name(AxisKind k) {
  switch (k) {
    case AxisKind::constant: return "const";
    case AxisKind::variable: return "var";
    case AxisKind::expression: return "expr";
  }
  return "?";
}

/// @brief A named dimension.
struct Axis {
  std::string name;
  AxisKind kind = AxisKind::variable;
  std::int64_t value = 0;  ///< for `const`
  std::string expression;  ///< for `expr`, over other axes (axis_expression.hpp)
  std::string description;
};

/// @brief An input or output: a tensor whose shape is a list of axis names (`[]`: a 0-d tensor),
/// or a Python scalar (shape `null`).
struct TensorSpec {
  std::string name;
  Dtype dtype = Dtype::float32;
  std::optional<std::vector<std::string>> shape;  ///< nothing: a Python scalar
  std::string description;

  bool is_scalar() const { return !shape.has_value(); }
};

/// @brief Where a workload's input comes from (spelled as the workload's `type`).
/// `model_state` is the KernelBench describer's own: a tensor of the Model's state (a parameter or
/// a buffer, `key` in its state_dict), which the reference worker fills from the seeded Model.
enum class InputSourceKind { random, scalar, safetensors, custom, model_state };

constexpr std::string_view input_source_name(InputSourceKind k) {
  switch (k) {
    case InputSourceKind::random: return "random";
    case InputSourceKind::scalar: return "scalar";
    case InputSourceKind::safetensors: return "safetensors";
    case InputSourceKind::custom: return "custom";
    case InputSourceKind::model_state: return "model_state";
  }
  return "?";
}

struct InputSource {
  InputSourceKind kind = InputSourceKind::random;
  json value;              ///< for `scalar`: a number or a bool
  std::string path;        ///< for `safetensors`: relative to the problem's folder, or absolute
  std::string tensor_key;  ///< for `safetensors`
  std::string state_key;   ///< for `model_state`: the Model's state_dict key (`conv.weight`)
};

/// @brief One concrete instance of a definition: values for its `var` axes and its inputs' sources.
struct Workload {
  std::string uuid;
  std::map<std::string, std::int64_t> axes;  ///< the `var` axes' values
  std::map<std::string, InputSource> inputs;  ///< inputs a workload leaves out are `random`
  ToleranceOverride tolerance;
  /// SOL-ExecBench's speed-of-light time T_SOL of this workload, milliseconds, when the problem
  /// gives it (workload.jsonl's `t_sol_ms`, or `sol_times.json` beside it; sol_score.hpp).
  std::optional<double> t_sol_ms;
  std::size_t line = 0;  ///< line in workload.jsonl (1-based), 0 when not from a file
};

/// @brief A problem, whatever its format.
struct ProblemDescription {
  std::string name;
  ProblemOrigin origin = ProblemOrigin::sol_execbench;
  std::string source;  ///< where it was read (a folder, a file, a label), for messages
  std::string description, op_type;
  std::vector<std::string> tags;
  std::vector<Axis> axes;  ///< in definition order
  std::vector<TensorSpec> inputs, outputs;  ///< in definition order: the entry point's order
  std::string reference;  ///< the PyTorch reference code (defines `run`)
  std::string reference_file;  ///< reference.py beside the definition, when present
  std::vector<std::string> constraints;  ///< relations between axes (`"H_qo == H_kv * H_r"`)
  std::string custom_inputs_entrypoint;  ///< the reference's function that makes `custom` inputs
  std::optional<std::string> flops;  ///< FLOPs per call as an expression over the axes, when given
  /// KernelBench: why the describer found no outputs (its forward pass could not run on meta
  /// tensors); `outputs` is then empty and the problem is not judgeable.
  std::string outputs_unknown;
  std::vector<Workload> workloads;

  CorrectnessRule rule() const { return origin_rule(origin); }

  const Axis* find_axis(std::string_view n) const {
    for (const auto& a : axes)
      if (a.name == n) return &a;
    return nullptr;
  }
  const TensorSpec* find_input(std::string_view n) const {
    for (const auto& t : inputs)
      if (t.name == n) return &t;
    return nullptr;
  }
};

}  // namespace socratic::suite
