#pragma once
/// @file
/// @brief Definitions for socratic/questions/bank.hpp: included there in header-only builds, and by
/// socratic/src.hpp (compiled once) with SOCRATIC_SEPARATE_COMPILATION.

#include "socratic/questions/bank.hpp"

namespace socratic {

SOCRATIC_DECL std::string normalize_arch(std::string_view text) {
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

SOCRATIC_DECL const std::set<std::string>& known_problem_kinds() {
  static const std::set<std::string> kinds = {"gpu", "matmul", "attention", "cpu"};
  return kinds;
}

SOCRATIC_DECL std::string known_kinds_list() {
  std::string out;
  for (const auto& k : known_problem_kinds()) out += (out.empty() ? "" : ", ") + k;
  return out;
}

}  // namespace socratic

namespace socratic::detail::bank {

SOCRATIC_DECL bool is_slug(std::string_view s, bool allow_dots) {
  if (s.empty() || !(std::islower(static_cast<unsigned char>(s[0])) || std::isdigit(static_cast<unsigned char>(s[0]))))
    return false;
  return std::all_of(s.begin(), s.end(), [&](char c) {
    return std::islower(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c)) ||
           c == '-' || c == '_' || (allow_dots && c == '.');
  });
}

}  // namespace socratic::detail::bank

namespace socratic {

SOCRATIC_DECL std::optional<BankEntry> parse_bank_entry(const json& j, const std::string& file,
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

SOCRATIC_DECL void parse_bank_file(const json& j, const std::string& file, Bank& bank,
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

SOCRATIC_DECL void find_duplicate_ids(const Bank& bank, std::vector<BankIssue>& issues) {
  std::map<std::string, const BankEntry*> first;
  for (const auto& e : bank.entries) {
    auto [it, inserted] = first.emplace(e.id, &e);
    if (!inserted)
      issues.push_back({BankIssue::Severity::error, e.file, e.where(), "id",
                        "duplicate id, first used by " + it->second->file + " " + it->second->where()});
  }
}

SOCRATIC_DECL std::vector<std::filesystem::path> bank_files(const std::filesystem::path& dir) {
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

SOCRATIC_DECL BankReadResult read_bank(const std::filesystem::path& dir) {
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

SOCRATIC_DECL Bank load_bank(const std::filesystem::path& dir) {
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
