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
#include "socratic/core/detail/separate_compilation.hpp"
#include "socratic/version.hpp"

namespace socratic {

using json = nlohmann::json;

namespace detail {

/// Type name of a json value, for error messages.
SOCRATIC_DECL std::string json_kind(const json& j);

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
SOCRATIC_DECL double number_or_nan(const json& j, std::string_view key);

/// @brief The members of object `j` whose names are not in `known`, in document order (none when
/// `j` is not an object). For readers that collect every issue instead of throwing at the first.
SOCRATIC_DECL std::vector<std::string> unknown_fields(const json& j, std::initializer_list<std::string_view> known);

/// @brief The one wording of an unknown field: `unknown field "KEY" (known: a, b, c)`.
SOCRATIC_DECL std::string unknown_field_message(std::string_view key, std::initializer_list<std::string_view> known);

/// @brief Refuses a member of object `j` that is not in `known`: a misspelt field would silently
/// mean its default. Throws input_error(file, where, the message above, then `; why` when given).
SOCRATIC_DECL void reject_unknown_fields(const json& j, std::initializer_list<std::string_view> known,
                                         const std::string& file = {}, const std::string& where = {},
                                         std::string_view why = {});

/// @brief Refuses documents written by a newer schema than this library reads.
SOCRATIC_DECL void check_schema_version(const json& j, std::string_view what);

}  // namespace socratic

#ifndef SOCRATIC_SEPARATE_COMPILATION
#include "socratic/core/impl/json.ipp"
#endif
