#pragma once
/// @file
/// @brief Candidate: the kernel source an agent proposes.

#include <filesystem>
#include <string>

#include "socratic/core/json.hpp"

namespace socratic {

/// @brief A candidate implementation: one source file exporting the problem's C entry point.
struct Candidate {
  std::filesystem::path source;  ///< the `.cu` file (in the agent's workspace)
  std::string label;             ///< optional name given by whoever submitted it
  std::string content_hash;      ///< filled by whoever reads the file (hex digest of its bytes)

  friend bool operator==(const Candidate&, const Candidate&) = default;
};

inline void to_json(json& j, const Candidate& c) {
  j = json{{"source", c.source.string()}, {"label", c.label}, {"content_hash", c.content_hash}};
}
inline void from_json(const json& j, Candidate& c) {
  c.source = required<std::string>(j, "source", "candidate");
  c.label = optional_field<std::string>(j, "label", "");
  c.content_hash = optional_field<std::string>(j, "content_hash", "");
}

}  // namespace socratic
