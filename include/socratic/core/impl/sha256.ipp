#pragma once
/// @file
/// @brief Definitions for socratic/core/detail/sha256.hpp: included there in header-only builds, and by
/// socratic/src.hpp (compiled once) with SOCRATIC_SEPARATE_COMPILATION.

#include "socratic/core/detail/sha256.hpp"

namespace socratic::detail {

SOCRATIC_DECL std::string sha256_hex(std::string_view bytes) { return sha256().update(bytes).hex(); }

SOCRATIC_DECL std::string sha256_file(const std::filesystem::path& path) {
  return sha256_hex(read_file_bytes(path));
}

}  // namespace socratic::detail
