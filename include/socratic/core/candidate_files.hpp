#pragma once
/// @file
/// @brief The files a candidate is made of: its entry file and the headers of its own folder
/// that it includes, transitively (a kernel split by role, as kernels/hopper/ is). They are what
/// a campaign hashes, snapshots and judges, so that an edit to any of them is a new candidate.

#include <algorithm>
#include <filesystem>
#include <regex>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "socratic/core/error.hpp"
#include "socratic/core/files.hpp"
#include "socratic/detail/sha256.hpp"

namespace socratic {

/// @brief A candidate's files, the entry first; paths relative to the entry's folder.
struct CandidateFiles {
  std::vector<std::pair<std::filesystem::path, std::string>> files;

  bool single() const noexcept { return files.size() == 1; }
  const std::string& entry_bytes() const { return files.front().second; }

  /// @brief The candidate's content hash: the SHA-256 of the entry's bytes for a single file (as
  /// traces have always named candidates), else of every file's relative path and bytes in
  /// order of path.
  std::string hash() const {
    if (single()) return detail::sha256_hex(entry_bytes());
    std::vector<std::size_t> order(files.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return files[a].first < files[b].first; });
    std::string all = "socratic-candidate-files\n";
    for (std::size_t i : order) {
      const auto& [path, bytes] = files[i];
      all += path.generic_string();
      all += '\0';
      all += std::to_string(bytes.size());
      all += '\0';
      all += bytes;
    }
    return detail::sha256_hex(all);
  }
};

/// @brief The most files and bytes a candidate may consist of.
struct CandidateFileLimits {
  std::size_t max_files = 256;
  std::size_t max_bytes = std::size_t(32) << 20;
};

/// @brief Reads `entry` and every file of its folder (or below) that it includes, transitively,
/// with `#include "..."` or `#include <...>`. An include that names no file there (a system or
/// CUDA header, a header of the problem's folder) is left to the compiler's include path.
/// @throws error when the entry cannot be read or the limits are passed.
inline CandidateFiles read_candidate_files(const std::filesystem::path& entry, CandidateFileLimits limits = {}) {
  namespace fs = std::filesystem;
  const fs::path root = fs::absolute(entry).lexically_normal().parent_path();
  CandidateFiles out;
  out.files.emplace_back(entry.filename(), read_file_bytes(entry));
  static const std::regex include_line(R"(^[ \t]*#[ \t]*include[ \t]*["<]([^">\r\n]+)[">])", std::regex::multiline);
  std::set<std::string> seen = {entry.filename().generic_string()};
  std::size_t bytes = out.files.front().second.size();
  for (std::size_t next = 0; next < out.files.size(); ++next) {
    const fs::path including = out.files[next].first.parent_path();
    const std::string text = out.files[next].second;  // copied: out.files grows below
    for (std::sregex_iterator it(text.begin(), text.end(), include_line), end; it != end; ++it) {
      const fs::path named((*it)[1].str());
      if (named.is_absolute()) continue;
      for (const fs::path& base : {including, fs::path()}) {
        const fs::path relative = (base / named).lexically_normal();
        if (relative.empty() || *relative.begin() == "..") continue;  // outside the candidate's folder
        std::error_code ec;
        if (!fs::is_regular_file(root / relative, ec)) continue;
        if (seen.insert(relative.generic_string()).second) {
          if (out.files.size() >= limits.max_files)
            throw error("candidate " + entry.string() + ": more than " + std::to_string(limits.max_files) +
                        " files included from its folder");
          out.files.emplace_back(relative, read_file_bytes(root / relative));
          bytes += out.files.back().second.size();
          if (bytes > limits.max_bytes)
            throw error("candidate " + entry.string() + ": its files hold more than " +
                        std::to_string(limits.max_bytes >> 20) + " MiB");
        }
        break;
      }
    }
  }
  return out;
}

/// @brief Writes the files under `folder` at their relative paths (atomically, each), and
/// returns the entry's path there. A file that already holds its bytes is left alone.
inline std::filesystem::path write_candidate_files(const CandidateFiles& c, const std::filesystem::path& folder) {
  for (const auto& [path, bytes] : c.files) {
    const auto target = folder / path;
    std::error_code ec;
    if (std::filesystem::is_regular_file(target, ec) && std::filesystem::file_size(target, ec) == bytes.size() &&
        read_file_bytes(target) == bytes)
      continue;
    write_file_atomically(target, bytes);
  }
  return folder / c.files.front().first;
}

}  // namespace socratic
