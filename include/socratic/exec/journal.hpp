#pragma once
/// @file
/// @brief JobJournal: an executor's durable record of its jobs, `journal.jsonl` in its run
/// folder: one JSON event a line, appended and flushed to disk (fdatasync) before the executor
/// acts on it. One executor owns a folder at a time (an flock on `journal.lock`, dropped by the
/// kernel when that process dies). Replaying it after a kill gives every job back with what was
/// known: submitted, started (how often), the backend's id, cancelled, finished. A line torn by
/// a kill is cut off; any other bad line is an error naming its number.
///
/// Events (docs/executor.md, "The journal"), each with `at` (Unix seconds) when written:
/// `{"event":"submitted","job":{...}}`, `{"event":"started","id":ID,"attempt":N,"where":W}`,
/// `{"event":"backend","id":ID,...}` (fields merged, e.g. `slurm_id`), `{"event":"cancel","id":ID}`,
/// `{"event":"finished","id":ID,"state":S}`.

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "socratic/core/error.hpp"
#include "socratic/core/json.hpp"
#include "socratic/core/detail/sha256.hpp"
#include "socratic/exec/detail/file_lock.hpp"
#include "socratic/exec/job.hpp"

namespace socratic::exec {

/// @brief What a line of the journal records.
enum class JournalEventType { submitted, started, backend, cancel, finished };

constexpr std::string_view to_string(JournalEventType t) noexcept {
  switch (t) {
    case JournalEventType::submitted: return "submitted";
    case JournalEventType::started: return "started";
    case JournalEventType::backend: return "backend";
    case JournalEventType::cancel: return "cancel";
    case JournalEventType::finished: return "finished";
  }
  return "unknown";
}

constexpr std::optional<JournalEventType> parse_journal_event_type(std::string_view name) noexcept {
  for (const JournalEventType t : {JournalEventType::submitted, JournalEventType::started, JournalEventType::backend,
                                   JournalEventType::cancel, JournalEventType::finished})
    if (to_string(t) == name) return t;
  return std::nullopt;
}

/// @brief What the journal knows about one job.
struct JournalRecord {
  EvalJob job;
  int attempts = 0;        ///< `started` events
  std::string where;       ///< of the last start
  json backend = json::object();  ///< merged `backend` fields (e.g. `slurm_id`)
  bool cancel_requested = false;
  std::optional<JobState> finished;
};

/// @brief The append-only job journal of one run folder. Not thread-safe: its executor
/// serialises calls.
class JobJournal {
 public:
  /// @brief Opens (creating) `dir/journal.jsonl`, taking the folder's lock. Throws error naming
  /// the holder when another live process owns the folder, input_error naming the line when
  /// the journal is damaged.
  explicit JobJournal(std::filesystem::path dir) : dir_(std::filesystem::absolute(std::move(dir)).lexically_normal()) {
    namespace fs = std::filesystem;
    fs::create_directories(dir_);
    lock_ = detail::FileLock::try_lock(dir_ / "journal.lock", detail::LockMode::exclusive);
    if (!lock_) {
      const std::string holder = detail::lock_description(dir_ / "journal.lock");
      throw error("the run folder " + dir_.string() + " is in use by another process" +
                  (holder.empty() ? std::string() : " (" + holder + ")") +
                  ": give each executor its own run folder, or stop the other one first");
    }
    lock_.describe("pid " + std::to_string(::getpid()) + "\n");
    replay();
    fd_ = ::open(path().c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (fd_ < 0) throw error("cannot open " + path().string() + " for appending: " + std::strerror(errno));
  }
  JobJournal(const JobJournal&) = delete;
  JobJournal& operator=(const JobJournal&) = delete;
  ~JobJournal() {
    if (fd_ >= 0) ::close(fd_);
  }

  std::filesystem::path path() const { return dir_ / "journal.jsonl"; }
  const std::filesystem::path& dir() const noexcept { return dir_; }

  /// @brief The jobs, in submission order.
  const std::vector<std::string>& order() const noexcept { return order_; }
  const std::map<std::string, JournalRecord>& records() const noexcept { return records_; }
  const JournalRecord* find(const std::string& id) const {
    auto it = records_.find(id);
    return it == records_.end() ? nullptr : &it->second;
  }
  /// @brief The job with this key (EvalJob::key()), if one was submitted.
  const JournalRecord* find_key(const std::string& key) const {
    auto it = by_key_.find(key);
    return it == by_key_.end() ? nullptr : find(it->second);
  }

  void submitted(const EvalJob& job) { append(json{{"event", event_name(JournalEventType::submitted)}, {"job", job}}); }
  void started(const std::string& id, int attempt, const std::string& where) {
    append(json{{"event", event_name(JournalEventType::started)}, {"id", id}, {"attempt", attempt}, {"where", where}});
  }
  void backend(const std::string& id, json fields) {
    fields["event"] = event_name(JournalEventType::backend);
    fields["id"] = id;
    append(std::move(fields));
  }
  void cancel_requested(const std::string& id) { append(json{{"event", event_name(JournalEventType::cancel)}, {"id", id}}); }
  void finished(const std::string& id, JobState state) {
    append(json{{"event", event_name(JournalEventType::finished)}, {"id", id}, {"state", std::string(to_string(state))}});
  }

 private:
  void append(json event) {
    apply(event, 0);
    // When it happened (Unix seconds), for people and benchmarks reading the journal.
    event["at"] = std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
    const std::string line = event.dump() + "\n";
    const char* p = line.data();
    std::size_t left = line.size();
    while (left > 0) {  // O_APPEND: one write lands whole for lines of this size
      const ssize_t n = ::write(fd_, p, left);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) throw error("cannot append to " + path().string() + ": " + std::strerror(errno));
      p += n;
      left -= static_cast<std::size_t>(n);
    }
    if (::fdatasync(fd_) != 0) throw error("cannot flush " + path().string() + ": " + std::strerror(errno));
  }

  void replay() {
    std::error_code ec;
    if (!std::filesystem::exists(path(), ec)) return;
    const std::string text = socratic::read_file_bytes(path());
    std::size_t at = 0, line_number = 0, good_end = 0;
    while (at < text.size()) {
      const std::size_t nl = text.find('\n', at);
      ++line_number;
      const bool complete = nl != std::string::npos;
      const std::string line = text.substr(at, (complete ? nl : text.size()) - at);
      const bool last = !complete || nl + 1 == text.size();
      json event;
      bool parsed = true;
      try {
        event = json::parse(line);
      } catch (const std::exception&) {
        parsed = false;
      }
      if (!parsed || !complete) {
        // A kill during a write leaves at most the last line torn: cut it off so the next
        // append starts a clean line. Anything else is damage a person must look at.
        if (last) break;
        throw input_error(path().string(), "line " + std::to_string(line_number), "not a JSON event");
      }
      try {
        apply(event, line_number);
      } catch (const input_error& e) {
        throw input_error(path().string(), "line " + std::to_string(line_number), e.message());
      }
      at = nl + 1;
      good_end = at;
    }
    if (good_end < text.size()) std::filesystem::resize_file(path(), good_end);
  }

  void apply(const json& event, std::size_t line_number) {
    (void)line_number;
    const std::string name = required<std::string>(event, "event", "journal event");
    const std::optional<JournalEventType> kind = parse_journal_event_type(name);
    if (!kind) throw input_error({}, "journal event", "unknown event \"" + name + "\"");
    if (kind == JournalEventType::submitted) {
      EvalJob job = required<EvalJob>(event, "job", "journal event");
      if (records_.count(job.id)) throw input_error({}, "journal event", "job " + job.id + " submitted twice");
      const std::string id = job.id;
      by_key_[job.key()] = id;
      order_.push_back(id);
      records_[id].job = std::move(job);
      return;
    }
    const std::string id = required<std::string>(event, "id", "journal event");
    auto it = records_.find(id);
    if (it == records_.end()) throw input_error({}, "journal event", "\"" + name + "\" for unknown job " + id);
    JournalRecord& r = it->second;
    switch (*kind) {
      case JournalEventType::started:
        r.attempts = std::max(r.attempts, required<int>(event, "attempt", "journal event"));
        r.where = optional_field<std::string>(event, "where", "", "journal event");
        break;
      case JournalEventType::backend:
        for (auto f = event.begin(); f != event.end(); ++f)
          if (f.key() != "event" && f.key() != "id" && f.key() != "at") r.backend[f.key()] = f.value();
        break;
      case JournalEventType::cancel:
        r.cancel_requested = true;
        break;
      case JournalEventType::finished:
        r.finished = job_state_from_string(required<std::string>(event, "state", "journal event"));
        break;
      case JournalEventType::submitted:
        break;  // handled above
    }
  }

  static std::string event_name(JournalEventType t) { return std::string(to_string(t)); }

  std::filesystem::path dir_;
  detail::FileLock lock_;
  int fd_ = -1;
  std::vector<std::string> order_;
  std::map<std::string, JournalRecord> records_;
  std::map<std::string, std::string> by_key_;
};

}  // namespace socratic::exec
