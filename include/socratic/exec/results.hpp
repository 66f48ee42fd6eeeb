#pragma once
/// @file
/// @brief The results folder every executor shares with its workers: `RESULTS/ID.json`, one
/// JobResult per job, published whole (a temporary file, then a hard link that never replaces):
/// the first result of a job is its result, so a late second writer (an evaluation that was
/// started again after a kill) can neither change nor duplicate it.

#include <filesystem>
#include <optional>
#include <string>

#include "socratic/core/json.hpp"
#include "socratic/core/detail/sha256.hpp"
#include "socratic/core/files.hpp"
#include "socratic/exec/job.hpp"

namespace socratic::exec {

/// @brief `dir/ID.json`.
inline std::filesystem::path result_path(const std::filesystem::path& dir, const std::string& id) {
  return dir / (id + ".json");
}

/// @brief Publishes `result` unless the job already has one. True when this call published it.
inline bool publish_result(const std::filesystem::path& dir, const JobResult& result) {
  namespace fs = std::filesystem;
  fs::create_directories(dir);
  const fs::path temp = dir / socratic::detail::unique_name("." + result.job + ".tmp");
  socratic::write_file_atomically(temp, json(result).dump(1) + "\n");
  return socratic::detail::publish_no_replace(temp, result_path(dir, result.job));
}

/// @brief The job's published result, or nullopt when there is none. A file that exists but
/// does not parse is reported as a `failed` result saying so (it is never silently ignored,
/// and never replaced).
inline std::optional<JobResult> read_result(const std::filesystem::path& dir, const EvalJob& job) {
  const std::filesystem::path path = result_path(dir, job.id);
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return std::nullopt;
  try {
    JobResult r = json::parse(socratic::read_file_bytes(path)).get<JobResult>();
    if (r.job != job.id) throw input_error({}, "job result", "names job " + r.job);
    return r;
  } catch (const std::exception& e) {
    JobResult r;
    r.job = job.id;
    r.state = JobState::failed;
    r.message = "its result file " + path.string() + " is unreadable: " + e.what();
    r.report = failure_report(job, r.state, r.message);
    return r;
  }
}

}  // namespace socratic::exec
