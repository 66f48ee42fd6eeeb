// Benchmarks of the Slurm executor on the single-node test cluster (hidden: run with
// `exec_tests "[bench-slurm]"`; figures in docs/benchmarks.md):
// - the overhead per job: submit to report, minus the worker's own time, for jobs run one after
//   another (a trivial evaluator: it prints a stored report);
// - the poller's load: Slurm commands per second while N one-second jobs run, for several N.
#include <algorithm>
#include <cstdio>

#include "catch.hpp"
#include "exec_fixtures.hpp"
#include "slurm_fixture.hpp"
#include "socratic/exec/results.hpp"
#include "socratic/exec/slurm_executor.hpp"

using namespace socratic;
using namespace socratic::exec;
using namespace exec_fixtures;

namespace {

/// A template whose evaluator prints a stored report of the CPU problem's three scenarios
/// after `seconds` (0: at once).
JobTemplate canned_template(const fs::path& dir, double seconds) {
  EvalReport r;
  r.problem = "softmax_cpu";
  r.built = true;
  r.expected = {"r2048_c64", "r512_c1000", "r128_c4097"};
  for (const auto& id : r.expected) {
    ScenarioResult s;
    s.id = id;
    s.correct = true;
    r.scenarios.push_back(s);
  }
  const fs::path canned = dir / "canned.json";
  write_text(canned, json(r).dump());
  JobTemplate t;
  t.problem = "softmax_cpu";
  t.scenarios = cpu_problem() / "scenarios.json";
  t.evaluator.kind = socratic::exec::EvaluatorKind::command;
  char sleep[64];
  std::snprintf(sleep, sizeof sleep, "%g", seconds);
  t.evaluator.command.command = {"bash", "-c", std::string(seconds > 0 ? "sleep " : ": ") + sleep + "; cat " + canned.string()};
  return t;
}

SlurmConfig bench_config(const fs::path& shared) {
  SlurmConfig c;
  c.shared_dir = shared;
  c.worker = {socratic_exe().string(), "exec-job"};
  c.environment = {"SLURM_CONF=" + SlurmCluster::get().slurm_conf};
  c.time_limit = "10";
  return c;
}

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

}  // namespace

TEST_CASE("Slurm executor: overhead per job from submit to report", "[.][bench-slurm]") {
  const fs::path dir = SlurmCluster::get().dir / "bench-overhead";
  fs::create_directories(dir);
  for (int poll_ms : {500, 100}) {
    SlurmConfig c = bench_config(dir / ("shared-" + std::to_string(poll_ms)));
    c.poll_min = std::chrono::milliseconds(poll_ms);
    SlurmExecutor x(c);
    const JobTemplate t = canned_template(dir, 0);
    std::vector<double> total, worker, overhead, noticed;
    for (int i = 0; i < 10; ++i) {
      const fs::path cand = candidate(dir, "o" + std::to_string(poll_ms) + "_" + std::to_string(i));
      Candidate cd;
      cd.source = cand;
      const EvalJob job = make_eval_job(cd, t);
      const auto began = std::chrono::steady_clock::now();
      const std::string id = x.submit(job);
      const JobStatus s = x.wait(id, std::chrono::seconds(120));
      const double seconds = seconds_since(began);
      // From the worker's result on disk to the executor's report: the poller's share.
      const auto written = fs::last_write_time(result_path(c.shared_dir / "results", id));
      noticed.push_back(std::chrono::duration<double>(fs::file_time_type::clock::now() - written).count());
      REQUIRE(s.state == JobState::completed);
      total.push_back(seconds);
      worker.push_back(x.result(id)->seconds);
      overhead.push_back(seconds - worker.back());
    }
    auto median = [](std::vector<double> v) {
      std::sort(v.begin(), v.end());
      return (v[v.size() / 2] + v[(v.size() - 1) / 2]) / 2;
    };
    const SlurmStats st = x.stats();
    std::printf("poll_min %d ms, 10 jobs one after another: submit to report median %.3f s (min %.3f, max %.3f); "
                "worker's own time median %.3f s; overhead median %.3f s, of which result written to report "
                "noticed median %.3f s; Slurm calls %ld (sbatch %ld, squeue %ld)\n",
                poll_ms, median(total), *std::min_element(total.begin(), total.end()),
                *std::max_element(total.begin(), total.end()), median(worker), median(overhead), median(noticed),
                st.calls(), st.sbatch, st.squeue);
  }
}

TEST_CASE("Slurm executor: the poller's load for N live jobs", "[.][bench-slurm]") {
  const fs::path dir = SlurmCluster::get().dir / "bench-load";
  fs::create_directories(dir);
  for (int n : {1, 10, 50, 200}) {
    SlurmConfig c = bench_config(dir / ("shared-" + std::to_string(n)));
    c.gpus.clear();  // eight at once on the eight CPUs of the test node, not four on its GPUs
    SlurmExecutor x(c);
    const JobTemplate t = canned_template(dir, 1.0);
    std::vector<EvalJob> jobs;
    for (int i = 0; i < n; ++i) {
      Candidate cd;
      cd.source = candidate(dir, "l" + std::to_string(n) + "_" + std::to_string(i));
      jobs.push_back(make_eval_job(cd, t));
    }
    const auto began = std::chrono::steady_clock::now();
    const std::vector<std::string> ids = x.submit_batch(jobs);
    for (const auto& id : ids) REQUIRE(x.wait(id, std::chrono::minutes(10)).state == JobState::completed);
    const double wall = seconds_since(began);
    const SlurmStats st = x.stats();
    const long polls = st.squeue + st.scontrol + st.sacct;
    std::printf("N=%d one-second jobs (one array): all reports in %.1f s; poll rounds %ld; squeue %ld, scontrol %ld, "
                "sacct %ld: %.2f polling calls/s, %.3f per job; sbatch %ld\n",
                n, wall, st.poll_rounds, st.squeue, st.scontrol, st.sacct, polls / wall, double(polls) / n, st.sbatch);
  }
}
