#pragma once
/// @file
/// @brief JobBook: the bookkeeping every executor keeps for its jobs, written once for the local
/// GPU pool and Slurm: the journal, the entries by id in submission order, each job's file, its
/// snapshot and its one published result, the endings the executor writes itself, the status
/// and the report the Executor concept hands out, and the recovery of a folder a killed
/// executor left. What differs (where a job runs, how its end is learnt) stays in the executor.
/// Not thread-safe: the executor calls it under its own lock. Light (no processes).
///
/// The folder: `journal.jsonl`, `jobs/ID.json`, `snapshots/HASH/FILE`, `results/ID.json`.

#include <chrono>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "socratic/core/error.hpp"
#include "socratic/core/files.hpp"
#include "socratic/core/json.hpp"
#include "socratic/exec/job.hpp"
#include "socratic/exec/journal.hpp"
#include "socratic/exec/make_job.hpp"
#include "socratic/exec/results.hpp"

namespace socratic::exec {

/// @brief What a JobBook knows of every job; an executor's entry derives from it and adds its
/// own (a GPU slot, a Slurm id) and `std::string location() const` (where the job runs, for
/// JobStatus::where; empty before it runs anywhere).
struct JobEntry {
  EvalJob job;
  JobState state = JobState::queued;
  int attempt = 0;
  bool cancel = false;  ///< a cancellation was asked
  std::string detail;   ///< JobStatus::detail
  std::optional<JobResult> result;  ///< once terminal
};

/// @brief The jobs of one executor, with their journal and their folder (see the file comment).
template <class Entry>
class JobBook {
 public:
  /// @param executor names the executor in errors (`LocalGpuPool`).
  /// @param noun names it in the words of an id clash (`pool`, `executor`).
  JobBook(std::string executor, std::string noun, const std::filesystem::path& folder)
      : executor_(std::move(executor)), noun_(std::move(noun)), folder_(folder), journal_(folder) {}

  const std::filesystem::path& folder() const noexcept { return folder_; }
  std::filesystem::path job_file(const std::string& id) const { return folder_ / "jobs" / (id + ".json"); }
  std::filesystem::path results_dir() const { return folder_ / "results"; }
  std::filesystem::path snapshots_dir() const { return folder_ / "snapshots"; }
  JobJournal& journal() noexcept { return journal_; }

  /// @brief The entry of `id`; throws error naming the executor when it has no such job.
  Entry& entry(const std::string& id) {
    auto it = entries_.find(id);
    if (it == entries_.end()) throw error(executor_ + ": no job " + id);
    return it->second;
  }
  /// @brief Every entry by id (map order).
  std::map<std::string, Entry>& entries() noexcept { return entries_; }
  /// @brief Job ids in submission order (recovered ones first).
  const std::vector<std::string>& order() const noexcept { return order_; }

  /// @brief For a job about to be submitted: the id of the same job submitted before (same
  /// key), if any. Throws input_error when its id is not an id, it has no scenarios, or its id
  /// names another job.
  std::optional<std::string> known_id(const EvalJob& job) const {
    if (!valid_job_id(job.id)) throw input_error({}, "job field \"id\"", "\"" + job.id + "\" is not a job id");
    if (job.scenarios.ids.empty()) throw input_error({}, "job " + job.id, "no scenarios to judge");
    if (const JournalRecord* r = journal_.find_key(job.key())) return r->job.id;
    if (journal_.find(job.id))
      throw input_error({}, "job " + job.id, "this id names another job of this " + noun_ + " (a different key)");
    return std::nullopt;
  }

  /// @brief Records a new job: its candidate's snapshot, its file (what the worker reads), its
  /// journal line and its entry. Returns the entry and, when the candidate could not be
  /// snapshotted, why (the caller then fails the job).
  std::pair<Entry&, std::string> record(EvalJob& job) {
    std::string snapshot_error;
    try {
      snapshot_candidate(job, snapshots_dir());
    } catch (const std::exception& e) {
      snapshot_error = std::string("cannot snapshot the candidate: ") + e.what();
    }
    socratic::write_file_atomically(job_file(job.id), json(job).dump(1) + "\n");
    journal_.submitted(job);
    return {add(job), std::move(snapshot_error)};
  }

  /// @brief A result the executor writes itself (the job never produced one): `state` and
  /// `message`, with a report that says so.
  JobResult ending(const Entry& e, JobState state, const std::string& message) const {
    JobResult r;
    r.job = e.job.id;
    r.attempt = e.attempt;
    r.state = state;
    r.message = message;
    r.report = failure_report(e.job, state, message);
    return r;
  }

  /// @brief Ends the job with `r` unless a result was published already (first writer wins:
  /// then that one stands), and journals the ending. The caller wakes its waiters.
  /// `over_published`: `r` replaces a published result (a job cancelled while its worker wrote
  /// one: what an evaluation cut by the cancellation made is not a verdict).
  void finish(Entry& e, JobResult r, bool over_published = false) {
    try {
      if (over_published)
        write_file_atomically(result_path(results_dir(), e.job.id), json(r).dump(1) + "\n");
      else if (!publish_result(results_dir(), r))
        if (auto existing = read_result(results_dir(), e.job)) r = *existing;
    } catch (const std::exception& ex) {
      r.message += std::string(" (the result could not be written: ") + ex.what() + ")";
    }
    journal_.finished(e.job.id, r.state);
    e.state = r.state;
    e.detail = r.state == JobState::completed ? "completed" : r.message;
    e.result = std::move(r);
  }

  /// @brief The job's result as its worker published it, if it did.
  std::optional<JobResult> published(const Entry& e) const { return read_result(results_dir(), e.job); }

  JobStatus status(const Entry& e) const {
    JobStatus s;
    s.id = e.job.id;
    s.state = e.state;
    s.detail = e.detail;
    s.attempt = e.attempt;
    s.where = e.location();
    return s;
  }

  /// @brief Every job's status, in submission order.
  std::vector<JobStatus> statuses() const {
    std::vector<JobStatus> out;
    for (const auto& id : order_) out.push_back(status(entries_.at(id)));
    return out;
  }

  /// @brief The report of a terminal job, as submitted (Executor::collect); nullopt before.
  std::optional<EvalReport> report(const std::string& id) {
    Entry& e = entry(id);
    if (!is_terminal(e.state) || !e.result) return std::nullopt;
    return as_submitted(e.result->report, e.job);
  }

  /// @brief Takes up the jobs the journal holds (a restart on the folder). For each, in order:
  /// `adopt(entry, record)` reads the executor's own fields; then a finished job gets its
  /// published result (or an ending that says it is gone), a job whose result was published
  /// but not journaled counts once, and any other is handed to `unfinished(entry, record)`.
  template <class Adopt, class Unfinished>
  void recover(Adopt&& adopt, Unfinished&& unfinished) {
    for (const auto& id : journal_.order()) {
      const JournalRecord& rec = journal_.records().at(id);
      Entry& e = add(rec.job);
      e.attempt = rec.attempts;
      adopt(e, rec);
      auto result = published(e);
      if (rec.finished) {
        e.state = *rec.finished;
        e.result = result ? *result : ending(e, *rec.finished, "finished before a restart, but its result file is gone");
        e.detail = e.state == JobState::completed ? "completed" : e.result->message;
      } else if (result) {
        // The worker published it and the executor died before journaling that: it counts once.
        finish(e, *result);
      } else {
        unfinished(e, rec);
      }
    }
  }

 private:
  Entry& add(const EvalJob& job) {
    Entry& e = entries_[job.id];
    e.job = job;
    order_.push_back(job.id);
    return e;
  }

  std::string executor_, noun_;
  std::filesystem::path folder_;
  JobJournal journal_;
  std::map<std::string, Entry> entries_;
  std::vector<std::string> order_;
};

}  // namespace socratic::exec
