#pragma once
/// @file
/// @brief Candidate: the kernel source an agent proposes.

#include <filesystem>
#include <string>

#include "socratic/core/json.hpp"
#include "socratic/core/detail/separate_compilation.hpp"

namespace socratic {

/// @brief A candidate implementation: one source file exporting the problem's C entry point.
///
/// A campaign reads the source once per evaluation, stores a content-addressed copy of its bytes
/// (`snapshot`, in the campaign's state folder) and hands the evaluator both: an evaluator should
/// judge the snapshot's bytes under `content_hash` instead of reading and hashing the source again
/// (an edit during the evaluation cannot then split what was hashed from what was judged).
struct Candidate {
  std::filesystem::path source;  ///< the `.cu` file (in the agent's workspace)
  std::string label{};           ///< optional name given by whoever submitted it
  std::string content_hash{};    ///< SHA-256 hex digest of the bytes judged (filled by whoever read them)
  /// The campaign's immutable copy of the bytes `content_hash` names (empty: none; read `source`).
  std::filesystem::path snapshot{};

  /// @brief The file holding the bytes to judge: the snapshot when there is one, else the source.
  const std::filesystem::path& judged_file() const noexcept { return snapshot.empty() ? source : snapshot; }
  /// @brief Whether a campaign already read and hashed the bytes (`snapshot` and `content_hash`).
  bool has_snapshot() const noexcept { return !snapshot.empty() && !content_hash.empty(); }

  friend bool operator==(const Candidate&, const Candidate&) = default;
};

SOCRATIC_DECL void to_json(json& j, const Candidate& c);
SOCRATIC_DECL void from_json(const json& j, Candidate& c);

}  // namespace socratic

#ifndef SOCRATIC_SEPARATE_COMPILATION
#include "socratic/core/impl/candidate.ipp"
#endif
