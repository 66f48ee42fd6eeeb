#pragma once
/// @file
/// @brief LocalGpuPool: an Executor over the GPUs of this machine. One lease per GPU
/// (gpu_lease.hpp), one process per evaluation with `CUDA_VISIBLE_DEVICES` set to its GPU,
/// builds of queued candidates run ahead on CPU workers while the GPUs run, a crashed or hung
/// evaluation ends alone and frees its GPU, and a durable journal so that a pool killed with
/// kill -9 and started again on the same run folder runs its unfinished jobs again, loses no
/// report and counts none twice. docs/executor.md, "The local pool". Heavy (run_process).
///
/// The run folder: `journal.jsonl` (+ `journal.lock`), `jobs/ID.json` (what each worker reads),
/// `snapshots/HASH/FILE` (candidate bytes), `results/ID.json` (one result per job, first writer
/// wins), `slots/NAME/` (one per GPU slot and build worker: `work/`, the worker's working folder,
/// emptied before each use, and `tmp/`, its TMPDIR, kept for the slot's next jobs), `leases/`
/// (unless `lease_dir` names a folder shared by several pools).

#include <sys/types.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "socratic/core/error.hpp"
#include "socratic/core/json.hpp"
#include "socratic/core/detail/sha256.hpp"
#include "socratic/core/files.hpp"
#include "socratic/eval/runner_client.hpp"
#include "socratic/exec/detail/process_sweep.hpp"
#include "socratic/exec/executor.hpp"
#include "socratic/exec/gpu_inventory.hpp"
#include "socratic/exec/gpu_lease.hpp"
#include "socratic/exec/job.hpp"
#include "socratic/exec/job_book.hpp"
#include "socratic/exec/make_job.hpp"
#include "socratic/exec/results.hpp"
#include "socratic/process/environment.hpp"
#include "socratic/process/run_process.hpp"

namespace socratic::exec {

/// @brief How a LocalGpuPool runs. Only `run_dir` and `worker` are required.
struct LocalPoolConfig {
  std::filesystem::path run_dir;    ///< the pool's folder (see the file comment); one pool at a time
  std::filesystem::path lease_dir;  ///< GPU lock files; empty: `run_dir/leases`
  std::vector<std::string> gpus;    ///< what CUDA_VISIBLE_DEVICES takes; empty: every visible GPU
  /// The worker's argv before its arguments, e.g. `{"/usr/bin/socratic", "exec-job"}`; the pool
  /// appends `JOB.json --phase build|run --results DIR --attempt N [--build-out FILE]`.
  std::vector<std::string> worker;
  int build_workers = 2;  ///< CPU workers building ahead; 0: each build happens in its GPU run
  int correctness_runs_per_gpu = 1;  ///< correctness-only runs that may share one GPU
  int max_attempts = 3;  ///< starts of one job (restarts after kills) before it is failed
  /// Beyond the evaluator's own time limits, before the pool kills a worker as hung.
  std::chrono::milliseconds grace{std::chrono::minutes(2)};
  std::optional<std::chrono::milliseconds> run_timeout, build_timeout;  ///< override the derived limits
  std::vector<std::string> environment;  ///< extra `NAME=value` entries for every worker
  std::chrono::milliseconds lease_retry{200};  ///< how often to retry a GPU leased elsewhere
  std::size_t max_output_bytes = 1 << 20;      ///< a worker's stdout and stderr kept, each
};

/// @brief When each phase of a job began and ended, seconds since the pool started (NaN: not run).
struct JobTimeline {
  std::string id;
  double build_began = socratic::detail::nan, build_ended = socratic::detail::nan;
  double run_began = socratic::detail::nan, run_ended = socratic::detail::nan;
  std::string build_slot, run_slot;
};

/// @brief The local GPU pool. Thread-safe. Its threads start in the constructor and stop in the
/// destructor, which ends the evaluations still running (they run again on the next start).
class LocalGpuPool {
 public:
  explicit LocalGpuPool(LocalPoolConfig config) : config_(std::move(config)), began_(clock::now()) {
    namespace fs = std::filesystem;
    if (config_.run_dir.empty()) throw error("LocalGpuPool: no run folder configured");
    if (config_.worker.empty()) throw error("LocalGpuPool: no worker command configured");
    if (config_.build_workers < 0) throw error("LocalGpuPool: build_workers must not be negative");
    if (config_.correctness_runs_per_gpu < 1) throw error("LocalGpuPool: correctness_runs_per_gpu must be at least 1");
    if (config_.max_attempts < 1) throw error("LocalGpuPool: max_attempts must be at least 1");
    config_.run_dir = fs::absolute(config_.run_dir).lexically_normal();
    if (config_.lease_dir.empty()) config_.lease_dir = config_.run_dir / "leases";
    config_.lease_dir = fs::absolute(config_.lease_dir).lexically_normal();
    if (config_.gpus.empty()) {
      const GpuInventory inv = visible_gpus();
      if (inv.ids.empty())
        throw error("LocalGpuPool: no GPU found (CUDA_VISIBLE_DEVICES, nvidia-smi -L, /proc/driver/nvidia/gpus "
                    "and /dev/nvidia* show none); name them with --gpus");
      config_.gpus = inv.ids;
    }
    book_.emplace("LocalGpuPool", "pool", config_.run_dir);
    token_prefix_ = socratic::detail::sha256_hex(config_.run_dir.string()).substr(0, 16) + ":";
    // Whatever a killed pool of this folder left running dies now: no live pool owns the folder
    // (the journal's lock says so), so every process with its token is a leftover.
    leftovers_killed_ = kill_leftovers();
    recover();
    for (int b = 0; b < config_.build_workers; ++b)
      threads_.emplace_back([this, b] { build_loop(b); });
    for (const auto& gpu : config_.gpus) {
      exclusive_waiting_[gpu] = false;
      for (int k = 0; k < config_.correctness_runs_per_gpu; ++k)
        threads_.emplace_back([this, gpu, k] { gpu_loop(gpu, k); });
    }
  }

  LocalGpuPool(const LocalGpuPool&) = delete;
  LocalGpuPool& operator=(const LocalGpuPool&) = delete;

  ~LocalGpuPool() {
    {
      std::lock_guard lock(mutex_);
      stopping_ = true;
    }
    cv_.notify_all();
    // End every running evaluation (they stay in flight in the journal and run again on the
    // next start), until no thread is inside one.
    kill_until([](const Entry& e) { return e.busy; });
    for (auto& t : threads_) t.join();
  }

  /// @brief Records `job` and queues it (see the Executor concept). Throws input_error for a
  /// job that is not well formed (bad id, no scenarios, an id reused for another job).
  std::string submit(const EvalJob& submitted) {
    EvalJob job = submitted;
    job.id = job_id_for(job);
    validate(job);
    std::unique_lock lock(mutex_);
    if (auto known = book_->known_id(job)) return *known;
    auto [e, snapshot_error] = book_->record(job);
    e.times.id = job.id;
    e.seq = next_seq_++;
    if (!snapshot_error.empty()) {
      finish_locked(e, book_->ending(e, JobState::failed, snapshot_error));
    } else {
      e.detail = "queued";
      cv_.notify_all();
    }
    return job.id;
  }

  JobStatus poll(const std::string& id) {
    std::lock_guard lock(mutex_);
    return book_->status(book_->entry(id));
  }

  bool cancel(const std::string& id) {
    {
      std::lock_guard lock(mutex_);
      Entry& e = book_->entry(id);
      if (is_terminal(e.state)) return false;
      if (!e.cancel) book_->journal().cancel_requested(id);
      e.cancel = true;
      if (!e.busy) {
        finish_locked(e, book_->ending(e, JobState::cancelled, "cancelled before it started"));
        return true;
      }
    }
    // Its thread sees the kill and records the cancellation (or the report, if that came first).
    kill_until([&id](const Entry& e) { return e.busy && e.job.id == id; });
    return true;
  }

  std::optional<EvalReport> collect(const std::string& id) {
    std::lock_guard lock(mutex_);
    return book_->report(id);
  }

  /// @brief Waits until `id` is terminal or `timeout` passes.
  JobStatus wait(const std::string& id, std::chrono::milliseconds timeout) {
    std::unique_lock lock(mutex_);
    Entry& e = book_->entry(id);
    cv_.wait_for(lock, timeout, [&] { return is_terminal(e.state); });
    return book_->status(e);
  }

  /// @brief The job's full result (which GPU, which attempt, the report as written), once terminal.
  std::optional<JobResult> result(const std::string& id) {
    std::lock_guard lock(mutex_);
    return book_->entry(id).result;
  }

  /// @brief Every job, in submission order (recovered ones first).
  std::vector<JobStatus> jobs() {
    std::lock_guard lock(mutex_);
    return book_->statuses();
  }

  /// @brief When each job's phases ran in this process (benchmarks draw the overlap from it).
  std::vector<JobTimeline> timeline() {
    std::lock_guard lock(mutex_);
    std::vector<JobTimeline> out;
    for (const auto& id : book_->order()) out.push_back(book_->entries().at(id).times);
    return out;
  }

  const LocalPoolConfig& config() const noexcept { return config_; }
  /// @brief Processes of a killed predecessor ended when this pool started.
  std::size_t leftovers_killed() const noexcept { return leftovers_killed_; }

 private:
  using clock = std::chrono::steady_clock;

  struct Entry : JobEntry {
    bool started_this_attempt = false;
    bool built = false;
    bool busy = false;
    std::string where, token;
    std::uint64_t seq = 0;
    JobTimeline times;
    std::string location() const { return where; }
  };

  enum class PhaseEnd { result, ready, failure, interrupted };
  struct PhaseOutcome {
    PhaseEnd end = PhaseEnd::failure;
    std::optional<JobResult> result;
  };

  double now_s() const { return std::chrono::duration<double>(clock::now() - began_).count(); }

  /// What the pool asks of a job beyond JobBook::known_id's checks: an evaluator it can run.
  static void validate(const EvalJob& job) {
    if (job.evaluator.kind == EvaluatorKind::command && job.evaluator.command.command.empty())
      throw input_error({}, "job " + job.id + " evaluator", "the command is empty");
    if (job.evaluator.kind == EvaluatorKind::cuda && job.evaluator.cuda.data_dir.empty())
      throw input_error({}, "job " + job.id + " evaluator", "no data folder");
  }

  void finish_locked(Entry& e, JobResult r) {
    book_->finish(e, std::move(r));
    cv_.notify_all();
  }

  /// Kills the process trees of the entries `pred` selects until none is busy (a worker being
  /// started while a sweep runs is caught by the next one).
  template <class Pred>
  void kill_until(Pred pred) {
    while (true) {
      std::vector<std::string> tokens;
      {
        std::lock_guard lock(mutex_);
        for (auto& [id, e] : book_->entries())
          if (pred(e)) tokens.push_back(e.token);
      }
      if (tokens.empty()) return;
      for (const auto& t : tokens) detail::kill_processes_with_token(t, std::chrono::milliseconds(200));
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }

  std::size_t kill_leftovers() {
    // Tokens are `PREFIX:ID`, PREFIX naming this run folder: one sweep finds them all.
    return detail::kill_processes_with_token(token_prefix_, std::chrono::seconds(5), true);
  }

  void recover() {
    book_->recover(
        [this](Entry& e, const JournalRecord&) {
          e.times.id = e.job.id;
          e.seq = next_seq_++;
        },
        [this](Entry& e, const JournalRecord& rec) {
          if (rec.cancel_requested) {
            finish_locked(e, book_->ending(e, JobState::cancelled, "cancelled (the pool stopped before it ended)"));
          } else {
            e.detail = rec.attempts > 0 ? "queued again after a restart (" + std::to_string(rec.attempts) +
                                              " earlier start" + (rec.attempts == 1 ? "" : "s") + ")"
                                        : "queued";
          }
        });
  }

  /// Starts a new attempt of `e` when this is its first phase in the attempt; false when the
  /// job has used up its attempts (it is then failed).
  bool begin_attempt_locked(Entry& e, const std::string& where) {
    if (!e.started_this_attempt) {
      if (e.attempt >= config_.max_attempts) {
        finish_locked(e, book_->ending(e, JobState::failed,
                                     "started " + std::to_string(e.attempt) +
                                         " times without finishing (the pool was stopped or killed while it ran)"));
        return false;
      }
      ++e.attempt;
      e.started_this_attempt = true;
    }
    book_->journal().started(e.job.id, e.attempt, where);
    e.where = where;
    e.token = token_prefix_ + e.job.id;
    return true;
  }

  // ---- build workers -------------------------------------------------------------------------

  Entry* next_to_build_locked() {
    Entry* best = nullptr;
    for (auto& [id, e] : book_->entries())
      if (e.state == JobState::queued && !e.busy && !e.built && (!best || e.seq < best->seq)) best = &e;
    return best;
  }

  void build_loop(int index) {
    const std::string slot = "build-" + std::to_string(index);
    std::unique_lock lock(mutex_);
    while (true) {
      cv_.wait(lock, [&] { return stopping_ || next_to_build_locked(); });
      if (stopping_) return;
      Entry& e = *next_to_build_locked();
      if (!begin_attempt_locked(e, slot)) continue;
      e.busy = true;
      e.state = JobState::building;
      e.detail = "building on CPU worker " + std::to_string(index);
      e.times.build_began = now_s();
      e.times.build_slot = slot;
      const EvalJob job = e.job;
      const int attempt = e.attempt;
      lock.unlock();
      PhaseOutcome out = run_phase(job, attempt, JobPhase::build, slot, "", build_timeout(job));
      lock.lock();
      e.busy = false;
      e.times.build_ended = now_s();
      settle_locked(e, std::move(out), JobPhase::build);
    }
  }

  // ---- GPU slots -------------------------------------------------------------------------------

  bool fits_slot(const Entry& e, int share) const {
    if (e.state != JobState::queued || e.busy) return false;
    if (!e.built && config_.build_workers > 0) return false;
    return share == 0 || e.job.purpose == JobPurpose::correctness;
  }

  Entry* next_for_slot_locked(const std::string& gpu, int share) {
    if (share > 0 && exclusive_waiting_[gpu]) return nullptr;  // a timing run waits for this GPU
    Entry* best = nullptr;
    for (auto& [id, e] : book_->entries())
      if (fits_slot(e, share) && (!best || e.seq < best->seq)) best = &e;
    return best;
  }

  GpuLease try_lease(const std::string& gpu, int share, const EvalJob& job) const {
    if (config_.correctness_runs_per_gpu > 1 && job.purpose == JobPurpose::correctness)
      return GpuLease::try_shared(config_.lease_dir, gpu, share);
    return GpuLease::try_exclusive(config_.lease_dir, gpu, "job " + job.id);
  }

  void gpu_loop(const std::string& gpu, int share) {
    const std::string slot = "gpu-" + gpu + (share > 0 ? "." + std::to_string(share) : "");
    std::unique_lock lock(mutex_);
    while (true) {
      cv_.wait(lock, [&] { return stopping_ || next_for_slot_locked(gpu, share); });
      if (stopping_) return;
      const std::string id = next_for_slot_locked(gpu, share)->job.id;
      const EvalJob candidate_job = book_->entries().at(id).job;
      lock.unlock();
      GpuLease lease = try_lease(gpu, share, candidate_job);
      lock.lock();
      if (!lease) {
        // Held by another pool (or, for a timing run, by this pool's correctness runs): keep
        // other slots of this GPU from starting more, and try again shortly.
        const bool exclusive = !(config_.correctness_runs_per_gpu > 1 && candidate_job.purpose == JobPurpose::correctness);
        if (share == 0 && exclusive) exclusive_waiting_[gpu] = true;
        cv_.wait_for(lock, config_.lease_retry, [&] { return stopping_; });
        continue;
      }
      if (share == 0) exclusive_waiting_[gpu] = false;
      Entry& e = book_->entries().at(id);
      if (!fits_slot(e, share) || stopping_) {  // another slot took it, or it was cancelled
        lease.release();
        continue;
      }
      if (!begin_attempt_locked(e, "gpu " + gpu)) continue;
      e.busy = true;
      e.state = JobState::running;
      e.detail = "running on GPU " + gpu;
      e.times.run_began = now_s();
      e.times.run_slot = slot;
      const EvalJob job = e.job;
      const int attempt = e.attempt;
      lock.unlock();
      PhaseOutcome out = run_phase(job, attempt, JobPhase::run, slot, gpu, run_timeout(job));
      lease.release();
      lock.lock();
      e.busy = false;
      e.times.run_ended = now_s();
      settle_locked(e, std::move(out), JobPhase::run);
    }
  }

  // ---- one phase in one worker process ----------------------------------------------------------

  void settle_locked(Entry& e, PhaseOutcome out, JobPhase phase) {
    if (out.end == PhaseEnd::interrupted) {  // the pool is stopping: the job stays in flight
      e.state = JobState::queued;
      e.started_this_attempt = false;
      e.detail = "interrupted (the pool stopped)";
      return;
    }
    if (out.end == PhaseEnd::result) {
      finish_locked(e, std::move(*out.result));
    } else if (e.cancel) {
      finish_locked(e, book_->ending(e, JobState::cancelled, std::string("cancelled during its ") + std::string(to_string(phase))));
    } else if (out.end == PhaseEnd::ready) {
      e.built = true;
      e.state = JobState::queued;
      e.detail = "built; waiting for a GPU";
    } else {
      finish_locked(e, std::move(*out.result));
    }
    cv_.notify_all();
  }

  std::chrono::milliseconds build_timeout(const EvalJob& job) const {
    if (config_.build_timeout) return *config_.build_timeout;
    const double s = job.evaluator.kind == EvaluatorKind::command ? job.evaluator.command.build_timeout_s
                                                     : job.evaluator.cuda.build_timeout_s + 600;  // + the harness
    return std::chrono::milliseconds(static_cast<long long>(s * 1000)) + config_.grace;
  }
  std::chrono::milliseconds run_timeout(const EvalJob& job) const {
    if (config_.run_timeout) return *config_.run_timeout;
    const double s = job.evaluator.kind == EvaluatorKind::command
                         ? job.evaluator.command.timeout_s + job.evaluator.command.build_timeout_s
                         : job.evaluator.cuda.timeout_s + job.evaluator.cuda.build_timeout_s + 600;
    return std::chrono::milliseconds(static_cast<long long>(s * 1000)) + config_.grace;
  }

  PhaseOutcome run_phase(const EvalJob& job, int attempt, JobPhase phase, const std::string& slot,
                         const std::string& gpu, std::chrono::milliseconds timeout) {
    namespace fs = std::filesystem;
    PhaseOutcome out;
    // The slot's working folder is emptied for each job; its TMPDIR is kept, so that an
    // evaluator's own caches there (a harness built once) serve the slot's next jobs. One job at
    // a time uses a slot, so neither collides with another job's.
    const fs::path slot_dir = config_.run_dir / "slots" / slot;
    const fs::path work_dir = slot_dir / "work";
    const fs::path build_out = work_dir / "build-out.json";
    const std::string token = token_prefix_ + job.id;
    std::error_code ec;
    fs::remove_all(work_dir, ec);
    fs::create_directories(work_dir, ec);
    fs::create_directories(slot_dir / "tmp", ec);

    std::vector<std::string> argv = config_.worker;
    argv.insert(argv.end(), {book_->job_file(job.id).string(), "--phase", std::string(to_string(phase)), "--results", book_->results_dir().string(),
                             "--attempt", std::to_string(attempt)});
    if (phase == JobPhase::build) argv.insert(argv.end(), {"--build-out", build_out.string()});

    std::vector<std::string> env;
    for (auto& entry : scrubbed_environment()) {
      const std::string name = entry.substr(0, entry.find('='));
      if (name == "CUDA_VISIBLE_DEVICES" || name == "CUDA_DEVICE_ORDER" || name == "TMPDIR" ||
          name == detail::token_variable)
        continue;
      env.push_back(std::move(entry));
    }
    env.insert(env.end(), config_.environment.begin(), config_.environment.end());
    env.push_back(std::string(detail::token_variable) + "=" + token);
    env.push_back("TMPDIR=" + (slot_dir / "tmp").string());
    // A build never touches a GPU; a run sees its own GPU alone, numbered as nvidia-smi does.
    env.push_back("CUDA_VISIBLE_DEVICES=" + gpu);
    env.push_back("CUDA_DEVICE_ORDER=PCI_BUS_ID");

    {
      std::lock_guard lock(mutex_);
      if (stopping_) return {PhaseEnd::interrupted, std::nullopt};
    }
    ProcessOptions po;
    po.working_dir = work_dir;
    po.environment = env;
    po.timeout = timeout;
    po.max_output_bytes = config_.max_output_bytes;
    const ProcessResult r = run_process(argv, po);
    // Whatever it started (the runner, a command's children) ends with it.
    detail::kill_processes_with_token(token);

    if (auto published = read_result(book_->results_dir(), job)) {
      out.end = PhaseEnd::result;
      out.result = std::move(published);
      return out;
    }
    {
      std::lock_guard lock(mutex_);
      if (stopping_) {
        out.end = PhaseEnd::interrupted;
        return out;
      }
    }
    if (phase == JobPhase::build && r.ok() && fs::is_regular_file(build_out, ec)) {
      try {
        if (json::parse(socratic::read_file_bytes(build_out)).at("ready").get<bool>()) {
          out.end = PhaseEnd::ready;
          return out;
        }
      } catch (const std::exception&) {
      }
    }
    const std::string where = gpu.empty() ? "CPU worker " + slot : "GPU " + gpu;
    JobState state = JobState::failed;
    std::string why;
    if (!r.started) {
      why = "the worker could not be started: " + r.error;
    } else if (r.timed_out) {
      state = JobState::timed_out;
      why = "its " + std::string(to_string(phase)) + " on " + where + " ran past the pool's limit of " + socratic::detail::format_seconds(timeout) +
            " s and was killed";
    } else if (r.signal) {
      why = "its " + std::string(to_string(phase)) + " process on " + where + " was killed by signal " + describe_signal(r.signal);
    } else if (r.exit_code != 0) {
      why = "its " + std::string(to_string(phase)) + " process on " + where + " exited with code " + std::to_string(r.exit_code);
    } else {
      why = "its " + std::string(to_string(phase)) + " process on " + where + " exited without a result";
    }
    const std::string last = socratic::detail::last_nonempty_line(r.stderr_text);
    if (!last.empty()) why += "; last stderr line: " + socratic::detail::cap_text(last, 500);
    JobResult res;
    res.job = job.id;
    res.attempt = attempt;
    res.state = state;
    res.message = why;
    res.gpus = gpu;
    res.seconds = r.seconds;
    res.report = failure_report(job, state, why);
    out.end = PhaseEnd::failure;
    out.result = std::move(res);
    return out;
  }

  LocalPoolConfig config_;
  clock::time_point began_;
  std::optional<JobBook<Entry>> book_;  // from the constructor's body: after the checks
  std::string token_prefix_;
  std::size_t leftovers_killed_ = 0;
  std::mutex mutex_;
  std::condition_variable cv_;
  std::map<std::string, bool> exclusive_waiting_;
  std::uint64_t next_seq_ = 0;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

static_assert(Executor<LocalGpuPool>, "LocalGpuPool must satisfy the Executor concept");

}  // namespace socratic::exec
