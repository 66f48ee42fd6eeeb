// [gpu] The gate's false-admission rate on a real GPU, with the attention problem's baseline on a
// few scenarios of the edge set:
//   1. the baseline against itself (a copy with other bytes, the same code) in TRIALS gate runs,
//      each with its own seed: never admitted;
//   2. the plain baseline against an incumbent slowed by SLOWDOWN (the baseline followed by a
//      one-thread spin kernel lasting SLOWDOWN of the attention kernel's time, on the same
//      stream): admitted every time.
// Prints one line per trial and a summary; writes the figures as JSON to --out. Exit 0 when both
// hold, 1 when not, 77 (skipped) without a CUDA device or nvcc.
//
// The scenarios: four of the edge set by default (short shapes, the noisiest), or --scenarios SET
// (a set's name under scenarios/ or a file) with --only ID,ID,... to pick some of its scenarios.
//
// Usage: store_gate_gpu [--trials N] [--slowdown 0.06] [--max-ms 250] [--scenarios SET] [--only IDS]
//                       [--out FILE] [--data DIR] [--cache DIR]
#include <dlfcn.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "socratic/core/files.hpp"
#include "socratic/core/detail/sha256.hpp"
#include "socratic/eval/default_ban_scan.hpp"
#include "socratic/store/cuda_gate.hpp"

using namespace socratic;
namespace fs = std::filesystem;

namespace {

std::string missing_gpu() {
  void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib) return "libcuda.so.1 not found (no NVIDIA driver)";
  using init_fn = int (*)(unsigned);
  using count_fn = int (*)(int*);
  auto cu_init = reinterpret_cast<init_fn>(dlsym(lib, "cuInit"));
  auto cu_count = reinterpret_cast<count_fn>(dlsym(lib, "cuDeviceGetCount"));
  int count = 0;
  if (!cu_init || !cu_count || cu_init(0) != 0 || cu_count(&count) != 0 || count == 0) return "no usable CUDA device";
  return {};
}

std::string find_nvcc() {
  if (const char* env = std::getenv("CUDACXX"); env && *env && ::access(env, X_OK) == 0) return env;
  if (const char* path = std::getenv("PATH"))
    for (std::string rest = path; !rest.empty();) {
      const auto colon = rest.find(':');
      const std::string dir = rest.substr(0, colon);
      if (!dir.empty() && ::access((dir + "/nvcc").c_str(), X_OK) == 0) return dir + "/nvcc";
      rest = colon == std::string::npos ? "" : rest.substr(colon + 1);
    }
  if (::access("/usr/local/cuda/bin/nvcc", X_OK) == 0) return "/usr/local/cuda/bin/nvcc";
  return {};
}

// The baseline, slowed: its entry point renamed, and a wrapper that runs it and then a spin of
// `fraction` of its own time (measured once per shape with events, on the first call) on the
// same stream, so every timed launch is that much longer.
std::string slowed_baseline(const std::string& baseline, double fraction) {
  const std::string entry = "extern \"C\" int socratic_attention_forward(";
  const auto at = baseline.find(entry);
  if (at == std::string::npos) throw error("the attention baseline has no socratic_attention_forward entry");
  std::string out = baseline;
  out.replace(at, entry.size(), "static int socratic_unslowed_forward(");
  out += R"(
#include <map>
#include <tuple>
namespace {
__global__ void socratic_spin_ns(unsigned long long ns) {
  unsigned long long start, now;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  do { asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now)); } while (now - start < ns);
}
}  // namespace
extern "C" int socratic_attention_forward(const socratic_attention_args* a, cudaStream_t stream) {
  static std::map<std::tuple<int, int, int, int, int, int, int, int>, unsigned long long> spin;
  if (a == nullptr) return socratic_unslowed_forward(a, stream);
  const auto key = std::make_tuple(a->batch, a->seqlen_q, a->seqlen_kv, a->heads_q, a->heads_kv, a->head_dim,
                                   static_cast<int>(a->causal), static_cast<int>(a->dtype));
  auto it = spin.find(key);
  if (it == spin.end()) {
    cudaEvent_t e0, e1;
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);
    cudaEventRecord(e0, stream);
    const int rc = socratic_unslowed_forward(a, stream);
    cudaEventRecord(e1, stream);
    cudaEventSynchronize(e1);
    float ms = 0;
    cudaEventElapsedTime(&ms, e0, e1);
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    spin[key] = static_cast<unsigned long long>(ms * 1e6 * SOCRATIC_SLOWDOWN);
    return rc;
  }
  const int rc = socratic_unslowed_forward(a, stream);
  if (rc == 0) socratic_spin_ns<<<1, 1, 0, stream>>>(it->second);
  return rc;
}
)";
  return "#define SOCRATIC_SLOWDOWN " + std::to_string(fraction) + "\n" + out;
}

struct Trial {
  std::string verdict, reason;
  double speedup = 0, lower_bound = 0, margin = 0, noise = 0;
  int runs = 0;
  double seconds = 0;
  std::vector<double> run_speedups;  // G of every run, the first included
  std::optional<GatePooled> pooled;
};

json to_json_trial(const Trial& t) {
  json j{{"verdict", t.verdict}, {"reason", t.reason}, {"speedup", t.speedup}, {"lower_bound", t.lower_bound},
         {"margin", t.margin},   {"noise", t.noise},   {"runs", t.runs},       {"seconds", t.seconds},
         {"run_speedups", t.run_speedups}};
  if (t.pooled) j["pooled"] = *t.pooled;
  return j;
}

std::vector<std::string> split_commas(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream in(text);
  for (std::string id; std::getline(in, id, ',');)
    if (!id.empty()) out.push_back(id);
  return out;
}

Candidate file_candidate(const fs::path& p) {
  Candidate c{p};
  c.content_hash = detail::sha256_hex(read_file_bytes(p));
  return c;
}

}  // namespace

int main(int argc, char** argv) {
  int trials = 20;
  double slowdown = 0.06;
  double max_ms = 250;  // timing per scenario and side: keeps 40 gate runs to a few minutes
  fs::path out_file, data = SOCRATIC_SOURCE_DIR, cache;
  std::string scenario_set;
  std::vector<std::string> only;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::cerr << "store_gate_gpu: " << a << " needs a value\n";
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--trials") trials = std::stoi(value());
    else if (a == "--slowdown") slowdown = std::stod(value());
    else if (a == "--out") out_file = value();
    else if (a == "--max-ms") max_ms = std::stod(value());
    else if (a == "--data") data = value();
    else if (a == "--cache") cache = value();
    else if (a == "--scenarios") scenario_set = value();
    else if (a == "--only") only = split_commas(value());
    else {
      std::cerr << "usage: store_gate_gpu [--trials N] [--slowdown 0.06] [--max-ms 250] [--scenarios SET] [--only IDS]\n"
                   "                      [--out FILE] [--data DIR] [--cache DIR]\n";
      return 2;
    }
  }
  if (const std::string why = missing_gpu(); !why.empty()) {
    std::printf("SKIPPED: the gate's GPU check needs a CUDA device: %s\n", why.c_str());
    return 77;
  }
  const std::string nvcc = find_nvcc();
  if (nvcc.empty()) {
    std::printf("SKIPPED: the gate's GPU check needs nvcc (PATH, $CUDACXX or /usr/local/cuda/bin)\n");
    return 77;
  }
  try {
    const fs::path work = fs::temp_directory_path() / ("socratic-gate-gpu-" + std::to_string(::getpid()));
    fs::create_directories(work);
    const std::string baseline = read_file_bytes(data / "kernels" / "attention" / "baseline.cu");
    write_file_atomically(work / "incumbent_self.cu", baseline);
    write_file_atomically(work / "candidate_self.cu", baseline + "\n// the baseline's code, other bytes\n");
    write_file_atomically(work / "incumbent_slowed.cu", slowed_baseline(baseline, slowdown));
    write_file_atomically(work / "candidate_plain.cu", baseline + "\n// the plain baseline as a candidate\n");

    CudaEvaluatorConfig config;
    config.data_dir = data;
    config.problem = "attention";
    if (scenario_set.empty()) {
      config.scenarios = data / "scenarios" / "attention_edge.json";
      config.only_scenarios = {"gqa_q32_kv8_s2048_d128_causal", "mqa_q16_kv1_s1500_d128", "b1_h64_s640_d128_causal",
                               "causal_q2000_kv700_d64"};
    } else {
      config.scenarios = fs::exists(scenario_set) ? fs::path(scenario_set) : data / "scenarios" / (scenario_set + ".json");
      if (!fs::exists(config.scenarios)) throw error("--scenarios: no set " + scenario_set + " (" + config.scenarios.string() + ")");
    }
    if (!only.empty()) config.only_scenarios = only;
    config.nvcc = nvcc;
    if (!cache.empty()) config.cache_dir = cache;
    config.ban_scan = default_ban_scan();
    config.runner.max_ms_per_scenario = static_cast<int>(max_ms);
    GateConfig gate_config;  // the defaults, as campaigns use them

    json results{{"trials", trials},       {"slowdown", slowdown},
                 {"max_ms_per_scenario", max_ms}, {"scenario_set", config.scenarios.filename().string()},
                 {"scenarios", config.only_scenarios}, {"gate", gate_config}};
    auto run = [&](const char* name, const fs::path& cand, const fs::path& inc) {
      std::vector<Trial> list;
      const Candidate c = file_candidate(cand), i = file_candidate(inc);
      for (int t = 0; t < trials; ++t) {
        const auto started = std::chrono::steady_clock::now();
        const GateResult g = GateRunner(cuda_pair_measure(config), gate_config, 1000 + t).judge(c, i);
        Trial tr;
        tr.verdict = std::string(to_string(g.decision.outcome));
        tr.reason = g.decision.reason;
        if (!g.decision.measurements.empty()) {
          const auto& m = g.decision.measurements.front();
          tr.speedup = m.speedup, tr.lower_bound = m.lower_bound, tr.margin = m.margin, tr.noise = m.noise;
        }
        tr.runs = static_cast<int>(g.reports.size());
        for (const auto& m : g.decision.measurements) tr.run_speedups.push_back(m.speedup);
        tr.pooled = g.decision.pooled;
        tr.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
        std::printf("%s trial %2d: %-8s speedup %.4f  lower bound %.4f  needed > %.4f  noise %.2f %%  (%d run%s, %.1f s)  %s\n",
                    name, t + 1, tr.verdict.c_str(), tr.speedup, tr.lower_bound, 1 + tr.margin, tr.noise * 100,
                    tr.runs, tr.runs == 1 ? "" : "s", tr.seconds, tr.reason.c_str());
        std::fflush(stdout);
        list.push_back(tr);
      }
      return list;
    };
    const auto self = run("self  ", work / "candidate_self.cu", work / "incumbent_self.cu");
    const auto faster = run("faster", work / "candidate_plain.cu", work / "incumbent_slowed.cu");
    int false_admissions = 0, true_admissions = 0, failures = 0, pooled_self = 0, pooled_faster = 0;
    for (const auto& t : self)
      false_admissions += t.verdict == "admitted", failures += t.verdict == "failed", pooled_self += t.pooled.has_value();
    for (const auto& t : faster)
      true_admissions += t.verdict == "admitted", failures += t.verdict == "failed", pooled_faster += t.pooled.has_value();
    json self_json = json::array(), faster_json = json::array();
    for (const auto& t : self) self_json.push_back(to_json_trial(t));
    for (const auto& t : faster) faster_json.push_back(to_json_trial(t));
    results["self"] = self_json;
    results["faster"] = faster_json;
    results["false_admissions"] = false_admissions;
    results["true_admissions"] = true_admissions;
    results["pooled_self"] = pooled_self;
    results["pooled_faster"] = pooled_faster;
    std::printf("\nbaseline against itself: %d of %d admitted (must be 0); %d judged on pooled runs\n", false_admissions,
                trials, pooled_self);
    std::printf("candidate %.0f %% faster (incumbent slowed): %d of %d admitted (must be all); %d judged on pooled runs\n",
                slowdown * 100, true_admissions, trials, pooled_faster);
    if (failures) std::printf("%d trial(s) failed to measure: see their reasons above\n", failures);
    if (!out_file.empty()) write_json_atomically(out_file, results);
    std::error_code ec;
    fs::remove_all(work, ec);
    return false_admissions == 0 && true_admissions == trials && failures == 0 ? 0 : 1;
  } catch (const std::exception& e) {
    std::cerr << "store_gate_gpu: " << e.what() << "\n";
    return 1;
  }
}
