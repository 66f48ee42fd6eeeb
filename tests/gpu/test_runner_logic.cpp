// The runner's host-side logic and the adversarial corpus's bookkeeping, without a GPU.
#include "catch.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "cli.hpp"
#include "peaks.hpp"
#include "proc_self.hpp"
#include "result.hpp"
#include "scenario_file.hpp"
#include "secret.hpp"
#include "socratic/core/report.hpp"
#include "socratic/core/scenario.hpp"
#include "stats.hpp"

#ifdef SOCRATIC_RUNNER
#include "socratic/process/run_process.hpp"
#endif

using namespace socratic::harness;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

const fs::path source_dir = SOCRATIC_SOURCE_DIR;

RunnerOptions parse(std::vector<std::string> args) {
  args.insert(args.begin(), "socratic-runner-test");
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  return parse_runner_options(static_cast<int>(argv.size()), argv.data());
}

json read_json(const fs::path& p) {
  std::ifstream in(p);
  REQUIRE(in.good());
  return json::parse(in);
}

std::string read_text(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The `flags` vocabulary as docs/runner-protocol.md lists it.
std::set<std::string> documented_flags() {
  const std::string doc = read_text(source_dir / "docs/runner-protocol.md");
  const std::size_t at = doc.find("`flags` vocabulary:");
  REQUIRE(at != std::string::npos);
  const std::size_t end = doc.find("\n\n", at);
  const std::string list = doc.substr(at + 19, end - at - 19);
  std::set<std::string> out;
  const std::regex word("`([a-z_0-9]+)`");
  for (std::sregex_iterator it(list.begin(), list.end(), word), stop; it != stop; ++it)
    out.insert((*it)[1]);
  return out;
}

}  // namespace

TEST_CASE("runner command line: defaults, every option, and errors that name the option",
          "[harness][cli]") {
  const RunnerOptions d =
      parse({"--baseline", "b.so", "--candidate", "c.so", "--scenarios", "s.json"});
  CHECK(d.baseline == "b.so");
  CHECK(d.k == Approx(2.0));
  CHECK(d.timing);
  CHECK(d.min_samples == 12);  // a multiple of the placements (3) and of attention's regimes (4)
  CHECK(d.placements == 3);
  CHECK(d.max_samples == 200);
  CHECK(d.target_noise == Approx(0.005));
  CHECK(d.max_ms_per_scenario == Approx(3000));
  CHECK(d.trials == 3);
  CHECK(d.guard_elements == 16384);

  const RunnerOptions o = parse({"--baseline",
                                 "b.so",
                                 "--candidate",
                                 "c.so",
                                 "--scenarios",
                                 "s.json",
                                 "--only",
                                 "a,b",
                                 "--only",
                                 "c",
                                 "--seed",
                                 "18446744073709551615",
                                 "--k",
                                 "3.5",
                                 "--no-timing",
                                 "--min-samples",
                                 "3",
                                 "--max-samples",
                                 "7",
                                 "--target-noise",
                                 "0.01",
                                 "--max-ms-per-scenario",
                                 "250",
                                 "--trials",
                                 "4",
                                 "--warmup",
                                 "0",
                                 "--recheck-every",
                                 "2",
                                 "--guard-elements",
                                 "64",
                                 "--scenario-timeout-s",
                                 "0",
                                 "--placements",
                                 "1"});
  CHECK(o.only == std::vector<std::string>{"a", "b", "c"});
  REQUIRE(o.seed);
  CHECK(*o.seed == 18446744073709551615ull);
  CHECK_FALSE(d.seed);  // no seed: a fresh secret key per run
  CHECK(d.launch_hold);
  CHECK_FALSE(parse({"--baseline", "b.so", "--candidate", "c.so", "--scenarios", "s.json",
                     "--no-launch-hold"})
                  .launch_hold);
  CHECK(o.k == Approx(3.5));
  CHECK_FALSE(o.timing);
  CHECK(o.min_samples == 3);
  CHECK(o.max_samples == 7);
  CHECK(o.target_noise == Approx(0.01));
  CHECK(o.max_ms_per_scenario == Approx(250));
  CHECK(o.trials == 4);
  CHECK(o.warmup == 0);
  CHECK(o.recheck_every == 2);
  CHECK(o.guard_elements == 64);
  CHECK(o.scenario_timeout_s == Approx(0));
  CHECK(o.placements == 1);

  const std::vector<std::string> base = {"--baseline", "b.so",        "--candidate",
                                         "c.so",       "--scenarios", "s.json"};
  auto with = [&](std::vector<std::string> extra) {
    auto a = base;
    a.insert(a.end(), extra.begin(), extra.end());
    return a;
  };
  CHECK_THROWS_WITH(parse({"--candidate", "c.so", "--scenarios", "s.json"}),
                    Catch::Matchers::Contains("--baseline"));
  CHECK_THROWS_WITH(parse(with({"--k"})), Catch::Matchers::Contains("--k needs a value"));
  CHECK_THROWS_WITH(parse(with({"--k", "two"})),
                    Catch::Matchers::Contains("--k: expected a number"));
  CHECK_THROWS_WITH(parse(with({"--k", "0"})), Catch::Matchers::Contains("--k: must be > 0"));
  CHECK_THROWS_WITH(parse(with({"--seed", "-1"})), Catch::Matchers::Contains("--seed"));
  CHECK_THROWS_WITH(parse(with({"--only", "a,,b"})),
                    Catch::Matchers::Contains("empty scenario id"));
  CHECK_THROWS_WITH(parse(with({"--trials", "1"})), Catch::Matchers::Contains("--trials"));
  CHECK_THROWS_WITH(parse(with({"--placements", "0"})), Catch::Matchers::Contains("--placements"));
  CHECK_THROWS_WITH(parse(with({"--min-samples", "20", "--max-samples", "10"})),
                    Catch::Matchers::Contains("larger than --max-samples"));
  CHECK_THROWS_WITH(parse(with({"--fast"})),
                    Catch::Matchers::Contains("unknown option \"--fast\""));
  CHECK_THROWS_WITH(parse(with({"--options-stdin"})),
                    Catch::Matchers::Contains("--options-stdin must be the only word"));
}

TEST_CASE("the options on standard input: one word a line, spaces kept, no empty word",
          "[harness][cli]") {
  const auto words = option_words_from_text("--baseline\n/a b/base.so\n--candidate\nc.so\n"
                                            "--scenarios\ns.json\n--seed\n7\n");
  REQUIRE(words.size() == 8);
  CHECK(words[1] == "/a b/base.so");
  const RunnerOptions o = parse_runner_words(words);
  CHECK(o.baseline == "/a b/base.so");
  REQUIRE(o.seed);
  CHECK(*o.seed == 7);
  CHECK(option_words_from_text("--k\n3") == std::vector<std::string>{"--k", "3"});
  CHECK_THROWS_WITH(option_words_from_text("--k\n\n3\n"), Catch::Matchers::Contains("empty line 2"));
}

TEST_CASE("the judge's secret: SipHash-2-4, fresh keys, streams that say nothing of each other",
          "[harness][secret]") {
  // The reference vector of SipHash-2-4 (Aumasson and Bernstein): key 00..0f, message 00..0e.
  unsigned char message[15];
  for (int i = 0; i < 15; ++i) message[i] = static_cast<unsigned char>(i);
  CHECK(siphash24(0x0706050403020100ull, 0x0F0E0D0C0B0A0908ull, message, 15) ==
        0xA129CA6149BE45E5ull);
  CHECK(siphash24(0x0706050403020100ull, 0x0F0E0D0C0B0A0908ull, message, 0) == 0x726FDB47DD0E0E31ull);

  // Two runs without a seed share nothing; a seed makes a run reproducible.
  const JudgeSecret a = JudgeSecret::fresh(), b = JudgeSecret::fresh();
  CHECK_FALSE(a.reproducible());
  CHECK(a.value(SecretUse::inputs, 1, 0) != b.value(SecretUse::inputs, 1, 0));
  const JudgeSecret s = JudgeSecret::from_seed(5), t = JudgeSecret::from_seed(5);
  CHECK(s.reproducible());
  CHECK(s.value(SecretUse::inputs, 9, 3) == t.value(SecretUse::inputs, 9, 3));
  CHECK(s.value(SecretUse::inputs, 9, 3) != JudgeSecret::from_seed(6).value(SecretUse::inputs, 9, 3));
  // Uses, scopes and indices are separate streams.
  CHECK(s.value(SecretUse::inputs, 9, 3) != s.value(SecretUse::poison, 9, 3));
  CHECK(s.value(SecretUse::inputs, 9, 3) != s.value(SecretUse::inputs, 10, 3));
  CHECK(s.value(SecretUse::inputs, 9, 3) != s.value(SecretUse::inputs, 9, 4));

  // Knowing call i's seed (a worker can recover it from the inputs it sees) tells nothing of
  // call i+1's: their difference and xor are spread over all 64 bits, unlike the old chain
  // mix64(seed ^ (C + s)), which a worker could invert.
  int bits_differing = 0;
  for (std::uint64_t i = 0; i < 256; ++i)
    bits_differing += __builtin_popcountll(a.value(SecretUse::inputs, 1, i) ^ a.value(SecretUse::inputs, 1, i + 1));
  CHECK(bits_differing / 256.0 == Approx(32).margin(2));
}

TEST_CASE("the timed calls the judge also checks against the reference: rate 1/N, unforeseeable",
          "[harness][secret]") {
  // Which sample gets the full reference check is drawn after the sample, at rate 1/8. (Every
  // timed output is also compared with the baseline's, always: a candidate that skips the
  // work in any timed call is caught with probability 1; one whose timed outputs stay inside
  // the agreement bound but outside the tolerance in a share f of its n samples is caught by
  // this draw with probability 1 - (1 - f/8)^n: 71 % for f = 0.5, n = 20.)
  const JudgeSecret k = JudgeSecret::fresh();
  int picked = 0, picked_after_picked = 0, after_picked = 0;
  bool previous = false;
  const int n = 200000;
  for (int i = 0; i < n; ++i) {
    const bool p = k.chance(SecretUse::recheck, 77, static_cast<std::uint64_t>(i), 1.0 / 8);
    picked += p;
    if (previous) {
      ++after_picked;
      picked_after_picked += p;
    }
    previous = p;
  }
  CHECK(picked / double(n) == Approx(0.125).margin(0.003));
  // No serial pattern: after a picked sample the rate is the same.
  CHECK(picked_after_picked / double(after_picked) == Approx(0.125).margin(0.01));
  // The same position in another run (another key) is picked independently.
  const JudgeSecret other = JudgeSecret::fresh();
  int both = 0;
  for (int i = 0; i < n; ++i)
    both += k.chance(SecretUse::recheck, 77, static_cast<std::uint64_t>(i), 0.5) &&
            other.chance(SecretUse::recheck, 77, static_cast<std::uint64_t>(i), 0.5);
  CHECK(both / double(n) == Approx(0.25).margin(0.005));
  CHECK(k.chance(SecretUse::recheck, 1, 1, 1.0));
  CHECK_FALSE(k.chance(SecretUse::recheck, 1, 1, 0.0));
}

TEST_CASE("timing statistics: median, robust spread, stopping rule", "[harness][stats]") {
  CHECK(std::isnan(median({})));
  CHECK(median({3, 1, 2}) == Approx(2));
  CHECK(median({4, 1, 3, 2}) == Approx(2.5));
  // MAD of {9,10,10,10,11,100} around median 10 is 0.5 (robust to the 100).
  CHECK(relative_spread({9, 10, 10, 10, 11, 100}) == Approx(1.4826 * 0.5 / 10));
  CHECK(std::isnan(relative_spread({1})));
  std::vector<double> few = {1.00, 1.02, 0.98, 1.01, 0.99}, many;
  for (int i = 0; i < 20; ++i) many.insert(many.end(), few.begin(), few.end());
  CHECK(relative_spread(many) == Approx(relative_spread(few)));
  CHECK(median_relative_error(many) < median_relative_error(few) / 4);

  CHECK(stop_rule(5, 0.001, 0.001, 10, 10, 200, 0.005, 3000) == StopReason::keep_going);  // too few
  CHECK(stop_rule(10, 0.001, 0.004, 10, 10, 200, 0.005, 3000) == StopReason::converged);
  CHECK(stop_rule(10, 0.001, 0.006, 10, 10, 200, 0.005, 3000) ==
        StopReason::keep_going);  // baseline noisy
  CHECK(stop_rule(200, 0.1, 0.1, 10, 10, 200, 0.005, 3000) == StopReason::sample_cap);
  CHECK(stop_rule(12, 0.1, 0.1, 3000, 10, 200, 0.005, 3000) == StopReason::time_cap);
  CHECK(stop_rule(12, std::nan(""), 0.001, 10, 10, 200, 0.005, 3000) == StopReason::keep_going);
}

TEST_CASE("the judge's clock against a worker's events: overhead calibrated by the baseline",
          "[harness][stats]") {
  // Residuals as measured on the H200 (device probe, 2026-12-01): about 298 us of path overhead
  // (two context switches, the messages, the fence), MAD about 1 us, growing about 0.8% of a
  // call's length.
  auto samples = [](double event_ms, double residual_us, int n, double jitter_us = 1.0) {
    std::vector<double> ev, wall;
    for (int i = 0; i < n; ++i) {
      const double j = jitter_us * ((i % 5) - 2) / 2.0;
      ev.push_back(event_ms);
      wall.push_back(event_ms + (residual_us + j) / 1e3);
    }
    return std::make_pair(ev, wall);
  };
  const auto [eb, wb] = samples(2.0, 314, 20);
  SECTION("an honest candidate, faster than the baseline, passes") {
    const auto [ec, wc] = samples(0.2, 301, 20);
    const ClockVerdict v = clock_check(ec, wc, eb, wb);
    CHECK_FALSE(v.mismatch);
    CHECK(v.candidate_residual_us == Approx(301).margin(1));
    CHECK(v.baseline_residual_us == Approx(314).margin(1));
    CHECK(v.allowance_us > 60);
  }
  SECTION("a worker that reports a third of its time is caught") {
    auto [ec, wc] = samples(0.3, 301, 20);
    for (auto& e : ec) e /= 3;  // 0.1 ms claimed for 0.3 ms of work
    const ClockVerdict v = clock_check(ec, wc, eb, wb);
    CHECK(v.mismatch);
    CHECK(v.excess_us == Approx(200 - 13).margin(2));
  }
  SECTION("work left on another stream: the fence waits for it, the events do not") {
    const auto [ec, wc] = samples(0.05, 301 + 150, 20);
    CHECK(clock_check(ec, wc, eb, wb).mismatch);
  }
  SECTION("a gain under the allowance cannot be told from jitter, and the allowance is small") {
    const auto [ec, wc] = samples(0.2, 314 + 40, 20);
    const ClockVerdict v = clock_check(ec, wc, eb, wb);
    CHECK_FALSE(v.mismatch);
    CHECK(v.allowance_us < 90);  // 60 us + 1% of the 2 ms baseline + the noise term
  }
  SECTION("nothing to compare: no verdict") {
    CHECK_FALSE(clock_check({}, {}, eb, wb).mismatch);
    CHECK_FALSE(clock_check({1.0}, {}, eb, wb).mismatch);
  }
}

TEST_CASE("the quiet check: fences that wait after the candidate's calls only", "[harness][stats]") {
  const std::vector<double> quiet = {12, 11, 13, 12, 14, 12};
  CHECK_FALSE(gpu_busy_after_candidate(quiet, quiet));
  CHECK(gpu_busy_after_candidate({300, 280, 310, 12, 295}, quiet));  // a hog left running
  CHECK_FALSE(gpu_busy_after_candidate({40, 45, 38}, quiet));        // under the allowance
  CHECK_FALSE(gpu_busy_after_candidate({}, quiet));
}

TEST_CASE("roofline floor: DRAM reads, outputs beyond the L2, flops", "[harness][roofline]") {
  // rmsnorm 32768 x 8192 bf16 on an H200 table entry: x (512 MiB) + y (512 MiB) + weight.
  const double elems = 32768.0 * 8192.0, in = elems * 2 + 8192 * 2, outb = elems * 2, l2 = 62914560;
  const double floor_ms = roofline_floor_ms(4 * elems, in + outb, outb, l2, 989.4, 4800);
  CHECK(floor_ms == Approx((in + outb - l2) / 4800e9 * 1e3));
  // An output smaller than the L2 is not charged to DRAM at all.
  CHECK(roofline_floor_ms(0, 3e6, 1e6, l2, 0, 1000) == Approx(2e6 / 1000e9 * 1e3));
  // Compute-bound: flops dominate.
  CHECK(roofline_floor_ms(989.4e12, 1, 0, l2, 989.4, 4800) == Approx(1000.0));
  CHECK(roofline_floor_ms(0, 0, 0, 0, 0, 0) == 0);
  CHECK(throttled_fraction({1980, 1980, 1000, std::nan("")}, 1980) == Approx(1.0 / 3));
  CHECK(std::isnan(throttled_fraction({1980}, std::nan(""))));
}

TEST_CASE("device peaks: datasheet table first, attributes as fallback and bandwidth guard",
          "[harness][peaks]") {
  const DevicePeaks h200 = device_peaks("NVIDIA H200", 9, 132, 1980000, 3201000, 6144);
  CHECK(h200.tflops == Approx(989.4));
  CHECK(h200.gbps == Approx(attribute_gbps(3201000, 6144)));  // 4917 > 4800: the larger wins
  CHECK(h200.source == "table: H200 SXM");
  CHECK(device_peaks("NVIDIA GH200 480GB", 9, 132, 0, 0, 0).source == "table: GH200");
  CHECK(device_peaks("NVIDIA H100 80GB HBM3", 9, 132, 0, 0, 0).gbps == Approx(3350));
  CHECK(device_peaks("NVIDIA H100 PCIe", 9, 114, 0, 0, 0).tflops == Approx(756));
  const DevicePeaks unknown = device_peaks("Mystery GPU", 9, 100, 2000000, 1000000, 4096);
  CHECK(unknown.source == "attributes");
  CHECK(unknown.tflops == Approx(100 * 2e9 * 4096 / 1e12));
  CHECK(unknown.gbps == Approx(2.0 * 1e9 * 512 / 1e9));
}

TEST_CASE("/proc/self/maps parsing finds each shared object once", "[harness][proc]") {
  std::istringstream maps(
      "55d0-55d1 r--p 00000000 fd:01 123 /usr/bin/socratic-runner-rmsnorm\n"
      "7f00-7f01 r-xp 00000000 fd:01 456 /usr/lib/x86_64-linux-gnu/libc.so.6\n"
      "7f01-7f02 r--p 00001000 fd:01 456 /usr/lib/x86_64-linux-gnu/libc.so.6\n"
      "7f02-7f03 rw-p 00000000 00:00 0 \n"
      "7f03-7f04 rw-p 00000000 00:00 0 [heap]\n"
      "7f04-7f05 r-xp 00000000 fd:01 789 /tmp/cache/cand 1.so (deleted)\n"
      "7f05-7f06 r--p 00000000 fd:01 790 /etc/ld.so.cache\n"
      "7f06-7f07 r-xp 00000000 fd:01 791 /usr/local/cuda/lib64/libcudnn_graph.so.9.1.0\n");
  const auto found = shared_objects_in_maps(maps);
  CHECK(found == std::vector<std::string>{"/usr/lib/x86_64-linux-gnu/libc.so.6",
                                          "/tmp/cache/cand 1.so",
                                          "/usr/local/cuda/lib64/libcudnn_graph.so.9.1.0"});
  CHECK(newly_mapped({"a.so", "b.so"}, {"a.so", "c.so", "b.so", "d.so.1"}) ==
        std::vector<std::string>{"c.so", "d.so.1"});
  // This process: something is mapped, and dlopen of a library not yet loaded shows up.
  const auto before = mapped_shared_objects();
  CHECK_FALSE(before.empty());
  void* lib = nullptr;
  for (const char* name : {"libz.so.1", "libcrypt.so.1", "libutil.so.1", "libanl.so.1"}) {
    bool mapped = false;
    for (const auto& p : before) mapped = mapped || p.find(name) != std::string::npos;
    if (!mapped && (lib = dlopen(name, RTLD_NOW | RTLD_LOCAL))) break;
  }
  if (lib) {
    CHECK_FALSE(newly_mapped(before, mapped_shared_objects()).empty());
    dlclose(lib);
  }
}

TEST_CASE("thread listing sees a thread a library starts, and not the driver's",
          "[harness][proc]") {
  const auto before = list_threads();
  REQUIRE_FALSE(before.empty());
  std::atomic<bool> stop{false};
  std::thread worker([&] {
    while (!stop) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  });
  const auto during = list_threads();
  const auto strangers = foreign_new_threads(before, during);
  stop = true;
  worker.join();
  REQUIRE(strangers.size() == 1);
  CHECK(describe_threads(strangers).find("(tid ") != std::string::npos);
  // Threads the CUDA driver names "cuda..." are the driver's own.
  CHECK(foreign_new_threads({{1, "main"}}, {{1, "main"}, {2, "cuda-EvtHandlr"}, {3, "main"}})
            .size() == 1);
}

TEST_CASE("scenario files: defaults merged, --only keeps file order, errors name the place",
          "[harness][scenarios]") {
  const json doc =
      json::parse(R"({"name":"s","problem":"rmsnorm","defaults":{"dtype":"bf16","eps":1e-6},
    "scenarios":[{"id":"a","rows":1,"cols":8},{"id":"b","rows":2,"cols":8,"dtype":"fp16","description":"a note"},{"id":"c","rows":3,"cols":8}]})");
  const RunnerScenarioSet set = parse_scenario_set(doc, "s.json");
  REQUIRE(set.scenarios.size() == 3);
  CHECK(set.scenarios[0].params == json::parse(R"({"rows":1,"cols":8,"dtype":"bf16","eps":1e-6})"));
  CHECK(set.scenarios[1].params["dtype"] == "fp16");
  CHECK_FALSE(set.scenarios[1].params.contains("description"));  // a note, not a parameter
  const auto picked = select_scenarios(set, {"c", "a"});
  REQUIRE(picked.size() == 2);
  CHECK(picked[0].id == "a");
  CHECK(picked[1].id == "c");
  CHECK_THROWS_WITH(select_scenarios(set, {"zz"}),
                    Catch::Matchers::Contains("scenario \"zz\" is not in"));
  CHECK_THROWS_WITH(
      parse_scenario_set(
          json::parse(R"({"name":"s","problem":"p","scenarios":[{"id":"a"},{"id":"a"}]})"),
          "f.json"),
      Catch::Matchers::Contains("f.json: scenario #1 \"a\": duplicate scenario id"));
  CHECK_THROWS_WITH(
      parse_scenario_set(json::parse(R"({"name":"s","problem":"p","scenarios":[{"rows":1}]})"),
                         "f.json"),
      Catch::Matchers::Contains("scenario #0: field \"id\""));
  CHECK_THROWS_WITH(parse_scenario_set(json::parse(R"({"name":"s","scenarios":[]})"), "f.json"),
                    Catch::Matchers::Contains("field \"problem\""));
}

TEST_CASE("the runner's scenario_end result is what the host's ScenarioResult reads",
          "[harness][result]") {
  RunnerResult r;
  r.id = "large";
  r.max_abs_error = 0.01;
  r.candidate_ms = 0.3;
  r.samples = 42;
  r.fail("unwritten", "unwritten", "12 of 64 output elements were not written");
  r.fail("unwritten", "unwritten", "said twice");
  r.fail("", "tolerance", "too far");
  r.flag("sample_cap");
  CHECK(r.reason == "unwritten: 12 of 64 output elements were not written; tolerance: too far");
  CHECK(r.flags == std::vector<std::string>{"unwritten", "sample_cap"});

  const json written = r.to_json();
  socratic::ScenarioResult host = written.get<socratic::ScenarioResult>();
  CHECK(host.id == "large");
  CHECK_FALSE(host.correct);
  CHECK(host.reason == r.reason);
  CHECK(host.max_abs_error == Approx(0.01));
  CHECK(host.candidate_ms == Approx(0.3));
  CHECK(std::isnan(host.speedup));  // NaN travels as null
  CHECK(host.samples == 42);
  CHECK(host.flags == r.flags);
  // Same members in the same order as socratic::to_json(ScenarioResult).
  const json reference = host;
  std::vector<std::string> ours, theirs;
  for (auto it = written.begin(); it != written.end(); ++it) ours.push_back(it.key());
  for (auto it = reference.begin(); it != reference.end(); ++it) theirs.push_back(it.key());
  CHECK(ours == theirs);
}

TEST_CASE("rmsnorm problem.json, its scenario set and the registration agree",
          "[harness][rmsnorm]") {
  const json problem = read_json(source_dir / "kernels/rmsnorm/problem.json");
  std::vector<std::string> keys;
  for (auto it = problem.begin(); it != problem.end(); ++it) keys.push_back(it.key());
  std::sort(keys.begin(), keys.end());
  CHECK(keys == std::vector<std::string>{"args_header", "baseline", "description", "divisible",
                                         "entry_point", "has_reference_implementation", "kinds", "name",
                                         "parameters", "runner_sources"});
  CHECK(problem["entry_point"] == "socratic_rmsnorm_forward");
  CHECK(fs::exists(source_dir / "kernels/rmsnorm" / problem["args_header"].get<std::string>()));
  CHECK(fs::exists(source_dir / "kernels/rmsnorm" / problem["baseline"].get<std::string>()));
  for (const auto& s : problem["runner_sources"])
    CHECK(fs::exists(source_dir / "kernels/rmsnorm" / s.get<std::string>()));

  bool registered = false;
  const json problems = read_json(source_dir / "kernels/problems.json");
  for (const auto& p : problems["problems"])
    registered = registered || (p["name"] == "rmsnorm" && p["folder"] == "rmsnorm");
  CHECK(registered);

  const json& params = problem["parameters"];
  const socratic::ScenarioSet set =
      socratic::load_scenario_set(source_dir / "scenarios/rmsnorm.json");
  CHECK(set.problem == "rmsnorm");
  std::set<std::string> dtypes;
  for (const auto& sc : set.scenarios) {
    INFO("scenario " << sc.id);
    for (auto it = params.begin(); it != params.end(); ++it)
      if (it.value().value("required", false)) CHECK(sc.params.contains(it.key()));
    for (auto it = sc.params.begin(); it != sc.params.end(); ++it) {
      INFO("field " << it.key());
      REQUIRE(params.contains(it.key()));
      const json& spec = params[it.key()];
      const std::string type = spec["type"];
      if (type == "int") {
        CHECK(it.value().is_number_integer());
        CHECK(it.value().get<long long>() >= spec.value("min", 0LL));
      } else if (type == "number") {
        CHECK(it.value().is_number());
      } else if (type == "string") {
        CHECK(it.value().is_string());
        const auto& allowed = spec["enum"];
        CHECK(std::find(allowed.begin(), allowed.end(), it.value()) != allowed.end());
      }
    }
    dtypes.insert(sc.params.value("dtype", std::string("bf16")));
  }
  CHECK(dtypes == std::set<std::string>{"bf16", "fp16"});
}

TEST_CASE("the adversarial corpus and expected.json agree, in the protocol's vocabulary",
          "[harness][corpus]") {
  const fs::path dir = source_dir / "tests/adversarial";
  const json expected = read_json(dir / "expected.json");
  const auto flags = documented_flags();
  CHECK(flags.count("side_stream"));
  const socratic::ScenarioSet set =
      socratic::load_scenario_set(source_dir / expected["scenario_set"].get<std::string>());
  const auto ids = set.ids();
  auto known_id = [&](const std::string& id) {
    return std::find(ids.begin(), ids.end(), id) != ids.end();
  };

  std::set<std::string> listed, on_disk;
  for (const auto& c : expected["candidates"]) {
    const std::string file = c["file"];
    INFO("candidate " << file);
    CHECK(listed.insert(file).second);
    const std::string text = read_text(dir / file);
    CHECK(text.find("Caught by:") != std::string::npos);
    CHECK(text.find("socratic_rmsnorm_forward") != std::string::npos);
    if (c.contains("flag")) CHECK(flags.count(c["flag"].get<std::string>()));
    for (const auto& f : c.value("flag_any_of", json::array())) CHECK(flags.count(f.get<std::string>()));
    for (const auto& f : c.value("forbidden_flags", json::array()))
      CHECK(flags.count(f.get<std::string>()));
    if (c["fail"].is_array())
      for (const auto& id : c["fail"]) CHECK(known_id(id.get<std::string>()));
    else
      CHECK(c["fail"] == "all");
    if (c.contains("fatal_at")) CHECK(known_id(c["fatal_at"].get<std::string>()));
    const std::string others = c.value("others", std::string("pass"));
    CHECK((others == "pass" || others == "any"));
  }
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().extension() == ".cu") on_disk.insert(e.path().filename().string());
  CHECK(listed == on_disk);
}

#ifdef SOCRATIC_RUNNER
TEST_CASE("the built runner answers a bad command line with one fatal line and status 2",
          "[harness][runner]") {
  const auto result = socratic::run_process({SOCRATIC_RUNNER, "--baseline", "b.so", "--k", "zero"});
  CHECK(result.exit_code == 2);
  const json line = json::parse(result.stdout_text);
  CHECK(line["event"] == "fatal");
  CHECK(line["message"].get<std::string>().find("--k: expected a number") != std::string::npos);
}

TEST_CASE("the built runner reads its options from standard input, as the host gives them",
          "[harness][runner]") {
  socratic::ProcessOptions options;
  options.stdin_data = "--baseline\nb.so\n--k\nzero\n";
  const auto result = socratic::run_process({SOCRATIC_RUNNER, "--options-stdin"}, options);
  CHECK(result.exit_code == 2);
  const json line = json::parse(result.stdout_text);
  CHECK(line["event"] == "fatal");
  CHECK(line["message"].get<std::string>().find("--k: expected a number") != std::string::npos);
  options.stdin_data = "--baseline\n\nb.so\n";
  const auto empty = socratic::run_process({SOCRATIC_RUNNER, "--options-stdin"}, options);
  CHECK(empty.exit_code == 2);
  CHECK(empty.stdout_text.find("empty line 2") != std::string::npos);
}
#endif
