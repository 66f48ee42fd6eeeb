#pragma once
/// @file
/// @brief nlohmann/json plus the small helpers every `from_json` in Socratic uses, so that a bad
/// document fails with the name of the field that was wrong.

#include <cmath>
#include <initializer_list>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "socratic/core/error.hpp"
#include "socratic/version.hpp"

namespace socratic {

using json = nlohmann::json;

namespace detail {

/// Type name of a json value, for error messages.
inline std::string json_kind(const json& j) { return j.type_name(); }

}  // namespace detail

/// @brief The required member `key` of object `j`, converted to T; throws input_error naming it.
template <class T>
T required(const json& j, std::string_view key, std::string_view where = {}) {
  if (!j.is_object())
    throw input_error({}, std::string(where), "expected an object, found " + detail::json_kind(j));
  auto it = j.find(key);
  if (it == j.end())
    throw input_error({}, std::string(where), "missing field \"" + std::string(key) + "\"");
  try {
    return it->template get<T>();
  } catch (const input_error&) {
    throw;
  } catch (const std::exception& e) {
    throw input_error({}, std::string(where),
                      "field \"" + std::string(key) + "\": " + e.what());
  }
}

/// @brief The optional member `key` of `j` converted to T, or `fallback` when absent or null.
template <class T>
T optional_field(const json& j, std::string_view key, T fallback, std::string_view where = {}) {
  if (!j.is_object()) return fallback;
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return fallback;
  try {
    return it->template get<T>();
  } catch (const input_error&) {
    throw;
  } catch (const std::exception& e) {
    throw input_error({}, std::string(where),
                      "field \"" + std::string(key) + "\": " + e.what());
  }
}

/// @brief The optional member `key` of `j` converted to T, or nullopt when absent or null.
template <class T>
std::optional<T> optional_value(const json& j, std::string_view key, std::string_view where = {}) {
  if (!j.is_object()) return std::nullopt;
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return std::nullopt;
  try {
    return it->template get<T>();
  } catch (const input_error&) {
    throw;
  } catch (const std::exception& e) {
    throw input_error({}, std::string(where),
                      "field \"" + std::string(key) + "\": " + e.what());
  }
}

/// @brief A number that may be null in JSON (nlohmann writes NaN and infinities as null).
inline double number_or_nan(const json& j, std::string_view key) {
  if (!j.is_object()) return std::numeric_limits<double>::quiet_NaN();
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return std::numeric_limits<double>::quiet_NaN();
  if (!it->is_number())
    throw input_error({}, {}, "field \"" + std::string(key) + "\": expected a number, found " +
                                  detail::json_kind(*it));
  return it->get<double>();
}

/// @brief The members of object `j` whose names are not in `known`, in document order (none when
/// `j` is not an object). For readers that collect every issue instead of throwing at the first.
inline std::vector<std::string> unknown_fields(const json& j, std::initializer_list<std::string_view> known) {
  std::vector<std::string> out;
  if (!j.is_object()) return out;
  for (auto it = j.begin(); it != j.end(); ++it) {
    bool listed = false;
    for (std::string_view k : known) listed = listed || it.key() == k;
    if (!listed) out.push_back(it.key());
  }
  return out;
}

/// @brief The one wording of an unknown field: `unknown field "KEY" (known: a, b, c)`.
inline std::string unknown_field_message(std::string_view key, std::initializer_list<std::string_view> known) {
  std::string list;
  for (std::string_view k : known) {
    if (k.empty() || k.front() == '$') continue;  // markers such as "$schema" need no mention
    list += (list.empty() ? "" : ", ") + std::string(k);
  }
  return "unknown field \"" + std::string(key) + "\" (known: " + list + ")";
}

/// @brief Refuses a member of object `j` that is not in `known`: a misspelt field would silently
/// mean its default. Throws input_error(file, where, the message above, then `; why` when given).
inline void reject_unknown_fields(const json& j, std::initializer_list<std::string_view> known,
                                  const std::string& file = {}, const std::string& where = {},
                                  std::string_view why = {}) {
  const std::vector<std::string> unknown = unknown_fields(j, known);
  if (unknown.empty()) return;
  std::string message = unknown_field_message(unknown.front(), known);
  if (!why.empty()) message += "; " + std::string(why);
  throw input_error(file, where, std::move(message));
}

/// @brief Refuses documents written by a newer schema than this library reads.
inline void check_schema_version(const json& j, std::string_view what) {
  const int v = optional_field<int>(j, "schema_version", schema_version);
  if (v > schema_version)
    throw input_error({}, std::string(what),
                      "schema_version " + std::to_string(v) + " is newer than this Socratic reads (" +
                          std::to_string(schema_version) + "); upgrade Socratic");
  if (v < 1)
    throw input_error({}, std::string(what), "schema_version " + std::to_string(v) + " is invalid");
}

}  // namespace socratic
