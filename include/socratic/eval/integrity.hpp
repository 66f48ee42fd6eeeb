#pragma once
/// @file
/// @brief IntegrityManifest: SHA-256 of the files an evaluation trusts (the harness, the
/// problem's folder, the scenario set, the problem registry; a command evaluator's script and
/// its files) and of the settings that judge (the evaluator command, the goal), recorded once
/// (at install or campaign start) and verified before every evaluation, so that an agent cannot
/// edit its judge. Folders are recorded with their full listing: a file added to one is a
/// mismatch too.
/// Light: OpenSSL's digest, nlohmann/json, the standard library.

#include <time.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "socratic/core/error.hpp"
#include "socratic/core/json.hpp"
#include "socratic/core/scenario.hpp"
#include "socratic/core/detail/sha256.hpp"
#include "socratic/core/files.hpp"

namespace socratic {

/// @brief The recorded digests. Paths are absolute and normalised.
struct IntegrityManifest {
  std::string created;  ///< UTC time of recording, ISO 8601
  std::filesystem::path root;  ///< paths under it are shown relative to it in messages
  std::map<std::string, std::string> files;  ///< path -> SHA-256 hex
  std::vector<std::string> folders;          ///< folders whose every file is in `files`
  /// Settings that judge, by name (`evaluator command`, `goal`): SHA-256 of their text.
  std::map<std::string, std::string> values;

  /// @brief True when `path` (a file) is covered: listed, or inside a recorded folder.
  bool covers(const std::filesystem::path& path) const {
    const std::string p = std::filesystem::absolute(path).lexically_normal().string();
    if (files.count(p)) return true;
    for (const auto& f : folders)
      if (p.size() > f.size() && p.compare(0, f.size(), f) == 0 && p[f.size()] == '/') return true;
    return false;
  }
  friend bool operator==(const IntegrityManifest&, const IntegrityManifest&) = default;
};

namespace detail {

inline std::string normal_path(const std::filesystem::path& p) {
  std::string s = std::filesystem::absolute(p).lexically_normal().string();
  while (s.size() > 1 && s.back() == '/') s.pop_back();
  return s;
}

inline std::vector<std::string> files_under(const std::string& folder) {
  namespace fs = std::filesystem;
  std::vector<std::string> out;
  std::error_code ec;
  if (!fs::is_directory(folder, ec)) return out;
  for (auto it = fs::recursive_directory_iterator(folder, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec))
    if (it->is_regular_file(ec) || it->is_symlink(ec)) out.push_back(normal_path(it->path()));
  std::sort(out.begin(), out.end());
  return out;
}

inline std::string utc_now_iso() {
  const std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

inline std::string short_digest(const std::string& hex) { return hex.substr(0, 12); }

}  // namespace detail

/// @brief Records the digests of `files` and of every file under `folders` (recursively).
/// Throws input_error naming a file that cannot be read or a folder that does not exist.
inline IntegrityManifest record_integrity(const std::vector<std::filesystem::path>& files,
                                          const std::vector<std::filesystem::path>& folders,
                                          const std::filesystem::path& root = {}) {
  IntegrityManifest m;
  m.created = detail::utc_now_iso();
  m.root = root.empty() ? std::filesystem::path() : std::filesystem::path(detail::normal_path(root));
  for (const auto& folder : folders) {
    const std::string f = detail::normal_path(folder);
    if (!std::filesystem::is_directory(f)) throw input_error(f, {}, "folder to protect does not exist");
    if (std::find(m.folders.begin(), m.folders.end(), f) == m.folders.end()) m.folders.push_back(f);
    for (const auto& file : detail::files_under(f)) m.files[file] = detail::sha256_file(file);
  }
  for (const auto& file : files) {
    const std::string f = detail::normal_path(file);
    m.files[f] = detail::sha256_file(f);
  }
  return m;
}

/// @brief Records the SHA-256 of a setting that judges (e.g. the evaluator command's JSON).
inline void record_value(IntegrityManifest& m, const std::string& name, const std::string& text) {
  m.values[name] = detail::sha256_hex(text);
}

/// @brief The settings in `current` (name to text) that differ from the manifest or were never
/// recorded, one sentence each; recorded settings absent from `current` are not checked.
inline std::vector<std::string> verify_values(const IntegrityManifest& m,
                                              const std::map<std::string, std::string>& current) {
  std::vector<std::string> out;
  const std::string since = m.created.empty() ? std::string() : " since " + m.created;
  for (const auto& [name, text] : current) {
    const auto it = m.values.find(name);
    if (it == m.values.end())
      out.push_back("the " + name + " was not recorded at the campaign's start");
    else if (it->second != detail::sha256_hex(text))
      out.push_back("the " + name + " changed" + since);
  }
  return out;
}

/// @brief `path` relative to the manifest's root when under it, else as is.
inline std::string display_path(const IntegrityManifest& m, const std::string& path) {
  if (!m.root.empty()) {
    const std::string r = m.root.string();
    if (path.size() > r.size() && path.compare(0, r.size(), r) == 0 && path[r.size()] == '/')
      return path.substr(r.size() + 1);
  }
  return path;
}

/// @brief Every difference between the files now and the manifest, one sentence each (empty
/// when everything is unmodified), e.g. `kernels/rmsnorm/problem.cu was modified (sha256 ...)`.
inline std::vector<std::string> verify_integrity(const IntegrityManifest& m) {
  std::vector<std::string> out;
  const std::string since = m.created.empty() ? std::string() : " since " + m.created;
  for (const auto& [path, digest] : m.files) {
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) {
      out.push_back(display_path(m, path) + " was removed" + since);
      continue;
    }
    std::string now;
    try {
      now = detail::sha256_file(path);
    } catch (const std::exception&) {
      out.push_back(display_path(m, path) + " can no longer be read");
      continue;
    }
    if (now != digest)
      out.push_back(display_path(m, path) + " was modified" + since + " (sha256 " +
                    detail::short_digest(digest) + "... recorded, " + detail::short_digest(now) +
                    "... now)");
  }
  for (const auto& folder : m.folders) {
    if (!std::filesystem::is_directory(folder)) {
      out.push_back(display_path(m, folder) + " (folder) was removed" + since);
      continue;
    }
    for (const auto& file : detail::files_under(folder))
      if (!m.files.count(file))
        out.push_back("new file " + display_path(m, file) + " appeared in " + display_path(m, folder) + since);
  }
  return out;
}

inline void to_json(json& j, const IntegrityManifest& m) {
  j = json{{"schema_version", schema_version}, {"created", m.created}, {"root", m.root.string()},
           {"folders", m.folders}, {"files", m.files}};
  if (!m.values.empty()) j["values"] = m.values;
}
inline void from_json(const json& j, IntegrityManifest& m) {
  check_schema_version(j, "integrity manifest");
  m.created = optional_field<std::string>(j, "created", "");
  m.root = optional_field<std::string>(j, "root", "");
  m.folders = optional_field<std::vector<std::string>>(j, "folders", {});
  m.files = required<std::map<std::string, std::string>>(j, "files", "integrity manifest");
  m.values = optional_field<std::map<std::string, std::string>>(j, "values", {});
  for (const auto& [path, digest] : m.files)
    if (digest.size() != 64 || digest.find_first_not_of("0123456789abcdef") != std::string::npos)
      throw input_error({}, "files \"" + path + "\"", "not a SHA-256 hex digest");
}

/// @brief Writes the manifest (atomically: concurrent readers see the old or the new one).
inline void save_integrity_manifest(const IntegrityManifest& m, const std::filesystem::path& path) {
  write_file_atomically(path, json(m).dump(2) + "\n");
}

/// @brief Reads a manifest; errors name the file and the field.
inline IntegrityManifest load_integrity_manifest(const std::filesystem::path& path) {
  const json j = read_json_file(path);
  try {
    return j.get<IntegrityManifest>();
  } catch (const input_error& e) {
    throw input_error(path.string(), e.where(), e.message());
  }
}

}  // namespace socratic
