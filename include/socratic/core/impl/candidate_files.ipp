#pragma once
/// @file
/// @brief Definitions for socratic/core/candidate_files.hpp: included there in header-only builds,
/// and by socratic/src.hpp (compiled once) with SOCRATIC_SEPARATE_COMPILATION.

#include <regex>

#include "socratic/core/candidate_files.hpp"

namespace socratic {

SOCRATIC_DECL CandidateFiles read_candidate_files(const std::filesystem::path& entry, CandidateFileLimits limits) {
  namespace fs = std::filesystem;
  const fs::path root = fs::absolute(entry).lexically_normal().parent_path();
  CandidateFiles out;
  out.files.emplace_back(entry.filename(), read_file_bytes(entry));
  static const std::regex include_line(R"(^[ \t]*#[ \t]*include[ \t]*["<]([^">\r\n]+)[">])", std::regex::multiline);
  std::set<std::string> seen = {entry.filename().generic_string()};
  std::size_t bytes = out.files.front().second.size();
  for (std::size_t next = 0; next < out.files.size(); ++next) {
    const fs::path including = out.files[next].first.parent_path();
    const std::string text = out.files[next].second;  // copied: out.files grows below
    for (std::sregex_iterator it(text.begin(), text.end(), include_line), end; it != end; ++it) {
      const fs::path named((*it)[1].str());
      if (named.is_absolute()) continue;
      for (const fs::path& base : {including, fs::path()}) {
        const fs::path relative = (base / named).lexically_normal();
        if (relative.empty() || *relative.begin() == "..") continue;  // outside the candidate's folder
        std::error_code ec;
        if (!fs::is_regular_file(root / relative, ec)) continue;
        if (seen.insert(relative.generic_string()).second) {
          if (out.files.size() >= limits.max_files)
            throw error("candidate " + entry.string() + ": more than " + std::to_string(limits.max_files) +
                        " files included from its folder");
          out.files.emplace_back(relative, read_file_bytes(root / relative));
          bytes += out.files.back().second.size();
          if (bytes > limits.max_bytes)
            throw error("candidate " + entry.string() + ": its files hold more than " +
                        std::to_string(limits.max_bytes >> 20) + " MiB");
        }
        break;
      }
    }
  }
  return out;
}

SOCRATIC_DECL std::filesystem::path write_candidate_files(const CandidateFiles& c, const std::filesystem::path& folder) {
  for (const auto& [path, bytes] : c.files) {
    const auto target = folder / path;
    std::error_code ec;
    if (std::filesystem::is_regular_file(target, ec) && std::filesystem::file_size(target, ec) == bytes.size() &&
        read_file_bytes(target) == bytes)
      continue;
    write_file_atomically(target, bytes);
  }
  return folder / c.files.front().first;
}

}  // namespace socratic
