#pragma once
/// @file
/// @brief A workload made concrete: every axis's value, every tensor's dimensions, the bytes the
/// inputs and outputs occupy, the FLOPs when the definition gives them, and each output's
/// tolerance. Pure arithmetic over the description: no tensor is allocated.

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "socratic/core/error.hpp"
#include "socratic/suite/axis_expression.hpp"
#include "socratic/suite/problem_description.hpp"

namespace socratic::suite {

struct ConcreteTensor {
  std::string name;
  Dtype dtype = Dtype::float32;
  std::optional<std::vector<std::int64_t>> dims;  ///< nothing: a Python scalar
  std::uint64_t elements = 1;                     ///< 1 for 0-d tensors and scalars
  std::uint64_t bytes = 0;                        ///< 0 for a Python scalar (passed by value)
};

struct ConcreteWorkload {
  std::string uuid;
  std::vector<std::pair<std::string, std::int64_t>> axes;  ///< every axis, in definition order
  std::vector<ConcreteTensor> inputs, outputs;
  std::vector<Tolerance> output_tolerances;  ///< one per output: the suite's, then the workload's
  std::uint64_t bytes = 0;                   ///< inputs + outputs
  std::optional<std::uint64_t> flops;        ///< when the definition gives `flops`
  /// Constraints that are not a relation between axes (no single comparison, or a side over a
  /// tensor's values or a call: `n == kv_indptr[-1].item()`): carried, asserted by the reference.
  std::vector<std::string> unchecked_constraints;
};

/// @brief A constraint split at its comparison (`==`, `!=`, `<=`, `>=`, `<`, `>`), or nothing
/// when it has no single top-level comparison (such constraints are carried, not checked).
struct ConstraintParts {
  std::string left, op, right;
};
inline std::optional<ConstraintParts> split_constraint(const std::string& c) {
  static const char* const ops[] = {"==", "!=", "<=", ">=", "<", ">"};
  for (const char* op : ops) {
    const auto at = c.find(op);
    if (at == std::string::npos) continue;
    const std::string right = c.substr(at + std::string(op).size());
    const std::string left = c.substr(0, at);
    if (right.find_first_of("=<>!") != std::string::npos || left.find_first_of("=<>!") != std::string::npos)
      return std::nullopt;
    return ConstraintParts{left, op, right};
  }
  return std::nullopt;
}

/// @brief The constraint as a relation between axes, or nothing when it relates something
/// else: a tensor's values or a call (`num_kv_indices == kv_indptr[-1].item()`, SOL-ExecBench's
/// paged attention), which no axis value can check. The suites carry such constraints as
/// assertions of the reference; so does the judge. A side that is an expression over names that
/// are not the problem's tensors is a relation between axes, and an unknown name there is the
/// definition's error (the loader reports it).
inline std::optional<ConstraintParts> axis_constraint(const std::string& c, const ProblemDescription& p) {
  auto parts = split_constraint(c);
  if (!parts) return std::nullopt;
  for (const std::string* side : {&parts->left, &parts->right}) {
    std::vector<std::string> names;
    try {
      names = axis_expression_names(*side);
    } catch (const input_error&) {
      return std::nullopt;  // not an axis expression: indexing, a method call, ...
    }
    for (const auto& n : names) {
      const bool output = std::any_of(p.outputs.begin(), p.outputs.end(), [&](const TensorSpec& t) { return t.name == n; });
      if (p.find_input(n) || output) return std::nullopt;  // a relation over a tensor's values
    }
  }
  return parts;
}

namespace detail {

inline std::string workload_place(const Workload& w) {
  std::string out = w.line ? "line " + std::to_string(w.line) + " " : std::string();
  return out + "(workload \"" + w.uuid + "\")";
}

inline std::uint64_t checked_product(std::uint64_t a, std::uint64_t b, const std::string& what) {
  std::uint64_t out = 0;
  if (__builtin_mul_overflow(a, b, &out)) throw input_error({}, {}, what + " overflows 64 bits");
  return out;
}

}  // namespace detail

/// @brief Every axis's value in `w` (const, the workload's var, expr evaluated). Throws
/// input_error naming the workload and the axis when a var axis is missing, an expression fails
/// or a value is not positive.
inline std::vector<std::pair<std::string, std::int64_t>> resolve_axes(const ProblemDescription& p,
                                                                     const Workload& w) {
  std::map<std::string, std::int64_t> done;
  std::set<std::string> visiting;
  const std::string place = detail::workload_place(w);
  std::function<std::int64_t(const Axis&)> value_of = [&](const Axis& a) -> std::int64_t {
    if (auto it = done.find(a.name); it != done.end()) return it->second;
    std::int64_t v = 0;
    switch (a.kind) {
      case AxisKind::constant: v = a.value; break;
      case AxisKind::variable: {
        auto it = w.axes.find(a.name);
        if (it == w.axes.end())
          throw input_error({}, place + ": axes", "var axis \"" + a.name + "\" has no value");
        v = it->second;
        break;
      }
      case AxisKind::expression: {
        if (!visiting.insert(a.name).second)
          throw input_error({}, "axes." + a.name + ".expression", "the expr axes refer to each other in a cycle");
        const AxisLookup lookup = [&](std::string_view n) -> std::optional<std::int64_t> {
          const Axis* other = p.find_axis(n);
          if (!other) return std::nullopt;
          return value_of(*other);
        };
        try {
          v = evaluate_axis_expression(a.expression, lookup);
        } catch (const input_error& e) {
          if (!e.where().empty()) throw;
          throw input_error({}, place + ": axes." + a.name, e.message());
        }
        visiting.erase(a.name);
        if (v <= 0)
          throw input_error({}, place + ": axes." + a.name,
                            "expression \"" + a.expression + "\" gives " + std::to_string(v) +
                                "; a dimension must be positive");
        break;
      }
    }
    if (v <= 0)
      throw input_error({}, place + ": axes." + a.name,
                        "the value " + std::to_string(v) + " is not a positive dimension");
    done[a.name] = v;
    return v;
  };
  std::vector<std::pair<std::string, std::int64_t>> out;
  for (const auto& a : p.axes) out.emplace_back(a.name, value_of(a));
  return out;
}

/// @brief `w` made concrete (see ConcreteWorkload). Errors as resolve_axes, plus a failed
/// constraint, a FLOPs expression that fails, and sizes that overflow.
inline ConcreteWorkload concretize(const ProblemDescription& p, const Workload& w) {
  ConcreteWorkload c;
  c.uuid = w.uuid;
  c.axes = resolve_axes(p, w);
  const std::string place = detail::workload_place(w);
  const AxisLookup lookup = [&](std::string_view n) -> std::optional<std::int64_t> {
    for (const auto& [name, v] : c.axes)
      if (name == n) return v;
    return std::nullopt;
  };
  auto make = [&](const TensorSpec& t, const char* role) {
    ConcreteTensor ct{t.name, t.dtype, std::nullopt, 1, 0};
    if (t.shape) {
      std::vector<std::int64_t> dims;
      for (const auto& axis : *t.shape) {
        const auto v = lookup(axis);
        if (!v)
          throw input_error({}, std::string(role) + "." + t.name + ".shape", "axis \"" + axis + "\" is not defined");
        dims.push_back(*v);
        ct.elements = detail::checked_product(ct.elements, static_cast<std::uint64_t>(*v),
                                              place + ": " + role + "." + t.name + " element count");
      }
      ct.dims = std::move(dims);
      ct.bytes = detail::checked_product(ct.elements, dtype_bytes(t.dtype), place + ": " + role + "." + t.name + " bytes");
      if (t.dtype == Dtype::float4_e2m1fn_x2) ct.bytes = ct.elements;  // two values per byte, one element per byte
    }
    if (__builtin_add_overflow(c.bytes, ct.bytes, &c.bytes))
      throw input_error({}, place, "the total bytes overflow 64 bits");
    return ct;
  };
  for (const auto& t : p.inputs) c.inputs.push_back(make(t, "inputs"));
  for (const auto& t : p.outputs) {
    c.outputs.push_back(make(t, "outputs"));
    c.output_tolerances.push_back(apply_override(suite_tolerance(p.rule(), t.dtype), w.tolerance));
  }
  if (p.flops) {
    try {
      const std::int64_t f = evaluate_axis_expression(*p.flops, lookup);
      if (f < 0) throw input_error({}, {}, "expression \"" + *p.flops + "\" gives " + std::to_string(f));
      c.flops = static_cast<std::uint64_t>(f);
    } catch (const input_error& e) {
      throw input_error({}, place + ": flops", e.message());
    }
  }
  for (const auto& constraint : p.constraints) {
    const auto parts = axis_constraint(constraint, p);
    if (!parts) {
      c.unchecked_constraints.push_back(constraint);
      continue;
    }
    std::int64_t l = 0, r = 0;
    try {
      l = evaluate_axis_expression(parts->left, lookup);
      r = evaluate_axis_expression(parts->right, lookup);
    } catch (const input_error& e) {
      throw input_error({}, place + ": constraints", "\"" + constraint + "\": " + e.message());
    }
    const std::string& op = parts->op;
    const bool holds = op == "==" ? l == r : op == "!=" ? l != r : op == "<=" ? l <= r : op == ">=" ? l >= r
                       : op == "<" ? l < r : l > r;
    if (!holds)
      throw input_error({}, place + ": constraints",
                        "\"" + constraint + "\" does not hold (" + std::to_string(l) + " " + op + " " +
                            std::to_string(r) + ")");
  }
  return c;
}

}  // namespace socratic::suite
