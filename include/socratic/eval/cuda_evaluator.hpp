#pragma once
/// @file
/// @brief CudaEvaluator: the reference Evaluator. One `evaluate(candidate)` = integrity check ->
/// build the candidate (and, cached, the baseline and the runner) -> banned-library scan -> the
/// runner on every scenario -> EvalReport. docs/evaluator.md explains each step and what it
/// catches. Heavy (processes).

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "socratic/concepts.hpp"
#include "socratic/core/candidate.hpp"
#include "socratic/core/error.hpp"
#include "socratic/core/report.hpp"
#include "socratic/core/scenario.hpp"
#include "socratic/core/detail/sha256.hpp"
#include "socratic/core/candidate_files.hpp"
#include "socratic/core/files.hpp"
#include "socratic/eval/gpu_target.hpp"
#include "socratic/eval/integrity.hpp"
#include "socratic/eval/library_link.hpp"
#include "socratic/eval/elf_exports.hpp"
#include "socratic/eval/nvcc_build.hpp"
#include "socratic/eval/problem_registry.hpp"
#include "socratic/eval/report_table.hpp"
#include "socratic/eval/roofline.hpp"
#include "socratic/eval/runner_client.hpp"
#include "socratic/eval/suite_problem.hpp"
#include "socratic/scan/library_policy.hpp"
#include "socratic/suite/judgeable.hpp"
#include "socratic/suite/resolved_workload_writer.hpp"
#include "socratic/suite/sol_score.hpp"
#include "socratic/suite/suite_adapter.hpp"

namespace socratic {

/// @brief The banned-library checks the evaluator delegates. `binary` scans a built shared
/// object; `mapped` judges the shared objects the runner process mapped at run time. The
/// scanner (eval/scanner.hpp) implements both: eval/default_ban_scan.hpp wires it in.
struct BanScan {
  std::function<std::vector<BannedFinding>(const std::filesystem::path& binary)> binary;
  std::function<std::vector<BannedFinding>(const std::vector<std::string>& mapped)> mapped;
  explicit operator bool() const noexcept { return binary && mapped; }
};

namespace detail {
/// Where nlohmann/json.hpp was found when Socratic was configured (the runner's harness includes
/// it), unless that is a folder the compiler searches anyway (`-I/usr/include` would reorder the
/// system headers).
inline std::vector<std::filesystem::path> json_include_dirs() {
#ifdef SOCRATIC_JSON_INCLUDE_DIR
  const std::filesystem::path dir = SOCRATIC_JSON_INCLUDE_DIR;
  if (!dir.empty() && dir != "/usr/include" && dir != "/usr/local/include") return {dir};
#endif
  return {};
}
}  // namespace detail

/// @brief How a CudaEvaluator is set up. Only `data_dir`, `problem` and (for a registry problem)
/// `scenarios` are required.
struct CudaEvaluatorConfig {
  std::filesystem::path data_dir;   ///< holds `kernels/` (problems.json, harness/, problem folders)
  /// A name listed in kernels/problems.json, or a path (is_problem_path: it holds a `/` or ends
  /// in `.py`): a SOL-ExecBench / FlashInfer-Bench folder or a KernelBench file (a suite problem,
  /// judged by kernels/suite's runner), or a folder in Socratic's own format (problem.json).
  std::string problem;
  /// The scenario-set file. For a suite problem it is optional and only selects workloads: its
  /// scenarios' ids are workload uuids, each resolved afresh from the description (absent: every
  /// workload).
  std::filesystem::path scenarios;
  /// When not empty, judge only these ids of the set, in the set's order (an executor's
  /// correctness-first stage, say); each must be in the set (a suite problem: its workloads).
  std::vector<std::string> only_scenarios;
  std::optional<std::filesystem::path> baseline;  ///< baseline source instead of the problem's
  /// What the baseline is. A suite problem without a native baseline (`baseline`, or baseline.cu
  /// beside its definition) is timed against its PyTorch reference run eagerly, in the trusted
  /// reference worker (docs/harness.md, "A PyTorch baseline"); pytorch_compile asks for the
  /// reference under torch.compile. `baseline` may also name these words (as `--baseline` does).
  BaselineKind baseline_kind = BaselineKind::native_cuda;
  /// The Python with PyTorch that runs the reference worker (and the KernelBench describer) of a
  /// suite problem. Empty: $SOCRATIC_REFERENCE_PYTHON, else python3 on PATH.
  std::filesystem::path reference_python;
  std::filesystem::path cache_dir;  ///< build cache; empty: default_cache_dir()
  std::string arch;                 ///< e.g. `sm_90a` or `9.0`; empty: ask nvidia-smi
  std::filesystem::path nvcc = "nvcc";
  std::filesystem::path nvidia_smi = "nvidia-smi";
  std::vector<std::string> nvcc_flags;           ///< extra flags for the candidate
  std::vector<std::string> baseline_nvcc_flags;  ///< extra flags for the baseline
  double k = 2.0;  ///< FA-style tolerance: candidate error <= k x baseline error + floor
  RunnerOverrides runner;     ///< seed, sample counts, noise target, timing on/off
  RunnerLimits runner_limits; ///< watchdog, overall time, output caps
  std::chrono::milliseconds candidate_build_timeout{std::chrono::minutes(2)};
  std::chrono::milliseconds harness_build_timeout{std::chrono::minutes(10)};
  /// More include folders for the runner's build: the harness includes nlohmann/json.hpp, which
  /// need not be on the compiler's default path. Default: where CMake found it at configure time.
  std::vector<std::filesystem::path> runner_include_dirs = detail::json_include_dirs();
  BanScan ban_scan;              ///< required unless `allow_unscanned`
  /// Evaluate without a banned-library scan: an explicit opt-out for problems without bans
  /// (reports then carry no findings; the `socratic eval` tool warns).
  bool allow_unscanned = false;
  /// Changes to the problem's default library policy (scan/library_policy.hpp: Socratic's own
  /// problems ban cuBLAS, cuDNN and CUTLASS, the suites' problems allow them): the scanner's
  /// findings of an allowed family are reported as `allowed_libraries`, not `banned`, and the
  /// candidate is linked with the allowed libraries.
  LibraryPolicyOverride libraries;
  /// A manifest recorded at campaign start (save_integrity_manifest); empty: record one now.
  std::optional<std::filesystem::path> integrity_manifest;
  std::function<void(const RunnerProgress&)> on_progress;  ///< scenario begin/end, for progress lines
};

/// @brief `$SOCRATIC_CACHE_DIR`, else `$XDG_CACHE_HOME/socratic`, else `~/.cache/socratic`,
/// else a folder under the system's temporary folder.
inline std::filesystem::path default_cache_dir() {
  auto env = [](const char* name) -> std::string {
    const char* v = std::getenv(name);
    return v && *v ? v : "";
  };
  if (auto d = env("SOCRATIC_CACHE_DIR"); !d.empty()) return d;
  if (auto d = env("XDG_CACHE_HOME"); !d.empty()) return std::filesystem::path(d) / "socratic";
  if (auto d = env("HOME"); !d.empty()) return std::filesystem::path(d) / ".cache" / "socratic";
  return std::filesystem::temp_directory_path() / "socratic-cache";
}

namespace detail {

inline void replace_all(std::string& text, const std::string& from, const std::string& to) {
  if (from.empty()) return;
  for (std::size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
}

inline std::string join_sentences(const std::vector<std::string>& items, std::size_t max_items) {
  std::string out;
  for (std::size_t i = 0; i < items.size() && i < max_items; ++i) out += (out.empty() ? "" : "; ") + items[i];
  if (items.size() > max_items) out += "; (" + std::to_string(items.size() - max_items) + " more)";
  return out;
}

}  // namespace detail

/// @brief The reference Evaluator for CUDA kernels.
///
/// Construction loads the problem, validates the scenario set against its parameters, resolves
/// the GPU target and records (or loads) the integrity manifest; it throws input_error or error
/// when the configuration cannot work. `evaluate` never throws for the candidate's faults: a
/// compile error, a crash, a hang or a wrong answer is in the report. Not thread-safe; several
/// evaluators (threads or processes) may share one cache folder.
class CudaEvaluator {
 public:
  explicit CudaEvaluator(CudaEvaluatorConfig config) : config_(std::move(config)) {
    namespace fs = std::filesystem;
    if (config_.data_dir.empty()) throw error("CudaEvaluator: no data folder (with kernels/) configured");
    if (config_.problem.empty()) throw error("CudaEvaluator: no problem configured");
    const bool on_disk = is_problem_path(config_.problem);
    if (config_.scenarios.empty() && !on_disk) throw error("CudaEvaluator: no scenario-set file configured");
    if (!(config_.k > 0) || !std::isfinite(config_.k))
      throw error("CudaEvaluator: the tolerance factor k must be a positive number, got " + std::to_string(config_.k));
    if (!config_.ban_scan && !config_.allow_unscanned)
      throw error("CudaEvaluator: no banned-library scanner configured (set ban_scan, e.g. from "
                  "eval/default_ban_scan.hpp, or allow_unscanned)");
    config_.data_dir = fs::absolute(config_.data_dir).lexically_normal();
    if (!config_.scenarios.empty()) config_.scenarios = fs::absolute(config_.scenarios).lexically_normal();
    if (config_.cache_dir.empty()) config_.cache_dir = default_cache_dir();
    config_.cache_dir = fs::absolute(config_.cache_dir).lexically_normal();

    const fs::path kernels = config_.data_dir / "kernels";
    std::vector<fs::path> files;  // what the evaluation trusts, besides its folders
    ProblemPathFormat format = ProblemPathFormat::native_folder;
    if (on_disk) format = problem_path_format(config_.problem);
    if (on_disk && format != ProblemPathFormat::native_folder) {
      load_suite(kernels);
      files = suite_->files;
      if (!config_.scenarios.empty()) files.push_back(config_.scenarios);
    } else if (on_disk) {
      problem_ = load_problem_spec(fs::absolute(config_.problem).lexically_normal() / "problem.json");
      files = {problem_.problem_file, config_.scenarios};
    } else {
      const ProblemRegistry registry = ProblemRegistry::load(kernels);
      problem_ = registry.get(config_.problem);
      files = {registry.index_file(), config_.scenarios};
    }
    if (!suite_) scenarios_ = load_scenarios_for(problem_, config_.scenarios);
    if (!suite_ && !config_.only_scenarios.empty()) {
      for (const auto& id : config_.only_scenarios)
        if (!scenarios_.find(id))
          throw input_error(config_.scenarios.string(), "scenario \"" + id + "\"", "not in the set (asked for by only_scenarios)");
      std::vector<Scenario> kept;
      for (auto& sc : scenarios_.scenarios)
        if (std::find(config_.only_scenarios.begin(), config_.only_scenarios.end(), sc.id) != config_.only_scenarios.end())
          kept.push_back(std::move(sc));
      scenarios_.scenarios = std::move(kept);
    }
    if (config_.baseline)
      if (const auto word = pytorch_baseline_named(config_.baseline->string())) {
        config_.baseline_kind = *word;
        config_.baseline.reset();
      }
    if (config_.baseline_kind != BaselineKind::native_cuda && !suite_)
      throw input_error(config_.problem, {},
                        "a PyTorch baseline (" + std::string(runner_baseline_word(config_.baseline_kind)) +
                            ") needs a suite problem with a PyTorch reference; this problem's baseline is a CUDA source");
    if (config_.baseline_kind != BaselineKind::native_cuda) {
      // The problem's PyTorch reference, as asked.
    } else if (config_.baseline) {
      baseline_source_ = fs::absolute(*config_.baseline).lexically_normal();
    } else if (!suite_) {
      baseline_source_ = problem_.baseline_path();
    } else if (suite_->baseline) {
      baseline_source_ = *suite_->baseline;
    } else {
      config_.baseline_kind = BaselineKind::pytorch_eager;
    }
    if (config_.baseline_kind == BaselineKind::native_cuda) {
      if (!fs::is_regular_file(baseline_source_))
        throw input_error(baseline_source_.string(), {}, "baseline source does not exist");
      baseline_files_ = read_candidate_files(baseline_source_);
      files.push_back(baseline_source_);
    }
    if (!fs::is_regular_file(kernels / "harness" / "runner.cu"))
      throw input_error((kernels / "harness" / "runner.cu").string(), {}, "the runner's source does not exist");

    {
      LibraryPolicyOrigin origin = LibraryPolicyOrigin::socratic;
      if (suite_)
        origin = suite_->format == ProblemPathFormat::kernelbench_file ? LibraryPolicyOrigin::kernelbench
                                                                       : LibraryPolicyOrigin::sol_execbench;
      library_policy_ = resolve_library_policy(origin, config_.libraries);
    }

    target_ = config_.arch.empty() ? detect_gpu_target(config_.nvidia_smi) : parse_gpu_target(config_.arch);

    // What the evaluation trusts: the harness, the problem, the registry, the scenarios (a suite
    // problem: its definition, workloads and reference, and kernels/suite).
    std::vector<fs::path> folders = {kernels / "harness", problem_.folder};
    if (config_.integrity_manifest) {
      manifest_ = load_integrity_manifest(*config_.integrity_manifest);
      for (const auto& f : files)
        if (!manifest_.covers(f))
          throw input_error(config_.integrity_manifest->string(), {},
                            "the manifest does not cover " + f.string() + ", which the evaluation trusts");
      for (const auto& d : folders)
        if (std::find(manifest_.folders.begin(), manifest_.folders.end(), detail::normal_path(d)) ==
            manifest_.folders.end())
          throw input_error(config_.integrity_manifest->string(), {},
                            "the manifest does not record the folder " + d.string());
    } else {
      manifest_ = record_integrity(files, folders, config_.data_dir);
    }

    // The runner reads the scenarios with the problem's declared defaults filled in, so the host
    // and the runner judge exactly the same parameters. Content-addressed: shared safely.
    const std::string resolved = json(scenarios_).dump(1) + "\n";
    resolved_scenarios_ = config_.cache_dir / "scenarios" / (detail::sha256_hex(resolved) + ".json");
    write_file_atomically(resolved_scenarios_, resolved);
    artifacts_[resolved_scenarios_.string()] = detail::sha256_hex(resolved);

    NvccOptions nvcc;
    nvcc.nvcc = config_.nvcc;
    nvcc.cache_dir = config_.cache_dir / "builds";
    nvcc.target = target_;
    builder_.emplace(std::move(nvcc));
  }

  /// @brief The library policy that applies: the problem origin's default, as overridden.
  const LibraryPolicy& library_policy() const noexcept { return library_policy_; }

  /// @brief Judges `candidate` on every scenario. See the class comment for what it throws.
  EvalReport evaluate(const Candidate& candidate) {
    Prepared p = prepare(candidate, true);
    if (!p.final) run_prepared(p);
    return finish(p);
  }

  /// @brief Everything `evaluate` does before the GPU: the integrity check, the build (cached,
  /// so a later `evaluate` of the same bytes reuses it) and the binary's banned-library scan.
  /// The report has no scenario results; when `built` is false or `error` is set it is already
  /// the report `evaluate` would return. An executor builds queued candidates on CPU workers
  /// with it while the GPUs run others.
  EvalReport build_only(const Candidate& candidate) {
    // A suite problem builds the candidate with its adapter only: the runner and the baseline
    // are built when something is to run.
    Prepared p = prepare(candidate, !suite_);
    return finish(p);
  }

 private:
  using clock = std::chrono::steady_clock;
  /// An evaluation up to the runner: the report so far and the built candidate.
  struct Prepared {
    EvalReport report;
    clock::time_point began;
    std::filesystem::path binary;  ///< the candidate's shared object, when built
    bool final = true;             ///< nothing left to run: `report` is the answer
  };

  EvalReport finish(Prepared& p) const {
    p.report.timings.total_s = std::chrono::duration<double>(clock::now() - p.began).count();
    return std::move(p.report);
  }

  void describe_report(EvalReport& report, const Candidate& candidate) const {
    report.problem = suite_ ? suite_->description.name : problem_.name;
    report.scenario_set = scenarios_.name;
    report.candidate = candidate;
    report.arch = target_.base_sm();
    report.expected = scenarios_.ids();
    report.library_policy = library_policy_.describe();
    if (library_link_)
      for (const auto& note : library_link_->notes) report.library_policy += "; " + note;
  }

  /// The link flags of the allowed libraries, found once (the toolkit's folders, then the system's).
  const LibraryLink& library_link() {
    if (!library_link_)  // the toolkit's root is looked for only when a linked library is allowed
      library_link_ = library_policy_.allows(LibraryFamily::cublas) || library_policy_.allows(LibraryFamily::cudnn)
                          ? library_link_flags(library_policy_, builder_->toolkit_root())
                          : LibraryLink{};
    return *library_link_;
  }

  /// Moves the findings of an allowed family from `report.banned` to `report.allowed_libraries`.
  void file_allowed_findings(EvalReport& report) const {
    for (auto& f : take_allowed_findings(report.banned, library_policy_)) report.allowed_libraries.push_back(std::move(f));
  }

  /// A suite problem's translation unit for `source` (the candidate's snapshot or the baseline):
  /// the adapter generated from the description, which includes `source` at its end.
  /// Content-addressed in the cache.
  std::filesystem::path adapter_for(const std::filesystem::path& source) {
    const std::string text = suite::adapter_source(suite_->description, source.string());
    const auto file = config_.cache_dir / "adapters" / (detail::sha256_hex(text) + ".cu");
    write_file_atomically(file, text);
    return file;
  }

  Prepared prepare(const Candidate& candidate, bool with_harness) {
    namespace fs = std::filesystem;
    Prepared p;
    p.began = clock::now();
    EvalReport& report = p.report;
    describe_report(report, candidate);

    // 1. The judge's own files first: an edited harness must never produce a verdict.
    std::vector<std::string> tampered = verify_integrity(manifest_);
    for (const auto& [path, digest] : artifacts_) {
      std::string now;
      try {
        now = detail::sha256_file(path);
      } catch (const std::exception&) {
        now = "unreadable";
      }
      if (now != digest) tampered.push_back("built harness file " + path + " changed after it was built");
    }
    if (!tampered.empty()) {
      report.error = "integrity check failed: " + detail::join_sentences(tampered, 10) +
                     " (restore the files or start a new campaign)";
      report.judge_modified = std::move(tampered);
      report.fault = EvalFault::configuration;  // no verdict on the candidate: the person's to fix
      return p;
    }

    // 2. The candidate: read once (its entry and the headers of its folder that it includes),
    // snapshot by content, build the snapshot (so an edit during the evaluation cannot split what
    // was hashed from what was compiled). A campaign hands over its own snapshot and hash: the
    // files are read from there, and not hashed again.
    CandidateFiles files;
    try {
      files = read_candidate_files(candidate.judged_file());
    } catch (const std::exception& e) {
      report.build_log = std::string("cannot read the candidate: ") + e.what();
      return p;
    }
    report.candidate.content_hash = candidate.has_snapshot() ? candidate.content_hash : files.hash();
    report.identical_to_baseline = same_content(files, baseline_files_);
    const fs::path original = fs::absolute(candidate.source).lexically_normal();
    if (original.extension() != ".cu") files.files.front().first = "candidate.cu";
    fs::path snapshot;
    try {
      // Content-addressed, so an existing snapshot is reused, unless it no longer holds its bytes.
      snapshot = write_candidate_files(files, config_.cache_dir / "candidates" / report.candidate.content_hash);
      const auto build_began = clock::now();
      if (auto harness_error = with_harness ? ensure_harness_built() : std::string(); !harness_error.empty()) {
        report.error = harness_error;
        report.fault = EvalFault::harness;  // the judge's own runner or baseline did not build
        report.timings.build_s = std::chrono::duration<double>(clock::now() - build_began).count();
        return p;
      }
      BuildRequest request;
      request.kind = BuildKind::shared_object;
      request.sources = {suite_ ? adapter_for(snapshot) : snapshot};
      // The problem's folder first, so its headers win over same-named files of the candidate's;
      // then the snapshot's own folder (the candidate's headers as judged); the candidate's
      // folder last, for a header the include scan cannot see (a computed include).
      request.include_dirs = {problem_.folder, snapshot.parent_path(), original.parent_path()};
      request.hashed_inputs = {problem_.args_header_path()};
      request.flags = config_.nvcc_flags;
      request.link_flags = library_link().flags;
      request.output_name = "candidate.so";
      request.timeout = config_.candidate_build_timeout;
      BuildResult built = builder_->build(request);
      report.timings.build_s = std::chrono::duration<double>(clock::now() - build_began).count();
      report.timings.build_cached = built.cached;
      report.built = built.ok;
      report.build_log = built.log;
      detail::replace_all(report.build_log, snapshot.string(), original.string());
      if (!built.ok) {
        if (suite_)
          report.build_log = "the candidate is compiled after the adapter " + request.sources.front().string() +
                             ", which declares the entry point as `socratic problem header " + suite_->path.string() +
                             "` prints it:\n" + report.build_log;
        if (built.timed_out) report.build_log = "candidate build timed out\n" + report.build_log;
        return p;
      }
      // The symbol problem.json names is the one the runner calls (its build is told it): a library
      // that does not export it is a build that failed, said now, before any GPU is asked for.
      if (auto why = missing_entry_point(built.output, "the candidate")) {
        report.built = false;
        report.build_log = *why + (report.build_log.empty() ? "" : "\n" + report.build_log);
        return p;
      }

      // 3. Banned libraries in the binary.
      if (config_.ban_scan.binary) {
        try {
          report.banned = config_.ban_scan.binary(built.output);
          for (auto& f : report.banned)
            if (f.file.empty()) f.file = built.output.string();
          file_allowed_findings(report);
        } catch (const std::exception& e) {
          report.error = std::string("banned-library scan failed: ") + e.what();
          return p;
        }
      }

      p.binary = built.output;
      p.final = false;
    } catch (const std::exception& e) {
      // The harness itself failed (nvcc missing, cache not writable): no verdict.
      report.error = std::string("evaluator failure: ") + e.what();
      report.fault = EvalFault::harness;
    }
    return p;
  }

  void run_prepared(Prepared& p) {
    EvalReport& report = p.report;
    try {
      // 4. The runner, on every scenario.
      RunnerJob job;
      job.runner = runner_binary_;
      // A PyTorch baseline is the runner's word for it: the reference worker times it.
      job.baseline = config_.baseline_kind == BaselineKind::native_cuda
                         ? baseline_binary_
                         : std::filesystem::path(std::string(runner_baseline_word(config_.baseline_kind)));
      job.candidate = p.binary;
      job.scenarios = resolved_scenarios_;
      job.expected = report.expected;
      job.problem = problem_.name;
      job.k = config_.k;
      job.overrides = config_.runner;
      job.limits = config_.runner_limits;
      job.working_dir = config_.cache_dir;
      RunnerOutcome outcome = run_runner(job, config_.on_progress);
      // A runner that never said hello never reached the GPU (no driver, no device, not
      // startable): nothing was judged, so no scenario gets a result; `error` says why.
      if (outcome.hello) {
        report.scenarios = std::move(outcome.results);
      } else {
        outcome.problems.insert(outcome.problems.begin(), "the runner did not start on the GPU");
        report.fault = EvalFault::harness;  // the machine's or the judge's, never the candidate's
      }
      // The suite's own score beside the speedup, T_b being this evaluation's baseline.
      if (suite_) {
        const std::string_view word = runner_baseline_word(config_.baseline_kind);
        suite::apply_sol_scores(report, suite_->description, word.empty() ? "native_cuda" : std::string(word));
      }
      report.timings.check_s = outcome.check_s;
      report.timings.timing_s = outcome.timing_s;
      std::vector<std::string> problems = std::move(outcome.problems);
      if (outcome.hello) {
        report.gpu = outcome.hello->device;
        if (!outcome.hello->arch.empty()) report.arch = outcome.hello->arch;
        check_plausibility(report, *outcome.hello, problems);
      }

      // 5. Libraries the runner process actually mapped (a name built at run time shows only here).
      if (config_.ban_scan.mapped && !outcome.mapped_libraries.empty()) {
        try {
          for (auto f : scan_mapped(outcome.mapped_libraries)) {
            if (f.file.empty()) f.file = "process";
            report.banned.push_back(std::move(f));
          }
          file_allowed_findings(report);
        } catch (const std::exception& e) {
          problems.push_back(std::string("run-time library check failed: ") + e.what());
        }
      }
      if (!problems.empty()) report.error = detail::join_sentences(problems, 12);
    } catch (const std::exception& e) {
      // The harness itself failed (the runner could not be started, say): no verdict.
      report.error = std::string("evaluator failure: ") + e.what();
      report.fault = EvalFault::harness;
    }
  }

 public:
  const ProblemSpec& problem() const noexcept { return problem_; }
  /// @brief The suite problem judged, when the problem was given as a suite problem's path.
  const std::optional<SuiteProblem>& suite_problem() const noexcept { return suite_; }
  /// @brief The scenario set the runner reads (for a suite problem: the resolved workloads).
  const std::filesystem::path& resolved_scenarios() const noexcept { return resolved_scenarios_; }
  /// @brief The scenarios judged, with the problem's defaults filled in.
  const ScenarioSet& scenarios() const noexcept { return scenarios_; }
  const GpuTarget& target() const noexcept { return target_; }
  const IntegrityManifest& integrity_manifest() const noexcept { return manifest_; }
  const CudaEvaluatorConfig& config() const noexcept { return config_; }

 private:
  /// Builds (or finds) the runner and the baseline once; empty on success, else why not.
  std::string ensure_harness_built() {
    namespace fs = std::filesystem;
    const bool native_baseline = config_.baseline_kind == BaselineKind::native_cuda;
    if (!runner_binary_.empty() && (!baseline_binary_.empty() || !native_baseline)) return {};
    const fs::path harness = config_.data_dir / "kernels" / "harness";

    if (runner_binary_.empty()) {
      BuildRequest runner;
      runner.kind = BuildKind::executable;
      runner.sources = {harness / "runner.cu"};
      for (const auto& s : problem_.runner_sources) runner.sources.push_back(problem_.folder / s);
      runner.include_dirs = {harness, problem_.folder};
      for (const auto& d : config_.runner_include_dirs) runner.include_dirs.push_back(d);
      for (const auto& f : detail::files_under(harness.string())) runner.hashed_inputs.push_back(f);
      for (const auto& f : detail::files_under(problem_.folder.string())) runner.hashed_inputs.push_back(f);
      // The symbol the runner's workers look up: problem.json's entry_point, the one the agent is
      // told to export and the candidate's library is checked for (not a second copy in problem.cu).
      runner.flags = {"-DSOCRATIC_PROBLEM_ENTRY_POINT=\"" + problem_.entry_point + "\""};
      runner.link_flags = {"-ldl"};
      runner.output_name = "socratic-runner-" + problem_.name;
      runner.timeout = config_.harness_build_timeout;
      const BuildResult r = builder_->build(runner);
      if (!r.ok)
        return "harness build failed: the runner for \"" + problem_.name + "\" did not compile (" +
               r.command + "):\n" + detail::log_excerpt(r.log, 30);
      runner_binary_ = r.output;
      artifacts_[r.output.string()] = detail::sha256_file(r.output);
    }
    if (!native_baseline) return {};
    BuildRequest baseline;
    baseline.kind = BuildKind::shared_object;
    baseline.sources = {suite_ ? adapter_for(baseline_source_) : baseline_source_};
    baseline.include_dirs = {problem_.folder};
    if (suite_) baseline.include_dirs.push_back(baseline_source_.parent_path());
    baseline.hashed_inputs = {problem_.args_header_path()};
    baseline.flags = config_.baseline_nvcc_flags;
    baseline.link_flags = library_link().flags;
    baseline.output_name = "baseline.so";
    baseline.timeout = config_.harness_build_timeout;
    const BuildResult b = builder_->build(baseline);
    if (!b.ok)
      return "harness build failed: the baseline " + baseline_source_.string() + " did not compile:\n" +
             detail::log_excerpt(b.log, 30);
    if (auto why = missing_entry_point(b.output, "the baseline " + baseline_source_.string()))
      return "harness build failed: " + *why;
    baseline_binary_ = b.output;
    artifacts_[b.output.string()] = detail::sha256_file(b.output);
    return {};
  }

  /// Why the library `binary` (built from `who`) cannot be judged: it does not export the entry
  /// point problem.json names. nullopt when it does, or when it is no ELF object (a test's
  /// stand-in compiler), which nothing here can read.
  std::optional<std::string> missing_entry_point(const std::filesystem::path& binary, const std::string& who) const {
    const std::optional<bool> exported = elf_exports(binary, problem_.entry_point);
    if (!exported || *exported) return std::nullopt;
    return who + " does not export the entry point \"" + problem_.entry_point + "\" that " +
           problem_.problem_file.string() +
           " names (field entry_point), the symbol the runner calls: define it extern \"C\", not static, with the "
           "parameters declared in " + problem_.args_header_path().string();
  }

  /// The mapped-library check, remembered per file (path, size, modification time): the runner
  /// maps the same driver and system libraries on every evaluation, and reading a large one
  /// (libcuda) each time would cost seconds.
  std::vector<BannedFinding> scan_mapped(const std::vector<std::string>& mapped) {
    std::vector<BannedFinding> out;
    for (const auto& path : mapped) {
      std::error_code ec;
      std::string key = path;
      const auto size = std::filesystem::file_size(path, ec);
      const bool identified = !ec;
      const auto mtime = std::filesystem::last_write_time(path, ec);
      if (identified && !ec)
        key += "|" + std::to_string(size) + "|" + std::to_string(mtime.time_since_epoch().count());
      else
        key.clear();  // unreadable or vanished: judge it each time
      auto it = key.empty() ? mapped_scans_.end() : mapped_scans_.find(key);
      if (it == mapped_scans_.end()) {
        auto findings = config_.ban_scan.mapped({path});
        // An allowed library's own file: whatever it holds (cuBLASLt's CUTLASS kernels) is that
        // library's, and allowed with it.
        const auto family = library_family_of_file(std::filesystem::path(path).filename().string());
        if (family && library_policy_.allows(*family))
          for (auto& f : findings) f.library = std::string(to_string(*family));
        if (key.empty()) {
          out.insert(out.end(), findings.begin(), findings.end());
          continue;
        }
        it = mapped_scans_.emplace(key, std::move(findings)).first;
      }
      out.insert(out.end(), it->second.begin(), it->second.end());
    }
    return out;
  }

  /// Defence in depth: a time below the roofline floor or a throughput above the device's peak
  /// cannot be honest, whatever the runner concluded; such a speedup never counts.
  static void check_plausibility(EvalReport& report, const RunnerHello& hello,
                                 std::vector<std::string>& problems) {
    const roofline::Peaks peaks{hello.peak_tflops, hello.peak_gbps};
    for (auto& s : report.scenarios) {
      auto add_flag = [&](const char* flag) {
        if (!s.has_flag(flag)) s.flags.push_back(flag);
      };
      if (std::isnan(s.roofline_fraction))
        s.roofline_fraction = roofline::fraction(s.roofline_ms, s.candidate_ms);
      if (roofline::below_floor(s.candidate_ms, s.roofline_ms) && !s.has_flag("below_roofline")) {
        add_flag("below_roofline");
        problems.push_back("scenario \"" + s.id + "\": candidate time below the roofline floor was not flagged by the runner");
      }
      if (roofline::above_peak(s.tflops, peaks)) {
        add_flag("above_peak");
        problems.push_back("scenario \"" + s.id + "\": reported throughput above the device's peak");
      }
      if (s.has_flag("below_roofline") || s.has_flag("above_peak")) s.speedup = std::nan("");
    }
  }

  /// A suite problem: its description, the suite runner's problem, its workloads resolved.
  void load_suite(const std::filesystem::path& kernels) {
    namespace fs = std::filesystem;
    std::string python = config_.reference_python.string();
    if (python.empty()) {
      const char* env = std::getenv("SOCRATIC_REFERENCE_PYTHON");
      python = env && *env ? env : "python3";
    }
    config_.reference_python = find_on_path(python);
    suite_ = load_suite_problem(config_.problem, config_.data_dir, config_.reference_python);
    if (auto why = suite::not_judgeable_reason(suite_->description))
      throw input_error(suite_->path.string(), {}, "cannot be judged on the GPU: " + *why);
    // The suite runner's problem (kernels/suite/problem.json): not registered, and with no
    // baseline of its own (each suite problem brings one).
    const fs::path suite_file = kernels / "suite" / "problem.json";
    const json j = read_json_file(suite_file);
    try {
      problem_.name = required<std::string>(j, "name", "problem");
      problem_.entry_point = required<std::string>(j, "entry_point", "problem");
      problem_.args_header = required<std::string>(j, "args_header", "problem");
      problem_.runner_sources = required<std::vector<std::string>>(j, "runner_sources", "problem");
      problem_.kinds = optional_field<std::vector<std::string>>(j, "kinds", {}, "problem");
    } catch (const input_error& e) {
      throw input_error(suite_file.string(), e.where(), e.message());
    }
    problem_.problem_file = fs::absolute(suite_file).lexically_normal();
    problem_.folder = problem_.problem_file.parent_path();
    problem_.has_reference_implementation = true;
    problem_.description = suite_->description.description;
    std::vector<std::string> ids;
    if (!config_.scenarios.empty()) ids = load_scenario_set(config_.scenarios).ids();
    if (!config_.only_scenarios.empty()) {
      std::vector<std::string> kept;
      for (const auto& id : config_.only_scenarios)
        if (!ids.empty() && std::find(ids.begin(), ids.end(), id) == ids.end())
          throw input_error(config_.scenarios.string(), "scenario \"" + id + "\"", "not in the set (asked for by only_scenarios)");
      for (const auto& id : ids.empty() ? config_.only_scenarios : ids)
        if (std::find(config_.only_scenarios.begin(), config_.only_scenarios.end(), id) != config_.only_scenarios.end())
          kept.push_back(id);
      ids = std::move(kept);
    }
    const suite::ReferenceLocation reference{config_.reference_python.string(),
                                             (kernels / "harness" / "python" / "reference_worker.py").string(),
                                             suite_->definition.string()};
    scenarios_ = suite::resolved_scenario_set(suite_->description, reference, ids);
  }

  CudaEvaluatorConfig config_;
  std::optional<SuiteProblem> suite_;
  ProblemSpec problem_;
  ScenarioSet scenarios_;
  std::filesystem::path baseline_source_;
  CandidateFiles baseline_files_;  ///< a candidate with this content is the baseline itself
  GpuTarget target_;
  IntegrityManifest manifest_;
  std::filesystem::path resolved_scenarios_;
  std::map<std::string, std::string> artifacts_;  ///< built files we trust: path -> SHA-256
  std::map<std::string, std::vector<BannedFinding>> mapped_scans_;  ///< file identity -> findings
  std::optional<NvccBuilder> builder_;
  LibraryPolicy library_policy_;
  std::optional<LibraryLink> library_link_;
  std::filesystem::path runner_binary_, baseline_binary_;
};

static_assert(Evaluator<CudaEvaluator>, "CudaEvaluator must satisfy the Evaluator concept");

}  // namespace socratic
