#pragma once
/// @file
/// @brief Reads a problem in SOL-ExecBench / FlashInfer-Bench's format: a folder with
/// `definition.json`, `workload.jsonl` and optionally `reference.py`, or the same definition and
/// workloads as JSON values (what the KernelBench describer prints). Every error names the file,
/// the field path (`inputs.x.dtype`) and, in workload.jsonl, the line.

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "socratic/core/error.hpp"
#include "socratic/core/json.hpp"
#include "socratic/suite/axis_expression.hpp"
#include "socratic/suite/concrete_workload.hpp"
#include "socratic/suite/problem_description.hpp"

namespace socratic::suite {

/// @brief JSON whose objects keep their members' order: a definition's inputs are the entry
/// point's parameters in that order, so definitions must be parsed as ordered_json.
using ordered_json = nlohmann::ordered_json;

namespace detail {

/// Where a document came from: the file (or label) and the prefix of its field paths.
struct DocumentPlace {
  std::string file;
  std::string prefix;  ///< "line 3" in workload.jsonl, "workloads[2]" in a describer's output

  [[noreturn]] void fail(const std::string& field, const std::string& message) const {
    std::string where = prefix;
    if (!field.empty()) where += (where.empty() ? "" : ": ") + field;
    throw input_error(file, where, message);
  }
};

inline std::string kind_of(const ordered_json& j) { return j.type_name(); }

inline const ordered_json* member(const ordered_json& j, const char* key) {
  auto it = j.find(key);
  return it == j.end() || it->is_null() ? nullptr : &*it;
}

inline std::string string_field(const ordered_json& j, const char* key, const DocumentPlace& at,
                                const std::string& path, bool required) {
  const ordered_json* v = member(j, key);
  if (!v) {
    if (required) at.fail(path + key, "missing (a string is required)");
    return {};
  }
  if (!v->is_string()) at.fail(path + key, "expected a string, found " + kind_of(*v));
  return v->get<std::string>();
}

inline std::int64_t positive_integer(const ordered_json& v, const DocumentPlace& at, const std::string& field) {
  if (!v.is_number_integer()) at.fail(field, "expected a whole number, found " + kind_of(v) + " " + v.dump());
  const std::int64_t n = v.get<std::int64_t>();
  if (n <= 0) at.fail(field, "the value " + std::to_string(n) + " is not a positive dimension");
  return n;
}

/// A speed-of-light time in milliseconds: a finite positive number.
inline double positive_time(const ordered_json& v, const DocumentPlace& at, const std::string& field) {
  if (!v.is_number()) at.fail(field, "expected a time in milliseconds (a number), found " + kind_of(v) + " " + v.dump());
  const double t = v.get<double>();
  if (!std::isfinite(t) || t <= 0) at.fail(field, "the time " + v.dump() + " ms is not positive");
  return t;
}

inline TensorSpec parse_tensor(const std::string& name, const ordered_json& j, const DocumentPlace& at,
                               const std::string& path, const ProblemDescription& p) {
  if (!j.is_object()) at.fail(path, "expected an object with \"shape\" and \"dtype\", found " + kind_of(j));
  TensorSpec t;
  t.name = name;
  const std::string dtype = string_field(j, "dtype", at, path + ".", true);
  const auto parsed = parse_dtype(dtype);
  if (!parsed) at.fail(path + ".dtype", "unknown dtype \"" + dtype + "\" (known: " + dtype_names() + ")");
  t.dtype = *parsed;
  if (!j.contains("shape")) at.fail(path + ".shape", "missing (a list of axis names, [] for 0-d, null for a scalar)");
  const ordered_json& shape = j.at("shape");
  if (!shape.is_null()) {
    if (!shape.is_array()) at.fail(path + ".shape", "expected a list of axis names or null, found " + kind_of(shape));
    std::vector<std::string> axes;
    for (std::size_t i = 0; i < shape.size(); ++i) {
      const std::string field = path + ".shape[" + std::to_string(i) + "]";
      if (!shape[i].is_string())
        at.fail(field, "expected an axis name, found " + kind_of(shape[i]) + " " + shape[i].dump() +
                           " (define a const or expr axis and name it)");
      const std::string axis = shape[i].get<std::string>();
      if (!p.find_axis(axis)) at.fail(field, "axis \"" + axis + "\" is not defined in \"axes\"");
      axes.push_back(axis);
    }
    t.shape = std::move(axes);
  }
  t.description = string_field(j, "description", at, path + ".", false);
  return t;
}

inline void check_expression_axes(const std::string& expression, const ProblemDescription& p,
                                  const DocumentPlace& at, const std::string& field) {
  std::vector<std::string> names;
  try {
    names = axis_expression_names(expression);
  } catch (const input_error& e) {
    at.fail(field, e.message());
  }
  for (const auto& n : names)
    if (!p.find_axis(n)) at.fail(field, "expression \"" + expression + "\" uses axis \"" + n + "\", which is not defined in \"axes\"");
}

inline ToleranceOverride parse_tolerance(const ordered_json& j, const DocumentPlace& at, const std::string& path) {
  if (!j.is_object()) at.fail(path, "expected an object, found " + kind_of(j));
  ToleranceOverride o;
  auto number = [&](const char* key, std::optional<double>& out, bool is_ratio) {
    const ordered_json* v = member(j, key);
    if (!v) return;
    if (!v->is_number()) at.fail(path + "." + key, "expected a number, found " + kind_of(*v));
    const double x = v->get<double>();
    if (!(x >= 0) || (is_ratio && x > 1))
      at.fail(path + "." + key, "the value " + v->dump() + (is_ratio ? " is not in [0, 1]" : " is negative"));
    out = x;
  };
  number("max_atol", o.atol, false);
  number("max_rtol", o.rtol, false);
  number("required_matched_ratio", o.required_matched_ratio, true);
  number("max_error_cap", o.max_error_cap, false);
  return o;
}

}  // namespace detail

/// @brief A definition (without workloads) from its JSON: checks every field, every axis an
/// expression or a shape names, the dtypes. `file` names the document in errors.
inline ProblemDescription parse_definition(const ordered_json& j, const std::string& file, ProblemOrigin origin,
                                           const std::string& prefix = {}, bool outputs_may_be_empty = false) {
  const detail::DocumentPlace at{file, prefix};
  if (!j.is_object()) at.fail("", "expected a definition object, found " + detail::kind_of(j));
  ProblemDescription p;
  p.origin = origin;
  p.source = file;
  p.name = detail::string_field(j, "name", at, "", true);
  if (p.name.empty()) at.fail("name", "is empty");
  p.description = detail::string_field(j, "description", at, "", false);
  p.op_type = detail::string_field(j, "op_type", at, "", false);
  if (const ordered_json* tags = detail::member(j, "tags")) {
    if (!tags->is_array()) at.fail("tags", "expected a list of strings, found " + detail::kind_of(*tags));
    for (std::size_t i = 0; i < tags->size(); ++i) {
      if (!(*tags)[i].is_string()) at.fail("tags[" + std::to_string(i) + "]", "expected a string");
      p.tags.push_back((*tags)[i].get<std::string>());
    }
  }
  const ordered_json* axes = detail::member(j, "axes");
  if (!axes) at.fail("axes", "missing (an object of named axes)");
  if (!axes->is_object()) at.fail("axes", "expected an object of named axes, found " + detail::kind_of(*axes));
  for (const auto& [name, a] : axes->items()) {
    const std::string path = "axes." + name;
    if (!a.is_object()) at.fail(path, "expected an object with \"type\", found " + detail::kind_of(a));
    Axis axis;
    axis.name = name;
    const std::string type = detail::string_field(a, "type", at, path + ".", true);
    if (type == "const") {
      axis.kind = AxisKind::constant;
      if (!a.contains("value")) at.fail(path + ".value", "missing (a const axis needs its value)");
      axis.value = detail::positive_integer(a.at("value"), at, path + ".value");
    } else if (type == "var") {
      axis.kind = AxisKind::variable;
    } else if (type == "expr") {
      axis.kind = AxisKind::expression;
      axis.expression = detail::string_field(a, "expression", at, path + ".", true);
    } else {
      at.fail(path + ".type", "unknown axis type \"" + type + "\" (known: const, var, expr)");
    }
    axis.description = detail::string_field(a, "description", at, path + ".", false);
    p.axes.push_back(std::move(axis));
  }
  for (const auto& a : p.axes)
    if (a.kind == AxisKind::expression) detail::check_expression_axes(a.expression, p, at, "axes." + a.name + ".expression");
  // An expr axis may not depend on itself through others (evaluation would never end).
  std::function<void(const Axis&, std::vector<std::string>&)> walk = [&](const Axis& a, std::vector<std::string>& chain) {
    if (a.kind != AxisKind::expression) return;
    for (const auto& seen : chain)
      if (seen == a.name) {
        std::string cycle;
        for (const auto& n : chain) cycle += n + " -> ";
        at.fail("axes." + chain.front() + ".expression", "the expr axes form a cycle: " + cycle + a.name);
      }
    chain.push_back(a.name);
    for (const auto& n : axis_expression_names(a.expression)) walk(*p.find_axis(n), chain);
    chain.pop_back();
  };
  for (const auto& a : p.axes) {
    std::vector<std::string> chain;
    walk(a, chain);
  }
  std::set<std::string> names;
  for (const char* role : {"inputs", "outputs"}) {
    const ordered_json* tensors = detail::member(j, role);
    if (!tensors) at.fail(role, "missing (an object of named tensors)");
    if (!tensors->is_object()) at.fail(role, "expected an object of named tensors, found " + detail::kind_of(*tensors));
    if (std::string(role) == "outputs" && tensors->empty() && !outputs_may_be_empty)
      at.fail(role, "a definition needs at least one output");
    for (const auto& [name, t] : tensors->items()) {
      const std::string path = std::string(role) + "." + name;
      if (!names.insert(name).second) at.fail(path, "\"" + name + "\" is both an input and an output");
      (std::string(role) == "inputs" ? p.inputs : p.outputs).push_back(detail::parse_tensor(name, t, at, path, p));
    }
  }
  p.reference = detail::string_field(j, "reference", at, "", false);
  p.custom_inputs_entrypoint = detail::string_field(j, "custom_inputs_entrypoint", at, "", false);
  if (const ordered_json* constraints = detail::member(j, "constraints")) {
    if (!constraints->is_array()) at.fail("constraints", "expected a list of strings, found " + detail::kind_of(*constraints));
    for (std::size_t i = 0; i < constraints->size(); ++i) {
      const std::string field = "constraints[" + std::to_string(i) + "]";
      if (!(*constraints)[i].is_string()) at.fail(field, "expected a string");
      const std::string c = (*constraints)[i].get<std::string>();
      // A relation between axes must name axes; one over a tensor's values is carried for the
      // reference to assert (axis_constraint).
      if (const auto parts = axis_constraint(c, p)) {
        detail::check_expression_axes(parts->left, p, at, field);
        detail::check_expression_axes(parts->right, p, at, field);
      }
      p.constraints.push_back(c);
    }
  }
  if (const ordered_json* flops = detail::member(j, "flops")) {
    if (!flops->is_string()) at.fail("flops", "expected an expression over the axes, found " + detail::kind_of(*flops));
    p.flops = flops->get<std::string>();
    detail::check_expression_axes(*p.flops, p, at, "flops");
  }
  return p;
}

/// @brief One workload of `p` from its JSON (a workload object, or a FlashInfer trace line with
/// a `workload` member). `prefix` places it ("line 3"); `line` is kept on the workload.
inline Workload parse_workload(const ordered_json& line_json, const ProblemDescription& p, const std::string& file,
                               const std::string& prefix, std::size_t line = 0) {
  detail::DocumentPlace at{file, prefix};
  const ordered_json* body = &line_json;
  if (line_json.is_object() && line_json.contains("workload") && line_json.at("workload").is_object()) {
    const std::string named = detail::string_field(line_json, "definition", at, "", false);
    if (!named.empty() && named != p.name)
      at.fail("definition", "names \"" + named + "\", but the definition is \"" + p.name + "\"");
    body = &line_json.at("workload");
  }
  const ordered_json& j = *body;
  if (!j.is_object()) at.fail("", "expected a workload object, found " + detail::kind_of(j));
  Workload w;
  w.line = line;
  w.uuid = detail::string_field(j, "uuid", at, "", true);
  if (w.uuid.empty()) at.fail("uuid", "is empty");
  at.prefix += (at.prefix.empty() ? "" : " ") + std::string("(workload \"") + w.uuid + "\")";
  const ordered_json* axes = detail::member(j, "axes");
  if (axes && !axes->is_object()) at.fail("axes", "expected an object of var axis values, found " + detail::kind_of(*axes));
  if (axes)
    for (const auto& [name, v] : axes->items()) {
      const Axis* a = p.find_axis(name);
      if (!a) at.fail("axes." + name, "\"" + name + "\" is not an axis of \"" + p.name + "\"");
      const std::int64_t n = detail::positive_integer(v, at, "axes." + name);
      if (a->kind == AxisKind::constant && n != a->value)
        at.fail("axes." + name, "is the const axis of value " + std::to_string(a->value) + ", not " + std::to_string(n));
      if (a->kind == AxisKind::expression) at.fail("axes." + name, "is an expr axis; a workload sets var axes only");
      if (a->kind == AxisKind::variable) w.axes[name] = n;
    }
  for (const auto& a : p.axes)
    if (a.kind == AxisKind::variable && !w.axes.count(a.name))
      at.fail("axes." + a.name, "missing: the var axis \"" + a.name + "\" needs a value in every workload");
  const ordered_json* inputs = detail::member(j, "inputs");
  if (inputs && !inputs->is_object()) at.fail("inputs", "expected an object of input sources, found " + detail::kind_of(*inputs));
  std::size_t custom = 0;
  if (inputs)
    for (const auto& [name, d] : inputs->items()) {
      const std::string path = "inputs." + name;
      const TensorSpec* t = p.find_input(name);
      if (!t) at.fail(path, "\"" + name + "\" is not an input of \"" + p.name + "\"");
      if (!d.is_object()) at.fail(path, "expected an object with \"type\", found " + detail::kind_of(d));
      InputSource s;
      const std::string type = detail::string_field(d, "type", at, path + ".", true);
      if (type == "random") {
        s.kind = InputSourceKind::random;
      } else if (type == "scalar") {
        s.kind = InputSourceKind::scalar;
        const ordered_json* v = detail::member(d, "value");
        if (!v || !(v->is_number() || v->is_boolean()))
          at.fail(path + ".value", "a scalar input needs a number or a bool value");
        if (t->shape && !t->shape->empty())
          at.fail(path + ".type", "\"scalar\" given for a tensor of rank " + std::to_string(t->shape->size()));
        s.value = json::parse(v->dump());
      } else if (type == "safetensors") {
        s.kind = InputSourceKind::safetensors;
        s.path = detail::string_field(d, "path", at, path + ".", true);
        s.tensor_key = detail::string_field(d, "tensor_key", at, path + ".", true);
      } else if (type == "custom") {
        s.kind = InputSourceKind::custom;
        ++custom;
      } else if (type == "model_state" && p.origin == ProblemOrigin::kernelbench) {
        // The describer's: a tensor of the Model's state, filled by the reference worker.
        s.kind = InputSourceKind::model_state;
        s.state_key = detail::string_field(d, "key", at, path + ".", true);
        if (t->is_scalar()) at.fail(path + ".type", "\"model_state\" given for a Python scalar");
      } else {
        at.fail(path + ".type", "unknown input type \"" + type + "\" (known: random, scalar, safetensors, custom)");
      }
      w.inputs[name] = std::move(s);
    }
  if (custom) {
    if (custom != p.inputs.size() || w.inputs.size() != p.inputs.size())
      at.fail("inputs", "\"custom\" inputs must be all of the inputs (" + std::to_string(custom) + " of " +
                            std::to_string(p.inputs.size()) + " are)");
    if (p.custom_inputs_entrypoint.empty())
      at.fail("inputs", "\"custom\" inputs need the definition's \"custom_inputs_entrypoint\"");
  }
  const bool has_correctness = j.contains("correctness") && !j.at("correctness").is_null();
  const bool has_tolerance = j.contains("tolerance") && !j.at("tolerance").is_null();
  if (has_correctness && has_tolerance) at.fail("tolerance", "give \"correctness\" or \"tolerance\", not both");
  if (has_correctness) w.tolerance = detail::parse_tolerance(j.at("correctness"), at, "correctness");
  if (has_tolerance) w.tolerance = detail::parse_tolerance(j.at("tolerance"), at, "tolerance");
  if (const ordered_json* t = detail::member(j, "t_sol_ms")) w.t_sol_ms = detail::positive_time(*t, at, "t_sol_ms");
  return w;
}

namespace detail {

inline void add_checked_workload(ProblemDescription& p, Workload w, const std::string& file, std::set<std::string>& uuids) {
  const std::string where = (w.line ? "line " + std::to_string(w.line) + " " : std::string()) + "(workload \"" + w.uuid + "\")";
  if (!uuids.insert(w.uuid).second) throw input_error(file, where + ": uuid", "\"" + w.uuid + "\" is used twice");
  try {
    concretize(p, w);
  } catch (const input_error& e) {
    throw input_error(file, e.where(), e.message());
  }
  p.workloads.push_back(std::move(w));
}

/// One JSON document from `file`, in its members' order; errors name the file.
inline ordered_json read_json_document(const std::filesystem::path& file) {
  std::ifstream in(file);
  if (!in) throw input_error(file.string(), {}, "cannot be read");
  try {
    return ordered_json::parse(in);
  } catch (const ordered_json::parse_error& e) {
    throw input_error(file.string(), {}, std::string("not valid JSON: ") + e.what());
  }
}

/// Reads `file`'s workload lines (JSON Lines; blank lines skipped) into `p`, each checked; `keep`
/// picks the lines that are `p`'s. Errors name the file and the line.
inline void read_workload_lines(ProblemDescription& p, const std::filesystem::path& file, std::set<std::string>& uuids,
                                const std::string& unreadable,
                                const std::function<bool(const ordered_json&)>& keep = {}) {
  std::ifstream in(file);
  if (!in) throw input_error(file.string(), {}, unreadable);
  std::string text;
  for (std::size_t line = 1; std::getline(in, text); ++line) {
    if (text.find_first_not_of(" \t\r") == std::string::npos) continue;
    ordered_json j;
    try {
      j = ordered_json::parse(text);
    } catch (const ordered_json::parse_error& e) {
      throw input_error(file.string(), "line " + std::to_string(line), std::string("not valid JSON: ") + e.what());
    }
    if (keep && !keep(j)) continue;
    Workload w = parse_workload(j, p, file.string(), "line " + std::to_string(line), line);
    add_checked_workload(p, std::move(w), file.string(), uuids);
  }
}

}  // namespace detail

/// @brief A problem from a definition and its workloads as JSON values, e.g. the KernelBench
/// describer's `{"definition": ..., "workloads": [...]}`. `source` names them in errors
/// (`SOURCE: definition: inputs.x.dtype: ...`, `SOURCE: workloads[2] (workload "w2"): axes.M: ...`).
inline ProblemDescription describe_problem(const ordered_json& definition, const std::vector<ordered_json>& workloads,
                                           const std::string& source, ProblemOrigin origin,
                                           const std::string& outputs_unknown = {}) {
  ProblemDescription p = parse_definition(definition, source, origin, "definition", !outputs_unknown.empty());
  p.outputs_unknown = outputs_unknown;
  if (workloads.empty()) throw input_error(source, "workloads", "no workloads: a problem needs at least one");
  std::set<std::string> uuids;
  for (std::size_t i = 0; i < workloads.size(); ++i) {
    Workload w = parse_workload(workloads[i], p, source, "workloads[" + std::to_string(i) + "]");
    try {
      detail::add_checked_workload(p, std::move(w), source, uuids);
    } catch (const input_error& e) {
      std::string where = e.where();
      if (where.rfind("(workload", 0) == 0) where = "workloads[" + std::to_string(i) + "] " + where;
      throw input_error(source, where, e.message());
    }
  }
  return p;
}

/// @brief The describer's whole output, `{"definition": {...}, "workloads": [{...}, ...]}`.
inline ProblemDescription describe_problem(const ordered_json& described, const std::string& source, ProblemOrigin origin) {
  if (!described.is_object() || !described.contains("definition") || !described.contains("workloads") ||
      !described.at("workloads").is_array())
    throw input_error(source, {}, "expected {\"definition\": {...}, \"workloads\": [...]}");
  std::vector<ordered_json> workloads(described.at("workloads").begin(), described.at("workloads").end());
  // The describer could not run the forward pass (an operation without a meta kernel, or one
  // this PyTorch lacks): the problem is read, with no outputs, and is not judgeable for that.
  std::string outputs_unknown;
  if (described.contains("kernelbench") && described.at("kernelbench").is_object())
    if (const ordered_json* why = detail::member(described.at("kernelbench"), "outputs_unknown"); why && why->is_string())
      outputs_unknown = why->get<std::string>();
  ProblemDescription p = describe_problem(described.at("definition"), workloads, source, origin, outputs_unknown);
  return p;
}

/// @brief Whether `dir` holds a problem in SOL-ExecBench's format (a `definition.json`).
inline bool is_sol_problem_folder(const std::filesystem::path& dir) {
  return std::filesystem::is_regular_file(dir / "definition.json");
}

/// @brief The file beside workload.jsonl that gives T_SOL per workload without editing the suite's
/// files: `{"UUID": MILLISECONDS, ...}` (SOL-ExecBench publishes T_SOL on its leaderboard, not in
/// the problem's files; docs/problems.md, "The suite's own score").
inline constexpr const char* sol_times_file = "sol_times.json";

/// @brief Reads `file` (sol_times.json) into `p`'s workloads' t_sol_ms. A uuid that is not a
/// workload, a time that is not positive, or a time that disagrees with the workload's own
/// `t_sol_ms` is an error naming the file and the uuid.
inline void read_sol_times(ProblemDescription& p, const std::filesystem::path& file) {
  const ordered_json j = detail::read_json_document(file);
  const detail::DocumentPlace at{file.string(), {}};
  if (!j.is_object()) at.fail("", "expected an object of workload uuid -> T_SOL in milliseconds, found " + detail::kind_of(j));
  for (const auto& [uuid, v] : j.items()) {
    auto w = std::find_if(p.workloads.begin(), p.workloads.end(), [&](const Workload& x) { return x.uuid == uuid; });
    if (w == p.workloads.end()) at.fail(uuid, "\"" + uuid + "\" is not a workload of \"" + p.name + "\"");
    const double t = detail::positive_time(v, at, uuid);
    if (w->t_sol_ms && *w->t_sol_ms != t)
      at.fail(uuid, "gives " + v.dump() + " ms, and workload.jsonl's t_sol_ms gives " + std::to_string(*w->t_sol_ms));
    w->t_sol_ms = t;
  }
}

/// @brief A SOL-ExecBench / FlashInfer-Bench problem folder: definition.json, workload.jsonl,
/// reference.py when present (the reference when the definition has none).
inline ProblemDescription load_problem_folder(const std::filesystem::path& dir, ProblemOrigin origin = ProblemOrigin::sol_execbench) {
  namespace fs = std::filesystem;
  const fs::path definition_path = dir / "definition.json";
  const fs::path workload_path = dir / "workload.jsonl";
  const ordered_json definition = detail::read_json_document(definition_path);
  ProblemDescription p = parse_definition(definition, definition_path.string(), origin);
  p.source = dir.string();
  if (fs::is_regular_file(dir / "reference.py")) p.reference_file = (dir / "reference.py").string();
  if (p.reference.empty() && p.reference_file.empty())
    throw input_error(definition_path.string(), "reference",
                      "missing, and there is no reference.py beside it: the PyTorch reference defines run()");
  std::set<std::string> uuids;
  detail::read_workload_lines(p, workload_path, uuids, "cannot be read (a problem needs its workloads)");
  if (p.workloads.empty()) throw input_error(workload_path.string(), {}, "no workloads: a problem needs at least one");
  if (fs::is_regular_file(dir / sol_times_file)) read_sol_times(p, dir / sol_times_file);
  return p;
}

// ---- FlashInfer-Bench's dataset (a TraceSet) ---------------------------------------------------
// ROOT/definitions/**/NAME.json holds the definitions, ROOT/workloads/**/*.jsonl the workloads as
// Trace lines (`{"definition": NAME, "workload": {...}, ...}`), ROOT/blob/ their safetensors files
// (paths relative to ROOT). A definition file there is a problem; its workloads are the lines that
// name it, in the file that mirrors its path (workloads/OP/NAME.jsonl) when there is one, else in
// every workload file.

/// @brief Whether `dir` is a TraceSet's root (it has `definitions/` and `workloads/`).
inline bool is_trace_set(const std::filesystem::path& dir) {
  std::error_code ec;
  return std::filesystem::is_directory(dir / "definitions", ec) && std::filesystem::is_directory(dir / "workloads", ec);
}

/// @brief The TraceSet root of a definition file (the folder above the nearest `definitions`
/// folder holding it, when that is a TraceSet), or nothing.
inline std::optional<std::filesystem::path> trace_set_root(const std::filesystem::path& file) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (file.extension() != ".json" || !fs::is_regular_file(file, ec)) return std::nullopt;
  for (fs::path dir = fs::absolute(file, ec).lexically_normal().parent_path(); !dir.empty() && dir != dir.root_path();
       dir = dir.parent_path())
    if (dir.filename() == "definitions") {
      if (is_trace_set(dir.parent_path())) return dir.parent_path();
      return std::nullopt;
    }
  return std::nullopt;
}

/// @brief Whether `file` is a definition in a TraceSet.
inline bool is_trace_set_definition(const std::filesystem::path& file) { return trace_set_root(file).has_value(); }

/// @brief The workload files a TraceSet definition's workloads are read from: the one mirroring
/// its path under workloads/ when it exists, else every .jsonl there (sorted).
inline std::vector<std::filesystem::path> trace_set_workload_files(const std::filesystem::path& file) {
  namespace fs = std::filesystem;
  const auto root = trace_set_root(file);
  if (!root) return {};
  std::error_code ec;
  const fs::path rel = fs::absolute(file, ec).lexically_normal().lexically_relative(*root / "definitions");
  fs::path mirror = *root / "workloads" / rel;
  mirror.replace_extension(".jsonl");
  if (fs::is_regular_file(mirror, ec)) return {mirror};
  std::vector<fs::path> out;
  for (auto it = fs::recursive_directory_iterator(*root / "workloads", ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec))
    if (it->path().extension() == ".jsonl" && it->is_regular_file(ec)) out.push_back(it->path());
  std::sort(out.begin(), out.end());
  return out;
}

/// @brief A definition of a FlashInfer-Bench TraceSet (`ROOT/definitions/.../NAME.json`) with the
/// workloads that name it. Errors name the file, the field and the line, as for a folder.
inline ProblemDescription load_trace_set_definition(const std::filesystem::path& file) {
  namespace fs = std::filesystem;
  const auto root = trace_set_root(file);
  if (!root) throw input_error(file.string(), {}, "not a definition inside a FlashInfer-Bench TraceSet (ROOT/definitions/...json beside ROOT/workloads/)");
  const ordered_json definition = detail::read_json_document(file);
  ProblemDescription p = parse_definition(definition, file.string(), ProblemOrigin::flashinfer_bench);
  p.source = file.string();
  if (p.reference.empty()) throw input_error(file.string(), "reference", "missing: the PyTorch reference defines run()");
  std::set<std::string> uuids;
  const std::vector<fs::path> files = trace_set_workload_files(file);
  // Another definition's workload (a shared file) is not this problem's.
  const auto names_this = [&](const ordered_json& j) {
    const ordered_json* d = detail::member(j, "definition");
    return d && d->is_string() && d->get<std::string>() == p.name;
  };
  for (const auto& wf : files) detail::read_workload_lines(p, wf, uuids, "cannot be read", names_this);
  if (p.workloads.empty())
    throw input_error(file.string(), {}, "no workload names \"" + p.name + "\" under " + (*root / "workloads").string() +
                                             (files.size() == 1 ? " (read " + files.front().string() + ")" : std::string()));
  return p;
}

}  // namespace socratic::suite
