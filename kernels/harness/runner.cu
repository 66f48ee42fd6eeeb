// The generic runner: one executable per problem (this file + the problem's runner_sources).
// It is the judge: it starts two workers (this executable again, with --worker), one holding
// the baseline and one the candidate, each in its own process under a sandbox; owns every
// input, output, reference and clock; and for each scenario checks and times both through
// them, writing the JSON lines of docs/runner-protocol.md. It never loads either
// implementation itself. docs/harness.md explains every check and the boundary.
//
// Exit status: 0 ran to the end (whatever the verdicts); 2 bad command line, file or scenario;
// 3 a CUDA error or a worker that broke (the host restarts a runner for the remaining
// scenarios); 4 the per-scenario watchdog fired.
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <cerrno>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <exception>
#include <memory>
#include <optional>
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
#include "sides.hpp"
#include "timing.cuh"
#include "watchdog.hpp"
#include "worker.cuh"
#include "worker_link.hpp"

namespace socratic::harness {
namespace {

/// A scenario the problem refuses (configure threw): the protocol's "bad scenario" fatal.
struct BadScenario : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// Placements for a small scenario: as many as fit this budget, up to this count.
constexpr std::size_t placement_budget_bytes = std::size_t(1) << 30;
constexpr int max_placements = 16;

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

/// Allocates one scenario's buffers after the problem was configured (`seed`: the guard bands'),
/// with the scenario's scratch (`shared`), or a new one when none is given.
ScenarioBuffers allocate(RunnerContext& ctx, std::uint64_t seed,
                         std::shared_ptr<ScenarioScratch> shared = nullptr) {
  ScenarioBuffers b;
  const auto specs = ctx.problem.tensors();
  std::vector<TensorSpec> outs;
  for (const auto& s : specs) {
    if (s.output)
      outs.push_back(s);
    else
      b.inputs.emplace_back(s, ctx.options.guard_elements, ctx.ops, mix64(seed ^ fnv1a(s.name)));
  }
  if (outs.empty()) throw std::runtime_error("the problem declares no output tensor");
  for (std::size_t i = 0; i < outs.size(); ++i) {
    // Output 0 keeps the guard seeds of a problem of one output.
    const std::uint64_t salt = i == 0 ? 0 : fnv1a(outs[i].name);
    TensorSpec baseline_spec = outs[i];
    baseline_spec.name += " (baseline's)";
    GuardedTensor first(outs[i], ctx.options.guard_elements, ctx.ops, mix64(seed ^ 0x0A7ull ^ salt));
    GuardedTensor second(baseline_spec, ctx.options.guard_elements, ctx.ops, mix64(seed ^ 0x0B7ull ^ salt));
    // Which of the two allocations of an output (the earlier or the later address) is the
    // candidate's is drawn per placement: where an output lands (its L2 partition and DRAM
    // channels) is fixed within a run, and a fixed order would give one side the same place
    // every time.
    if ((i == 0 ? seed : mix64(seed ^ salt)) & 1) {
      std::swap(first, second);
      first.rename(outs[i].name);
      second.rename(baseline_spec.name);
    }
    b.candidate_outputs.push_back(std::move(first));
    b.baseline_outputs.push_back(std::move(second));
  }
  if (shared) {
    b.scratch = std::move(shared);
    return b;
  }
  b.scratch = std::make_shared<ScenarioScratch>();
  for (std::size_t i = 0; i < outs.size(); ++i) {
    const std::size_t f32 = b.out_elements(i) * sizeof(float);
    const std::string of = outs.size() == 1 ? "" : " \"" + outs[i].name + "\"";
    OutputScratch s;
    s.reference_f32 = DeviceBuffer(f32, "reference output" + of);
    s.candidate_f32 = DeviceBuffer(f32, "candidate output" + of + ", fp32");
    s.baseline_f32 = DeviceBuffer(f32, "baseline output" + of + ", fp32");
    s.rerun_f32 = DeviceBuffer(f32, "candidate re-run output" + of + ", fp32");
    s.previous_raw = DeviceBuffer(b.out_bytes(i), "previous candidate output" + of);
    s.previous_reference_f32 = DeviceBuffer(f32, "previous reference output" + of);
    s.snapshot_raw = DeviceBuffer(b.out_bytes(i), "candidate output snapshot" + of);
    b.scratch->outputs.push_back(std::move(s));
  }
  return b;
}

}  // namespace

// Declared in implementation.cuh; defined here, in the runner's translation unit, where the
// judge's device buffers are (a problem's translation unit has only their addresses).
std::uint32_t AddressImplementation::map(const std::vector<const GuardedTensor*>& tensors) {
  std::vector<const void*> addresses;
  for (const GuardedTensor* t : tensors) addresses.push_back(t->data());
  return map_addresses(addresses);
}

namespace {

/// Maps one placement's tensors into every side (each sees the inputs and its own output; the
/// judge's null implementation, trusted, maps the baseline's tensors and touches none of them).
void share(RunnerContext& ctx, ScenarioBuffers& b) {
  b.candidate_placement = ctx.candidate->map(b.shared_with(true));
  b.baseline_placement = ctx.baseline->map(b.shared_with(false));
  if (ctx.calibration && ctx.plan.calibration) b.calibration_placement = ctx.calibration->map(b.shared_with(false));
}

/// The native baseline's worker and the calibration worker (either may be absent).
struct NativeSides {
  RemoteImplementation* baseline = nullptr;
  RemoteImplementation* calibration = nullptr;
};

/// Picks the scenario's baseline and timing plan (sides.hpp) after the problem was configured.
void choose_sides(RunnerContext& ctx, const RunnerScenario& sc, const NativeSides& native) {
  BaselineKind kind;
  try {
    kind = scenario_baseline(baseline_option(ctx.options.baseline), ctx.problem.requested_baseline(),
                             ctx.problem.has_pytorch_baseline());
  } catch (const std::invalid_argument& e) {
    throw BadScenario("scenario \"" + sc.id + "\": " + e.what());
  }
  ctx.baseline_kind = kind;
  ctx.plan = timing_plan(ctx.options.launch_hold, kind);
  if (kind == BaselineKind::native) {
    ctx.baseline = native.baseline;
  } else {
    ctx.baseline = ctx.problem.pytorch_baseline(kind == BaselineKind::pytorch_compile);
    if (!ctx.baseline)
      throw BadScenario("scenario \"" + sc.id + "\": the problem gave no " + baseline_kind_name(kind) + " baseline");
  }
  if (!ctx.baseline) throw BadScenario("scenario \"" + sc.id + "\": no native baseline was started");
  ctx.calibration = ctx.plan.calibration ? native.calibration : nullptr;
  if (ctx.plan.calibration && !ctx.calibration)
    throw std::runtime_error("scenario \"" + sc.id + "\": the calibration worker was not started");
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
  ctx.ops.fence_us();
  sync_device("runner", "warm-up");
  ctx.clock.current_mhz();
}

RunnerResult run_scenario(RunnerContext& ctx, const RunnerScenario& sc, const NativeSides& native) {
  RunnerResult r;
  r.id = sc.id;
  try {
    ctx.problem.configure(sc.params);
  } catch (const std::exception& e) {
    throw BadScenario("scenario \"" + sc.id + "\": " + e.what());
  }
  choose_sides(ctx, sc, native);
  // Every seed of the scenario comes from the judge's secret under this scope (secret.hpp).
  const std::uint64_t scope = fnv1a(sc.id);
  ctx.scope = scope;
  ctx.reference_s = 0;
  ctx.candidate->configure(sc.params);
  ctx.baseline->configure(sc.params);
  if (ctx.calibration) ctx.calibration->configure(sc.params);
  // Every placement is shared with every side; the mappings are closed before the buffers go.
  struct Unmap {
    RunnerContext& ctx;
    ~Unmap() {
      for (Implementation* side : {static_cast<Implementation*>(ctx.candidate), ctx.baseline,
                                   static_cast<Implementation*>(ctx.calibration)}) {
        if (!side) continue;
        try {
          side->unmap();
        } catch (...) {  // a broken worker: the failure is reported where it happened
        }
      }
    }
  };
  std::vector<ScenarioBuffers> extra;  // declared before the guard: freed after the unmap
  ScenarioBuffers b = allocate(ctx, ctx.secret.value(SecretUse::scenario, scope, 0));
  Unmap unmap_at_end{ctx};
  share(ctx, b);
  reset_persisting_l2(ctx);
  using clock = std::chrono::steady_clock;
  const auto check_began = clock::now();
  check_correctness(ctx, b, r);
  const auto timing_began = clock::now();
  r.check_s = std::chrono::duration<double>(timing_began - check_began).count();
  if (r.correct && ctx.options.timing) {
    // Further placements are allocated while the first is alive, so they land elsewhere. A
    // small scenario gets more of them (up to max_placements within placement_budget_bytes):
    // where its few pages land moved the baseline against itself by 2-3 % from run to run on
    // RMSNorm's 6-8 us scenarios (D141), and more placements average that inside a run.
    const std::size_t each = std::max<std::size_t>(b.tensor_bytes(), 1);
    const int wanted = static_cast<int>(std::clamp<std::size_t>(
        placement_budget_bytes / each, static_cast<std::size_t>(ctx.options.placements),
        static_cast<std::size_t>(std::max(ctx.options.placements, max_placements))));
    for (int p = 1; p < wanted; ++p) {
      try {
        extra.push_back(allocate(ctx, ctx.secret.value(SecretUse::scenario, scope, p), b.scratch));
        share(ctx, extra.back());
      } catch (const CudaError& e) {  // out of memory: time on the placements there are
        cudaGetLastError();
        ctx.emit.log("scenario \"" + sc.id + "\": timing on " + std::to_string(p) +
                     " buffer placement(s), not " + std::to_string(wanted) + ": " +
                     e.what());
        break;
      }
    }
    std::vector<ScenarioBuffers*> placements{&b};
    for (auto& e : extra) placements.push_back(&e);
    measure(ctx, placements, r);
    r.timing_s = std::chrono::duration<double>(clock::now() - timing_began).count();
  }
  return r;
}

/// The workers, started before this process touches CUDA (a fork is cheap then): the candidate's,
/// the native baseline's unless --baseline names a PyTorch baseline, and the judge's null
/// implementation's when a scenario may be timed against a PyTorch baseline.
struct Workers {
  std::unique_ptr<RemoteImplementation> baseline, candidate, calibration;
  NativeSides native() const { return {baseline.get(), calibration.get()}; }
  std::vector<RemoteImplementation*> all() const {
    std::vector<RemoteImplementation*> w;
    for (const auto* p : {&baseline, &candidate, &calibration})
      if (*p) w.push_back(p->get());
    return w;
  }
};

Workers start_workers(const RunnerOptions& opt, bool calibration) {
  std::vector<std::string> env;
  for (char** e = environ; e && *e; ++e) env.emplace_back(*e);
  auto spawn = [&](const std::string& role, const std::string& implementation) {
    std::vector<std::string> argv = {"/proc/self/exe", "--worker", role, "--implementation",
                                     implementation};
    const std::string who = role == calibration_role ? "the judge's null implementation's worker"
                                                     : "the " + role + "'s worker";
    return std::make_unique<RemoteImplementation>(role, WorkerLink::spawn(argv, env, who, role));
  };
  Workers w;
  if (baseline_option(opt.baseline).has_native()) w.baseline = spawn("baseline", opt.baseline);
  w.candidate = spawn("candidate", opt.candidate);
  if (calibration) w.calibration = spawn(calibration_role, "(the judge's null implementation)");
  return w;
}

/// Whether a selected scenario may be timed against a PyTorch baseline, read before any worker
/// starts (then the calibration worker starts with the others). A scenario set or a scenario
/// that cannot be read here is read again, and reported, where the run reads it.
bool may_need_calibration(const RunnerOptions& opt, Problem& problem, const std::string& problem_name);

/// Ends every scenario from `first` on with the same failure (the candidate was disqualified
/// by its sandbox: none of them can be judged).
void fail_remaining(Emitter& emit, const std::vector<RunnerScenario>& scenarios, std::size_t first,
                    bool begun, const std::string& flag, const std::string& reason) {
  for (std::size_t i = first; i < scenarios.size(); ++i) {
    if (i != first || !begun)
      emit.line({{"event", "scenario_begin"}, {"index", i}, {"id", scenarios[i].id}});
    RunnerResult r;
    r.id = scenarios[i].id;
    r.fail(flag, flag, reason);
    emit.line({{"event", "scenario_end"}, {"result", r.to_json()}});
  }
}

/// The judge's GPU: its stream, what it is, and the peaks its roofline floors use.
struct JudgeDevice {
  cudaStream_t stream = nullptr;
  cudaDeviceProp prop{};
  std::string bus_id;
  DevicePeaks peaks;
};

/// The judge's CUDA context, after the workers were started (a fork is cheap before it).
JudgeDevice open_device() {
  JudgeDevice d;
  cuda_check(cudaSetDeviceFlags(cudaDeviceScheduleSpin), "cudaSetDeviceFlags");
  cuda_check(cudaSetDevice(0), "cudaSetDevice(0)");
  cuda_check(cudaFree(nullptr), "CUDA context creation");
  cuda_check(cudaStreamCreateWithFlags(&d.stream, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
  cuda_check(cudaGetDeviceProperties(&d.prop, 0), "cudaGetDeviceProperties");
  int mem_clock_khz = 0, bus_bits = 0, sm_clock_khz = 0;
  cudaDeviceGetAttribute(&mem_clock_khz, cudaDevAttrMemoryClockRate, 0);
  cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, 0);
  cudaDeviceGetAttribute(&sm_clock_khz, cudaDevAttrClockRate, 0);
  cudaGetLastError();  // an attribute this driver lacks is not an error worth stopping for
  char bus_id[32] = {0};
  cuda_check(cudaDeviceGetPCIBusId(bus_id, sizeof bus_id, 0), "cudaDeviceGetPCIBusId");
  d.bus_id = bus_id;
  d.peaks = device_peaks(d.prop.name, d.prop.major, d.prop.multiProcessorCount, sm_clock_khz, mem_clock_khz,
                         bus_bits);
  return d;
}

/// The protocol's first line (docs/runner-protocol.md).
void say_hello(Emitter& emit, const RunnerOptions& opt, const JudgeDevice& d, const SmClock& clock,
               const DeviceOps& ops, const std::string& problem_name) {
  const std::string arch = "sm_" + std::to_string(d.prop.major) + std::to_string(d.prop.minor);
  emit.line({{"event", "hello"},
             {"protocol", 2},
             {"problem", problem_name},
             {"device", d.prop.name},
             {"arch", arch},
             {"sm_count", d.prop.multiProcessorCount},
             {"l2_bytes", d.prop.l2CacheSize},
             {"peak_tflops", d.peaks.tflops},
             {"peak_gbps", d.peaks.gbps},
             // Extensions (docs/runner-protocol.md):
             {"peaks_source", d.peaks.source},
             {"sm_clock_max_mhz", clock.max_mhz()},
             {"flush_bytes", ops.flush_bytes()},
             {"guard_elements", opt.guard_elements},
             {"k", opt.k},
             {"boundary", "workers"},
             // Whether the inputs and the schedule can be foreseen by anyone who knows the seed.
             {"inputs", opt.seed ? "reproducible" : "secret"},
             {"launch_hold", opt.launch_hold}});
  if (!clock.available())
    emit.log("SM clock unreadable (" + clock.why_unavailable() + "): sm_clock_mhz will be null");
}

/// The scenarios the options select, from a set that must be this runner's problem's.
std::vector<RunnerScenario> selected_scenarios(const RunnerOptions& opt, const std::string& problem_name) {
  const RunnerScenarioSet set = load_scenario_set_file(opt.scenarios);
  if (set.problem != problem_name)
    throw std::runtime_error(opt.scenarios + ": the scenario set is for problem \"" + set.problem +
                             "\", this runner is for \"" + problem_name + "\"");
  return select_scenarios(set, opt.only);
}

bool may_need_calibration(const RunnerOptions& opt, Problem& problem, const std::string& problem_name) {
  BaselineOption option;
  try {
    option = baseline_option(opt.baseline);
  } catch (const std::exception&) {
    return false;
  }
  if (option.word) return true;
  if (!problem.has_pytorch_baseline()) return false;
  try {
    for (const RunnerScenario& sc : selected_scenarios(opt, problem_name)) {
      try {
        problem.configure(sc.params);
      } catch (const std::exception&) {
        continue;
      }
      const auto asked = baseline_kind_named(problem.requested_baseline());
      if (asked && is_pytorch(*asked)) return true;
    }
  } catch (const std::exception&) {
  }
  return false;
}

/// Waits for every worker's hello. Returns the run's exit status when it ends here: a candidate
/// refused while loading fails every scenario (exit 0); a broken worker is fatal.
std::optional<int> await_workers(RunnerContext& ctx, const std::vector<RunnerScenario>& scenarios,
                                 const NativeSides& native) {
  const auto hello_timeout = std::chrono::seconds(120);
  Emitter& emit = ctx.emit;
  for (RemoteImplementation* judge_side : {native.baseline, native.calibration}) {
    if (!judge_side) continue;
    try {
      judge_side->await_hello(hello_timeout);
    } catch (const WorkerFailure& e) {
      emit.fatal(e.what());
      return e.kind == WorkerFailure::Kind::error ? exit_bad_input : exit_cuda;
    }
  }
  try {
    ctx.candidate->await_hello(hello_timeout);
  } catch (const WorkerFailure& e) {
    if (e.kind == WorkerFailure::Kind::sandbox || e.kind == WorkerFailure::Kind::protocol) {
      // Refused while loading (a static constructor): no scenario can be judged.
      fail_remaining(emit, scenarios, 0, false,
                     e.kind == WorkerFailure::Kind::sandbox ? "sandbox_violation" : "worker_protocol",
                     std::string(e.what()) + " while the candidate was being loaded");
      emit.line({{"event", "done"}, {"scenarios", scenarios.size()}});
      return exit_ok;
    }
    emit.fatal(e.what());
    return e.kind == WorkerFailure::Kind::error ? exit_bad_input : exit_cuda;
  }
  return std::nullopt;
}

/// Judges scenario `i` and writes its end line. Returns the run's exit status when the run
/// stops here (a bad scenario, a broken worker or CUDA context, a disqualified candidate).
std::optional<int> judge_scenario(RunnerContext& ctx, const std::vector<RunnerScenario>& scenarios,
                                  std::size_t i, Watchdog& watchdog, const NativeSides& native) {
  const RunnerScenario& sc = scenarios[i];
  Emitter& emit = ctx.emit;
  emit.line({{"event", "scenario_begin"}, {"index", i}, {"id", sc.id}});
  watchdog.arm(sc.id, ctx.options.scenario_timeout_s);
  auto broke = [&](const std::string& flag, const std::string& what) {
    RunnerResult r;
    r.id = sc.id;
    r.fail(flag, flag, what);
    emit.line({{"event", "scenario_end"}, {"result", r.to_json()}});
  };
  RunnerResult r;
  try {
    r = run_scenario(ctx, sc, native);
  } catch (const BadScenario& e) {
    emit.fatal(e.what());
    return exit_bad_input;
  } catch (const WorkerFailure& e) {
    const bool candidate = e.role == "candidate";
    // A candidate whose worker broke its sandbox or the wire tampered with the judge: it is
    // disqualified, and no scenario after this one is judged.
    if (candidate && (e.kind == WorkerFailure::Kind::sandbox || e.kind == WorkerFailure::Kind::protocol)) {
      fail_remaining(emit, scenarios, i, true,
                     e.kind == WorkerFailure::Kind::sandbox ? "sandbox_violation" : "worker_protocol", e.what());
      emit.line({{"event", "done"}, {"scenarios", scenarios.size()}});
      return exit_ok;
    }
    const std::string flag = !candidate ? "runner_error"
                             : e.kind == WorkerFailure::Kind::protocol ? "worker_protocol"
                                                                        : "worker_failed";
    broke(flag, e.what());
    emit.fatal("scenario \"" + sc.id + "\": " + e.what() + "; the runner stops");
    return exit_cuda;
  } catch (const WorkerCudaError& e) {
    broke(e.role == "candidate" ? "cuda_error" : "runner_error", e.what());
    emit.fatal("scenario \"" + sc.id + "\": " + e.what() + "; the worker's CUDA context is unusable, the runner stops");
    return exit_cuda;
  } catch (const CudaError& e) {
    broke("runner_error", e.what());
    emit.fatal("scenario \"" + sc.id + "\": " + e.what() + "; the judge's CUDA context is unusable, the runner stops");
    return exit_cuda;
  } catch (const std::exception& e) {
    broke("runner_error", e.what());
    emit.fatal("scenario \"" + sc.id + "\": " + e.what());
    return exit_cuda;
  }
  watchdog.disarm();
  emit.line({{"event", "scenario_end"}, {"result", r.to_json()}, {"check_s", r.check_s},
             {"timing_s", r.timing_s}, {"reference_s", ctx.reference_s},
             {"baseline", baseline_kind_name(ctx.baseline_kind)}});
  return std::nullopt;
}

int run(const RunnerOptions& opt, Emitter& emit) {
  std::unique_ptr<Problem> problem = socratic_make_problem();
  std::string problem_name = problem->name();
  if (problem_name.empty()) problem_name = name_from_entry_point(socratic_problem_entry_point());
  Workers workers = start_workers(opt, may_need_calibration(opt, *problem, problem_name));
  const JudgeDevice device = open_device();
  const SmClock clock(device.bus_id);
  DeviceOps ops(device.stream, device.prop.multiProcessorCount, static_cast<std::size_t>(device.prop.l2CacheSize));
  Watchdog watchdog(emit);
  say_hello(emit, opt, device, clock, ops, problem_name);

  const JudgeSecret secret = opt.seed ? JudgeSecret::from_seed(*opt.seed) : JudgeSecret::fresh();
  RunnerContext ctx(opt, *problem, ops, device.stream, emit, clock, secret);
  ctx.peaks = device.peaks;
  ctx.l2_bytes = device.prop.l2CacheSize;
  ctx.persisting_l2_supported = device.prop.persistingL2CacheMaxSize > 0;
  ctx.candidate = workers.candidate.get();
  const auto call_timeout = std::chrono::milliseconds(
      static_cast<long long>(1000 * (opt.scenario_timeout_s > 0 ? opt.scenario_timeout_s + 30 : 3600)));
  for (RemoteImplementation* w : workers.all()) w->call_timeout = call_timeout;
  exercise_runner_calls(ctx);
  std::vector<RunnerScenario> scenarios;
  try {
    scenarios = selected_scenarios(opt, problem_name);
  } catch (const std::exception& e) {
    emit.fatal(e.what());
    return exit_bad_input;
  }
  if (const auto ended = await_workers(ctx, scenarios, workers.native())) return *ended;
  std::vector<std::string> reported = ctx.candidate->mapped_libraries();
  emit.line({{"event", "libraries"}, {"mapped", reported}});

  for (std::size_t i = 0; i < scenarios.size(); ++i) {
    if (const auto ended = judge_scenario(ctx, scenarios, i, watchdog, workers.native())) return *ended;
    const auto fresh = newly_mapped(reported, ctx.candidate->mapped_libraries());
    reported.insert(reported.end(), fresh.begin(), fresh.end());
    emit.line({{"event", "libraries"}, {"mapped", fresh}});
  }
  emit.line({{"event", "done"}, {"scenarios", scenarios.size()}});
  return exit_ok;
}

/// `--worker ROLE --implementation PATH`: this process is a worker (worker.cuh).
bool worker_options(int argc, char** argv, WorkerOptions& out) {
  if (argc < 2 || std::string(argv[1]) != "--worker") return false;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    if (a == "--worker")
      out.role = argv[i + 1];
    else if (a == "--implementation")
      out.implementation = argv[i + 1];
  }
  return true;
}

}  // namespace
}  // namespace socratic::harness

int main(int argc, char** argv) {
  using namespace socratic::harness;
  WorkerOptions worker;
  if (worker_options(argc, argv, worker)) return worker_main(worker);
  prctl(PR_SET_NAME, "socratic-runner", 0, 0, 0);
  // Other processes of this user (a worker included) may not read this one's memory,
  // environment or descriptors through /proc.
  prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
  // The protocol goes to a private copy of stdout; fd 1 then points at stderr. Workers never
  // hold the copy (they get a fresh set of descriptors).
  const int protocol_fd = fcntl(1, F_DUPFD_CLOEXEC, 3);
  std::FILE* protocol = protocol_fd >= 0 ? fdopen(protocol_fd, "w") : nullptr;
  if (!protocol || dup2(2, 1) < 0) {
    std::fprintf(stderr, "socratic-runner: cannot set up the protocol stream\n");
    return 2;
  }
  Emitter emit(protocol);
  if (const char* token = std::getenv("SOCRATIC_RUNNER_TOKEN")) {
    emit.set_token(token);
    unsetenv("SOCRATIC_RUNNER_TOKEN");  // the workers inherit this environment
  }
  RunnerOptions options;
  try {
    if (argc == 2 && std::string(argv[1]) == "--options-stdin") {
      // Read before any worker exists; the workers get /dev/null on 0 in any case.
      std::string text;
      char chunk[4096];
      ssize_t n;
      while ((n = read(0, chunk, sizeof chunk)) != 0) {
        if (n < 0) {
          if (errno == EINTR) continue;
          throw std::runtime_error("--options-stdin: cannot read standard input");
        }
        text.append(chunk, static_cast<std::size_t>(n));
      }
      close(0);
      options = parse_runner_words(option_words_from_text(text));
    } else {
      options = parse_runner_options(argc, argv);
    }
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
