// The generic runner: one executable per problem (this file + the problem's runner_sources).
// It loads the baseline and the candidate, and for each scenario checks and times them,
// writing the JSON lines of docs/runner-protocol.md. docs/harness.md explains every check.
//
// Exit status: 0 ran to the end (whatever the verdicts); 2 bad command line, file or scenario;
// 3 a CUDA error (the context is unusable: the host restarts a runner for the remaining
// scenarios); 4 the per-scenario watchdog fired.
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <exception>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli.hpp"
#include "context.cuh"
#include "correctness.cuh"
#include "cuda_check.hpp"
#include "emitter.hpp"
#include "nvml_clock.hpp"
#include "peaks.hpp"
#include "problem.cuh"
#include "proc_self.hpp"
#include "result.hpp"
#include "scenario_file.hpp"
#include "timing.cuh"
#include "watchdog.hpp"

namespace socratic::harness {
namespace {

/// A scenario the problem refuses (configure threw): the protocol's "bad scenario" fatal.
struct BadScenario : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// Exit statuses (see the file comment).
enum Exit { exit_ok = 0, exit_bad_input = 2, exit_cuda = 3 };

std::uint64_t fnv1a(const std::string& s) {
  std::uint64_t h = 0xCBF29CE484222325ull;
  for (unsigned char c : s) h = (h ^ c) * 0x100000001B3ull;
  return h;
}

/// "socratic_rmsnorm_forward" -> "rmsnorm".
std::string name_from_entry_point(std::string e) {
  const std::string prefix = "socratic_", suffix = "_forward";
  if (e.rfind(prefix, 0) == 0) e.erase(0, prefix.size());
  if (e.size() > suffix.size() && e.compare(e.size() - suffix.size(), suffix.size(), suffix) == 0)
    e.erase(e.size() - suffix.size());
  return e;
}

/// dlopen + dlsym of the entry point; throws with the file and the loader's message.
void* load_entry(const std::string& path, const std::string& role) {
  void* lib = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char* why = dlerror();
    throw std::runtime_error("cannot load the " + role + " " + path + ": " +
                             (why ? why : "unknown error"));
  }
  void* entry = dlsym(lib, socratic_problem_entry_point());
  if (!entry)
    throw std::runtime_error("the " + role + " " + path + " has no entry point \"" +
                             std::string(socratic_problem_entry_point()) +
                             "\" (it must be extern \"C\")");
  return entry;
}

/// Allocates one scenario's buffers after the problem was configured.
ScenarioBuffers allocate(RunnerContext& ctx, std::uint64_t seed) {
  ScenarioBuffers b;
  const auto specs = ctx.problem.tensors();
  std::vector<TensorSpec> outs;
  for (const auto& s : specs) {
    if (s.output)
      outs.push_back(s);
    else
      b.inputs.emplace_back(s, ctx.options.guard_elements, ctx.ops, mix64(seed ^ fnv1a(s.name)));
  }
  if (outs.size() != 1)
    throw std::runtime_error("the problem declares " + std::to_string(outs.size()) +
                             " output tensors; the runner supports exactly one");
  TensorSpec baseline_spec = outs[0];
  baseline_spec.name += " (baseline's)";
  b.outputs.emplace_back(outs[0], ctx.options.guard_elements, ctx.ops, mix64(seed ^ 0x0A7ull));
  b.outputs.emplace_back(baseline_spec, ctx.options.guard_elements, ctx.ops,
                         mix64(seed ^ 0x0B7ull));
  b.out_elements = outs[0].elements;
  b.out_dtype = outs[0].dtype;
  const std::size_t f32 = b.out_elements * sizeof(float);
  b.reference_f32 = DeviceBuffer(f32, "reference output");
  b.candidate_f32 = DeviceBuffer(f32, "candidate output, fp32");
  b.baseline_f32 = DeviceBuffer(f32, "baseline output, fp32");
  b.rerun_f32 = DeviceBuffer(f32, "candidate re-run output, fp32");
  b.previous_raw = DeviceBuffer(b.out_bytes(), "previous candidate output");
  b.previous_reference_f32 = DeviceBuffer(f32, "previous reference output");
  b.snapshot_raw = DeviceBuffer(b.out_bytes(), "candidate output snapshot");
  return b;
}

void exercise_runner_calls(RunnerContext& ctx) {
  DeviceBuffer a(1 << 20, "warm-up buffer"), b(1 << 20, "warm-up buffer");
  ctx.ops.fill_random(a.get(), (1 << 20) / 2, 1);
  cuda_check(cudaMemcpyAsync(b.get(), a.get(), 1 << 20, cudaMemcpyDeviceToDevice, ctx.stream),
             "cudaMemcpyAsync (warm-up)");
  ctx.ops.count_equal(a.get(), b.get(), 1 << 20);
  ctx.ops.smem_garbage(2);
  ctx.ops.flush_l2();
  reset_persisting_l2(ctx);
  persisting_l2_left_behind(ctx);
  cuda_check(cudaEventRecord(ctx.start_event, ctx.stream), "cudaEventRecord (warm-up)");
  cuda_check(cudaEventRecord(ctx.stop_event, ctx.stream), "cudaEventRecord (warm-up)");
  sync_device("runner", "warm-up");
  float ms = 0;
  cuda_check(cudaEventElapsedTime(&ms, ctx.start_event, ctx.stop_event),
             "cudaEventElapsedTime (warm-up)");
  ctx.clock.current_mhz();
}

RunnerResult run_scenario(RunnerContext& ctx, const RunnerScenario& sc, std::uint64_t base_seed) {
  RunnerResult r;
  r.id = sc.id;
  try {
    ctx.problem.configure(sc.params);
  } catch (const std::exception& e) {
    throw BadScenario("scenario \"" + sc.id + "\": " + e.what());
  }
  const std::uint64_t seed = mix64(base_seed ^ fnv1a(sc.id));
  ScenarioBuffers b = allocate(ctx, seed);
  reset_persisting_l2(ctx);
  if (!ctx.baseline_warmed) {
    // The baseline's first call ever: whatever threads it starts (its own CUDA runtime
    // instance) are not held against candidates. Its output buffer is poisoned before every
    // later call, so nothing it leaves can help the candidate.
    ctx.baseline_warmed = true;
    ctx.problem.generate_inputs(b.input_pointers(), seed, 0, ctx.stream);
    const auto before = list_threads();
    RunnerResult scratch;
    baseline_call(ctx, b, scratch, "first call", seed);
    const auto started = foreign_new_threads(before, list_threads());
    if (!started.empty())
      ctx.emit.log("the baseline's first call started thread(s) " + describe_threads(started) +
                   "; counted as the runner's own");
    ctx.threads_at_start.insert(ctx.threads_at_start.end(), started.begin(), started.end());
    ctx.first_call_thread_allowance = started.size();
  }
  using clock = std::chrono::steady_clock;
  const auto check_began = clock::now();
  check_correctness(ctx, b, r, seed);
  const auto timing_began = clock::now();
  r.check_s = std::chrono::duration<double>(timing_began - check_began).count();
  if (r.correct && ctx.options.timing) {
    // Further placements are allocated while the first is alive, so they land elsewhere.
    std::vector<ScenarioBuffers> extra;
    for (int p = 1; p < ctx.options.placements; ++p) {
      try {
        extra.push_back(allocate(ctx, seed));
      } catch (const CudaError& e) {  // out of memory: time on the placements there are
        cudaGetLastError();
        ctx.emit.log("scenario \"" + sc.id + "\": timing on " + std::to_string(p) +
                     " buffer placement(s), not " + std::to_string(ctx.options.placements) + ": " +
                     e.what());
        break;
      }
    }
    std::vector<ScenarioBuffers*> placements{&b};
    for (auto& e : extra) placements.push_back(&e);
    measure(ctx, placements, r, seed);
    r.timing_s = std::chrono::duration<double>(clock::now() - timing_began).count();
  }
  // A thread a candidate started earlier and kept: flagged on every scenario it outlives.
  const auto strangers = foreign_new_threads(ctx.threads_at_start, list_threads());
  if (!strangers.empty())
    r.fail("extra_threads", "extra_threads",
           "thread(s) not started by the runner or the CUDA driver are alive: " +
               describe_threads(strangers));
  return r;
}

int run(const RunnerOptions& opt, Emitter& emit) {
  // ---- device, stream, helpers --------------------------------------------------------------
  cuda_check(cudaSetDevice(0), "cudaSetDevice(0)");
  cuda_check(cudaFree(nullptr), "CUDA context creation");
  cudaStream_t stream = nullptr;
  cuda_check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking),
             "cudaStreamCreateWithFlags");
  // The runtime starts a thread for host callbacks on first use: start it now, so that it is
  // part of the runner's own threads and never taken for a candidate's.
  cuda_check(cudaLaunchHostFunc(
                 stream, [](void*) {}, nullptr),
             "cudaLaunchHostFunc (warm-up)");
  cuda_check(cudaStreamSynchronize(stream), "cudaStreamSynchronize (warm-up)");

  cudaDeviceProp prop{};
  cuda_check(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
  int mem_clock_khz = 0, bus_bits = 0, sm_clock_khz = 0;
  cudaDeviceGetAttribute(&mem_clock_khz, cudaDevAttrMemoryClockRate, 0);
  cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, 0);
  cudaDeviceGetAttribute(&sm_clock_khz, cudaDevAttrClockRate, 0);
  cudaGetLastError();  // an attribute this driver lacks is not an error worth stopping for
  char bus_id[32] = {0};
  cuda_check(cudaDeviceGetPCIBusId(bus_id, sizeof bus_id, 0), "cudaDeviceGetPCIBusId");
  const SmClock clock(bus_id);
  const DevicePeaks peaks = device_peaks(prop.name, prop.major, prop.multiProcessorCount,
                                         sm_clock_khz, mem_clock_khz, bus_bits);
  DeviceOps ops(stream, prop.multiProcessorCount, static_cast<std::size_t>(prop.l2CacheSize));
  cudaEvent_t start_event = nullptr, stop_event = nullptr;
  cuda_check(cudaEventCreate(&start_event), "cudaEventCreate");
  cuda_check(cudaEventCreate(&stop_event), "cudaEventCreate");
  Watchdog watchdog(emit);

  std::unique_ptr<Problem> problem = socratic_make_problem();
  std::string problem_name = problem->name();
  if (problem_name.empty()) problem_name = name_from_entry_point(socratic_problem_entry_point());

  const std::string arch = "sm_" + std::to_string(prop.major) + std::to_string(prop.minor);
  emit.line({{"event", "hello"},
             {"protocol", 1},
             {"problem", problem_name},
             {"device", prop.name},
             {"arch", arch},
             {"sm_count", prop.multiProcessorCount},
             {"l2_bytes", prop.l2CacheSize},
             {"peak_tflops", peaks.tflops},
             {"peak_gbps", peaks.gbps},
             // Extensions (docs/runner-protocol.md):
             {"peaks_source", peaks.source},
             {"sm_clock_max_mhz", clock.max_mhz()},
             {"flush_bytes", ops.flush_bytes()},
             {"guard_elements", opt.guard_elements},
             {"k", opt.k}});
  if (!clock.available())
    emit.log("SM clock unreadable (" + clock.why_unavailable() + "): sm_clock_mhz will be null");

  // ---- the two implementations --------------------------------------------------------------
  RunnerContext ctx(opt, *problem, ops, stream, emit, clock);
  ctx.peaks = peaks;
  ctx.l2_bytes = prop.l2CacheSize;
  ctx.persisting_l2_supported = prop.persistingL2CacheMaxSize > 0;
  ctx.start_event = start_event;
  ctx.stop_event = stop_event;
  // Every runtime, driver and NVML call the runner makes around a candidate, once, before the
  // thread census: whatever threads they start lazily are the runner's own.
  exercise_runner_calls(ctx);
  ctx.threads_at_start = list_threads();  // before any code of theirs ran (constructors too)
  std::vector<RunnerScenario> scenarios;
  try {
    ctx.baseline.entry = load_entry(opt.baseline, "baseline");
    ctx.candidate.entry = load_entry(opt.candidate, "candidate");
    const RunnerScenarioSet set = load_scenario_set_file(opt.scenarios);
    if (set.problem != problem_name)
      throw std::runtime_error(opt.scenarios + ": the scenario set is for problem \"" +
                               set.problem + "\", this runner is for \"" + problem_name + "\"");
    scenarios = select_scenarios(set, opt.only);
  } catch (const std::exception& e) {
    emit.fatal(e.what());
    return exit_bad_input;
  }
  std::vector<std::string> reported = mapped_shared_objects();
  emit.line({{"event", "libraries"}, {"mapped", reported}});

  // ---- scenarios ----------------------------------------------------------------------------
  for (std::size_t i = 0; i < scenarios.size(); ++i) {
    const RunnerScenario& sc = scenarios[i];
    emit.line({{"event", "scenario_begin"}, {"index", i}, {"id", sc.id}});
    watchdog.arm(sc.id, opt.scenario_timeout_s);
    RunnerResult r;
    try {
      r = run_scenario(ctx, sc, opt.seed);
    } catch (const BadScenario& e) {
      emit.fatal(e.what());
      return exit_bad_input;
    } catch (const CudaError& e) {
      r = RunnerResult{};
      r.id = sc.id;
      r.fail("", "cuda_error", e.what());
      emit.line({{"event", "scenario_end"}, {"result", r.to_json()}});
      emit.fatal("scenario \"" + sc.id + "\": " + e.what() +
                 "; the CUDA context is unusable, the runner stops");
      return exit_cuda;
    } catch (const std::exception& e) {
      r = RunnerResult{};
      r.id = sc.id;
      r.fail("", "runner_error", e.what());
      emit.line({{"event", "scenario_end"}, {"result", r.to_json()}});
      emit.fatal("scenario \"" + sc.id + "\": " + e.what());
      return exit_cuda;
    }
    watchdog.disarm();
    emit.line({{"event", "scenario_end"}, {"result", r.to_json()}, {"check_s", r.check_s},
               {"timing_s", r.timing_s}});
    const auto now = mapped_shared_objects();
    const auto fresh = newly_mapped(reported, now);
    reported.insert(reported.end(), fresh.begin(), fresh.end());
    emit.line({{"event", "libraries"}, {"mapped", fresh}});
  }
  emit.line({{"event", "done"}, {"scenarios", scenarios.size()}});
  return exit_ok;
}

}  // namespace
}  // namespace socratic::harness

int main(int argc, char** argv) {
  using namespace socratic::harness;
  prctl(PR_SET_NAME, "socratic-runner", 0, 0, 0);
  // The protocol goes to a private copy of stdout; fd 1 then points at stderr, so that anything
  // a candidate prints cannot be taken for a protocol line.
  const int protocol_fd = dup(1);
  std::FILE* protocol = protocol_fd >= 0 ? fdopen(protocol_fd, "w") : nullptr;
  if (!protocol || dup2(2, 1) < 0) {
    std::fprintf(stderr, "socratic-runner: cannot set up the protocol stream\n");
    return 2;
  }
  Emitter emit(protocol);
  RunnerOptions options;
  try {
    options = parse_runner_options(argc, argv);
  } catch (const std::exception& e) {
    emit.fatal(std::string("command line: ") + e.what());
    return 2;
  }
  try {
    return run(options, emit);
  } catch (const std::exception& e) {
    emit.fatal(e.what());
    return 3;
  }
}
