// The Slurm executor on a real single-node Slurm (slurmctld and slurmd on localhost, four fake
// GPUs as character devices), started by tests/exec/slurm_cluster.sh. Run as `exec_tests
// [slurm]`: main() starts the cluster first and reports the program skipped (77) with the
// reason when it cannot run here.
#include <memory>

#include "catch.hpp"
#include "exec_fixtures.hpp"
#include "slurm_fixture.hpp"
#include "socratic/exec/journal.hpp"
#include "socratic/exec/slurm_executor.hpp"

using namespace socratic;
using namespace socratic::exec;
using namespace exec_fixtures;

namespace {

SlurmConfig slurm_config(const fs::path& shared) {
  const SlurmCluster& cluster = SlurmCluster::get();
  SlurmConfig c;
  c.shared_dir = shared;
  c.worker = {socratic_exe().string(), "exec-job"};
  c.environment = {"SLURM_CONF=" + cluster.slurm_conf};
  c.time_limit = "10";
  c.poll_min = std::chrono::milliseconds(200);
  c.poll_max = std::chrono::seconds(2);
  c.result_grace = std::chrono::seconds(5);
  return c;
}

JobStatus wait_done(SlurmExecutor& x, const std::string& id, std::chrono::seconds limit = std::chrono::seconds(120)) {
  const JobStatus s = x.wait(id, limit);
  INFO(id << ": " << s.detail);
  REQUIRE(is_terminal(s.state));
  return s;
}

}  // namespace

TEST_CASE("Slurm runs jobs and arrays to their reports, each job on its own GPU", "[slurm]") {
  const fs::path dir = SlurmCluster::get().dir / "complete";
  fs::create_directories(dir);
  const fs::path log = dir / "eval.log";
  std::vector<std::string> batch;
  std::string single, survivor;
  {
    SlurmExecutor x(slurm_config(dir / "shared"));
    batch = x.submit_batch({cpu_job(candidate(dir, "a0", {"sleep=2"}), log, false),
                            cpu_job(candidate(dir, "a1", {"sleep=2"}, true), log, false),
                            cpu_job(candidate(dir, "a2", {"sleep=2"}), log, false)});
    single = x.submit(cpu_job(candidate(dir, "s0", {"sleep=2"}), log, false));
    for (const auto& id : batch) wait_done(x, id);
    wait_done(x, single);

    const std::string array = x.slurm_id(batch[0]).substr(0, x.slurm_id(batch[0]).find('_'));
    for (std::size_t i = 0; i < batch.size(); ++i) {
      INFO(batch[i]);
      CHECK(x.poll(batch[i]).state == JobState::completed);
      CHECK(x.slurm_id(batch[i]) == array + "_" + std::to_string(i));
      const auto result = x.result(batch[i]);
      REQUIRE(result);
      CHECK(result->slurm_job_id == x.slurm_id(batch[i]));
      CHECK_FALSE(result->gpus.empty());  // Slurm's binding, not ours
      const auto report = x.collect(batch[i]);
      REQUIRE(report);
      CHECK(report->all_correct() == (i != 1));
      CHECK(report->expected.size() == 3);
    }
    CHECK(x.poll(single).state == JobState::completed);
    CHECK(x.slurm_id(single).find('_') == std::string::npos);
    CHECK(x.collect(single)->all_correct());
    const SlurmStats stats = x.stats();
    CHECK(stats.sbatch == 2);  // one array, one job
    CHECK(stats.squeue <= stats.poll_rounds + 1);  // one squeue a round, whatever the number of jobs

    // Submitted, then the executor goes away: a new one on the same folder finds the job again.
    survivor = x.submit(cpu_job(candidate(dir, "survivor", {"sleep=2"}), log, false));
  }
  {
    SlurmExecutor again(slurm_config(dir / "shared"));
    CHECK(again.jobs().size() == 5);
    const JobStatus s = wait_done(again, survivor);
    CHECK(s.state == JobState::completed);
    CHECK(again.collect(survivor)->all_correct());
    CHECK(again.collect(single)->all_correct());  // and the finished ones are still there
  }
  // Jobs that ran at the same time ran on different GPUs.
  const auto runs = spans(read_log(log));
  REQUIRE(runs.size() == 5);
  std::size_t overlaps = 0;
  for (std::size_t i = 0; i < runs.size(); ++i)
    for (std::size_t j = i + 1; j < runs.size(); ++j)
      if (runs[i].start < runs[j].end && runs[j].start < runs[i].end) {
        ++overlaps;
        INFO(runs[i].label << " (GPU " << runs[i].cvd << ") and " << runs[j].label << " (GPU " << runs[j].cvd << ")");
        CHECK(runs[i].cvd != runs[j].cvd);
      }
  CHECK(overlaps >= 1);
}

TEST_CASE("Slurm: a failing job, a cancelled job, a refused job and a vanished job each get their report", "[slurm]") {
  const fs::path dir = SlurmCluster::get().dir / "faults";
  fs::create_directories(dir);
  const fs::path log = dir / "eval.log";

  SECTION("a job whose worker fails is FAILED, with its exit code and the end of its log") {
    SlurmConfig c = slurm_config(dir / "shared-fail");
    c.worker = {"/bin/bash", (fixtures() / "fail_worker.sh").string()};
    SlurmExecutor x(c);
    const std::string id = x.submit(cpu_job(candidate(dir, "f0", {"canned"}), log, false));
    const JobStatus s = wait_done(x, id);
    CHECK(s.state == JobState::failed);
    CHECK_THAT(s.detail, Catch::Contains("(FAILED") && Catch::Contains("exit code 3") &&
                             Catch::Contains("simulated failure of the worker"));
    const auto report = x.collect(id);
    REQUIRE(report);
    CHECK_FALSE(report->all_correct());
    CHECK(report->expected.size() == 3);
    CHECK_THAT(report->error, Catch::Contains("failed"));
  }
  SECTION("a running job is cancelled") {
    SlurmExecutor x(slurm_config(dir / "shared-cancel"));
    // sleep-cut: an evaluator that ends when the cancellation's signal reaches its child first.
    const std::string id = x.submit(cpu_job(candidate(dir, "c0", {"sleep-cut=120", "canned"}), log, false));
    REQUIRE(eventually([&] { return count_lines(read_log(log), "START", "c0") == 1; }, std::chrono::seconds(60)));
    CHECK(x.cancel(id));
    const JobStatus s = wait_done(x, id, std::chrono::seconds(60));
    CHECK(s.state == JobState::cancelled);
    CHECK_THAT(s.detail, Catch::Contains("CANCELLED") && Catch::Contains("cancelled by this executor"));
    CHECK_FALSE(x.cancel(id));
    CHECK(count_lines(read_log(log), "END", "c0") == 0);
  }
  SECTION("a job whose worker writes a result while it is being cancelled ends cancelled") {
    // scancel signals the job's processes in turn: a worker (or one whose evaluator's child was
    // signalled first) may write a result for the cut evaluation before it goes.
    SlurmConfig c = slurm_config(dir / "shared-cancel-race");
    c.worker = {"/bin/bash", (fixtures() / "publish_on_term_worker.sh").string()};
    SlurmExecutor x(c);
    const std::string id = x.submit(cpu_job(candidate(dir, "r0", {"canned"}), log, false));
    REQUIRE(eventually([&] { return x.poll(id).state == JobState::running; }, std::chrono::seconds(60)));
    std::this_thread::sleep_for(std::chrono::seconds(1));  // the worker's trap is set
    CHECK(x.cancel(id));
    const JobStatus s = wait_done(x, id, std::chrono::seconds(60));
    CHECK(s.state == JobState::cancelled);
    CHECK_THAT(s.detail, Catch::Contains("cancelled by this executor") && Catch::Contains("is not taken"));
    // The result file says so too (a restarted executor reads it back).
    const auto report = x.collect(id);
    REQUIRE(report);
    CHECK_THAT(report->error, Catch::Contains("cancelled"));
  }
  SECTION("a job the cluster refuses fails with sbatch's words") {
    SlurmConfig c = slurm_config(dir / "shared-refused");
    c.partition = "no-such-partition";
    SlurmExecutor x(c);
    const std::string id = x.submit(cpu_job(candidate(dir, "r0", {"canned"}), log, false));
    const JobStatus s = x.poll(id);
    CHECK(s.state == JobState::failed);
    CHECK_THAT(s.detail, Catch::Contains("the cluster refused the job") && Catch::Contains("partition"));
  }
  SECTION("a job Slurm does not know and that left no result has vanished") {
    const fs::path shared = dir / "shared-vanished";
    EvalJob job = cpu_job(candidate(dir, "v0"), log, false);
    {
      JobJournal journal(shared);  // as an executor that submitted it and died would have left it
      snapshot_candidate(job, shared / "snapshots");
      journal.submitted(job);
      journal.backend(job.id, json{{"name", "socratic-" + job.id}, {"index", -1}});
      journal.backend(job.id, json{{"slurm_id", "999999"}});
    }
    SlurmExecutor x(slurm_config(shared));
    const JobStatus s = wait_done(x, job.id, std::chrono::seconds(60));
    CHECK(s.state == JobState::vanished);
    CHECK_THAT(s.detail, Catch::Contains("no longer knows job 999999"));
    CHECK(x.collect(job.id)->expected.size() == 3);
  }
}

namespace {

/// The job past its time limit, submitted when the program starts (main() calls
/// prestart_slurm_jobs): Slurm ends it a minute or more later, while the other tests run.
struct TimeLimitRun {
  fs::path dir, log;
  std::unique_ptr<SlurmExecutor> x;
  std::string slow;
};

TimeLimitRun& time_limit_run() {
  static TimeLimitRun run = [] {
    TimeLimitRun r;
    r.dir = SlurmCluster::get().dir / "timelimit";
    fs::create_directories(r.dir);
    r.log = r.dir / "eval.log";
    SlurmConfig c = slurm_config(r.dir / "shared");
    c.time_limit = "1";  // minutes: Slurm's smallest
    r.x = std::make_unique<SlurmExecutor>(c);
    r.slow = r.x->submit(cpu_job(candidate(r.dir, "slow", {"sleep=600", "canned"}), r.log, false));
    return r;
  }();
  return run;
}

}  // namespace

void prestart_slurm_jobs() { (void)time_limit_run(); }

// Last, so that the slow job has run while the others did.
TEST_CASE("Slurm: a job past its time limit times out, and the poller outlives a restart of slurmctld", "[slurm]") {
  const SlurmCluster& cluster = SlurmCluster::get();
  TimeLimitRun& run = time_limit_run();
  SlurmExecutor& x = *run.x;
  const std::string slow = run.slow;
  const std::string quick = x.submit(cpu_job(candidate(run.dir, "quick", {"sleep=5", "canned"}), run.log, false));
  REQUIRE(eventually([&] { return x.poll(slow).state == JobState::running && x.poll(quick).state == JobState::running; },
                     std::chrono::seconds(60)));

  // The controller goes away while both run; the poller keeps asking, backing off.
  cluster.script("stop-controller");
  const long before = x.stats().unreachable;
  REQUIRE(eventually([&] { return x.stats().unreachable > before; }, std::chrono::seconds(30)));
  CHECK_THAT(x.poll(quick).detail, Catch::Contains("does not answer"));
  CHECK_FALSE(is_terminal(x.poll(quick).state));
  cluster.script("start-controller");

  const JobStatus q = wait_done(x, quick, std::chrono::seconds(120));
  CHECK(q.state == JobState::completed);
  CHECK(x.collect(quick)->all_correct());

  const JobStatus s = wait_done(x, slow, std::chrono::seconds(180));
  CHECK(s.state == JobState::timed_out);
  CHECK_THAT(s.detail, Catch::Contains("TIMEOUT") && Catch::Contains("time limit was 1"));
  const auto report = x.collect(slow);
  REQUIRE(report);
  CHECK_THAT(report->error, Catch::Contains("timed_out"));
}
