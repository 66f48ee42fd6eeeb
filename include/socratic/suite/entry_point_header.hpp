#pragma once
/// @file
/// @brief The C header of a CUDA C++ candidate's entry point, generated from a problem's
/// description: `extern "C"`, destination-passing (the suites' convention): the inputs in
/// definition order (tensors as const pointers, Python scalars by value), then the outputs as
/// pointers written in place, then every `var` axis as int64_t, then the stream. Tensors are
/// contiguous and row-major; each parameter's comment gives its shape in axis names and its dtype.

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <set>
#include <string>
#include <vector>

#include "socratic/suite/problem_description.hpp"

namespace socratic::suite {

/// @brief The entry point's C name: the definition's name with every character that a C
/// identifier cannot hold replaced by `_` (and a leading `_` before a digit).
inline std::string entry_point_name(const ProblemDescription& p) {
  std::string out;
  for (char c : p.name) out += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  if (out.empty() || std::isdigit(static_cast<unsigned char>(out.front()))) out.insert(out.begin(), '_');
  return out;
}

/// @brief The C type a Python scalar of `d` is passed as: narrow floats travel as `float`.
inline std::string scalar_c_type(Dtype d) {
  switch (d) {
    case Dtype::float16:
    case Dtype::bfloat16:
    case Dtype::float8_e4m3fn:
    case Dtype::float8_e5m2:
    case Dtype::float4_e2m1:
    case Dtype::float4_e2m1fn_x2: return "float";
    default: return std::string(dtype_c_type(d));
  }
}

namespace detail {

/// A parameter name that is a C++ keyword, or already taken (a tensor and a var axis of one name,
/// a tensor called `stream`), gets a suffix saying what it is.
inline std::string parameter_name(const std::string& name, const std::string& suffix, std::set<std::string>& taken) {
  static const std::set<std::string> keywords{
      "auto", "bool", "break", "case", "char", "class", "const", "continue", "default", "delete", "do", "double",
      "else", "enum", "extern", "false", "float", "for", "goto", "if", "inline", "int", "long", "namespace",
      "new", "operator", "private", "public", "register", "return", "short", "signed", "sizeof", "static",
      "struct", "switch", "template", "this", "true", "typedef", "union", "unsigned", "using", "void",
      "volatile", "while"};
  std::string out = name;
  while (keywords.count(out) || taken.count(out)) out += "_" + suffix;
  taken.insert(out);
  return out;
}

inline std::string shape_comment(const TensorSpec& t) {
  if (t.is_scalar()) return "scalar " + std::string(dtype_name(t.dtype));
  std::string out = "[";
  for (std::size_t i = 0; i < t.shape->size(); ++i) out += (i ? ", " : "") + (*t.shape)[i];
  out += "] " + std::string(dtype_name(t.dtype));
  if (t.shape->empty()) out += " (0-d tensor: one element)";
  if (t.dtype == Dtype::float4_e2m1fn_x2) out += " (two fp4 values per byte)";
  if (t.dtype == Dtype::float4_e2m1) out += " (one fp4 value per byte)";
  return out;
}

}  // namespace detail

/// @brief One parameter of the entry point, in order: what it declares and what the judge's
/// call passes there (the adapter, suite_adapter.hpp, and the header share this one list).
struct EntryPointParameter {
  enum class Role { tensor_input, scalar_input, output, var_axis, stream };
  Role role = Role::tensor_input;
  std::string name;         ///< the C parameter name (suffixed when a keyword or taken)
  std::string type;         ///< its C type (`const float*`, `float`, `int64_t`, `cudaStream_t`)
  Dtype dtype = Dtype::float32;  ///< tensors and scalars
  std::size_t index = 0;    ///< position among the parameters of its role
  std::string comment;

  std::string declaration() const { return type + " " + name; }
};

/// @brief The entry point's parameters: inputs in definition order (tensors const pointers,
/// scalars by value), outputs, every `var` axis as int64_t, then the stream.
inline std::vector<EntryPointParameter> entry_point_parameters(const ProblemDescription& p) {
  using Role = EntryPointParameter::Role;
  std::vector<EntryPointParameter> parameters;
  std::set<std::string> taken;
  std::size_t tensors = 0, scalars = 0, outputs = 0, axes = 0;
  for (const auto& t : p.inputs) {
    if (t.is_scalar()) {
      const std::string type = scalar_c_type(t.dtype);
      parameters.push_back({Role::scalar_input, detail::parameter_name(t.name, "input", taken), type, t.dtype,
                            scalars++,
                            "input, " + detail::shape_comment(t) +
                                (type != dtype_c_type(t.dtype) ? ", passed as " + type : "")});
      continue;
    }
    // A KernelBench Model's state (the describer says whose): named, so the candidate knows the
    // weights it is given are the reference Model's.
    const std::string whose = p.origin == ProblemOrigin::kernelbench && t.description.rfind("the Model's ", 0) == 0
                                  ? ", " + t.description.substr(0, t.description.find(" (")) : std::string();
    parameters.push_back({Role::tensor_input, detail::parameter_name(t.name, "input", taken),
                          "const " + std::string(dtype_c_type(t.dtype)) + "*", t.dtype, tensors++,
                          "input, " + detail::shape_comment(t) + whose});
  }
  for (const auto& t : p.outputs)
    parameters.push_back({Role::output, detail::parameter_name(t.name, "output", taken),
                          std::string(dtype_c_type(t.dtype)) + "*", t.dtype, outputs++,
                          "output, " + detail::shape_comment(t) + (t.is_scalar() ? " (one element)" : "")});
  for (const auto& a : p.axes)
    if (a.kind == AxisKind::variable)
      parameters.push_back({Role::var_axis, detail::parameter_name(a.name, "axis", taken), "int64_t", Dtype::int64,
                            axes++, "var axis" + (a.description.empty() ? "" : ": " + a.description)});
  parameters.push_back({Role::stream, detail::parameter_name("stream", "cuda", taken), "cudaStream_t", Dtype::int64, 0,
                        "every launch goes on this stream"});
  return parameters;
}

/// @brief The CUDA headers the entry point's types need (cuda_fp16.h, cuda_bf16.h, cuda_fp8.h).
inline std::set<std::string> entry_point_includes(const ProblemDescription& p) {
  std::set<std::string> includes;
  auto need = [&](Dtype d) {
    if (d == Dtype::float16) includes.insert("cuda_fp16.h");
    if (d == Dtype::bfloat16) includes.insert("cuda_bf16.h");
    if (d == Dtype::float8_e4m3fn || d == Dtype::float8_e5m2) includes.insert("cuda_fp8.h");
  };
  for (const auto& t : p.inputs)
    if (!t.is_scalar()) need(t.dtype);
  for (const auto& t : p.outputs) need(t.dtype);
  return includes;
}

/// @brief The header's text (see the file comment); it compiles with nvcc, and with a host C++
/// compiler given CUDA's include folder.
inline std::string entry_point_header(const ProblemDescription& p) {
  const std::vector<EntryPointParameter> parameters = entry_point_parameters(p);
  const std::set<std::string> includes = entry_point_includes(p);
  std::string out;
  out += "// Entry point of \"" + p.name + "\" (" + std::string(origin_name(p.origin)) +
         "), generated by `socratic problem header`.\n";
  out += "// Destination-passing: inputs (tensors const, scalars by value), then outputs written in place,\n";
  out += "// then the var axes, then the stream. Tensors are contiguous, row-major, on the GPU.\n";
  std::string fixed;
  for (const auto& a : p.axes) {
    if (a.kind == AxisKind::constant) fixed += (fixed.empty() ? "" : ", ") + a.name + " = " + std::to_string(a.value);
    if (a.kind == AxisKind::expression) fixed += (fixed.empty() ? "" : ", ") + a.name + " = " + a.expression;
  }
  if (!fixed.empty()) out += "// Fixed axes: " + fixed + ".\n";
  for (const auto& c : p.constraints) out += "// Constraint: " + c + "\n";
  out += "#pragma once\n#include <cstdint>\n#include <cuda_runtime.h>\n";
  for (const auto& i : includes) out += "#include <" + i + ">\n";
  out += "\nextern \"C\" void " + entry_point_name(p) + "(\n";
  std::size_t width = 0;
  for (const auto& prm : parameters) width = std::max(width, prm.declaration().size() + 1);
  for (std::size_t i = 0; i < parameters.size(); ++i) {
    const bool last = i + 1 == parameters.size();
    std::string line = "    " + parameters[i].declaration() + (last ? ");" : ",");
    line.resize(std::max(line.size(), width + 6), ' ');
    out += line + "  // " + parameters[i].comment + "\n";
  }
  return out;
}

}  // namespace socratic::suite

namespace socratic::suite {

/// @brief A candidate to start from when there is no baseline: the header's text (without
/// `#pragma once`) and an empty definition of the entry point, which compiles and computes nothing.
inline std::string entry_point_skeleton(const ProblemDescription& p) {
  std::string header = entry_point_header(p);
  if (const auto at = header.find("#pragma once\n"); at != std::string::npos) header.erase(at, 13);
  std::string parameters;
  for (const auto& prm : entry_point_parameters(p)) parameters += (parameters.empty() ? "" : ",\n    ") + prm.declaration();
  return header + "\n// The candidate: launch its kernels on `stream`; write every output in place.\nextern \"C\" void " +
         entry_point_name(p) + "(\n    " + parameters + ") {\n  // TODO: the computation of the reference (docs/problems.md)\n}\n";
}

}  // namespace socratic::suite
