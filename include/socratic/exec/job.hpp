#pragma once
/// @file
/// @brief EvalJob: one evaluation as a JSON document (candidate snapshot, problem, scenario set,
/// evaluator options, seed), so that a job means the same in every executor and after a resume;
/// JobState, JobStatus and JobResult: what an executor says about it. docs/executor.md.
/// Light: nlohmann/json and the SDK's digest.

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <utility>
#include <string>
#include <string_view>
#include <vector>

#include "socratic/core/error.hpp"
#include "socratic/core/json.hpp"
#include "socratic/core/report.hpp"
#include "socratic/core/detail/sha256.hpp"
#include "socratic/scan/library_policy.hpp"

namespace socratic::exec {

/// @brief Why a job runs; it decides how the job holds its GPU.
enum class JobPurpose {
  timing,       ///< correctness and timing: the GPU alone
  correctness,  ///< correctness only (no timing): may share a GPU where the pool allows it
  profile,      ///< a profiler run: the GPU alone
};

/// @brief The two phases of a job, each one worker process: the build (no GPU), then the run.
enum class JobPhase { build, run };

constexpr std::string_view to_string(JobPhase p) noexcept { return p == JobPhase::build ? "build" : "run"; }

inline std::optional<JobPhase> parse_job_phase(std::string_view name) noexcept {
  if (name == "build") return JobPhase::build;
  if (name == "run") return JobPhase::run;
  return std::nullopt;
}

/// @brief The candidate as judged: its files (the entry and the headers of its folder that it
/// includes), by hash, in a snapshot folder that never changes.
struct CandidateSnapshot {
  std::string label;             ///< the submitter's name for it
  std::filesystem::path origin;  ///< where its entry came from (reports name this path)
  std::string file_name;         ///< the entry's name when judged, e.g. `attention.cu`
  std::string content_hash;      ///< CandidateFiles::hash(): for one file, the SHA-256 of its bytes
  std::filesystem::path snapshot;  ///< the entry in a copy of the files (content-addressed); set by the executor
};

/// @brief The scenarios to judge: a scenario-set file pinned by hash, and the ids judged.
struct ScenarioSelection {
  std::filesystem::path file;  ///< the scenario-set file (absolute)
  std::string content_hash;    ///< SHA-256 of the file when the job was made
  std::string name;            ///< the set's name (reports carry it)
  std::vector<std::string> ids;   ///< the ids judged, in order (a subset when `only` is set)
  std::vector<std::string> only;  ///< when not empty: judge only these ids of the file
};

/// @brief Options of the reference CUDA evaluator (eval/cuda_evaluator.hpp) for a job.
struct CudaEvaluatorSpec {
  std::filesystem::path data_dir;                 ///< holds `kernels/`
  std::optional<std::filesystem::path> baseline;  ///< instead of the problem's own
  std::string arch;                               ///< empty: detected where the job runs
  std::filesystem::path cache_dir;                ///< build cache (shared safely)
  std::string nvcc = "nvcc";
  std::vector<std::string> nvcc_flags, baseline_nvcc_flags;
  double k = 2.0;
  std::optional<int> min_samples, max_samples, max_ms_per_scenario;
  std::optional<double> target_noise;
  std::vector<std::string> runner_args;  ///< extra runner arguments
  double watchdog_s = 60, timeout_s = 1800, build_timeout_s = 120;
  std::optional<std::filesystem::path> manifest;  ///< integrity manifest recorded at campaign start
  bool scan = true;  ///< the banned-library scan (false: the explicit opt-out)
  /// A suite problem's reference worker's Python (with PyTorch); empty: the worker's own default
  /// ($SOCRATIC_REFERENCE_PYTHON, else python3 on PATH).
  std::string reference_python;
  /// Changes to the problem's default library policy (scan/library_policy.hpp), with their source.
  LibraryPolicyOverride libraries;
  friend bool operator==(const CudaEvaluatorSpec&, const CudaEvaluatorSpec&) = default;
};

/// @brief Options of a command evaluator (eval/command_evaluator.hpp) for a job. In every
/// argument `{candidate}` and `{snapshot}` become the snapshot's path (a job judges its pinned
/// bytes, never the workspace's), `{scenarios}` the scenario file judged, `{seed}` the seed
/// (empty when none) and `{purpose}` the job's purpose.
struct CommandEvaluatorSpec {
  std::vector<std::string> command;        ///< prints an EvalReport JSON on stdout
  std::vector<std::string> build_command;  ///< optional: run on a CPU worker first; nonzero exit = build failure
  double timeout_s = 1800, build_timeout_s = 600;
  std::filesystem::path working_dir;  ///< empty: the worker's slot folder
  /// The baseline's source, when the command judges against one: a candidate byte-identical to
  /// it is reported `identical_to_baseline`.
  std::optional<std::filesystem::path> baseline;
  friend bool operator==(const CommandEvaluatorSpec&, const CommandEvaluatorSpec&) = default;
};

/// @brief The evaluators a job or a campaign file can name: the CUDA harness, or a command the
/// person gives (docs/executor.md).
enum class EvaluatorKind { cuda, command };

constexpr std::string_view to_string(EvaluatorKind k) noexcept {
  return k == EvaluatorKind::command ? "command" : "cuda";
}

/// @brief The evaluator kind named `name`; none for another name.
inline std::optional<EvaluatorKind> parse_evaluator_kind(std::string_view name) noexcept {
  if (name == "cuda") return EvaluatorKind::cuda;
  if (name == "command") return EvaluatorKind::command;
  return std::nullopt;
}

/// @brief Reads field `kind` of `j` as an evaluator kind; an input_error naming `where` and the
/// known names otherwise.
inline EvaluatorKind required_evaluator_kind(const json& j, const std::string& where) {
  const std::string name = required<std::string>(j, "kind", where);
  if (const auto k = parse_evaluator_kind(name)) return *k;
  throw input_error({}, where + " field \"kind\"", "\"" + name + "\" is not `cuda` or `command`");
}

/// @brief Which evaluator judges the job, and with what options.
struct EvaluatorSpec {
  EvaluatorKind kind = EvaluatorKind::cuda;
  CudaEvaluatorSpec cuda;
  CommandEvaluatorSpec command;
  friend bool operator==(const EvaluatorSpec&, const EvaluatorSpec&) = default;
};

/// @brief One evaluation job. Its `key()` hashes everything that decides the verdict (not the
/// id, the label, the paths the bytes came from or were copied to): submitting a job with the
/// key of a journaled one returns that job. Raise `repeat` to measure the same thing again.
struct EvalJob {
  std::string id;  ///< [A-Za-z0-9][A-Za-z0-9._-]*, at most 100 characters; empty: derived
  CandidateSnapshot candidate;
  std::string problem;
  ScenarioSelection scenarios;
  EvaluatorSpec evaluator;
  std::optional<std::uint64_t> seed;
  JobPurpose purpose = JobPurpose::timing;
  int repeat = 0;
  /// Which of several measurements of the same comparison this is (a gate's remeasures and
  /// pooled runs: 1, 2, ...): part of the key, so each is a job of its own and never the first
  /// one's result taken again. 0 (the first) is left out of the job's JSON, so the keys of jobs
  /// written before the field existed are unchanged.
  int measurement = 0;

  std::string key() const;
};

/// @brief Where a job is. The first three are live; the others are terminal, and each terminal
/// state comes with an EvalReport (its `error` says what happened unless `completed`).
enum class JobState {
  queued,         ///< waiting for a build worker, a GPU or the cluster
  building,       ///< its build runs on a CPU worker
  running,        ///< its evaluation runs on a GPU
  completed,      ///< the evaluator returned a report (whatever its verdict)
  failed,         ///< the evaluation process failed (crash, nonzero exit, no report)
  timed_out,      ///< it ran past its time limit and was stopped
  cancelled,      ///< cancelled before it finished
  out_of_memory,  ///< killed for using more memory than it was given
  node_failure,   ///< the machine it ran on failed
  preempted,      ///< preempted by the scheduler for other work
  vanished,       ///< the scheduler no longer knows it, and it left no report
};

inline constexpr std::string_view to_string(JobState s) noexcept {
  switch (s) {
    case JobState::queued: return "queued";
    case JobState::building: return "building";
    case JobState::running: return "running";
    case JobState::completed: return "completed";
    case JobState::failed: return "failed";
    case JobState::timed_out: return "timed_out";
    case JobState::cancelled: return "cancelled";
    case JobState::out_of_memory: return "out_of_memory";
    case JobState::node_failure: return "node_failure";
    case JobState::preempted: return "preempted";
    case JobState::vanished: return "vanished";
  }
  return "unknown";
}

inline constexpr bool is_terminal(JobState s) noexcept {
  return s != JobState::queued && s != JobState::building && s != JobState::running;
}

inline JobState job_state_from_string(std::string_view text) {
  for (JobState s : {JobState::queued, JobState::building, JobState::running, JobState::completed,
                     JobState::failed, JobState::timed_out, JobState::cancelled, JobState::out_of_memory,
                     JobState::node_failure, JobState::preempted, JobState::vanished})
    if (to_string(s) == text) return s;
  throw input_error({}, "job state", "\"" + std::string(text) + "\" is not a job state");
}

/// @brief What an executor says about a job now.
struct JobStatus {
  std::string id;
  JobState state = JobState::queued;
  std::string detail;  ///< in words: "on GPU 2", "Slurm job 1234 PENDING (Priority)", why it ended
  int attempt = 0;     ///< how many times it was started (a resume after a kill starts it again)
  std::string where;   ///< `gpu 2`, `build 0`, `slurm 1234`; empty while queued
};

/// @brief What a finished job left: the document written, first writer wins, to the executor's
/// results folder as `ID.json`. The worker writes it; an executor writes it itself for a job
/// that could not (crash, time limit, cancellation).
struct JobResult {
  std::string job;  ///< the job's id
  int attempt = 0;
  JobState state = JobState::completed;
  std::string message;  ///< for a state other than completed: what happened
  std::string host;     ///< the machine it ran on
  std::string gpus;     ///< CUDA_VISIBLE_DEVICES as the evaluation saw it
  std::string slurm_job_id;  ///< SLURM_JOB_ID (array tasks: ARRAY_TASK), when under Slurm
  double seconds = 0;   ///< wall time of the evaluation process
  EvalReport report;
};

// ---- JSON -----------------------------------------------------------------------------------

namespace detail {

inline const char* purpose_name(JobPurpose p) {
  switch (p) {
    case JobPurpose::timing: return "timing";
    case JobPurpose::correctness: return "correctness";
    case JobPurpose::profile: return "profile";
  }
  return "timing";
}

inline JobPurpose purpose_from(const std::string& s) {
  if (s == "timing") return JobPurpose::timing;
  if (s == "correctness") return JobPurpose::correctness;
  if (s == "profile") return JobPurpose::profile;
  throw input_error({}, "job field \"purpose\"", "\"" + s + "\" is not timing, correctness or profile");
}

inline void reject_unknown_fields(const json& j, std::string_view where, std::initializer_list<std::string_view> known) {
  if (!j.is_object()) throw input_error({}, std::string(where), "expected an object, found " + std::string(j.type_name()));
  for (auto it = j.begin(); it != j.end(); ++it)
    if (std::find(known.begin(), known.end(), it.key()) == known.end()) {
      std::string list;
      for (auto k : known) list += (list.empty() ? "" : ", ") + std::string(k);
      throw input_error({}, std::string(where), "unknown field \"" + it.key() + "\" (known: " + list + ")");
    }
}

template <class T>
json optional_json(const std::optional<T>& v) {
  return v ? json(*v) : json(nullptr);
}

}  // namespace detail

inline void to_json(json& j, const CandidateSnapshot& c) {
  j = json{{"label", c.label},
           {"origin", c.origin.string()},
           {"file_name", c.file_name},
           {"content_hash", c.content_hash},
           {"snapshot", c.snapshot.string()}};
}
inline void from_json(const json& j, CandidateSnapshot& c) {
  detail::reject_unknown_fields(j, "job candidate", {"label", "origin", "file_name", "content_hash", "snapshot"});
  c.label = optional_field<std::string>(j, "label", "", "job candidate");
  c.origin = optional_field<std::string>(j, "origin", "", "job candidate");
  c.file_name = required<std::string>(j, "file_name", "job candidate");
  c.content_hash = required<std::string>(j, "content_hash", "job candidate");
  c.snapshot = optional_field<std::string>(j, "snapshot", "", "job candidate");
}

inline void to_json(json& j, const ScenarioSelection& s) {
  j = json{{"file", s.file.string()}, {"content_hash", s.content_hash}, {"name", s.name},
           {"ids", s.ids}, {"only", s.only}};
}
inline void from_json(const json& j, ScenarioSelection& s) {
  detail::reject_unknown_fields(j, "job scenarios", {"file", "content_hash", "name", "ids", "only"});
  s.file = required<std::string>(j, "file", "job scenarios");
  s.content_hash = required<std::string>(j, "content_hash", "job scenarios");
  s.name = optional_field<std::string>(j, "name", "", "job scenarios");
  s.ids = required<std::vector<std::string>>(j, "ids", "job scenarios");
  s.only = optional_field<std::vector<std::string>>(j, "only", {}, "job scenarios");
}

inline void to_json(json& j, const EvaluatorSpec& e) {
  if (e.kind == EvaluatorKind::command) {
    const auto& c = e.command;
    j = json{{"kind", "command"}, {"command", c.command}, {"build_command", c.build_command},
             {"timeout_s", c.timeout_s}, {"build_timeout_s", c.build_timeout_s},
             {"working_dir", c.working_dir.string()},
             {"baseline", c.baseline ? json(c.baseline->string()) : json(nullptr)}};
    return;
  }
  const auto& c = e.cuda;
  j = json{{"kind", "cuda"},
           {"data_dir", c.data_dir.string()},
           {"baseline", c.baseline ? json(c.baseline->string()) : json(nullptr)},
           {"arch", c.arch},
           {"cache_dir", c.cache_dir.string()},
           {"nvcc", c.nvcc},
           {"nvcc_flags", c.nvcc_flags},
           {"baseline_nvcc_flags", c.baseline_nvcc_flags},
           {"k", c.k},
           {"min_samples", detail::optional_json(c.min_samples)},
           {"max_samples", detail::optional_json(c.max_samples)},
           {"max_ms_per_scenario", detail::optional_json(c.max_ms_per_scenario)},
           {"target_noise", detail::optional_json(c.target_noise)},
           {"runner_args", c.runner_args},
           {"watchdog_s", c.watchdog_s},
           {"timeout_s", c.timeout_s},
           {"build_timeout_s", c.build_timeout_s},
           {"manifest", c.manifest ? json(c.manifest->string()) : json(nullptr)},
           {"scan", c.scan}};
  if (!c.reference_python.empty()) j["reference_python"] = c.reference_python;
  if (!c.libraries.empty()) {
    j["libraries"] = library_policy_override_json(c.libraries);
    j["libraries_source"] = c.libraries.source;
  }
}

inline void from_json(const json& j, EvaluatorSpec& e) {
  const char* where = "job evaluator";
  e = EvaluatorSpec{};
  e.kind = required_evaluator_kind(j, where);
  auto positive = [&](double v, const char* field) {
    if (!(v > 0)) throw input_error({}, std::string(where) + " field \"" + field + "\"", "must be positive");
    return v;
  };
  if (e.kind == EvaluatorKind::command) {
    detail::reject_unknown_fields(j, where, {"kind", "command", "build_command", "timeout_s", "build_timeout_s", "working_dir",
                                             "baseline"});
    auto& c = e.command;
    c.command = required<std::vector<std::string>>(j, "command", where);
    if (c.command.empty()) throw input_error({}, "job evaluator field \"command\"", "is empty");
    c.build_command = optional_field<std::vector<std::string>>(j, "build_command", {}, where);
    c.timeout_s = positive(optional_field<double>(j, "timeout_s", 1800, where), "timeout_s");
    c.build_timeout_s = positive(optional_field<double>(j, "build_timeout_s", 600, where), "build_timeout_s");
    c.working_dir = optional_field<std::string>(j, "working_dir", "", where);
    if (auto b = optional_value<std::string>(j, "baseline", where)) c.baseline = *b;
    return;
  }
  detail::reject_unknown_fields(j, where, {"kind", "data_dir", "baseline", "arch", "cache_dir", "nvcc", "nvcc_flags",
                                           "baseline_nvcc_flags", "k", "min_samples", "max_samples",
                                           "max_ms_per_scenario", "target_noise", "runner_args", "watchdog_s",
                                           "timeout_s", "build_timeout_s", "manifest", "scan", "reference_python",
                                           "libraries", "libraries_source"});
  auto& c = e.cuda;
  c.data_dir = required<std::string>(j, "data_dir", where);
  if (auto b = optional_value<std::string>(j, "baseline", where)) c.baseline = *b;
  c.arch = optional_field<std::string>(j, "arch", "", where);
  c.cache_dir = optional_field<std::string>(j, "cache_dir", "", where);
  c.nvcc = optional_field<std::string>(j, "nvcc", "nvcc", where);
  c.nvcc_flags = optional_field<std::vector<std::string>>(j, "nvcc_flags", {}, where);
  c.baseline_nvcc_flags = optional_field<std::vector<std::string>>(j, "baseline_nvcc_flags", {}, where);
  c.k = positive(optional_field<double>(j, "k", 2.0, where), "k");
  c.min_samples = optional_value<int>(j, "min_samples", where);
  c.max_samples = optional_value<int>(j, "max_samples", where);
  c.max_ms_per_scenario = optional_value<int>(j, "max_ms_per_scenario", where);
  c.target_noise = optional_value<double>(j, "target_noise", where);
  c.runner_args = optional_field<std::vector<std::string>>(j, "runner_args", {}, where);
  c.watchdog_s = positive(optional_field<double>(j, "watchdog_s", 60, where), "watchdog_s");
  c.timeout_s = positive(optional_field<double>(j, "timeout_s", 1800, where), "timeout_s");
  c.build_timeout_s = positive(optional_field<double>(j, "build_timeout_s", 120, where), "build_timeout_s");
  if (auto m = optional_value<std::string>(j, "manifest", where)) c.manifest = *m;
  c.scan = optional_field<bool>(j, "scan", true, where);
  c.reference_python = optional_field<std::string>(j, "reference_python", "", where);
  if (j.contains("libraries")) {
    c.libraries = library_policy_override_from_json(j["libraries"], {}, std::string(where) + " field \"libraries\"");
    c.libraries.source = optional_field<std::string>(j, "libraries_source", c.libraries.source, where);
  }
}

/// @brief True for ids that are safe as file names and Slurm job names.
inline bool valid_job_id(std::string_view id) noexcept {
  if (id.empty() || id.size() > 100) return false;
  if (!std::isalnum(static_cast<unsigned char>(id.front()))) return false;
  return std::all_of(id.begin(), id.end(), [](char ch) {
    const auto c = static_cast<unsigned char>(ch);
    return std::isalnum(c) || c == '.' || c == '_' || c == '-';
  });
}

inline void to_json(json& j, const EvalJob& job) {
  j = json{{"schema_version", schema_version},
           {"id", job.id},
           {"candidate", job.candidate},
           {"problem", job.problem},
           {"scenarios", job.scenarios},
           {"evaluator", job.evaluator},
           {"seed", detail::optional_json(job.seed)},
           {"purpose", detail::purpose_name(job.purpose)},
           {"repeat", job.repeat}};
  if (job.measurement > 0) j["measurement"] = job.measurement;
}

inline void from_json(const json& j, EvalJob& job) {
  check_schema_version(j, "job");
  detail::reject_unknown_fields(j, "job", {"schema_version", "id", "candidate", "problem", "scenarios", "evaluator",
                                           "seed", "purpose", "repeat", "measurement"});
  job.id = optional_field<std::string>(j, "id", "", "job");
  if (!job.id.empty() && !valid_job_id(job.id))
    throw input_error({}, "job field \"id\"", "\"" + job.id + "\" is not a job id (letters, digits, '.', '_', '-'; at most 100)");
  job.candidate = required<CandidateSnapshot>(j, "candidate", "job");
  job.problem = optional_field<std::string>(j, "problem", "", "job");
  job.scenarios = required<ScenarioSelection>(j, "scenarios", "job");
  job.evaluator = required<EvaluatorSpec>(j, "evaluator", "job");
  job.seed = optional_value<std::uint64_t>(j, "seed", "job");
  job.purpose = detail::purpose_from(optional_field<std::string>(j, "purpose", "timing", "job"));
  job.repeat = optional_field<int>(j, "repeat", 0, "job");
  if (job.repeat < 0) throw input_error({}, "job field \"repeat\"", "must not be negative");
  job.measurement = optional_field<int>(j, "measurement", 0, "job");
  if (job.measurement < 0) throw input_error({}, "job field \"measurement\"", "must not be negative");
}

inline std::string EvalJob::key() const {
  json j = *this;
  j.erase("id");
  j.erase("schema_version");
  j["candidate"].erase("label");
  j["candidate"].erase("origin");
  j["candidate"].erase("snapshot");
  j["scenarios"].erase("file");
  return socratic::detail::sha256_hex("socratic-eval-job-v1\n" + j.dump());
}

/// @brief `id` when set, else `SLUG-KEY12` (the label's stem, made safe, and the key's start).
inline std::string job_id_for(const EvalJob& job) {
  if (!job.id.empty()) return job.id;
  std::string stem = std::filesystem::path(job.candidate.label.empty() ? job.candidate.file_name
                                                                       : job.candidate.label).stem().string();
  std::string slug;
  for (char ch : stem) {
    const auto c = static_cast<unsigned char>(ch);
    slug += (std::isalnum(c) || ch == '_' || ch == '-' || ch == '.') ? ch : '_';
    if (slug.size() >= 40) break;
  }
  while (!slug.empty() && !std::isalnum(static_cast<unsigned char>(slug.front()))) slug.erase(slug.begin());
  if (slug.empty()) slug = "job";
  std::string id = slug + "-" + job.key().substr(0, 12);
  if (job.measurement > 0) id += "-m" + std::to_string(job.measurement);
  if (job.repeat > 0) id += "-r" + std::to_string(job.repeat);
  return id;
}

inline void to_json(json& j, const JobResult& r) {
  j = json{{"schema_version", schema_version}, {"job", r.job}, {"attempt", r.attempt},
           {"state", std::string(to_string(r.state))}, {"message", r.message}, {"host", r.host},
           {"gpus", r.gpus}, {"slurm_job_id", r.slurm_job_id}, {"seconds", r.seconds}, {"report", r.report}};
}
inline void from_json(const json& j, JobResult& r) {
  check_schema_version(j, "job result");
  r.job = required<std::string>(j, "job", "job result");
  r.attempt = optional_field<int>(j, "attempt", 0, "job result");
  r.state = job_state_from_string(required<std::string>(j, "state", "job result"));
  if (!is_terminal(r.state)) throw input_error({}, "job result field \"state\"", "a result's state must be terminal");
  r.message = optional_field<std::string>(j, "message", "", "job result");
  r.host = optional_field<std::string>(j, "host", "", "job result");
  r.gpus = optional_field<std::string>(j, "gpus", "", "job result");
  r.slurm_job_id = optional_field<std::string>(j, "slurm_job_id", "", "job result");
  r.seconds = optional_field<double>(j, "seconds", 0, "job result");
  r.report = required<EvalReport>(j, "report", "job result");
}

/// @brief The report of a job that ended without one from its evaluator: the job's problem,
/// scenario set, candidate and expected scenarios, no results, and `message` as the error.
/// @brief Whether a job that ended in `s` was ended by the executor or its cluster, not by what
/// its candidate did: `cancelled`, `preempted`, `node_failure`, `vanished`. Its report is no
/// verdict on the candidate (EvalFault::harness). `failed`, `timed_out` and `out_of_memory` stay
/// the candidate's, as for the command evaluator: a candidate can crash, hang or exhaust its judge.
inline constexpr bool ended_by_executor(JobState s) noexcept {
  return s == JobState::cancelled || s == JobState::preempted || s == JobState::node_failure || s == JobState::vanished;
}

inline EvalReport failure_report(const EvalJob& job, JobState state, const std::string& message) {
  EvalReport r;
  if (ended_by_executor(state)) r.fault = EvalFault::harness;
  r.problem = job.problem;
  r.scenario_set = job.scenarios.name;
  r.candidate.source = job.candidate.origin.empty() ? job.candidate.snapshot : job.candidate.origin;
  r.candidate.label = job.candidate.label;
  r.candidate.content_hash = job.candidate.content_hash;
  r.expected = job.scenarios.ids;
  r.error = "evaluation job " + job.id + " " + std::string(to_string(state)) + ": " + message;
  return r;
}

/// @brief A report as its submitter sees it: the candidate named by its origin, not the snapshot.
inline EvalReport as_submitted(EvalReport report, const EvalJob& job) {
  if (!job.candidate.origin.empty()) {
    report.candidate.source = job.candidate.origin;
    // Compiler messages name the files compiled: the snapshot's. Name the submitted ones (the
    // entry, and the headers beside it) instead.
    std::vector<std::pair<std::string, std::string>> renames;
    if (!job.candidate.snapshot.empty()) {
      renames.emplace_back(job.candidate.snapshot.string(), job.candidate.origin.string());
      renames.emplace_back(job.candidate.snapshot.parent_path().string() + "/",
                           job.candidate.origin.parent_path().string() + "/");
    }
    for (const auto& [from, to] : renames)
      for (std::string* text : {&report.build_log, &report.error})
        for (auto at = text->find(from); at != std::string::npos; at = text->find(from, at + to.size()))
          text->replace(at, from.size(), to);
  }
  if (report.candidate.label.empty()) report.candidate.label = job.candidate.label;
  return report;
}

}  // namespace socratic::exec
