#pragma once
/// @file
/// @brief The link flags that let a candidate use the libraries its problem allows
/// (scan/library_policy.hpp): `-lcublas -lcublasLt` for cuBLAS, `-lcudnn` for cuDNN where it is
/// installed, behind `--as-needed` (a candidate that calls none of them gets no DT_NEEDED entry,
/// and its worker maps none of them) and with a run path to the folder each was found in (the
/// runner scrubs the environment: LD_LIBRARY_PATH does not reach the worker). CUTLASS is
/// header-only: nothing to link. Banned families are never linked.

#include <algorithm>
#include <filesystem>
#include <string>
#include <system_error>
#include <vector>

#include "socratic/scan/library_policy.hpp"

namespace socratic {

/// @brief Flags to append after the sources, and notes on what could not be linked.
struct LibraryLink {
  std::vector<std::string> flags;
  std::vector<std::string> notes;  ///< `cudnn is allowed but libcudnn.so was not found in ...`
};

namespace detail {
/// The first folder holding `file`: the toolkit's library folders, then the system's.
inline std::filesystem::path find_library_folder(const std::string& file, const std::filesystem::path& toolkit_root,
                                                 std::string& searched) {
  std::vector<std::filesystem::path> dirs;
  if (!toolkit_root.empty())
    for (const char* sub : {"lib64", "lib", "targets/x86_64-linux/lib", "targets/sbsa-linux/lib"})
      dirs.push_back(toolkit_root / sub);
  for (const char* d : {"/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib64", "/usr/local/lib"})
    dirs.emplace_back(d);
  searched.clear();
  for (const auto& d : dirs) {
    searched += (searched.empty() ? "" : ", ") + d.string();
    std::error_code ec;
    if (std::filesystem::exists(d / file, ec)) return d;
  }
  return {};
}
}  // namespace detail

/// @brief The link flags for `policy`'s allowed families, the libraries looked for under
/// `toolkit_root` (NvccBuilder::toolkit_root) and the system's library folders.
inline LibraryLink library_link_flags(const LibraryPolicy& policy, const std::filesystem::path& toolkit_root) {
  LibraryLink out;
  std::vector<std::string> libs;
  std::vector<std::filesystem::path> dirs;
  auto want = [&](LibraryFamily family, std::vector<std::string> names) {
    if (!policy.allows(family)) return;
    for (const auto& name : names) {
      std::string searched;
      const auto dir = detail::find_library_folder("lib" + name + ".so", toolkit_root, searched);
      if (dir.empty()) {
        out.notes.push_back(std::string(to_string(family)) + " is allowed but lib" + name + ".so was not found in " +
                            searched + ": a candidate calling it will not load");
        continue;
      }
      libs.push_back("-l" + name);
      if (std::find(dirs.begin(), dirs.end(), dir) == dirs.end()) dirs.push_back(dir);
    }
  };
  want(LibraryFamily::cublas, {"cublas", "cublasLt"});
  want(LibraryFamily::cudnn, {"cudnn"});
  if (libs.empty()) return out;
  for (const auto& d : dirs) {
    out.flags.push_back("-L" + d.string());
    out.flags.push_back("-Xlinker");
    out.flags.push_back("-rpath=" + d.string());
  }
  out.flags.push_back("-Xlinker");
  out.flags.push_back("--as-needed");
  out.flags.insert(out.flags.end(), libs.begin(), libs.end());
  return out;
}

}  // namespace socratic
