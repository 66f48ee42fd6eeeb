// The judge/worker boundary without a GPU: the seccomp filter seen from inside a process, the
// wire's checks, and the judge's end of a worker (kernels/harness/sandbox_filter.hpp,
// worker_wire.hpp, worker_link.hpp), against a fake worker that misbehaves on purpose.
#include "catch.hpp"

#include <fcntl.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "sandbox_filter.hpp"
#include "worker_link.hpp"
#include "worker_wire.hpp"

using namespace socratic::harness;
using Catch::Matchers::Contains;

namespace {

struct SandboxedRun {
  int exit_code = -1;
  int signal = 0;
  std::string refused;  ///< the system call the reporter named, if any
};

/// Runs `body` in a child process after the reporter and both phases of the filter (or only the
/// load phase) are installed, as a worker does.
template <class Body>
SandboxedRun sandboxed(Body body, bool run_phase = true) {
  int sv[2];
  REQUIRE(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv) == 0);
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    close(sv[0]);
    // A fresh process, as a worker is: none of the test framework's signal handlers.
    for (int sig = 1; sig < 32; ++sig)
      if (sig != SIGKILL && sig != SIGSTOP) signal(sig, SIG_DFL);
    std::string why;
    if (!install_sandbox_reporter(sv[1], why) || !drop_privileges(why) ||
        !install_sandbox_filter(SandboxPhase::load, why) ||
        (run_phase && !install_sandbox_filter(SandboxPhase::run, why)))
      _exit(50);
    _exit(body());
  }
  close(sv[1]);
  int status = 0;
  waitpid(pid, &status, 0);
  SandboxedRun r;
  if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) r.signal = WTERMSIG(status);
  SandboxRefusalRecord rec;
  if (recv(sv[0], &rec, sizeof rec, MSG_DONTWAIT) == static_cast<ssize_t>(sizeof rec))
    r.refused = sandbox_syscall_name(rec.syscall_nr);
  close(sv[0]);
  return r;
}

void expect_refused(const SandboxedRun& r, const std::string& name) {
  CHECK(r.exit_code == sandbox_exit_code);
  CHECK(r.refused == name);
}

void expect_allowed(const SandboxedRun& r) {
  CHECK(r.exit_code == 0);
  CHECK(r.refused.empty());
}

}  // namespace

TEST_CASE("the worker's sandbox: what the implementation may and may not do", "[harness][sandbox]") {
  SECTION("ordinary work: memory, read-only files, its own name, signals to itself") {
    expect_allowed(sandboxed([] {
      std::vector<char> big(64 << 20, 1);
      const int fd = open("/proc/self/status", O_RDONLY);
      if (fd < 0) return 1;
      close(fd);
      if (prctl(PR_SET_NAME, "still-me", 0, 0, 0) != 0) return 2;
      if (kill(getpid(), 0) != 0) return 3;
      return big[12345] == 1 ? 0 : 4;
    }));
  }
  SECTION("what it can see of its judge: not its environment, descriptors or memory") {
    // The judge (this process, here) is not dumpable, as the runner makes itself; the worker
    // has dropped its capabilities. Its command line stays readable by any process, which is
    // why the host hands the judge its options on standard input (runner-protocol.md).
    REQUIRE(prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) == 0);
    const SandboxedRun seen = sandboxed([] {
      const std::string judge = "/proc/" + std::to_string(getppid());
      int refused = 0;
      for (const char* what : {"/environ", "/mem", "/auxv", "/fd/0"}) {
        const int fd = open((judge + what).c_str(), O_RDONLY);
        if (fd < 0 && errno == EACCES) ++refused;
        if (fd >= 0) close(fd);
      }
      const int cmdline = open((judge + "/cmdline").c_str(), O_RDONLY);
      if (cmdline >= 0) close(cmdline);
      return refused == 4 && cmdline >= 0 ? 0 : 10 + refused;
    });
    prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
    expect_allowed(seen);
  }
  SECTION("it stays on the CPU the judge gave it: no affinity changes") {
    expect_refused(sandboxed([] {
      cpu_set_t one;
      CPU_ZERO(&one);
      CPU_SET(0, &one);
      return sched_setaffinity(0, sizeof one, &one);
    }), "sched_setaffinity");
  }
  SECTION("its own code cannot be rewritten: no write through /proc/self/mem") {
    expect_refused(sandboxed([] { return open("/proc/self/mem", O_RDWR) >= 0 ? 0 : 1; }), "openat");
  }
  SECTION("no memory becomes executable") {
    expect_refused(sandboxed([] {
      void* p = mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      return mprotect(p, 4096, PROT_READ | PROT_EXEC);
    }), "mprotect");
    expect_refused(sandboxed([] {
      return mmap(nullptr, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) ==
                     MAP_FAILED ? 1 : 0;
    }), "mmap");
  }
  SECTION("loading maps a file's code; after the load nothing more is mapped executable") {
    auto map_own_code = [] {
      const int fd = open("/proc/self/exe", O_RDONLY);
      if (fd < 0) return 1;
      return mmap(nullptr, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0) == MAP_FAILED ? 2 : 0;
    };
    expect_allowed(sandboxed(map_own_code, /*run_phase=*/false));
    expect_refused(sandboxed(map_own_code), "mmap");
    // Executable and anonymous, or writable and executable: refused even while loading.
    expect_refused(sandboxed([] {
      return mmap(nullptr, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) == MAP_FAILED ? 1 : 0;
    }, false), "mmap");
  }
  SECTION("no files written, no threads, no processes") {
    expect_refused(sandboxed([] { return open("/tmp/socratic-sandbox-test", O_WRONLY | O_CREAT, 0600) >= 0 ? 0 : 1; }),
                   "openat");
    expect_refused(sandboxed([] { return unlink("/tmp/nothing-here") == 0 ? 0 : 1; }), "unlink");
    // glibc's first thread installs its signal handlers, refused first. In a process that has
    // threads already (a worker has the driver's), glibc blocks every signal around clone: the
    // kernel then delivers the refusal's SIGSYS with its default action and the process dies.
    const SandboxedRun thread = sandboxed([] {
      std::thread t([] {});
      t.join();
      return 0;
    });
    INFO("exit " << thread.exit_code << " signal " << thread.signal << " refused " << thread.refused);
    CHECK(((thread.exit_code == sandbox_exit_code &&
            (thread.refused == "clone" || thread.refused == "rt_sigaction")) ||
           thread.signal == SIGSYS));
    expect_refused(sandboxed([] {
      const pid_t p = fork();
      if (p == 0) _exit(0);
      return 0;
    }), "clone");
  }
  SECTION("no signal handlers, timers, other processes or network") {
    expect_refused(sandboxed([] {
      signal(SIGALRM, SIG_IGN);
      return 0;
    }), "rt_sigaction");
    expect_refused(sandboxed([] {
      itimerval v{};
      v.it_value.tv_sec = 1;
      return setitimer(ITIMER_REAL, &v, nullptr);
    }), "setitimer");
    expect_refused(sandboxed([] { return kill(getppid(), 0); }), "kill");
    expect_refused(sandboxed([] { return socket(AF_INET, SOCK_STREAM, 0) >= 0 ? 0 : 1; }), "socket");
  }
  SECTION("abort() still works: a signal to itself") {
    const SandboxedRun r = sandboxed([] {
      abort();
      return 0;
    });
    INFO("exit " << r.exit_code << " signal " << r.signal << " refused " << r.refused);
    CHECK(r.signal == SIGABRT);
  }
}

TEST_CASE("the wire: framing and the checks on what a worker sends", "[harness][wire]") {
  const std::string ok = wire::encode_value(wire::Type::done, 7, wire::CallReply{0, 0, 1.5, 0, 0});
  const wire::Message m = wire::decode(ok.data(), ok.size());
  CHECK(m.type == wire::Type::done);
  CHECK(m.seq == 7);
  CHECK(wire::call_reply(m).event_ms == 1.5);
  CHECK_NOTHROW(wire::expect(m, 7, {wire::Type::done}));
  CHECK_THROWS_WITH(wire::expect(m, 8, {wire::Type::done}), Contains("while request 8 was outstanding"));
  CHECK_THROWS_WITH(wire::expect(m, 7, {wire::Type::ok}), Contains("where ok was expected"));
  CHECK_THROWS_WITH(wire::decode(ok.data(), 10), Contains("shorter than the header"));
  CHECK_THROWS_WITH(wire::decode(ok.data(), ok.size() - 1), Contains("declaring"));
  std::string bad_magic = ok;
  bad_magic[0] ^= 1;
  CHECK_THROWS_WITH(wire::decode(bad_magic.data(), bad_magic.size()), Contains("magic"));
  const std::string negative = wire::encode_value(wire::Type::done, 1, wire::CallReply{0, 0, -1, 0, 0});
  CHECK_THROWS_WITH(wire::call_reply(wire::decode(negative.data(), negative.size())), Contains("event time"));
  const std::string nan = wire::encode_value(wire::Type::done, 1, wire::CallReply{0, 0, std::nan(""), 0, 0});
  CHECK_THROWS(wire::call_reply(wire::decode(nan.data(), nan.size())));
  const std::string short_payload = wire::encode(wire::Type::done, 1, "abc", 3);
  CHECK_THROWS_WITH(wire::decode(short_payload.data(), short_payload.size()).as<wire::CallReply>(),
                    Contains("payload of 3 bytes"));
}

namespace {

struct FakeWorker {
  explicit FakeWorker(const std::string& mode, std::vector<std::string> env = {})
      : link(WorkerLink::spawn({SOCRATIC_FAKE_WORKER, mode}, env, "the candidate's worker", "candidate")) {
    link.receive(0, {wire::Type::hello}, std::chrono::seconds(10));
  }
  wire::Message call() {
    const auto seq = link.send_value(wire::Type::call, wire::CallRequest{1, 2, 0});
    return link.receive(seq, {wire::Type::done}, std::chrono::seconds(3));
  }
  WorkerLink link;
};

WorkerFailure::Kind failure_kind(FakeWorker& w, std::string* what = nullptr) {
  try {
    w.call();
  } catch (const WorkerFailure& e) {
    if (what) *what = e.what();
    CHECK(e.role == "candidate");
    return e.kind;
  }
  FAIL("the call was believed");
  return WorkerFailure::Kind::error;
}

}  // namespace

TEST_CASE("the judge's end of a worker: every misbehaviour is named, none is believed",
          "[harness][wire]") {
  SECTION("an honest worker answers") {
    FakeWorker w("honest");
    CHECK(wire::call_reply(w.call()).event_ms == 1.0);
    CHECK_NOTHROW(w.link.assert_quiet());
  }
  SECTION("a second answer to one call is caught before the next request") {
    FakeWorker w("double_done");
    CHECK(wire::call_reply(w.call()).event_ms == 0.001);
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    CHECK_THROWS_WITH(w.link.assert_quiet(), Contains("an unrequested done message"));
  }
  std::string what;
  SECTION("an answer to the wrong request") {
    FakeWorker w("wrong_seq");
    CHECK(failure_kind(w, &what) == WorkerFailure::Kind::protocol);
    CHECK_THAT(what, Contains("was outstanding"));
  }
  SECTION("bytes that are not a message") {
    FakeWorker w("garbage");
    CHECK(failure_kind(w, &what) == WorkerFailure::Kind::protocol);
    CHECK_THAT(what, Contains("magic"));
  }
  SECTION("an impossible number") {
    FakeWorker w("bad_number");
    CHECK(failure_kind(w, &what) == WorkerFailure::Kind::protocol);
  }
  SECTION("the worker's own error") {
    FakeWorker w("error");
    CHECK(failure_kind(w, &what) == WorkerFailure::Kind::error);
    CHECK_THAT(what, Contains("something broke"));
  }
  SECTION("a worker that exits, or is killed") {
    FakeWorker a("die");
    CHECK(failure_kind(a, &what) == WorkerFailure::Kind::died);
    CHECK_THAT(what, Contains("exited with code 11"));
    FakeWorker b("segv");
    CHECK(failure_kind(b, &what) == WorkerFailure::Kind::died);
    CHECK_THAT(what, Contains("signal 11"));
  }
  SECTION("a worker that never answers") {
    FakeWorker w("hang");
    const auto began = std::chrono::steady_clock::now();
    CHECK(failure_kind(w, &what) == WorkerFailure::Kind::timeout);
    CHECK(std::chrono::steady_clock::now() - began < std::chrono::seconds(6));
  }
  SECTION("a worker that closes its channel and lives on is killed") {
    FakeWorker w("close");
    const pid_t pid = w.link.pid();
    CHECK(failure_kind(w, &what) == WorkerFailure::Kind::died);
    CHECK_THAT(what, Contains("closed its channel and was killed"));
    CHECK(kill(pid, 0) != 0);  // gone
  }
  SECTION("a refused system call is reported by name") {
    FakeWorker w("refuse");
    CHECK(failure_kind(w, &what) == WorkerFailure::Kind::sandbox);
    CHECK_THAT(what, Contains("mprotect") && Contains("may not become executable"));
  }
  SECTION("the worker holds none of the judge's descriptors, and only the environment it is given") {
    const int opened = open("/proc/self/status", O_RDONLY);  // something the judge holds open
    const int judge_fd = fcntl(opened, F_DUPFD, 10);
    close(opened);
    REQUIRE(judge_fd >= 10);
    FakeWorker w("fds", {"PATH=/usr/bin:/bin"});
    CHECK(failure_kind(w, &what) == WorkerFailure::Kind::error);
    CHECK_THAT(what, Contains("fds: ") && Contains("token:absent"));
    std::vector<std::string> fds;
    const std::string list = what.substr(what.find("fds: ") + 5, what.find(" token:") - what.find("fds: ") - 5);
    for (std::size_t at = 0; at < list.size();) {
      const auto sp = list.find(' ', at);
      fds.push_back(list.substr(at, sp == std::string::npos ? std::string::npos : sp - at));
      if (sp == std::string::npos) break;
      at = sp + 1;
    }
    std::sort(fds.begin(), fds.end());
    CHECK(fds == std::vector<std::string>{"0", "1", "2", "3", "4"});  // 4: the listing's own
    close(judge_fd);
  }
  SECTION("stopped, it runs nothing; resumed, it answers") {
    FakeWorker w("honest");
    w.link.stop();
    const auto seq = w.link.send_value(wire::Type::call, wire::CallRequest{1, 2, 0});
    CHECK_THROWS_AS(w.link.receive(seq, {wire::Type::done}, std::chrono::milliseconds(300)), WorkerFailure);
    w.link.resume();
    CHECK(wire::call_reply(w.link.receive(seq, {wire::Type::done}, std::chrono::seconds(3))).event_ms == 1.0);
  }
  SECTION("both workers run on one CPU, the same for each") {
    WorkerLink a = WorkerLink::spawn({SOCRATIC_FAKE_WORKER, "hang"}, {}, "the candidate's worker");
    WorkerLink b = WorkerLink::spawn({SOCRATIC_FAKE_WORKER, "hang"}, {}, "the baseline's worker");
    auto cpus_of = [](pid_t pid) {
      cpu_set_t set;
      CPU_ZERO(&set);
      REQUIRE(sched_getaffinity(pid, sizeof set, &set) == 0);
      return set;
    };
    const cpu_set_t ca = cpus_of(a.pid()), cb = cpus_of(b.pid());
    CHECK(CPU_COUNT(&ca) == 1);
    CHECK(CPU_EQUAL(&ca, &cb));
  }
  SECTION("the worker dies with the judge") {
    int pipe_fd[2];
    REQUIRE(pipe(pipe_fd) == 0);
    const pid_t judge = fork();
    if (judge == 0) {  // a judge that starts a worker, says its pid, and is killed
      close(pipe_fd[0]);
      WorkerLink link = WorkerLink::spawn({SOCRATIC_FAKE_WORKER, "hang"}, {}, "worker");
      const pid_t worker = link.pid();
      ssize_t ignored = write(pipe_fd[1], &worker, sizeof worker);
      (void)ignored;
      pause();
      _exit(0);
    }
    close(pipe_fd[1]);
    pid_t worker = 0;
    REQUIRE(read(pipe_fd[0], &worker, sizeof worker) == static_cast<ssize_t>(sizeof worker));
    close(pipe_fd[0]);
    CHECK(kill(worker, 0) == 0);
    kill(judge, SIGKILL);
    waitpid(judge, nullptr, 0);
    // Gone, or a zombie waiting for whoever inherited it to reap it: either way it runs no more.
    auto ended = [&] {
      std::ifstream stat("/proc/" + std::to_string(worker) + "/stat");
      std::string pid_text, name, state;
      if (!(stat >> pid_text >> name >> state)) return true;
      return state == "Z" || state == "X";
    };
    bool gone = false;
    for (int i = 0; i < 100 && !gone; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      gone = ended();
    }
    CHECK(gone);
  }
}
