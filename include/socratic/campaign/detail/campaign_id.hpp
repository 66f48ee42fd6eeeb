// The campaign id used when none is configured.
#pragma once

#include <filesystem>
#include <string>

namespace socratic::detail {

/// @brief The state folder's name, or its parent's when the folder is hidden (`WS/.socratic`
/// names the campaign after `WS`): ids end up in evidence references (`ID#SEQ`), so they should
/// say which campaign it was.
inline std::string default_campaign_id(const std::filesystem::path& state_dir) {
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
