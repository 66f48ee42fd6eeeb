// Benchmarks of the candidate store and the coordinator (docs/benchmarks.md, "The candidate
// store"). Prints figures; writes nothing outside a temporary folder.
//   store_bench open [N]       a store of N (100,000) records: open with its index, after a kill
//                              (index tail lost, torn line), without an index; appends with fsync
//   store_bench coordinator    64 agents proposing at once against a simulated executor pace
#include <chrono>
#include <ctime>
#include <cstdio>
#include <iostream>

#include "store_fixtures.hpp"

using namespace socratic;
using namespace store_fixtures;
using clock_type = std::chrono::steady_clock;

namespace {

double seconds_since(clock_type::time_point t) { return std::chrono::duration<double>(clock_type::now() - t).count(); }

std::filesystem::path temp(const std::string& name) {
  auto d = std::filesystem::temp_directory_path() / ("socratic-store-bench-" + name + "-" + std::to_string(::getpid()));
  std::filesystem::remove_all(d);
  return d;
}

double cpu_seconds() { return static_cast<double>(std::clock()) / CLOCKS_PER_SEC; }

// Wall time of open(); the CPU time it used goes to `cpu` (the machine is shared: wall time
// includes waiting for a core).
double timed_open(const std::filesystem::path& dir, StoreOpenReport* report = nullptr, double* cpu = nullptr) {
  const auto t = clock_type::now();
  const double c = cpu_seconds();
  auto store = CandidateStore::open(dir);
  const double s = seconds_since(t);
  if (cpu) *cpu = cpu_seconds() - c;
  if (report) *report = store.opened();
  return s;
}

int bench_open(std::size_t n) {
  const auto dir = temp("open");
  PreparedMeasure m;
  m.scenarios = {"llama3_8b_s2048_b4", "mistral_7b_s4096_b2", "qwen25_7b_s2048_b4", "gemma2_9b_s4096_b2"};
  const auto file = dir / "work" / "kernel.cu";
  write_text(file, "ms 0.97\n");
  const EvalReport report = m(Candidate{file}, std::nullopt, GateRunRequest{0, 1});
  {
    StoreOptions fast;
    fast.sync = false;  // building the fixture; appends with fsync are timed below
    auto store = CandidateStore::open(dir, fast);
    const auto t = clock_type::now();
    std::vector<std::string> ids;
    for (std::size_t i = 0; i < n; ++i) {
      StoreRecord r = record_of("a" + std::to_string(i % 64), report, i % 50 == 0 ? GateOutcome::admitted : GateOutcome::refused,
                                i ? std::vector<std::string>{ids[(i - 1) / 2]} : std::vector<std::string>{},
                                "a" + std::to_string(i % 64) + "/" + std::to_string(i / 64));
      r.snapshot.hash = std::string(64, 'a');
      ids.push_back(store.append(std::move(r)).record.id);
      if (i % 1000 == 999) store.note("a" + std::to_string(i % 64), "note " + std::to_string(i));
    }
    std::printf("built %zu records (+%zu notes) in %.2f s without fsync\n", n, n / 1000, seconds_since(t));
  }
  {  // as a coordinator leaves it: every record on disk (it syncs each one)
    const auto t = clock_type::now();
    for (const char* name : {"store.jsonl", "store.index"}) {
      const int fd = ::open((dir / name).c_str(), O_RDONLY);
      if (fd >= 0) ::fsync(fd), ::close(fd);
    }
    std::printf("synced the fixture in %.2f s\n", seconds_since(t));
  }
  const double log_mb = static_cast<double>(std::filesystem::file_size(dir / "store.jsonl")) / 1e6;
  const double index_mb = static_cast<double>(std::filesystem::file_size(dir / "store.index")) / 1e6;
  std::printf("log %.1f MB, index %.1f MB\n", log_mb, index_mb);

  StoreOpenReport r;
  double best = 1e9, cpu = 0, best_cpu = 1e9;
  for (int i = 0; i < 5; ++i) best = std::min(best, timed_open(dir, &r, &cpu)), best_cpu = std::min(best_cpu, cpu);
  std::printf("open with the index:                      %.3f s wall, %.3f s CPU (best of 5; %zu from the index, %zu from the log)\n",
              best, best_cpu, r.from_index, r.from_log);

  // A kill between the log and the index: the last 1,000 index lines lost, and a torn log line.
  {
    const std::string index = read_file_bytes(dir / "store.index");
    std::size_t cut = index.size() - 1;
    for (int lines = 0; lines < 1000; --cut)
      if (index[cut - 1] == '\n') ++lines;
    write_text(dir / "store.index", index.substr(0, cut + 1));
    std::ofstream(dir / "store.jsonl", std::ios::app | std::ios::binary) << "{\"v\":1,\"type\":\"candidate\",\"seq\":";
  }
  const double resumed = timed_open(dir, &r, &cpu);
  std::printf("resume after a kill (1,000 unindexed, torn): %.3f s wall, %.3f s CPU (%zu from the index, %zu from the log, torn %s)\n",
              resumed, cpu, r.from_index, r.from_log, r.truncated_tail ? "cut" : "none");

  std::filesystem::remove(dir / "store.index");
  const double rebuilt = timed_open(dir, &r, &cpu);
  std::printf("open without an index (rebuilt from the log): %.3f s wall, %.3f s CPU\n", rebuilt, cpu);

  auto store = CandidateStore::open(dir);
  std::vector<double> appends;
  for (int i = 0; i < 200; ++i) {
    const auto t = clock_type::now();
    store.append(record_of("bench", report, GateOutcome::refused));
    appends.push_back(seconds_since(t) * 1e3);
  }
  std::sort(appends.begin(), appends.end());
  std::printf("append with fdatasync: median %.3f ms, p90 %.3f ms (200 appends)\n", appends[100], appends[180]);
  const auto t = clock_type::now();
  for (int i = 0; i < 1000; ++i) (void)store.view();
  std::printf("view() of the %zu-record store: %.3f ms\n", store.size(), seconds_since(t));
  if (!std::getenv("STORE_BENCH_KEEP")) std::filesystem::remove_all(dir);
  else std::printf("kept %s\n", dir.c_str());
  return best < 2.0 && resumed < 2.0 ? 0 : 1;
}

int bench_coordinator() {
  std::printf("%-7s %-10s %-10s %-8s %-10s %-16s %-15s %s\n", "agents", "pace (ms)", "proposals", "wall s", "gated / s",
              "executor busy", "at full pace /s", "coordinator time per proposal (outside the executor)");
  for (const auto& [agents, pace_ms] : std::vector<std::pair<int, int>>{{1, 0}, {64, 0}, {1, 20}, {64, 20}, {64, 200}}) {
    const auto root = temp("coordinator");
    PreparedMeasure measure;
    measure.samples = 10;
    measure.delay = std::chrono::milliseconds(pace_ms);
    BaselineEvaluator evaluator{measure};
    NumberedQuestions questions;
    ParallelConfig config;
    config.drafts.plateau_attempts = 16;
    const int total = pace_ms == 0 ? 1280 : pace_ms < 100 ? 320 : 96;
    config.max_proposals = total;
    ParallelCampaign campaign(evaluator, PairMeasure(measure), questions, never_met, campaign_in(root), config);
    for (int a = 0; a < agents; ++a) {
      ParallelAgentSpec s;
      s.id = "a" + std::to_string(a);
      s.workspace = root / s.id;
      s.candidate.source = root / s.id / "kernel.cu";
      ProposingAgent agent;
      for (int i = 0; i < 64; ++i) agent.contents.push_back("ms " + std::to_string(1.0 - 0.0005 * (a + i)) + "\n// " + s.id + "\n");
      campaign.add_agent(s, AnyAgent(std::move(agent)));
    }
    const auto t = clock_type::now();
    const ParallelResult r = campaign.run();
    const double wall = seconds_since(t);
    const int measured = *measure.calls;  // gate runs + incumbent checks
    const double busy = static_cast<double>(*measure.busy_ns) / 1e9;
    const double rate = r.gated_now / wall;
    const double full_pace = busy > 0 ? r.gated_now / busy : 0;
    std::printf("%-7d %-10d %-10d %-8.2f %-10.1f %-16s %-15.1f %.2f ms (%d measurements)\n", agents, pace_ms, r.gated_now, wall,
                rate, (std::to_string(static_cast<int>(100 * busy / wall + 0.5)) + " %").c_str(), full_pace,
                (wall - busy) / r.gated_now * 1000, measured);
    std::filesystem::remove_all(root);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string what = argc > 1 ? argv[1] : "";
  try {
    if (what == "open") return bench_open(argc > 2 ? std::stoul(argv[2]) : 100000);
    if (what == "coordinator") return bench_coordinator();
  } catch (const std::exception& e) {
    std::cerr << "store_bench: " << e.what() << "\n";
    return 1;
  }
  std::cerr << "usage: store_bench open [N] | coordinator\n";
  return 2;
}
