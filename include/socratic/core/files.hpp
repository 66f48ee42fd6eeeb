#pragma once
/// @file
/// @brief Files, the one way Socratic reads and writes them: whole files as bytes, JSON documents
/// with errors that name the file, and writes that readers never see half done (a temporary file
/// in the same folder, then rename). Shared by the trace's snapshots, the build cache, the
/// integrity manifest, credit tables, reports and the tool. Light: the standard library.

#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <string_view>
#include <system_error>

#include "socratic/core/error.hpp"
#include "socratic/core/json.hpp"
#include "socratic/core/detail/separate_compilation.hpp"

namespace socratic {

/// @brief Reads a whole file; throws input_error naming it when it cannot.
SOCRATIC_DECL std::string read_file_bytes(const std::filesystem::path& path);

/// @brief Reads a JSON file; errors name the file (and the line and column of a syntax error).
SOCRATIC_DECL json read_json_file(const std::filesystem::path& path);

namespace detail {

/// @brief A name no other process or thread will pick: `stem.PID.RANDOM.COUNTER`.
SOCRATIC_DECL std::string unique_name(std::string_view stem);

/// @brief Publishes `temp` as `final_path` unless another writer already did (first writer wins,
/// so a published file never changes under a reader). Removes `temp` either way. Returns true
/// when this call published it.
SOCRATIC_DECL bool publish_no_replace(const std::filesystem::path& temp,
                                      const std::filesystem::path& final_path);

}  // namespace detail

/// @brief Writes `bytes` to `path` so that readers see the old file or the new one, never a
/// part: a temporary file with a unique name in the same folder (created when missing), then
/// rename. Throws error naming the file when it cannot.
SOCRATIC_DECL void write_file_atomically(const std::filesystem::path& path, std::string_view bytes);

/// @brief Writes a JSON document (indented by `indent`, a newline at the end) atomically.
SOCRATIC_DECL void write_json_atomically(const std::filesystem::path& path, const json& document, int indent = 2);

}  // namespace socratic

#ifndef SOCRATIC_SEPARATE_COMPILATION
#include "socratic/core/impl/files.ipp"
#endif
