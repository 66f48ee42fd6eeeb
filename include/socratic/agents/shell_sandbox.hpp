#pragma once
/// @file
/// @brief ShellSandbox: the operating system's confinement of the agent's shell commands, with
/// bubblewrap (`bwrap`). Inside, the file system is read-only except the workspace (and
/// throwaway `/tmp`, `/run` and home folders); the judge's private files, the campaign's state
/// and key files are not there at all; the shell has its own PID namespace and a fresh `/proc`
/// (no other process, no parent's environment), no network unless allowed, no capabilities,
/// and everything it starts dies with the call (or with Socratic, killed or not). GPU device
/// nodes are passed through, so the agent can still compile and profile. It builds a command
/// line that run_process runs. Heavy (run_process).
///
/// Why bubblewrap and not Landlock with seccomp (what Codex uses): Landlock restricts file
/// access but gives no PID namespace, so the shell would still see `/proc/$PPID/environ` and
/// every other process, and it cannot hide a file's existence or make a killed parent's
/// grandchildren die; those need namespaces, which bubblewrap sets up from a Debian package
/// without Socratic carrying privileged code. See docs/llm-agent.md.

#include <pwd.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "socratic/core/error.hpp"
#include "socratic/process/run_process.hpp"

namespace socratic {

/// @brief How the agent's shell is confined.
enum class ShellSandboxKind {
  bubblewrap,  ///< an OS sandbox (the default; refused when it cannot be had)
  none,        ///< no OS confinement: only by the user's explicit choice
};

/// @brief The sandbox's settings.
struct ShellSandboxOptions {
  ShellSandboxKind kind = ShellSandboxKind::bubblewrap;
  std::string bwrap = "bwrap";  ///< the bubblewrap program (PATH is searched)
  bool network = false;         ///< true: the shell shares the host's network
  /// The user's home folder is hidden (credentials live there) unless false.
  bool hide_home = true;
  /// Paths made visible again, read-only, inside a hidden place (e.g. a toolchain under home).
  std::vector<std::filesystem::path> exposed;
  bool gpu_devices = true;  ///< pass `/dev/nvidia*` through when present
};

/// @brief Where the shell works and what it must not touch.
struct SandboxPaths {
  std::filesystem::path workspace;  ///< writable; the shell starts there
  /// Files or folders inside the workspace that the shell may read but not change.
  std::vector<std::filesystem::path> read_only;
  /// Files or folders the shell must not see (the judge's private files, the campaign's state,
  /// key files): an empty read-only folder, or an empty file, stands in their place.
  std::vector<std::filesystem::path> hidden;
};

/// @brief The name of a kind, as campaign files and traces spell it.
inline std::string to_string(ShellSandboxKind k) { return k == ShellSandboxKind::none ? "none" : "bubblewrap"; }

/// @brief The sandbox kind named `name` (`bubblewrap`, `none`); none for another name.
inline std::optional<ShellSandboxKind> parse_shell_sandbox_kind(std::string_view name) noexcept {
  if (name == "bubblewrap") return ShellSandboxKind::bubblewrap;
  if (name == "none") return ShellSandboxKind::none;
  return std::nullopt;
}

namespace detail {

inline std::filesystem::path sandbox_canonical(const std::filesystem::path& p) {
  std::error_code ec;
  auto c = std::filesystem::weakly_canonical(std::filesystem::absolute(p), ec);
  return ec ? std::filesystem::absolute(p).lexically_normal() : c;
}

inline bool sandbox_inside(const std::filesystem::path& p, const std::filesystem::path& dir) {
  auto pi = p.begin();
  for (auto di = dir.begin(); di != dir.end(); ++di, ++pi) {
    if (di->empty()) continue;
    if (pi == p.end() || *pi != *di) return false;
  }
  return true;
}

inline std::filesystem::path home_folder() {
  if (const char* h = std::getenv("HOME"); h && *h) return h;
  if (const passwd* pw = ::getpwuid(::getuid()); pw && pw->pw_dir) return pw->pw_dir;
  return {};
}

}  // namespace detail

/// @brief bubblewrap's arguments that confine `command` to the workspace as `options` say; the
/// result runs with run_process (its environment becomes the command's: pass it scrubbed).
/// @throws error when a hidden path contains the workspace (it cannot be hidden and used).
inline std::vector<std::string> bubblewrap_argv(const ShellSandboxOptions& options, const SandboxPaths& paths,
                                                const std::vector<std::string>& command) {
  namespace fs = std::filesystem;
  const fs::path ws = detail::sandbox_canonical(paths.workspace);
  std::vector<std::string> a{options.bwrap,
                             "--ro-bind", "/", "/",
                             "--dev", "/dev",
                             "--proc", "/proc",
                             // The kernel's tunables and triggers are files a root shell may
                             // write even without capabilities: read-only.
                             "--ro-bind", "/proc/sys", "/proc/sys",
                             "--tmpfs", "/tmp",
                             "--tmpfs", "/run",
                             "--tmpfs", "/var/tmp",
                             "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try",
                             "--cap-drop", "ALL",
                             "--die-with-parent", "--new-session",
                             "--setenv", "TMPDIR", "/tmp"};
  if (!options.network) a.push_back("--unshare-net");
  std::error_code ec;
  for (const char* f : {"/proc/sysrq-trigger", "/proc/irq", "/proc/bus"})
    if (fs::exists(f, ec)) a.insert(a.end(), {"--ro-bind", f, f});
  if (options.gpu_devices && fs::is_directory("/dev", ec)) {
    std::vector<std::string> nodes;
    for (const auto& e : fs::directory_iterator("/dev", ec))
      if (e.path().filename().string().rfind("nvidia", 0) == 0) nodes.push_back(e.path().string());
    std::sort(nodes.begin(), nodes.end());
    for (const auto& n : nodes) a.insert(a.end(), {"--dev-bind", n, n});
  }
  if (options.hide_home) {
    const fs::path home = detail::home_folder();
    if (!home.empty() && fs::is_directory(home, ec) && detail::sandbox_canonical(home) != "/")
      a.insert(a.end(), {"--tmpfs", detail::sandbox_canonical(home).string()});
  }
  for (const auto& p : options.exposed) {
    const fs::path c = detail::sandbox_canonical(p);
    if (fs::exists(c, ec)) a.insert(a.end(), {"--ro-bind", c.string(), c.string()});
  }
  a.insert(a.end(), {"--bind", ws.string(), ws.string()});
  for (const auto& p : paths.read_only) {
    const fs::path c = detail::sandbox_canonical(p.is_absolute() ? p : ws / p);
    if (fs::exists(c, ec) && detail::sandbox_inside(c, ws)) a.insert(a.end(), {"--ro-bind", c.string(), c.string()});
  }
  for (const auto& p : paths.hidden) {
    const fs::path c = detail::sandbox_canonical(p);
    if (detail::sandbox_inside(ws, c))
      throw error("shell sandbox: \"" + p.string() + "\" is to be hidden, but the workspace " + ws.string() +
                  " lies inside it; keep the campaign's state and the judge outside the workspace's folders");
    if (fs::is_directory(c, ec))
      a.insert(a.end(), {"--tmpfs", c.string(), "--remount-ro", c.string()});
    else if (fs::exists(c, ec))
      a.insert(a.end(), {"--ro-bind", "/dev/null", c.string()});
  }
  a.insert(a.end(), {"--chdir", ws.string(), "--"});
  a.insert(a.end(), command.begin(), command.end());
  return a;
}

/// @brief Whether the sandbox can be had here: runs `true` inside it. Empty when it works,
/// else why not (bubblewrap missing, user namespaces refused, ...), for the user.
inline std::string shell_sandbox_problem(const ShellSandboxOptions& options, const SandboxPaths& paths) {
  if (options.kind == ShellSandboxKind::none) return {};
  const std::filesystem::path program = find_program(options.bwrap);
  std::error_code ec;
  if (program.empty() || !std::filesystem::exists(program, ec))
    return "bubblewrap (\"" + options.bwrap + "\") is not installed (Debian package bubblewrap; scripts/install-deps.sh)";
  std::vector<std::string> argv;
  try {
    argv = bubblewrap_argv(options, paths, {"true"});
  } catch (const std::exception& e) {
    return e.what();
  }
  ProcessOptions po;
  po.timeout = std::chrono::seconds(20);
  po.environment = std::vector<std::string>{"PATH=/usr/local/bin:/usr/bin:/bin"};
  const ProcessResult r = run_process(argv, po);
  if (r.ok()) return {};
  std::string why = r.stderr_text;
  while (!why.empty() && (why.back() == '\n' || why.back() == ' ')) why.pop_back();
  return "bubblewrap cannot start a sandbox here (" + r.describe() + (why.empty() ? "" : ": " + why) +
         "); it needs unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1) or root";
}

}  // namespace socratic
