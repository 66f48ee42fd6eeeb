#pragma once
/// @file
/// @brief Sandbox: confines the paths a model names to the agent's workspace. Every path is
/// resolved the way the kernel would resolve it (symbolic links followed, dangling ones too,
/// `..` applied after them), and refused with a message for the model when it lands outside
/// the workspace, on one of the campaign's own files (wherever it lies) or, for writing, on a
/// read-only path. The file tools use it; the shell is confined by the operating system
/// (shell_sandbox.hpp). Light.

#include <deque>
#include <filesystem>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "socratic/core/error.hpp"

namespace socratic {

/// @brief A path the model may not use. `what()` is written for the model: it says why and
/// what to do instead.
class sandbox_violation : public error {
 public:
  using error::error;
};

/// @brief The workspace's boundary.
///
/// @par Example
/// @code
/// Sandbox box("/runs/r1/workspace", {"/runs/r1/workspace/harness"});
/// auto p = box.resolve("src/kernel.cu");         // /runs/r1/workspace/src/kernel.cu
/// box.resolve("../state/trace.jsonl");           // throws sandbox_violation
/// box.resolve_for_write("harness/runner.cu");    // throws: read-only
/// @endcode
class Sandbox {
 public:
  /// @param workspace the folder the agent owns (must exist)
  /// @param read_only files or folders inside it that the agent may read but not change
  /// @param hidden files or folders the agent may neither read nor change, wherever they lie:
  ///        the campaign's own files (campaign file, trace, state folder, key files) and the
  ///        judge's private ones
  explicit Sandbox(const std::filesystem::path& workspace,
                   const std::vector<std::filesystem::path>& read_only = {},
                   const std::vector<std::filesystem::path>& hidden = {}) {
    std::error_code ec;
    root_ = std::filesystem::canonical(workspace, ec);
    if (ec || !std::filesystem::is_directory(root_))
      throw error("sandbox: the workspace \"" + workspace.string() + "\" is not an existing folder");
    for (const auto& p : read_only)
      read_only_.push_back(physical(p.is_absolute() ? p : root_ / p));
    for (const auto& p : hidden) hidden_.push_back(physical(p.is_absolute() ? p : root_ / p));
  }

  /// @brief The workspace, canonical.
  const std::filesystem::path& root() const noexcept { return root_; }

  /// @brief Resolves a path given by the model (relative to the workspace, or absolute but
  /// inside it) for reading. @throws sandbox_violation when it leads outside.
  std::filesystem::path resolve(std::string_view requested) const {
    if (requested.empty()) throw sandbox_violation("the path is empty; give a path relative to the workspace");
    if (requested.find('\0') != std::string_view::npos)
      throw sandbox_violation("the path contains a NUL character");
    const std::filesystem::path given(requested);
    const std::filesystem::path full = given.is_absolute() ? given : root_ / given;
    const std::filesystem::path resolved = physical(full);
    for (const auto& h : hidden_)
      if (inside(resolved, h))
        throw sandbox_violation("\"" + std::string(requested) +
                                "\" is one of the campaign's own files (its state, trace, campaign file, a "
                                "key, or the judge's private files); the agent's tools neither read nor change it");
    if (inside(resolved, root_)) return resolved;
    const std::string quoted = "\"" + std::string(requested) + "\"";
    if (given.is_absolute())
      throw sandbox_violation("the absolute path " + quoted +
                              " is outside the workspace; use paths relative to the workspace (" +
                              root_.string() + ")");
    if (!inside(full.lexically_normal(), root_))
      throw sandbox_violation("the path " + quoted +
                              " climbs out of the workspace with \"..\"; stay inside it");
    throw sandbox_violation("the path " + quoted +
                            " leads outside the workspace through a symbolic link (it resolves to " +
                            resolved.string() + "); only files inside the workspace may be used");
  }

  /// @brief Resolves a path for writing: as resolve(), and not on a read-only path.
  std::filesystem::path resolve_for_write(std::string_view requested) const {
    std::filesystem::path p = resolve(requested);
    for (const auto& ro : read_only_)
      if (inside(p, ro))
        throw sandbox_violation("\"" + std::string(requested) + "\" is read-only (" +
                                relative(ro) + " belongs to the judge); change your own files instead");
    if (p == root_) throw sandbox_violation("the workspace folder itself cannot be written");
    return p;
  }

  /// @brief `p` relative to the workspace, for messages (`.` for the workspace itself).
  std::string relative(const std::filesystem::path& p) const {
    const auto rel = p.lexically_relative(root_);
    return rel.empty() ? p.string() : rel.string();
  }

  /// @brief True when `p` equals `dir` or lies below it (both already resolved).
  static bool inside(const std::filesystem::path& p, const std::filesystem::path& dir) {
    auto pi = p.begin();
    for (auto di = dir.begin(); di != dir.end(); ++di, ++pi) {
      if (di->empty()) continue;  // a trailing separator
      if (pi == p.end() || *pi != *di) return false;
    }
    return true;
  }

  /// @brief Follows every symbolic link in `full` (absolute), dangling ones included, and
  /// applies `..` after each, as path resolution in the kernel does. Parts that do not exist
  /// are kept as written.
  static std::filesystem::path physical(const std::filesystem::path& full) {
    std::deque<std::filesystem::path> todo(full.begin(), full.end());
    std::filesystem::path result = "/";
    int links = 0;
    while (!todo.empty()) {
      const std::filesystem::path part = todo.front();
      todo.pop_front();
      if (part.empty() || part == "/" || part == ".") continue;
      if (part == "..") {
        result = result.parent_path();
        continue;
      }
      const std::filesystem::path next = result / part;
      std::error_code ec;
      const auto status = std::filesystem::symlink_status(next, ec);
      if (!ec && std::filesystem::is_symlink(status)) {
        if (++links > 40) throw sandbox_violation("too many symbolic links in \"" + full.string() + "\"");
        const std::filesystem::path target = std::filesystem::read_symlink(next, ec);
        if (ec) throw sandbox_violation("cannot read the symbolic link \"" + next.string() + "\"");
        std::vector<std::filesystem::path> parts(target.begin(), target.end());
        todo.insert(todo.begin(), parts.begin(), parts.end());
        if (target.is_absolute()) result = "/";
        continue;
      }
      result = next;
    }
    return result;
  }

 private:
  std::filesystem::path root_;
  std::vector<std::filesystem::path> read_only_;
  std::vector<std::filesystem::path> hidden_;
};

}  // namespace socratic
