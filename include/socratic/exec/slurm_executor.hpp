#pragma once
/// @file
/// @brief SlurmExecutor: an Executor over a Slurm cluster. A job script per evaluation (or one
/// array per batch) submitted with `sbatch --parsable`, the GPU request, partition, account,
/// time limit and extra directives from the configuration; the worker (`socratic exec-job`)
/// writes each result atomically to the shared folder, named by job; ONE poller thread asks
/// `squeue` about every live job in one call, backing off while nothing changes and while the
/// controller is unreachable; `scancel` cancels; every terminal state becomes a clear report.
/// Slurm binds the GPUs (the executor sets no CUDA_VISIBLE_DEVICES). A journal in the shared
/// folder lets a restarted executor find its jobs again. docs/executor.md, "Slurm". Heavy
/// (run_process).
///
/// The shared folder (visible to the submitting machine and every node): `journal.jsonl`,
/// `jobs/ID.json`, `snapshots/`, `scripts/`, `logs/`, `results/ID.json`.

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "socratic/core/error.hpp"
#include "socratic/core/json.hpp"
#include "socratic/core/detail/sha256.hpp"
#include "socratic/core/files.hpp"
#include "socratic/eval/runner_client.hpp"
#include "socratic/exec/detail/slurm_script.hpp"
#include "socratic/exec/executor.hpp"
#include "socratic/exec/job.hpp"
#include "socratic/exec/job_book.hpp"
#include "socratic/exec/make_job.hpp"
#include "socratic/exec/results.hpp"
#include "socratic/exec/slurm_states.hpp"
#include "socratic/process/environment.hpp"
#include "socratic/process/run_process.hpp"

namespace socratic::exec {

/// @brief How a SlurmExecutor submits and polls. Only `shared_dir` and `worker` are required.
struct SlurmConfig {
  std::filesystem::path shared_dir;  ///< on a file system every node sees
  /// The worker's argv as the nodes run it, e.g. `{"/opt/socratic/bin/socratic", "exec-job"}`.
  std::vector<std::string> worker;
  std::string partition, account, qos;  ///< empty: the cluster's defaults
  std::string time_limit = "01:00:00";  ///< `--time`
  std::string gpus = "1";               ///< `--gres=gpu:GPUS` (`1`, `h200:1`); empty: no GPU request
  int cpus_per_task = 0;                ///< `--cpus-per-task`; 0: the default
  std::string memory;                   ///< `--mem`, e.g. `32G`
  std::vector<std::string> directives;  ///< more sbatch options, one each (`--constraint=h200`)
  std::vector<std::string> setup;       ///< shell lines the script runs before the worker (`module load cuda`)
  /// `NAME=value` for the Slurm commands, and so for the jobs (sbatch exports the environment),
  /// e.g. `SLURM_CONF=/etc/slurm-test/slurm.conf`.
  std::vector<std::string> environment;
  std::string job_name_prefix = "socratic";
  std::string sbatch = "sbatch", squeue = "squeue", scontrol = "scontrol", scancel = "scancel", sacct = "sacct";
  std::chrono::milliseconds poll_min{std::chrono::milliseconds(500)};  ///< after a change
  std::chrono::milliseconds poll_max{std::chrono::seconds(30)};        ///< the backoff's ceiling
  std::chrono::milliseconds command_timeout{std::chrono::seconds(60)}; ///< one Slurm command
  /// After Slurm says COMPLETED, how long to wait for the result to appear (a shared file
  /// system's caches) before the job is failed for leaving none.
  std::chrono::milliseconds result_grace{std::chrono::seconds(30)};
  int vanish_after = 3;  ///< polls (with the controller answering) a job may be missing before it is vanished
  int array_max = 1000;  ///< tasks per array (Slurm's MaxArraySize is 1001 by default)
  int array_parallel = 0;  ///< `--array=...%N`: tasks of one array running at once; 0: no limit
};

/// @brief What the executor asked Slurm, for load figures.
struct SlurmStats {
  long sbatch = 0, squeue = 0, scontrol = 0, sacct = 0, scancel = 0;
  long poll_rounds = 0;
  long unreachable = 0;          ///< polls that found the controller unreachable
  std::string last_error;        ///< of the last failed Slurm command
  long calls() const { return sbatch + squeue + scontrol + sacct + scancel; }
};

/// @brief The Slurm executor. Thread-safe; its poller thread runs from construction to
/// destruction. Destroying it leaves submitted jobs to Slurm: a new executor on the same
/// shared folder finds them again.
class SlurmExecutor {
 public:
  explicit SlurmExecutor(SlurmConfig config) : config_(std::move(config)) {
    namespace fs = std::filesystem;
    if (config_.shared_dir.empty()) throw error("SlurmExecutor: no shared folder configured");
    if (config_.worker.empty()) throw error("SlurmExecutor: no worker command configured");
    if (config_.vanish_after < 1) throw error("SlurmExecutor: vanish_after must be at least 1");
    if (config_.poll_min.count() <= 0 || config_.poll_max < config_.poll_min)
      throw error("SlurmExecutor: poll_min must be positive and not above poll_max");
    for (const auto& d : config_.directives)
      if (d.empty() || d.front() != '-' || d.find_first_of("\r\n") != std::string::npos)
        throw input_error({}, "slurm directive \"" + d + "\"", "must be one sbatch option, starting with '-'");
    for (const auto& e : config_.environment)
      if (e.find('=') == std::string::npos || e.front() == '=')
        throw input_error({}, "slurm environment entry \"" + e + "\"", "must read NAME=value");
    config_.shared_dir = fs::absolute(config_.shared_dir).lexically_normal();
    book_.emplace("SlurmExecutor", "executor", config_.shared_dir);
    // Slurm fails a job whose log cannot be opened (JobLaunchFailure): the folders come first.
    for (const char* d : {"jobs", "snapshots", "scripts", "logs", "results"}) fs::create_directories(dir(d));
    recover();
    poller_ = std::thread([this] { poll_loop(); });
  }
  SlurmExecutor(const SlurmExecutor&) = delete;
  SlurmExecutor& operator=(const SlurmExecutor&) = delete;
  ~SlurmExecutor() {
    {
      std::lock_guard lock(mutex_);
      stopping_ = true;
    }
    cv_.notify_all();
    poller_.join();
  }

  /// @brief Submits one job as one Slurm job (see the Executor concept).
  std::string submit(const EvalJob& job) {
    std::vector<std::string> ids = submit_batch({job});
    return ids.front();
  }

  /// @brief Submits several jobs as one Slurm job array (one task each; several arrays past
  /// `array_max`). Returns their ids in order. Jobs already known (same key) are not submitted
  /// again.
  std::vector<std::string> submit_batch(const std::vector<EvalJob>& submitted) {
    std::vector<std::string> ids;
    std::vector<EvalJob> fresh;
    {
      std::lock_guard lock(mutex_);
      for (const EvalJob& original : submitted) {
        EvalJob job = original;
        job.id = job_id_for(job);
        if (auto known = book_->known_id(job)) {
          ids.push_back(*known);
          continue;
        }
        if (std::any_of(fresh.begin(), fresh.end(), [&](const EvalJob& f) { return f.id == job.id; }))
          throw input_error({}, "job " + job.id, "this id names another job of this executor (a different key)");
        ids.push_back(job.id);
        fresh.push_back(std::move(job));
      }
    }
    for (std::size_t at = 0; at < fresh.size(); at += static_cast<std::size_t>(std::max(1, config_.array_max))) {
      const std::size_t end = std::min(fresh.size(), at + static_cast<std::size_t>(std::max(1, config_.array_max)));
      std::vector<EvalJob> chunk(fresh.begin() + static_cast<long>(at), fresh.begin() + static_cast<long>(end));
      submit_chunk(chunk, submitted.size() > 1);
    }
    return ids;
  }

  JobStatus poll(const std::string& id) {
    std::lock_guard lock(mutex_);
    return book_->status(book_->entry(id));
  }

  bool cancel(const std::string& id) {
    std::string slurm_id;
    {
      std::lock_guard lock(mutex_);
      Entry& e = book_->entry(id);
      if (is_terminal(e.state)) return false;
      if (!e.cancel) book_->journal().cancel_requested(id);
      e.cancel = true;
      slurm_id = e.slurm_id;
      if (slurm_id.empty()) {
        finish_locked(e, synthesized(e, JobState::cancelled, "cancelled before it was submitted"));
        return true;
      }
    }
    const ProcessResult r = slurm_command({config_.scancel, slurm_id}, &SlurmStats::scancel);
    if (!r.ok()) {
      std::lock_guard lock(mutex_);
      stats_.last_error = "scancel " + slurm_id + ": " + r.describe() + " " + r.stderr_text;
    }
    wake_poller();
    return true;
  }

  std::optional<EvalReport> collect(const std::string& id) {
    std::lock_guard lock(mutex_);
    return book_->report(id);
  }

  JobStatus wait(const std::string& id, std::chrono::milliseconds timeout) {
    std::unique_lock lock(mutex_);
    Entry& e = book_->entry(id);
    cv_.wait_for(lock, timeout, [&] { return is_terminal(e.state); });
    return book_->status(e);
  }

  std::optional<JobResult> result(const std::string& id) {
    std::lock_guard lock(mutex_);
    return book_->entry(id).result;
  }

  /// @brief The Slurm id of a job (`1234`, `1234_5`), empty before submission.
  std::string slurm_id(const std::string& id) {
    std::lock_guard lock(mutex_);
    return book_->entry(id).slurm_id;
  }

  std::vector<JobStatus> jobs() {
    std::lock_guard lock(mutex_);
    return book_->statuses();
  }

  SlurmStats stats() {
    std::lock_guard lock(mutex_);
    return stats_;
  }

  const SlurmConfig& config() const noexcept { return config_; }

 private:
  using clock = std::chrono::steady_clock;

  struct Entry : JobEntry {
    std::string slurm_id, slurm_state, log;
    std::string batch;  ///< the array's name, when part of one
    int index = -1;     ///< the task's index in it
    int missing = 0;    ///< consecutive polls without it
    bool orphan = false;  ///< journaled but never known to be submitted (a kill inside sbatch)
    std::optional<clock::time_point> completed_at;  ///< Slurm said COMPLETED; the result may lag
    std::string location() const { return slurm_id.empty() ? std::string() : "slurm " + slurm_id; }
  };

  std::filesystem::path dir(const char* name) const { return config_.shared_dir / name; }

  /// An ending this executor writes, with the job's Slurm id.
  JobResult synthesized(const Entry& e, JobState state, const std::string& message) const {
    JobResult r = book_->ending(e, state, message);
    r.slurm_job_id = e.slurm_id;
    return r;
  }

  void finish_locked(Entry& e, JobResult r, bool over_published = false) {
    book_->finish(e, std::move(r), over_published);
    cv_.notify_all();
  }

  /// Ends `e`, which has a published result. When this executor cancelled it and Slurm says
  /// CANCELLED, the job was still running when the cancellation came: scancel signals the job's
  /// processes in turn, and a worker whose evaluator's child was signalled first can publish what
  /// it made of the cut evaluation before its own signal arrives. That is not a verdict: the job
  /// ends cancelled, as asked. Otherwise the published result stands.
  void finish_published_locked(Entry& e, JobResult published, const std::string& slurm_state) {
    if (e.cancel && slurm::meaning_of(slurm_state).state == JobState::cancelled) {
      finish_locked(e,
                    synthesized(e, JobState::cancelled,
                                "Slurm job " + e.slurm_id + " was cancelled (" + slurm_state +
                                    "); cancelled by this executor; the result its worker wrote while the job was "
                                    "being cancelled is not taken"),
                    true);
      return;
    }
    finish_locked(e, std::move(published));
  }

  void wake_poller() {
    {
      std::lock_guard lock(mutex_);
      woken_ = true;
    }
    cv_.notify_all();
  }

  // ---- Slurm commands ----------------------------------------------------------------------

  std::vector<std::string> command_environment() const {
    std::vector<std::string> env;
    for (auto& entry : scrubbed_environment()) {
      const std::string name = entry.substr(0, entry.find('='));
      // Slurm binds the GPUs; an enclosing allocation's variables would confuse sbatch.
      if (name == "CUDA_VISIBLE_DEVICES" || name == "GPU_DEVICE_ORDINAL" || name == "SOCRATIC_EXEC_JOB") continue;
      if (name.rfind("SLURM_", 0) == 0 && name != "SLURM_CONF") continue;
      env.push_back(std::move(entry));
    }
    env.insert(env.end(), config_.environment.begin(), config_.environment.end());
    return env;
  }

  ProcessResult slurm_command(const std::vector<std::string>& argv, long SlurmStats::*counter) {
    {
      std::lock_guard lock(mutex_);
      ++(stats_.*counter);
    }
    ProcessOptions po;
    po.environment = command_environment();
    po.timeout = config_.command_timeout;
    po.max_output_bytes = std::size_t(8) << 20;
    return run_process(argv, po);
  }

  detail::SlurmScriptSettings script_settings() const {
    detail::SlurmScriptSettings s;
    s.job_name_prefix = config_.job_name_prefix;
    s.gpus = config_.gpus;
    s.time_limit = config_.time_limit;
    s.partition = config_.partition;
    s.account = config_.account;
    s.qos = config_.qos;
    s.memory = config_.memory;
    s.cpus_per_task = config_.cpus_per_task;
    s.array_parallel = config_.array_parallel;
    s.directives = config_.directives;
    s.setup = config_.setup;
    s.worker = config_.worker;
    s.jobs_dir = dir("jobs");
    s.logs_dir = dir("logs");
    s.results_dir = dir("results");
    return s;
  }

  /// Writes, journals and submits `chunk` (one job, or an array). Submission failures end the
  /// jobs `failed` with sbatch's words; they never throw.
  void submit_chunk(std::vector<EvalJob>& chunk, bool as_array) {
    namespace fs = std::filesystem;
    const bool array = as_array && chunk.size() > 1;
    std::vector<std::string> chunk_ids;
    for (const auto& j : chunk) chunk_ids.push_back(j.id);
    const detail::SlurmScript script = array ? detail::array_script(script_settings(), chunk_ids)
                                             : detail::single_job_script(script_settings(), chunk.front().id);
    const std::string& name = script.name;
    const std::string& log_pattern = script.log_pattern;
    const fs::path script_path = dir("scripts") / (script.file_stem + ".sh");
    std::vector<std::string> failures(chunk.size());
    {
      std::lock_guard lock(mutex_);
      for (std::size_t i = 0; i < chunk.size(); ++i) {
        EvalJob& job = chunk[i];
        auto [e, snapshot_error] = book_->record(job);
        failures[i] = std::move(snapshot_error);
        // The name first: a restart that finds no Slurm id looks the job up by it.
        book_->journal().backend(job.id, json{{"name", name}, {"index", array ? static_cast<int>(i) : -1}});
        e.batch = name;
        e.index = array ? static_cast<int>(i) : -1;
        e.detail = "submitting";
        if (!failures[i].empty()) finish_locked(e, synthesized(e, JobState::failed, failures[i]));
      }
    }
    bool any_live = false;
    for (const auto& f : failures) any_live |= f.empty();
    if (!any_live) return;
    socratic::write_file_atomically(script_path, script.text);
    const ProcessResult r = slurm_command({config_.sbatch, "--parsable", script_path.string()}, &SlurmStats::sbatch);
    std::string slurm_id, why;
    if (r.ok()) {
      try {
        slurm_id = slurm::parse_sbatch_id(r.stdout_text);
      } catch (const std::exception& ex) {
        why = ex.what();
      }
    } else {
      why = "sbatch " + r.describe() + (r.stderr_text.empty() ? "" : ": " + socratic::detail::cap_text(r.stderr_text, 1000));
    }
    std::lock_guard lock(mutex_);
    for (std::size_t i = 0; i < chunk.size(); ++i) {
      Entry& e = book_->entries().at(chunk[i].id);
      if (is_terminal(e.state)) continue;
      if (slurm_id.empty()) {
        finish_locked(e, synthesized(e, JobState::failed, "the cluster refused the job: " + why));
        continue;
      }
      adopt_locked(e, array ? slurm_id + "_" + std::to_string(i) : slurm_id, log_pattern);
    }
    woken_ = true;
    cv_.notify_all();
  }

  void adopt_locked(Entry& e, const std::string& slurm_id, const std::string& log_pattern) {
    e.slurm_id = slurm_id;
    e.attempt = std::max(e.attempt, 1);
    e.detail = "Slurm job " + slurm_id + " submitted";
    const std::string log = detail::fill_log_pattern(log_pattern, slurm_id);
    e.log = log;
    book_->journal().backend(e.job.id, json{{"slurm_id", slurm_id}, {"log", log}});
  }

  // ---- recovery ------------------------------------------------------------------------------

  void recover() {
    book_->recover(
        [](Entry& e, const JournalRecord& rec) {
          e.cancel = rec.cancel_requested;
          e.slurm_id = rec.backend.value("slurm_id", "");
          e.log = rec.backend.value("log", "");
          e.batch = rec.backend.value("name", "");
          e.index = rec.backend.value("index", -1);
          if (!e.slurm_id.empty()) e.attempt = std::max(e.attempt, 1);
        },
        [](Entry& e, const JournalRecord&) {
          e.orphan = e.slurm_id.empty();
          e.detail = e.orphan ? "looking for it by name (the executor stopped while submitting it)"
                              : "found again: Slurm job " + e.slurm_id;
        });
  }

  /// Jobs journaled without a Slurm id (the executor died inside sbatch): found by name, or
  /// submitted again.
  void resolve_unsubmitted() {
    std::map<std::string, std::vector<std::string>> by_name;  // job name -> our ids
    std::vector<EvalJob> again;  // never reached sbatch (no name journaled): submitted now
    {
      std::lock_guard lock(mutex_);
      for (auto& [id, e] : book_->entries()) {
        if (!e.orphan || is_terminal(e.state) || !e.slurm_id.empty()) continue;
        if (e.batch.empty()) {
          e.orphan = false;
          again.push_back(e.job);
        } else {
          by_name[e.batch].push_back(id);
        }
      }
    }
    if (by_name.empty()) {
      for (auto& job : again) {
        std::vector<EvalJob> one{job};
        resubmit(one);
      }
      return;
    }
    std::string names;
    for (const auto& [n, ids] : by_name) names += (names.empty() ? "" : ",") + n;
    const ProcessResult r =
        slurm_command({config_.squeue, "-h", "-r", "-t", "all", "--name=" + names, "-O", "JobArrayID:|,Name:|"},
                      &SlurmStats::squeue);
    if (!r.ok()) return;  // try again next round
    std::map<std::string, std::string> found;  // name -> array job id or job id
    std::size_t at = 0;
    const std::string& out = r.stdout_text;
    while (at < out.size()) {
      const std::size_t nl = out.find('\n', at);
      const std::string line = out.substr(at, nl == std::string::npos ? std::string::npos : nl - at);
      at = nl == std::string::npos ? out.size() : nl + 1;
      const auto bar = line.find('|');
      if (bar == std::string::npos) continue;
      std::string sid = line.substr(0, bar);
      std::string name = line.substr(bar + 1);
      if (auto b2 = name.find('|'); b2 != std::string::npos) name.resize(b2);
      while (!name.empty() && name.back() == ' ') name.pop_back();
      while (!sid.empty() && sid.back() == ' ') sid.pop_back();
      found[name] = sid.substr(0, sid.find('_'));
    }
    {
      std::lock_guard lock(mutex_);
      for (const auto& [name, ids] : by_name) {
        auto it = found.find(name);
        for (const auto& id : ids) {
          Entry& e = book_->entries().at(id);
          e.orphan = false;
          if (it == found.end()) {
            again.push_back(e.job);
            continue;
          }
          const bool array = e.index >= 0;
          const std::string sid = array ? it->second + "_" + std::to_string(e.index) : it->second;
          const std::string log =
              array ? detail::array_log_pattern(script_settings(), name.substr(config_.job_name_prefix.size() + 1))
                    : detail::single_job_script(script_settings(), id).log_pattern;
          adopt_locked(e, sid, log);
        }
      }
    }
    for (auto& job : again) {
      std::vector<EvalJob> one{job};
      resubmit(one);
    }
  }

  /// A journaled job never submitted: submitted now, keeping its journal record.
  void resubmit(std::vector<EvalJob>& chunk) {
    EvalJob& job = chunk.front();
    const detail::SlurmScript script = detail::single_job_script(script_settings(), job.id);
    const std::string& log_pattern = script.log_pattern;
    const std::filesystem::path script_path = dir("scripts") / (script.file_stem + ".sh");
    socratic::write_file_atomically(script_path, script.text);
    {
      std::lock_guard lock(mutex_);
      book_->journal().backend(job.id, json{{"name", script.name}, {"index", -1}});
      book_->entries().at(job.id).batch = script.name;
      book_->entries().at(job.id).index = -1;
    }
    const ProcessResult r = slurm_command({config_.sbatch, "--parsable", script_path.string()}, &SlurmStats::sbatch);
    std::lock_guard lock(mutex_);
    Entry& e = book_->entries().at(job.id);
    try {
      if (!r.ok()) throw error("sbatch " + r.describe() + ": " + socratic::detail::cap_text(r.stderr_text, 1000));
      adopt_locked(e, slurm::parse_sbatch_id(r.stdout_text), log_pattern);
    } catch (const std::exception& ex) {
      finish_locked(e, synthesized(e, JobState::failed, std::string("the cluster refused the job: ") + ex.what()));
    }
  }

  // ---- the poller ---------------------------------------------------------------------------

  std::string log_tail(const Entry& e) const {
    std::error_code ec;
    if (e.log.empty() || !std::filesystem::is_regular_file(e.log, ec)) return {};
    std::string text;
    try {
      text = socratic::read_file_bytes(e.log);
    } catch (const std::exception&) {
      return {};
    }
    if (text.size() > 1500) text = "..." + text.substr(text.size() - 1500);
    while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
    return text;
  }

  /// The report words for a job Slurm ended without a result.
  std::string ending_words(const Entry& e, const slurm::QueueEntry& q, const slurm::StateMeaning& m) const {
    std::string words = "Slurm job " + e.slurm_id + " " + m.words + " (" + q.state;
    if (!q.reason.empty() && q.reason != "None") words += ", reason " + q.reason;
    const std::string status = slurm::describe_wait_status(q.wait_status);
    if (!status.empty()) words += ", " + status;
    words += ")";
    if (m.state == JobState::timed_out && q.state == "TIMEOUT") words += "; its time limit was " + config_.time_limit;
    if (m.state == JobState::cancelled) words += e.cancel ? "; cancelled by this executor" : "; cancelled outside this executor";
    if (m.state == JobState::completed) words = "Slurm job " + e.slurm_id + " completed but left no result in " +
                                                dir("results").string();
    const std::string tail = log_tail(e);
    if (!tail.empty()) words += "; end of its log " + e.log + ":\n" + tail;
    return words;
  }

  /// Applies what Slurm says about `e` (under the lock).
  bool apply_locked(Entry& e, const slurm::QueueEntry& q) {
    e.missing = 0;
    const slurm::StateMeaning m = slurm::meaning_of(q.state);
    const bool changed = q.state != e.slurm_state;
    e.slurm_state = q.state;
    if (!is_terminal(m.state)) {
      e.state = m.state;
      e.detail = "Slurm job " + e.slurm_id + " " + q.state +
                 (!q.reason.empty() && q.reason != "None" ? " (" + q.reason + ")" : "");
      return changed;
    }
    if (auto published = book_->published(e)) {
      finish_published_locked(e, *published, q.state);
      return true;
    }
    if (m.state == JobState::completed) {
      // A shared file system may show the result a little after Slurm's word.
      if (!e.completed_at) e.completed_at = clock::now();
      if (clock::now() - *e.completed_at < config_.result_grace) {
        e.detail = "Slurm job " + e.slurm_id + " COMPLETED; waiting for its result";
        return changed;
      }
      finish_locked(e, synthesized(e, JobState::failed, ending_words(e, q, m)));
      return true;
    }
    JobResult r = synthesized(e, m.state, ending_words(e, q, m));
    finish_locked(e, std::move(r));
    return true;
  }

  std::optional<bool> sacct_available_;

  /// One poll of every live job: one squeue call (plus sacct or scontrol for jobs it no longer
  /// lists). Returns whether anything changed; nullopt when the controller did not answer.
  std::optional<bool> poll_once() {
    std::vector<std::string> query;
    {
      std::lock_guard lock(mutex_);
      std::set<std::string> ids;
      for (auto& [id, e] : book_->entries())
        if (!is_terminal(e.state) && !e.slurm_id.empty()) ids.insert(e.slurm_id.substr(0, e.slurm_id.find('_')));
      query.assign(ids.begin(), ids.end());
      if (!query.empty()) ++stats_.poll_rounds;
    }
    if (query.empty()) return false;
    std::string list;
    for (const auto& id : query) list += (list.empty() ? "" : ",") + id;
    const ProcessResult r = slurm_command(
        {config_.squeue, "-h", "-r", "-t", "all", "-j", list, "-O", slurm::squeue_format}, &SlurmStats::squeue);
    std::vector<slurm::QueueEntry> listed;
    if (r.ok()) {
      listed = slurm::parse_squeue(r.stdout_text);
    } else if (r.stderr_text.find("Invalid job id") == std::string::npos) {
      std::lock_guard lock(mutex_);
      ++stats_.unreachable;
      stats_.last_error = "squeue " + r.describe() + ": " + socratic::detail::cap_text(r.stderr_text, 300);
      for (auto& [id, e] : book_->entries())
        if (!is_terminal(e.state) && !e.slurm_id.empty())
          e.detail = "Slurm job " + e.slurm_id + " " + (e.slurm_state.empty() ? "submitted" : e.slurm_state) +
                     "; the controller does not answer (" + socratic::detail::cap_text(r.stderr_text, 200) + ")";
      return std::nullopt;
    }  // else: squeue knows none of them (all purged): they are missing below
    std::map<std::string, slurm::QueueEntry> by_id;
    for (auto& q : listed) by_id[q.id] = std::move(q);

    bool changed = false;
    std::vector<std::string> missing;
    {
      std::lock_guard lock(mutex_);
      for (auto& [id, e] : book_->entries()) {
        if (is_terminal(e.state) || e.slurm_id.empty()) continue;
        // A published result is final (first writer wins): no need to wait for Slurm's word,
        // unless this executor cancelled the job (finish_published_locked).
        auto it = by_id.find(e.slurm_id);
        if (auto published = book_->published(e)) {
          if (e.cancel && it != by_id.end() && !is_terminal(slurm::meaning_of(it->second.state).state))
            continue;  // being cancelled: Slurm's word decides at the next poll
          finish_published_locked(e, *published, it != by_id.end() ? it->second.state : std::string());
          changed = true;
          continue;
        }
        if (it != by_id.end()) {
          changed |= apply_locked(e, it->second);
          continue;
        }
        missing.push_back(id);
      }
    }
    if (!missing.empty()) changed |= settle_missing(missing);
    return changed;
  }

  /// Jobs squeue no longer lists and that left no result: asked of sacct where accounting
  /// exists, else of scontrol; vanished after `vanish_after` such polls.
  bool settle_missing(const std::vector<std::string>& ids) {
    std::map<std::string, std::string> slurm_ids;  // our id -> slurm id
    {
      std::lock_guard lock(mutex_);
      for (const auto& id : ids) slurm_ids[id] = book_->entries().at(id).slurm_id;
    }
    std::map<std::string, slurm::QueueEntry> known;
    if (!sacct_available_) {
      const ProcessResult probe = slurm_command({config_.sacct, "-n", "-X", "-j", "1", "-o", "JobID"}, &SlurmStats::sacct);
      sacct_available_ = probe.ok();
    }
    std::string list;
    for (const auto& [id, sid] : slurm_ids) list += (list.empty() ? "" : ",") + sid;
    if (*sacct_available_) {
      const ProcessResult r = slurm_command(
          {config_.sacct, "-n", "-P", "-X", "-j", list, "-o", "JobID,State,ExitCode,Reason"}, &SlurmStats::sacct);
      if (r.ok())
        for (auto& q : slurm::parse_sacct(r.stdout_text)) known[q.id] = std::move(q);
    } else {
      for (const auto& [id, sid] : slurm_ids) {
        const ProcessResult r = slurm_command({config_.scontrol, "-o", "show", "job", sid}, &SlurmStats::scontrol);
        if (!r.ok()) continue;
        auto field = [&](const std::string& key) {
          const auto at = r.stdout_text.find(" " + key + "=");
          if (at == std::string::npos) return std::string();
          const auto begin = at + key.size() + 2;
          return r.stdout_text.substr(begin, r.stdout_text.find(' ', begin) - begin);
        };
        slurm::QueueEntry q;
        q.id = sid;
        q.state = field("JobState");
        q.reason = field("Reason");
        const std::string code = field("ExitCode");
        if (auto colon = code.find(':'); colon != std::string::npos) {
          const int exit_code = std::atoi(code.substr(0, colon).c_str());
          const int signal = std::atoi(code.substr(colon + 1).c_str());
          q.wait_status = signal ? signal : (exit_code << 8);
        }
        if (!q.state.empty()) known[sid] = q;
      }
    }
    bool changed = false;
    std::lock_guard lock(mutex_);
    for (const auto& [id, sid] : slurm_ids) {
      Entry& e = book_->entries().at(id);
      if (is_terminal(e.state)) continue;
      if (auto it = known.find(sid); it != known.end()) {
        changed |= apply_locked(e, it->second);
        continue;
      }
      if (++e.missing < config_.vanish_after) continue;
      finish_locked(e, synthesized(e, JobState::vanished,
                                   "Slurm no longer knows job " + e.slurm_id + " (" + std::to_string(e.missing) +
                                       " polls), and it left no result in " + dir("results").string()));
      changed = true;
    }
    return changed;
  }

  void poll_loop() {
    auto interval = config_.poll_min;
    while (true) {
      {
        std::lock_guard lock(mutex_);
        if (stopping_) return;
        woken_ = false;
      }
      resolve_unsubmitted();
      const std::optional<bool> changed = poll_once();
      if (!changed) interval = std::min(interval * 2, config_.poll_max);  // unreachable: back off
      else if (*changed) interval = config_.poll_min;
      else interval = std::min(interval * 2, config_.poll_max);
      std::unique_lock lock(mutex_);
      const bool live = std::any_of(book_->entries().begin(), book_->entries().end(),
                                    [](const auto& kv) { return !is_terminal(kv.second.state); });
      if (!live) {
        cv_.wait(lock, [&] { return stopping_ || woken_; });
        interval = config_.poll_min;
      } else if (cv_.wait_for(lock, interval, [&] { return stopping_ || woken_; })) {
        if (woken_) interval = config_.poll_min;  // a new job or a cancellation: look soon
      }
    }
  }

  SlurmConfig config_;
  std::optional<JobBook<Entry>> book_;  // from the constructor's body: after the checks
  std::mutex mutex_;
  std::condition_variable cv_;
  SlurmStats stats_;
  bool stopping_ = false;
  bool woken_ = false;
  std::thread poller_;
};

static_assert(Executor<SlurmExecutor>, "SlurmExecutor must satisfy the Executor concept");

}  // namespace socratic::exec
