#pragma once
/// @file
/// @brief A CUDA C++ candidate exported in a suite's own solution format, so that a user can hand
/// it to that suite's harness: for a SOL-ExecBench / FlashInfer-Bench problem a `solution.json`
/// (language `cuda_cpp`, the candidate's source and a generated PyTorch binding), for a
/// KernelBench problem a Python file defining `ModelNew` that compiles the candidate with
/// `torch.utils.cpp_extension.load_inline` and calls it from `forward`.
///
/// Both go through one generated binding: a C++ function `run` taking torch tensors (inputs in
/// definition order, then the outputs, destination-passing: the suites' order), checking each
/// tensor's device, dtype, rank and contiguity, reading the `var` axes from the tensors' sizes,
/// and calling the candidate's entry point (entry_point_header.hpp: the same parameter list) on
/// PyTorch's current CUDA stream. Pure string generation: no GPU, no torch here.

#include <cstddef>
#include <fstream>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

#include "socratic/core/error.hpp"
#include "socratic/core/json.hpp"
#include "socratic/suite/entry_point_header.hpp"
#include "socratic/suite/problem_description.hpp"

namespace socratic::suite {

/// @brief A candidate to export: its CUDA C++ source and where it came from (for messages).
struct ExportCandidate {
  std::string source;          ///< the .cu file's text; defines the entry point
  std::string file_name = "kernel.cu";  ///< the name it gets in the exported solution
};

/// @brief Options of the SOL-ExecBench `solution.json`.
struct SolutionJsonOptions {
  std::string name;  ///< the solution's name; empty: `<definition>_socratic`
  std::string author = "socratic";
  std::string description;  ///< empty: a sentence naming the entry point
  /// SOL-ExecBench accepts `B200` and `LOCAL` (any local NVIDIA GPU, e.g. the H200).
  std::vector<std::string> target_hardware{"LOCAL"};
};

namespace detail {

/// PyTorch's C++ scalar type for `d` (fp4 travels as bytes).
inline std::string torch_scalar_type(Dtype d) {
  switch (d) {
    case Dtype::float64: return "at::kDouble";
    case Dtype::float32: return "at::kFloat";
    case Dtype::float16: return "at::kHalf";
    case Dtype::bfloat16: return "at::kBFloat16";
    case Dtype::float8_e4m3fn: return "at::kFloat8_e4m3fn";
    case Dtype::float8_e5m2: return "at::kFloat8_e5m2";
    case Dtype::float4_e2m1:
    case Dtype::float4_e2m1fn_x2:
    case Dtype::uint8: return "at::kByte";
    case Dtype::int64: return "at::kLong";
    case Dtype::int32: return "at::kInt";
    case Dtype::int16: return "at::kShort";
    case Dtype::int8: return "at::kChar";
    case Dtype::boolean: return "at::kBool";
  }
  return "?";
}

/// PyTorch's Python dtype for `d`.
inline std::string torch_python_dtype(Dtype d) {
  switch (d) {
    case Dtype::float4_e2m1:
    case Dtype::float4_e2m1fn_x2: return "torch.uint8";
    case Dtype::boolean: return "torch.bool";
    default: return "torch." + std::string(dtype_name(d));
  }
}

/// How a Python scalar of `d` arrives in the binding (pybind11 converts Python's float and int).
inline std::string binding_scalar_type(Dtype d) {
  if (d == Dtype::boolean) return "bool";
  return dtype_is_floating(d) ? "double" : "int64_t";
}

/// The tensor spec behind a parameter of role tensor_input or output.
inline const TensorSpec& spec_of(const ProblemDescription& p, const EntryPointParameter& prm) {
  using Role = EntryPointParameter::Role;
  std::size_t n = 0;
  for (const auto& t : p.inputs) {
    if (prm.role == Role::tensor_input && !t.is_scalar() && n++ == prm.index) return t;
    if (prm.role == Role::scalar_input && t.is_scalar() && n++ == prm.index) return t;
  }
  return p.outputs.at(prm.index);
}

/// Where a var axis's value is read: the first tensor (inputs, then outputs) whose shape names it.
struct AxisSource {
  std::string tensor;  ///< the binding's parameter name
  std::size_t dim = 0;
  bool found = false;
};

inline AxisSource axis_source(const ProblemDescription& p, const std::vector<EntryPointParameter>& parameters,
                              const std::string& axis) {
  using Role = EntryPointParameter::Role;
  for (Role role : {Role::tensor_input, Role::output})
    for (const auto& prm : parameters) {
      if (prm.role != role) continue;
      const TensorSpec& t = spec_of(p, prm);
      if (t.is_scalar()) continue;
      for (std::size_t d = 0; d < t.shape->size(); ++d)
        if ((*t.shape)[d] == axis) return {prm.name, d, true};
    }
  return {};
}

inline void require_candidate(const ProblemDescription& p, const ExportCandidate& c) {
  if (c.source.empty())
    throw input_error(p.source, {}, "export: the candidate's source is empty (it must define the entry point)");
  if (c.source.find(entry_point_name(p)) == std::string::npos)
    throw input_error(p.source, {}, "export: the candidate does not mention the entry point " + entry_point_name(p) +
                                        " (print its header with `socratic problem header`)");
  if (p.outputs.empty())
    throw input_error(p.source, {}, "export: the problem has no outputs (its definition names none, or the "
                                    "KernelBench describer could not infer them)");
}

}  // namespace detail

/// @brief The PyTorch binding for problem `p`: `void run(<inputs>, <outputs>)` taking torch
/// tensors (scalars as double / int64_t / bool), calling the candidate's entry point on the
/// current CUDA stream. With `pybind_module`, it ends with the PYBIND11_MODULE that exposes `run`
/// (what SOL-ExecBench's build expects; KernelBench's load_inline takes it too).
inline std::string torch_binding_source(const ProblemDescription& p, bool pybind_module = true) {
  using Role = EntryPointParameter::Role;
  const std::vector<EntryPointParameter> parameters = entry_point_parameters(p);
  const std::string entry = entry_point_name(p);
  std::string includes;
  for (const auto& h : entry_point_includes(p)) includes += "#include <" + h + ">\n";
  std::string declaration, run_parameters, checks, axes, call, stream_name;
  std::vector<std::pair<std::string, std::string>> var_axes;  // (axis, the binding's variable)
  auto add = [](std::string& list, const std::string& item) { list += (list.empty() ? "" : ",\n    ") + item; };
  for (const auto& prm : parameters) {
    add(declaration, prm.declaration());
    switch (prm.role) {
      case Role::tensor_input:
      case Role::output: {
        const TensorSpec& t = detail::spec_of(p, prm);
        const bool out = prm.role == Role::output;
        add(run_parameters, "torch::Tensor " + prm.name);
        const std::string n = prm.name, q = "\"" + t.name + "\"";
        checks += "  TORCH_CHECK(" + n + ".is_cuda(), " + q + ", \" must be a CUDA tensor\");\n";
        checks += "  TORCH_CHECK(" + n + ".is_contiguous(), " + q + ", \" must be contiguous\");\n";
        checks += "  TORCH_CHECK(" + n + ".scalar_type() == " + detail::torch_scalar_type(t.dtype) + ", " + q +
                  ", \" must be " + std::string(dtype_name(t.dtype)) + "\");\n";
        const std::size_t rank = t.is_scalar() ? 0 : t.shape->size();
        if (!(out && t.is_scalar()))
          checks += "  TORCH_CHECK(" + n + ".dim() == " + std::to_string(rank) + ", " + q + ", \" must have " +
                    std::to_string(rank) + " dimensions\");\n";
        if (!t.is_scalar())
          for (std::size_t d = 0; d < rank; ++d)
            if (const Axis* a = p.find_axis((*t.shape)[d]); a && a->kind == AxisKind::constant)
              checks += "  TORCH_CHECK(" + n + ".size(" + std::to_string(d) + ") == " + std::to_string(a->value) +
                        ", " + q + ", \" dimension " + std::to_string(d) + " (" + a->name + ") must be " +
                        std::to_string(a->value) + "\");\n";
        add(call, "static_cast<" + prm.type + ">(" + n + ".data_ptr())");
        break;
      }
      case Role::scalar_input:
        add(run_parameters, detail::binding_scalar_type(prm.dtype) + " " + prm.name);
        add(call, "static_cast<" + prm.type + ">(" + prm.name + ")");
        break;
      case Role::var_axis: {
        // The var axes come after the tensors in the entry point; their name is the axis's.
        std::string axis_name;
        std::size_t k = 0;
        for (const auto& a : p.axes)
          if (a.kind == AxisKind::variable && k++ == prm.index) axis_name = a.name;
        const detail::AxisSource s = detail::axis_source(p, parameters, axis_name);
        if (!s.found)
          throw input_error(p.source, {}, "export: the var axis \"" + axis_name +
                                              "\" is in no tensor's shape, so the binding cannot read its value");
        var_axes.emplace_back(axis_name, prm.name);
        axes += "  const int64_t " + prm.name + " = " + s.tensor + ".size(" + std::to_string(s.dim) + ");\n";
        add(call, prm.name);
        break;
      }
      case Role::stream:
        stream_name = prm.name;
        add(call, prm.name);
        break;
    }
  }
  // Every tensor dimension that names a var axis must agree with the value read.
  std::string agree;
  for (const auto& prm : parameters) {
    if (prm.role != Role::tensor_input && prm.role != Role::output) continue;
    const TensorSpec& t = detail::spec_of(p, prm);
    if (t.is_scalar()) continue;
    for (std::size_t d = 0; d < t.shape->size(); ++d) {
      const Axis* a = p.find_axis((*t.shape)[d]);
      if (!a || a->kind != AxisKind::variable) continue;
      for (const auto& [axis, variable] : var_axes) {
        if (axis != a->name) continue;
        const detail::AxisSource s = detail::axis_source(p, parameters, axis);
        if (s.tensor == prm.name && s.dim == d) continue;  // where the value was read
        agree += "  TORCH_CHECK(" + prm.name + ".size(" + std::to_string(d) + ") == " + variable + ", \"" + t.name +
                 "\", \" dimension " + std::to_string(d) + " (" + axis + ") disagrees with the other tensors\");\n";
      }
    }
  }
  std::string out =
      "// Generated by `socratic problem export` (include/socratic/suite/solution_export.hpp) for \"" + p.name +
      "\":\n// run() takes the suite's torch tensors (inputs, then outputs written in place), checks them and\n"
      "// calls the candidate's entry point " + entry + " on PyTorch's current CUDA stream.\n"
      "#include <cstdint>\n#include <cuda_runtime.h>\n" + includes +
      "#include <torch/extension.h>\n#include <ATen/cuda/CUDAContext.h>\n\n"
      "extern \"C\" void " + entry + "(\n    " + declaration + ");\n\n"
      "void run(\n    " + run_parameters + ") {\n" + checks + axes + agree +
      "  cudaStream_t " + stream_name + " = at::cuda::getCurrentCUDAStream();\n"
      "  " + entry + "(\n    " + call + ");\n"
      "  const cudaError_t launched = cudaGetLastError();\n"
      "  TORCH_CHECK(launched == cudaSuccess, \"" + entry + ": \", cudaGetErrorString(launched));\n}\n";
  if (pybind_module)
    out += "\nPYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {\n  m.def(\"run\", &run, \"" + p.name +
           " (destination-passing: inputs, then outputs)\");\n}\n";
  return out;
}

/// @brief The SOL-ExecBench / FlashInfer-Bench `solution.json` (docs/solution.md of
/// NVIDIA/SOL-ExecBench): language `cuda_cpp`, torch binding, destination-passing, the candidate
/// as `kernel.cu` and the binding as `binding.cpp`, entry point `binding.cpp::run`.
inline nlohmann::ordered_json solution_json(const ProblemDescription& p, const ExportCandidate& c,
                                  const SolutionJsonOptions& o = {}) {
  detail::require_candidate(p, c);
  if (c.file_name == "binding.cpp")
    throw input_error(p.source, {}, "export: the candidate cannot be named binding.cpp (the binding's name)");
  if (o.target_hardware.empty()) throw input_error(p.source, {}, "export: no target hardware named");
  nlohmann::ordered_json j;
  j["name"] = o.name.empty() ? p.name + "_socratic" : o.name;
  j["definition"] = p.name;
  j["author"] = o.author;
  j["description"] = o.description.empty() ? "CUDA C++ candidate exported by Socratic: the entry point " +
                                                 entry_point_name(p) + " called through a generated torch binding"
                                           : o.description;
  nlohmann::ordered_json spec;
  spec["languages"] = nlohmann::ordered_json::array({"cuda_cpp"});
  spec["target_hardware"] = o.target_hardware;
  spec["entry_point"] = "binding.cpp::run";
  spec["dependencies"] = nlohmann::ordered_json::array();
  spec["destination_passing_style"] = true;
  spec["binding"] = "torch";
  spec["compile_options"] = nlohmann::ordered_json::object();
  j["spec"] = spec;
  j["sources"] = nlohmann::ordered_json::array({nlohmann::ordered_json{{"path", c.file_name}, {"content", c.source}},
                                      nlohmann::ordered_json{{"path", "binding.cpp"}, {"content", torch_binding_source(p)}}});
  return j;
}

/// @brief A KernelBench `ModelNew` file: the candidate and the binding compiled with
/// `load_inline` when the module is imported; `forward` allocates the outputs and calls `run`.
/// Without Model state, `ModelNew(*get_init_inputs())` accepts and ignores the Model's init
/// inputs. With it (the describer's `model_state` inputs: the Model's parameters and buffers),
/// the file carries the problem's own source, and ModelNew builds its Model first thing in
/// `__init__`: KernelBench seeds before building each model, so that Model's state is the
/// reference's, and `forward` hands its tensors to the entry point after the forward inputs.
inline std::string kernelbench_model_new(const ProblemDescription& p, const ExportCandidate& c) {
  detail::require_candidate(p, c);
  std::vector<std::string> arguments, tensors, call_inputs;
  std::vector<std::pair<std::string, std::string>> state;  // input name, state_dict key
  for (const auto& t : p.inputs) {
    const InputSource* source = nullptr;
    if (!p.workloads.empty())
      if (auto it = p.workloads.front().inputs.find(t.name); it != p.workloads.front().inputs.end()) source = &it->second;
    call_inputs.push_back(t.name);
    if (source && source->kind == InputSourceKind::model_state) {
      state.emplace_back(t.name, source->state_key);
      continue;
    }
    arguments.push_back(t.name);
    if (!t.is_scalar()) tensors.push_back(t.name);
  }
  std::string body, problem_source;
  for (const auto& n : tensors) body += "        " + n + " = " + n + ".contiguous()\n";
  if (!state.empty()) {
    std::ifstream in(p.source, std::ios::binary);
    if (!in) throw input_error(p.source, {}, "export: the problem's file cannot be read (ModelNew carries its Model)");
    problem_source.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    body += "        state = self.reference_state.state_dict()\n";
    for (const auto& [name, key] : state) body += "        " + name + " = state[" + json(key).dump() + "].contiguous()\n";
  }
  std::vector<std::string> outputs;
  for (const auto& t : p.outputs) {
    std::string shape = "(";
    if (!t.is_scalar())
      for (const auto& axis : *t.shape) {
        const Axis* a = p.find_axis(axis);
        if (!a) throw input_error(p.source, {}, "export: outputs." + t.name + ": unknown axis \"" + axis + "\"");
        if (a->kind == AxisKind::constant) {
          shape += std::to_string(a->value) + ", ";
          continue;
        }
        if (a->kind == AxisKind::expression)
          throw input_error(p.source, {}, "export: outputs." + t.name + ": the expression axis \"" + axis +
                                              "\" cannot be sized in a ModelNew file yet");
        bool found = false;
        for (const auto& in : p.inputs) {
          if (in.is_scalar() || found) continue;
          for (std::size_t d = 0; d < in.shape->size() && !found; ++d)
            if ((*in.shape)[d] == axis) {
              shape += in.name + ".shape[" + std::to_string(d) + "], ";
              found = true;
            }
        }
        if (!found)
          throw input_error(p.source, {}, "export: outputs." + t.name + ": the var axis \"" + axis +
                                              "\" is in no input's shape, so the output cannot be sized");
      }
    shape += ")";
    const std::string device = tensors.empty() ? "\"cuda\"" : tensors.front() + ".device";
    const std::string name = t.name + "_out";
    body += "        " + name + " = torch.empty(" + shape + ", dtype=" + detail::torch_python_dtype(t.dtype) +
            ", device=" + device + ")\n";
    outputs.push_back(name);
  }
  std::string call_arguments, parameters;
  for (const auto& a : arguments) parameters += ", " + a;
  for (const auto& a : call_inputs) call_arguments += (call_arguments.empty() ? "" : ", ") + a;
  for (const auto& o : outputs) call_arguments += (call_arguments.empty() ? "" : ", ") + o;
  std::string returned;
  for (const auto& o : outputs) returned += (returned.empty() ? "" : ", ") + o;
  const std::string module = entry_point_name(p) + "_socratic";
  return "# Generated by `socratic problem export` (include/socratic/suite/solution_export.hpp) for the\n"
         "# KernelBench problem \"" + p.name + "\": ModelNew compiles the CUDA C++ candidate with\n"
         "# torch.utils.cpp_extension.load_inline and calls its entry point " + entry_point_name(p) + " from forward.\n"
         "import torch\nimport torch.nn as nn\nfrom torch.utils.cpp_extension import load_inline\n\n"
         "candidate_source = " + json(c.source).dump() + "\n\n"
         "binding_source = " + json(torch_binding_source(p, false)).dump() + "\n\n"
         "_extension = load_inline(\n    name=" + json(module).dump() +
         ",\n    cpp_sources=[binding_source],\n    cuda_sources=[candidate_source],\n    functions=[\"run\"],\n"
         "    extra_cuda_cflags=[\"-O3\"],\n    verbose=False,\n)\n\n\n" +
         (state.empty() ? std::string()
                        : "# The problem's own file: ModelNew builds its Model, seeded as KernelBench seeds it, for the\n"
                          "# weights the reference computes with.\n"
                          "_problem_source = " + json(problem_source).dump() + "\n"
                          "_problem = {\"__name__\": \"kernelbench_problem\"}\n"
                          "exec(compile(_problem_source, \"kernelbench_problem\", \"exec\"), _problem)\n\n\n") +
         "class ModelNew(nn.Module):\n"
         "    def __init__(self, *init_inputs):\n        super().__init__()\n" +
         (state.empty() ? std::string() : "        self.reference_state = _problem[\"Model\"](*init_inputs)\n") +
         "\n    def forward(self" + parameters + "):\n" + body +
         "        _extension.run(" + call_arguments + ")\n        return " + returned + "\n";
}

}  // namespace socratic::suite
