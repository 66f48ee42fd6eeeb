// Append cost per trace event: one writer alone; two writers in one process taking turns (every
// append first reads the other's line); P processes appending at once (and how many seqs came
// out duplicated). Built against a given trace.hpp (run.sh builds it against the locked writer
// and against the one before it). Usage: trace_append_bench DIR [EVENTS] [PROCESSES]
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "socratic/campaign/trace.hpp"

using namespace socratic;
using clock_type = std::chrono::steady_clock;

namespace {

// About the size of a tool_call/usage line: ~250 bytes.
json sample_event(int k) {
  return {{"type", "usage"},
          {"agent", "a1"},
          {"turn", k},
          {"elapsed_s", 12.5},
          {"usage", {{"input_tokens", 1234}, {"output_tokens", 567}, {"cost_usd", 0.0123}, {"requests", 1}}},
          {"note", std::string(80, 'x')}};
}

double ns_per_event(clock_type::duration d, int events) {
  return std::chrono::duration<double, std::nano>(d).count() / events;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s DIR [EVENTS] [PROCESSES]\n", argv[0]);
    return 2;
  }
  const std::filesystem::path dir = argv[1];
  const int events = argc > 2 ? std::stoi(argv[2]) : 20000;
  const int processes = argc > 3 ? std::stoi(argv[3]) : 4;
  std::filesystem::create_directories(dir);

  {  // one writer, the usual case: the campaign alone
    const auto path = dir / "single.jsonl";
    std::filesystem::remove(path);
    TraceWriter w(path);
    const auto t0 = clock_type::now();
    for (int k = 0; k < events; ++k) w.write(sample_event(k));
    const auto t1 = clock_type::now();
    w.sync();
    std::printf("single writer      : %8.0f ns/event (%d events)\n", ns_per_event(t1 - t0, events), events);
  }
  {  // two writers taking turns: each append catches up one line written by the other
    const auto path = dir / "alternating.jsonl";
    std::filesystem::remove(path);
    TraceWriter a(path), b(path);
    const auto t0 = clock_type::now();
    for (int k = 0; k < events; ++k) (k % 2 ? b : a).write(sample_event(k));
    const auto t1 = clock_type::now();
    std::printf("two writers, turns : %8.0f ns/event (%d events)\n", ns_per_event(t1 - t0, events), events);
  }
  {  // P processes at once, events/P each
    const auto path = dir / "processes.jsonl";
    std::filesystem::remove(path);
    const int each = events / processes;
    int go[2];
    if (::pipe(go) != 0) return 1;
    std::vector<pid_t> pids;
    for (int p = 0; p < processes; ++p) {
      const pid_t pid = ::fork();
      if (pid == 0) {
        ::close(go[1]);
        TraceWriter w(path);
        char c;
        (void)::read(go[0], &c, 1);
        for (int k = 0; k < each; ++k) w.write(sample_event(k));
        ::_exit(0);
      }
      pids.push_back(pid);
    }
    ::close(go[0]);
    const auto t0 = clock_type::now();
    ::close(go[1]);
    for (pid_t pid : pids) ::waitpid(pid, nullptr, 0);
    const auto t1 = clock_type::now();
    const auto lines = read_trace(path).events;
    std::map<std::int64_t, int> seen;
    for (const auto& e : lines) ++seen[e.value("seq", std::int64_t{-1})];
    int duplicated = 0;
    for (const auto& [seq, n] : seen) duplicated += n > 1 ? n : 0;
    std::printf("%d processes at once: %8.0f ns/event wall (%d events, %zu lines, %zu distinct seqs, %d lines share a seq)\n",
                processes, ns_per_event(t1 - t0, each * processes), each * processes, lines.size(), seen.size(),
                duplicated);
  }
  return 0;
}
