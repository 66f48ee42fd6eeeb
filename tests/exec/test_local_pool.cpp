// The local GPU pool with fake GPUs (the CPU problem judged by the command evaluator does not
// touch them; CUDA_VISIBLE_DEVICES tells which one each evaluation was given): leases, builds
// ahead, crash and hang isolation, cancellation, kill -9 and restart, the cascade.
#include <sys/wait.h>

#include <cmath>

#include "catch.hpp"
#include "child_modes.hpp"
#include "exec_fixtures.hpp"
#include "socratic/exec/detail/file_lock.hpp"
#include "socratic/exec/executor_evaluator.hpp"
#include "socratic/exec/local_pool.hpp"

using namespace socratic;
using namespace socratic::exec;
using namespace exec_fixtures;
namespace xd = socratic::exec::detail;

namespace {

LocalPoolConfig pool_config(const fs::path& dir, std::vector<std::string> gpus, int build_workers = 0) {
  LocalPoolConfig c;
  c.run_dir = dir / "run";
  c.gpus = std::move(gpus);
  c.worker = {socratic_exe().string(), "exec-job"};
  c.build_workers = build_workers;
  c.lease_retry = std::chrono::milliseconds(50);
  return c;
}

void wait_all(LocalGpuPool& pool, const std::vector<std::string>& ids) {
  for (const auto& id : ids) {
    const JobStatus s = pool.wait(id, std::chrono::minutes(3));
    INFO(id << ": " << s.detail);
    REQUIRE(is_terminal(s.state));
  }
}

bool leases_free(const fs::path& lease_dir, const std::vector<std::string>& gpus) {
  for (const auto& g : gpus)
    if (!xd::lock_is_free(GpuLease::lock_path(lease_dir, g))) return false;
  return true;
}

/// No two spans on one GPU overlap.
void check_one_per_gpu(const std::vector<Span>& runs) {
  for (std::size_t i = 0; i < runs.size(); ++i)
    for (std::size_t j = i + 1; j < runs.size(); ++j)
      if (runs[i].cvd == runs[j].cvd) {
        INFO(runs[i].label << " and " << runs[j].label << " on GPU " << runs[i].cvd);
        CHECK((runs[i].end <= runs[j].start || runs[j].end <= runs[i].start));
      }
}

}  // namespace

TEST_CASE("the pool runs one evaluation per GPU, each process seeing its own GPU", "[exec][pool]") {
  const fs::path dir = fresh_dir("pool_leases");
  const fs::path log = dir / "eval.log";
  const std::vector<std::string> gpus = {"0", "1"};
  std::vector<std::string> ids;
  std::map<std::string, bool> expect_correct;
  {
    LocalGpuPool pool(pool_config(dir, gpus, 2));
    for (int i = 0; i < 4; ++i) {
      const std::string label = "c" + std::to_string(i);
      const bool wrong = i == 3;
      const std::string id = pool.submit(cpu_job(candidate(dir, label, {"sleep=0.5"}, wrong), log));
      ids.push_back(id);
      expect_correct[id] = !wrong;
    }
    // While they run, some GPU's lease is held.
    CHECK(eventually([&] { return !leases_free(pool.config().lease_dir, gpus); }));
    wait_all(pool, ids);
    for (const auto& id : ids) {
      const JobStatus s = pool.poll(id);
      INFO(id << ": " << s.detail);
      CHECK(s.state == JobState::completed);
      CHECK(s.attempt == 1);
      const auto report = pool.collect(id);
      REQUIRE(report);
      INFO("report error: " << report->error << "; evaluator log:\n" << read_text(log));
      CHECK(report->all_correct() == expect_correct[id]);
      CHECK(report->expected.size() == 3);
      // The report names the submitted file, not the pool's snapshot of it.
      CHECK(report->candidate.source.parent_path() == dir / "candidates");
      const auto result = pool.result(id);
      REQUIRE(result);
      CHECK((result->gpus == "0" || result->gpus == "1"));
    }
    // Submitting the same job again finds it: no second evaluation.
    CHECK(pool.submit(cpu_job(dir / "candidates" / "c0.cpp", log)) == ids[0]);
  }
  const auto runs = spans(read_log(log));
  REQUIRE(runs.size() == 4);
  check_one_per_gpu(runs);
  std::set<std::string> used;
  for (const auto& r : runs) used.insert(r.cvd);
  CHECK(used == std::set<std::string>{"0", "1"});
  CHECK(leases_free(dir / "run" / "leases", gpus));
}

TEST_CASE("builds run ahead on CPU workers while the GPU runs, and a broken build never takes a GPU", "[exec][pool]") {
  const fs::path dir = fresh_dir("pool_builds");
  const fs::path log = dir / "eval.log";
  std::vector<std::string> ids;
  std::string broken_id;
  std::vector<JobTimeline> timeline;
  {
    LocalGpuPool pool(pool_config(dir, {"0"}, 2));
    for (int i = 0; i < 3; ++i)
      ids.push_back(
          pool.submit(cpu_job(candidate(dir, "b" + std::to_string(i), {"build-sleep=0.6", "sleep=0.8", "canned"}), log)));
    write_text(dir / "candidates" / "broken.cpp", "// FAKE-LABEL: broken\nthis is not C++\n");
    broken_id = pool.submit(cpu_job(dir / "candidates" / "broken.cpp", log));
    ids.push_back(broken_id);
    wait_all(pool, ids);
    timeline = pool.timeline();
    const auto broken = pool.collect(broken_id);
    REQUIRE(broken);
    CHECK_FALSE(broken->built);
    CHECK_THAT(broken->build_log, Catch::Contains("this is not C++") || Catch::Contains("error"));
    CHECK(broken->expected.size() == 3);
    // The build failed before any GPU: the compiler's words name the submitted file.
    CHECK_THAT(broken->build_log, Catch::Contains((dir / "candidates" / "broken.cpp").string().c_str()));
  }
  const auto log_lines = read_log(log);
  CHECK(count_lines(log_lines, "START", "broken") == 0);
  CHECK(count_lines(log_lines, "BUILD_START", "broken") == 1);
  // Every build ran on a CPU worker without a GPU.
  for (const auto& l : log_lines)
    if (l.kind == "BUILD_START") CHECK(l.fields.at("cvd").empty());
  bool overlapped = false;
  for (const auto& a : timeline) {
    if (a.id == broken_id) {
      CHECK(std::isnan(a.run_began));
      continue;
    }
    INFO(a.id);
    REQUIRE_FALSE(std::isnan(a.build_ended));
    REQUIRE_FALSE(std::isnan(a.run_began));
    CHECK(a.build_ended <= a.run_began);
    for (const auto& b : timeline)
      if (b.id != a.id && !std::isnan(b.run_began) && a.build_began < b.run_ended && b.run_began < a.build_ended)
        overlapped = true;
  }
  CHECK(overlapped);  // some build ran while another candidate was on the GPU
}

TEST_CASE("a GPU leased by another process is left alone until it is free", "[exec][pool]") {
  const fs::path dir = fresh_dir("pool_external");
  const fs::path log = dir / "eval.log";
  LocalPoolConfig config = pool_config(dir, {"0", "1"});
  config.lease_dir = dir / "shared-leases";  // as several pools of one machine would share
  xd::FileLock other = xd::FileLock::try_lock(GpuLease::lock_path(config.lease_dir, "0"), xd::LockMode::exclusive);
  REQUIRE(other);
  std::vector<std::string> ids;
  {
    LocalGpuPool pool(config);
    for (int i = 0; i < 3; ++i)
      ids.push_back(pool.submit(cpu_job(candidate(dir, "e" + std::to_string(i), {"canned"}), log, false)));
    wait_all(pool, ids);
    for (const auto& id : ids) CHECK(pool.poll(id).where == "gpu 1");
    other.release();
    const std::string late = pool.submit(cpu_job(candidate(dir, "late", {"sleep=1", "canned"}), log, false));
    const std::string late2 = pool.submit(cpu_job(candidate(dir, "late2", {"sleep=1", "canned"}), log, false));
    wait_all(pool, {late, late2});
    CHECK(pool.poll(late).where != pool.poll(late2).where);  // both GPUs once GPU 0 is free
  }
  for (const auto& s : spans(read_log(log)))
    if (s.label[0] == 'e') CHECK(s.cvd == "1");
}

TEST_CASE("a crashed or hung evaluation ends alone and frees its GPU", "[exec][pool]") {
  const fs::path dir = fresh_dir("pool_faults");
  const fs::path log = dir / "eval.log";
  LocalPoolConfig config = pool_config(dir, {"0", "1"});
  config.grace = std::chrono::seconds(1);
  // The hung job's own limits are short, so the pool gives up on it after 3 + 1 + 1 s; the
  // others keep the template's.
  JobTemplate short_limits = cpu_template(log, false);
  short_limits.evaluator.command.timeout_s = 3;
  short_limits.evaluator.command.build_timeout_s = 1;
  std::string crash, hang, escape, good1, good2;
  const fs::path escaped_pid = dir / "escaped.pid";
  {
    LocalGpuPool pool(config);
    crash = pool.submit(cpu_job(candidate(dir, "crash", {"crash"}), log, false));
    Candidate hung;
    hung.source = candidate(dir, "hang", {"hang"});
    hang = pool.submit(make_eval_job(hung, short_limits));
    escape = pool.submit(cpu_job(candidate(dir, "escape", {"escape=" + escaped_pid.string(), "canned"}), log, false));
    good1 = pool.submit(cpu_job(candidate(dir, "good1", {"canned"}), log, false));
    good2 = pool.submit(cpu_job(candidate(dir, "good2", {"canned"}), log, false));
    wait_all(pool, {crash, hang, escape, good1, good2});

    const JobStatus c = pool.poll(crash);
    CHECK(c.state == JobState::failed);
    CHECK_THAT(c.detail, Catch::Contains("signal 11 (SIGSEGV)"));
    const auto cr = pool.collect(crash);
    REQUIRE(cr);
    CHECK_FALSE(cr->all_correct());
    CHECK(cr->expected.size() == 3);
    CHECK_THAT(cr->error, Catch::Contains("failed"));

    const JobStatus h = pool.poll(hang);
    INFO(h.detail);
    CHECK(h.state == JobState::timed_out);
    CHECK_THAT(h.detail, Catch::Contains("ran past the pool's limit of 5 s"));
    CHECK_THAT(pool.collect(hang)->error, Catch::Contains("timed_out"));

    // The others ran to their verdicts, on the GPUs the faulty ones had.
    CHECK(pool.poll(escape).state == JobState::completed);
    CHECK(pool.collect(escape)->all_correct());
    CHECK(pool.poll(good1).state == JobState::completed);
    CHECK(pool.collect(good1)->all_correct());
    CHECK(pool.poll(good2).state == JobState::completed);
    CHECK(pool.collect(good2)->all_correct());
  }
  // What an evaluation left behind in a session of its own (out of reach of process groups and
  // of the parent-death signal) was ended with it.
  const pid_t escaped = std::atoi(read_text(escaped_pid).c_str());
  REQUIRE(escaped > 0);
  CHECK(eventually([&] { return !process_alive(escaped); }, std::chrono::seconds(5)));
  // The hung evaluation's processes are gone too.
  for (const auto& line : read_log(log))
    if (line.label == "hang") CHECK(eventually([&] { return !process_alive(std::atoi(line.fields.at("pid").c_str())); }));
  CHECK(leases_free(dir / "run" / "leases", {"0", "1"}));
  const auto runs = spans(read_log(log));
  check_one_per_gpu(runs);
}

TEST_CASE("correctness runs may share a GPU where allowed; a timing run never shares", "[exec][pool]") {
  const fs::path dir = fresh_dir("pool_shared");
  const fs::path log = dir / "eval.log";
  LocalPoolConfig config = pool_config(dir, {"0"});
  config.correctness_runs_per_gpu = 2;
  JobTemplate correctness = cpu_template(log, false);
  correctness.purpose = JobPurpose::correctness;
  auto job = [&](const std::string& label, const JobTemplate& t) {
    Candidate c;
    c.source = candidate(dir, label, {"sleep=1.5", "canned"});
    return make_eval_job(c, t);
  };
  std::vector<std::string> ids;
  {
    LocalGpuPool pool(config);
    ids.push_back(pool.submit(job("check1", correctness)));
    ids.push_back(pool.submit(job("check2", correctness)));
    ids.push_back(pool.submit(job("timed", cpu_template(log, false))));
    ids.push_back(pool.submit(job("check3", correctness)));
    wait_all(pool, ids);
    for (const auto& id : ids) CHECK(pool.poll(id).state == JobState::completed);
  }
  const auto runs = spans(read_log(log));
  REQUIRE(runs.size() == 4);
  auto span_of = [&](const std::string& label) {
    for (const auto& r : runs)
      if (r.label == label) return r;
    FAIL("no run of " << label);
    return Span{};
  };
  const Span a = span_of("check1"), b = span_of("check2"), t = span_of("timed");
  CHECK((a.start < b.end && b.start < a.end));  // the two correctness runs shared GPU 0
  for (const auto& r : runs)
    if (r.label != "timed") {
      INFO(r.label);
      CHECK((r.end <= t.start || t.end <= r.start));  // nothing beside the timing run
    }
}

TEST_CASE("a job is cancelled while queued or while it runs", "[exec][pool]") {
  const fs::path dir = fresh_dir("pool_cancel");
  const fs::path log = dir / "eval.log";
  LocalGpuPool pool(pool_config(dir, {"0"}));
  const std::string running = pool.submit(cpu_job(candidate(dir, "long", {"sleep=60", "canned"}), log, false));
  const std::string queued = pool.submit(cpu_job(candidate(dir, "next", {"canned"}), log, false));
  REQUIRE(eventually([&] { return pool.poll(running).state == JobState::running; }));
  REQUIRE(eventually([&] { return count_lines(read_log(log), "START", "long") == 1; }));
  CHECK(pool.cancel(queued));
  CHECK(pool.poll(queued).state == JobState::cancelled);
  const auto began = std::chrono::steady_clock::now();
  CHECK(pool.cancel(running));
  const JobStatus s = pool.wait(running, std::chrono::seconds(20));
  CHECK(s.state == JobState::cancelled);
  CHECK(std::chrono::steady_clock::now() - began < std::chrono::seconds(10));
  CHECK_FALSE(pool.cancel(running));  // already over
  const auto report = pool.collect(running);
  REQUIRE(report);
  CHECK_THAT(report->error, Catch::Contains("cancelled"));
  const auto log_lines = read_log(log);
  CHECK(count_lines(log_lines, "START", "next") == 0);
  CHECK(count_lines(log_lines, "END", "long") == 0);
}

TEST_CASE("after kill -9 of the pool no lease is held, and a restart runs the unfinished jobs once more", "[exec][pool]") {
  const fs::path dir = fresh_dir("pool_restart");
  const fs::path log = dir / "eval.log";
  const fs::path run = dir / "run";
  // Two quick jobs finish; two slow ones are on the GPUs when the pool is killed (they sleep on
  // their first run only, so the second run is quick).
  std::vector<fs::path> cands = {candidate(dir, "quick1", {"canned"}), candidate(dir, "quick2", {"canned"}),
                                 candidate(dir, "slow1", {"sleep-once=60:" + (dir / "slow1.flag").string(), "canned"}),
                                 candidate(dir, "slow2", {"sleep-once=60:" + (dir / "slow2.flag").string(), "canned"})};
  std::vector<std::string> driver_args = {run.string(), log.string()};
  for (const auto& c : cands) driver_args.push_back(c.string());
  std::vector<std::string> argv = socratic::test::child_command("pool-driver", driver_args);
  const pid_t driver = ::fork();
  if (driver == 0) {
    std::vector<char*> args;
    for (auto& a : argv) args.push_back(a.data());
    args.push_back(nullptr);
    ::execv(args[0], args.data());
    ::_exit(127);
  }
  std::vector<EvalJob> jobs;
  for (const auto& c : cands) jobs.push_back(cpu_job(c, log, false));
  // Wait until the quick ones are done and both slow ones are running.
  const bool ready = eventually([&] {
    const auto l = read_log(log);
    return fs::exists(result_path(run / "results", jobs[0].id)) && fs::exists(result_path(run / "results", jobs[1].id)) &&
           count_lines(l, "START", "slow1") == 1 && count_lines(l, "START", "slow2") == 1 &&
           fs::exists(dir / "slow1.flag") && fs::exists(dir / "slow2.flag");  // asleep: their second run is quick
  }, std::chrono::seconds(60));
  ::kill(driver, SIGKILL);
  int status = 0;
  ::waitpid(driver, &status, 0);
  REQUIRE(ready);
  REQUIRE(WIFSIGNALED(status));

  // The kernel dropped the leases with the pool; the evaluations died with it.
  CHECK(leases_free(run / "leases", {"0", "1"}));
  CHECK(xd::lock_is_free(run / "journal.lock"));
  for (const auto& line : read_log(log))
    if (line.kind == "START" && line.label.rfind("slow", 0) == 0) {
      const pid_t pid = std::atoi(line.fields.at("pid").c_str());
      CHECK(eventually([&] { return !process_alive(pid); }, std::chrono::seconds(5)));
    }

  LocalPoolConfig config = pool_config(dir, {"0", "1"});
  LocalGpuPool pool(config);
  std::vector<std::string> ids;
  for (const auto& j : jobs) ids.push_back(pool.submit(j));  // the same jobs: found, not added
  CHECK(pool.jobs().size() == 4);
  wait_all(pool, ids);
  for (std::size_t i = 0; i < ids.size(); ++i) {
    CHECK(ids[i] == jobs[i].id);
    const JobStatus s = pool.poll(ids[i]);
    INFO(ids[i] << ": " << s.detail);
    CHECK(s.state == JobState::completed);
    CHECK(s.attempt == (i < 2 ? 1 : 2));
    CHECK(pool.collect(ids[i])->all_correct());
  }
  const auto l = read_log(log);
  CHECK(count_lines(l, "START", "quick1") == 1);  // finished before the kill: not run again
  CHECK(count_lines(l, "START", "quick2") == 1);
  CHECK(count_lines(l, "START", "slow1") == 2);  // in flight: queued again, run again
  CHECK(count_lines(l, "START", "slow2") == 2);
  // One result and one `finished` event per job.
  std::map<std::string, int> finished;
  std::istringstream journal(read_text(run / "journal.jsonl"));
  std::string line;
  while (std::getline(journal, line)) {
    const json e = json::parse(line);
    if (e.at("event") == "finished") ++finished[e.at("id").get<std::string>()];
  }
  for (const auto& id : ids) CHECK(finished[id] == 1);
  std::size_t result_files = 0;
  for (const auto& f : fs::directory_iterator(run / "results")) result_files += f.path().extension() == ".json";
  CHECK(result_files == 4);
}

TEST_CASE("the cascade judges correctness on a few scenarios first, and times the rest only when they pass", "[exec][pool]") {
  const fs::path dir = fresh_dir("pool_cascade");
  const fs::path log = dir / "eval.log";
  LocalGpuPool pool(pool_config(dir, {"0"}));
  CascadeOptions cascade;
  cascade.enabled = true;
  cascade.count = 2;
  ExecutorEvaluator<LocalGpuPool> evaluator(pool, cpu_template(log, false), cascade);
  CHECK(evaluator.first_stage_scenarios() == std::vector<std::string>{"r2048_c64", "r128_c4097"});

  Candidate bad;
  bad.source = candidate(dir, "tailbug", {}, true);
  const EvalReport b = evaluator.evaluate(bad);
  CHECK(evaluator.last_cascade_stopped());
  CHECK(b.expected == std::vector<std::string>{"r2048_c64", "r512_c1000", "r128_c4097"});
  REQUIRE(b.scenarios.size() == 3);
  CHECK_FALSE(b.all_correct());
  CHECK_THAT(b.find("r512_c1000")->reason, Catch::Contains("not run: the correctness stage failed on r128_c4097"));
  CHECK(b.candidate.source == bad.source);

  Candidate good;
  good.source = candidate(dir, "fixed");
  const EvalReport g = evaluator.evaluate(good);
  CHECK_FALSE(evaluator.last_cascade_stopped());
  CHECK(g.all_correct());
  CHECK(g.scenarios.size() == 3);
  // Evaluating the same bytes again is a new measurement, not the old report.
  const EvalReport g2 = evaluator.evaluate(good);
  CHECK(g2.all_correct());

  const auto l = read_log(log);
  CHECK(count_lines(l, "START", "tailbug") == 1);  // the correctness stage only
  CHECK(count_lines(l, "START", "fixed") == 4);    // (stage 1 + full) twice
}

namespace {

// Child mode `pool-driver RUN LOG CANDIDATE...` for the kill -9 test above: a pool process that
// runs the candidates on fake GPUs 0 and 1 and waits (the test kills it).
int pool_driver_child(const std::vector<std::string>& args) {
  using namespace socratic::exec;
  if (args.size() < 3) {
    std::fprintf(stderr, "usage: --child pool-driver RUN LOG CANDIDATE...\n");
    return 2;
  }
  LocalPoolConfig c;
  c.run_dir = args[0];
  c.gpus = {"0", "1"};
  c.worker = {exec_fixtures::socratic_exe().string(), "exec-job"};
  c.build_workers = 0;
  LocalGpuPool pool(c);
  std::vector<std::string> ids;
  for (std::size_t i = 2; i < args.size(); ++i) ids.push_back(pool.submit(exec_fixtures::cpu_job(args[i], args[1], false)));
  for (const auto& id : ids) pool.wait(id, std::chrono::hours(1));
  std::printf("DONE\n");
  return 0;
}

const bool pool_driver_registered = socratic::test::register_child_mode("pool-driver", pool_driver_child);

}  // namespace

TEST_CASE("a worker asked to end by its scheduler publishes no verdict, even when its evaluation died first",
          "[exec][pool]") {
  const fs::path dir = fresh_dir("pool_cancelled");
  const fs::path log = dir / "eval.log";
  LocalPoolConfig config = pool_config(dir, {"0"});
  config.environment.push_back("SLURM_JOB_ID=4242");  // as on a cluster's node
  LocalGpuPool pool(config);
  // The evaluation signals the worker and itself, as scancel signals every process of the job:
  // it dies of SIGTERM, which the judge reads as a crash of the candidate's doing.
  const std::string id = pool.submit(cpu_job(candidate(dir, "cancelled", {"cancelled"}), log, false));
  const JobStatus s = pool.wait(id, std::chrono::minutes(2));
  INFO(s.detail);
  CHECK(s.state != JobState::completed);  // no verdict on the candidate was published
  CHECK_THAT(s.detail, Catch::Contains("code 143"));
  // An evaluation that dies of SIGTERM with no signal to the worker: after the worker's wait, the
  // candidate's (the judge reads it as a crash).
  const std::string crash = pool.submit(cpu_job(candidate(dir, "crashed", {"term-self"}), log, false));
  const JobStatus c = pool.wait(crash, std::chrono::minutes(2));
  INFO(c.detail);
  CHECK(c.state == JobState::completed);
  const auto report = pool.collect(crash);
  REQUIRE(report);
  CHECK_FALSE(report->all_correct());
  CHECK_THAT(report->error, Catch::Contains("killed by signal 15"));
}
