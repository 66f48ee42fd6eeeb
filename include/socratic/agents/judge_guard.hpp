#pragma once
/// @file
/// @brief JudgeGuard: the agent's own check that it cannot edit, and did not edit, its judge
/// (harness, scenarios, references, question bank, goal files). Each judge path must lie outside
/// the workspace or be read-only to the tools; and as a backstop behind the shell's OS sandbox
/// (the only check when the user turned it off), every judge file's SHA-256 is compared with its
/// value at the start after every turn. Light (OpenSSL's digest).

#include <algorithm>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "socratic/agents/sandbox.hpp"
#include "socratic/core/detail/sha256.hpp"

namespace socratic {

/// @brief Fingerprints the judge's files and reports changes.
class JudgeGuard {
 public:
  /// @param paths files or folders (folders are walked); they must exist.
  /// @throws error naming a path that does not exist.
  explicit JudgeGuard(std::vector<std::filesystem::path> paths) : paths_(std::move(paths)) {
    for (const auto& p : paths_)
      if (!std::filesystem::exists(p))
        throw error("judge guard: the judge path \"" + p.string() + "\" does not exist");
    baseline_ = fingerprint();
  }

  /// @brief Throws when a judge path lies inside the workspace and the file tools may write it.
  void check_placement(const Sandbox& sandbox) const {
    for (const auto& p : paths_) {
      const auto resolved = Sandbox::physical(std::filesystem::absolute(p));
      if (!Sandbox::inside(resolved, sandbox.root())) continue;
      bool writable = true;
      try {
        sandbox.resolve_for_write(resolved.string());
      } catch (const sandbox_violation&) {
        writable = false;
      }
      if (writable)
        throw error("judge guard: the judge path \"" + p.string() +
                    "\" lies inside the workspace and is not read-only; move it out or list it "
                    "in AgentToolOptions::read_only");
    }
  }

  /// @brief Files added, removed or changed since construction, one line each.
  std::vector<std::string> changes() const {
    const auto now = fingerprint();
    std::vector<std::string> out;
    for (const auto& [file, hash] : baseline_) {
      auto it = now.find(file);
      if (it == now.end()) out.push_back("removed: " + file);
      else if (it->second != hash) out.push_back("modified: " + file);
    }
    for (const auto& [file, hash] : now)
      if (!baseline_.count(file)) out.push_back("added: " + file);
    return out;
  }

  const std::vector<std::filesystem::path>& paths() const noexcept { return paths_; }

 private:
  std::map<std::string, std::string> fingerprint() const {
    std::map<std::string, std::string> out;
    auto add = [&](const std::filesystem::path& f) {
      try {
        out[f.string()] = detail::sha256_file(f);
      } catch (const std::exception&) {
        out[f.string()] = "unreadable";
      }
    };
    for (const auto& p : paths_) {
      std::error_code ec;
      if (std::filesystem::is_directory(p, ec)) {
        for (auto it = std::filesystem::recursive_directory_iterator(p, ec);
             !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec))
          if (it->is_regular_file(ec)) add(it->path());
      } else if (std::filesystem::exists(p, ec)) {
        add(p);
      }
    }
    return out;
  }

  std::vector<std::filesystem::path> paths_;
  std::map<std::string, std::string> baseline_;
};

}  // namespace socratic
