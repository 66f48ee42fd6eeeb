#pragma once
/// @file
/// @brief CandidateStore: the candidates of a campaign, shared by all of its agents. Append-only
/// JSONL (`DIR/store.jsonl`, one record per line, fdatasync per record) with an index beside it
/// (`DIR/store.index`: each record's place and summary, tab-separated) so that a large store opens
/// without reading its reports; one writer, held by an exclusive lock (`DIR/store.lock`); the
/// judged bytes of every candidate content-addressed under `DIR/candidates/`. A writer killed at
/// any point leaves at most a torn last line, which the next open cuts off with a warning; the
/// index is rebuilt from the log when it disagrees with it. Format: docs/store.md.
///
/// @par Example
/// @code
/// auto store = socratic::CandidateStore::open("state/store");
/// socratic::StoreRecord r;
/// r.agent = "a1";
/// r.origin = {socratic::OriginKind::question, "memory.coalescing", "Are the loads coalesced?"};
/// r.snapshot = store.take_snapshot("workspace-a1/kernel.cu");
/// r.report = report;
/// r.gate = decision.record();
/// store.append(std::move(r));
/// socratic::StoreView v = store.view();  // incumbent, best per scenario, failures, notes
/// @endcode

#include <algorithm>
#include <chrono>
#include <cmath>
#include <deque>
#include <filesystem>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <shared_mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "socratic/record/snapshots.hpp"
#include "socratic/record/trace.hpp"
#include "socratic/core/candidate_files.hpp"
#include "socratic/store/detail/store_file.hpp"
#include "socratic/store/detail/store_index.hpp"
#include "socratic/store/store_record.hpp"

namespace socratic {

/// @brief How a store is opened.
struct StoreOptions {
  bool read_only = false;  ///< a reader: no lock, no repair, no writes (torn tail ignored)
  bool sync = true;        ///< fdatasync the log after every record (off only for benchmarks)
  std::size_t recent_failures = 16;  ///< how many failures a view lists at most
  /// Called with every warning (a torn line cut off, an index rebuilt); default: none.
  std::function<void(const std::string&)> warn;
};

/// @brief What open() found and repaired.
struct StoreOpenReport {
  bool created = false;         ///< the store did not exist
  bool truncated_tail = false;  ///< a torn last line was cut off
  std::uintmax_t dropped_bytes = 0;
  bool index_rebuilt = false;   ///< the index disagreed with the log and was written again
  std::size_t from_index = 0;   ///< records read from the index
  std::size_t from_log = 0;     ///< records read from the log (not yet indexed)
  std::vector<std::string> warnings;
};

/// @brief The best time measured for one scenario, and which record measured it.
struct ScenarioBest {
  std::string id;  ///< record id
  double candidate_ms = detail::nan;
  friend bool operator==(const ScenarioBest&, const ScenarioBest&) = default;
};

/// @brief What agents read of the store: a consistent snapshot at one moment.
struct StoreView {
  std::int64_t next_seq = 0;  ///< records and notes so far
  std::size_t candidates = 0;
  std::optional<RecordSummary> incumbent;
  /// Correct scenarios' lowest candidate time, over every record (times of different runs).
  std::map<std::string, ScenarioBest> best_per_scenario;
  std::vector<RecordSummary> recent_failures;  ///< refused or failed, newest first, with reasons
  std::vector<StoreNote> notes;                ///< notes after the `since` seq, oldest first
  int attempts_since_admission = 0;            ///< candidate records after the incumbent's
};

/// @brief What append() did.
struct AppendResult {
  StoreRecord record;     ///< as stored (seq, id, time set)
  bool appended = false;  ///< false: a record with the same key was stored already (returned)
};

/// @brief The candidate store of a campaign. Thread-safe: one writer object per folder, any
/// number of threads reading views.
class CandidateStore {
 public:
  /// @brief Opens the store in `dir` (created when missing), takes its lock, cuts off a torn last
  /// line and brings the index up to the log. @throws error when another writer holds the lock,
  /// input_error naming the file and line when a line in the middle is corrupt.
  static CandidateStore open(const std::filesystem::path& dir, StoreOptions options = {}) {
    return CandidateStore(dir, std::move(options));
  }

  CandidateStore(CandidateStore&& o) noexcept
      : dir_(std::move(o.dir_)), options_(std::move(o.options_)), opened_(std::move(o.opened_)),
        lock_(std::move(o.lock_)), log_(std::move(o.log_)), index_(std::move(o.index_)), log_size_(o.log_size_),
        line_length_(o.line_length_), next_seq_(o.next_seq_), summaries_(std::move(o.summaries_)),
        places_(std::move(o.places_)), by_id_(std::move(o.by_id_)), by_key_(std::move(o.by_key_)),
        per_agent_(std::move(o.per_agent_)), notes_(std::move(o.notes_)), incumbent_(o.incumbent_),
        best_(std::move(o.best_)), failures_(std::move(o.failures_)) {}
  CandidateStore(const CandidateStore&) = delete;
  CandidateStore& operator=(const CandidateStore&) = delete;

  const std::filesystem::path& dir() const noexcept { return dir_; }
  std::filesystem::path log_path() const { return dir_ / "store.jsonl"; }
  std::filesystem::path index_path() const { return dir_ / "store.index"; }
  std::filesystem::path lock_path() const { return dir_ / "store.lock"; }
  std::filesystem::path snapshot_folder() const { return dir_ / "candidates"; }
  const StoreOpenReport& opened() const noexcept { return opened_; }
  bool read_only() const noexcept { return options_.read_only; }

  // ---- writing ----------------------------------------------------------------------------

  /// @brief Copies the candidate whose entry is `entry` (and the headers of its folder that it
  /// includes) under the store's content-addressed folder and says what was copied.
  SnapshotInfo take_snapshot(const std::filesystem::path& entry) const {
    const CandidateFiles files = read_candidate_files(entry);
    const Candidate taken = CandidateSnapshots(snapshot_folder()).take(Candidate{entry});
    SnapshotInfo s;
    s.hash = files.hash();
    s.entry = taken.snapshot.lexically_relative(dir_).generic_string();
    for (const auto& [path, bytes] : files.files)
      s.files.push_back({path.generic_string(), detail::sha256_hex(bytes), bytes.size()});
    return s;
  }

  /// @brief Appends a candidate record (seq, id, time are given here). A record whose key is in
  /// the store already is not appended: the stored one comes back with `appended` false.
  /// @throws input_error when a parent is not in the store or the record is incomplete.
  AppendResult append(StoreRecord r) {
    std::unique_lock lock(mutex_);
    require_writer("append");
    if (!r.key.empty()) {
      if (auto it = by_key_.find(r.key); it != by_key_.end()) return {read_record_locked(it->second), false};
    }
    for (const auto& p : r.parents)
      if (!by_id_.count(p)) throw input_error(log_path().string(), "record from agent \"" + r.agent + "\"", "parent \"" + p + "\" is not in the store");
    if (r.report.expected.empty())
      throw input_error(log_path().string(), "record from agent \"" + r.agent + "\"", "its report lists no expected scenario");
    if (r.gate.verdict == GateOutcome::admitted && !r.report.all_correct())
      throw input_error(log_path().string(), "record from agent \"" + r.agent + "\"",
                        "admitted by the gate but not correct on every scenario");
    r.seq = next_seq_;
    r.id = "c" + std::to_string(r.seq);
    stamp(r.time, r.unix_s);
    const json line = r;
    const std::uintmax_t offset = write_line_locked(line);
    add_summary_locked(summarize(r), offset, line_length_);
    return {std::move(r), true};
  }

  /// @brief Appends a note of `agent`'s for the others.
  StoreNote note(const std::string& agent, const std::string& text) {
    std::unique_lock lock(mutex_);
    require_writer("note");
    if (text.find_first_not_of(" \t\r\n") == std::string::npos)
      throw input_error(log_path().string(), "note from agent \"" + agent + "\"", "empty text");
    StoreNote n;
    n.seq = next_seq_;
    n.id = "n" + std::to_string(n.seq);
    n.agent = agent;
    n.text = text;
    stamp(n.time, n.unix_s);
    const std::uintmax_t offset = write_line_locked(n);
    add_note_locked(n, offset, line_length_);
    return n;
  }

  // ---- reading ----------------------------------------------------------------------------

  /// @brief A consistent snapshot: the incumbent, the best per scenario, recent failures and the
  /// notes after seq `notes_since` (-1: all).
  StoreView view(std::int64_t notes_since = -1) const {
    std::shared_lock lock(mutex_);
    StoreView v;
    v.next_seq = next_seq_;
    v.candidates = summaries_.size();
    if (incumbent_ >= 0) v.incumbent = summaries_[static_cast<std::size_t>(incumbent_)];
    v.best_per_scenario = best_;
    for (auto it = failures_.rbegin(); it != failures_.rend() && v.recent_failures.size() < options_.recent_failures; ++it)
      v.recent_failures.push_back(summaries_[*it]);
    for (const auto& n : notes_)
      if (n.seq > notes_since) v.notes.push_back(n);
    v.attempts_since_admission = attempts_since_admission_locked();
    return v;
  }

  /// @brief The incumbent's summary, if any candidate was admitted.
  std::optional<RecordSummary> incumbent() const {
    std::shared_lock lock(mutex_);
    if (incumbent_ < 0) return std::nullopt;
    return summaries_[static_cast<std::size_t>(incumbent_)];
  }
  /// @brief Candidate records after the incumbent's (all of them when there is none).
  int attempts_since_admission() const {
    std::shared_lock lock(mutex_);
    return attempts_since_admission_locked();
  }
  /// @brief Every candidate's summary, in order.
  std::vector<RecordSummary> summaries() const {
    std::shared_lock lock(mutex_);
    return summaries_;
  }
  std::size_t size() const {
    std::shared_lock lock(mutex_);
    return summaries_.size();
  }
  /// @brief How many candidate records `agent` has in the store.
  int records_of(const std::string& agent) const {
    std::shared_lock lock(mutex_);
    auto it = per_agent_.find(agent);
    return it == per_agent_.end() ? 0 : it->second;
  }
  /// @brief The summary of record `id`; nullopt when there is none.
  std::optional<RecordSummary> summary(const std::string& id) const {
    std::shared_lock lock(mutex_);
    auto it = by_id_.find(id);
    if (it == by_id_.end()) return std::nullopt;
    return summaries_[it->second];
  }
  /// @brief The summary of the record stored under `key`; nullopt when there is none.
  std::optional<RecordSummary> find_key(const std::string& key) const {
    std::shared_lock lock(mutex_);
    auto it = by_key_.find(key);
    if (it == by_key_.end()) return std::nullopt;
    return summaries_[it->second];
  }
  /// @brief The full record `id`, read from the log. @throws input_error when there is none.
  StoreRecord record(const std::string& id) const {
    std::shared_lock lock(mutex_);
    auto it = by_id_.find(id);
    if (it == by_id_.end()) throw input_error(log_path().string(), {}, "no candidate record \"" + id + "\"");
    return read_record_locked(it->second);
  }
  /// @brief Notes after seq `since`, oldest first.
  std::vector<StoreNote> notes(std::int64_t since = -1) const {
    std::shared_lock lock(mutex_);
    std::vector<StoreNote> out;
    for (const auto& n : notes_)
      if (n.seq > since) out.push_back(n);
    return out;
  }
  /// @brief Record `id` and all of its ancestors (through every parent), oldest first.
  /// @throws input_error when `id` is not in the store.
  std::vector<RecordSummary> lineage(const std::string& id) const {
    std::shared_lock lock(mutex_);
    if (!by_id_.count(id)) throw input_error(log_path().string(), {}, "no candidate record \"" + id + "\"");
    std::set<std::size_t> seen;
    std::vector<std::size_t> todo = {by_id_.at(id)};
    while (!todo.empty()) {
      const std::size_t i = todo.back();
      todo.pop_back();
      if (!seen.insert(i).second) continue;
      for (const auto& p : summaries_[i].parents)
        if (auto it = by_id_.find(p); it != by_id_.end()) todo.push_back(it->second);
    }
    std::vector<RecordSummary> out;
    for (std::size_t i : seen) out.push_back(summaries_[i]);  // std::set: ascending = oldest first
    return out;
  }
  /// @brief The absolute path of a record's judged entry file.
  std::filesystem::path snapshot_entry(const RecordSummary& s) const {
    const StoreRecord r = record(s.id);
    return dir_ / r.snapshot.entry;
  }

 private:
  struct Place {
    std::uintmax_t offset = 0;
    std::size_t length = 0;
  };

  CandidateStore(const std::filesystem::path& dir, StoreOptions options) : dir_(dir), options_(std::move(options)) {
    namespace fs = std::filesystem;
    if (dir_.empty()) throw error("candidate store: no folder given");
    std::error_code ec;
    if (options_.read_only) {
      if (!fs::is_regular_file(log_path(), ec))
        throw input_error(log_path().string(), {}, "no candidate store here (the file does not exist)");
      log_ = detail::store_file::open_or_throw(log_path(), O_RDONLY, "candidate store");
    } else {
      if (fs::exists(dir_, ec) && !fs::is_directory(dir_, ec))
        throw input_error(dir_.string(), {}, "candidate store: exists and is not a folder");
      opened_.created = !fs::exists(log_path(), ec);
      fs::create_directories(dir_);
      lock_ = detail::store_file::lock_exclusively(lock_path(), "candidate store " + dir_.string());
      log_ = detail::store_file::open_or_throw(log_path(), O_RDWR | O_CREAT | O_APPEND, "candidate store");
    }
    load();
  }

  void warn(std::string text) {
    if (options_.warn) options_.warn(text);
    opened_.warnings.push_back(std::move(text));
  }

  void require_writer(const char* what) const {
    if (options_.read_only) throw error("candidate store " + dir_.string() + ": " + what + " on a store opened read-only");
  }

  static void stamp(std::string& time, double& unix_s) {
    time = detail::iso8601_now();
    unix_s = std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
  }

  // ---- opening ----------------------------------------------------------------------------

  void load() {
    namespace sf = detail::store_file;
    std::uintmax_t size = sf::file_size(log_.get(), log_path());
    // A torn last line: the writer died within its write.
    const std::uintmax_t complete = sf::end_of_last_line(log_.get(), size, log_path());
    if (complete != size) {
      opened_.dropped_bytes = size - complete;
      if (!options_.read_only) {
        if (::ftruncate(log_.get(), static_cast<off_t>(complete)) != 0)
          throw error("cannot cut the torn last line of " + log_path().string() + ": " + sf::errno_text());
        opened_.truncated_tail = true;
        warn(log_path().string() + ": a torn last line (" + std::to_string(size - complete) +
             " bytes, a writer killed mid-record) was cut off");
      }
      size = complete;
    }
    log_size_ = size;
    const std::uintmax_t indexed_end = load_index();
    // Records the index does not hold yet: read them from the log and index them.
    scan_log(indexed_end, size);
    if (!options_.read_only && !index_) index_ = sf::open_or_throw(index_path(), O_WRONLY | O_CREAT | O_APPEND, "store index");
  }

  // Reads the index; returns the log offset it covers. A disagreement with the log (a line past
  // the log's end, a gap, a summary whose line is not the record's) discards it all: the log is
  // the truth and the index is rebuilt from it.
  std::uintmax_t load_index() {
    namespace sf = detail::store_file;
    std::error_code ec;
    if (!std::filesystem::is_regular_file(index_path(), ec)) {
      if (log_size_ > 0) note_rebuild("the index is missing");
      return 0;
    }
    std::string data;
    try {
      detail::store_file::Fd fd = detail::store_file::open_or_throw(index_path(), O_RDONLY, "store index");
      const auto size = detail::store_file::file_size(fd.get(), index_path());
      data = detail::store_file::read_range(fd.get(), 0, static_cast<std::size_t>(size), index_path());
    } catch (const std::exception&) {
      note_rebuild("the index cannot be read");
      return 0;
    }
    reserve(static_cast<std::size_t>(std::count(data.begin(), data.end(), '\n')));
    std::uintmax_t end = 0;
    std::size_t pos = 0, valid = 0;
    bool bad = false;
    while (pos < data.size()) {
      const std::size_t nl = data.find('\n', pos);
      if (nl == std::string::npos) break;  // torn index line: the log has the record
      try {
        detail::store_index::Entry e = detail::store_index::parse_line(std::string_view(data).substr(pos, nl - pos));
        if (e.offset != end || e.offset + e.length > log_size_ || e.seq != next_seq_) {
          bad = true;
          break;
        }
        if (e.is_note)
          add_note_locked(std::move(e.note), e.offset, e.length);
        else
          add_summary_locked(std::move(e.summary), e.offset, e.length);
        end = e.offset + e.length;
      } catch (const std::exception&) {
        bad = true;
        break;
      }
      pos = nl + 1;
      valid = pos;
    }
    // The last indexed record must end where a line of the log ends.
    if (!bad && end > 0 && sf::read_range(log_.get(), end - 1, 1, log_path()) != "\n") bad = true;
    if (bad) {
      clear_memory();
      note_rebuild("the index disagrees with the log");
      return 0;
    }
    opened_.from_index = summaries_.size() + notes_.size();
    if (!options_.read_only) {
      if (valid != data.size()) std::filesystem::resize_file(index_path(), valid);
      index_ = sf::open_or_throw(index_path(), O_WRONLY | O_CREAT | O_APPEND, "store index");
    }
    return end;
  }

  void note_rebuild(const std::string& why) {
    if (options_.read_only) return;
    opened_.index_rebuilt = true;
    warn(index_path().string() + ": " + why + "; rebuilt from " + log_path().string());
    std::error_code ec;
    std::filesystem::remove(index_path(), ec);
  }

  void reserve(std::size_t records) {
    summaries_.reserve(records);
    places_.reserve(records);
    by_id_.reserve(records);
    by_key_.reserve(records);
  }

  void clear_memory() {
    next_seq_ = 0;
    summaries_.clear();
    places_.clear();
    by_id_.clear();
    by_key_.clear();
    per_agent_.clear();
    notes_.clear();
    incumbent_ = -1;
    best_.clear();
    failures_.clear();
  }

  void scan_log(std::uintmax_t from, std::uintmax_t to) {
    namespace sf = detail::store_file;
    if (from >= to) return;
    if (!options_.read_only && !index_) index_ = sf::open_or_throw(index_path(), O_WRONLY | O_CREAT | O_APPEND, "store index");
    const std::string data = sf::read_range(log_.get(), from, static_cast<std::size_t>(to - from), log_path());
    std::size_t pos = 0;
    std::size_t line_no = 0;
    while (pos < data.size()) {
      ++line_no;
      const std::size_t nl = data.find('\n', pos);  // present: the log ends with a newline here
      const std::string_view line(data.data() + pos, nl - pos);
      const std::string where = "record " + std::to_string(next_seq_) + " (byte " + std::to_string(from + pos) + ")";
      json j;
      try {
        j = json::parse(line);
      } catch (const json::parse_error& e) {
        throw input_error(log_path().string(), where, std::string("corrupt line: ") + e.what());
      }
      if (j.value("v", 1) > store_version)
        throw input_error(log_path().string(), where, "store version " + std::to_string(j.value("v", 1)) + " is newer than this Socratic reads");
      if (j.value("seq", std::int64_t(-1)) != next_seq_)
        throw input_error(log_path().string(), where, "sequence number " + j.value("seq", json(nullptr)).dump() + ", expected " + std::to_string(next_seq_));
      const std::string type = j.value("type", "");
      const std::uintmax_t off = from + pos;
      const std::size_t len = nl - pos + 1;
      try {
        const std::optional<StoreLineType> line_type = parse_store_line_type(type);
        if (line_type == StoreLineType::candidate)
          add_summary_locked(summarize(j.get<StoreRecord>()), off, len);
        else if (line_type == StoreLineType::note)
          add_note_locked(j.get<StoreNote>(), off, len);
        else
          throw input_error({}, {}, "unknown record type \"" + type + "\" (candidate, note)");
      } catch (const input_error& e) {
        throw input_error(log_path().string(), where, e.what());
      }
      ++opened_.from_log;
      pos = nl + 1;
    }
  }

  // ---- memory and index ---------------------------------------------------------------------

  void add_summary_locked(RecordSummary s, std::uintmax_t offset, std::size_t length) {
    const std::size_t i = summaries_.size();
    if (index_) write_index_line(detail::store_index::candidate_line(s, offset, length));
    by_id_[s.id] = i;
    if (!s.key.empty()) by_key_[s.key] = i;
    ++per_agent_[s.agent];
    if (s.verdict == GateOutcome::admitted) incumbent_ = static_cast<std::int64_t>(i);
    if (s.verdict != GateOutcome::admitted) {
      failures_.push_back(i);
      if (failures_.size() > 4 * options_.recent_failures + 16) failures_.pop_front();
    }
    for (const auto& [scenario, f] : s.scenarios) {
      if (!f.correct || !std::isfinite(f.candidate_ms)) continue;
      auto [it, fresh] = best_.try_emplace(scenario, ScenarioBest{s.id, f.candidate_ms});
      if (!fresh && f.candidate_ms < it->second.candidate_ms) it->second = {s.id, f.candidate_ms};
    }
    places_.push_back({offset, length});
    summaries_.push_back(std::move(s));
    next_seq_ = summaries_.back().seq + 1;
  }

  void add_note_locked(StoreNote n, std::uintmax_t offset, std::size_t length) {
    if (index_) write_index_line(detail::store_index::note_line(n, offset, length));
    next_seq_ = n.seq + 1;
    notes_.push_back(std::move(n));
  }

  // The index is not synced: a lost index line is found again in the log at the next open.
  void write_index_line(const std::string& line) {
    detail::store_file::append_all(index_.get(), line, detail::store_file::file_size(index_.get(), index_path()),
                                   index_path(), false);
  }

  std::uintmax_t write_line_locked(const json& record) {
    const std::string line = record.dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
    const std::uintmax_t offset = log_size_;
    detail::store_file::append_all(log_.get(), line, offset, log_path(), options_.sync);
    log_size_ += line.size();
    line_length_ = line.size();
    return offset;
  }

  StoreRecord read_record_locked(std::size_t i) const {
    const Place& p = places_[i];
    const std::string line = detail::store_file::read_range(log_.get(), p.offset, p.length, log_path());
    try {
      return json::parse(line).get<StoreRecord>();
    } catch (const std::exception& e) {
      throw input_error(log_path().string(), "record " + summaries_[i].id, std::string("cannot read: ") + e.what());
    }
  }

  int attempts_since_admission_locked() const {
    return static_cast<int>(summaries_.size()) - static_cast<int>(incumbent_ + 1);
  }

  std::filesystem::path dir_;
  StoreOptions options_;
  StoreOpenReport opened_;
  detail::store_file::Fd lock_, log_, index_;
  std::uintmax_t log_size_ = 0;
  std::size_t line_length_ = 0;
  std::int64_t next_seq_ = 0;
  std::vector<RecordSummary> summaries_;
  std::vector<Place> places_;
  std::unordered_map<std::string, std::size_t> by_id_, by_key_;
  std::unordered_map<std::string, int> per_agent_;
  std::vector<StoreNote> notes_;
  std::int64_t incumbent_ = -1;
  std::map<std::string, ScenarioBest> best_;
  std::deque<std::size_t> failures_;
  mutable std::shared_mutex mutex_;
};

}  // namespace socratic
