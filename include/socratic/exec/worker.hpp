#pragma once
/// @file
/// @brief The worker: runs one phase of one EvalJob in this process and publishes its result.
/// Every executor runs jobs through it (`socratic exec-job`), so a job is judged by the same
/// code on a local GPU, a CPU build worker or a Slurm node.
///
/// `exec_worker_main({JOB.json, "--phase", "build"|"run", "--results", DIR, "--attempt", N,
/// "--build-out", FILE})`:
/// - `run` judges the job (the CUDA evaluator or the command evaluator the job names) and
///   publishes its JobResult as `DIR/ID.json` (first writer wins);
/// - `build` does what can be done without a GPU (the CUDA evaluator's build and binary scan, a
///   command evaluator's `build_command`): when that already decides the report (a compile
///   error) it publishes the result, else it writes `{"ready": true}` to `--build-out`.
/// Exit code: 0 when the phase's outcome is written, 2 on bad arguments or an unreadable job,
/// 3 when the result could not be written, 128 + N when signal N (TERM, INT, HUP) asked it to
/// end: then it publishes nothing. A cluster that cancels a job signals all its processes at
/// once, and an evaluation whose child died of that signal first must not be published as the
/// candidate's verdict (a crash). Under a scheduler (SLURM_JOB_ID set), a verdict that is not a
/// clean pass waits up to 2 s for such a signal before it is published.

#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "socratic/core/candidate_files.hpp"
#include "socratic/core/json.hpp"
#include "socratic/core/scenario.hpp"
#include "socratic/core/detail/sha256.hpp"
#include "socratic/eval/command_evaluator.hpp"
#include "socratic/eval/cuda_evaluator.hpp"
#include "socratic/eval/default_ban_scan.hpp"
#include "socratic/core/files.hpp"
#include "socratic/exec/job.hpp"
#include "socratic/exec/results.hpp"
#include "socratic/process/run_process.hpp"

namespace socratic::exec {

/// @brief The worker's arguments.
struct WorkerArgs {
  std::filesystem::path job_file;
  JobPhase phase = JobPhase::run;
  std::filesystem::path results_dir;
  std::filesystem::path build_out;
  int attempt = 0;
};

namespace detail {

/// The signal that asked this worker to end (0: none yet).
inline volatile std::sig_atomic_t termination_signal = 0;
extern "C" inline void record_termination(int signal_number) { termination_signal = signal_number; }

/// Termination signals are recorded, not obeyed at once: the evaluation they also reach ends by
/// itself, and the worker then publishes nothing.
inline void record_termination_signals() {
  struct sigaction action {};
  action.sa_handler = record_termination;
  sigemptyset(&action.sa_mask);
  for (int s : {SIGTERM, SIGINT, SIGHUP}) ::sigaction(s, &action, nullptr);
}

inline WorkerArgs parse_worker_args(const std::vector<std::string>& args) {
  WorkerArgs w;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= args.size()) throw input_error({}, "exec-job", a + " needs a value");
      return args[++i];
    };
    if (a == "--phase") {
      const std::string v = value();
      const auto phase = parse_job_phase(v);
      if (!phase) throw input_error({}, "exec-job", "--phase is build or run, not " + v);
      w.phase = *phase;
    }
    else if (a == "--results") w.results_dir = value();
    else if (a == "--build-out") w.build_out = value();
    else if (a == "--attempt") {
      const std::string v = value();
      if (v.empty() || v.find_first_not_of("0123456789") != std::string::npos || v.size() > 6)
        throw input_error({}, "exec-job", "--attempt needs a whole number, got \"" + v + "\"");
      w.attempt = std::stoi(v);
    } else if (a.rfind("--", 0) == 0) throw input_error({}, "exec-job", "unknown option " + a);
    else if (w.job_file.empty()) w.job_file = a;
    else throw input_error({}, "exec-job", "expects one job file, got another: " + a);
  }
  if (w.job_file.empty()) throw input_error({}, "exec-job", "missing JOB.json");
  if (w.results_dir.empty()) throw input_error({}, "exec-job", "missing --results DIR");
  if (w.phase == JobPhase::build && w.build_out.empty()) throw input_error({}, "exec-job", "--phase build needs --build-out FILE");
  return w;
}

inline std::string env_or_empty(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

inline std::string substitute_all(std::string text, const std::string& key, const std::string& value) {
  for (auto at = text.find(key); at != std::string::npos; at = text.find(key, at + value.size()))
    text.replace(at, key.size(), value);
  return text;
}

/// The scenario file a command evaluator is given: the job's file, or for a subset a copy with
/// only those scenarios, content-addressed in `folder` (beside the results: never in the folder
/// a Slurm job happens to start in).
inline std::filesystem::path scenario_file_for_command(const EvalJob& job, const std::filesystem::path& folder) {
  if (job.scenarios.only.empty()) return job.scenarios.file;
  json set = read_json_file(job.scenarios.file);
  json kept = json::array();
  for (const auto& s : set.at("scenarios"))
    if (std::find(job.scenarios.only.begin(), job.scenarios.only.end(), s.value("id", "")) != job.scenarios.only.end())
      kept.push_back(s);
  set["scenarios"] = kept;
  const std::string text = set.dump(1) + "\n";
  const auto path = folder / ("scenarios-" + socratic::detail::sha256_hex(text).substr(0, 16) + ".json");
  socratic::write_file_atomically(path, text);
  return path;
}

inline std::chrono::milliseconds seconds_ms(double s) {
  return std::chrono::milliseconds(static_cast<long long>(s * 1000));
}

inline CudaEvaluatorConfig cuda_config_for(const EvalJob& job) {
  const CudaEvaluatorSpec& s = job.evaluator.cuda;
  CudaEvaluatorConfig c;
  c.data_dir = s.data_dir;
  c.problem = job.problem;
  c.scenarios = job.scenarios.file;
  c.only_scenarios = job.scenarios.only;
  c.baseline = s.baseline;
  c.cache_dir = s.cache_dir;
  c.arch = s.arch;
  c.nvcc = s.nvcc;
  c.nvcc_flags = s.nvcc_flags;
  c.baseline_nvcc_flags = s.baseline_nvcc_flags;
  c.reference_python = s.reference_python;
  c.libraries = s.libraries;
  c.k = s.k;
  c.runner.seed = job.seed;
  c.runner.no_timing = job.purpose == JobPurpose::correctness;
  c.runner.min_samples = s.min_samples;
  c.runner.max_samples = s.max_samples;
  c.runner.target_noise = s.target_noise;
  c.runner.max_ms_per_scenario = s.max_ms_per_scenario;
  c.runner.extra_args = s.runner_args;
  c.runner_limits.watchdog = seconds_ms(s.watchdog_s);
  c.runner_limits.timeout = seconds_ms(s.timeout_s);
  c.candidate_build_timeout = seconds_ms(s.build_timeout_s);
  c.integrity_manifest = s.manifest;
  if (s.scan) c.ban_scan = default_ban_scan();
  else c.allow_unscanned = true;
  return c;
}

inline CommandEvaluatorConfig command_config_for(const EvalJob& job, const std::filesystem::path& scratch) {
  const CommandEvaluatorSpec& s = job.evaluator.command;
  const std::string scenarios = scenario_file_for_command(job, scratch).string();
  const std::string seed = job.seed ? std::to_string(*job.seed) : std::string();
  CommandEvaluatorConfig c;
  for (const auto& arg : s.command)
    c.command.push_back(substitute_all(substitute_all(substitute_all(arg, "{scenarios}", scenarios), "{seed}", seed),
                                       "{purpose}", purpose_name(job.purpose)));
  c.timeout = seconds_ms(s.timeout_s);
  c.working_dir = s.working_dir;
  c.expected = job.scenarios.ids;
  c.baseline = s.baseline;
  return c;
}

/// A command evaluator's build step: nullopt when it built (or has none), else the report.
inline std::optional<EvalReport> command_build(const EvalJob& job, const Candidate& candidate) {
  const CommandEvaluatorSpec& s = job.evaluator.command;
  if (s.build_command.empty()) return std::nullopt;
  std::vector<std::string> argv;
  const std::string scenarios = job.scenarios.file.string();
  for (const auto& arg : s.build_command)
    argv.push_back(substitute_all(substitute_all(arg, "{candidate}", candidate.judged_file().string()), "{scenarios}", scenarios));
  ProcessOptions po;
  po.timeout = seconds_ms(s.build_timeout_s);
  po.working_dir = s.working_dir;
  po.max_output_bytes = 256 * 1024;
  const ProcessResult r = run_process(argv, po);
  if (r.ok()) return std::nullopt;
  EvalReport report = failure_report(job, JobState::completed, "");
  report.error.clear();
  report.built = false;
  report.build_log = "build command " + r.describe() + "\n" + r.stdout_text + r.stderr_text;
  report.timings.build_s = r.seconds;
  report.timings.total_s = r.seconds;
  return report;
}

}  // namespace detail

/// @brief Runs the worker (see the file comment); `err` gets one line per problem.
inline int exec_worker_main(const std::vector<std::string>& args, std::ostream& err = std::cerr) {
  using clock = std::chrono::steady_clock;
  const auto began = clock::now();
  WorkerArgs w;
  EvalJob job;
  try {
    w = detail::parse_worker_args(args);
    job = read_json_file(w.job_file).get<EvalJob>();
    if (job.id.empty()) throw input_error(w.job_file.string(), "job", "has no id");
  } catch (const std::exception& e) {
    err << "socratic exec-job: " << e.what() << "\n";
    return 2;
  }

  JobResult result;
  result.job = job.id;
  result.attempt = w.attempt;
  char host[256] = {};
  if (::gethostname(host, sizeof host - 1) == 0) result.host = host;
  result.gpus = detail::env_or_empty("CUDA_VISIBLE_DEVICES");
  const std::string array_job = detail::env_or_empty("SLURM_ARRAY_JOB_ID");
  result.slurm_job_id = array_job.empty() ? detail::env_or_empty("SLURM_JOB_ID")
                                          : array_job + "_" + detail::env_or_empty("SLURM_ARRAY_TASK_ID");

  detail::record_termination_signals();
  const bool under_scheduler = !result.slurm_job_id.empty();
  auto terminated = [&]() -> int {
    err << "socratic exec-job: job " << job.id << " was asked to end (signal " << int(detail::termination_signal)
        << "); nothing is published for it\n";
    return 128 + int(detail::termination_signal);
  };
  auto publish = [&](JobState state, std::string message, EvalReport report) -> int {
    // A cancellation's signal may reach the evaluation before this process: wait for it a moment
    // before a verdict against the candidate stands.
    const bool clean_pass = state == JobState::completed && report.built && report.error.empty() && report.all_correct();
    for (int i = 0; under_scheduler && !clean_pass && !detail::termination_signal && i < 40; ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    if (detail::termination_signal) return terminated();
    result.state = state;
    result.message = std::move(message);
    result.report = std::move(report);
    result.seconds = std::chrono::duration<double>(clock::now() - began).count();
    try {
      publish_result(w.results_dir, result);  // a result already there stands
      return 0;
    } catch (const std::exception& e) {
      err << "socratic exec-job: cannot write the result of job " << job.id << ": " << e.what() << "\n";
      return 3;
    }
  };
  auto fail = [&](const std::string& why) { return publish(JobState::failed, why, failure_report(job, JobState::failed, why)); };

  // What the job pins must still be what it pinned: the candidate's files and the scenario set.
  // The evaluator judges the snapshot under the job's hash (a campaign hands over its snapshot
  // the same way); a command's `{candidate}` is the snapshot too, never the workspace's file.
  Candidate candidate;
  candidate.source = job.evaluator.kind == EvaluatorKind::cuda && !job.candidate.origin.empty() ? job.candidate.origin
                                                                                 : job.candidate.snapshot;
  candidate.snapshot = job.candidate.snapshot;
  candidate.content_hash = job.candidate.content_hash;
  candidate.label = job.candidate.label;
  try {
    if (job.candidate.snapshot.empty()) return fail("the job has no candidate snapshot");
    if (read_candidate_files(job.candidate.snapshot).hash() != job.candidate.content_hash)
      return fail("the candidate snapshot " + job.candidate.snapshot.string() + " no longer holds the job's files");
    if (socratic::detail::sha256_file(job.scenarios.file) != job.scenarios.content_hash)
      return fail("the scenario set " + job.scenarios.file.string() + " changed after the job was made");
  } catch (const std::exception& e) {
    return fail(e.what());
  }

  try {
    if (job.evaluator.kind == EvaluatorKind::cuda) {
      CudaEvaluator evaluator(detail::cuda_config_for(job));
      if (w.phase == JobPhase::build) {
        EvalReport report = evaluator.build_only(candidate);
        if (!report.built || !report.error.empty()) return publish(JobState::completed, "", std::move(report));
      } else {
        return publish(JobState::completed, "", evaluator.evaluate(candidate));
      }
    } else {
      if (w.phase == JobPhase::build) {
        if (auto report = detail::command_build(job, candidate)) return publish(JobState::completed, "", std::move(*report));
      } else {
        CommandEvaluator evaluator(detail::command_config_for(job, w.results_dir.parent_path() / "scenarios"));
        return publish(JobState::completed, "", evaluator.evaluate(candidate));
      }
    }
  } catch (const std::exception& e) {
    // The evaluator could not judge at all (a missing problem, a harness file, a tampered judge).
    return fail(std::string("the evaluator could not run: ") + e.what());
  }

  // A build that leaves the rest to the GPU.
  if (detail::termination_signal) return terminated();
  try {
    socratic::write_file_atomically(
        w.build_out, json{{"ready", true},
                          {"seconds", std::chrono::duration<double>(clock::now() - began).count()}}.dump() + "\n");
  } catch (const std::exception& e) {
    err << "socratic exec-job: " << e.what() << "\n";
    return 3;
  }
  return 0;
}

}  // namespace socratic::exec
