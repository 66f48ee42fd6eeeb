#pragma once
/// @file
/// @brief BanPolicy: which libraries a candidate kernel must not use, and the evidence that
/// betrays each one (library file names, API symbol patterns, C++ namespaces). A default policy
/// (CUTLASS, CuTe, cuBLAS, cuBLASLt, cuDNN), JSON load/save with validation errors that name the
/// file, the library entry and the field. Light: nlohmann/json and <regex> only.
///
/// Policy file format (docs/scanner.md):
/// @code{.json}
/// { "schema_version": 1,
///   "extends": "default",            // optional: start from the default policy
///   "remove": ["cute"],              // optional, with "extends": drop these libraries
///   "libraries": [                   // added, or replacing a library of the same name
///     { "name": "cufft", "description": "cuFFT",
///       "files": ["libcufft.so*"], "symbols": ["cufft[A-Z]"], "namespaces": [] } ] }
/// @endcode

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "socratic/core/error.hpp"
#include "socratic/core/files.hpp"
#include "socratic/core/json.hpp"

namespace socratic {

/// @brief One banned library and the evidence patterns that identify it.
struct BannedLibrary {
  std::string name;         ///< lower case, as findings report it: `cublas`
  std::string description;  ///< for people: `cuBLAS (NVIDIA dense linear algebra)`
  /// Glob patterns (`*`, `?`) on a library's file name, without folders: `libcublas.so*`.
  /// Matched against DT_NEEDED entries, `.rodata` strings that name a file, mapped files and
  /// DT_SONAME of mapped files.
  std::vector<std::string> files;
  /// ECMAScript regular expressions matched at the start of a symbol name: `cudnn[A-Z]`.
  /// An imported symbol, or one defined with global or weak binding, that matches is a finding;
  /// a local symbol is not (a helper `static void cudnnStyleNorm()` is the candidate's own).
  std::vector<std::string> symbols;
  /// C++ namespaces: any symbol (host or device, any binding) whose demangled name contains
  /// `NS::` is a finding, as is a host stub or PTX/cubin name that does.
  std::vector<std::string> namespaces;

  friend bool operator==(const BannedLibrary&, const BannedLibrary&) = default;
};

/// @brief The set of banned libraries. Edit `libraries` directly or with add()/remove().
struct BanPolicy {
  std::vector<BannedLibrary> libraries;

  /// @brief The library called `name`, or nullptr.
  const BannedLibrary* find(std::string_view name) const {
    for (const auto& l : libraries)
      if (l.name == name) return &l;
    return nullptr;
  }
  /// @brief Adds `library`, replacing one of the same name.
  void add(BannedLibrary library) {
    for (auto& l : libraries)
      if (l.name == library.name) {
        l = std::move(library);
        return;
      }
    libraries.push_back(std::move(library));
  }
  /// @brief Removes the library called `name`; false when there was none.
  bool remove(std::string_view name) {
    const auto before = libraries.size();
    std::erase_if(libraries, [&](const BannedLibrary& l) { return l.name == name; });
    return libraries.size() != before;
  }
  /// @brief Library names, in order.
  std::vector<std::string> names() const {
    std::vector<std::string> out;
    for (const auto& l : libraries) out.push_back(l.name);
    return out;
  }

  friend bool operator==(const BanPolicy&, const BanPolicy&) = default;
};

/// @brief The default policy: CUTLASS, CuTe, cuBLAS, cuBLASLt, cuDNN.
///
/// cuBLAS's symbol pattern excludes `cublasLt...`, so that a cuBLASLt import is reported as
/// `cublaslt` only. cuBLASDx (`cublasdx::`) counts as cuBLAS and the cuDNN frontend
/// (`cudnn_frontend::`) as cuDNN: both put a vendor GEMM or convolution in the kernel.
inline BanPolicy default_ban_policy() {
  BanPolicy p;
  p.libraries = {
      {"cutlass",
       "CUTLASS (NVIDIA CUDA templates for linear algebra)",
       {"libcutlass.so*"},
       {},
       {"cutlass"}},
      {"cute", "CuTe (CUTLASS's layout and tensor algebra)", {}, {}, {"cute"}},
      {"cublas",
       "cuBLAS (NVIDIA dense linear algebra)",
       {"libcublas.so*"},
       {"cublas(?!Lt)[A-Z]"},
       {"cublasdx"}},
      {"cublaslt",
       "cuBLASLt (cuBLAS lightweight matmul API)",
       {"libcublasLt.so*"},
       {"cublasLt[A-Z]"},
       {}},
      {"cudnn",
       "cuDNN (NVIDIA deep neural network primitives)",
       {"libcudnn.so*", "libcudnn_*.so*"},
       {"cudnn[A-Z]"},
       {"cudnn_frontend"}},
  };
  return p;
}

namespace detail {

inline bool valid_library_name(std::string_view n) {
  if (n.empty() || !((n[0] >= 'a' && n[0] <= 'z') || (n[0] >= '0' && n[0] <= '9'))) return false;
  return std::all_of(n.begin(), n.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '.' ||
           c == '+';
  });
}

inline bool valid_identifier(std::string_view n) {
  if (n.empty() || (n[0] >= '0' && n[0] <= '9')) return false;
  return std::all_of(n.begin(), n.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
  });
}

inline void reject_unknown_fields(const json& j, std::initializer_list<std::string_view> known,
                                  const std::string& file, const std::string& where) {
  socratic::reject_unknown_fields(j, known, file, where, "a misspelt field would silently weaken the policy");
}

inline std::vector<std::string> string_list(const json& j, std::string_view key,
                                            const std::string& file, const std::string& where) {
  std::vector<std::string> out;
  const auto it = j.find(key);
  if (it == j.end() || it->is_null()) return out;
  const std::string field = where + " field \"" + std::string(key) + "\"";
  if (!it->is_array()) throw input_error(file, field, "expected an array of strings");
  for (std::size_t i = 0; i < it->size(); ++i) {
    const json& v = (*it)[i];
    if (!v.is_string() || v.get<std::string>().empty())
      throw input_error(file, field + "[" + std::to_string(i) + "]", "expected a non-empty string");
    out.push_back(v.get<std::string>());
  }
  return out;
}

}  // namespace detail

/// @brief Throws input_error naming `file`, the library entry and the field when `policy` is
/// not usable: a name that is not lower case or is repeated, a library with no pattern, a
/// regular expression that does not compile, a file pattern with a folder, a bad namespace.
inline void validate(const BanPolicy& policy, const std::string& file = {}) {
  std::set<std::string> seen;
  for (std::size_t i = 0; i < policy.libraries.size(); ++i) {
    const BannedLibrary& l = policy.libraries[i];
    const std::string where = "library #" + std::to_string(i) + " \"" + l.name + "\"";
    if (!detail::valid_library_name(l.name))
      throw input_error(file, where + " field \"name\"",
                        "must be lower case letters, digits and _ - . + (e.g. \"cublas\")");
    if (!seen.insert(l.name).second)
      throw input_error(file, where + " field \"name\"", "duplicate library name");
    if (l.files.empty() && l.symbols.empty() && l.namespaces.empty())
      throw input_error(file, where,
                        "no evidence patterns: give at least one of files, symbols, namespaces");
    for (std::size_t k = 0; k < l.files.size(); ++k)
      if (l.files[k].empty() || l.files[k].find('/') != std::string::npos)
        throw input_error(file, where + " field \"files\"[" + std::to_string(k) + "]",
                          "must be a file-name pattern without folders, e.g. \"libcublas.so*\"");
    for (std::size_t k = 0; k < l.symbols.size(); ++k) {
      try {
        std::regex check(l.symbols[k], std::regex::ECMAScript);
      } catch (const std::regex_error& e) {
        throw input_error(file, where + " field \"symbols\"[" + std::to_string(k) + "]",
                          "invalid regular expression \"" + l.symbols[k] + "\": " + e.what());
      }
    }
    for (std::size_t k = 0; k < l.namespaces.size(); ++k)
      if (!detail::valid_identifier(l.namespaces[k]))
        throw input_error(file, where + " field \"namespaces\"[" + std::to_string(k) + "]",
                          "\"" + l.namespaces[k] + "\" is not a C++ identifier");
  }
}

inline void to_json(json& j, const BannedLibrary& l) {
  j = json{{"name", l.name},
           {"description", l.description},
           {"files", l.files},
           {"symbols", l.symbols},
           {"namespaces", l.namespaces}};
}

inline void to_json(json& j, const BanPolicy& p) {
  j = json{{"schema_version", schema_version}, {"libraries", p.libraries}};
}

/// @brief Reads a policy document; `file` names it in errors. Understands `extends` and
/// `remove` (see the file comment) and validates the result.
inline BanPolicy ban_policy_from_json(const json& j, const std::string& file = {}) {
  if (!j.is_object()) throw input_error(file, {}, "a ban policy must be a JSON object");
  detail::reject_unknown_fields(j, {"schema_version", "extends", "remove", "libraries", "comment"},
                                file, "policy");
  try {
    check_schema_version(j, "policy");
  } catch (const input_error& e) {
    throw input_error(file, e.where(), e.message());
  }
  BanPolicy policy;
  bool extends = false;
  if (const auto it = j.find("extends"); it != j.end() && !it->is_null()) {
    if (!it->is_string() || it->get<std::string>() != "default")
      throw input_error(file, "field \"extends\"", "the only policy to extend is \"default\"");
    policy = default_ban_policy();
    extends = true;
  }
  const auto removed = detail::string_list(j, "remove", file, "policy");
  if (!removed.empty() && !extends)
    throw input_error(file, "field \"remove\"",
                      "needs \"extends\": \"default\" (nothing to remove)");
  for (const auto& name : removed)
    if (!policy.remove(name))
      throw input_error(
          file, "field \"remove\"", "\"" + name + "\" is not in the default policy (it has " + [&] {
            std::string names;
            for (const auto& n : default_ban_policy().names())
              names += (names.empty() ? "" : ", ") + n;
            return names;
          }() + ")");
  const auto libs = j.find("libraries");
  if (libs == j.end() && !extends) throw input_error(file, "policy", "missing field \"libraries\"");
  if (libs != j.end()) {
    if (!libs->is_array()) throw input_error(file, "field \"libraries\"", "expected an array");
    std::set<std::string> in_file;
    for (std::size_t i = 0; i < libs->size(); ++i) {
      const json& e = (*libs)[i];
      std::string where = "library #" + std::to_string(i);
      if (!e.is_object()) throw input_error(file, where, "expected an object");
      const auto name = e.find("name");
      if (name == e.end() || !name->is_string())
        throw input_error(file, where, "missing field \"name\" (a string)");
      where += " \"" + name->get<std::string>() + "\"";
      detail::reject_unknown_fields(e, {"name", "description", "files", "symbols", "namespaces"},
                                    file, where);
      if (!in_file.insert(name->get<std::string>()).second)
        throw input_error(file, where + " field \"name\"", "duplicate library name");
      BannedLibrary l;
      l.name = name->get<std::string>();
      if (const auto d = e.find("description"); d != e.end() && !d->is_null()) {
        if (!d->is_string())
          throw input_error(file, where + " field \"description\"", "expected a string");
        l.description = d->get<std::string>();
      }
      l.files = detail::string_list(e, "files", file, where);
      l.symbols = detail::string_list(e, "symbols", file, where);
      l.namespaces = detail::string_list(e, "namespaces", file, where);
      policy.add(std::move(l));
    }
  }
  validate(policy, file);
  return policy;
}

inline void from_json(const json& j, BanPolicy& p) {
  p = ban_policy_from_json(j);
}

/// @brief Loads and validates a policy file; errors name the file, the library and the field.
inline BanPolicy load_ban_policy(const std::filesystem::path& path) {
  return ban_policy_from_json(read_json_file(path), path.string());
}

/// @brief Writes `policy` (validated first) as a complete, self-standing policy file.
inline void save_ban_policy(const BanPolicy& policy, const std::filesystem::path& path) {
  validate(policy, path.string());
  write_json_atomically(path, json(policy));
}

}  // namespace socratic
