// socratic problem list DIR [--json]: one line per problem found under DIR (SOL-ExecBench /
//   FlashInfer-Bench folders, KernelBench files), malformed ones with their error.
// socratic problem check PATH: a dry run: parses, makes every workload concrete (axes, shapes,
//   bytes, FLOPs), prints the entry point's header; exit 0 when judgeable.
// socratic problem header PATH: the entry point's C header.
// socratic problem export PATH --candidate FILE.cu -o OUT: the candidate in the suite's own
//   solution format (a SOL-ExecBench solution.json with a torch binding, a KernelBench ModelNew
//   file), for the suite's own harness.
// None of them needs a GPU or allocates a tensor.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <optional>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "command.hpp"
#include "data_dir.hpp"
#include "problems.hpp"
#include "socratic/process/run_process.hpp"
#include "socratic/suite/concrete_workload.hpp"
#include "socratic/suite/entry_point_header.hpp"
#include "socratic/suite/judgeable.hpp"
#include "socratic/suite/sol_loader.hpp"
#include "socratic/suite/solution_export.hpp"

namespace {

namespace fs = std::filesystem;
using namespace socratic;
using namespace socratic::tool;
using namespace socratic::suite;

/// The formats `problem` recognises on disk.
enum class ProblemFormat { sol_folder, trace_set_definition, kernelbench_file };

/// What `list` and `check` learn about one path.
struct FoundProblem {
  fs::path path;
  ProblemFormat format = ProblemFormat::sol_folder;
  std::optional<ProblemDescription> description;
  std::string error;        ///< why it could not be read (the problem is then not judgeable)
  std::string not_judgeable;  ///< why it cannot be judged; empty when it can
};

std::string format_name(const FoundProblem& f) {
  if (f.format == ProblemFormat::kernelbench_file) return "kernelbench";
  if (f.format == ProblemFormat::trace_set_definition) return "flashinfer_bench";
  return f.description ? std::string(origin_name(f.description->origin)) : "sol_execbench";
}

/// A KernelBench problem: a Python file that defines `class Model`.
bool is_kernelbench_file(const fs::path& p) {
  if (p.extension() != ".py" || !fs::is_regular_file(p)) return false;
  std::ifstream in(p);
  static const std::regex model_class(R"(^class\s+Model\s*[(:])");
  for (std::string line; std::getline(in, line);)
    if (std::regex_search(line, model_class)) return true;
  return false;
}

fs::path kernelbench_describer() { return data_dir() / "kernels" / "harness" / "python" / "kernelbench_describe.py"; }

/// A KernelBench file through the describer (kernels/harness/python/kernelbench_describe.py) when
/// the data folder has it; otherwise not judgeable yet.
void describe_kernelbench(FoundProblem& f) {
  const fs::path script = kernelbench_describer();
  if (!fs::is_regular_file(script)) {
    f.not_judgeable = "not yet: needs the KernelBench describer (" + script.string() + " is absent)";
    return;
  }
  // The judge's own loader (eval/suite_problem.hpp), with the judge's Python.
  f.description = describe_kernelbench_file(f.path, script, reference_python());
}

FoundProblem examine(const fs::path& path) {
  FoundProblem f;
  f.path = path;
  f.format = is_sol_problem_folder(path)         ? ProblemFormat::sol_folder
             : is_trace_set_definition(path) ? ProblemFormat::trace_set_definition
                                             : ProblemFormat::kernelbench_file;
  try {
    if (f.format == ProblemFormat::sol_folder)
      f.description = load_problem_folder(path);
    else if (f.format == ProblemFormat::trace_set_definition)
      f.description = load_trace_set_definition(path);
    else
      describe_kernelbench(f);
  } catch (const input_error& e) {
    f.error = e.what();
  }
  if (!f.error.empty()) f.not_judgeable = "malformed: " + f.error;
  if (f.description)
    if (auto why = not_judgeable_reason(*f.description)) f.not_judgeable = *why;
  return f;
}

/// Every problem under `dir`, in path order (a problem folder is not searched further; a
/// FlashInfer-Bench TraceSet gives each of its definitions).
std::vector<fs::path> find_problems(const fs::path& dir) {
  std::vector<fs::path> out;
  if (is_sol_problem_folder(dir)) return {dir};
  if (is_trace_set(dir)) {
    std::error_code ec;
    for (auto it = fs::recursive_directory_iterator(dir / "definitions", ec); !ec && it != fs::recursive_directory_iterator();
         it.increment(ec))
      if (it->path().extension() == ".json" && it->is_regular_file(ec)) out.push_back(it->path());
    std::sort(out.begin(), out.end());
    return out;
  }
  std::vector<fs::path> entries;
  for (const auto& e : fs::directory_iterator(dir)) entries.push_back(e.path());
  std::sort(entries.begin(), entries.end());
  for (const auto& p : entries) {
    if (fs::is_directory(p)) {
      const auto below = find_problems(p);
      out.insert(out.end(), below.begin(), below.end());
    } else if (is_kernelbench_file(p)) {
      out.push_back(p);
    }
  }
  return out;
}

std::string dtypes_of(const ProblemDescription& p) {
  std::vector<std::string> names;
  for (const auto* list : {&p.inputs, &p.outputs})
    for (const auto& t : *list) {
      const std::string n(dtype_name(t.dtype));
      if (std::find(names.begin(), names.end(), n) == names.end()) names.push_back(n);
    }
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ",") + n;
  return out;
}

json to_json_line(const FoundProblem& f) {
  json j{{"path", f.path.string()},
         {"name", f.description ? f.description->name : f.path.filename().string()},
         {"format", format_name(f)},
         {"judgeable", f.not_judgeable.empty()},
         {"reason", f.not_judgeable}};
  if (!f.error.empty()) j["error"] = f.error;
  if (f.description) {
    const auto& p = *f.description;
    j["workloads"] = p.workloads.size();
    j["inputs"] = p.inputs.size();
    j["outputs"] = p.outputs.size();
    j["dtypes"] = dtypes_of(p);
  }
  return j;
}

struct ProblemListOptions {
  std::string dir;
  bool json = false;
};

int problem_list(const ProblemListOptions& o) {
  if (!fs::is_directory(o.dir)) throw usage_error("problem list: \"" + o.dir + "\" is not a folder");
  json lines = json::array();
  std::size_t judgeable = 0, count = 0;
  for (const auto& path : find_problems(o.dir)) {
    const FoundProblem f = examine(path);
    ++count;
    judgeable += f.not_judgeable.empty();
    if (o.json) {
      lines.push_back(to_json_line(f));
      continue;
    }
    std::cout << f.path.string() << "  " << format_name(f);
    if (f.description) {
      const auto& p = *f.description;
      std::cout << "  workloads " << p.workloads.size() << "  inputs " << p.inputs.size() << "  outputs "
                << p.outputs.size() << "  dtypes " << dtypes_of(p);
    }
    std::cout << "  " << (f.not_judgeable.empty() ? "judgeable" : "not judgeable: " + f.not_judgeable) << "\n";
  }
  if (o.json)
    std::cout << lines.dump(2) << "\n";
  else
    std::cout << count << " problems, " << judgeable << " judgeable\n";
  return exit_ok;
}

std::string dims_text(const ConcreteTensor& t) {
  if (!t.dims) return "scalar";
  std::string out = "[";
  for (std::size_t i = 0; i < t.dims->size(); ++i) out += (i ? ", " : "") + std::to_string((*t.dims)[i]);
  return out + "]";
}

std::string problem_number(double x) {
  std::ostringstream s;
  s << x;
  return s.str();
}

FoundProblem examine_one(const std::string& given) {
  const fs::path path = given;
  if (!is_sol_problem_folder(path) && !is_kernelbench_file(path) && !is_trace_set_definition(path))
    throw usage_error("\"" + given + "\" is neither a problem folder (with definition.json), a definition in a "
                      "FlashInfer-Bench TraceSet (ROOT/definitions/...json beside ROOT/workloads/) nor a KernelBench "
                      "file (a .py defining class Model)");
  return examine(path);
}

int problem_check(const std::string& given) {
  const FoundProblem f = examine_one(given);
  if (!f.description) {
    std::cerr << "socratic problem check: " << (f.error.empty() ? f.not_judgeable : f.error) << "\n";
    return f.error.empty() ? exit_findings : exit_error;
  }
  const ProblemDescription& p = *f.description;
  std::cout << p.name << " (" << format_name(f) << ", correctness rule " << correctness_rule_name(p.rule())
            << ")  " << p.inputs.size() << " inputs, " << p.outputs.size() << " outputs, " << p.workloads.size()
            << " workloads\n";
  for (const auto& w : p.workloads) {
    const ConcreteWorkload c = concretize(p, w);
    std::cout << "  workload " << c.uuid << ":";
    for (const auto& [name, v] : c.axes) std::cout << " " << name << "=" << v;
    std::cout << "\n";
    for (const auto* list : {&c.inputs, &c.outputs})
      for (const auto& t : *list) {
        std::cout << "    " << (list == &c.inputs ? "in  " : "out ") << t.name << " " << dims_text(t) << " "
                  << dtype_name(t.dtype);
        if (list == &c.inputs)
          if (auto it = w.inputs.find(t.name); it != w.inputs.end())
            std::cout << " (" << input_source_name(it->second.kind)
                      << (it->second.kind == InputSourceKind::scalar ? " " + it->second.value.dump() : "") << ")";
        std::cout << "\n";
      }
    std::cout << "    bytes " << c.bytes << ", FLOPs " << (c.flops ? std::to_string(*c.flops) : "unknown");
    if (!c.output_tolerances.empty()) {  // none when the outputs are unknown
      const Tolerance& t = c.output_tolerances.front();
      std::cout << ", tolerance atol " << t.atol << " rtol " << t.rtol << " matched ratio " << t.required_matched_ratio
                << (t.max_error_cap ? ", cap " + problem_number(*t.max_error_cap) : "");
    }
    std::cout << (w.t_sol_ms ? ", T_SOL " + problem_number(*w.t_sol_ms) + " ms" : "") << "\n";
    for (const auto& u : c.unchecked_constraints) std::cout << "    constraint not checked: " << u << "\n";
  }
  std::cout << "\n" << entry_point_header(p) << "\n";
  if (!f.not_judgeable.empty()) {
    std::cout << "not judgeable: " << f.not_judgeable << "\n";
    return exit_findings;
  }
  std::cout << "judgeable\n";
  return exit_ok;
}

int problem_header(const std::string& given) {
  const FoundProblem f = examine_one(given);
  if (!f.description) {
    std::cerr << "socratic problem header: " << (f.error.empty() ? f.not_judgeable : f.error) << "\n";
    return f.error.empty() ? exit_findings : exit_error;
  }
  std::cout << entry_point_header(*f.description);
  return exit_ok;
}

struct ProblemExportOptions {
  std::string path, candidate, out, name, author = "socratic";
  std::vector<std::string> target_hardware;
};

int problem_export(const ProblemExportOptions& o) {
  const FoundProblem f = examine_one(o.path);
  if (!f.description) {
    std::cerr << "socratic problem export: " << (f.error.empty() ? f.not_judgeable : f.error) << "\n";
    return f.error.empty() ? exit_findings : exit_error;
  }
  std::ifstream in(o.candidate, std::ios::binary);
  if (!fs::is_regular_file(o.candidate) || !in)
    throw usage_error("problem export: the candidate \"" + o.candidate + "\" cannot be read");
  ExportCandidate candidate;
  candidate.source.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  candidate.file_name = fs::path(o.candidate).filename().string();
  if (fs::path(candidate.file_name).extension() != ".cu") candidate.file_name = "kernel.cu";
  const bool kernelbench = f.format == ProblemFormat::kernelbench_file;
  fs::path out = o.out;
  if (fs::is_directory(out) || (!o.out.empty() && o.out.back() == '/'))
    out /= kernelbench ? f.path.stem().string() + "_model_new.py" : std::string("solution.json");
  std::string text;
  if (kernelbench) {
    text = kernelbench_model_new(*f.description, candidate);
  } else {
    SolutionJsonOptions s;
    s.name = o.name;
    s.author = o.author;
    if (!o.target_hardware.empty()) s.target_hardware = o.target_hardware;
    text = solution_json(*f.description, candidate, s).dump(2) + "\n";
  }
  if (out.has_parent_path()) fs::create_directories(out.parent_path());
  write_file_atomically(out, text);
  std::cout << "wrote " << out.string() << " ("
            << (kernelbench ? "KernelBench ModelNew file" : "SOL-ExecBench solution.json, cuda_cpp with a torch binding")
            << ")\n";
  if (!f.not_judgeable.empty()) std::cout << "note: socratic cannot judge this problem: " << f.not_judgeable << "\n";
  return exit_ok;
}

command_run problem_setup(CLI::App& app) {
  app.require_subcommand(1);
  auto list_options = std::make_shared<ProblemListOptions>();
  CLI::App* list_app = app.add_subcommand("list", "one line per problem found under a folder");
  list_app->footer(
      "Walks DIR for SOL-ExecBench / FlashInfer-Bench problem folders (definition.json, workload.jsonl),\n"
      "FlashInfer-Bench TraceSets (definitions/, workloads/, blob/: each definition a problem) and\n"
      "KernelBench files (.py defining class Model); prints per problem its format, workloads,\n"
      "inputs/outputs, dtypes and whether it can be judged, or its error. Exit 0 (malformed problems\n"
      "are listed, not fatal), 2 when DIR is not a folder.\n");
  list_app->add_option("DIR", list_options->dir, "the folder to walk")->type_name("")->required();
  add_json_flag(*list_app, list_options->json, "an array of {path, name, format, judgeable, reason, ...}");

  auto check_path = std::make_shared<std::string>();
  CLI::App* check_app = app.add_subcommand("check", "dry-run one problem: axes, shapes, bytes, FLOPs, header");
  check_app->footer(
      "Parses PATH, makes every workload concrete (axes, shapes, bytes, FLOPs where the definition\n"
      "gives them, tolerances) and prints the entry point's header. No GPU, no tensors.\n"
      "Exit: 0 when judgeable, 1 when not (the reason is printed), 2 when malformed.\n");
  check_app->add_option("PATH", *check_path, "a problem folder, a TraceSet definition or a KernelBench file")->type_name("")->required();

  auto header_path = std::make_shared<std::string>();
  CLI::App* header_app = app.add_subcommand("header", "print the C header of a problem's CUDA entry point");
  header_app->footer(
      "extern \"C\", destination-passing: inputs (tensors const, Python scalars by value), outputs,\n"
      "the var axes as int64_t, then a cudaStream_t; each parameter's shape and dtype in a comment.\n");
  header_app->add_option("PATH", *header_path, "a problem folder, a TraceSet definition or a KernelBench file")->type_name("")->required();

  auto export_options = std::make_shared<ProblemExportOptions>();
  CLI::App* export_app = app.add_subcommand("export", "write a candidate in the suite's own solution format");
  export_app->footer(
      "SOL-ExecBench / FlashInfer-Bench folder: OUT is a solution.json (language cuda_cpp, the\n"
      "candidate's source and a generated torch binding binding.cpp::run: inputs then outputs as\n"
      "torch tensors, destination-passing, calling the entry point on the current CUDA stream).\n"
      "KernelBench file: OUT is a Python file defining ModelNew, which compiles the candidate with\n"
      "torch.utils.cpp_extension.load_inline and calls it from forward. OUT a folder: solution.json\n"
      "or NAME_model_new.py inside it. No GPU. Exit 0, 1 when the problem cannot be described,\n"
      "2 when malformed or the candidate cannot be read.\n");
  export_app->add_option("PATH", export_options->path, "a problem folder, a TraceSet definition or a KernelBench file")->type_name("")->required();
  export_app->add_option("--candidate", export_options->candidate, "the CUDA C++ candidate defining the entry point")
      ->type_name("FILE.cu")
      ->required();
  export_app->add_option("-o,--output", export_options->out, "the file (or folder) to write")->type_name("OUT")->required();
  export_app->add_option("--name", export_options->name, "the solution's name (default DEFINITION_socratic)")->type_name("NAME");
  export_app->add_option("--author", export_options->author, "the solution's author (default socratic)")->type_name("NAME");
  export_app->add_option("--target-hardware", export_options->target_hardware,
                         "solution.json's target_hardware, repeatable (default LOCAL; SOL-ExecBench also takes B200)")
      ->type_name("NAME");
  return [=] {
    if (list_app->parsed()) return problem_list(*list_options);
    if (export_app->parsed()) return problem_export(*export_options);
    if (check_app->parsed()) return problem_check(*check_path);
    return problem_header(*header_path);
  };
}

const command_registration problem_registration{
    "problem", "list, check and describe problems from the field's suites", "Judging a kernel", problem_setup};

}  // namespace
