#pragma once
/// @file
/// @brief The question bank: entry type, loading and validation.
///
/// A bank is a folder of JSON files (`question_bank/` in the source tree), one file per group.
/// Each file reads
///
/// ```json
/// { "schema_version": 1, "group": "memory", "description": "...",
///   "entries": [ { "id": "memory.coalescing", "text": "...?", "triggers": ["plateau"],
///                  "evidence": "public", "tags": ["dram"], "checks": "..." } ] }
/// ```
///
/// `question_bank/schema.json` is the JSON Schema of a file; docs/question-bank.md explains each
/// field. Every error names the file, the entry (index and id) and the field.

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "socratic/core/error.hpp"
#include "socratic/core/json.hpp"
#include "socratic/core/question.hpp"
#include "socratic/core/files.hpp"
#include "socratic/core/detail/separate_compilation.hpp"

namespace socratic {

/// @brief Normalises a GPU architecture name to `sm_NN`: `sm_90a` -> `sm_90`, `SM_100f` ->
/// `sm_100`, `9.0` -> `sm_90`, `10.0` -> `sm_100`. Empty when the text is not an architecture.
SOCRATIC_DECL std::string normalize_arch(std::string_view text);

/// @brief One question of the bank.
struct BankEntry {
  std::string id;     ///< stable id, unique in the bank (`group.short-name` by convention)
  std::string group;  ///< the group (the file's group)
  std::string text;   ///< the question: short, bounded, checkable; never its own answer
  std::vector<Trigger> triggers;    ///< the moments it serves (at least one)
  bool requires_reference = false;  ///< only when another implementation exists to compare with
  std::vector<std::string> arch;    ///< normalised `sm_NN` names it applies to; empty: any GPU
  /// The problem kinds it needs (`gpu`, `matmul`, `attention`, ...): the problem must have every
  /// one. Empty: any problem (a question about measuring, goals, strategy, validity).
  std::vector<std::string> kinds;
  std::string evidence = "public";  ///< `public`, or `trace` when a recorded campaign credited it
  std::string evidence_ref;         ///< for `trace`: which campaign and question event
  std::vector<std::string> tags;    ///< free labels; some steer selection (docs/question-bank.md)
  std::string checks;               ///< the measurement or reading that answers it
  std::string file;                 ///< the file it was loaded from
  std::size_t index = 0;            ///< its position in that file

  /// @brief Whether it serves trigger `t`.
  bool serves(Trigger t) const {
    return std::find(triggers.begin(), triggers.end(), t) != triggers.end();
  }
  /// @brief Whether it applies on a GPU of architecture `gpu_arch` (any spelling normalize_arch
  /// reads). Entries without `arch` apply everywhere; arch-specific entries never apply when the
  /// architecture is unknown, because a question about an absent unit wastes the agent's turn.
  bool fits_arch(std::string_view gpu_arch) const {
    if (arch.empty()) return true;
    const std::string gpu = normalize_arch(gpu_arch);
    return !gpu.empty() && std::find(arch.begin(), arch.end(), gpu) != arch.end();
  }
  /// @brief Whether it applies to a problem of these kinds (problem.json's `kinds`). A
  /// kind-specific entry never applies to a problem of unknown kinds (an attention question on a
  /// CPU softmax wastes the agent's turn), as an arch-specific one never applies to an unknown GPU.
  bool fits_kinds(const std::vector<std::string>& problem_kinds) const {
    return std::all_of(kinds.begin(), kinds.end(), [&](const std::string& k) {
      return std::find(problem_kinds.begin(), problem_kinds.end(), k) != problem_kinds.end();
    });
  }
  bool has_tag(std::string_view tag) const {
    return std::find(tags.begin(), tags.end(), tag) != tags.end();
  }
  /// @brief `entry #INDEX "ID"`, as errors name it.
  std::string where() const { return "entry #" + std::to_string(index) + " \"" + id + "\""; }
};

/// @brief The problem kinds the shipped bank and problems use (`socratic bank lint` warns on
/// others): `gpu` (a GPU kernel: DRAM, SMs, warps, profilers), `matmul` (tensor-core matrix
/// products), `attention` (attention forward: causal masks, head dims, online softmax), `cpu`.
SOCRATIC_DECL const std::set<std::string>& known_problem_kinds();
SOCRATIC_DECL std::string known_kinds_list();

/// @brief A finding about a bank: an error (the bank is unusable or breaks a rule) or a warning.
struct BankIssue {
  enum class Severity { error, warning };
  Severity severity = Severity::error;
  std::string file;     ///< the file, empty for findings about the whole bank
  std::string where;    ///< the entry, e.g. `entry #3 "memory.coalescing"`; empty for the file
  std::string field;    ///< the field, empty when the finding is about the whole entry or file
  std::string message;  ///< what is wrong

  bool is_error() const noexcept { return severity == Severity::error; }
  /// @brief `FILE: ENTRY: field "F": MESSAGE`, the parts that are known.
  std::string describe() const {
    std::string out;
    if (!file.empty()) out += file + ": ";
    if (!where.empty()) out += where + ": ";
    if (!field.empty()) out += "field \"" + field + "\": ";
    return out + message;
  }
};

/// @brief A loaded bank: every valid entry, in file order (files sorted by name).
struct Bank {
  std::vector<BankEntry> entries;
  std::vector<std::string> files;  ///< the files read

  /// @brief The entry with this id, or nullptr.
  const BankEntry* find(std::string_view id) const {
    for (const auto& e : entries)
      if (e.id == id) return &e;
    return nullptr;
  }
  /// @brief Group names, sorted.
  std::vector<std::string> groups() const {
    std::set<std::string> g;
    for (const auto& e : entries) g.insert(e.group);
    return {g.begin(), g.end()};
  }
};

/// @brief What reading a bank found: the valid entries and every issue, not only the first.
struct BankReadResult {
  Bank bank;
  std::vector<BankIssue> issues;
  bool ok() const {
    return std::none_of(issues.begin(), issues.end(), [](const BankIssue& i) { return i.is_error(); });
  }
};

namespace detail::bank {

SOCRATIC_DECL bool is_slug(std::string_view s, bool allow_dots);

/// Collects the issues of one entry; the entry is kept only when it has no error.
struct EntryParser {
  const std::string& file;
  std::size_t index;
  std::string where;
  std::vector<BankIssue>& issues;
  bool failed = false;

  void error(std::string field, std::string message) {
    issues.push_back({BankIssue::Severity::error, file, where, std::move(field), std::move(message)});
    failed = true;
  }

  std::optional<std::string> string_field(const json& j, const char* key, bool required) {
    auto it = j.find(key);
    if (it == j.end() || it->is_null()) {
      if (required) error(key, "missing (required)");
      return std::nullopt;
    }
    if (!it->is_string()) {
      error(key, std::string("expected a string, found ") + it->type_name());
      return std::nullopt;
    }
    std::string value = it->get<std::string>();
    if (value.find_first_not_of(" \t\r\n") == std::string::npos) {
      error(key, "is empty");
      return std::nullopt;
    }
    return value;
  }

  std::vector<std::string> string_list(const json& j, const char* key, bool required, bool allow_empty) {
    auto it = j.find(key);
    if (it == j.end() || it->is_null()) {
      if (required) error(key, "missing (required)");
      return {};
    }
    if (!it->is_array()) {
      error(key, std::string("expected an array of strings, found ") + it->type_name());
      return {};
    }
    if (!allow_empty && it->empty()) {
      error(key, "is empty (needs at least one value)");
      return {};
    }
    std::vector<std::string> out;
    std::set<std::string> seen;
    for (std::size_t i = 0; i < it->size(); ++i) {
      const json& v = (*it)[i];
      if (!v.is_string()) {
        error(key, "item " + std::to_string(i) + ": expected a string, found " + v.type_name());
        continue;
      }
      std::string s = v.get<std::string>();
      if (!seen.insert(s).second) {
        error(key, "item " + std::to_string(i) + ": \"" + s + "\" is listed twice");
        continue;
      }
      out.push_back(std::move(s));
    }
    return out;
  }
};

inline const std::initializer_list<std::string_view> entry_fields = {
    "id", "group", "text", "triggers", "requires_reference", "arch", "kinds", "evidence", "evidence_ref", "tags", "checks"};

}  // namespace detail::bank

/// @brief Validates one entry of `file`. Returns the entry when valid; appends every problem to
/// `issues` (each naming the file, the entry and the field). `file_group` is the file's group:
/// the entry inherits it, and an entry that names another group is an error.
SOCRATIC_DECL std::optional<BankEntry> parse_bank_entry(const json& j, const std::string& file,
                                                        std::size_t index, const std::string& file_group,
                                                        std::vector<BankIssue>& issues);

/// @brief Validates one bank file already parsed as JSON; appends its valid entries to `bank`
/// and every problem to `issues`.
SOCRATIC_DECL void parse_bank_file(const json& j, const std::string& file, Bank& bank,
                                   std::vector<BankIssue>& issues);

/// @brief Reports every id used by more than one entry (an error: ids must be stable and unique).
SOCRATIC_DECL void find_duplicate_ids(const Bank& bank, std::vector<BankIssue>& issues);

/// @brief The bank files of folder `dir`: every `*.json` except `schema.json`, sorted by name.
SOCRATIC_DECL std::vector<std::filesystem::path> bank_files(const std::filesystem::path& dir);

/// @brief Reads every file of a bank folder and collects every issue (not only the first).
/// Throws input_error only when `dir` is not a folder.
SOCRATIC_DECL BankReadResult read_bank(const std::filesystem::path& dir);

/// @brief Loads a bank folder; throws input_error naming the file, entry and field of the first
/// error (run `socratic bank lint DIR` to see them all).
SOCRATIC_DECL Bank load_bank(const std::filesystem::path& dir);

}  // namespace socratic

#ifndef SOCRATIC_SEPARATE_COMPILATION
#include "socratic/questions/impl/bank.ipp"
#endif
