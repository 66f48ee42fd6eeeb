#pragma once
/// @file
/// @brief Where a workload's `safetensors` file lies. SOL-ExecBench writes its path relative to
/// the dataset's root (`data/flashinfer-trace/blob/workloads/...`), not to the problem's folder,
/// and its evaluator looks for it under blob roots, dropping leading folders of the path that a
/// root already contains. The judge does the same, with these roots in order: the problem's
/// folder and every folder above it (a problem inside a downloaded dataset finds the dataset's
/// root), then `$FLASHINFER_TRACE_DIR` (the variable SOL-ExecBench's own evaluator reads).

#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace socratic::suite {

/// @brief The environment variable naming one more blob root, as SOL-ExecBench's evaluator reads it.
inline constexpr const char* blob_root_variable = "FLASHINFER_TRACE_DIR";

/// @brief The folders a relative `safetensors` path is looked for under, in order.
inline std::vector<std::filesystem::path> blob_roots(const std::filesystem::path& problem_dir) {
  namespace fs = std::filesystem;
  std::vector<fs::path> roots;
  std::error_code ec;
  fs::path dir = fs::absolute(problem_dir, ec).lexically_normal();
  while (!dir.empty()) {
    roots.push_back(dir);
    if (dir == dir.root_path() || dir.parent_path() == dir) break;
    dir = dir.parent_path();
  }
  if (const char* extra = std::getenv(blob_root_variable); extra && *extra) roots.push_back(fs::path(extra));
  return roots;
}

/// @brief The file `path` names for a problem in `problem_dir`: an absolute path as it is, a
/// relative one under the first root (blob_roots) where it, or the path without its first
/// folders, exists. Nothing when no root has it.
inline std::optional<std::filesystem::path> find_blob(const std::string& path, const std::filesystem::path& problem_dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path rel(path);
  if (rel.is_absolute()) return fs::is_regular_file(rel, ec) ? std::optional<fs::path>(rel) : std::nullopt;
  std::vector<fs::path> parts(rel.begin(), rel.end());
  for (const auto& root : blob_roots(problem_dir))
    for (std::size_t start = 0; start < parts.size(); ++start) {
      fs::path candidate = root;
      for (std::size_t i = start; i < parts.size(); ++i) candidate /= parts[i];
      if (fs::is_regular_file(candidate, ec)) return candidate.lexically_normal();
    }
  return std::nullopt;
}

/// @brief Why `path` cannot be found for a problem in `problem_dir` (for a refusal): the path
/// and where it was looked for.
inline std::string blob_not_found(const std::string& path, const std::filesystem::path& problem_dir) {
  const char* extra = std::getenv(blob_root_variable);
  return "its safetensors file \"" + path + "\" is not under the problem's folder " + problem_dir.string() +
         " or any folder above it" +
         (extra && *extra ? std::string(", nor under $") + blob_root_variable + " (" + extra + ")"
                          : std::string("; set $") + blob_root_variable +
                                " to the folder that holds the suite's blobs (the dataset's trace folder)");
}

}  // namespace socratic::suite
