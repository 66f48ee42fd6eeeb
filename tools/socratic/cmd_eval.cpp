// socratic eval: build, check and time one candidate kernel with the reference CudaEvaluator.
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "args.hpp"
#include "command.hpp"
#include "data_dir.hpp"
#include "socratic/core/files.hpp"
#include "socratic/eval/cuda_evaluator.hpp"
#include "socratic/eval/default_ban_scan.hpp"
#include "socratic/eval/report_table.hpp"

namespace {

namespace fs = std::filesystem;
using namespace socratic;
using socratic::tool::usage_error;

constexpr const char* usage_text =
    R"(Usage: socratic eval CANDIDATE.cu --problem NAME --scenarios FILE [options]

Builds CANDIDATE.cu, checks it against the baseline and the fp32 reference on every scenario,
times it against the baseline, scans the binary for banned libraries, and prints a table.
Exit code: 0 every scenario correct and nothing banned, 1 otherwise, 2 on error.

Options:
  --problem NAME        a problem of kernels/problems.json (required)
  --scenarios FILE      scenario-set file, or a name under the data folder's scenarios/ (required)
  --baseline FILE       baseline source instead of the problem's own
  --json OUT            write the report as JSON to OUT (`-` for stdout; the table then goes to stderr)
  --compact             print the compact summary instead of the table
  --arch ARCH           GPU target (sm_90a, sm_100a, 9.0, ...); default: from nvidia-smi
  --cache-dir DIR       build cache (default $SOCRATIC_CACHE_DIR or ~/.cache/socratic)
  --nvcc PATH           the CUDA compiler (default nvcc on PATH)
  --nvcc-flag FLAG      extra nvcc flag for the candidate (repeatable)
  --k K                 tolerance factor of the correctness rule (default 2)
  --seed N              input seed
  --no-timing           check correctness only
  --watchdog SECONDS    kill a silent runner after this long (default 60)
  --timeout SECONDS     overall runner time limit (default 1800)
  --manifest FILE       integrity manifest recorded at campaign start (default: record now)
  --no-scan             skip the banned-library scan (not recommended)
  --quiet               no progress line
The data folder (kernels/, scenarios/) is $SOCRATIC_DATA_DIR or the tool's source tree.
)";

double parse_number(const std::string& option, const std::string& text) {
  try {
    std::size_t used = 0;
    const double v = std::stod(text, &used);
    if (used == text.size()) return v;
  } catch (const std::exception&) {
  }
  throw usage_error(option + " needs a number, got \"" + text + "\"");
}

std::uint64_t parse_seed(const std::string& text) {
  try {
    std::size_t used = 0;
    const unsigned long long v = std::stoull(text, &used);
    if (used == text.size() && text.front() != '-') return v;
  } catch (const std::exception&) {
  }
  throw usage_error("--seed needs an unsigned integer, got \"" + text + "\"");
}

fs::path resolve_scenarios(const std::string& given, const fs::path& data) {
  if (fs::exists(given)) return given;
  for (const fs::path& candidate : {data / "scenarios" / given, data / "scenarios" / (given + ".json")})
    if (fs::exists(candidate)) return candidate;
  throw socratic::error("scenario set \"" + given + "\" not found (as a path or under " +
                        (data / "scenarios").string() + ")");
}

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

int run_eval(const std::vector<std::string>& args) {
  if (std::find(args.begin(), args.end(), "--help") != args.end() ||
      std::find(args.begin(), args.end(), "-h") != args.end()) {
    std::cout << usage_text;
    return tool::exit_ok;
  }
  const tool::parsed_args a(args, {"--compact", "--no-timing", "--no-scan", "--quiet"},
                            {"--problem", "--scenarios", "--baseline", "--json", "--arch", "--cache-dir",
                             "--nvcc", "--nvcc-flag", "--k", "--seed", "--watchdog", "--timeout",
                             "--manifest"});
  if (a.positionals().size() != 1)
    throw usage_error(a.positionals().empty() ? "missing CANDIDATE.cu" : "expects one candidate file");
  const fs::path candidate_path = a.positionals().front();
  if (!fs::is_regular_file(candidate_path))
    throw socratic::error("candidate " + candidate_path.string() + " does not exist");

  const fs::path data = tool::data_dir();
  CudaEvaluatorConfig config;
  config.data_dir = data;
  config.problem = a.required("--problem");
  config.scenarios = resolve_scenarios(a.required("--scenarios"), data);
  if (auto b = a.value("--baseline")) config.baseline = *b;
  if (auto d = a.value("--cache-dir")) config.cache_dir = *d;
  config.arch = a.value_or("--arch", "");
  if (auto n = a.value("--nvcc")) config.nvcc = *n;
  config.nvcc_flags = a.values("--nvcc-flag");
  if (auto k = a.value("--k")) config.k = parse_number("--k", *k);
  if (auto s = a.value("--seed")) config.runner.seed = parse_seed(*s);
  config.runner.no_timing = a.flag("--no-timing");
  if (auto w = a.value("--watchdog"))
    config.runner_limits.watchdog = std::chrono::milliseconds(static_cast<long long>(parse_number("--watchdog", *w) * 1000));
  if (auto t = a.value("--timeout"))
    config.runner_limits.timeout = std::chrono::milliseconds(static_cast<long long>(parse_number("--timeout", *t) * 1000));
  if (auto m = a.value("--manifest")) config.integrity_manifest = fs::path(*m);

  if (a.flag("--no-scan")) {
    config.allow_unscanned = true;
    std::cerr << "socratic eval: warning: --no-scan: banned libraries are not checked\n";
  } else {
    config.ban_scan = default_ban_scan();
  }

  ProgressLine progress;
  progress.enabled = !a.flag("--quiet") && ::isatty(STDERR_FILENO);
  config.on_progress = [&progress](const RunnerProgress& p) {
    progress.show("scenario " + std::to_string(p.position + 1) + "/" + std::to_string(p.total) + " " + p.id +
                  (p.finished ? (p.result && p.result->correct ? " ok" : " FAILED") : " ..."));
  };

  CudaEvaluator evaluator(std::move(config));
  progress.show("building " + candidate_path.filename().string() + " ...");
  Candidate candidate;
  candidate.source = candidate_path;
  candidate.label = candidate_path.filename().string();
  const EvalReport report = evaluator.evaluate(candidate);
  progress.clear();

  const std::string text = a.flag("--compact") ? format_report_compact(report) : format_report_table(report);
  const auto json_out = a.value("--json");
  if (json_out && *json_out == "-") {
    std::cerr << text;
    std::cout << json(report).dump(2) << "\n";
  } else {
    std::cout << text;
    if (json_out) write_json_atomically(*json_out, json(report));
  }
  // 2: no verdict at all (the harness failed before judging any scenario); 1: judged, not accepted.
  if (!report.error.empty() && report.scenarios.empty()) return tool::exit_error;
  if (report.all_correct() && report.banned.empty()) return tool::exit_ok;
  return tool::exit_findings;
}

const tool::command_registration eval_registration(
    "eval", "build, check and time a candidate kernel against the baseline", run_eval);

}  // namespace
