#pragma once
/// @file
/// @brief The problem registry: reads `kernels/problems.json` and each `kernels/<folder>/problem.json`
/// (format in docs/runner-protocol.md), and validates scenario sets against the parameters a
/// problem declares. Errors name the file, the scenario (or parameter) and the field.
/// Light: nlohmann/json and the standard library.

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "socratic/core/error.hpp"
#include "socratic/core/files.hpp"
#include "socratic/core/json.hpp"
#include "socratic/core/scenario.hpp"

namespace socratic {

/// @brief The JSON type a scenario parameter must have.
enum class ParameterType { integer, number, string, boolean };

constexpr std::string_view to_string(ParameterType t) noexcept {
  switch (t) {
    case ParameterType::integer: return "int";
    case ParameterType::number: return "number";
    case ParameterType::string: return "string";
    case ParameterType::boolean: return "bool";
  }
  return "unknown";
}

/// @brief One parameter a problem's scenarios may (or must) set.
struct ParameterSpec {
  std::string name;
  ParameterType type = ParameterType::integer;
  bool required = false;              ///< a scenario must set it (after set-level defaults)
  std::optional<json> default_value;  ///< filled in when a scenario leaves it out
  std::optional<double> min, max;     ///< inclusive bounds (int and number)
  std::optional<long long> multiple_of;  ///< int only
  std::vector<json> allowed;          ///< `enum`: the only values accepted (empty: any)
  std::string description;
};

/// @brief Whether `text` (a header) names `identifier` as a whole word.
inline bool declares_identifier(std::string_view text, std::string_view identifier) {
  auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  if (identifier.empty()) return false;
  for (std::size_t at = text.find(identifier); at != std::string_view::npos; at = text.find(identifier, at + 1)) {
    const std::size_t end = at + identifier.size();
    if ((at == 0 || !word(text[at - 1])) && (end == text.size() || !word(text[end]))) return true;
  }
  return false;
}

/// @brief Whether a `problem` string (the evaluator's, a campaign file's) names a path, not a registry name: registry
/// names hold no `/`, so a path is written with one (`./rmsnorm`, `/data/sol/L1/rmsnorm`) or
/// ends in `.py` (a KernelBench file).
inline bool is_problem_path(std::string_view problem) {
  return problem.find('/') != std::string_view::npos ||
         (problem.size() > 3 && problem.substr(problem.size() - 3) == ".py") || problem == "." || problem == "..";
}

/// @brief A problem, as its problem.json declares it. Paths are absolute.
struct ProblemSpec {
  std::string name;
  std::filesystem::path folder;        ///< kernels/<folder>
  std::filesystem::path problem_file;  ///< kernels/<folder>/problem.json
  std::string entry_point;             ///< the C function a candidate exports
  std::string args_header;             ///< header (in `folder`) declaring it
  std::string baseline;                ///< baseline source (in `folder`)
  std::vector<std::string> runner_sources;  ///< compiled into the runner with kernels/harness/runner.cu
  bool has_reference_implementation = false;
  std::string description;
  /// What kind of problem it is (`gpu`, `matmul`, `attention`, ...): the question bank asks only
  /// questions whose kinds it has (questions/bank.hpp).
  std::vector<std::string> kinds;
  std::vector<ParameterSpec> parameters;             ///< in name order
  std::vector<std::vector<std::string>> divisible;   ///< pairs [a, b]: a must be a multiple of b

  std::filesystem::path baseline_path() const { return folder / baseline; }
  std::filesystem::path args_header_path() const { return folder / args_header; }
  const ParameterSpec* parameter(std::string_view n) const {
    for (const auto& p : parameters)
      if (p.name == n) return &p;
    return nullptr;
  }
};

/// @brief One thing wrong in a scenario set: where (`scenario "id" field "f"`) and what.
struct ScenarioIssue {
  std::string where;
  std::string message;
};

namespace detail {

inline std::string in_quotes(std::string_view s) {
  std::string out;  // built by appending: g++ 12 warns (-Wrestrict) on "\"" + string + "\""
  out.reserve(s.size() + 2);
  out += '"';
  out += s;
  out += '"';
  return out;
}

/// Levenshtein distance, to suggest the parameter a typo meant.
inline std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = up;
    }
  }
  return row[b.size()];
}

inline std::string describe_value(const json& v) {
  std::string text = v.dump();
  if (text.size() > 60) text = text.substr(0, 57) + "...";
  return std::string(v.type_name()) + " " + text;
}

inline std::string format_number(double x) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", x);
  return buf;
}

/// Empty when `value` satisfies `spec`, else why not.
inline std::string parameter_value_problem(const ParameterSpec& spec, const json& value) {
  switch (spec.type) {
    case ParameterType::integer:
      if (!value.is_number_integer())
        return "expected an integer, found " + describe_value(value);
      break;
    case ParameterType::number:
      if (!value.is_number()) return "expected a number, found " + describe_value(value);
      break;
    case ParameterType::string:
      if (!value.is_string()) return "expected a string, found " + describe_value(value);
      break;
    case ParameterType::boolean:
      if (!value.is_boolean()) return "expected true or false, found " + describe_value(value);
      break;
  }
  if (value.is_number()) {
    const double x = value.get<double>();
    if (!std::isfinite(x)) return "must be finite, found " + value.dump();
    if (spec.min && x < *spec.min)
      return "must be >= " + format_number(*spec.min) + ", found " + value.dump();
    if (spec.max && x > *spec.max)
      return "must be <= " + format_number(*spec.max) + ", found " + value.dump();
    if (spec.multiple_of && value.is_number_integer() &&
        value.get<long long>() % *spec.multiple_of != 0)
      return "must be a multiple of " + std::to_string(*spec.multiple_of) + ", found " +
             value.dump();
  }
  if (!spec.allowed.empty() &&
      std::find(spec.allowed.begin(), spec.allowed.end(), value) == spec.allowed.end()) {
    std::string list;
    for (const auto& a : spec.allowed) list += (list.empty() ? "" : ", ") + a.dump();
    return "must be one of " + list + ", found " + value.dump();
  }
  return {};
}

inline ParameterSpec parse_parameter_spec(const std::string& file, const std::string& name,
                                          const json& j) {
  const std::string where = "parameter " + in_quotes(name);
  if (!j.is_object()) throw input_error(file, where, "expected an object, found " + describe_value(j));
  reject_unknown_fields(j, {"type", "required", "default", "min", "max", "multiple_of", "enum", "description"},
                        file, where);
  ParameterSpec p;
  p.name = name;
  try {
    const auto type = required<std::string>(j, "type", where);
    if (type == "int") p.type = ParameterType::integer;
    else if (type == "number") p.type = ParameterType::number;
    else if (type == "string") p.type = ParameterType::string;
    else if (type == "bool") p.type = ParameterType::boolean;
    else
      throw input_error({}, where + " field \"type\"",
                        "must be \"int\", \"number\", \"string\" or \"bool\", found " + in_quotes(type));
    p.required = optional_field<bool>(j, "required", false, where);
    p.min = optional_value<double>(j, "min", where);
    p.max = optional_value<double>(j, "max", where);
    p.multiple_of = optional_value<long long>(j, "multiple_of", where);
    p.description = optional_field<std::string>(j, "description", "", where);
  } catch (const input_error& e) {
    throw input_error(file, e.where().empty() ? where : e.where(), e.message());
  }
  const bool numeric = p.type == ParameterType::integer || p.type == ParameterType::number;
  if ((p.min || p.max) && !numeric)
    throw input_error(file, where, "\"min\"/\"max\" apply only to int and number parameters");
  if (p.multiple_of && (p.type != ParameterType::integer || *p.multiple_of <= 0))
    throw input_error(file, where + " field \"multiple_of\"",
                      "applies only to int parameters and must be positive");
  if (p.min && p.max && *p.min > *p.max)
    throw input_error(file, where, "\"min\" is greater than \"max\"");
  if (auto e = j.find("enum"); e != j.end()) {
    if (!e->is_array() || e->empty())
      throw input_error(file, where + " field \"enum\"", "expected a non-empty array");
    ParameterSpec bare = p;  // check each allowed value against type and bounds
    for (const auto& v : *e) {
      if (auto why = parameter_value_problem(bare, v); !why.empty())
        throw input_error(file, where + " field \"enum\"", "value " + v.dump() + ": " + why);
      p.allowed.push_back(v);
    }
  }
  if (auto d = j.find("default"); d != j.end() && !d->is_null()) {
    if (p.required)
      throw input_error(file, where, "a required parameter cannot have a default");
    if (auto why = parameter_value_problem(p, *d); !why.empty())
      throw input_error(file, where + " field \"default\"", why);
    p.default_value = *d;
  }
  return p;
}

}  // namespace detail

/// @brief Reads and validates one problem.json. `expected_name` (from problems.json) must match
/// its `name` when given.
inline ProblemSpec load_problem_spec(const std::filesystem::path& problem_file,
                                     std::string_view expected_name = {}) {
  namespace fs = std::filesystem;
  const std::string file = problem_file.string();
  const json j = read_json_file(problem_file);
  if (!j.is_object()) throw input_error(file, {}, "expected an object");
  reject_unknown_fields(j,
                        {"schema_version", "name", "entry_point", "args_header", "baseline", "runner_sources",
                         "has_reference_implementation", "description", "kinds", "parameters", "divisible"},
                        file, "problem");
  ProblemSpec p;
  p.problem_file = fs::absolute(problem_file).lexically_normal();
  p.folder = p.problem_file.parent_path();
  try {
    check_schema_version(j, "problem");
    p.name = required<std::string>(j, "name", "problem");
    p.entry_point = required<std::string>(j, "entry_point", "problem");
    p.args_header = required<std::string>(j, "args_header", "problem");
    p.baseline = required<std::string>(j, "baseline", "problem");
    p.runner_sources = required<std::vector<std::string>>(j, "runner_sources", "problem");
    p.has_reference_implementation =
        optional_field<bool>(j, "has_reference_implementation", false, "problem");
    p.description = optional_field<std::string>(j, "description", "", "problem");
    p.kinds = optional_field<std::vector<std::string>>(j, "kinds", {}, "problem");
  } catch (const input_error& e) {
    throw input_error(file, e.where(), e.message());
  }
  if (!expected_name.empty() && p.name != expected_name)
    throw input_error(file, "field \"name\"",
                      "is " + detail::in_quotes(p.name) + " but kernels/problems.json registers " +
                          detail::in_quotes(expected_name));
  // Files the build needs: checked now so a typo fails here, not as a compiler error later.
  auto require_file = [&](const std::string& field, const std::string& name) {
    if (name.empty() || fs::path(name).is_absolute() || name.find("..") != std::string::npos)
      throw input_error(file, "field " + detail::in_quotes(field),
                        detail::in_quotes(name) + " must be a relative path inside the problem folder");
    if (!fs::is_regular_file(p.folder / name))
      throw input_error(file, "field " + detail::in_quotes(field),
                        "file " + (p.folder / name).string() + " does not exist");
  };
  require_file("args_header", p.args_header);
  require_file("baseline", p.baseline);
  for (const auto& s : p.runner_sources) require_file("runner_sources", s);
  // The entry point is the candidate's interface (the agent is told to export it): the header
  // that declares the interface must name it, or one of the two is wrong.
  if (!declares_identifier(read_file_bytes(p.folder / p.args_header), p.entry_point))
    throw input_error(file, "field \"entry_point\"",
                      detail::in_quotes(p.entry_point) + " is not declared in args_header " +
                          (p.folder / p.args_header).string() +
                          ": the candidate exports this C function, declared there for it");

  const json params = j.contains("parameters") ? j.at("parameters") : json::object();
  if (!params.is_object())
    throw input_error(file, "field \"parameters\"", "expected an object of parameter specs");
  for (auto it = params.begin(); it != params.end(); ++it) {
    if (it.key() == "id")
      throw input_error(file, "parameter \"id\"", "\"id\" is reserved for the scenario's id");
    p.parameters.push_back(detail::parse_parameter_spec(file, it.key(), it.value()));
  }
  const json div = j.contains("divisible") ? j.at("divisible") : json::array();
  if (!div.is_array()) throw input_error(file, "field \"divisible\"", "expected an array of pairs");
  for (std::size_t i = 0; i < div.size(); ++i) {
    const std::string where = "field \"divisible\" entry #" + std::to_string(i);
    if (!div[i].is_array() || div[i].size() != 2 || !div[i][0].is_string() || !div[i][1].is_string())
      throw input_error(file, where, "expected a pair of parameter names, e.g. [\"heads_q\", \"heads_kv\"]");
    std::vector<std::string> pair = {div[i][0].get<std::string>(), div[i][1].get<std::string>()};
    for (const auto& n : pair) {
      const ParameterSpec* spec = p.parameter(n);
      if (!spec) throw input_error(file, where, "names " + detail::in_quotes(n) + ", which is not a declared parameter");
      if (spec->type != ParameterType::integer)
        throw input_error(file, where, detail::in_quotes(n) + " is not an int parameter");
    }
    p.divisible.push_back(std::move(pair));
  }
  return p;
}

/// @brief The problems listed in `kernels/problems.json`.
class ProblemRegistry {
 public:
  /// @brief Reads `kernels_dir/problems.json` and every problem.json it names.
  static ProblemRegistry load(const std::filesystem::path& kernels_dir) {
    namespace fs = std::filesystem;
    const fs::path index = kernels_dir / "problems.json";
    const std::string file = index.string();
    const json j = read_json_file(index);
    try {
      check_schema_version(j, "problems");
    } catch (const input_error& e) {
      throw input_error(file, e.where(), e.message());
    }
    const json list = j.is_object() && j.contains("problems") ? j.at("problems") : json();
    if (!list.is_array()) throw input_error(file, "field \"problems\"", "expected an array");
    ProblemRegistry registry;
    registry.index_file_ = fs::absolute(index).lexically_normal();
    for (std::size_t i = 0; i < list.size(); ++i) {
      const std::string where = "problems entry #" + std::to_string(i);
      std::string name, folder;
      try {
        name = required<std::string>(list[i], "name", where);
        folder = required<std::string>(list[i], "folder", where);
      } catch (const input_error& e) {
        throw input_error(file, e.where(), e.message());
      }
      if (registry.find(name))
        throw input_error(file, where + " " + detail::in_quotes(name), "duplicate problem name");
      if (folder.empty() || fs::path(folder).is_absolute() || folder.find("..") != std::string::npos)
        throw input_error(file, where + " field \"folder\"", "must be a folder name under kernels/");
      const fs::path problem_file = kernels_dir / folder / "problem.json";
      if (!fs::exists(problem_file))
        throw input_error(file, where + " " + detail::in_quotes(name),
                          "problem file " + problem_file.string() + " does not exist");
      registry.problems_.push_back(load_problem_spec(problem_file, name));
    }
    return registry;
  }

  /// @brief The problem called `name`; throws an error listing the known ones.
  const ProblemSpec& get(std::string_view name) const {
    if (const ProblemSpec* p = find(name)) return *p;
    std::string known;
    for (const auto& p : problems_) known += (known.empty() ? "" : ", ") + p.name;
    throw error("unknown problem \"" + std::string(name) + "\" (known: " +
                (known.empty() ? "none" : known) + "; see " + index_file_.string() + ")");
  }
  const ProblemSpec* find(std::string_view name) const {
    for (const auto& p : problems_)
      if (p.name == name) return &p;
    return nullptr;
  }
  const std::vector<ProblemSpec>& problems() const noexcept { return problems_; }
  const std::filesystem::path& index_file() const noexcept { return index_file_; }

 private:
  std::vector<ProblemSpec> problems_;
  std::filesystem::path index_file_;
};

/// @brief Checks `set` against `problem` and fills declared defaults into each scenario.
/// Returns every issue found (empty when the set is valid); `set` is updated in place.
inline std::vector<ScenarioIssue> check_scenario_set(const ProblemSpec& problem, ScenarioSet& set) {
  std::vector<ScenarioIssue> issues;
  if (set.problem != problem.name)
    issues.push_back({"field \"problem\"", "the set is for problem " + detail::in_quotes(set.problem) +
                                               ", not " + detail::in_quotes(problem.name)});
  for (auto& scenario : set.scenarios) {
    const std::string at = "scenario " + detail::in_quotes(scenario.id);
    // The runner's --only takes a comma-separated list: an id with a comma could not be named.
    if (scenario.id.find_first_of(", \t\n") != std::string::npos)
      issues.push_back({at + " field \"id\"", "must not contain commas or whitespace"});
    for (auto it = scenario.params.begin(); it != scenario.params.end(); ++it) {
      if (problem.parameter(it.key())) continue;
      std::string message = "unknown parameter";
      const ParameterSpec* closest = nullptr;
      std::size_t best = 3;  // suggest only near misses
      for (const auto& p : problem.parameters)
        if (auto d = detail::edit_distance(it.key(), p.name); d < best) best = d, closest = &p;
      if (closest) message += " (did you mean " + detail::in_quotes(closest->name) + "?)";
      else if (!problem.parameters.empty()) {
        std::string known;
        for (const auto& p : problem.parameters) known += (known.empty() ? "" : ", ") + p.name;
        message += " (known: " + known + ")";
      }
      issues.push_back({at + " field " + detail::in_quotes(it.key()), message});
    }
    for (const auto& spec : problem.parameters) {
      const std::string field = at + " field " + detail::in_quotes(spec.name);
      auto it = scenario.params.find(spec.name);
      if (it == scenario.params.end() || it->is_null()) {
        if (spec.required) issues.push_back({field, "required parameter is missing"});
        else if (spec.default_value) scenario.params[spec.name] = *spec.default_value;
        else if (it != scenario.params.end()) scenario.params.erase(spec.name);
        continue;
      }
      if (auto why = detail::parameter_value_problem(spec, *it); !why.empty())
        issues.push_back({field, why});
    }
    for (const auto& pair : problem.divisible) {
      const json* a = scenario.params.contains(pair[0]) ? &scenario.params[pair[0]] : nullptr;
      const json* b = scenario.params.contains(pair[1]) ? &scenario.params[pair[1]] : nullptr;
      if (!a || !b || !a->is_number_integer() || !b->is_number_integer()) continue;
      const long long x = a->get<long long>(), y = b->get<long long>();
      if (y == 0 || x % y != 0)
        issues.push_back({at + " fields " + detail::in_quotes(pair[0]) + ", " + detail::in_quotes(pair[1]),
                          pair[0] + " (" + std::to_string(x) + ") must be a multiple of " + pair[1] +
                              " (" + std::to_string(y) + ")"});
    }
  }
  return issues;
}

/// @brief For a scenario set no problem declares (one judged by the user's own command): each
/// parameter must have one kind of JSON value (number, string, bool, ...) across the set's
/// scenarios, since the judge reads it one way. A scenario with `"rows": "4096"` among scenarios
/// with `"rows": 4096` would otherwise reach the judge, which skips or misreads it.
inline std::vector<ScenarioIssue> check_parameter_types_agree(const ScenarioSet& set) {
  auto kind = [](const json& v) -> std::string {
    if (v.is_number()) return "a number";
    if (v.is_string()) return "a string";
    if (v.is_boolean()) return "true or false";
    if (v.is_null()) return "null";
    return std::string("an ") + v.type_name();
  };
  std::map<std::string, std::pair<std::string, std::string>> first;  // parameter -> (kind, scenario)
  std::vector<ScenarioIssue> issues;
  for (const auto& s : set.scenarios)
    for (auto it = s.params.begin(); it != s.params.end(); ++it) {
      const std::string k = kind(it.value());
      auto [at, fresh] = first.emplace(it.key(), std::make_pair(k, s.id));
      if (!fresh && at->second.first != k)
        issues.push_back({"scenario " + detail::in_quotes(s.id) + " field " + detail::in_quotes(it.key()),
                          k + " (" + detail::describe_value(it.value()) + "), but " + at->second.first +
                              " in scenario " + detail::in_quotes(at->second.second) +
                              ": the judge reads each parameter one way"});
    }
  return issues;
}

/// @brief Loads a scenario-set file and validates it against `problem`, with declared defaults
/// filled in. Throws input_error naming the file, the scenario and the field of the first issue,
/// and listing the others.
inline ScenarioSet load_scenarios_for(const ProblemSpec& problem, const std::filesystem::path& path) {
  const std::string file = path.string();
  ScenarioSet set = load_scenario_set(path);
  std::vector<ScenarioIssue> issues;
  // Set-level defaults are merged into every scenario by the loader; name an unknown one once,
  // where it was written, rather than once per scenario.
  const json raw = read_json_file(path);
  std::set<std::string> bad_defaults;
  if (raw.contains("defaults") && raw.at("defaults").is_object())
    for (auto it = raw.at("defaults").begin(); it != raw.at("defaults").end(); ++it)
      if (!problem.parameter(it.key())) {
        issues.push_back({"defaults field " + detail::in_quotes(it.key()), "unknown parameter"});
        bad_defaults.insert(it.key());
      }
  for (auto& s : set.scenarios)
    for (const auto& k : bad_defaults) s.params.erase(k);
  for (auto& issue : check_scenario_set(problem, set)) issues.push_back(std::move(issue));
  if (issues.empty()) return set;
  std::string message = issues.front().message;
  const std::size_t shown = std::min<std::size_t>(issues.size(), 20);
  for (std::size_t i = 1; i < shown; ++i)
    message += "\n  " + file + ": " + issues[i].where + ": " + issues[i].message;
  if (issues.size() > shown)
    message += "\n  (" + std::to_string(issues.size() - shown) + " more issues)";
  throw input_error(file, issues.front().where, message);
}

}  // namespace socratic
