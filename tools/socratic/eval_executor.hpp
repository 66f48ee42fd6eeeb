#pragma once
// `socratic eval --executor local|slurm CANDIDATE...`: each candidate becomes an evaluation job
// (docs/executor.md) of the executor named; the reports are printed when all are in, in the
// order given. Kept apart from cmd_eval.cpp's option parsing: this takes what was parsed.

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "command.hpp"
#include "executor_settings.hpp"
#include "socratic/core/candidate.hpp"
#include "socratic/core/json.hpp"
#include "socratic/core/files.hpp"
#include "socratic/eval/report_table.hpp"
#include "socratic/exec/make_job.hpp"

namespace socratic::tool {

/// What `eval` asks of an executor.
struct ExecutorEvalRequest {
  std::vector<std::filesystem::path> candidates;
  exec::JobTemplate job;        ///< problem, scenario file, evaluator spec, seed, purpose
  ExecutorSettings executor;
  std::optional<std::string> json_out;  ///< `-`: stdout
  bool compact = false;
  bool quiet = false;
};

/// Runs the request; returns the command's exit code (0 all accepted, 1 some not, 2 some judged
/// nothing at all).
inline int eval_with_executor(const ExecutorEvalRequest& request) {
  namespace fs = std::filesystem;
  using clock = std::chrono::steady_clock;
  const auto began = clock::now();
  // Without --run-dir, a fresh folder for this call: a later `eval` of the same file measures
  // again instead of finding this call's report. With one, jobs resume (docs/executor.md).
  fs::path temp_run;
  if (request.executor.kind == ExecutorKind::local && request.executor.run_dir.empty())
    temp_run = fs::temp_directory_path() / socratic::detail::unique_name("socratic-eval-run");
  struct remove_temp {
    fs::path dir;
    ~remove_temp() {
      std::error_code ec;
      if (!dir.empty()) fs::remove_all(dir, ec);
    }
  } cleanup{temp_run};

  std::vector<exec::EvalJob> jobs;
  for (const auto& path : request.candidates) {
    if (!fs::is_regular_file(path)) throw socratic::error("candidate " + path.string() + " does not exist");
    Candidate c;
    c.source = path;
    c.label = path.filename().string();
    jobs.push_back(exec::make_eval_job(c, request.job));
  }
  std::vector<EvalReport> reports(jobs.size());
  {
    AnyExecutor executor = make_executor(request.executor, temp_run);
    if (!request.quiet) std::cerr << "socratic eval: " << jobs.size() << " job(s) on " << executor.description << "\n";
    if (request.executor.cascade.enabled) {
      // Each candidate through the cascade, all at once: one thread per candidate waits on its job.
      std::vector<std::thread> waiters;
      for (std::size_t i = 0; i < jobs.size(); ++i)
        waiters.emplace_back([&, i] {
          exec::ExecutorEvaluator<AnyExecutor> ev(executor, request.job, request.executor.cascade);
          Candidate c;
          c.source = request.candidates[i];
          c.label = request.candidates[i].filename().string();
          reports[i] = ev.evaluate(c);
        });
      for (auto& t : waiters) t.join();
    } else {
      const std::vector<std::string> ids = executor.submit_batch(jobs);
      for (std::size_t i = 0; i < ids.size(); ++i) {
        const exec::JobStatus s = exec::wait_for(executor, ids[i]);
        reports[i] = executor.collect(ids[i]).value_or(exec::failure_report(jobs[i], s.state, s.detail));
        if (!request.quiet)
          std::fprintf(stderr, "socratic eval: [%zu/%zu] %s: %s%s%s\n", i + 1, ids.size(),
                       request.candidates[i].filename().c_str(), std::string(exec::to_string(s.state)).c_str(),
                       s.where.empty() ? "" : " on ", s.where.c_str());
      }
    }
  }
  if (!request.quiet)
    std::fprintf(stderr, "socratic eval: %zu evaluation(s) in %.1f s\n", jobs.size(),
                 std::chrono::duration<double>(clock::now() - began).count());

  std::string text;
  for (const auto& r : reports) text += request.compact ? format_report_compact(r) : format_report_table(r);
  const json doc = reports.size() == 1 ? json(reports.front()) : json(reports);
  if (request.json_out && *request.json_out == "-") {
    std::cerr << text;
    std::cout << doc.dump(2) << "\n";
  } else {
    std::cout << text;
    if (request.json_out) {
      std::ofstream out(*request.json_out, std::ios::binary | std::ios::trunc);
      out << doc.dump(2) << "\n";
      if (!out) throw socratic::error("cannot write " + *request.json_out);
    }
  }
  int code = exit_ok;
  for (const auto& r : reports) {
    if (!r.error.empty() && r.scenarios.empty()) return exit_error;
    if (!(r.all_correct() && r.banned.empty())) code = exit_findings;
  }
  return code;
}

}  // namespace socratic::tool
