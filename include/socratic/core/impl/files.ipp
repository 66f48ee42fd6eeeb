#pragma once
/// @file
/// @brief Definitions for socratic/core/files.hpp: included there in header-only builds, and by
/// socratic/src.hpp (compiled once) with SOCRATIC_SEPARATE_COMPILATION.

#include <random>

#include "socratic/core/files.hpp"

namespace socratic {

SOCRATIC_DECL std::string read_file_bytes(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw input_error(path.string(), {}, "cannot open file");
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) throw input_error(path.string(), {}, "read error");
  return bytes;
}

SOCRATIC_DECL json read_json_file(const std::filesystem::path& path) {
  const std::string text = read_file_bytes(path);
  try {
    return json::parse(text);
  } catch (const json::parse_error& e) {
    throw input_error(path.string(), {}, std::string("invalid JSON: ") + e.what());
  }
}

}  // namespace socratic

namespace socratic::detail {

SOCRATIC_DECL std::string unique_name(std::string_view stem) {
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

SOCRATIC_DECL bool publish_no_replace(const std::filesystem::path& temp,
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

namespace socratic {

SOCRATIC_DECL void write_file_atomically(const std::filesystem::path& path, std::string_view bytes) {
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

SOCRATIC_DECL void write_json_atomically(const std::filesystem::path& path, const json& document, int indent) {
  write_file_atomically(path, document.dump(indent, ' ', false, json::error_handler_t::replace) + "\n");
}

}  // namespace socratic
