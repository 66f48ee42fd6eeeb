#pragma once
/// @file
/// @brief Library version and the schema version of every JSON document Socratic writes.

namespace socratic {

/// @brief Library version, semantic versioning.
inline constexpr int version_major = 0;
inline constexpr int version_minor = 1;
inline constexpr int version_patch = 0;
inline constexpr const char* version_string = "0.1.0";

/// @brief Version of the JSON schemas (reports, scenario sets, traces, bank files).
///
/// Readers accept documents whose `schema_version` is at most this value and refuse newer ones
/// with a clear error; a change that old readers would misread increments it.
inline constexpr int schema_version = 1;

}  // namespace socratic
