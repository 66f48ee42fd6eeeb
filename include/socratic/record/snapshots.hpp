#pragma once
/// @file
/// @brief CandidateSnapshots: the campaign's content-addressed copies of every candidate it
/// evaluated (`STATE_DIR/candidates/SHA256.EXT`, or `STATE_DIR/candidates/SHA256/` holding the
/// entry and the headers of its folder that it includes: core/candidate_files.hpp), so that any
/// evaluated version can be restored, replayed and judged from bytes that no edit can reach.

#include <filesystem>
#include <optional>
#include <string>
#include <system_error>

#include "socratic/core/candidate.hpp"
#include "socratic/core/candidate_files.hpp"
#include "socratic/core/files.hpp"
#include "socratic/core/detail/sha256.hpp"

namespace socratic {

/// @brief The snapshot folder of one campaign.
class CandidateSnapshots {
 public:
  explicit CandidateSnapshots(std::filesystem::path folder) : folder_(std::move(folder)) {}

  const std::filesystem::path& folder() const noexcept { return folder_; }

  /// @brief Where the snapshot of content `hash` with the source's `extension` lives.
  std::filesystem::path path_of(const std::string& hash, const std::filesystem::path& extension) const {
    return folder_ / (hash + extension.string());
  }

  /// @brief The entry's copy in the snapshot of `hash` (one file, or a folder of several).
  std::filesystem::path entry_of(const std::string& hash, const std::filesystem::path& source) const {
    std::error_code ec;
    const auto single = path_of(hash, source.extension());
    if (std::filesystem::is_regular_file(single, ec)) return single;
    return folder_of(hash) / source.filename();
  }

  /// @brief Where the snapshot of a candidate made of several files lives: a folder.
  std::filesystem::path folder_of(const std::string& hash) const { return folder_ / hash; }

  /// @brief Reads `candidate.source` and the headers of its folder that it includes, once,
  /// stores them under their content hash (atomically; a snapshot that no longer holds its
  /// bytes is written again) and returns the candidate with `content_hash` and `snapshot` (the
  /// entry's copy) filled in. An unreadable source comes back unchanged, without a hash: the
  /// evaluator reports the missing file.
  Candidate take(Candidate candidate) const {
    CandidateFiles files;
    try {
      files = read_candidate_files(candidate.source);
    } catch (const std::exception&) {
      candidate.content_hash.clear();
      candidate.snapshot.clear();
      return candidate;
    }
    candidate.content_hash = files.hash();
    if (files.single()) {
      candidate.snapshot = path_of(candidate.content_hash, candidate.source.extension());
      if (!holds(candidate.snapshot, files.entry_bytes()))
        write_file_atomically(candidate.snapshot, files.entry_bytes());
    } else {
      candidate.snapshot = write_candidate_files(files, folder_of(candidate.content_hash));
    }
    return candidate;
  }

  /// @brief Copies the snapshot of `hash` back to `target` (a workspace that lost its candidate),
  /// and the files of a several-file snapshot beside it. False when there is no such snapshot.
  bool restore(const std::string& hash, const std::filesystem::path& target) const {
    if (hash.empty()) return false;
    std::error_code ec;
    const auto single = path_of(hash, target.extension());
    if (std::filesystem::is_regular_file(single, ec)) {
      write_file_atomically(target, read_file_bytes(single));
      return true;
    }
    const auto folder = folder_of(hash);
    if (!std::filesystem::is_regular_file(folder / target.filename(), ec)) return false;
    for (const auto& e : std::filesystem::recursive_directory_iterator(folder)) {
      if (!e.is_regular_file()) continue;
      const auto relative = e.path().lexically_relative(folder);
      write_file_atomically(target.parent_path() / relative, read_file_bytes(e.path()));
    }
    return true;
  }

 private:
  static bool holds(const std::filesystem::path& path, const std::string& bytes) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec) || std::filesystem::file_size(path, ec) != bytes.size())
      return false;
    try {
      return read_file_bytes(path) == bytes;
    } catch (const std::exception&) {
      return false;
    }
  }

  std::filesystem::path folder_;
};

}  // namespace socratic
