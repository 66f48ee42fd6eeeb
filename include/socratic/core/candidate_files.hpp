#pragma once
/// @file
/// @brief The files a candidate is made of: its entry file and the headers of its own folder
/// that it includes, transitively (a kernel split by role, as kernels/hopper/ is). They are what
/// a campaign hashes, snapshots and judges, so that an edit to any of them is a new candidate.

#include <algorithm>
#include <filesystem>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "socratic/core/error.hpp"
#include "socratic/core/files.hpp"
#include "socratic/detail/separate_compilation.hpp"
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

/// @brief Whether `candidate` is `baseline` itself, whatever its entry is called: the same entry
/// bytes, and each other file it brings equal to the baseline's file at the same relative path.
/// (The baseline judged in place brings the baseline's headers; a copy of its entry alone finds
/// them where the baseline does.)
inline bool same_content(const CandidateFiles& candidate, const CandidateFiles& baseline) {
  if (candidate.files.empty() || baseline.files.empty() || candidate.entry_bytes() != baseline.entry_bytes())
    return false;
  for (std::size_t i = 1; i < candidate.files.size(); ++i) {
    const auto& [path, bytes] = candidate.files[i];
    const auto match = std::find_if(baseline.files.begin() + 1, baseline.files.end(),
                                    [&](const auto& f) { return f.first == path; });
    if (match == baseline.files.end() || match->second != bytes) return false;
  }
  return true;
}

/// @brief The most files and bytes a candidate may consist of.
struct CandidateFileLimits {
  std::size_t max_files = 256;
  std::size_t max_bytes = std::size_t(32) << 20;
};

/// @brief Reads `entry` and every file of its folder (or below) that it includes, transitively,
/// with `#include "..."` or `#include <...>`. An include that names no file there (a system or
/// CUDA header, a header of the problem's folder) is left to the compiler's include path.
/// @throws error when the entry cannot be read or the limits are passed.
SOCRATIC_DECL CandidateFiles read_candidate_files(const std::filesystem::path& entry, CandidateFileLimits limits = {});

/// @brief Writes the files under `folder` at their relative paths (atomically, each), and
/// returns the entry's path there. A file that already holds its bytes is left alone.
SOCRATIC_DECL std::filesystem::path write_candidate_files(const CandidateFiles& c, const std::filesystem::path& folder);

}  // namespace socratic

#ifndef SOCRATIC_SEPARATE_COMPILATION
#include "socratic/core/impl/candidate_files.ipp"
#endif
