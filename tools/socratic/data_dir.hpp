#pragma once
// Where the tool finds the project's data (kernels/, scenarios/, question_bank/, demo/).

#include <cstdlib>
#include <filesystem>
#include <string>
#include <system_error>

#include "socratic/core/error.hpp"

namespace socratic::tool {

/// The share folder of the prefix the running executable was installed into
/// (`PREFIX/bin/socratic` -> `PREFIX/share/socratic`), empty when it cannot be read.
inline std::filesystem::path installed_beside_executable() {
  std::error_code ec;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec || exe.empty()) return {};
  return exe.parent_path().parent_path() / "share" / "socratic";
}

/// $SOCRATIC_DATA_DIR; else the share folder beside the executable (an installed tool, wherever its
/// prefix was moved); else the source tree the tool was built from (a tool run from its build
/// folder); else the share folder of the configured install prefix.
inline std::filesystem::path data_dir() {
  namespace fs = std::filesystem;
  if (const char* env = std::getenv("SOCRATIC_DATA_DIR"); env && *env) {
    if (!fs::is_directory(env))
      throw socratic::error(std::string("SOCRATIC_DATA_DIR=") + env + " is not a folder");
    return env;
  }
  const fs::path candidates[] = {installed_beside_executable(), SOCRATIC_SOURCE_DATA_DIR, SOCRATIC_INSTALL_DATA_DIR};
  for (const fs::path& candidate : candidates) {
    std::error_code ec;
    if (!candidate.empty() && fs::is_directory(candidate / "question_bank", ec)) return candidate;
  }
  throw socratic::error(
      "cannot find Socratic's data (kernels, scenarios, question_bank, demo); set SOCRATIC_DATA_DIR");
}

}  // namespace socratic::tool
