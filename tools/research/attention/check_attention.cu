// check_attention: a standalone GPU check of the attention problem, its reference and any
// implementation of socratic_attention_forward, without the generic runner.
//
//   check_attention --impl baseline=baseline.so [--impl NAME=OTHER.so ...] [--trials 4]
//                   [--trial-list 0,3] [--reps 20] [--no-timing] [--only ID,ID] [--seed N] [--k 2]
//                   [--jsonl FILE] [--time-failing NAME ...] [--hold-us N | --hold-flag]
//                   [--same-as NAME] [--timing-trial N] SCENARIOS.json...
//
// For every scenario and trial: fresh inputs (problem.cu's generator; the trial number picks the
// value regime, so --trial-list 0,3 runs unit normals and outliers only), the fp32
// reference, a naive low-precision attention (S, P, O rounded to the dtype: FlashAttention's
// "out_pt"), then each implementation on a NaN-poisoned output, run twice under different
// poisons. Pass = finite everywhere, bitwise equal across the two runs, max|o - ref| <=
// k * max|naive - ref| + rounding floor (FlashAttention's own test rule), and under the
// problem's hard cap. Timing: CUDA events, an L2 flush (2x L2) before every launch, median; the
// implementations of a scenario take turns launch by launch (time_ms). A hold between the flush
// and the start event keeps the host's part of the call (argument checks, tensor-map encoding, a
// framework's dispatch) out of the interval: --hold-flag holds the stream until the call is
// enqueued (NVBench's blocking kernel, blocking_hold.cuh; the GPU rests only that long),
// --hold-us N for N microseconds (which also rests the GPU: D46/D47). Each sample records
// whether the hold outlasted the host's part, and the report says in how many it did.
// tools/research/bench/sdpa_anchors.py times the anchors with the same holds.
// Only passing implementations are timed, except those named by --time-failing (timing-only
// variants that are wrong on purpose, e.g. versions/v3-free-softmax-hopper.cu): they are timed
// anyway, still reported FAIL, and their JSON lines carry "timed_despite_failing": true.
// --same-as NAME compares every implementation listed after NAME with NAME's output bit for bit,
// trial by trial ("bits_differ_from" in its JSON trials, "bits differ from NAME" or "bit-identical
// to NAME" in its line): the check for a variant that should only skip work whose result is zero.
// It reports; it does not fail anyone.
// The timed launches run on the inputs of trial --timing-trial (default 0: unit normals, as
// sdpa_anchors.py times the anchors; the evaluator's runner cycles its samples through every
// regime). Until session 10 they ran on the last checked
// trial's, the outlier regime by default: equal for kernels whose work does not depend on the
// values, not for one that takes a slower path when a row's max grows (D86, D87).
//
// Build (from the repository root):
//   nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -I kernels/harness
//        -I kernels/attention tools/research/attention/check_attention.cu
//        kernels/attention/problem.cu kernels/attention/reference.cu -o check_attention -ldl
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <dlfcn.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <set>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "blocking_hold.cuh"
#include "problem.cuh"
#include "reference.cuh"
#include "shape.cuh"

using nlohmann::json;

namespace {

void check(cudaError_t err, const std::string& what) {
  if (err != cudaSuccess) throw std::runtime_error(what + ": " + cudaGetErrorString(err));
}

struct Implementation {
  std::string name;
  void* entry = nullptr;
};

struct Options {
  std::vector<std::pair<std::string, std::string>> impls;  // name, path
  std::vector<std::string> files;
  std::vector<std::string> only;
  std::vector<int> trials = {0, 1, 2, 3};
  int reps = 20;
  bool timing = true;
  std::uint64_t seed = 20261129;
  double k = 2.0;
  std::string jsonl;
  std::vector<std::string> time_failing;  // implementation names timed even when they fail
  int hold_us = 0;  // 0: no hold (the host's part of a call may fall inside its interval)
  bool hold_flag = false;  // hold until the call is enqueued (BlockingHold)
  std::string same_as;  // implementation whose outputs the later ones are compared with, bit for bit
  int timing_trial = 0;  // the trial whose inputs the timed launches run on (its value regime)
};

Options parse_options(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw std::runtime_error("option " + a + " needs a value");
      return argv[++i];
    };
    // A whole number (or, with std::stod, a number) or an error naming the option and the text.
    auto number = [&](const std::string& text, auto parse) {
      std::size_t used = 0;
      try {
        const auto v = parse(text, &used);
        if (used == text.size()) return v;
      } catch (const std::exception&) {
      }
      throw std::runtime_error("option " + a + " expects a number, got '" + text + "'");
    };
    const auto to_int = [](const std::string& t, std::size_t* used) { return std::stoi(t, used); };
    if (a == "--impl") {
      const std::string v = value();
      const auto eq = v.find('=');
      if (eq == std::string::npos) throw std::runtime_error("--impl expects NAME=PATH, got " + v);
      o.impls.emplace_back(v.substr(0, eq), v.substr(eq + 1));
    } else if (a == "--trials") {
      o.trials.clear();
      for (int t = 0, n = number(value(), to_int); t < n; ++t) o.trials.push_back(t);
    } else if (a == "--trial-list") {
      o.trials.clear();
      std::stringstream ss(value());
      for (std::string t; std::getline(ss, t, ',');) o.trials.push_back(number(t, to_int));
    } else if (a == "--reps") {
      o.reps = number(value(), to_int);
    } else if (a == "--no-timing") {
      o.timing = false;
    } else if (a == "--seed") {
      o.seed = number(value(), [](const std::string& t, std::size_t* used) { return std::stoull(t, used); });
    } else if (a == "--k") {
      o.k = number(value(), [](const std::string& t, std::size_t* used) { return std::stod(t, used); });
    } else if (a == "--time-failing") {
      o.time_failing.push_back(value());
    } else if (a == "--hold-us") {
      o.hold_us = number(value(), to_int);
      if (o.hold_us < 0 || o.hold_us > 100000)
        throw std::runtime_error("--hold-us expects 0..100000 microseconds, got " + std::to_string(o.hold_us));
    } else if (a == "--hold-flag") {
      o.hold_flag = true;
    } else if (a == "--timing-trial") {
      o.timing_trial = number(value(), to_int);
      if (o.timing_trial < 0) throw std::runtime_error("--timing-trial expects a trial number >= 0");
    } else if (a == "--same-as") {
      o.same_as = value();
    } else if (a == "--jsonl") {
      o.jsonl = value();
    } else if (a == "--only") {
      std::stringstream ss(value());
      for (std::string id; std::getline(ss, id, ',');) o.only.push_back(id);
    } else if (!a.empty() && a[0] == '-') {
      throw std::runtime_error("unknown option " + a);
    } else {
      o.files.push_back(a);
    }
  }
  if (o.hold_flag && o.hold_us > 0) throw std::runtime_error("--hold-flag and --hold-us exclude each other");
  if (o.impls.empty() || o.files.empty())
    throw std::runtime_error("usage: check_attention --impl NAME=LIB.so [...] SCENARIOS.json...");
  if (!o.same_as.empty()) {
    const auto named = std::find_if(o.impls.begin(), o.impls.end(),
                                    [&](const auto& impl) { return impl.first == o.same_as; });
    if (named == o.impls.end()) throw std::runtime_error("--same-as " + o.same_as + ": no --impl of that name");
    if (named + 1 == o.impls.end())
      throw std::runtime_error("--same-as " + o.same_as + ": list the implementations to compare after it");
  }
  return o;
}

// ---------------------------------------------------------------------------------------------
// Device-side comparisons.

struct Stats {
  unsigned int max_abs_bits;  // max |a - b| (or |a|) as float bits: non-negative floats order as ints
  unsigned long long non_finite;
  unsigned long long mismatches;
};

__device__ float load_as_float(const __nv_bfloat16* p, long long i) { return __bfloat162float(p[i]); }
__device__ float load_as_float(const __half* p, long long i) { return __half2float(p[i]); }

template <class T>
__global__ void error_kernel(const T* out, const float* ref, long long n, Stats* stats) {
  float local = 0.f;
  unsigned long long bad = 0;
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<long long>(gridDim.x) * blockDim.x) {
    const float x = load_as_float(out, i);
    if (!isfinite(x))
      ++bad;
    else
      local = fmaxf(local, fabsf(x - ref[i]));
  }
  atomicMax(&stats->max_abs_bits, __float_as_uint(local));
  if (bad) atomicAdd(&stats->non_finite, bad);
}

__global__ void float_error_kernel(const float* a, const float* ref, long long n, Stats* stats) {
  float local = 0.f, ref_max = 0.f;
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<long long>(gridDim.x) * blockDim.x) {
    local = fmaxf(local, fabsf(a[i] - ref[i]));
    ref_max = fmaxf(ref_max, fabsf(ref[i]));
  }
  atomicMax(&stats[0].max_abs_bits, __float_as_uint(local));
  atomicMax(&stats[1].max_abs_bits, __float_as_uint(ref_max));
}

__global__ void mismatch_kernel(const std::uint16_t* a, const std::uint16_t* b, long long n,
                                Stats* stats) {
  unsigned long long count = 0;
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<long long>(gridDim.x) * blockDim.x)
    count += a[i] != b[i];
  if (count) atomicAdd(&stats->mismatches, count);
}

constexpr int kReduceBlocks = 1024, kReduceThreads = 256;

float bits_to_float(unsigned int bits) {
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

std::uint64_t hash_string(const std::string& s) {  // FNV-1a
  std::uint64_t h = 1469598103934665603ull;
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
  return h;
}

// ---------------------------------------------------------------------------------------------

struct ScenarioFile {
  std::string path, name;
  std::vector<std::pair<std::string, json>> scenarios;  // id, merged params
};

ScenarioFile load_scenarios(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error(path + ": cannot open file");
  json j;
  try {
    j = json::parse(in);
  } catch (const json::parse_error& e) {
    throw std::runtime_error(path + ": invalid JSON: " + e.what());
  }
  ScenarioFile f;
  f.path = path;
  f.name = j.value("name", path);
  const json defaults = j.value("defaults", json::object());
  if (!j.contains("scenarios") || !j["scenarios"].is_array())
    throw std::runtime_error(path + ": field \"scenarios\": expected an array");
  for (std::size_t i = 0; i < j["scenarios"].size(); ++i) {
    json params = j["scenarios"][i];
    if (!params.is_object() || !params.contains("id") || !params["id"].is_string())
      throw std::runtime_error(path + ": scenario #" + std::to_string(i) + ": field \"id\" missing");
    const std::string id = params["id"];
    params.erase("id");
    for (auto it = defaults.begin(); it != defaults.end(); ++it)
      if (!params.contains(it.key())) params[it.key()] = it.value();
    f.scenarios.emplace_back(id, params);
  }
  return f;
}

struct Runner {
  Options opt;
  std::vector<Implementation> impls;
  cudaStream_t stream{};
  Stats* stats = nullptr;  // device
  void* flush = nullptr;
  std::size_t flush_bytes = 0;
  std::unique_ptr<socratic::bench::BlockingHold> blocking_hold;  // with --hold-flag

  // How the timed intervals were kept free of the host's part of the call, for the reports.
  std::string hold_name() const {
    return opt.hold_flag ? "flag" : opt.hold_us > 0 ? std::to_string(opt.hold_us) + " us" : "none";
  }
  std::ofstream jsonl;
  socratic::attention::Reference naive_reference;
  int failures = 0;

  Stats read_stats(int count, Stats* host) {
    check(cudaMemcpyAsync(host, stats, sizeof(Stats) * count, cudaMemcpyDeviceToHost, stream),
          "copy stats");
    check(cudaStreamSynchronize(stream), "synchronize (stats)");
    return host[0];
  }
  void clear_stats() { check(cudaMemsetAsync(stats, 0, 2 * sizeof(Stats), stream), "clear stats"); }

  // Runs one scenario; returns per-implementation median TFLOP/s (NaN without timing/failure).
  std::vector<double> run(const std::string& file, const std::string& id, const json& params,
                          std::size_t index) {
    auto problem = socratic_make_problem();
    problem->configure(params);
    const socratic::attention::Shape shape = socratic::attention::parse_shape(params);
    const auto specs = problem->tensors();
    std::vector<void*> inputs, outputs;
    for (const auto& t : specs) {
      void* p = nullptr;
      check(cudaMalloc(&p, t.elements * socratic::harness::dtype_bytes(t.dtype)), "cudaMalloc " + t.name);
      (t.output ? outputs : inputs).push_back(p);
    }
    const long long n_out = static_cast<long long>(specs.back().elements);
    void* second = nullptr;  // a second output buffer for the determinism check
    float *ref = nullptr, *naive = nullptr;
    check(cudaMalloc(&second, n_out * 2), "cudaMalloc second output");
    void* same = nullptr;  // --same-as: the named implementation's output of the current trial
    std::size_t same_index = impls.size();
    for (std::size_t m = 0; m < impls.size(); ++m)
      if (impls[m].name == opt.same_as) same_index = m;
    if (same_index < impls.size()) check(cudaMalloc(&same, n_out * 2), "cudaMalloc --same-as output");
    check(cudaMalloc(&ref, n_out * sizeof(float)), "cudaMalloc reference");
    check(cudaMalloc(&naive, n_out * sizeof(float)), "cudaMalloc naive");

    struct Record {
      json trials = json::array();
      bool pass = true;
      std::string why;
    };
    std::vector<Record> records(impls.size());
    std::set<int> same_trials;  // trials in which the --same-as implementation ran
    const std::uint64_t seed = opt.seed ^ hash_string(file + "/" + id);

    double reference_ms = NAN;  // cost of the fp32 reference, first trial
    for (const int trial : opt.trials) {
      problem->generate_inputs(inputs, seed, trial, stream);
      cudaEvent_t ref_start, ref_stop;
      check(cudaEventCreate(&ref_start), "event");
      check(cudaEventCreate(&ref_stop), "event");
      check(cudaEventRecord(ref_start, stream), "record");
      problem->reference(inputs, ref, stream);
      check(cudaEventRecord(ref_stop, stream), "record");
      check(cudaEventSynchronize(ref_stop), "synchronize (reference)");
      float elapsed = 0;
      check(cudaEventElapsedTime(&elapsed, ref_start, ref_stop), "elapsed");
      if (std::isnan(reference_ms)) reference_ms = elapsed;
      cudaEventDestroy(ref_start);
      cudaEventDestroy(ref_stop);
      naive_reference.run(shape, inputs[0], inputs[1], inputs[2], naive, stream, true);
      Stats host[2];
      clear_stats();
      float_error_kernel<<<kReduceBlocks, kReduceThreads, 0, stream>>>(naive, ref, n_out, stats);
      read_stats(2, host);
      const double naive_err = bits_to_float(host[0].max_abs_bits);
      const double ref_max = bits_to_float(host[1].max_abs_bits);
      const double floor = problem->rounding_floor(ref_max);
      const double cap = problem->max_error_cap(ref_max);
      const double tolerance = opt.k * naive_err + floor;

      for (std::size_t m = 0; m < impls.size(); ++m) {
        Record& rec = records[m];
        int rc = 0;
        for (int call = 0; call < 2; ++call) {  // two calls, two poisons (0xFF.. is NaN)
          void* dst = call == 0 ? outputs[0] : second;
          check(cudaMemsetAsync(dst, call == 0 ? 0xFF : 0x7F, n_out * 2, stream), "poison");
          rc = problem->launch(impls[m].entry, inputs, {dst}, stream);
          if (rc != 0) break;
          check(cudaGetLastError(), "launch");
        }
        check(cudaStreamSynchronize(stream), impls[m].name + " on " + id);
        json t = {{"trial", trial}, {"rc", rc}};
        if (rc != 0) {
          rec.pass = false;
          rec.why = "declined (rc " + std::to_string(rc) + ")";
          rec.trials.push_back(t);
          continue;
        }
        clear_stats();
        if (shape.dtype == 0)
          error_kernel<<<kReduceBlocks, kReduceThreads, 0, stream>>>(
              static_cast<const __nv_bfloat16*>(outputs[0]), ref, n_out, stats);
        else
          error_kernel<<<kReduceBlocks, kReduceThreads, 0, stream>>>(
              static_cast<const __half*>(outputs[0]), ref, n_out, stats);
        mismatch_kernel<<<kReduceBlocks, kReduceThreads, 0, stream>>>(
            static_cast<const std::uint16_t*>(outputs[0]), static_cast<const std::uint16_t*>(second),
            n_out, stats);
        const Stats s = read_stats(1, host);
        const double err = bits_to_float(s.max_abs_bits);
        const bool ok_rule = err <= tolerance, ok_cap = err <= cap;
        const bool ok = s.non_finite == 0 && s.mismatches == 0 && ok_rule && ok_cap;
        t.update({{"max_err", err}, {"naive_err", naive_err}, {"ref_max", ref_max},
                  {"floor", floor}, {"cap", cap}, {"tolerance", tolerance},
                  {"non_finite", s.non_finite}, {"mismatches", s.mismatches}, {"pass", ok}});
        if (m == same_index) {
          check(cudaMemcpyAsync(same, outputs[0], n_out * 2, cudaMemcpyDeviceToDevice, stream), "copy --same-as");
          same_trials.insert(trial);
        } else if (m > same_index && same_trials.count(trial)) {
          clear_stats();
          mismatch_kernel<<<kReduceBlocks, kReduceThreads, 0, stream>>>(
              static_cast<const std::uint16_t*>(outputs[0]), static_cast<const std::uint16_t*>(same), n_out, stats);
          t["bits_differ_from"] = {{"impl", opt.same_as}, {"count", read_stats(1, host).mismatches}};
        }
        rec.trials.push_back(t);
        if (!ok && rec.pass) {
          rec.pass = false;
          std::ostringstream why;
          why << "trial " << trial << ": ";
          if (s.non_finite) why << s.non_finite << " non-finite; ";
          if (s.mismatches) why << s.mismatches << " differ between two calls; ";
          if (!ok_rule) why << "max_err " << err << " > " << opt.k << " * naive " << naive_err << " + floor " << floor << "; ";
          if (!ok_cap) why << "max_err " << err << " > cap " << cap << "; ";
          rec.why = why.str();
        }
      }
    }

    // Timing: every implementation that is timed, launch by launch in turn (see time_ms).
    std::vector<std::size_t> timed;
    for (std::size_t m = 0; m < impls.size(); ++m) {
      const bool time_anyway = std::find(opt.time_failing.begin(), opt.time_failing.end(), impls[m].name) !=
                                   opt.time_failing.end() &&
                               records[m].why.rfind("declined", 0) != 0;
      if (opt.timing && (records[m].pass || time_anyway)) timed.push_back(m);
    }
    if (!timed.empty()) problem->generate_inputs(inputs, seed, opt.timing_trial, stream);
    const std::vector<Timing> timings = time_ms(*problem, timed, inputs, outputs);
    std::vector<double> tflops(impls.size(), NAN);
    for (std::size_t m = 0; m < impls.size(); ++m) {
      json line = {{"file", file}, {"id", id}, {"index", index}, {"impl", impls[m].name},
                   {"params", params}, {"pass", records[m].pass}, {"trials", records[m].trials},
                   {"flops", problem->flops()}, {"min_bytes", problem->min_bytes()},
                   {"reference_ms", reference_ms}};
      if (!records[m].pass) {
        line["why"] = records[m].why;
        ++failures;
      }
      const auto slot = std::find(timed.begin(), timed.end(), m);
      if (slot != timed.end()) {
        if (!records[m].pass) line["timed_despite_failing"] = true;
        const Timing& t = timings[slot - timed.begin()];
        tflops[m] = problem->flops() / (t.median_ms * 1e-3) / 1e12;
        line["median_ms"] = t.median_ms;
        line["tflops"] = tflops[m];
        line["timing"] = {{"hold", hold_name()}, {"samples", t.samples}, {"host_hidden", t.host_hidden},
                          {"inputs_trial", opt.timing_trial}};
      }
      if (jsonl) jsonl << line.dump() << "\n" << std::flush;
      std::printf("%-28s %-10s %-5s", id.c_str(), impls[m].name.c_str(),
                  records[m].pass ? "ok" : "FAIL");
      double worst = 0, worst_naive = 0;
      for (const auto& t : records[m].trials)
        if (t.contains("max_err") && t["max_err"].get<double>() >= worst) {
          worst = t["max_err"];
          worst_naive = t["naive_err"];
        }
      std::printf(" max_err %.3e (naive %.3e)", worst, worst_naive);
      if (!std::isnan(tflops[m])) {
        std::printf("  %8.3f ms  %7.1f TFLOP/s", line["median_ms"].get<double>(), tflops[m]);
        if (opt.hold_us > 0 || opt.hold_flag)
          std::printf("  host hidden %d/%d", line["timing"]["host_hidden"].get<int>(),
                      line["timing"]["samples"].get<int>());
      }
      if (!records[m].pass) std::printf("  %s", records[m].why.c_str());
      if (m > same_index) {
        unsigned long long differ = 0;
        int compared = 0;
        for (const auto& t : records[m].trials)
          if (t.contains("bits_differ_from")) differ += t["bits_differ_from"]["count"].get<unsigned long long>(), ++compared;
        if (compared == 0)
          std::printf("  not compared with %s", opt.same_as.c_str());
        else if (differ == 0)
          std::printf("  bit-identical to %s (%d trials)", opt.same_as.c_str(), compared);
        else
          std::printf("  bits differ from %s: %llu values", opt.same_as.c_str(), differ);
      }
      if (m == 0) std::printf("  [reference %.1f ms]", reference_ms);
      std::printf("\n");
      std::fflush(stdout);
    }

    for (void* p : inputs) cudaFree(p);
    for (void* p : outputs) cudaFree(p);
    cudaFree(second);
    cudaFree(same);
    cudaFree(ref);
    cudaFree(naive);
    return tflops;
  }

  // Median milliseconds of each implementation in `which`, timed in turns: round r launches every
  // one of them once, starting from a different one each round, so that they all see the same
  // clock and power state (the GPU's clock moves on a scale of milliseconds under this load, and
  // timing one implementation's launches back to back put up to 5% between identical builds
  // in D14-D17). L2 is flushed before every launch.
  struct Timing {
    double median_ms = 0;
    int samples = 0, host_hidden = 0;  // samples whose host part ran inside the hold
  };
  std::vector<Timing> time_ms(socratic::harness::Problem& problem, const std::vector<std::size_t>& which,
                              const std::vector<void*>& in, const std::vector<void*>& out) {
    const std::size_t n = which.size();
    std::vector<std::vector<double>> samples(n);
    std::vector<int> hidden(n, 0);
    if (n == 0) return {};
    cudaEvent_t start, stop;
    check(cudaEventCreate(&start), "event");
    check(cudaEventCreate(&stop), "event");
    for (std::size_t k = 0; k < n; ++k)
      for (int i = 0; i < 3; ++i) problem.launch(impls[which[k]].entry, in, out, stream);  // warm-up
    double total_ms = 0;
    for (int r = 0; r < opt.reps && (r < 5 || total_ms < 2000.0 * n); ++r) {
      for (std::size_t j = 0; j < n; ++j) {
        const std::size_t k = (j + r) % n;
        check(cudaMemsetAsync(flush, r & 0xFF, flush_bytes, stream), "L2 flush");
        if (blocking_hold) {
          blocking_hold->block(stream);
        } else if (opt.hold_us > 0) {
          socratic::bench::hold_for<<<1, 1, 0, stream>>>(1000ull * opt.hold_us);
          check(cudaGetLastError(), "hold kernel");
        }
        check(cudaEventRecord(start, stream), "record");
        const int declined = problem.launch(impls[which[k]].entry, in, out, stream);
        const cudaError_t started = cudaEventQuery(start);
        if (blocking_hold) blocking_hold->release();
        if (declined != 0) throw std::runtime_error(impls[which[k]].name + " declined while timing");
        if (started != cudaErrorNotReady && started != cudaSuccess) check(started, "query (start)");
        check(cudaEventRecord(stop, stream), "record");
        check(cudaEventSynchronize(stop), "synchronize (timing)");
        if (blocking_hold ? blocking_hold->hid_last() : started == cudaErrorNotReady) ++hidden[k];
        float ms = 0;
        check(cudaEventElapsedTime(&ms, start, stop), "elapsed");
        samples[k].push_back(ms);
        total_ms += ms;
      }
    }
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
    std::vector<Timing> timings;
    for (std::size_t k = 0; k < n; ++k)
      timings.push_back({median(samples[k]), static_cast<int>(samples[k].size()), hidden[k]});
    return timings;
  }
};

}  // namespace

int main(int argc, char** argv) {
  try {
    Runner r;
    r.opt = parse_options(argc, argv);
    for (const auto& [name, path] : r.opt.impls) {
      void* lib = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
      if (!lib) throw std::runtime_error("dlopen " + path + ": " + dlerror());
      void* entry = dlsym(lib, socratic_problem_entry_point());
      if (!entry) throw std::runtime_error(path + ": no symbol " + socratic_problem_entry_point());
      r.impls.push_back({name, entry});
    }
    check(cudaStreamCreateWithFlags(&r.stream, cudaStreamNonBlocking), "stream");
    check(cudaMalloc(&r.stats, 2 * sizeof(Stats)), "cudaMalloc stats");
    int device = 0, l2 = 0;
    check(cudaGetDevice(&device), "device");
    check(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device), "L2 size");
    r.flush_bytes = 2 * static_cast<std::size_t>(l2);
    check(cudaMalloc(&r.flush, r.flush_bytes), "cudaMalloc flush");
    cudaDeviceProp prop{};
    check(cudaGetDeviceProperties(&prop, device), "properties");
    std::printf("device %s, %d SMs, L2 %d bytes\n", prop.name, prop.multiProcessorCount, l2);
    if (!r.opt.jsonl.empty()) r.jsonl.open(r.opt.jsonl);
    if (r.opt.hold_flag) r.blocking_hold = std::make_unique<socratic::bench::BlockingHold>();
    std::printf("timing: L2 flush %zu bytes, hold %s, inputs of trial %d\n", r.flush_bytes, r.hold_name().c_str(),
                r.opt.timing_trial);

    for (const auto& path : r.opt.files) {
      const ScenarioFile f = load_scenarios(path);
      std::printf("== %s (%zu scenarios)\n", f.name.c_str(), f.scenarios.size());
      std::vector<std::vector<double>> per_impl(r.impls.size());
      for (std::size_t i = 0; i < f.scenarios.size(); ++i) {
        const auto& [id, params] = f.scenarios[i];
        if (!r.opt.only.empty() && std::find(r.opt.only.begin(), r.opt.only.end(), id) == r.opt.only.end())
          continue;
        try {
          const auto t = r.run(f.name, id, params, i);
          for (std::size_t m = 0; m < t.size(); ++m) per_impl[m].push_back(t[m]);
        } catch (const std::exception& e) {
          ++r.failures;
          std::printf("%-28s ERROR %s\n", id.c_str(), e.what());
          if (std::string(e.what()).find("illegal") != std::string::npos) throw;  // context is gone
        }
      }
      for (std::size_t m = 0; m < r.impls.size(); ++m) {
        double log_sum = 0;
        int n = 0;
        for (double t : per_impl[m])
          if (t > 0) log_sum += std::log(t), ++n;
        if (n) std::printf("-- %s %s: geomean %.1f TFLOP/s over %d timed scenarios\n", f.name.c_str(),
                           r.impls[m].name.c_str(), std::exp(log_sum / n), n);
      }
    }
    std::printf("failures: %d\n", r.failures);
    return r.failures == 0 ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "check_attention: %s\n", e.what());
    return 2;
  }
}
