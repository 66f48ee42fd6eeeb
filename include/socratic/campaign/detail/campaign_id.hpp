// The campaign id used when none is configured.
#pragma once

#include <filesystem>
#include <string>

#include "socratic/core/detail/separate_compilation.hpp"

namespace socratic::detail {

/// @brief The state folder's name, or its parent's when the folder is hidden (`WS/.socratic`
/// names the campaign after `WS`): ids end up in evidence references (`ID#SEQ`), so they should
/// say which campaign it was.
SOCRATIC_DECL std::string default_campaign_id(const std::filesystem::path& state_dir);

}  // namespace socratic::detail

#ifndef SOCRATIC_SEPARATE_COMPILATION
#include "socratic/campaign/impl/campaign_id.ipp"
#endif
