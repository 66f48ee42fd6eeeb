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
#include <random>
#include <sstream>
#include <string>
#include <string_view>
#include <system_error>

#include "socratic/core/error.hpp"
#include "socratic/core/json.hpp"

namespace socratic {

/// @brief Reads a whole file; throws input_error naming it when it cannot.
inline std::string read_file_bytes(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw input_error(path.string(), {}, "cannot open file");
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) throw input_error(path.string(), {}, "read error");
  return bytes;
}

/// @brief Reads a JSON file; errors name the file (and the line and column of a syntax error).
inline json read_json_file(const std::filesystem::path& path) {
  const std::string text = read_file_bytes(path);
  try {
    return json::parse(text);
  } catch (const json::parse_error& e) {
    throw input_error(path.string(), {}, std::string("invalid JSON: ") + e.what());
  }
}

namespace detail {

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

}  // namespace detail

/// @brief Writes `bytes` to `path` so that readers see the old file or the new one, never a
/// part: a temporary file with a unique name in the same folder (created when missing), then
/// rename. Throws error naming the file when it cannot.
inline void write_file_atomically(const std::filesystem::path& path, std::string_view bytes) {
  namespace fs = std::filesystem;
  const fs::path folder = path.has_parent_path() ? path.parent_path() : fs::path(".");
  fs::create_directories(folder);
  const fs::path temp = folder / detail::unique_name("." + path.filename().string());
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    out.flush();
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

/// @brief Writes a JSON document (indented by `indent`, a newline at the end) atomically.
inline void write_json_atomically(const std::filesystem::path& path, const json& document, int indent = 2) {
  write_file_atomically(path, document.dump(indent, ' ', false, json::error_handler_t::replace) + "\n");
}

}  // namespace socratic
