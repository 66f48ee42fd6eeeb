#pragma once
/// @file
/// @brief Whether the GPU judge can run a described problem, and why not: a dtype the GPU has no
/// arithmetic for (fp4), or an input the judge's runner cannot make (`custom`, `safetensors`, a
/// random Python scalar: resolved_workload_writer.hpp) refuses the problem with the reason.

#include <optional>
#include <string>

#include "socratic/suite/problem_description.hpp"
#include "socratic/suite/resolved_workload_writer.hpp"

namespace socratic::suite {

/// @brief Why `p` cannot be judged on the judge's GPU, or nothing when it can.
inline std::optional<std::string> not_judgeable_reason(const ProblemDescription& p) {
  if (!p.learned_parameters.empty()) {
    std::string list;
    for (std::size_t i = 0; i < p.learned_parameters.size() && i < 4; ++i)
      list += (list.empty() ? "" : ", ") + p.learned_parameters[i];
    if (p.learned_parameters.size() > 4) list += ", ...";
    return "the Model has " + std::to_string(p.learned_parameters.size()) + " learned parameter(s) (" + list +
           "), which the reference builds from its seed and a C entry point is not given";
  }
  for (const char* role : {"inputs", "outputs"})
    for (const auto& t : std::string(role) == "inputs" ? p.inputs : p.outputs)
      if (auto why = dtype_not_runnable_reason(t.dtype)) return std::string(role) + "." + t.name + ": " + *why;
  for (const auto& w : p.workloads)
    if (auto why = input_refusal_reason(p, w)) return *why;
  return std::nullopt;
}

}  // namespace socratic::suite
