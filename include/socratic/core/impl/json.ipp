#pragma once
/// @file
/// @brief Definitions for socratic/core/json.hpp: included there in header-only builds, and by
/// socratic/src.hpp (compiled once) with SOCRATIC_SEPARATE_COMPILATION.

#include "socratic/core/json.hpp"

namespace socratic::detail {

SOCRATIC_DECL std::string json_kind(const json& j) { return j.type_name(); }

}  // namespace socratic::detail

namespace socratic {

SOCRATIC_DECL double number_or_nan(const json& j, std::string_view key) {
  if (!j.is_object()) return std::numeric_limits<double>::quiet_NaN();
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return std::numeric_limits<double>::quiet_NaN();
  if (!it->is_number())
    throw input_error({}, {}, "field \"" + std::string(key) + "\": expected a number, found " +
                                  detail::json_kind(*it));
  return it->get<double>();
}

SOCRATIC_DECL std::vector<std::string> unknown_fields(const json& j, std::initializer_list<std::string_view> known) {
  std::vector<std::string> out;
  if (!j.is_object()) return out;
  for (auto it = j.begin(); it != j.end(); ++it) {
    bool listed = false;
    for (std::string_view k : known) listed = listed || it.key() == k;
    if (!listed) out.push_back(it.key());
  }
  return out;
}

SOCRATIC_DECL std::string unknown_field_message(std::string_view key, std::initializer_list<std::string_view> known) {
  std::string list;
  for (std::string_view k : known) {
    if (k.empty() || k.front() == '$') continue;  // markers such as "$schema" need no mention
    list += (list.empty() ? "" : ", ") + std::string(k);
  }
  return "unknown field \"" + std::string(key) + "\" (known: " + list + ")";
}

SOCRATIC_DECL void reject_unknown_fields(const json& j, std::initializer_list<std::string_view> known,
                                         const std::string& file, const std::string& where,
                                         std::string_view why) {
  const std::vector<std::string> unknown = unknown_fields(j, known);
  if (unknown.empty()) return;
  std::string message = unknown_field_message(unknown.front(), known);
  if (!why.empty()) message += "; " + std::string(why);
  throw input_error(file, where, std::move(message));
}

SOCRATIC_DECL void check_schema_version(const json& j, std::string_view what) {
  const int v = optional_field<int>(j, "schema_version", schema_version);
  if (v > schema_version)
    throw input_error({}, std::string(what),
                      "schema_version " + std::to_string(v) + " is newer than this Socratic reads (" +
                          std::to_string(schema_version) + "); upgrade Socratic");
  if (v < 1)
    throw input_error({}, std::string(what), "schema_version " + std::to_string(v) + " is invalid");
}

}  // namespace socratic
