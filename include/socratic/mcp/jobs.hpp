#pragma once
/// @brief mcp::JobQueue: long work (an evaluation) as jobs that a tool call starts and returns
/// at once, run one at a time on a worker thread, each job's record kept in a file
/// (`DIR/JOB.json`: status, result, error) so that a result outlives the server that made it.
///
/// A job runs in two parts: `run` (long, no lock held) returns `commit`, which records what was
/// found and runs under the queue's lock, so that a cancellation (the client went away) and a
/// commit never interleave: a cancelled job is never recorded as done, nor a done one cancelled.

#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <deque>
#include <filesystem>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <thread>

#include "socratic/record/trace.hpp"
#include "socratic/core/files.hpp"
#include "socratic/core/json.hpp"

namespace socratic::mcp {

/// @brief A job's life: queued, running, then done, failed, cancelled or interrupted (its server
/// ended without saying how it ended: killed).
struct JobRecord {
  std::string id;
  std::string status = "queued";
  json request = json::object();  ///< what the tool was asked (candidate, label, agent)
  json result = nullptr;          ///< the commit's result when done
  std::string error;              ///< failed, cancelled, interrupted: why
  std::string queued_at, started_at, ended_at;
  long server_pid = 0;

  bool finished() const { return status != "queued" && status != "running"; }
};

inline void to_json(json& j, const JobRecord& r) {
  j = json{{"schema_version", 1}, {"id", r.id},           {"status", r.status},         {"request", r.request},
           {"result", r.result},  {"error", r.error},     {"queued_at", r.queued_at},   {"started_at", r.started_at},
           {"ended_at", r.ended_at}, {"server_pid", r.server_pid}};
}
inline void from_json(const json& j, JobRecord& r) {
  r.id = j.value("id", "");
  r.status = j.value("status", "queued");
  r.request = j.value("request", json::object());
  r.result = j.value("result", json());
  r.error = j.value("error", "");
  r.queued_at = j.value("queued_at", "");
  r.started_at = j.value("started_at", "");
  r.ended_at = j.value("ended_at", "");
  r.server_pid = j.value("server_pid", 0L);
}

/// @brief The jobs of one server, persisted under one folder.
class JobQueue {
 public:
  /// The commit closure a job's run returns: records the outcome, returns the job's result.
  using Commit = std::function<json()>;
  using Run = std::function<Commit()>;
  /// Called (under the queue's lock) whenever a job changes status.
  std::function<void(const JobRecord&)> on_change;

  explicit JobQueue(std::filesystem::path dir) : dir_(std::move(dir)) {
    std::filesystem::create_directories(dir_);
    mark_interrupted();
    worker_ = std::thread([this] { work(); });
  }
  JobQueue(const JobQueue&) = delete;
  JobQueue& operator=(const JobQueue&) = delete;
  /// Stops taking work; a job under way is waited for (call cancel_all() first to not wait).
  ~JobQueue() {
    {
      std::lock_guard lock(mutex_);
      stopping_ = true;
    }
    wake_.notify_all();
    if (worker_.joinable()) worker_.join();
  }

  /// @brief Queues `run` with what it was asked; returns the job's id at once.
  std::string submit(json request, Run run) {
    std::lock_guard lock(mutex_);
    JobRecord r;
    r.id = new_id();
    r.request = std::move(request);
    r.queued_at = socratic::detail::iso8601_now();
    r.server_pid = static_cast<long>(::getpid());
    records_[r.id] = r;
    queue_.push_back({r.id, std::move(run)});
    save_locked(r);
    wake_.notify_all();
    return r.id;
  }

  /// @brief The job's record: this server's, else one an earlier server left in the folder.
  std::optional<JobRecord> get(const std::string& id) const {
    std::lock_guard lock(mutex_);
    return get_locked(id);
  }

  /// @brief Waits up to `timeout` for the job to finish; returns its record then.
  std::optional<JobRecord> wait(const std::string& id, std::chrono::milliseconds timeout) {
    std::unique_lock lock(mutex_);
    done_.wait_for(lock, timeout, [&] {
      auto r = get_locked(id);
      return !r || r->finished();
    });
    return get_locked(id);
  }

  /// @brief Ends every queued and running job as cancelled with `why`, and returns holding the
  /// queue's lock (released with the returned guard): no job commits after it. For a server that
  /// is about to exit: the running job's child processes are the caller's to end.
  std::unique_lock<std::mutex> cancel_all(const std::string& why) {
    std::unique_lock lock(mutex_);
    stopping_ = true;
    for (auto& [id, r] : records_)
      if (!r.finished()) {
        r.status = "cancelled";
        r.error = why;
        r.ended_at = socratic::detail::iso8601_now();
        save_locked(r);
      }
    queue_.clear();
    wake_.notify_all();
    done_.notify_all();
    return lock;
  }

  /// @brief How many jobs are queued or running.
  std::size_t pending() const {
    std::lock_guard lock(mutex_);
    std::size_t n = 0;
    for (const auto& [id, r] : records_) n += r.finished() ? 0 : 1;
    return n;
  }

  const std::filesystem::path& folder() const noexcept { return dir_; }

 private:
  struct Queued {
    std::string id;
    Run run;
  };

  std::filesystem::path file_of(const std::string& id) const { return dir_ / (id + ".json"); }

  std::optional<JobRecord> get_locked(const std::string& id) const {
    if (auto it = records_.find(id); it != records_.end()) return it->second;
    // An id names a file in our folder only when it is one of ours in shape.
    if (id.empty() || id.size() > 64 || id.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789-") != std::string::npos)
      return std::nullopt;
    const auto file = file_of(id);
    if (!std::filesystem::exists(file)) return std::nullopt;
    try {
      return read_json_file(file).get<JobRecord>();
    } catch (const std::exception&) {
      return std::nullopt;
    }
  }

  void save_locked(const JobRecord& r) {
    write_json_atomically(file_of(r.id), json(r));
    if (on_change) {
      try {
        on_change(r);
      } catch (const std::exception&) {  // the record on disk is what counts
      }
    }
  }

  // Jobs an earlier server left queued or running ended with it (killed before it could say).
  void mark_interrupted() {
    for (const auto& f : std::filesystem::directory_iterator(dir_)) {
      if (f.path().extension() != ".json") continue;
      try {
        JobRecord r = read_json_file(f.path()).get<JobRecord>();
        if (r.finished() || r.server_pid == static_cast<long>(::getpid())) continue;
        r.status = "interrupted";
        r.error = "the server that ran it (pid " + std::to_string(r.server_pid) + ") ended before the job did";
        r.ended_at = socratic::detail::iso8601_now();
        write_json_atomically(f.path(), json(r));
      } catch (const std::exception&) {
      }
    }
  }

  std::string new_id() {
    static thread_local std::mt19937_64 rng{std::random_device{}() ^ static_cast<unsigned long>(::getpid())};
    static const char* hex = "0123456789abcdef";
    std::string id = "job-" + std::to_string(++count_) + "-";
    const auto bits = rng();
    for (int i = 0; i < 8; ++i) id.push_back(hex[(bits >> (4 * i)) & 0xf]);
    return id;
  }

  void work() {
    for (;;) {
      Queued job;
      {
        std::unique_lock lock(mutex_);
        wake_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
        if (stopping_) return;
        job = std::move(queue_.front());
        queue_.pop_front();
        JobRecord& r = records_[job.id];
        r.status = "running";
        r.started_at = socratic::detail::iso8601_now();
        save_locked(r);
      }
      Commit commit;
      std::string failure;
      try {
        commit = job.run();
      } catch (const std::exception& e) {
        failure = e.what();
      } catch (...) {
        failure = "unknown exception";
      }
      std::lock_guard lock(mutex_);
      JobRecord& r = records_[job.id];
      if (r.finished()) continue;  // cancelled meanwhile: nothing is recorded
      try {
        if (!failure.empty()) throw std::runtime_error(failure);
        r.result = commit ? commit() : json(nullptr);
        r.status = "done";
      } catch (const std::exception& e) {
        r.status = "failed";
        r.error = e.what();
      }
      r.ended_at = socratic::detail::iso8601_now();
      save_locked(r);
      done_.notify_all();
    }
  }

  std::filesystem::path dir_;
  mutable std::mutex mutex_;
  std::condition_variable wake_, done_;
  std::map<std::string, JobRecord> records_;
  std::deque<Queued> queue_;
  bool stopping_ = false;
  int count_ = 0;
  std::thread worker_;
};

}  // namespace socratic::mcp
