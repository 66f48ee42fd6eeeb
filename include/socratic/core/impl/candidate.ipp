#pragma once
/// @file
/// @brief Definitions for socratic/core/candidate.hpp: included there in header-only builds, and by
/// socratic/src.hpp (compiled once) with SOCRATIC_SEPARATE_COMPILATION.

#include "socratic/core/candidate.hpp"

namespace socratic {

SOCRATIC_DECL void to_json(json& j, const Candidate& c) {
  j = json{{"source", c.source.string()}, {"label", c.label}, {"content_hash", c.content_hash}};
  if (!c.snapshot.empty()) j["snapshot"] = c.snapshot.string();
}

SOCRATIC_DECL void from_json(const json& j, Candidate& c) {
  c.source = required<std::string>(j, "source", "candidate");
  c.label = optional_field<std::string>(j, "label", "");
  c.content_hash = optional_field<std::string>(j, "content_hash", "");
  c.snapshot = optional_field<std::string>(j, "snapshot", "");
}

}  // namespace socratic
