#pragma once
/// @file
/// @brief Files that other processes may read while we write them: unique temporary names,
/// write-then-rename, and first-writer-wins publication (hard link, never replace). Used by the
/// build cache and the integrity manifest, which concurrent evaluators share.

#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <string_view>
#include <system_error>

#include "socratic/core/error.hpp"

namespace socratic::detail {

/// @brief A name no other process or thread will pick: `stem.PID.RANDOM.COUNTER`.
inline std::string unique_name(std::string_view stem) {
  static std::atomic<unsigned long long> counter{0};
  static const unsigned long long salt = [] {
    std::random_device rd;
    return (static_cast<unsigned long long>(rd()) << 32) ^ rd();
  }();
  char buf[64];
  std::snprintf(buf, sizeof buf, ".%ld.%llx.%llu", static_cast<long>(::getpid()), salt,
                counter.fetch_add(1));
  return std::string(stem) + buf;
}

/// @brief Writes `bytes` to `path` so that readers see the old file or the new one, never a
/// part: a temporary file in the same folder, then rename.
inline void write_file_atomically(const std::filesystem::path& path, std::string_view bytes) {
  namespace fs = std::filesystem;
  fs::create_directories(path.parent_path());
  const fs::path temp = path.parent_path() / unique_name("." + path.filename().string());
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    if (!out) {
      std::error_code ignored;
      fs::remove(temp, ignored);
      throw error("cannot write " + temp.string());
    }
  }
  std::error_code ec;
  fs::rename(temp, path, ec);
  if (ec) {
    std::error_code ignored;
    fs::remove(temp, ignored);
    throw error("cannot rename " + temp.string() + " to " + path.string() + ": " + ec.message());
  }
}

/// @brief Publishes `temp` as `final_path` unless another writer already did (first writer wins,
/// so a published file never changes under a reader). Removes `temp` either way. Returns true
/// when this call published it.
inline bool publish_no_replace(const std::filesystem::path& temp,
                               const std::filesystem::path& final_path) {
  namespace fs = std::filesystem;
  fs::create_directories(final_path.parent_path());
  std::error_code ec;
  fs::create_hard_link(temp, final_path, ec);
  std::error_code ignored;
  fs::remove(temp, ignored);
  if (!ec) return true;
  if (ec == std::errc::file_exists) return false;
  throw error("cannot publish " + final_path.string() + ": " + ec.message());
}

}  // namespace socratic::detail
