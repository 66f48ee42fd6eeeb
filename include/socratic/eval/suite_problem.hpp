#pragma once
/// @file
/// @brief A problem taken where it lies (issue 38): a SOL-ExecBench / FlashInfer-Bench folder
/// (definition.json, workload.jsonl, reference.py), a KernelBench file (through the describer,
/// kernels/harness/python/kernelbench_describe.py) or a folder in Socratic's own format
/// (problem.json), recognised from the path the judge is given instead of a registry name.
/// Heavy for KernelBench files (a Python process).

#include <chrono>
#include <cstdlib>
#include <algorithm>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "socratic/core/error.hpp"
#include "socratic/core/json.hpp"
#include "socratic/eval/problem_registry.hpp"
#include "socratic/process/run_process.hpp"
#include "socratic/suite/blob_path.hpp"
#include "socratic/suite/problem_description.hpp"
#include "socratic/suite/sol_loader.hpp"

namespace socratic {

/// @brief How a problem on disk is written.
enum class ProblemPathFormat { sol_folder, trace_set_definition, kernelbench_file, native_folder };

constexpr std::string_view problem_path_format_name(ProblemPathFormat f) {
  switch (f) {
    case ProblemPathFormat::sol_folder: return "SOL-ExecBench/FlashInfer-Bench folder";
    case ProblemPathFormat::trace_set_definition: return "FlashInfer-Bench TraceSet definition";
    case ProblemPathFormat::kernelbench_file: return "KernelBench file";
    case ProblemPathFormat::native_folder: return "Socratic problem folder";
  }
  return "?";
}

/// @brief What the judge's baseline is: a native CUDA source with the typed entry point, or the
/// problem's PyTorch reference, eager or under torch.compile, timed by the runner in the reference
/// worker (docs/harness.md, "A PyTorch baseline").
enum class BaselineKind { native_cuda, pytorch_eager, pytorch_compile };

/// @brief The runner's word for a PyTorch baseline (its --baseline), empty for a native one.
constexpr std::string_view runner_baseline_word(BaselineKind k) {
  switch (k) {
    case BaselineKind::pytorch_eager: return "pytorch_eager";
    case BaselineKind::pytorch_compile: return "pytorch_compile";
    case BaselineKind::native_cuda: return "";
  }
  return "";
}

/// @brief The baseline a `--baseline` value names: the words pytorch_eager and pytorch_compile,
/// or nothing (a source file).
inline std::optional<BaselineKind> pytorch_baseline_named(std::string_view word) {
  if (word == "pytorch_eager") return BaselineKind::pytorch_eager;
  if (word == "pytorch_compile") return BaselineKind::pytorch_compile;
  return std::nullopt;
}

/// @brief The format of the problem at `path`; throws input_error saying what was expected.
inline ProblemPathFormat problem_path_format(const std::filesystem::path& path) {
  namespace fs = std::filesystem;
  if (fs::is_directory(path)) {
    if (fs::is_regular_file(path / "definition.json")) return ProblemPathFormat::sol_folder;
    if (fs::is_regular_file(path / "problem.json")) return ProblemPathFormat::native_folder;
    throw input_error(path.string(), {},
                      "not a problem folder: expected definition.json (SOL-ExecBench, FlashInfer-Bench) or "
                      "problem.json (Socratic's own format)");
  }
  if (fs::is_regular_file(path) && path.extension() == ".py") return ProblemPathFormat::kernelbench_file;
  if (suite::is_trace_set_definition(path)) return ProblemPathFormat::trace_set_definition;
  if (!fs::exists(path)) throw input_error(path.string(), {}, "no such problem file or folder");
  throw input_error(path.string(), {}, "not a problem: expected a folder, a KernelBench .py file or a definition "
                                       "in a FlashInfer-Bench TraceSet (ROOT/definitions/...json beside ROOT/workloads/)");
}

/// @brief A suite problem as the judge uses it.
struct SuiteProblem {
  std::filesystem::path path;  ///< absolute
  ProblemPathFormat format = ProblemPathFormat::sol_folder;
  suite::ProblemDescription description;
  /// What the reference worker loads (`definition` of the resolved workload): definition.json,
  /// or the KernelBench file.
  std::filesystem::path definition;
  std::vector<std::filesystem::path> files;  ///< the problem's files (the integrity manifest)
  std::optional<std::filesystem::path> baseline;  ///< baseline.cu beside the definition, if any
};

/// @brief The interpreter `name` on PATH (absolute paths are kept), or `name` when not found.
inline std::filesystem::path find_on_path(const std::string& name) {
  if (name.empty() || name.find('/') != std::string::npos) return name;
  const char* path = std::getenv("PATH");
  std::string_view dirs = path ? path : "/usr/local/bin:/usr/bin:/bin";
  while (!dirs.empty()) {
    const auto colon = dirs.find(':');
    const std::filesystem::path candidate = std::filesystem::path(std::string(dirs.substr(0, colon))) / name;
    std::error_code ec;
    if (std::filesystem::is_regular_file(candidate, ec)) return candidate;
    if (colon == std::string_view::npos) break;
    dirs.remove_prefix(colon + 1);
  }
  return name;
}

/// @brief A KernelBench file through the describer (`python describer FILE` prints
/// `{"definition": ..., "workloads": [...]}`, on meta tensors). Throws input_error naming the file.
inline suite::ProblemDescription describe_kernelbench_file(const std::filesystem::path& file,
                                                           const std::filesystem::path& describer,
                                                           const std::filesystem::path& python) {
  if (!std::filesystem::is_regular_file(describer))
    throw input_error(file.string(), {}, "a KernelBench file needs the describer, and " + describer.string() + " is absent");
  ProcessOptions options;
  options.timeout = std::chrono::minutes(2);
  const ProcessResult r = run_process({python.string(), describer.string(), file.string()}, options);
  if (!r.ok()) {
    std::string last = r.stderr_text;
    while (!last.empty() && last.back() == '\n') last.pop_back();
    if (auto nl = last.rfind('\n'); nl != std::string::npos) last = last.substr(nl + 1);
    // The most common first-hour failure: the python3 found first lacks PyTorch.
    const std::string hint = last.find("No module named 'torch'") != std::string::npos
                                 ? " (" + python.string() + " has no PyTorch: set SOCRATIC_REFERENCE_PYTHON to a Python "
                                   "that imports torch, e.g. Debian's /usr/bin/python3 with python3-torch)"
                                 : std::string();
    throw input_error(file.string(), {}, "the KernelBench describer failed (" + r.describe() + ")" +
                                             (last.empty() ? "" : ": " + last) + hint);
  }
  suite::ordered_json described;
  try {
    described = suite::ordered_json::parse(r.stdout_text);
  } catch (const suite::ordered_json::parse_error& e) {
    throw input_error(file.string(), {}, std::string("the KernelBench describer printed no JSON: ") + e.what());
  }
  return suite::describe_problem(described, file.string(), suite::ProblemOrigin::kernelbench);
}

/// @brief Loads the SOL folder or KernelBench file at `path` (a native folder is the registry's
/// business: problem_registry.hpp's load_problem_spec). `data_dir` holds kernels/harness/python;
/// `python` runs the describer.
inline SuiteProblem load_suite_problem(const std::filesystem::path& path, const std::filesystem::path& data_dir,
                                       const std::filesystem::path& python) {
  namespace fs = std::filesystem;
  SuiteProblem s;
  s.path = fs::absolute(path).lexically_normal();
  if (s.path.filename().empty()) s.path = s.path.parent_path();  // a trailing slash
  s.format = problem_path_format(s.path);
  if (s.format == ProblemPathFormat::native_folder)
    throw input_error(s.path.string(), {}, "a folder in Socratic's own format is loaded by the registry, not as a suite problem");
  if (s.format == ProblemPathFormat::sol_folder) {
    s.description = suite::load_problem_folder(s.path);
    s.definition = s.path / "definition.json";
    for (const char* name : {"definition.json", "workload.jsonl", "reference.py", suite::sol_times_file})
      if (fs::is_regular_file(s.path / name)) s.files.push_back(s.path / name);
    // The workloads' safetensors files: the reference worker loads them into the judge's inputs.
    for (const auto& w : s.description.workloads)
      for (const auto& [name, source] : w.inputs)
        if (source.kind == suite::InputSourceKind::safetensors) {
          const std::optional<fs::path> file = suite::find_blob(source.path, s.path);
          if (file && std::find(s.files.begin(), s.files.end(), *file) == s.files.end()) s.files.push_back(*file);
        }
    if (fs::is_regular_file(s.path / "baseline.cu")) s.baseline = s.path / "baseline.cu";
  } else if (s.format == ProblemPathFormat::trace_set_definition) {
    s.description = suite::load_trace_set_definition(s.path);
    s.definition = s.path;
    s.files.push_back(s.path);
    for (const auto& f : suite::trace_set_workload_files(s.path)) s.files.push_back(f);
    for (const auto& w : s.description.workloads)
      for (const auto& [name, source] : w.inputs)
        if (source.kind == suite::InputSourceKind::safetensors)
          if (const auto file = suite::find_blob(source.path, s.path.parent_path());
              file && std::find(s.files.begin(), s.files.end(), *file) == s.files.end())
            s.files.push_back(*file);
    const fs::path beside = s.path.parent_path() / (s.path.stem().string() + ".baseline.cu");
    if (fs::is_regular_file(beside)) s.baseline = beside;
  } else {
    s.description = describe_kernelbench_file(
        s.path, data_dir / "kernels" / "harness" / "python" / "kernelbench_describe.py", python);
    s.definition = s.path;
    s.files.push_back(s.path);
    const fs::path beside = s.path.parent_path() / (s.path.stem().string() + ".baseline.cu");
    if (fs::is_regular_file(beside)) s.baseline = beside;
  }
  return s;
}

}  // namespace socratic
