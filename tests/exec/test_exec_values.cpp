// The executor's values without processes to wait on: the job document and its key, snapshots,
// the journal (replay, torn lines, one owner), flock leases across a kill -9, GPU discovery,
// Slurm's output and states, the cascade's report, results (first writer wins), the sweep, the
// executors' shared bookkeeping (JobBook).
#include <sys/wait.h>

#include "catch.hpp"
#include "exec_fixtures.hpp"
#include "socratic/exec/detail/file_lock.hpp"
#include "socratic/exec/detail/process_sweep.hpp"
#include "socratic/exec/detail/slurm_script.hpp"
#include "socratic/exec/executor_evaluator.hpp"
#include "socratic/exec/gpu_inventory.hpp"
#include "socratic/exec/gpu_lease.hpp"
#include "socratic/exec/job_book.hpp"
#include "socratic/exec/journal.hpp"
#include "socratic/exec/results.hpp"
#include "socratic/exec/slurm_states.hpp"

using namespace socratic;
using namespace socratic::exec;
using namespace exec_fixtures;
namespace xd = socratic::exec::detail;

namespace {

EvalJob sample_job(const fs::path& dir) {
  const fs::path cand = candidate(dir, "sample");
  return cpu_job(cand, dir / "log.txt");
}

/// A child process that takes `path`'s lock and then waits to be killed.
pid_t lock_holder(const fs::path& path, xd::LockMode mode) {
  int ready[2];
  REQUIRE(::pipe(ready) == 0);
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(ready[0]);
    xd::FileLock lock = xd::FileLock::try_lock(path, mode);
    const char c = lock ? '1' : '0';
    (void)!::write(ready[1], &c, 1);
    while (true) ::pause();
  }
  ::close(ready[1]);
  char c = 0;
  REQUIRE(::read(ready[0], &c, 1) == 1);
  ::close(ready[0]);
  REQUIRE(c == '1');
  return pid;
}

void kill_and_reap(pid_t pid) {
  ::kill(pid, SIGKILL);
  int status = 0;
  ::waitpid(pid, &status, 0);
}

}  // namespace

TEST_CASE("a job round-trips through JSON and its key is its content", "[exec]") {
  const fs::path dir = fresh_dir("job_json");
  EvalJob job = sample_job(dir);
  job.seed = 42;
  CHECK(valid_job_id(job.id));
  CHECK(job.id.rfind("sample-", 0) == 0);
  CHECK(job.scenarios.ids == std::vector<std::string>{"r2048_c64", "r512_c1000", "r128_c4097"});

  const json doc = job;
  const EvalJob back = doc.get<EvalJob>();
  CHECK(json(back) == doc);
  CHECK(back.key() == job.key());

  // Where the bytes live and what they are called do not change what is judged...
  EvalJob moved = job;
  moved.id = "other-id";
  moved.candidate.label = "renamed";
  moved.candidate.origin = "/elsewhere/x.cpp";
  moved.candidate.snapshot = "/store/abc/sample.cpp";
  moved.scenarios.file = "/copy/of/scenarios.json";
  CHECK(moved.key() == job.key());
  // ...but everything that decides the verdict does.
  auto differs = [&](auto change) {
    EvalJob j = job;
    change(j);
    return j.key() != job.key();
  };
  CHECK(differs([](EvalJob& j) { j.candidate.content_hash[0] = j.candidate.content_hash[0] == 'a' ? 'b' : 'a'; }));
  CHECK(differs([](EvalJob& j) { j.seed = 43; }));
  CHECK(differs([](EvalJob& j) { j.purpose = JobPurpose::correctness; }));
  CHECK(differs([](EvalJob& j) { j.repeat = 1; }));
  CHECK(differs([](EvalJob& j) { j.scenarios.ids.pop_back(); }));
  CHECK(differs([](EvalJob& j) { j.evaluator.command.timeout_s = 5; }));

  // Repeat n is its own job, with its own id.
  socratic::Candidate c;
  c.source = job.candidate.origin;
  const EvalJob again = make_eval_job(c, cpu_template(dir / "log.txt"), {}, 2);
  CHECK(again.id == job_id_for(again));
  CHECK(again.id.find("-r2") != std::string::npos);
  CHECK(again.key() != job.key());
}

TEST_CASE("a bad job document is refused with the field named", "[exec]") {
  const fs::path dir = fresh_dir("job_bad");
  const json good = sample_job(dir);
  auto error_of = [](json j) {
    try {
      (void)j.get<EvalJob>();
    } catch (const std::exception& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  json j = good;
  j["colour"] = "blue";
  CHECK_THAT(error_of(j), Catch::Contains("unknown field \"colour\""));
  j = good;
  j["id"] = "../etc/passwd";
  CHECK_THAT(error_of(j), Catch::Contains("is not a job id"));
  j = good;
  j["purpose"] = "benchmarking";
  CHECK_THAT(error_of(j), Catch::Contains("purpose"));
  j = good;
  j["evaluator"]["kind"] = "magic";
  CHECK_THAT(error_of(j), Catch::Contains("\"magic\" is not `cuda` or `command`"));
  j = good;
  j["evaluator"]["timeout_s"] = -1;
  CHECK_THAT(error_of(j), Catch::Contains("timeout_s"));
  j = good;
  j["schema_version"] = 99;
  CHECK_THAT(error_of(j), Catch::Contains("newer"));
  j = good;
  j["scenarios"].erase("ids");
  CHECK_THAT(error_of(j), Catch::Contains("ids"));
}

TEST_CASE("a scenario subset keeps the set's order and names unknown ids", "[exec]") {
  const fs::path dir = fresh_dir("job_subset");
  socratic::Candidate c;
  c.source = candidate(dir, "subset");
  const EvalJob job = make_eval_job(c, cpu_template(dir / "log"), {"r128_c4097", "r2048_c64"});
  CHECK(job.scenarios.ids == std::vector<std::string>{"r2048_c64", "r128_c4097"});
  CHECK(job.scenarios.only == job.scenarios.ids);
  CHECK_THROWS_WITH(make_eval_job(c, cpu_template(dir / "log"), {"r1_c1"}), Catch::Contains("scenario \"r1_c1\""));
  CHECK(spread_ids({"a", "b", "c", "d", "e"}, 2) == std::vector<std::string>{"a", "e"});
  CHECK(spread_ids({"a", "b", "c", "d", "e"}, 3) == std::vector<std::string>{"a", "c", "e"});
  CHECK(spread_ids({"a", "b"}, 5) == std::vector<std::string>{"a", "b"});
}

TEST_CASE("a snapshot holds the submitted bytes; a candidate edited afterwards is refused", "[exec]") {
  const fs::path dir = fresh_dir("snapshot");
  EvalJob job = sample_job(dir);
  snapshot_candidate(job, dir / "store");
  REQUIRE(fs::is_regular_file(job.candidate.snapshot));
  CHECK(job.candidate.snapshot.parent_path().filename() == job.candidate.content_hash);
  CHECK(read_text(job.candidate.snapshot) == read_text(job.candidate.origin));

  // The snapshot survives an edit of the workspace, and a second store copies from it.
  write_text(job.candidate.origin, "// edited after submission\n");
  EvalJob copy = job;
  snapshot_candidate(copy, dir / "store2");
  CHECK(socratic::detail::sha256_file(copy.candidate.snapshot) == job.candidate.content_hash);

  // Without a snapshot, an edited origin cannot stand in for the submitted bytes.
  EvalJob lost = job;
  lost.candidate.snapshot.clear();
  CHECK_THROWS_WITH(snapshot_candidate(lost, dir / "store3"), Catch::Contains("changed after the job was made"));
}

TEST_CASE("a candidate split into headers is one job: its headers are hashed and snapshotted with it", "[exec]") {
  const fs::path dir = fresh_dir("snapshot_headers");
  write_text(dir / "ws" / "kernel.cu", "#include \"parts/tile.cuh\"\n#include <cmath>\nextern \"C\" void f() {}\n");
  write_text(dir / "ws" / "parts" / "tile.cuh", "#pragma once\nconstexpr int tile = 64;\n");
  write_text(dir / "ws" / "unrelated.cuh", "// not included\n");
  Candidate c;
  c.source = dir / "ws" / "kernel.cu";
  EvalJob job = make_eval_job(c, cpu_template(dir / "log"));
  CHECK(job.candidate.content_hash == read_candidate_files(c.source).hash());
  snapshot_candidate(job, dir / "store");
  const fs::path folder = job.candidate.snapshot.parent_path();
  CHECK(job.candidate.snapshot.filename() == "kernel.cu");
  CHECK(read_text(folder / "parts" / "tile.cuh") == read_text(dir / "ws" / "parts" / "tile.cuh"));
  CHECK_FALSE(fs::exists(folder / "unrelated.cuh"));

  // A header edited after submission: the job keeps its bytes; a new job of the edit is another job.
  write_text(dir / "ws" / "parts" / "tile.cuh", "#pragma once\nconstexpr int tile = 128;\n");
  CHECK(read_candidate_files(job.candidate.snapshot).hash() == job.candidate.content_hash);
  CHECK(make_eval_job(c, cpu_template(dir / "log")).key() != job.key());

  // The report names the submitted files, not the snapshot's.
  EvalReport r = failure_report(job, JobState::completed, "x");
  r.build_log = job.candidate.snapshot.string() + "(3): error\n" + (folder / "parts" / "tile.cuh").string() + "(2): note";
  const EvalReport shown = as_submitted(r, job);
  CHECK(shown.candidate.source == dir / "ws" / "kernel.cu");
  CHECK_THAT(shown.build_log, Catch::Contains(((dir / "ws" / "kernel.cu").string() + "(3)").c_str()) &&
                                  Catch::Contains(((dir / "ws" / "parts" / "tile.cuh").string() + "(2)").c_str()));
}

namespace {
struct BookEntry : JobEntry {
  std::string place;
  std::string location() const { return place; }
};
}  // namespace

TEST_CASE("a job book records, ends once, reports as submitted and recovers its folder", "[exec]") {
  const fs::path dir = fresh_dir("job_book");
  EvalJob a = sample_job(dir), b = a;
  b.repeat = 1;
  b.id.clear();
  b.id = job_id_for(b);
  {
    JobBook<BookEntry> book("TestExecutor", "executor", dir / "run");
    CHECK_FALSE(book.known_id(a));
    auto [ea, why] = book.record(a);
    CHECK(why.empty());
    CHECK(fs::is_regular_file(book.job_file(a.id)));
    CHECK(book.known_id(a) == a.id);  // the same job again: its id
    EvalJob clash = b;
    clash.id = a.id;  // another job under a's id
    CHECK_THROWS_WITH(book.known_id(clash), Catch::Contains("another job of this executor"));
    EvalJob bad = b;
    bad.id = "../x";
    CHECK_THROWS_WITH(book.known_id(bad), Catch::Contains("is not a job id"));
    CHECK_THROWS_WITH(book.entry("nope"), Catch::Contains("TestExecutor: no job nope"));

    ea.place = "gpu 3";
    CHECK(book.status(ea).where == "gpu 3");
    CHECK_FALSE(book.report(a.id));  // not terminal yet
    book.finish(ea, book.ending(ea, JobState::failed, "the first ending"));
    CHECK(ea.state == JobState::failed);
    CHECK(ea.detail == "the first ending");
    const auto report = book.report(a.id);
    REQUIRE(report);
    CHECK(report->candidate.content_hash == a.candidate.content_hash);
    // First writer wins: a later ending of the same job does not replace the published one.
    book.finish(ea, book.ending(ea, JobState::cancelled, "a second ending"));
    CHECK(ea.state == JobState::failed);
    CHECK(ea.result->message == "the first ending");

    book.record(b);
    CHECK(book.statuses().size() == 2);
    CHECK(book.order() == std::vector<std::string>{a.id, b.id});
  }
  // A restart on the folder: the finished job keeps its result, the other is handed back.
  JobBook<BookEntry> again("TestExecutor", "executor", dir / "run");
  std::vector<std::string> adopted, unfinished;
  again.recover([&](BookEntry& e, const JournalRecord&) { adopted.push_back(e.job.id); },
                [&](BookEntry& e, const JournalRecord&) { unfinished.push_back(e.job.id); });
  CHECK(adopted == std::vector<std::string>{a.id, b.id});
  CHECK(unfinished == std::vector<std::string>{b.id});
  CHECK(again.entry(a.id).state == JobState::failed);
  CHECK(again.entry(a.id).result->message == "the first ending");
}

TEST_CASE("the journal replays every job, cuts a torn last line and has one owner", "[exec]") {
  const fs::path dir = fresh_dir("journal");
  EvalJob a = sample_job(dir), b = a;
  b.repeat = 1;
  b.id.clear();
  b.id = job_id_for(b);
  {
    JobJournal j(dir / "run");
    j.submitted(a);
    j.submitted(b);
    j.started(a.id, 1, "gpu 0");
    j.backend(b.id, json{{"slurm_id", "77"}});
    j.finished(a.id, JobState::completed);
    j.cancel_requested(b.id);
    // A second owner of the same folder is refused while this one holds it.
    CHECK_THROWS_WITH(JobJournal(dir / "run"), Catch::Contains("in use by another process"));
  }
  // A write torn by a kill: half a line at the end.
  { std::ofstream(dir / "run" / "journal.jsonl", std::ios::app) << R"({"event":"started","id":")"; }
  {
    JobJournal j(dir / "run");
    REQUIRE(j.order() == std::vector<std::string>{a.id, b.id});
    const JournalRecord* ra = j.find(a.id);
    REQUIRE(ra);
    CHECK(ra->attempts == 1);
    CHECK(ra->where == "gpu 0");
    CHECK(ra->finished == JobState::completed);
    const JournalRecord* rb = j.find_key(b.key());
    REQUIRE(rb);
    CHECK(rb->job.id == b.id);
    CHECK(rb->backend.value("slurm_id", "") == "77");
    CHECK(rb->cancel_requested);
    CHECK_FALSE(rb->finished);
    j.started(b.id, 1, "slurm 77");  // appends on a clean line
  }
  {
    JobJournal j(dir / "run");
    CHECK(j.find(b.id)->attempts == 1);
  }
  // Damage in the middle is not a torn write: it is named, never skipped.
  std::string text = read_text(dir / "run" / "journal.jsonl");
  text.insert(text.find('\n') + 1, "garbage\n");
  write_text(dir / "run" / "journal.jsonl", text);
  CHECK_THROWS_WITH(JobJournal(dir / "run"), Catch::Contains("line 2"));
}

TEST_CASE("a lease is an flock: exclusive against all, shared among correctness runs, gone with a killed holder", "[exec]") {
  const fs::path dir = fresh_dir("leases");
  {
    GpuLease a = GpuLease::try_exclusive(dir, "0", "test");
    REQUIRE(a);
    CHECK_FALSE(GpuLease::try_exclusive(dir, "0", "test"));
    CHECK_FALSE(GpuLease::try_shared(dir, "0", 0));
    CHECK(GpuLease::try_exclusive(dir, "1", "test"));  // another GPU
    CHECK_THAT(xd::lock_description(GpuLease::lock_path(dir, "0")), Catch::Contains("job") || Catch::Contains("test"));
  }
  {
    GpuLease s0 = GpuLease::try_shared(dir, "0", 0);
    GpuLease s1 = GpuLease::try_shared(dir, "0", 1);
    REQUIRE(s0);
    REQUIRE(s1);
    CHECK_FALSE(s0.exclusive());
    CHECK_FALSE(GpuLease::try_shared(dir, "0", 1));  // that share is taken
    CHECK_FALSE(GpuLease::try_exclusive(dir, "0", "timing"));  // no timing run beside them
  }
  CHECK(xd::lock_is_free(GpuLease::lock_path(dir, "0")));

  // Another process holds GPU 0; kill -9 it and the kernel hands the lease back.
  const pid_t holder = lock_holder(GpuLease::lock_path(dir, "0"), xd::LockMode::exclusive);
  CHECK_FALSE(GpuLease::try_exclusive(dir, "0", "test"));
  kill_and_reap(holder);
  CHECK(GpuLease::try_exclusive(dir, "0", "test"));
}

TEST_CASE("GPUs are found without CUDA, and a GPU list is checked", "[exec]") {
  const fs::path dir = fresh_dir("gpus");
  GpuProbe probe;
  probe.nvidia_smi = dir / "no-nvidia-smi";
  probe.proc_gpus = dir / "no-proc";
  probe.dev = dir / "no-dev";

  probe.cuda_visible_devices = "2,5";
  CHECK(visible_gpus(probe).ids == std::vector<std::string>{"2", "5"});
  CHECK(visible_gpus(probe).source == "CUDA_VISIBLE_DEVICES");
  probe.cuda_visible_devices = "";
  CHECK(visible_gpus(probe).ids.empty());
  probe.cuda_visible_devices = "NoDevFiles";
  CHECK(visible_gpus(probe).ids.empty());
  probe.cuda_visible_devices = "1,x,3";  // CUDA stops at the first bad entry
  CHECK(visible_gpus(probe).ids == std::vector<std::string>{"1"});
  probe.cuda_visible_devices.reset();

  // Only what a probe finds: this machine has no GPU, every probe points at a fake.
  write_text(dir / "nvidia-smi", "#!/bin/sh\necho 'GPU 0: NVIDIA H200 (UUID: GPU-aaaa)'\necho 'GPU 1: NVIDIA H200 (UUID: GPU-bbbb)'\n");
  fs::permissions(dir / "nvidia-smi", fs::perms::owner_all);
  probe.nvidia_smi = dir / "nvidia-smi";
  if (!std::getenv("CUDA_VISIBLE_DEVICES")) {
    CHECK(visible_gpus(probe).ids == std::vector<std::string>{"0", "1"});
    CHECK(visible_gpus(probe).source == "nvidia-smi -L");
    probe.nvidia_smi = dir / "no-nvidia-smi";
    for (const char* g : {"0000:19:00.0", "0000:3b:00.0", "0000:4c:00.0"}) fs::create_directories(dir / "proc" / g);
    probe.proc_gpus = dir / "proc";
    CHECK(visible_gpus(probe).ids == std::vector<std::string>{"0", "1", "2"});
    probe.proc_gpus = dir / "no-proc";
    for (const char* d : {"nvidia0", "nvidia1", "nvidiactl", "nvidia-uvm"}) write_text(dir / "dev" / d, "");
    probe.dev = dir / "dev";
    CHECK(visible_gpus(probe).ids == std::vector<std::string>{"0", "1"});
    probe.dev = dir / "no-dev";
    CHECK(visible_gpus(probe).ids.empty());
  }

  CHECK(parse_gpu_list("0,2,3") == std::vector<std::string>{"0", "2", "3"});
  CHECK(parse_gpu_list(" 1 , GPU-abc ") == std::vector<std::string>{"1", "GPU-abc"});
  CHECK_THROWS_WITH(parse_gpu_list("0,,1"), Catch::Contains("empty entry"));
  CHECK_THROWS_WITH(parse_gpu_list("0,0"), Catch::Contains("listed twice"));
  CHECK_THROWS_WITH(parse_gpu_list("gpu0"), Catch::Contains("neither a GPU index"));
}

TEST_CASE("Slurm's output is read and every state has a meaning", "[exec]") {
  CHECK(slurm::parse_sbatch_id("1234\n") == "1234");
  CHECK(slurm::parse_sbatch_id("1234;cluster-a\n") == "1234");
  CHECK(slurm::parse_sbatch_id("sbatch: warning: something\n88\n") == "88");
  CHECK_THROWS_WITH(slurm::parse_sbatch_id("sbatch: error: Batch job submission failed\n"), Catch::Contains("no job id"));

  const auto q = slurm::parse_squeue("12|RUNNING|None|0|\n6_3|PENDING|Resources|0|\n7|CANCELLED by 0|None|15|\n"
                                     "8|FAILED|NonZeroExitCode|768|\nnot a line\n");
  REQUIRE(q.size() == 4);
  CHECK(q[1].id == "6_3");
  CHECK(q[1].reason == "Resources");
  CHECK(q[2].state == "CANCELLED");
  CHECK(slurm::describe_wait_status(q[2].wait_status) == "signal 15 (SIGTERM)");
  CHECK(slurm::describe_wait_status(q[3].wait_status) == "exit code 3");
  CHECK(slurm::describe_wait_status(0) == "");

  const auto s = slurm::parse_sacct("9|OUT_OF_MEMORY|0:125|OutOfMemory\n10|TIMEOUT|0:15|TimeLimit\n");
  REQUIRE(s.size() == 2);
  CHECK(s[0].state == "OUT_OF_MEMORY");
  CHECK(slurm::describe_wait_status(s[1].wait_status) == "signal 15 (SIGTERM)");

  CHECK(slurm::meaning_of("PENDING").state == JobState::queued);
  CHECK(slurm::meaning_of("REQUEUED").state == JobState::queued);
  CHECK(slurm::meaning_of("RUNNING").state == JobState::running);
  CHECK(slurm::meaning_of("COMPLETING").state == JobState::running);
  CHECK(slurm::meaning_of("COMPLETED").state == JobState::completed);
  CHECK(slurm::meaning_of("FAILED").state == JobState::failed);
  CHECK(slurm::meaning_of("TIMEOUT").state == JobState::timed_out);
  CHECK(slurm::meaning_of("DEADLINE").state == JobState::timed_out);
  CHECK(slurm::meaning_of("CANCELLED").state == JobState::cancelled);
  CHECK(slurm::meaning_of("OUT_OF_MEMORY").state == JobState::out_of_memory);
  CHECK(slurm::meaning_of("NODE_FAIL").state == JobState::node_failure);
  CHECK(slurm::meaning_of("BOOT_FAIL").state == JobState::node_failure);
  CHECK(slurm::meaning_of("PREEMPTED").state == JobState::preempted);
  CHECK(slurm::meaning_of("SOMETHING_NEW").state == JobState::running);  // never taken as an ending
  for (const char* t : {"COMPLETED", "FAILED", "TIMEOUT", "CANCELLED", "OUT_OF_MEMORY", "NODE_FAIL", "PREEMPTED"})
    CHECK(is_terminal(slurm::meaning_of(t).state));
}

TEST_CASE("Slurm job scripts carry the configuration's request and run the worker on the job", "[exec]") {
  xd::SlurmScriptSettings s;
  s.job_name_prefix = "socratic";
  s.gpus = "h200:1";
  s.time_limit = "00:30:00";
  s.partition = "gpu";
  s.account = "proj42";
  s.cpus_per_task = 8;
  s.memory = "64G";
  s.directives = {"--constraint=h200"};
  s.setup = {"module load cuda/13.0"};
  s.worker = {"/opt/so cratic/bin/socratic", "exec-job"};
  s.jobs_dir = "/shared/jobs";
  s.logs_dir = "/shared/logs";
  s.results_dir = "/shared/results";
  const xd::SlurmScript one = xd::single_job_script(s, "v45-abc");
  CHECK(one.name == "socratic-v45-abc");
  CHECK(one.log_pattern == "/shared/logs/v45-abc.%j.out");
  for (const char* line : {"#SBATCH --job-name=socratic-v45-abc\n", "#SBATCH --gres=gpu:h200:1\n", "#SBATCH --time=00:30:00\n",
                           "#SBATCH --partition=gpu\n", "#SBATCH --account=proj42\n", "#SBATCH --cpus-per-task=8\n",
                           "#SBATCH --mem=64G\n", "#SBATCH --constraint=h200\n", "\nmodule load cuda/13.0\n",
                           "exec '/opt/so cratic/bin/socratic' 'exec-job' '/shared/jobs/v45-abc.json' --phase run "
                           "--results '/shared/results'"})
    CHECK_THAT(one.text, Catch::Contains(line));
  CHECK(one.text.find("CUDA_VISIBLE_DEVICES") == std::string::npos);  // Slurm binds the GPUs

  const xd::SlurmScript array = xd::array_script(s, {"a", "b", "c"});
  CHECK_THAT(array.text, Catch::Contains("#SBATCH --array=0-2\n") && Catch::Contains("ids=( 'a' 'b' 'c' )") &&
                             Catch::Contains("\"/shared/jobs/$id.json\""));
  CHECK(array.name == "socratic-" + xd::array_stem({"a", "b", "c"}));
  CHECK(xd::fill_log_pattern(array.log_pattern, "77_2") == "/shared/logs/" + array.file_stem + ".77_2.out");
  CHECK(xd::fill_log_pattern(one.log_pattern, "78") == "/shared/logs/v45-abc.78.out");
}

TEST_CASE("a cascade stopped early reports every scenario", "[exec]") {
  EvalReport first;
  first.built = true;
  first.expected = {"a", "c"};
  ScenarioResult ok, bad;
  ok.id = "a";
  ok.correct = true;
  bad.id = "c";
  bad.reason = "max error 0.3";
  first.scenarios = {ok, bad};
  const EvalReport r = cascade_stopped_report(first, {"a", "b", "c"});
  CHECK(r.expected == std::vector<std::string>{"a", "b", "c"});
  REQUIRE(r.scenarios.size() == 3);
  CHECK(r.scenarios[0].correct);
  CHECK_FALSE(r.scenarios[1].correct);
  CHECK_THAT(r.scenarios[1].reason, Catch::Contains("not run: the correctness stage failed on c"));
  CHECK(r.scenarios[2].reason == "max error 0.3");
  CHECK_FALSE(r.all_correct());

  EvalReport unbuilt;
  unbuilt.expected = {"a"};
  const EvalReport u = cascade_stopped_report(unbuilt, {"a", "b"});
  CHECK(u.scenarios.empty());  // as an evaluation of a candidate that does not build
  CHECK(u.missing() == std::vector<std::string>{"a", "b"});
}

TEST_CASE("a job's first result is its result", "[exec]") {
  const fs::path dir = fresh_dir("results");
  const EvalJob job = sample_job(dir);
  JobResult first;
  first.job = job.id;
  first.attempt = 1;
  first.report = failure_report(job, JobState::failed, "first");
  JobResult second = first;
  second.attempt = 2;
  CHECK(publish_result(dir / "results", first));
  CHECK_FALSE(publish_result(dir / "results", second));
  const auto read = read_result(dir / "results", job);
  REQUIRE(read);
  CHECK(read->attempt == 1);
  CHECK_THAT(read->report.error, Catch::Contains("first"));

  write_text(result_path(dir / "broken", job.id), "{not json");
  const auto broken = read_result(dir / "broken", job);
  REQUIRE(broken);
  CHECK(broken->state == JobState::failed);
  CHECK_THAT(broken->message, Catch::Contains("unreadable"));
}

TEST_CASE("a sweep finds and ends every process carrying a token, and only those", "[exec]") {
  const std::string token = "test-token-" + std::to_string(::getpid());
  auto spawn = [](const std::string& env_entry) {
    const pid_t pid = ::fork();
    if (pid == 0) {
      std::string entry = env_entry;
      char* envp[] = {entry.data(), nullptr};
      char arg0[] = "sleep", arg1[] = "30";
      char* argv[] = {arg0, arg1, nullptr};
      ::execve("/bin/sleep", argv, envp);
      ::_exit(127);
    }
    return pid;
  };
  const pid_t marked = spawn(std::string(xd::token_variable) + "=" + token);
  const pid_t longer = spawn(std::string(xd::token_variable) + "=" + token + "-other");
  const pid_t plain = spawn("HOME=/");
  REQUIRE(eventually([&] { return xd::processes_with_token(token).size() == 1; }));
  CHECK(xd::processes_with_token(token) == std::vector<pid_t>{marked});
  CHECK(xd::processes_with_token(token, true).size() == 2);  // a prefix: both marks
  CHECK(xd::kill_processes_with_token(token) >= 1);
  int status = 0;
  CHECK(::waitpid(marked, &status, 0) == marked);
  CHECK(WIFSIGNALED(status));
  CHECK(process_alive(longer));
  CHECK(process_alive(plain));
  kill_and_reap(longer);
  kill_and_reap(plain);
}
