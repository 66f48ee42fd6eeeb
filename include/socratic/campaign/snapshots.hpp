#pragma once
/// @file
/// @brief CandidateSnapshots: the campaign's content-addressed copies of every candidate it
/// evaluated (`STATE_DIR/candidates/SHA256.EXT`), so that any evaluated version can be restored,
/// replayed and judged from bytes that no edit can reach.

#include <filesystem>
#include <optional>
#include <string>
#include <system_error>

#include "socratic/core/candidate.hpp"
#include "socratic/core/files.hpp"
#include "socratic/detail/sha256.hpp"

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

  /// @brief Reads `candidate.source` once, stores its bytes under their SHA-256 (atomically; a
  /// snapshot that no longer holds its bytes is written again) and returns the candidate with
  /// `content_hash` and `snapshot` filled in. An unreadable source comes back unchanged, without
  /// a hash: the evaluator reports the missing file.
  Candidate take(Candidate candidate) const {
    std::string bytes;
    try {
      bytes = read_file_bytes(candidate.source);
    } catch (const std::exception&) {
      candidate.content_hash.clear();
      candidate.snapshot.clear();
      return candidate;
    }
    candidate.content_hash = detail::sha256_hex(bytes);
    candidate.snapshot = path_of(candidate.content_hash, candidate.source.extension());
    if (!holds(candidate.snapshot, bytes)) write_file_atomically(candidate.snapshot, bytes);
    return candidate;
  }

  /// @brief Copies the snapshot of `hash` back to `target` (a workspace that lost its candidate).
  /// False when there is no such snapshot.
  bool restore(const std::string& hash, const std::filesystem::path& target) const {
    const auto snap = path_of(hash, target.extension());
    std::error_code ec;
    if (hash.empty() || !std::filesystem::is_regular_file(snap, ec)) return false;
    write_file_atomically(target, read_file_bytes(snap));
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
