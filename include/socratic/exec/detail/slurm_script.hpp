#pragma once
/// @file
/// @brief The job scripts of the Slurm executor: one job, or one array of jobs, each running the
/// worker on its job file. What the configuration asks for becomes `#SBATCH` lines.

#include <filesystem>
#include <string>
#include <vector>

#include "socratic/core/detail/sha256.hpp"
#include "socratic/exec/job.hpp"

namespace socratic::exec::detail {

/// What the scripts are made of (the parts of SlurmConfig they read, and the shared folders).
struct SlurmScriptSettings {
  std::string job_name_prefix;
  std::string gpus, time_limit, partition, account, qos, memory;
  int cpus_per_task = 0;
  int array_parallel = 0;
  std::vector<std::string> directives, setup, worker;
  std::filesystem::path jobs_dir, logs_dir, results_dir;
};

/// A job script, its Slurm job name and its log pattern (`%j`, or `%A_%a` for arrays).
struct SlurmScript {
  std::string name, log_pattern, text;
  std::string file_stem;  ///< the script's file name without `.sh`
};

inline std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

inline std::string sbatch_header(const SlurmScriptSettings& s, const std::string& name, const std::string& log_pattern) {
  std::string out = "#!/bin/bash\n";
  auto directive = [&](const std::string& d) { out += "#SBATCH " + d + "\n"; };
  directive("--job-name=" + name);
  directive("--output=" + log_pattern);
  directive("--open-mode=append");
  if (!s.gpus.empty()) directive("--gres=gpu:" + s.gpus);
  if (!s.time_limit.empty()) directive("--time=" + s.time_limit);
  if (!s.partition.empty()) directive("--partition=" + s.partition);
  if (!s.account.empty()) directive("--account=" + s.account);
  if (!s.qos.empty()) directive("--qos=" + s.qos);
  if (s.cpus_per_task > 0) directive("--cpus-per-task=" + std::to_string(s.cpus_per_task));
  if (!s.memory.empty()) directive("--mem=" + s.memory);
  for (const auto& d : s.directives) directive(d);
  return out;
}

/// `exec WORKER JOB --phase run --results DIR --attempt N` (JOB a shell expression).
inline std::string worker_line(const SlurmScriptSettings& s, const std::string& job_file_expr) {
  std::string line = "exec";
  for (const auto& a : s.worker) line += " " + shell_quote(a);
  line += " " + job_file_expr + " --phase run --results " + shell_quote(s.results_dir.string()) +
          " --attempt \"$(( ${SLURM_RESTART_COUNT:-0} + 1 ))\"\n";
  return line;
}

/// The script of one job.
inline SlurmScript single_job_script(const SlurmScriptSettings& s, const std::string& id) {
  SlurmScript out;
  out.name = s.job_name_prefix + "-" + id;
  out.file_stem = id;
  out.log_pattern = (s.logs_dir / (id + ".%j.out")).string();
  out.text = sbatch_header(s, out.name, out.log_pattern);
  out.text += "# socratic evaluation job " + id + "\nset -u\n";
  for (const auto& l : s.setup) out.text += l + "\n";
  out.text += worker_line(s, shell_quote((s.jobs_dir / (id + ".json")).string()));
  return out;
}

/// The name of the array of `ids` (the same ids, the same name: a restart finds it by name).
inline std::string array_stem(const std::vector<std::string>& ids) {
  std::string all;
  for (const auto& id : ids) all += id + "\n";
  return "batch-" + socratic::detail::sha256_hex(all).substr(0, 12);
}

/// The log pattern of an array (as `array_script` writes it).
inline std::string array_log_pattern(const SlurmScriptSettings& s, const std::string& stem) {
  return (s.logs_dir / (stem + ".%A_%a.out")).string();
}

/// The script of one array: task K runs `ids[K]`.
inline SlurmScript array_script(const SlurmScriptSettings& s, const std::vector<std::string>& ids) {
  SlurmScript out;
  out.file_stem = array_stem(ids);
  out.name = s.job_name_prefix + "-" + out.file_stem;
  out.log_pattern = array_log_pattern(s, out.file_stem);
  out.text = sbatch_header(s, out.name, out.log_pattern);
  out.text += "#SBATCH --array=0-" + std::to_string(ids.size() - 1) +
              (s.array_parallel > 0 ? "%" + std::to_string(s.array_parallel) : std::string()) + "\n";
  out.text += "# socratic evaluation jobs, one per array task\nset -u\n";
  for (const auto& l : s.setup) out.text += l + "\n";
  out.text += "ids=(";
  for (const auto& id : ids) out.text += " " + shell_quote(id);
  out.text += " )\nid=${ids[$SLURM_ARRAY_TASK_ID]}\n";
  out.text += worker_line(s, "\"" + s.jobs_dir.string() + "/$id.json\"");
  return out;
}

/// A log pattern with Slurm's `%j`, `%A` and `%a` filled in for job `slurm_id` (`1234`, `1234_5`).
inline std::string fill_log_pattern(std::string log, const std::string& slurm_id) {
  const auto under = slurm_id.find('_');
  auto fill = [&](const std::string& key, const std::string& value) {
    if (auto at = log.find(key); at != std::string::npos) log.replace(at, key.size(), value);
  };
  fill("%A", slurm_id.substr(0, under));
  fill("%a", under == std::string::npos ? std::string() : slurm_id.substr(under + 1));
  fill("%j", slurm_id);
  return log;
}

}  // namespace socratic::exec::detail
