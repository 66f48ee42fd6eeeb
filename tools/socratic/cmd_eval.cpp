// socratic eval: build, check and time one candidate kernel with the reference CudaEvaluator.
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "command.hpp"
#include "data_dir.hpp"
#include "eval_executor.hpp"
#include "gpu_check.hpp"
#include "problems.hpp"
#include "socratic/core/files.hpp"
#include "socratic/eval/cuda_evaluator.hpp"
#include "socratic/eval/default_ban_scan.hpp"
#include "socratic/eval/report_table.hpp"
#include "socratic/suite/solution_import.hpp"

namespace {

namespace fs = std::filesystem;
using namespace socratic;
using socratic::tool::usage_error;

/// The live line "scenario i/N id" on a terminal's stderr; nothing elsewhere.
struct ProgressLine {
  bool enabled = false;
  void show(const std::string& text) const {
    if (!enabled) return;
    std::fprintf(stderr, "\r\033[K%s", text.c_str());
    std::fflush(stderr);
  }
  void clear() const { show(""); }
};

/// What `socratic eval` is given.
struct EvalCommandOptions {
  std::vector<std::string> candidates;
  std::string problem, scenarios, baseline, arch, cache_dir, nvcc, manifest, output;
  std::string json_value;            ///< --json alone: empty (stdout); the old `--json FILE`: a file
  CLI::Option* json_option = nullptr;
  std::vector<std::string> nvcc_flags;
  std::string k, seed, watchdog, timeout;
  std::string allow_libraries, ban_libraries;
  bool compact = false, no_timing = false, no_scan = false, quiet = false, build_only = false;
  // Through an executor (docs/executor.md).
  std::string executor, run_dir, gpus, build_workers, lease_dir, cascade;
  std::string slurm_partition, slurm_account, slurm_qos, slurm_time, slurm_gpus, slurm_worker;
  std::vector<std::string> slurm_directives, slurm_setup, slurm_env;
};

/// What `--build-only` found: the build, the scan, and that nothing ran.
std::string format_build_only(const EvalReport& r, bool scanned) {
  std::string out = "candidate: " + r.candidate.source.string() + "\n";
  out += std::string("build: ") + (r.built ? "ok" : "FAILED") + (r.timings.build_cached ? " (cached)" : "") + "\n";
  if (!r.built && !r.build_log.empty()) out += r.build_log + (r.build_log.back() == '\n' ? "" : "\n");
  if (!r.error.empty()) out += "error: " + r.error + "\n";
  if (!r.library_policy.empty()) out += "libraries: " + r.library_policy + "\n";
  if (r.built) {
    if (!scanned)
      out += "banned libraries: not checked (--no-scan)\n";
    else if (r.banned.empty())
      out += "banned libraries: none found in the binary\n";
    for (const auto& b : r.banned) out += "BANNED: " + b.library + " (" + b.evidence + ")\n";
    for (const auto& a : r.allowed_libraries) out += "allowed: " + a.library + " (" + a.evidence + ")\n";
  }
  out += "nothing was run: --build-only builds and scans the candidate; no scenario was judged on a GPU\n";
  return out;
}

/// `--executor`: the parsed evaluator settings as a job template, the executor's from its flags.
int eval_through_executor(const EvalCommandOptions& o, const CudaEvaluatorConfig& config,
                          const std::optional<std::string>& json_out) {
  // The problem and the scenarios are checked here, before any job is made.
  tool::ExecutorEvalRequest request;
  request.job.scenarios = config.scenarios;
  if (tool::is_suite_problem(config.problem)) {
    // A suite problem's jobs name the workloads they judge in a selection set (ids only).
    std::vector<std::string> ids = config.only_scenarios;
    if (ids.empty()) ids = config.scenarios.empty() ? tool::suite_workload_ids(config.problem) : load_scenario_set(config.scenarios).ids();
    const fs::path cache = fs::absolute(config.cache_dir.empty() ? default_cache_dir() : config.cache_dir);
    request.job.scenarios = tool::suite_selection_file(config.problem, ids, cache / "selections");
    request.job.evaluator.cuda.reference_python = tool::reference_python().string();
  } else if (is_problem_path(config.problem)) {
    (void)load_scenarios_for(load_problem_spec(fs::path(config.problem) / "problem.json"), config.scenarios);
  } else {
    (void)load_scenarios_for(ProblemRegistry::load(config.data_dir / "kernels").get(config.problem), config.scenarios);
  }
  for (const auto& p : o.candidates) request.candidates.push_back(p);
  request.job.problem = config.problem;
  request.job.seed = config.runner.seed;
  request.job.purpose = config.runner.no_timing ? exec::JobPurpose::correctness : exec::JobPurpose::timing;
  exec::CudaEvaluatorSpec& spec = request.job.evaluator.cuda;
  spec.data_dir = config.data_dir;
  if (config.baseline)
    spec.baseline = pytorch_baseline_named(config.baseline->string()) ? *config.baseline : fs::absolute(*config.baseline);
  spec.arch = config.arch;
  spec.cache_dir = fs::absolute(config.cache_dir.empty() ? default_cache_dir() : config.cache_dir);
  spec.nvcc = config.nvcc.string();
  spec.nvcc_flags = config.nvcc_flags;
  spec.k = config.k;
  spec.watchdog_s = std::chrono::duration<double>(config.runner_limits.watchdog).count();
  spec.timeout_s = std::chrono::duration<double>(config.runner_limits.timeout).count();
  if (config.integrity_manifest) spec.manifest = fs::absolute(*config.integrity_manifest);
  spec.scan = !config.allow_unscanned;
  spec.libraries = config.libraries;

  tool::ExecutorSettings& x = request.executor;
  x.kind = tool::parse_executor_kind(o.executor);
  if (!x.kind) throw usage_error("--executor is local or slurm, not \"" + o.executor + "\"");
  // The local pool runs on this machine's GPUs: without one, say that, not what the driver says.
  if (x.kind == tool::ExecutorKind::local)
    if (const std::string missing = tool::missing_cuda_gpu(); !missing.empty())
      throw socratic::error("no GPU here for --executor local: " + missing +
                            ". To check that candidates compile and use no banned library without a GPU: "
                            "`socratic eval CANDIDATE --build-only --arch sm_90a ...`");
  if (!o.run_dir.empty()) x.run_dir = fs::absolute(o.run_dir);
  if (!o.gpus.empty()) x.gpus = exec::parse_gpu_list(o.gpus);
  if (!o.build_workers.empty())
    x.build_workers = static_cast<int>(tool::parse_whole_number("--build-workers", o.build_workers, 0));
  if (!o.lease_dir.empty()) x.lease_dir = fs::absolute(o.lease_dir);
  if (!o.cascade.empty()) {
    x.cascade.enabled = true;
    x.cascade.count = static_cast<std::size_t>(tool::parse_whole_number("--cascade", o.cascade, 1));
  }
  x.slurm.partition = o.slurm_partition;
  x.slurm.account = o.slurm_account;
  x.slurm.qos = o.slurm_qos;
  if (!o.slurm_time.empty()) x.slurm.time_limit = o.slurm_time;
  if (!o.slurm_gpus.empty()) x.slurm.gpus = o.slurm_gpus;
  x.slurm.directives = o.slurm_directives;
  x.slurm.setup = o.slurm_setup;
  x.slurm.environment = o.slurm_env;
  if (!o.slurm_worker.empty()) x.worker = o.slurm_worker;
  if (x.kind == tool::ExecutorKind::slurm && x.run_dir.empty())
    throw usage_error("--executor slurm needs --run-dir DIR, a folder every node sees");
  request.json_out = json_out;
  request.compact = o.compact;
  request.quiet = o.quiet;
  return tool::eval_with_executor(request);
}

/// A SOL-ExecBench solution given as the candidate (a .json file, or a folder with solution.json):
/// its sources written under the cache, and the one defining the entry point returned; the path
/// as it is when it is neither. Refused with the reason (solution_import.hpp) otherwise.
fs::path candidate_from_solution(const fs::path& given, const std::string& problem, const std::string& cache_dir) {
  const fs::path file = fs::is_directory(given) && fs::is_regular_file(given / "solution.json") ? given / "solution.json" : given;
  if (file.extension() != ".json" || !fs::is_regular_file(file)) return given;
  suite::ordered_json j;
  try {
    std::ifstream in(file);
    j = suite::ordered_json::parse(in);
  } catch (const suite::ordered_json::parse_error& e) {
    throw input_error(file.string(), {}, std::string("not valid JSON: ") + e.what());
  }
  if (!suite::is_sol_solution(j))
    throw input_error(file.string(), {},
                      "a .json candidate is a SOL-ExecBench solution (an object with \"spec\" and \"sources\"), and this is not one");
  if (!tool::is_suite_problem(problem) || (problem_path_format(problem) != ProblemPathFormat::sol_folder &&
                                           problem_path_format(problem) != ProblemPathFormat::trace_set_definition))
    throw input_error(file.string(), {},
                      "a SOL-ExecBench solution is judged against a SOL-ExecBench / FlashInfer-Bench problem: give "
                      "--problem PATH (the folder with definition.json, or a definition in a FlashInfer-Bench TraceSet)");
  const suite::ProblemDescription p = tool::load_suite(problem).description;
  const suite::ImportedSolution imported = suite::import_sol_solution(j, p, file.string());
  const fs::path cache = cache_dir.empty() ? default_cache_dir() : fs::path(cache_dir);
  const fs::path dir = fs::absolute(cache) / "solutions" / socratic::detail::sha256_hex(j.dump()).substr(0, 16);
  for (const auto& [path, content] : imported.files) write_file_atomically(dir / path, content);
  for (const auto& note : imported.notes) std::cerr << "socratic eval: " << file.string() << ": " << note << "\n";
  std::cerr << "socratic eval: " << file.string() << ": the SOL-ExecBench solution \"" << imported.name << "\" judged as "
            << imported.entry_file << " (written to " << dir.string() << ")\n";
  return dir / imported.entry_file;
}

int run_eval(const EvalCommandOptions& given) {
  EvalCommandOptions o = given;
  // A SOL-ExecBench solution is taken as the candidate it holds (or refused, saying why).
  for (auto& c : o.candidates) c = candidate_from_solution(c, tool::resolve_problem(o.problem), o.cache_dir).string();
  const bool through_executor = !o.executor.empty();
  if (o.candidates.empty()) throw usage_error("missing CANDIDATE.cu");
  if (o.candidates.size() != 1 && !through_executor)
    throw usage_error("expects one candidate file (several go through --executor local|slurm)");
  if (o.build_only && through_executor)
    throw usage_error("--build-only builds here and runs nothing: leave out --executor");
  const fs::path candidate_path = o.candidates.front();
  if (!fs::is_regular_file(candidate_path))
    throw socratic::error("candidate " + candidate_path.string() + " does not exist");

  const fs::path data = tool::data_dir();
  CudaEvaluatorConfig config;
  config.data_dir = data;
  config.problem = tool::resolve_problem(o.problem);
  const bool suite_problem = tool::is_suite_problem(config.problem);
  if (suite_problem) {
    // Optional: a scenario-set file whose ids are workload uuids, or the uuids, comma-separated.
    if (!o.scenarios.empty() && fs::is_regular_file(o.scenarios)) {
      config.scenarios = fs::absolute(o.scenarios).lexically_normal();
    } else {
      for (std::size_t at = 0; at <= o.scenarios.size() && !o.scenarios.empty();) {
        const std::size_t comma = std::min(o.scenarios.find(',', at), o.scenarios.size());
        if (comma > at) config.only_scenarios.push_back(o.scenarios.substr(at, comma - at));
        at = comma + 1;
      }
    }
  } else {
    if (o.scenarios.empty())
      throw usage_error("missing required option --scenarios (optional only for a suite problem's path)");
    config.scenarios = tool::resolve_scenario_set(o.scenarios);
  }
  if (!o.baseline.empty()) config.baseline = o.baseline;
  if (!o.cache_dir.empty()) config.cache_dir = o.cache_dir;
  config.arch = o.arch;
  if (!o.nvcc.empty()) config.nvcc = o.nvcc;
  config.nvcc_flags = o.nvcc_flags;
  if (!o.k.empty()) config.k = tool::parse_number("--k", o.k);
  if (!o.seed.empty()) config.runner.seed = tool::parse_seed("--seed", o.seed);
  config.runner.no_timing = o.no_timing;
  if (!o.watchdog.empty())
    config.runner_limits.watchdog =
        std::chrono::milliseconds(static_cast<long long>(tool::parse_number("--watchdog", o.watchdog) * 1000));
  if (!o.timeout.empty())
    config.runner_limits.timeout =
        std::chrono::milliseconds(static_cast<long long>(tool::parse_number("--timeout", o.timeout) * 1000));
  if (!o.manifest.empty()) config.integrity_manifest = fs::path(o.manifest);

  if (!o.allow_libraries.empty() || !o.ban_libraries.empty()) {
    std::string source;
    if (!o.allow_libraries.empty()) {
      config.libraries.allow = parse_library_family_list(o.allow_libraries, {}, "--allow-libraries");
      source = "--allow-libraries " + o.allow_libraries;
    }
    if (!o.ban_libraries.empty()) {
      config.libraries.ban = parse_library_family_list(o.ban_libraries, {}, "--ban-libraries");
      source += (source.empty() ? "" : " ") + std::string("--ban-libraries ") + o.ban_libraries;
    }
    config.libraries.source = source;
  }
  if (o.no_scan) {
    config.allow_unscanned = true;
    std::cerr << "socratic eval: warning: --no-scan: banned libraries are not checked\n";
  } else {
    config.ban_scan = default_ban_scan();
  }

  // -o FILE (or the old --json FILE): the JSON report to FILE; --json alone: to stdout, the table to stderr.
  const bool json_given = o.json_option->count() > 0;
  const bool json_stdout = json_given && (o.json_value.empty() || o.json_value == "-");
  const std::string json_file = !o.output.empty() ? o.output : json_given && !json_stdout ? o.json_value : "";

  if (through_executor)
    return eval_through_executor(o, config,
                                 json_stdout ? std::optional<std::string>("-")
                                 : json_file.empty() ? std::nullopt
                                                     : std::optional<std::string>(json_file));

  ProgressLine progress;
  progress.enabled = !o.quiet && ::isatty(STDERR_FILENO);
  config.on_progress = [&progress](const RunnerProgress& p) {
    progress.show("scenario " + std::to_string(p.position + 1) + "/" + std::to_string(p.total) + " " + p.id +
                  (p.finished ? (p.result && p.result->correct ? " ok" : " FAILED") : " ..."));
  };

  // The GPU, in milliseconds: without one the runner cannot start, and building it takes a minute.
  const std::string missing_gpu = tool::missing_cuda_gpu();
  if (o.build_only && o.arch.empty() && !missing_gpu.empty())
    throw usage_error("--build-only without a GPU here needs --arch (e.g. --arch sm_90a): there is no GPU to ask (" +
                      missing_gpu + ")");
  const bool scanned = !o.no_scan;
  CudaEvaluator evaluator(std::move(config));  // checks the problem, the scenarios and the target first
  if (!o.build_only && !missing_gpu.empty())
    throw socratic::error("no GPU to run the candidate on: " + missing_gpu +
                          ". The evaluator builds the harness (about a minute) only to run it on a GPU; run "
                          "`socratic eval` on a machine with one, or check that the candidate compiles and uses no "
                          "banned library with `socratic eval --build-only --arch sm_90a ...` (`socratic demo` "
                          "replays a campaign without a GPU)");
  progress.show("building " + candidate_path.filename().string() + " ...");
  Candidate candidate;
  candidate.source = candidate_path;
  candidate.label = candidate_path.filename().string();
  const EvalReport report = o.build_only ? evaluator.build_only(candidate) : evaluator.evaluate(candidate);
  progress.clear();

  if (o.build_only) {
    const std::string text = format_build_only(report, scanned);
    if (json_stdout) {
      std::cerr << text;
      std::cout << json(report).dump(2) << "\n";
    } else {
      std::cout << text;
    }
    if (!json_file.empty()) write_json_atomically(json_file, json(report));
    if (!report.error.empty()) return tool::exit_error;
    return report.built && report.banned.empty() ? tool::exit_ok : tool::exit_findings;
  }

  const std::string text = o.compact ? format_report_compact(report) : format_report_table(report);
  if (json_stdout) {
    std::cerr << text;
    std::cout << json(report).dump(2) << "\n";
  } else {
    std::cout << text;
  }
  if (!json_file.empty()) write_json_atomically(json_file, json(report));
  // 2: no verdict at all (the harness failed before judging any scenario); 1: judged, not accepted.
  if (!report.error.empty() && report.scenarios.empty()) return tool::exit_error;
  if (report.all_correct() && report.banned.empty()) return tool::exit_ok;
  return tool::exit_findings;
}

tool::command_run eval_setup(CLI::App& app) {
  auto o = std::make_shared<EvalCommandOptions>();
  app.footer(
      "Builds CANDIDATE.cu, checks it against the baseline and the fp32 reference on every scenario,\n"
      "times it against the baseline, scans the binary for banned libraries, and prints a table.\n"
      "The data folder (kernels/, scenarios/) is $SOCRATIC_DATA_DIR or the tool's source tree.\n"
      "--problem PATH judges a problem where it lies (docs/problems.md): a SOL-ExecBench / FlashInfer-Bench\n"
      "folder or a KernelBench file, its workloads the scenarios, its reference run by the reference worker\n"
      "($SOCRATIC_REFERENCE_PYTHON, else python3), the candidate defining `socratic problem header PATH`.\n"
      "--build-only needs no GPU (give --arch without one): it builds the candidate (and the harness)\n"
      "and scans the binary, runs nothing, and says so.\n"
      "Exit: 0 every scenario correct and nothing banned (--build-only: built and nothing banned),\n"
      "1 otherwise, 2 on an error.\n");
  app.add_option("CANDIDATE", o->candidates, "the candidate source (.cu), or a SOL-ExecBench solution (solution.json, or a folder holding one: its C entry point is judged, docs/problems.md); several only with --executor")
      ->type_name("");
  app.add_option("-p,--problem", o->problem,
                 "a problem of kernels/problems.json, or a path (with a `/`, or a .py file): a SOL-ExecBench / "
                 "FlashInfer-Bench folder, a KernelBench file, a folder with problem.json")
      ->type_name("NAME|PATH")
      ->required();
  app.add_option("-s,--scenarios", o->scenarios,
                 "scenario-set file, or a name under the data folder's scenarios/; for a suite problem optional "
                 "(default every workload): workload uuids, comma-separated, or a set of them")
      ->type_name("SET");
  app.add_option("--baseline", o->baseline,
                 "baseline source instead of the problem's own; a suite problem: a native CUDA source with the "
                 "typed entry point (default baseline.cu in its folder), else its PyTorch reference, eager "
                 "(pytorch_eager, the default) or under torch.compile (pytorch_compile)")
      ->type_name("FILE");
  tool::add_output_option(app, o->output, "write the report as JSON to PATH");
  // --json is a flag (the report on stdout); the old `--json FILE` still writes FILE.
  o->json_option = app.add_option("--json", o->json_value, "the report as JSON on stdout (the table goes to stderr)")
                       ->expected(0, 1)
                       ->type_name("");
  app.add_flag("--compact", o->compact, "print the compact summary instead of the table");
  app.add_option("--arch", o->arch, "GPU target (sm_90a, sm_100a, 9.0, ...); default: from nvidia-smi")
      ->type_name("ARCH");
  app.add_option("--cache-dir", o->cache_dir, "build cache (default $SOCRATIC_CACHE_DIR or ~/.cache/socratic)")
      ->type_name("DIR");
  app.add_option("--nvcc", o->nvcc, "the CUDA compiler (default nvcc on PATH)")->type_name("PATH");
  tool::add_repeatable(app, "--nvcc-flag", o->nvcc_flags, "extra nvcc flag for the candidate (repeatable)")
      ->type_name("FLAG");
  app.add_option("--k", o->k, "tolerance factor of the correctness rule (default 2)")->type_name("K");
  app.add_option("--seed", o->seed, "a reproducible run from this input seed (default: a fresh secret key per run)")->type_name("N");
  app.add_flag("--no-timing", o->no_timing, "check correctness only");
  app.add_option("--watchdog", o->watchdog, "kill a silent runner after this long (default 60)")->type_name("SECONDS");
  app.add_option("--timeout", o->timeout, "overall runner time limit (default 1800)")->type_name("SECONDS");
  app.add_option("--manifest", o->manifest, "integrity manifest recorded at campaign start (default: record now)")
      ->type_name("FILE");
  app.add_option("--allow-libraries", o->allow_libraries,
                 "allow these vendor libraries besides the problem's default (cublas, cudnn, cutlass, all; "
                 "default: a suite problem allows all three, a Socratic problem none)")
      ->type_name("LIST");
  app.add_option("--ban-libraries", o->ban_libraries,
                 "ban these vendor libraries (cublas, cudnn, cutlass, all); applied after --allow-libraries")
      ->type_name("LIST");
  app.add_flag("--no-scan", o->no_scan, "skip the banned-library scan (not recommended)");
  app.add_flag("--build-only", o->build_only,
               "build and scan the candidate, run nothing: no GPU needed (give --arch without one)");
  app.add_flag("-q,--quiet", o->quiet, "no progress line");

  const std::string through = "Through an executor (docs/executor.md)";
  app.add_option("--executor", o->executor, "local (a pool of this machine's GPUs) or slurm")
      ->type_name("KIND")
      ->group(through);
  app.add_option("--run-dir", o->run_dir,
                 "the executor's folder, where jobs resume (local: default a fresh one; slurm: required, "
                 "a folder every node sees)")
      ->type_name("DIR")
      ->group(through);
  app.add_option("--gpus", o->gpus, "local: the GPUs to use, e.g. 0,2,3 (default: every visible GPU)")
      ->type_name("LIST")
      ->group(through);
  app.add_option("--build-workers", o->build_workers, "local: CPU workers building queued candidates ahead (2)")
      ->type_name("N")
      ->group(through);
  app.add_option("--lease-dir", o->lease_dir, "local: GPU lease files shared with other pools of this machine")
      ->type_name("DIR")
      ->group(through);
  app.add_option("--cascade", o->cascade, "correctness on N scenarios first; the timed run only if they pass")
      ->type_name("N")
      ->group(through);
  app.add_option("--slurm-partition", o->slurm_partition, "slurm: the partition")->type_name("P")->group(through);
  app.add_option("--slurm-account", o->slurm_account, "slurm: the account")->type_name("A")->group(through);
  app.add_option("--slurm-qos", o->slurm_qos, "slurm: the QOS")->type_name("Q")->group(through);
  app.add_option("--slurm-time", o->slurm_time, "slurm: the time limit (default 01:00:00)")
      ->type_name("T")
      ->group(through);
  app.add_option("--slurm-gpus", o->slurm_gpus, "slurm: --gres=gpu:G (default 1)")->type_name("G")->group(through);
  tool::add_repeatable(app, "--slurm-directive", o->slurm_directives, "slurm: an extra #SBATCH option (repeatable)")
      ->type_name("OPT")
      ->group(through);
  tool::add_repeatable(app, "--slurm-setup", o->slurm_setup, "slurm: a line run before the job (repeatable)")
      ->type_name("LINE")
      ->group(through);
  tool::add_repeatable(app, "--slurm-env", o->slurm_env, "slurm: NAME=VALUE for the job (repeatable)")
      ->type_name("NAME=VALUE")
      ->group(through);
  app.add_option("--slurm-worker", o->slurm_worker, "slurm: the socratic binary as the nodes see it")
      ->type_name("PATH")
      ->group(through);
  return [o] { return run_eval(*o); };
}

const tool::command_registration eval_registration(
    "eval", "build, check and time a candidate kernel against the baseline", "Judging a kernel", eval_setup);

}  // namespace
