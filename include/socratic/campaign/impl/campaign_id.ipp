#pragma once
/// @file
/// @brief Definitions for socratic/campaign/detail/campaign_id.hpp: included there in header-only
/// builds, and by socratic/src.hpp (compiled once) with SOCRATIC_SEPARATE_COMPILATION.

#include "socratic/campaign/detail/campaign_id.hpp"

namespace socratic::detail {

SOCRATIC_DECL std::string default_campaign_id(const std::filesystem::path& state_dir) {
  std::filesystem::path dir = state_dir.lexically_normal();
  if (dir.filename().empty()) dir = dir.parent_path();  // a trailing slash
  const std::filesystem::path name = dir.filename();
  if (!name.empty() && name.string().front() == '.') {
    const std::filesystem::path parent = std::filesystem::absolute(dir).lexically_normal().parent_path().filename();
    if (!parent.empty()) return parent.string();
  }
  return name.string();
}

}  // namespace socratic::detail
