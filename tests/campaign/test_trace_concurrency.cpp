// Several processes append to one trace at once (the campaign, the Stop hook, `socratic mcp`):
// every line gets its own seq, nothing is lost, and a writer killed mid-line is repaired.
#include "catch.hpp"

#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <set>
#include <thread>

#include "fixtures.hpp"

using namespace socratic;
using namespace fixtures;

namespace {

/// Forks a child that dies with this process and runs `body`; the child exits 0 when it returns,
/// 1 when it throws.
template <class F>
pid_t fork_child(F&& body) {
  const pid_t pid = ::fork();
  if (pid != 0) return pid;
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  try {
    body();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "child %d: %s\n", static_cast<int>(::getpid()), e.what());
    ::_exit(1);
  }
  ::_exit(0);
}

/// Waits for every child up to `limit`, then kills what is left. Returns the exit statuses.
std::vector<int> wait_all(const std::vector<pid_t>& pids, std::chrono::seconds limit) {
  std::vector<int> statuses(pids.size(), -1);
  const auto deadline = std::chrono::steady_clock::now() + limit;
  std::size_t left = pids.size();
  while (left > 0) {
    for (std::size_t i = 0; i < pids.size(); ++i) {
      if (statuses[i] != -1) continue;
      int status = 0;
      if (::waitpid(pids[i], &status, WNOHANG) == pids[i]) {
        statuses[i] = status;
        --left;
      }
    }
    if (left == 0) break;
    if (std::chrono::steady_clock::now() > deadline) {
      for (std::size_t i = 0; i < pids.size(); ++i)
        if (statuses[i] == -1) {
          ::kill(pids[i], SIGKILL);
          ::waitpid(pids[i], &statuses[i], 0);
        }
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return statuses;
}

std::vector<std::string> lines_of(const std::filesystem::path& path) {
  std::vector<std::string> out;
  std::ifstream in(path, std::ios::binary);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

}  // namespace

TEST_CASE("processes appending to one trace at once get distinct, dense seqs", "[trace][concurrency]") {
  auto dir = fresh_dir("trace_procs");
  const auto path = dir / "trace.jsonl";
  constexpr int writers = 8;
  constexpr int events_each = 200;
  { TraceWriter(path).write({{"type", "campaign_started"}}); }  // seq 0, read by every opener

  int start_pipe[2];
  REQUIRE(::pipe(start_pipe) == 0);
  std::vector<pid_t> pids;
  for (int w = 0; w < writers; ++w) {
    pids.push_back(fork_child([&, w] {
      ::close(start_pipe[1]);
      TraceWriter writer(path);  // opened before anyone appends: the old writer numbered from here
      char go = 0;
      if (::read(start_pipe[0], &go, 1) < 0) throw error("start pipe");  // EOF: all start at once
      const std::string pad(120, static_cast<char>('a' + w));
      for (int k = 0; k < events_each; ++k)
        writer.write({{"type", "probe"}, {"agent", "w" + std::to_string(w)}, {"k", k}, {"pad", pad}});
      writer.sync();
    }));
    REQUIRE(pids.back() > 0);
  }
  ::close(start_pipe[0]);
  ::close(start_pipe[1]);  // starts them
  const auto statuses = wait_all(pids, std::chrono::seconds(120));
  for (int s : statuses) CHECK((WIFEXITED(s) && WEXITSTATUS(s) == 0));

  const auto lines = lines_of(path);
  const std::size_t total = 1 + writers * events_each;
  REQUIRE(lines.size() == total);
  std::vector<std::int64_t> seqs;
  std::map<std::string, std::vector<int>> ks_by_writer;
  for (const auto& line : lines) {
    json e;
    REQUIRE_NOTHROW(e = json::parse(line));
    seqs.push_back(e.at("seq").get<std::int64_t>());
    if (e["type"] == "probe") ks_by_writer[e["agent"].get<std::string>()].push_back(e["k"].get<int>());
  }
  // In file order, seq is exactly 0, 1, 2, ...: each append numbered after the one before it.
  for (std::size_t i = 0; i < seqs.size(); ++i) REQUIRE(seqs[i] == static_cast<std::int64_t>(i));
  REQUIRE(ks_by_writer.size() == static_cast<std::size_t>(writers));
  for (const auto& [agent, ks] : ks_by_writer) {
    INFO(agent);
    REQUIRE(ks.size() == static_cast<std::size_t>(events_each));
    CHECK(std::is_sorted(ks.begin(), ks.end()));
  }
  const auto contents = read_trace(path);
  CHECK_FALSE(contents.truncated_tail);
  CHECK(contents.events.size() == total);

  // A writer that stayed open all along numbers after everything the others wrote.
  TraceWriter late(path);
  CHECK(late.write({{"type", "after"}}) == static_cast<std::int64_t>(total));
}

TEST_CASE("two writers open on one trace number after each other's lines", "[trace][concurrency]") {
  auto dir = fresh_dir("trace_two");
  const auto path = dir / "trace.jsonl";
  TraceWriter first(path);
  TraceWriter second(path);
  CHECK(first.write({{"type", "a"}}) == 0);
  CHECK(second.write({{"type", "b"}}) == 1);
  CHECK(first.write({{"type", "c"}}) == 2);
  CHECK(second.write({{"type", "d"}}) == 3);
  const auto events = read_trace(path).events;
  REQUIRE(events.size() == 4);
  for (std::size_t i = 0; i < events.size(); ++i) CHECK(events[i]["seq"] == static_cast<std::int64_t>(i));
}

TEST_CASE("a writer killed mid-line is repaired by the next append of a writer already open",
          "[trace][concurrency]") {
  auto dir = fresh_dir("trace_killed");
  const auto path = dir / "trace.jsonl";
  TraceWriter survivor(path);  // open before the kill: it must notice the torn line itself
  CHECK(survivor.write({{"type", "a"}}) == 0);

  // A process writes half a line and is killed before the rest.
  const pid_t pid = fork_child([&] {
    TraceWriter doomed(path);
    doomed.write({{"type", "b"}});  // seq 1, complete
    const int fd = ::open(path.c_str(), O_WRONLY | O_APPEND);
    const std::string half = R"({"v":1,"type":"evaluation","seq":2,"record":{"ind)";
    if (fd < 0 || ::write(fd, half.data(), half.size()) != static_cast<ssize_t>(half.size()))
      throw error("half line");
    ::raise(SIGKILL);
  });
  const auto statuses = wait_all({pid}, std::chrono::seconds(30));
  REQUIRE(WIFSIGNALED(statuses[0]));
  REQUIRE(WTERMSIG(statuses[0]) == SIGKILL);
  CHECK(read_trace(path).truncated_tail);

  CHECK(survivor.write({{"type", "c"}}) == 2);  // after b, which it did not write
  REQUIRE(survivor.warnings().size() == 1);
  CHECK_THAT(survivor.warnings()[0], Catch::Matchers::Contains("torn last line"));
  const auto lines = lines_of(path);
  REQUIRE(lines.size() == 3);
  for (const auto& line : lines) CHECK_NOTHROW(json::parse(line));
  const auto contents = read_trace(path);
  CHECK_FALSE(contents.truncated_tail);
  REQUIRE(contents.events.size() == 3);
  CHECK(contents.events[1]["type"] == "b");
  CHECK(contents.events[2]["type"] == "c");
  CHECK(contents.events[2]["seq"] == 2);
}
