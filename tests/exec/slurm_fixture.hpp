#pragma once
// The single-node Slurm of the [slurm] tests: started once per test program by
// tests/exec/slurm_cluster.sh under a temporary folder, stopped (by the daemons' pids) at exit.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <string>

#include "socratic/process/run_process.hpp"

/// Submits the [slurm] tests' slow jobs as soon as the cluster is up (test_slurm.cpp).
void prestart_slurm_jobs();

struct SlurmCluster {
  std::filesystem::path dir;
  std::string slurm_conf;  ///< the clients' SLURM_CONF
  std::string skip_reason;  ///< why it could not start (empty when up)

  /// The cluster, started on first use.
  static SlurmCluster& get() {
    static SlurmCluster cluster;
    return cluster;
  }
  bool up() const { return skip_reason.empty(); }

  /// `slurm_cluster.sh CMD DIR`; throws when it fails.
  void script(const std::string& cmd) const {
    const socratic::ProcessResult r = run(cmd);
    if (!r.ok()) throw std::runtime_error("slurm_cluster.sh " + cmd + " " + r.describe() + ": " + r.stderr_text);
  }

  /// Stops the daemons and removes the folder (main() calls it before returning; a program
  /// killed before that leaves a folder that the next start cleans up).
  static void shutdown() {
    if (!started()) return;
    SlurmCluster& c = get();
    if (c.dir.empty()) return;
    c.run("stop");
    std::error_code ec;
    // SOCRATIC_KEEP_SLURM=1 keeps the folder (logs, scripts, results) for a look afterwards.
    if (!std::getenv("SOCRATIC_KEEP_SLURM")) std::filesystem::remove_all(c.dir, ec);
    c.dir.clear();
  }

  SlurmCluster(const SlurmCluster&) = delete;
  SlurmCluster& operator=(const SlurmCluster&) = delete;

 private:
  static bool& started() {
    static bool flag = false;
    return flag;
  }

  SlurmCluster() {
    started() = true;
    // Clusters of test programs that were killed: stopped (by their pid files) and removed.
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator("/tmp", ec)) {
      const std::string name = entry.path().filename().string();
      if (name.rfind("socratic-slurm-", 0) != 0) continue;
      const std::string pid = name.substr(15);
      if (pid.empty() || pid.find_first_not_of("0123456789") != std::string::npos) continue;
      if (std::filesystem::exists("/proc/" + pid)) continue;  // its program still runs
      dir = entry.path();
      run("stop");
      std::filesystem::remove_all(dir, ec);
    }
    // Short: munge's socket path must fit in a socket address.
    dir = std::filesystem::path("/tmp") / ("socratic-slurm-" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir, ec);
    const socratic::ProcessResult r = run("start");
    if (r.exit_code == 0) {
      const auto at = r.stdout_text.find("SLURM_CONF=");
      if (at != std::string::npos) {
        slurm_conf = r.stdout_text.substr(at + 11);
        slurm_conf.erase(slurm_conf.find_last_not_of("\r\n ") + 1);
        return;
      }
    }
    skip_reason = r.exit_code == 77 ? r.stderr_text : "slurm_cluster.sh start " + r.describe() + ": " + r.stderr_text;
    while (!skip_reason.empty() && (skip_reason.back() == '\n' || skip_reason.back() == ' ')) skip_reason.pop_back();
    run("stop");
  }

  socratic::ProcessResult run(const std::string& cmd) const {
    socratic::ProcessOptions po;
    po.timeout = std::chrono::minutes(2);
    return socratic::run_process(
        {"bash", (std::filesystem::path(SOCRATIC_SOURCE_DIR) / "tests" / "exec" / "slurm_cluster.sh").string(), cmd,
         dir.string()},
        po);
  }
};
