#pragma once
/// @file
/// @brief LibraryPolicy: which vendor libraries a problem lets a candidate use. A closed set of
/// families (cuBLAS with cuBLASLt, cuDNN, CUTLASS with CuTe), a default per problem origin
/// (Socratic's own problems ban them all, as the study did; SOL-ExecBench, FlashInfer-Bench and
/// KernelBench problems allow them all, as those suites do), and overrides from a flag or a
/// campaign file (`allow`, then `ban`; `all` names every family). Light: the standard library,
/// core/error.hpp, core/json.hpp and core/report.hpp (BannedFinding). docs/scanner.md, "Allowed libraries".
///
/// The scanner (scan/scanner.hpp) still looks for every library of its BanPolicy; the evaluator
/// files what it finds under an allowed family as `allowed` rather than `banned`.

#include <algorithm>
#include <array>
#include <cctype>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "socratic/core/error.hpp"
#include "socratic/core/json.hpp"
#include "socratic/core/report.hpp"

namespace socratic {

/// @brief A vendor library family a problem may allow. The set is closed: a family is what the
/// scanner can recognise and the build can link.
enum class LibraryFamily {
  cublas,   ///< cuBLAS and cuBLASLt (scanner libraries `cublas`, `cublaslt`)
  cudnn,    ///< cuDNN, its sub-libraries and its frontend (scanner library `cudnn`)
  cutlass,  ///< CUTLASS and CuTe, header-only (scanner libraries `cutlass`, `cute`)
};

/// @brief Every family, in the order reports list them.
inline constexpr std::array<LibraryFamily, 3> all_library_families = {LibraryFamily::cublas, LibraryFamily::cudnn,
                                                                      LibraryFamily::cutlass};

/// @brief The family's name as flags and files write it: `cublas`, `cudnn`, `cutlass`.
constexpr std::string_view to_string(LibraryFamily f) noexcept {
  switch (f) {
    case LibraryFamily::cublas: return "cublas";
    case LibraryFamily::cudnn: return "cudnn";
    case LibraryFamily::cutlass: return "cutlass";
  }
  return "?";
}

/// @brief The family a name denotes: a family's own name, or one of the scanner's library names
/// it covers (`cublaslt` is cuBLAS, `cute` is CUTLASS). nullopt for anything else.
inline std::optional<LibraryFamily> library_family_named(std::string_view name) {
  if (name == "cublas" || name == "cublaslt") return LibraryFamily::cublas;
  if (name == "cudnn") return LibraryFamily::cudnn;
  if (name == "cutlass" || name == "cute") return LibraryFamily::cutlass;
  return std::nullopt;
}

/// @brief The family whose shared objects have this file name (no folders): `libcublas.so.13`,
/// `libcublasLt.so.13` are cuBLAS, `libcudnn.so.9`, `libcudnn_ops.so.9` cuDNN, `libcutlass.so`
/// CUTLASS. What such a file holds (cuBLASLt's own CUTLASS kernels, say) is that family's.
inline std::optional<LibraryFamily> library_family_of_file(std::string_view file_name) {
  auto starts = [&](std::string_view prefix) { return file_name.substr(0, prefix.size()) == prefix; };
  if (starts("libcublas.so") || starts("libcublasLt.so")) return LibraryFamily::cublas;
  if (starts("libcudnn.so") || (starts("libcudnn_") && file_name.find(".so") != std::string_view::npos))
    return LibraryFamily::cudnn;
  if (starts("libcutlass.so")) return LibraryFamily::cutlass;
  return std::nullopt;
}

/// @brief Where a problem comes from, as far as its default library policy goes (the suites'
/// own origins, suite::ProblemOrigin, grouped: SOL-ExecBench and FlashInfer-Bench alike).
enum class LibraryPolicyOrigin {
  socratic,       ///< Socratic's own format (kernels/problems.json, a folder with problem.json)
  sol_execbench,  ///< a SOL-ExecBench or FlashInfer-Bench folder (definition.json)
  kernelbench,    ///< a KernelBench file (a `Model` in Python)
};

/// @brief For people: `a Socratic problem`, `a SOL-ExecBench/FlashInfer-Bench problem`, ...
constexpr std::string_view describe(LibraryPolicyOrigin o) noexcept {
  switch (o) {
    case LibraryPolicyOrigin::socratic: return "a Socratic problem";
    case LibraryPolicyOrigin::sol_execbench: return "a SOL-ExecBench/FlashInfer-Bench problem";
    case LibraryPolicyOrigin::kernelbench: return "a KernelBench problem";
  }
  return "?";
}

/// @brief A change to the default policy: `allow` adds families, then `ban` removes them (so a
/// family in both is banned). `source` says where it came from, for the report.
struct LibraryPolicyOverride {
  std::set<LibraryFamily> allow, ban;
  std::string source;  ///< `--allow-libraries`, `campaign.json field "libraries"`, ...
  bool empty() const noexcept { return allow.empty() && ban.empty(); }
  friend bool operator==(const LibraryPolicyOverride&, const LibraryPolicyOverride&) = default;
};

/// @brief The families a candidate may use, and why.
struct LibraryPolicy {
  std::set<LibraryFamily> allowed;
  std::string source;  ///< `the default for a KernelBench problem`, `--ban-libraries`, ...

  bool allows(LibraryFamily f) const { return allowed.count(f) != 0; }
  /// @brief Whether a scanner finding's library (`cublaslt`, `cute`, `cufft`, ...) is allowed.
  /// A library outside the closed set (a custom policy's `cufft`) never is.
  bool allows_library(std::string_view scanner_library) const {
    const auto f = library_family_named(scanner_library);
    return f && allows(*f);
  }
  std::vector<std::string> allowed_names() const {
    std::vector<std::string> out;
    for (auto f : all_library_families)
      if (allows(f)) out.emplace_back(to_string(f));
    return out;
  }
  std::vector<std::string> banned_names() const {
    std::vector<std::string> out;
    for (auto f : all_library_families)
      if (!allows(f)) out.emplace_back(to_string(f));
    return out;
  }
  /// @brief One line: `allowed: cublas, cudnn, cutlass; banned: none (the default for a
  /// KernelBench problem)`.
  std::string describe() const {
    auto list = [](const std::vector<std::string>& names) {
      std::string out;
      for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
      return out.empty() ? std::string("none") : out;
    };
    return "allowed: " + list(allowed_names()) + "; banned: " + list(banned_names()) +
           (source.empty() ? "" : " (" + source + ")");
  }
  friend bool operator==(const LibraryPolicy&, const LibraryPolicy&) = default;
};

/// @brief The default for a problem of this origin: Socratic's own problems ban every family;
/// the suites' problems allow every family (the suites accept cuBLAS, cuDNN and CUTLASS as
/// languages).
inline LibraryPolicy default_library_policy(LibraryPolicyOrigin origin) {
  LibraryPolicy p;
  if (origin != LibraryPolicyOrigin::socratic) p.allowed = {all_library_families.begin(), all_library_families.end()};
  p.source = "the default for " + std::string(describe(origin));
  return p;
}

/// @brief The default for `origin`, changed by `change` (allow, then ban).
inline LibraryPolicy resolve_library_policy(LibraryPolicyOrigin origin, const LibraryPolicyOverride& change) {
  LibraryPolicy p = default_library_policy(origin);
  if (change.empty()) return p;
  for (auto f : change.allow) p.allowed.insert(f);
  for (auto f : change.ban) p.allowed.erase(f);
  p.source = change.source.empty() ? "overridden" : change.source;
  p.source += ", over " + std::string("the default for ") + std::string(describe(origin));
  return p;
}

/// @brief The scanner's verdict under `policy`: moves the findings of an allowed family out of
/// `banned` and returns them (they are reported as allowed, never as violations). A finding of
/// a library outside the closed set (a custom policy's `cufft`) stays banned.
inline std::vector<BannedFinding> take_allowed_findings(std::vector<BannedFinding>& banned,
                                                        const LibraryPolicy& policy) {
  std::vector<BannedFinding> allowed, kept;
  for (auto& f : banned) (policy.allows_library(f.library) ? allowed : kept).push_back(std::move(f));
  banned = std::move(kept);
  return allowed;
}

/// @brief `cublas, cudnn, cutlass (or all)`: the names an error lists.
inline std::string valid_library_family_names() {
  std::string out;
  for (auto f : all_library_families) out += std::string(to_string(f)) + ", ";
  return out + "or all (cublaslt counts as cublas, cute as cutlass)";
}

/// @brief Parses names (`all`, a family, or a scanner library it covers) into families.
/// Throws input_error naming `file` and `field` and listing the valid names.
inline std::set<LibraryFamily> parse_library_families(const std::vector<std::string>& names,
                                                      const std::string& file, const std::string& field) {
  std::set<LibraryFamily> out;
  for (std::size_t i = 0; i < names.size(); ++i) {
    std::string n = names[i];
    std::transform(n.begin(), n.end(), n.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    const std::string where = field + (names.size() > 1 ? "[" + std::to_string(i) + "]" : "");
    if (n == "all") {
      out.insert(all_library_families.begin(), all_library_families.end());
    } else if (auto f = library_family_named(n)) {
      out.insert(*f);
    } else {
      throw input_error(file, where,
                        "\"" + names[i] + "\" is not a library family; valid names: " + valid_library_family_names());
    }
  }
  return out;
}

/// @brief Parses a comma-separated list (`cublas,cudnn`, `all`), as the flags take it. An empty
/// list, or an empty item, is an error.
inline std::set<LibraryFamily> parse_library_family_list(std::string_view text, const std::string& file,
                                                         const std::string& field) {
  std::vector<std::string> names;
  for (std::size_t at = 0; at <= text.size();) {
    const std::size_t comma = std::min(text.find(',', at), text.size());
    std::string item(text.substr(at, comma - at));
    item.erase(0, item.find_first_not_of(" \t"));
    item.erase(item.find_last_not_of(" \t") + 1);
    if (item.empty())
      throw input_error(file, field, "an empty library name in \"" + std::string(text) +
                                         "\"; valid names: " + valid_library_family_names());
    names.push_back(std::move(item));
    at = comma + 1;
  }
  return parse_library_families(names, file, field);
}

/// @brief Reads an override as files write it: `{"allow": ["cublas"], "ban": ["all"]}` (each
/// list optional; a list's items, or one string of comma-separated names). `field` names the
/// object for errors (`evaluator field "settings.libraries"`); unknown fields are errors.
inline LibraryPolicyOverride library_policy_override_from_json(const json& j, const std::string& file,
                                                               const std::string& field) {
  if (!j.is_object())
    throw input_error(file, field, "expected an object like {\"allow\": [\"cublas\"], \"ban\": [\"cutlass\"]}");
  LibraryPolicyOverride out;
  for (auto it = j.begin(); it != j.end(); ++it) {
    const std::string where = field + "." + it.key();
    std::set<LibraryFamily>* into = it.key() == "allow" ? &out.allow : it.key() == "ban" ? &out.ban : nullptr;
    if (!into) throw input_error(file, field, "unknown field \"" + it.key() + "\" (known: allow, ban)");
    if (it->is_string()) {
      *into = parse_library_family_list(it->get<std::string>(), file, where);
    } else if (it->is_array() && std::all_of(it->begin(), it->end(), [](const json& v) { return v.is_string(); })) {
      *into = parse_library_families(it->get<std::vector<std::string>>(), file, where);
    } else {
      throw input_error(file, where, "expected a list of library names; valid names: " + valid_library_family_names());
    }
  }
  out.source = (file.empty() ? std::string() : file + " ") + field;
  return out;
}

/// @brief The override as files write it (empty lists left out).
inline json library_policy_override_json(const LibraryPolicyOverride& o) {
  json j = json::object();
  auto names = [](const std::set<LibraryFamily>& s) {
    std::vector<std::string> out;
    for (auto f : s) out.emplace_back(to_string(f));
    return out;
  };
  if (!o.allow.empty()) j["allow"] = names(o.allow);
  if (!o.ban.empty()) j["ban"] = names(o.ban);
  return j;
}

}  // namespace socratic
