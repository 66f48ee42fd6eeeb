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

namespace socratic {

/// @brief Normalises a GPU architecture name to `sm_NN`: `sm_90a` -> `sm_90`, `SM_100f` ->
/// `sm_100`, `9.0` -> `sm_90`, `10.0` -> `sm_100`. Empty when the text is not an architecture.
inline std::string normalize_arch(std::string_view text) {
  std::string s;
  for (char c : text) s += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (s.empty()) return {};
  // Compute capability form: "9.0", "10.0", "8.6".
  if (auto dot = s.find('.'); dot != std::string::npos) {
    const std::string major = s.substr(0, dot), minor = s.substr(dot + 1);
    auto digits = [](const std::string& d) {
      return !d.empty() && std::all_of(d.begin(), d.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
    };
    if (!digits(major) || !digits(minor) || minor.size() != 1) return {};
    return "sm_" + major + minor;
  }
  if (s.rfind("sm_", 0) != 0) return {};
  std::string digits = s.substr(3);
  if (!digits.empty() && (digits.back() == 'a' || digits.back() == 'f')) digits.pop_back();
  if (digits.size() < 2 || digits.size() > 3 ||
      !std::all_of(digits.begin(), digits.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }))
    return {};
  return "sm_" + digits;
}

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
inline const std::set<std::string>& known_problem_kinds() {
  static const std::set<std::string> kinds = {"gpu", "matmul", "attention", "cpu"};
  return kinds;
}
inline std::string known_kinds_list() {
  std::string out;
  for (const auto& k : known_problem_kinds()) out += (out.empty() ? "" : ", ") + k;
  return out;
}

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

inline bool is_slug(std::string_view s, bool allow_dots) {
  if (s.empty() || !(std::islower(static_cast<unsigned char>(s[0])) || std::isdigit(static_cast<unsigned char>(s[0]))))
    return false;
  return std::all_of(s.begin(), s.end(), [&](char c) {
    return std::islower(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c)) ||
           c == '-' || c == '_' || (allow_dots && c == '.');
  });
}

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
inline std::optional<BankEntry> parse_bank_entry(const json& j, const std::string& file,
                                                 std::size_t index, const std::string& file_group,
                                                 std::vector<BankIssue>& issues) {
  using detail::bank::EntryParser;
  EntryParser p{file, index, "entry #" + std::to_string(index), issues};
  if (!j.is_object()) {
    p.error("", std::string("expected an object, found ") + j.type_name());
    return std::nullopt;
  }
  BankEntry e;
  e.file = file;
  e.index = index;
  if (auto id = p.string_field(j, "id", true)) {
    e.id = *id;
    p.where += " \"" + e.id + "\"";
    if (!detail::bank::is_slug(e.id, true))
      p.error("id", "\"" + e.id + "\" is not a valid id (lower-case letters, digits, '.', '-', '_')");
  }
  for (const auto& key : unknown_fields(j, detail::bank::entry_fields))
    p.error(key, unknown_field_message(key, detail::bank::entry_fields));

  if (j.contains("group")) {
    if (auto g = p.string_field(j, "group", false)) {
      if (!file_group.empty() && *g != file_group)
        p.error("group", "\"" + *g + "\" differs from the file's group \"" + file_group + "\"");
      else if (!detail::bank::is_slug(*g, false))
        p.error("group", "\"" + *g + "\" is not a valid group name (lower-case letters, digits, '-', '_')");
      e.group = *g;
    }
  } else if (file_group.empty()) {
    p.error("group", "missing (required when the file names no group)");
  } else {
    e.group = file_group;
  }

  if (auto t = p.string_field(j, "text", true)) e.text = *t;

  for (const auto& name : p.string_list(j, "triggers", true, false)) {
    if (auto t = parse_trigger(name))
      e.triggers.push_back(*t);
    else
      p.error("triggers", "unknown trigger \"" + name +
                              "\" (start, plateau, claimed_limit, suspicious_gain, "
                              "correctness_explained_away)");
  }

  if (auto it = j.find("requires_reference"); it != j.end() && !it->is_null()) {
    if (it->is_boolean())
      e.requires_reference = it->get<bool>();
    else
      p.error("requires_reference", std::string("expected true or false, found ") + it->type_name());
  }

  if (auto it = j.find("arch"); it != j.end() && !it->is_null()) {
    std::vector<std::string> names;
    if (it->is_string())
      names.push_back(it->get<std::string>());
    else
      names = p.string_list(j, "arch", false, false);
    for (const auto& name : names) {
      const std::string norm = normalize_arch(name);
      if (norm.empty() || name.rfind("sm_", 0) != 0)
        p.error("arch", "\"" + name + "\" is not an architecture (write sm_80, sm_90, sm_100, ...)");
      else if (std::find(e.arch.begin(), e.arch.end(), norm) == e.arch.end())
        e.arch.push_back(norm);
    }
  }

  e.kinds = p.string_list(j, "kinds", false, false);
  for (const auto& kind : e.kinds)
    if (!detail::bank::is_slug(kind, false))
      p.error("kinds", "\"" + kind + "\" is not a valid kind (lower-case letters, digits, '-', '_')");

  if (auto ev = p.string_field(j, "evidence", true)) {
    if (*ev != "public" && *ev != "trace")
      p.error("evidence", "\"" + *ev + "\" is not one of public, trace");
    e.evidence = *ev;
  }
  if (j.contains("evidence_ref")) {
    if (auto ref = p.string_field(j, "evidence_ref", false)) e.evidence_ref = *ref;
  }
  if (e.evidence == "trace" && e.evidence_ref.empty() && !j.contains("evidence_ref"))
    p.error("evidence_ref", "missing (required when evidence is \"trace\": name the campaign and "
                            "the question event, e.g. \"CAMPAIGN_ID#SEQ\")");

  e.tags = p.string_list(j, "tags", true, true);
  for (const auto& tag : e.tags)
    if (!detail::bank::is_slug(tag, false))
      p.error("tags", "\"" + tag + "\" is not a valid tag (lower-case letters, digits, '-', '_')");

  if (j.contains("checks")) {
    if (auto c = p.string_field(j, "checks", false)) e.checks = *c;
  }

  if (p.failed) return std::nullopt;
  return e;
}

/// @brief Validates one bank file already parsed as JSON; appends its valid entries to `bank`
/// and every problem to `issues`.
inline void parse_bank_file(const json& j, const std::string& file, Bank& bank,
                            std::vector<BankIssue>& issues) {
  auto file_error = [&](std::string field, std::string message) {
    issues.push_back({BankIssue::Severity::error, file, "", std::move(field), std::move(message)});
  };
  if (!j.is_object()) {
    file_error("", std::string("expected an object with \"entries\", found ") + j.type_name());
    return;
  }
  static const std::initializer_list<std::string_view> known = {"$schema", "schema_version", "group",
                                                                    "description", "entries"};
  for (const auto& key : unknown_fields(j, known)) file_error(key, unknown_field_message(key, known));
  try {
    check_schema_version(j, "bank file");
  } catch (const input_error& e) {
    file_error("schema_version", e.message());
    return;
  }
  std::string group;
  if (auto it = j.find("group"); it != j.end()) {
    if (!it->is_string() || !detail::bank::is_slug(it->get<std::string>(), false)) {
      file_error("group", "expected a group name (lower-case letters, digits, '-', '_')");
      return;
    }
    group = it->get<std::string>();
  }
  auto entries = j.find("entries");
  if (entries == j.end() || !entries->is_array()) {
    file_error("entries", entries == j.end() ? "missing (required)" : "expected an array of entries");
    return;
  }
  bank.files.push_back(file);
  for (std::size_t i = 0; i < entries->size(); ++i)
    if (auto e = parse_bank_entry((*entries)[i], file, i, group, issues)) bank.entries.push_back(std::move(*e));
}

/// @brief Reports every id used by more than one entry (an error: ids must be stable and unique).
inline void find_duplicate_ids(const Bank& bank, std::vector<BankIssue>& issues) {
  std::map<std::string, const BankEntry*> first;
  for (const auto& e : bank.entries) {
    auto [it, inserted] = first.emplace(e.id, &e);
    if (!inserted)
      issues.push_back({BankIssue::Severity::error, e.file, e.where(), "id",
                        "duplicate id, first used by " + it->second->file + " " + it->second->where()});
  }
}

/// @brief The bank files of folder `dir`: every `*.json` except `schema.json`, sorted by name.
inline std::vector<std::filesystem::path> bank_files(const std::filesystem::path& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw input_error(dir.string(), {}, "not a folder (expected a question bank)");
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(dir))
    if (entry.is_regular_file() && entry.path().extension() == ".json" &&
        entry.path().filename() != "schema.json")
      files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  return files;
}

/// @brief Reads every file of a bank folder and collects every issue (not only the first).
/// Throws input_error only when `dir` is not a folder.
inline BankReadResult read_bank(const std::filesystem::path& dir) {
  BankReadResult result;
  const auto files = bank_files(dir);
  if (files.empty())
    result.issues.push_back({BankIssue::Severity::error, dir.string(), "", "", "no bank files (*.json) in the folder"});
  for (const auto& path : files) {
    json j;
    try {
      j = read_json_file(path);
    } catch (const input_error& e) {
      result.issues.push_back({BankIssue::Severity::error, path.string(), "", "", e.message()});
      continue;
    }
    parse_bank_file(j, path.string(), result.bank, result.issues);
  }
  find_duplicate_ids(result.bank, result.issues);
  return result;
}

/// @brief Loads a bank folder; throws input_error naming the file, entry and field of the first
/// error (run `socratic bank lint DIR` to see them all).
inline Bank load_bank(const std::filesystem::path& dir) {
  BankReadResult r = read_bank(dir);
  for (const auto& issue : r.issues)
    if (issue.is_error()) {
      std::string where = issue.where;
      if (!issue.field.empty()) where += (where.empty() ? "" : " ") + std::string("field \"") + issue.field + "\"";
      throw input_error(issue.file, where, issue.message);
    }
  return std::move(r.bank);
}

}  // namespace socratic
