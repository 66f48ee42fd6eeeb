#pragma once
/// @file
/// @brief Making jobs: `make_eval_job` pins a candidate (its entry file and the headers of its
/// folder that it includes: core/candidate_files.hpp) and a scenario-set file by hash;
/// `snapshot_candidate` copies the candidate's files into an executor's content-addressed store,
/// so that what runs later is what was submitted, whatever happens to the workspace.

#include <algorithm>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "socratic/core/candidate.hpp"
#include "socratic/core/candidate_files.hpp"
#include "socratic/core/error.hpp"
#include "socratic/core/scenario.hpp"
#include "socratic/core/detail/sha256.hpp"
#include "socratic/core/files.hpp"
#include "socratic/exec/job.hpp"

namespace socratic::exec {

/// @brief What every job of a batch shares: the problem, the scenarios, the evaluator.
struct JobTemplate {
  std::string problem;
  std::filesystem::path scenarios;  ///< the scenario-set file
  EvaluatorSpec evaluator;
  std::optional<std::uint64_t> seed;
  JobPurpose purpose = JobPurpose::timing;
  int measurement = 0;  ///< EvalJob::measurement
};

/// @brief A job for `candidate` (read now: its hash is pinned) under `tmpl`. The bytes are read
/// from the candidate's snapshot when it has one (a campaign's copy), else from its source; the
/// snapshot path stays empty until an executor stores them (snapshot_candidate). `only`, when
/// not empty, judges just those scenario ids (each must be in the set). Throws when the
/// candidate or the scenario set cannot be read (input_error naming the file).
inline EvalJob make_eval_job(const Candidate& candidate, const JobTemplate& tmpl,
                             const std::vector<std::string>& only = {}, int repeat = 0) {
  namespace fs = std::filesystem;
  EvalJob job;
  const fs::path source = fs::absolute(candidate.source).lexically_normal();
  job.candidate.origin = source;
  job.candidate.label = candidate.label.empty() ? source.filename().string() : candidate.label;
  job.candidate.file_name = source.filename().string();
  job.candidate.content_hash = read_candidate_files(candidate.judged_file()).hash();
  if (!candidate.snapshot.empty()) job.candidate.snapshot = fs::absolute(candidate.snapshot).lexically_normal();
  job.problem = tmpl.problem;
  job.scenarios.file = fs::absolute(tmpl.scenarios).lexically_normal();
  job.scenarios.content_hash = socratic::detail::sha256_file(job.scenarios.file);
  const ScenarioSet set = load_scenario_set(job.scenarios.file);
  job.scenarios.name = set.name;
  if (only.empty()) {
    job.scenarios.ids = set.ids();
  } else {
    for (const auto& id : only)
      if (!set.find(id))
        throw input_error(job.scenarios.file.string(), "scenario \"" + id + "\"",
                          "not in the set (asked for by the job's scenario subset)");
    // In the set's order, so a subset's report reads like the full one.
    for (const auto& id : set.ids())
      if (std::find(only.begin(), only.end(), id) != only.end()) job.scenarios.ids.push_back(id);
    job.scenarios.only = job.scenarios.ids;
  }
  if (job.scenarios.ids.empty()) throw input_error(job.scenarios.file.string(), {}, "the scenario set is empty");
  job.evaluator = tmpl.evaluator;
  job.seed = tmpl.seed;
  job.purpose = tmpl.purpose;
  job.repeat = repeat;
  job.measurement = tmpl.measurement;
  job.id = job_id_for(job);
  return job;
}

/// @brief Stores the candidate's files under `store` (`store/HASH/`, the entry as FILE_NAME and
/// its headers at their relative paths) unless they are there, and points the job at that copy's
/// entry. The files come from the job's current snapshot or else its origin, and must hash to
/// `content_hash`: a candidate edited after the job was made is refused with an error naming the
/// file, never judged under the old hash.
inline void snapshot_candidate(EvalJob& job, const std::filesystem::path& store) {
  namespace fs = std::filesystem;
  const std::string& hash = job.candidate.content_hash;
  if (hash.size() != 64 || hash.find_first_not_of("0123456789abcdef") != std::string::npos)
    throw input_error({}, "job " + job.id + " candidate", "content_hash is not a SHA-256 digest");
  if (job.candidate.file_name.empty() || job.candidate.file_name.find('/') != std::string::npos ||
      job.candidate.file_name == "." || job.candidate.file_name == "..")
    throw input_error({}, "job " + job.id + " candidate", "file_name must be a plain file name");
  const fs::path folder = fs::absolute(store).lexically_normal() / hash;
  const fs::path target = folder / job.candidate.file_name;
  auto hash_of = [](const fs::path& entry) -> std::string {
    std::error_code ec;
    if (entry.empty() || !fs::is_regular_file(entry, ec)) return {};
    try {
      return read_candidate_files(entry).hash();
    } catch (const std::exception&) {
      return {};
    }
  };
  if (hash_of(target) == hash) {
    job.candidate.snapshot = target;
    return;
  }
  for (const fs::path& from : {job.candidate.snapshot, job.candidate.origin}) {
    if (hash_of(from) != hash) continue;
    CandidateFiles files = read_candidate_files(from);
    files.files.front().first = job.candidate.file_name;
    write_candidate_files(files, folder);
    job.candidate.snapshot = target;
    return;
  }
  throw input_error(job.candidate.origin.string(), "job " + job.id,
                    "the candidate's files (hash " + hash.substr(0, 12) +
                        "...) are neither in the snapshot nor at the origin: they changed after the job was made");
}

}  // namespace socratic::exec
