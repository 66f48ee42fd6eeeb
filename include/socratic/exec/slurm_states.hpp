#pragma once
/// @file
/// @brief What Slurm's commands print, read: `sbatch --parsable`, `squeue -O` lines, exit
/// statuses, and every Slurm job state mapped to a JobState with words for its report. Pure
/// functions of the text, so the mapping is tested without a cluster.

#include <cstdlib>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "socratic/core/error.hpp"
#include "socratic/exec/job.hpp"
#include "socratic/process/stream_process.hpp"

namespace socratic::exec::slurm {

/// @brief The `squeue -O` format the poller asks for: one line per job (array tasks one each,
/// with `-r`), fields ended by `|`.
inline constexpr const char* squeue_format = "JobArrayID:|,State:|,Reason:|,exit_code:|";

/// @brief One job as squeue (or sacct) reported it.
struct QueueEntry {
  std::string id;      ///< `1234`, or `1234_5` for an array task
  std::string state;   ///< `PENDING`, `RUNNING`, `COMPLETED`, ...
  std::string reason;  ///< `None`, `Priority`, `TimeLimit`, ...
  std::optional<int> wait_status;  ///< squeue's exit_code: the raw wait status
};

/// @brief The job id of `sbatch --parsable` output (`1234` or `1234;cluster`); throws error when
/// there is none.
inline std::string parse_sbatch_id(std::string_view out) {
  std::string text(out);
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r' || text.back() == ' ')) text.pop_back();
  if (auto nl = text.rfind('\n'); nl != std::string::npos) text = text.substr(nl + 1);  // after any warnings
  if (auto semi = text.find(';'); semi != std::string::npos) text.resize(semi);
  if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos)
    throw error("sbatch --parsable printed no job id (\"" + std::string(out.substr(0, 200)) + "\")");
  return text;
}

/// @brief The lines of `squeue -h -r -O squeue_format`; lines that do not parse are skipped.
inline std::vector<QueueEntry> parse_squeue(std::string_view out) {
  std::vector<QueueEntry> entries;
  std::size_t at = 0;
  while (at < out.size()) {
    std::size_t nl = out.find('\n', at);
    std::string_view line = out.substr(at, nl == std::string_view::npos ? std::string_view::npos : nl - at);
    at = nl == std::string_view::npos ? out.size() : nl + 1;
    std::vector<std::string> fields;
    std::size_t f = 0;
    while (true) {
      const std::size_t bar = line.find('|', f);
      if (bar == std::string_view::npos) break;
      std::string field(line.substr(f, bar - f));
      while (!field.empty() && field.back() == ' ') field.pop_back();
      while (!field.empty() && field.front() == ' ') field.erase(field.begin());
      fields.push_back(std::move(field));
      f = bar + 1;
    }
    if (fields.size() < 2 || fields[0].empty() || fields[1].empty()) continue;
    QueueEntry e;
    e.id = fields[0];
    e.state = fields[1];
    if (auto sp = e.state.find(' '); sp != std::string::npos) e.state.resize(sp);  // "CANCELLED by 0"
    if (fields.size() > 2) e.reason = fields[2];
    if (fields.size() > 3 && !fields[3].empty() && fields[3].find_first_not_of("0123456789") == std::string::npos)
      e.wait_status = std::atoi(fields[3].c_str());
    entries.push_back(std::move(e));
  }
  return entries;
}

/// @brief `sacct -n -P -X -o JobID,State,ExitCode,Reason` lines (`1234|FAILED|3:0|NonZeroExitCode`).
inline std::vector<QueueEntry> parse_sacct(std::string_view out) {
  std::vector<QueueEntry> entries;
  std::size_t at = 0;
  while (at < out.size()) {
    std::size_t nl = out.find('\n', at);
    std::string line(out.substr(at, nl == std::string_view::npos ? std::string_view::npos : nl - at));
    at = nl == std::string_view::npos ? out.size() : nl + 1;
    std::vector<std::string> fields;
    std::size_t f = 0;
    while (true) {
      const std::size_t bar = line.find('|', f);
      fields.push_back(line.substr(f, bar == std::string::npos ? std::string::npos : bar - f));
      if (bar == std::string::npos) break;
      f = bar + 1;
    }
    if (fields.size() < 2 || fields[0].empty() || fields[1].empty()) continue;
    QueueEntry e;
    e.id = fields[0];
    e.state = fields[1];
    if (auto sp = e.state.find(' '); sp != std::string::npos) e.state.resize(sp);
    if (fields.size() > 2) {
      // "EXIT:SIGNAL" as a wait status.
      const std::string& code = fields[2];
      const auto colon = code.find(':');
      if (colon != std::string::npos) {
        const int exit_code = std::atoi(code.substr(0, colon).c_str());
        const int signal = std::atoi(code.substr(colon + 1).c_str());
        e.wait_status = signal ? signal : (exit_code << 8);
      }
    }
    if (fields.size() > 3) e.reason = fields[3];
    entries.push_back(std::move(e));
  }
  return entries;
}

/// @brief "exit code 3", "signal 9 (SIGKILL)", or empty for a clean exit.
inline std::string describe_wait_status(std::optional<int> status) {
  if (!status || *status == 0) return {};
  const int signal = *status & 0x7f;
  if (signal) return "signal " + describe_signal(signal);
  return "exit code " + std::to_string((*status >> 8) & 0xff);
}

/// @brief How a Slurm state reads as a JobState.
struct StateMeaning {
  JobState state = JobState::queued;
  std::string words;  ///< what happened, for a terminal one
};

/// @brief Maps a Slurm job state (squeue's or sacct's words) to a JobState. Unknown states are
/// taken as still live (a newer Slurm's transitional state), never as an ending.
inline StateMeaning meaning_of(const std::string& state) {
  static const std::map<std::string, StateMeaning> table = {
      {"PENDING", {JobState::queued, ""}},
      {"CONFIGURING", {JobState::queued, ""}},
      {"REQUEUED", {JobState::queued, ""}},
      {"REQUEUE_HOLD", {JobState::queued, ""}},
      {"REQUEUE_FED", {JobState::queued, ""}},
      {"RESV_DEL_HOLD", {JobState::queued, ""}},
      {"RUNNING", {JobState::running, ""}},
      {"COMPLETING", {JobState::running, ""}},
      {"SUSPENDED", {JobState::running, ""}},
      {"STOPPED", {JobState::running, ""}},
      {"SIGNALING", {JobState::running, ""}},
      {"STAGE_OUT", {JobState::running, ""}},
      {"RESIZING", {JobState::running, ""}},
      {"COMPLETED", {JobState::completed, "completed"}},
      {"FAILED", {JobState::failed, "failed"}},
      {"SPECIAL_EXIT", {JobState::failed, "ended with a special exit"}},
      {"REVOKED", {JobState::failed, "was revoked (run by another cluster of a federation)"}},
      {"TIMEOUT", {JobState::timed_out, "ran past its Slurm time limit and was killed"}},
      {"DEADLINE", {JobState::timed_out, "missed its deadline and was ended"}},
      {"CANCELLED", {JobState::cancelled, "was cancelled"}},
      {"OUT_OF_MEMORY", {JobState::out_of_memory, "ran out of memory and was killed"}},
      {"NODE_FAIL", {JobState::node_failure, "was ended by the failure of its node"}},
      {"BOOT_FAIL", {JobState::node_failure, "could not start: its node failed to boot"}},
      {"PREEMPTED", {JobState::preempted, "was preempted by other work"}},
  };
  auto it = table.find(state);
  if (it == table.end()) return {JobState::running, ""};
  return it->second;
}

}  // namespace socratic::exec::slurm
