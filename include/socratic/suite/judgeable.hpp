#pragma once
/// @file
/// @brief Whether the GPU judge can run a described problem, and why not: a dtype the GPU has no
/// arithmetic for (fp4), an input the judge's runner cannot make (a `custom`, `safetensors` or
/// random Python scalar: resolved_workload_writer.hpp), or a `safetensors` file that is not found
/// (blob_path.hpp) refuses the problem with the reason.

#include <filesystem>
#include <optional>
#include <string>

#include "socratic/suite/blob_path.hpp"
#include "socratic/suite/problem_description.hpp"
#include "socratic/suite/resolved_workload_writer.hpp"

namespace socratic::suite {

/// @brief Why `p` cannot be judged on the judge's GPU, or nothing when it can.
inline std::optional<std::string> not_judgeable_reason(const ProblemDescription& p) {
  if (!p.outputs_unknown.empty()) return "its outputs are unknown: " + p.outputs_unknown;
  for (const char* role : {"inputs", "outputs"})
    for (const auto& t : std::string(role) == "inputs" ? p.inputs : p.outputs)
      if (auto why = dtype_not_runnable_reason(t.dtype)) return std::string(role) + "." + t.name + ": " + *why;
  for (const auto& w : p.workloads)
    if (auto why = input_refusal_reason(p, w)) return *why;
  // The safetensors inputs of a problem on disk (a folder, or a TraceSet's definition file): each
  // file must be found (blob_path.hpp), or no workload can run.
  std::error_code ec;
  const std::filesystem::path at(p.source);
  const std::filesystem::path dir = std::filesystem::is_directory(at, ec) ? at : at.parent_path();
  if (!p.source.empty() && std::filesystem::exists(at, ec))
    for (const auto& w : p.workloads)
      for (const auto& [name, source] : w.inputs)
        if (source.kind == InputSourceKind::safetensors && !find_blob(source.path, dir))
          return "workload \"" + w.uuid + "\": inputs." + name + ": " + blob_not_found(source.path, dir);
  return std::nullopt;
}

}  // namespace socratic::suite
