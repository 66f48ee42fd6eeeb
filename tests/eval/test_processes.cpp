// The one spawner in both call styles: run_process (stdin, caps, the process group killed at the
// timeout, the child dying with its parent) and stream_process (lines as they arrive, watchdog,
// timeout, caps); and the runner client against fake runners that crash, hang, print garbage,
// forge results and exit early.
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <thread>

#include "catch.hpp"
#include "eval_fixtures.hpp"
#include "socratic/eval/runner_client.hpp"
#include "socratic/process/detail/proc_file.hpp"
#include "socratic/process/run_process.hpp"
#include "socratic/process/stream_process.hpp"

using namespace socratic;
using namespace std::chrono_literals;
using eval_test::TempDir;
using eval_test::write_file;
using Catch::Matchers::Contains;

namespace {

/// Pids of live processes whose command line contains `marker` (zombies excluded).
std::vector<int> processes_with(const std::string& marker) {
  std::vector<int> out;
  for (const auto& e : std::filesystem::directory_iterator("/proc")) {
    const std::string name = e.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    // A process may exit while it is read: its files then read empty.
    std::string text = socratic::detail::read_proc_file(e.path() / "cmdline");
    std::replace(text.begin(), text.end(), '\0', ' ');
    const std::string stat_text = socratic::detail::read_proc_file(e.path() / "stat");
    const auto close = stat_text.rfind(')');
    const bool zombie = close != std::string::npos && stat_text.size() > close + 2 && stat_text[close + 2] == 'Z';
    if (!zombie && text.find(marker) != std::string::npos) out.push_back(std::stoi(name));
  }
  return out;
}

bool gone_within(const std::string& marker, std::chrono::milliseconds limit) {
  const auto until = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < until) {
    if (processes_with(marker).empty()) return true;
    std::this_thread::sleep_for(20ms);
  }
  return processes_with(marker).empty();
}

}  // namespace

TEST_CASE("a /proc file whose process ends while it is read reads empty, never throws", "[eval][process]") {
  // Between listing /proc and reading a process's file, the process may exit: the read fails
  // with ESRCH, which std::ifstream turns into an exception (it crashed a sweep's caller).
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    ::pause();
    ::_exit(0);
  }
  const std::string path = "/proc/" + std::to_string(child) + "/cmdline";
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  REQUIRE(fd >= 0);
  ::kill(child, SIGKILL);
  int status = 0;
  ::waitpid(child, &status, 0);
  char byte;
  errno = 0;
  CHECK(::pread(fd, &byte, 1, 0) < 0);
  CHECK(errno == ESRCH);  // what the reader meets
  std::string text = "not read";
  CHECK_NOTHROW(text = socratic::detail::read_to_end_or_error(fd));
  CHECK(text.empty());
  ::close(fd);
  CHECK(socratic::detail::read_proc_file(path).empty());  // gone before it is opened
  CHECK_FALSE(socratic::detail::read_proc_file("/proc/self/cmdline").empty());
}

TEST_CASE("run_process: stdin in, capped output out, the whole process group ended at the timeout",
          "[eval][process]") {
  ProcessOptions o;
  o.stdin_data = "hello from stdin\n";
  ProcessResult r = run_process({"/bin/sh", "-c", "cat; echo err >&2; exit 3"}, o);
  CHECK(r.started);
  CHECK(r.exit_code == 3);
  CHECK(r.stdout_text == "hello from stdin\n");
  CHECK(r.stderr_text == "err\n");

  o = {};
  o.max_output_bytes = 1000;
  r = run_process({"/bin/sh", "-c", "head -c 100000 /dev/zero | tr '\\0' a; echo; echo END"}, o);
  CHECK(r.ok());
  CHECK(r.stdout_truncated);
  CHECK(r.stdout_text.size() < 1100);
  CHECK_THAT(r.stdout_text, Contains("bytes omitted") && Contains("END"));

  // A background grandchild shares the process group: the timeout ends it too.
  const std::string marker = "41.0" + std::to_string(::getpid());
  o = {};
  o.timeout = 300ms;
  r = run_process({"/bin/sh", "-c", "sleep " + marker + " & sleep " + marker + "; wait"}, o);
  CHECK(r.timed_out);
  CHECK(r.signal == SIGKILL);
  CHECK(gone_within(marker, 2s));
}

TEST_CASE("run_process: a child dies with its parent, even a parent killed with SIGKILL", "[eval][process]") {
  const std::string marker = "42.0" + std::to_string(::getpid());
  const pid_t parent = ::fork();
  REQUIRE(parent >= 0);
  if (parent == 0) {  // the parent-to-be-killed: runs a long child and waits for it
    ProcessOptions o;
    o.timeout = 60s;
    (void)run_process({"sleep", marker}, o);
    ::_exit(0);
  }
  const auto until = std::chrono::steady_clock::now() + 5s;
  while (processes_with(marker).empty() && std::chrono::steady_clock::now() < until) std::this_thread::sleep_for(10ms);
  REQUIRE_FALSE(processes_with(marker).empty());
  ::kill(parent, SIGKILL);
  int status = 0;
  ::waitpid(parent, &status, 0);
  CHECK(gone_within(marker, 2s));
}

TEST_CASE("run_process: the child's own children die with a parent killed with SIGKILL", "[eval][process]") {
  // A harness under `sh -c`: the shell's children (one in the background, its output elsewhere)
  // are no direct children of the parent, so the parent-death signal does not reach them.
  const std::string marker = "43.0" + std::to_string(::getpid());
  const pid_t parent = ::fork();
  REQUIRE(parent >= 0);
  if (parent == 0) {
    ProcessOptions o;
    o.timeout = 60s;
    (void)run_process({"/bin/sh", "-c", "sleep " + marker + " >/dev/null 2>&1 & sleep " + marker + "; wait"}, o);
    ::_exit(0);
  }
  const auto until = std::chrono::steady_clock::now() + 5s;
  while (processes_with(marker).size() < 3 && std::chrono::steady_clock::now() < until) std::this_thread::sleep_for(10ms);
  REQUIRE(processes_with(marker).size() == 3);  // the shell and its two sleeps
  ::kill(parent, SIGKILL);
  int status = 0;
  ::waitpid(parent, &status, 0);
  CHECK(gone_within(marker, 2s));
}

TEST_CASE("run_process: nothing the child started outlives the call", "[eval][process]") {
  // The shell exits once its background child runs; that child holds none of the pipes.
  const std::string marker = "44.0" + std::to_string(::getpid());
  const ProcessResult r = run_process(
      {"/bin/sh", "-c",
       "sleep " + marker + " </dev/null >/dev/null 2>&1 & until readlink /proc/$!/exe | grep -q sleep; do :; done"});
  CHECK(r.ok());
  CHECK(gone_within(marker, 2s));
}

TEST_CASE("stream_process hands over each line as soon as it is complete", "[eval][stream]") {
  using clock = std::chrono::steady_clock;
  const auto began = clock::now();
  std::vector<std::pair<std::string, double>> seen;
  const StreamResult r = stream_process(
      {"/bin/sh", "-c", "echo first; sleep 0.4; printf 'second\\nno newline'; echo err >&2"},
      [&](std::string_view line, bool truncated) {
        CHECK_FALSE(truncated);
        seen.emplace_back(std::string(line), std::chrono::duration<double>(clock::now() - began).count());
        return StreamAction::proceed;
      });
  CHECK(r.ok());
  REQUIRE(seen.size() == 3);
  CHECK(seen[0].first == "first");
  CHECK(seen[1].first == "second");
  CHECK(seen[2].first == "no newline");
  CHECK(seen[1].second - seen[0].second > 0.3);  // the first came before the child's sleep ended
  CHECK(r.seconds >= 0.4);
  CHECK(r.lines == 3);
  CHECK(r.stderr_text == "err\n");
}

TEST_CASE("stream_process ends children that go silent, run long, print too much or crash", "[eval][stream]") {
  auto ignore = [](std::string_view, bool) { return StreamAction::proceed; };
  SECTION("watchdog: no complete line for the no-output timeout") {
    StreamOptions o;
    o.no_output_timeout = 1s;
    int lines = 0;
    // Lines every 0.1 s keep it alive; then a partial line and silence.
    const StreamResult r = stream_process(
        {"/bin/sh", "-c", "for i in 1 2 3 4 5 6; do echo tick; sleep 0.1; done; printf partial; sleep 30"},
        [&](std::string_view, bool) { ++lines; return StreamAction::proceed; }, o);
    CHECK(r.watchdog_fired);
    CHECK_FALSE(r.timed_out);
    CHECK(r.signal == SIGKILL);
    CHECK(lines >= 6);
    CHECK(r.seconds < 5);
    CHECK(r.describe(o) == "no output for 1 s: watchdog killed it");
  }
  SECTION("overall timeout even while it keeps talking") {
    StreamOptions o;
    o.timeout = 500ms;
    o.no_output_timeout = 3s;
    const StreamResult r = stream_process({"/bin/sh", "-c", "while true; do echo alive; sleep 0.05; done"}, ignore, o);
    CHECK(r.timed_out);
    CHECK_FALSE(r.watchdog_fired);
    CHECK(r.seconds < 5);
  }
  SECTION("output cap") {
    StreamOptions o;
    o.max_stdout_bytes = 100000;
    const StreamResult r = stream_process({"/bin/sh", "-c", "yes runaway"}, ignore, o);
    CHECK(r.output_limit);
    CHECK(r.stdout_bytes > 100000);
  }
  SECTION("long lines are cut and marked") {
    StreamOptions o;
    o.max_line_bytes = 10;
    std::vector<std::pair<std::string, bool>> seen;
    stream_process({"/bin/sh", "-c", "echo 0123456789abcdef; echo short"},
                   [&](std::string_view l, bool t) { seen.emplace_back(std::string(l), t); return StreamAction::proceed; }, o);
    REQUIRE(seen.size() == 2);
    CHECK(seen[0] == std::make_pair(std::string("0123456789"), true));
    CHECK(seen[1] == std::make_pair(std::string("short"), false));
  }
  SECTION("the callback can stop it") {
    const StreamResult r = stream_process({"/bin/sh", "-c", "echo stop; sleep 30"},
                                          [](std::string_view, bool) { return StreamAction::stop; });
    CHECK(r.stopped);
    CHECK(r.seconds < 5);
  }
  SECTION("a signal") {
    const StreamResult r = stream_process({"/bin/sh", "-c", "kill -SEGV $$"}, ignore);
    CHECK(r.signal == SIGSEGV);
    CHECK(r.describe() == "killed by signal 11 (SIGSEGV)");
  }
  SECTION("a program that does not exist") {
    const StreamResult r = stream_process({"/nonexistent/runner"}, ignore);
    CHECK_FALSE(r.started);
    CHECK_THAT(r.describe(), Contains("could not start"));
  }
}

namespace {

/// A fake runner job over scenarios a, b, c, d whose behaviour the candidate's directives set.
struct RunnerFixture {
  TempDir tmp{"runner"};
  RunnerJob job;
  explicit RunnerFixture(const std::string& directives) {
    const auto tools = eval_test::fake_tools(tmp / "bin");
    job.runner = tools / "runner";
    job.baseline = write_file(tmp / "baseline.so", "");
    job.candidate = write_file(tmp / "candidate.so", directives);
    job.scenarios = write_file(tmp / "set.json", R"({"name": "s", "problem": "toy", "scenarios":
        [{"id": "a"}, {"id": "b"}, {"id": "c"}, {"id": "d"}]})");
    job.expected = {"a", "b", "c", "d"};
    job.problem = "toy";
    job.limits.watchdog = 10s;  // tests of hangs set their own
    job.limits.timeout = 60s;
  }
  std::string calls() const { return eval_test::read_file(job.candidate.string() + ".calls"); }
};

}  // namespace

TEST_CASE("runner client: the runner's command line names no option; they go on its stdin",
          "[eval][runner]") {
  RunnerJob job;
  job.runner = "/opt/r/socratic-runner-x";
  job.baseline = "/b/base line.so";
  job.candidate = "/c/cand.so";
  job.scenarios = "/s/set.json";
  job.overrides.seed = 42;
  job.overrides.max_samples = 9;
  const auto c = detail::runner_command(job, {"a", "b"});
  CHECK(c.argv == std::vector<std::string>{"/opt/r/socratic-runner-x", "--options-stdin"});
  CHECK_THAT(c.stdin_words, Contains("--baseline\n/b/base line.so\n"));
  CHECK_THAT(c.stdin_words, Contains("--only\na,b\n"));
  CHECK_THAT(c.stdin_words, Contains("--seed\n42\n"));
  CHECK_THAT(c.stdin_words, Contains("--max-samples\n9\n"));
  // Without a seed the runner draws its own secret key: no seed travels at all.
  job.overrides.seed.reset();
  CHECK(detail::runner_command(job, {}).stdin_words.find("--seed") == std::string::npos);
  // A word the runner could not read back is refused before anything runs.
  job.overrides.extra_args = {"--k\n9"};
  CHECK_THROWS_WITH(detail::runner_command(job, {}), Contains("hold no newline"));
}

TEST_CASE("runner client: a clean run", "[eval][runner]") {
  RunnerFixture f("fake: unknown_event\nfake: speedup c 2.0\nfake: fail d max error 0.5 > tolerance 0.004\n");
  f.job.k = 3.5;
  std::vector<std::string> progress;
  const RunnerOutcome out = run_runner(f.job, [&](const RunnerProgress& p) {
    progress.push_back((p.finished ? "end " : "begin ") + p.id + " " + std::to_string(p.done) + "/" +
                       std::to_string(p.total));
  });
  REQUIRE(out.results.size() == 4);
  CHECK(out.runs == 1);
  CHECK(out.problems.empty());  // the unknown event is tolerated
  CHECK(out.results[0].id == "a");
  CHECK(out.results[0].correct);
  CHECK(out.results[2].speedup == 2.0);
  CHECK_FALSE(out.results[3].correct);
  CHECK(out.results[3].reason == "max error 0.5 > tolerance 0.004");
  REQUIRE(out.hello);
  CHECK(out.hello->device == "Fake GPU");
  CHECK(out.hello->peak_tflops == 989.0);
  CHECK(progress == std::vector<std::string>{"begin a 0/4", "end a 1/4", "begin b 1/4", "end b 2/4",
                                             "begin c 2/4", "end c 3/4", "begin d 3/4", "end d 4/4"});
  CHECK(f.calls() == "--only a,b,c,d --k 3.5\n");
  CHECK(out.timing_s == Approx(4 * 0.002));
  CHECK(out.check_s == Approx(out.seconds - out.timing_s));
}

TEST_CASE("runner client: a crash fails its scenario, keeps the others and restarts", "[eval][runner]") {
  RunnerFixture f("fake: crash b 11\n");
  const RunnerOutcome out = run_runner(f.job);
  REQUIRE(out.results.size() == 4);
  CHECK(out.results[0].correct);
  CHECK_FALSE(out.results[1].correct);
  CHECK_THAT(out.results[1].reason,
             Contains("runner killed by signal 11 (SIGSEGV) during this scenario") &&
                 Contains("last stderr line: about to crash"));
  CHECK(out.results[2].correct);
  CHECK(out.results[3].correct);
  CHECK(out.runs == 2);
  CHECK(f.calls() == "--only a,b,c,d --k 2\n--only c,d --k 2\n");
  REQUIRE(out.problems.size() == 2);
  CHECK_THAT(out.problems[0], Contains("scenario \"b\"") && Contains("SIGSEGV"));
  CHECK_THAT(out.problems[1], Contains("restarting the runner for the 2 remaining scenario(s)"));
}

TEST_CASE("runner client: a hang is ended by the watchdog", "[eval][runner]") {
  RunnerFixture f("fake: hang c\n");
  f.job.limits.watchdog = 1500ms;
  const RunnerOutcome out = run_runner(f.job);
  CHECK(out.results[0].correct);
  CHECK(out.results[1].correct);
  CHECK_FALSE(out.results[2].correct);
  CHECK(out.results[2].reason == "no output for 1.5 s: watchdog killed the runner during this scenario");
  CHECK(out.results[3].correct);
  CHECK(out.runs == 2);
  CHECK(out.seconds < 10);
}

TEST_CASE("runner client: an illegal address reported as fatal", "[eval][runner]") {
  RunnerFixture f("fake: fatal a CUDA error: an illegal memory access was encountered\n");
  const RunnerOutcome out = run_runner(f.job);
  CHECK_FALSE(out.results[0].correct);
  CHECK(out.results[0].reason ==
        "runner exited with code 3 during this scenario; runner reported: CUDA error: an illegal memory access was encountered");
  CHECK(out.results[1].correct);
  CHECK(out.results[3].correct);
}

TEST_CASE("runner client: a CUDA error the runner reports, then stops", "[eval][runner]") {
  RunnerFixture f("fake: cuda_error b candidate (trial 0): an illegal memory access was encountered\n");
  const RunnerOutcome out = run_runner(f.job);
  CHECK(out.results[0].correct);
  CHECK_FALSE(out.results[1].correct);
  CHECK(out.results[1].reason == "cuda_error: candidate (trial 0): an illegal memory access was encountered");
  CHECK(out.results[2].correct);
  CHECK(out.results[3].correct);
  CHECK(out.runs == 2);
  CHECK_THAT(out.problems.back(), Contains("restarting the runner for the 2 remaining scenario(s) after: runner "
                                           "exited with code 3; runner reported: scenario \"b\""));
}

TEST_CASE("runner client: malformed lines fail the scenario they interrupt", "[eval][runner]") {
  RunnerFixture f("fake: garbage b\n");
  const RunnerOutcome out = run_runner(f.job);
  CHECK(out.runs == 1);
  CHECK(out.results[0].correct);
  CHECK_FALSE(out.results[1].correct);
  CHECK_THAT(out.results[1].reason, Contains("protocol error during this scenario") &&
                                        Contains("is not a protocol event (not JSON)") &&
                                        Contains("this is not json {"));
  CHECK(out.results[2].correct);
  REQUIRE(out.problems.size() == 1);
  CHECK_THAT(out.problems[0], Contains("stdout line 5"));  // hello, begin a, end a, begin b, then this
}

TEST_CASE("runner client: an over-long line is a protocol error", "[eval][runner]") {
  RunnerFixture f("fake: long a\n");
  f.job.limits.max_line_bytes = 1000;
  const RunnerOutcome out = run_runner(f.job);
  CHECK_FALSE(out.results[0].correct);
  CHECK_THAT(out.results[0].reason, Contains("longer than 1000 bytes"));
  CHECK(out.results[1].correct);
}

TEST_CASE("runner client: a forged result is not believed", "[eval][runner]") {
  // During a, something that does not know the run's token prints a scenario_end for d.
  RunnerFixture f("fake: forge a d\nfake: fail d wrong output\n");
  const RunnerOutcome out = run_runner(f.job);
  CHECK_FALSE(out.results[0].correct);  // tainted by the protocol error during it
  CHECK_THAT(out.results[0].reason, Contains("does not carry this run's token"));
  CHECK_FALSE(out.results[3].correct);
  CHECK(out.results[3].reason == "wrong output");
}

TEST_CASE("runner client: a line with another run's token is refused", "[eval][runner]") {
  RunnerFixture f("fake: forge_token b b\nfake: fail b wrong output\n");
  const RunnerOutcome out = run_runner(f.job);
  CHECK(out.results[0].correct);
  CHECK_FALSE(out.results[1].correct);
  CHECK_THAT(out.results[1].reason, Contains("does not carry this run's token") && Contains("wrong output"));
  CHECK(std::isnan(out.results[1].speedup));
  CHECK(out.results[2].correct);
}

TEST_CASE("runner client: a forged end for the scenario in progress is caught by the real one", "[eval][runner]") {
  // A glowing scenario_end for the scenario in progress, without the token; the real one follows.
  RunnerFixture f("fake: forge b b\nfake: fail b wrong output\n");
  const RunnerOutcome out = run_runner(f.job);
  CHECK(out.results[0].correct);
  CHECK_FALSE(out.results[1].correct);
  CHECK_THAT(out.results[1].reason, Contains("does not carry this run's token"));
  CHECK(std::isnan(out.results[1].speedup));
  CHECK(out.results[2].correct);
}

TEST_CASE("runner client: early exits and start-up failures", "[eval][runner]") {
  SECTION("exit before a scenario, without done: one restart, then the rest is named") {
    RunnerFixture f("fake: exit_before c 0\n");
    const RunnerOutcome out = run_runner(f.job);
    CHECK(out.results[0].correct);
    CHECK(out.results[1].correct);
    CHECK(out.runs == 2);
    CHECK(out.results[2].reason ==
          "not run: the runner stopped before this scenario (runner exited (code 0) without finishing)");
    CHECK(out.results[3].reason == out.results[2].reason);
    CHECK_THAT(out.problems.back(), Contains("stopped before 2 scenario(s) without progress"));
  }
  SECTION("a fatal error at start-up fails every scenario with its message") {
    RunnerFixture f("fake: fatal_start cannot load candidate.so: undefined symbol: helper\n");
    const RunnerOutcome out = run_runner(f.job);
    CHECK(out.runs == 1);
    for (const auto& r : out.results) {
      CHECK_FALSE(r.correct);
      CHECK_THAT(r.reason, Contains("not run: the runner stopped before this scenario") &&
                               Contains("runner reported: cannot load candidate.so: undefined symbol: helper"));
    }
  }
  SECTION("a clean finish that skipped a scenario") {
    RunnerFixture f("");
    f.job.expected.push_back("e");  // not in the file: the runner cannot report it
    const RunnerOutcome out = run_runner(f.job);
    REQUIRE(out.results.size() == 5);
    CHECK(out.results[4].reason == "no result: the runner finished without reporting this scenario");
    CHECK(out.runs == 1);
  }
  SECTION("a runner that speaks another protocol is not believed") {
    RunnerFixture f("fake: protocol 1\n");
    const RunnerOutcome out = run_runner(f.job);
    for (const auto& r : out.results) CHECK(r.reason == "not run: runner protocol mismatch");
    CHECK_THAT(out.problems[0], Contains("speaks protocol 1"));
  }
  SECTION("a runner for another problem") {
    RunnerFixture f("fake: problem rmsnorm\n");
    const RunnerOutcome out = run_runner(f.job);
    CHECK(out.results[0].reason == "not run: the runner is for another problem");
  }
  SECTION("a runner that cannot be started") {
    RunnerFixture f("");
    f.job.runner = f.tmp / "missing-runner";
    const RunnerOutcome out = run_runner(f.job);
    CHECK(out.results[0].reason == "not run: the runner could not be started");
    CHECK_THAT(out.problems[0], Contains("cannot start the runner"));
  }
  SECTION("the overall time limit") {
    RunnerFixture f("fake: hang b\n");
    f.job.limits.timeout = 1500ms;
    f.job.limits.watchdog = 10s;
    const RunnerOutcome out = run_runner(f.job);
    CHECK(out.results[0].correct);
    CHECK_THAT(out.results[1].reason, Contains("ran past the evaluation's time limit of 1.5 s"));
    CHECK_THAT(out.results[2].reason, Contains("time limit"));
  }
}

TEST_CASE("runner client: mapped libraries are collected", "[eval][runner]") {
  RunnerFixture f("fake: map /usr/lib/libcudart.so.13\nfake: map_after b /opt/libcudnn.so.9\n");
  const RunnerOutcome out = run_runner(f.job);
  CHECK(out.mapped_libraries == std::vector<std::string>{"/usr/lib/libcudart.so.13", "/opt/libcudnn.so.9"});
}
