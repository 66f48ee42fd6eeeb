#pragma once
// Where the tool finds the project's data (kernels/, scenarios/, question_bank/).

#include <cstdlib>
#include <filesystem>
#include <string>

#include "socratic/core/error.hpp"

namespace socratic::tool {

/// $SOCRATIC_DATA_DIR, else the source tree the tool was built from, else the installed share dir.
inline std::filesystem::path data_dir() {
  namespace fs = std::filesystem;
  if (const char* env = std::getenv("SOCRATIC_DATA_DIR"); env && *env) {
    if (!fs::is_directory(env))
      throw socratic::error(std::string("SOCRATIC_DATA_DIR=") + env + " is not a folder");
    return env;
  }
  for (const char* candidate : {SOCRATIC_SOURCE_DATA_DIR, SOCRATIC_INSTALL_DATA_DIR})
    if (fs::is_directory(fs::path(candidate) / "question_bank")) return candidate;
  throw socratic::error(
      "cannot find Socratic's data (kernels, scenarios, question_bank); set SOCRATIC_DATA_DIR");
}

}  // namespace socratic::tool
