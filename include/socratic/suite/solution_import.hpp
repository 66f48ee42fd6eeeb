#pragma once
/// @file
/// @brief A SOL-ExecBench solution (its `docs/solution.md`: `spec` + `sources`) taken as a
/// candidate (issue 38 item 4): accepted when one of its C++ sources defines the C entry point
/// that `socratic problem header` prints (what `socratic problem export` writes: the kernel
/// beside a generated torch binding, which is dropped), refused otherwise with the file, the
/// languages and binding found, the reason and the way to adapt it (docs/problems.md, "A
/// SOL-ExecBench solution as a candidate"). Strings only: the caller writes the files.

#include <algorithm>
#include <cctype>
#include <string>
#include <utility>
#include <vector>

#include "socratic/core/error.hpp"
#include "socratic/suite/entry_point_header.hpp"
#include "socratic/suite/problem_description.hpp"
#include "socratic/suite/sol_loader.hpp"

namespace socratic::suite {

/// @brief What a SOL-ExecBench solution becomes as a candidate.
struct ImportedSolution {
  std::string name;        ///< the solution's `name`
  std::string entry_file;  ///< the source (a `sources` path) that defines the C entry point
  /// The sources the candidate is built from, as `{path, content}`: every source but the torch
  /// binding's files (the adapter includes `entry_file`, which may include the others).
  std::vector<std::pair<std::string, std::string>> files;
  std::vector<std::string> notes;  ///< what was left out (the binding, compile options), one sentence each
};

/// @brief Whether `j` has the shape of a SOL-ExecBench solution (an object with `spec` and `sources`).
inline bool is_sol_solution(const ordered_json& j) {
  return j.is_object() && j.contains("spec") && j.contains("sources");
}

namespace detail::solution_import {

inline bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

inline bool is_cpp_source(const std::string& path) {
  for (const char* e : {".cu", ".cpp", ".cc", ".cxx", ".c"})
    if (ends_with(path, e)) return true;
  return false;
}

/// A source that needs libtorch (the torch binding, or code written against ATen).
inline bool uses_torch(const std::string& content) {
  for (const char* s : {"torch/extension.h", "<torch/", "\"torch/", "<ATen/", "\"ATen/", "PYBIND11_MODULE", "pybind11/"})
    if (content.find(s) != std::string::npos) return true;
  return false;
}

/// The C entry point `name` defined here (not only declared, as a binding declares it):
/// `extern "C"` in the file, and `name(...)` followed by a body.
inline bool defines_entry_point(const std::string& content, const std::string& name) {
  if (content.find("extern \"C\"") == std::string::npos) return false;
  auto skip_space = [&](std::size_t i) {
    while (i < content.size() && std::isspace(static_cast<unsigned char>(content[i]))) ++i;
    return i;
  };
  for (std::size_t at = content.find(name); at != std::string::npos; at = content.find(name, at + 1)) {
    const bool starts = at == 0 || !(std::isalnum(static_cast<unsigned char>(content[at - 1])) || content[at - 1] == '_');
    std::size_t i = skip_space(at + name.size());
    if (!starts || i >= content.size() || content[i] != '(') continue;
    int depth = 0;
    for (; i < content.size(); ++i) {
      if (content[i] == '(') ++depth;
      else if (content[i] == ')' && --depth == 0) break;
    }
    i = skip_space(i + 1);
    if (i < content.size() && content[i] == '{') return true;
  }
  return false;
}

inline std::string quoted_list(const std::vector<std::string>& v) {
  std::string out = "[";
  for (std::size_t i = 0; i < v.size(); ++i) out += (i ? ", " : "") + ("\"" + v[i] + "\"");
  return out + "]";
}

}  // namespace detail::solution_import

/// @brief Where docs/problems.md explains how to adapt a solution the judge refuses.
inline constexpr const char* solution_adaptation_doc = "docs/problems.md, \"A SOL-ExecBench solution as a candidate\"";

/// @brief `j` (read from `file`) as a candidate for `p`. Throws input_error naming `file`, the
/// field, what was found and why it is refused, with the way to adapt it.
inline ImportedSolution import_sol_solution(const ordered_json& j, const ProblemDescription& p, const std::string& file) {
  using namespace detail::solution_import;
  const suite::detail::DocumentPlace at{file, {}};
  if (!is_sol_solution(j))
    at.fail("", "not a SOL-ExecBench solution: expected an object with \"spec\" and \"sources\" (its docs/solution.md)");
  ImportedSolution out;
  out.name = suite::detail::string_field(j, "name", at, "", false);
  const std::string definition = suite::detail::string_field(j, "definition", at, "", false);
  if (!definition.empty() && definition != p.name)
    at.fail("definition", "the solution is for \"" + definition + "\", and the problem is \"" + p.name + "\"");
  const ordered_json& spec = j.at("spec");
  if (!spec.is_object()) at.fail("spec", "expected an object, found " + suite::detail::kind_of(spec));
  std::vector<std::string> languages;
  if (const ordered_json* l = suite::detail::member(spec, "languages")) {
    if (!l->is_array()) at.fail("spec.languages", "expected a list of strings, found " + suite::detail::kind_of(*l));
    for (const auto& x : *l) {
      if (!x.is_string()) at.fail("spec.languages", "expected a list of strings, found " + x.dump());
      languages.push_back(x.get<std::string>());
    }
  }
  if (languages.empty()) at.fail("spec.languages", "missing: SOL-ExecBench names the solution's languages");
  const std::string entry_point = suite::detail::string_field(spec, "entry_point", at, "spec.", false);
  const ordered_json* binding_json = suite::detail::member(spec, "binding");
  const std::string binding = binding_json && binding_json->is_string() ? binding_json->get<std::string>() : "torch";
  const std::string found = "languages " + quoted_list(languages) + ", binding \"" + binding + "\"" +
                            (entry_point.empty() ? std::string() : ", entry point \"" + entry_point + "\"");
  const std::string entry = entry_point_name(p);
  const std::string adapt = "; adapt it as " + std::string(solution_adaptation_doc) + " says: expose the kernel as `extern \"C\" void " +
                            entry + "(...)` with the parameters `socratic problem header " + p.source +
                            "` prints, in a .cu file without torch headers";
  static const std::vector<std::string> python{"pytorch", "triton", "cute_dsl", "cutile", "cudnn_frontend"};
  for (const auto& l : languages)
    if (std::find(python.begin(), python.end(), l) != python.end())
      at.fail("spec.languages", "found " + found + ": a Python solution, and the judge runs a CUDA C++ candidate through "
                                "its C entry point in a sandboxed worker without Python" + adapt);

  const ordered_json& sources = j.at("sources");
  if (!sources.is_array()) at.fail("sources", "expected a list of {path, content}, found " + suite::detail::kind_of(sources));
  std::vector<std::pair<std::string, std::string>> all;
  for (std::size_t i = 0; i < sources.size(); ++i) {
    const std::string where = "sources[" + std::to_string(i) + "].";
    const ordered_json& s = sources[i];
    if (!s.is_object()) at.fail("sources[" + std::to_string(i) + "]", "expected {path, content}, found " + suite::detail::kind_of(s));
    const std::string path = suite::detail::string_field(s, "path", at, where, true);
    const std::string content = suite::detail::string_field(s, "content", at, where, true);
    if (path.empty() || path.front() == '/' || path.find("..") != std::string::npos || path.find('\\') != std::string::npos)
      at.fail(where + "path", "\"" + path + "\" is not a relative path inside the solution");
    for (const auto& other : all)
      if (other.first == path) at.fail(where + "path", "\"" + path + "\" is given twice");
    all.emplace_back(path, content);
  }
  // The file that defines the C entry point; the torch binding's files are left out.
  std::vector<std::string> defining, torch_files;
  for (const auto& [path, content] : all) {
    if (defines_entry_point(content, entry)) defining.push_back(path);
    if (uses_torch(content)) torch_files.push_back(path);
  }
  if (defining.empty())
    at.fail("sources", "found " + found + " and no source that defines the C entry point `extern \"C\" void " + entry +
                           "(...)`: the torch binding passes torch::Tensor arguments, which need libtorch and Python in "
                           "the judged worker, and the judge's worker loads only a CUDA C++ candidate's C entry point" +
                           adapt);
  if (defining.size() > 1) at.fail("sources", "the C entry point " + entry + " is defined in " + quoted_list(defining) + ": give it once");
  out.entry_file = defining.front();
  const std::string& entry_content =
      std::find_if(all.begin(), all.end(), [&](const auto& f) { return f.first == out.entry_file; })->second;
  if (uses_torch(entry_content))
    at.fail("sources", "found " + found + ": " + out.entry_file + " defines the C entry point " + entry +
                           " and includes torch or pybind11 headers, which need libtorch in the judged worker" + adapt);
  for (const auto& [path, content] : all) {
    if (std::find(torch_files.begin(), torch_files.end(), path) != torch_files.end()) {
      out.notes.push_back(path + " uses torch (the binding): left out, the judge calls " + entry + " itself");
      continue;
    }
    // One translation unit: another compiled source must be included by the entry file.
    if (path != out.entry_file && is_cpp_source(path) && entry_content.find(path) == std::string::npos)
      at.fail("sources", "found " + found + ": " + path + " is compiled on its own, and the judge builds one translation unit " +
                             "(the adapter includes " + out.entry_file + "): #include \"" + path + "\" from " +
                             out.entry_file + ", or merge the two");
    out.files.emplace_back(path, content);
  }
  if (const ordered_json* o = suite::detail::member(spec, "compile_options"); o && o->is_object() && !o->empty())
    out.notes.push_back("spec.compile_options are not applied: the judge builds with its own flags (--nvcc-flag adds more)");
  return out;
}

}  // namespace socratic::suite
