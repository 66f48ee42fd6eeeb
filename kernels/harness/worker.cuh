// A worker: the process that holds one implementation (the baseline or the candidate) and
// calls it on the judge's buffers when the judge asks (docs/harness.md, "The boundary"). It
// is this executable started again with --worker. Before the implementation is loaded it drops
// every privilege, creates its CUDA context and installs the sandbox filter; after it is loaded
// it tightens the filter. From then on nothing in this process is trusted by the judge: the
// judge checks every answer (worker_wire.hpp) and holds its own clock.
#pragma once

#include <cuda_runtime.h>
#include <dlfcn.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "context.cuh"
#include "device_ops.cuh"
#include "launch_hold.cuh"
#include "problem.cuh"
#include "sandbox_filter.hpp"
#include "worker_link.hpp"
#include "worker_wire.hpp"

namespace socratic::harness {

/// What `--worker ROLE --implementation PATH` says.
struct WorkerOptions {
  std::string role;            ///< "baseline", "candidate" or "calibration"
  std::string implementation;  ///< the shared object to load (none for the calibration: the
                               ///< judge's null implementation, Problem::null_entry)
};

namespace worker_detail {

class Worker {
 public:
  explicit Worker(int fd) : fd_(fd) {}

  void send(wire::Type type, std::uint64_t seq, const std::string& payload = {}) {
    const std::string bytes = wire::encode(type, seq, payload.data(), payload.size());
    ssize_t n;
    do {
      n = ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    } while (n < 0 && errno == EINTR);
    if (n != static_cast<ssize_t>(bytes.size())) _exit(0);  // the judge is gone
  }
  template <class T>
  void send_value(wire::Type type, std::uint64_t seq, const T& v) {
    send(type, seq, std::string(reinterpret_cast<const char*>(&v), sizeof v));
  }
  void fail(std::uint64_t seq, const std::string& text) { send(wire::Type::error, seq, text); }

  /// The next request. Spins for a second after the last one, then blocks: while a scenario is
  /// timed, requests come every few milliseconds (the other worker's call in between), and a
  /// worker woken from a blocking wait would add tens of microseconds of scheduling latency to
  /// the judge's clock, more for longer calls. The judge is trusted: its messages are framed.
  wire::Message next() {
    std::string buffer(wire::max_message_bytes, '\0');
    auto began = std::chrono::steady_clock::now();
    auto last = began;
    for (;;) {
      // A gap between two turns of the loop is a stop (SIGSTOP while the other worker is timed):
      // the spin starts again from the resume, when the judge's request is about to come.
      const auto now = std::chrono::steady_clock::now();
      if (now - last > std::chrono::milliseconds(5)) began = now;
      last = now;
      const bool spinning = now - began < std::chrono::seconds(1);
      if (!spinning) {
        pollfd p{fd_, POLLIN, 0};
        if (poll(&p, 1, -1) < 0 && errno != EINTR) _exit(0);
      }
      const ssize_t n = recv(fd_, buffer.data(), buffer.size(), MSG_DONTWAIT);
      if (n == 0) _exit(0);  // the judge closed the channel
      if (n < 0) {
        if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) continue;
        _exit(0);
      }
      return wire::decode(buffer.data(), static_cast<std::size_t>(n));
    }
  }

 private:
  int fd_;
};

struct Placement {
  std::vector<void*> bases;    ///< what cudaIpcOpenMemHandle returned (closed at unmap)
  std::vector<void*> inputs;   ///< tensor pointers, in the problem's order
  std::vector<void*> outputs;  ///< tensor pointers, in the problem's order
};

inline std::string cuda_text(cudaError_t e) {
  return std::string(cudaGetErrorName(e)) + ": " + cudaGetErrorString(e);
}

/// Clears the worker's own persisting-L2 settings; returns what was left set (bits of CallReply).
inline std::uint32_t persisting_l2_bits(cudaStream_t stream, bool supported, bool reset) {
  if (!supported) return 0;
  std::uint32_t bits = 0;
  std::size_t limit = 0;
  if (cudaDeviceGetLimit(&limit, cudaLimitPersistingL2CacheSize) == cudaSuccess && limit > 0) bits |= 1;
  cudaStreamAttrValue window{};
  if (cudaStreamGetAttribute(stream, cudaStreamAttributeAccessPolicyWindow, &window) == cudaSuccess &&
      window.accessPolicyWindow.num_bytes > 0)
    bits |= 2;
  if (reset) {
    cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, 0);
    cudaStreamAttrValue none{};
    none.accessPolicyWindow.hitProp = cudaAccessPropertyNormal;
    none.accessPolicyWindow.missProp = cudaAccessPropertyNormal;
    cudaStreamSetAttribute(stream, cudaStreamAttributeAccessPolicyWindow, &none);
    cudaCtxResetPersistingL2Cache();
  }
  cudaGetLastError();
  return bits;
}

/// One worker's life: set up CUDA before anything is loaded, load the implementation under the
/// sandbox, then answer the judge's requests until it says quit. Each request kind is one member.
class WorkerSession {
 public:
  WorkerSession(const WorkerOptions& options, Worker& channel) : options_(options), channel_(channel) {}

  /// The process's exit status: 0 after quit, 2 refused or bad input, 3 a CUDA set-up failure.
  int run() {
    if (const int status = set_up(); status != 0) return status;
    if (const int status = load(); status != 0) return status;
    channel_.send_value(wire::Type::hello, 0, wire::Hello{static_cast<std::int32_t>(getpid()), wire::protocol});
    return serve();
  }

 private:
  /// Privileges, the CUDA context, and every runtime call the worker makes later, once, before
  /// the sandbox: whatever the driver sets up lazily is set up now.
  int set_up() {
    std::string why;
    // A refused call ends the worker with SIGSYS where the reporter cannot run; no core dump of
    // a process holding a CUDA context (it takes seconds, and the judge waits for the end).
    rlimit no_core{0, 0};
    setrlimit(RLIMIT_CORE, &no_core);
    // Privileges first: the CUDA driver's threads, created next, inherit none.
    if (!drop_privileges(why)) {
      channel_.fail(0, "the worker cannot drop its privileges: " + why);
      return 2;
    }
    // Spin while waiting: the judge's clock sees the worker's synchronisation latency.
    if (!cuda_ok(cudaSetDeviceFlags(cudaDeviceScheduleSpin), "cudaSetDeviceFlags") ||
        !cuda_ok(cudaSetDevice(0), "cudaSetDevice(0)") || !cuda_ok(cudaFree(nullptr), "CUDA context creation") ||
        !cuda_ok(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreate") ||
        !cuda_ok(cudaEventCreate(&start_), "cudaEventCreate") || !cuda_ok(cudaEventCreate(&stop_), "cudaEventCreate"))
      return 3;
    cudaDeviceProp prop{};
    cudaGetDeviceProperties(&prop, 0);
    l2_controls_ = prop.persistingL2CacheMaxSize > 0;
    try {
      ops_ = std::make_unique<DeviceOps>(stream_, prop.multiProcessorCount, 0, /*flush_buffer=*/false);
      hold_ = std::make_unique<LaunchHold>(prop.multiProcessorCount, static_cast<int>(ops_->garbage_bytes()));
      problem_ = socratic_make_problem();
      hold_->hold(stream_);
      hold_->release();
      cuda_check(cudaStreamSynchronize(stream_), "hold warm-up");
      hold_->expired();
      ops_->smem_garbage(1);
      cudaEventRecord(start_, stream_);
      cudaEventRecord(stop_, stream_);
      cuda_check(cudaStreamSynchronize(stream_), "warm-up");
      float ms = 0;
      cudaEventElapsedTime(&ms, start_, stop_);
      cuda_check(cudaDeviceSynchronize(), "warm-up");
      persisting_l2_bits(stream_, l2_controls_, true);
      void* scratch = nullptr;
      cuda_check(cudaMalloc(&scratch, 1 << 20), "warm-up allocation");
      cudaFree(scratch);
      if (options_.role == calibration_role) {
        // The judge's null implementation is part of this executable: its kernel is loaded and
        // launched once here, as everything else the worker calls later.
        entry_ = problem_->null_entry();
        if (!entry_) throw std::runtime_error("this problem has no null implementation to calibrate with");
        if (problem_->launch(entry_, {}, {}, stream_) != 0) throw std::runtime_error("the null implementation declined");
        cuda_check(cudaStreamSynchronize(stream_), "null implementation warm-up");
      }
    } catch (const std::exception& e) {
      channel_.fail(0, std::string("worker set-up: ") + e.what());
      return 3;
    }
    return 0;
  }

  /// The sandbox, then the implementation (its static constructors run already under the
  /// filter), then the tighter filter of the calls.
  int load() {
    std::string why;
    if (!install_sandbox_reporter(worker_channel_fd, why) || !install_sandbox_filter(SandboxPhase::load, why)) {
      channel_.fail(0, "the worker cannot install its sandbox: " + why);
      return 2;
    }
    if (options_.role == calibration_role) {  // nothing to load: entry_ is the judge's own
      if (!install_sandbox_filter(SandboxPhase::run, why)) {
        channel_.fail(0, "the worker cannot tighten its sandbox: " + why);
        return 2;
      }
      return 0;
    }
    void* lib = dlopen(options_.implementation.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
      const char* e = dlerror();
      channel_.fail(0, "cannot load the " + options_.role + " " + options_.implementation + ": " +
                           (e ? e : "unknown error"));
      return 2;
    }
    entry_ = dlsym(lib, socratic_entry_symbol());
    if (!entry_) {
      channel_.fail(0, "the " + options_.role + " " + options_.implementation + " has no entry point \"" +
                           socratic_entry_symbol() + "\" (it must be extern \"C\")");
      return 2;
    }
    if (!install_sandbox_filter(SandboxPhase::run, why)) {
      channel_.fail(0, "the worker cannot tighten its sandbox: " + why);
      return 2;
    }
    return 0;
  }

  /// Answers requests until quit; a request that fails is answered with its error.
  int serve() {
    for (;;) {
      wire::Message m;
      try {
        m = channel_.next();
      } catch (const wire::ProtocolError& e) {
        channel_.fail(0, std::string("the judge's message could not be read: ") + e.what());
        return 2;
      }
      try {
        switch (m.type) {
          case wire::Type::configure:
            problem_->configure(nlohmann::json::parse(m.payload));
            configured_ = true;
            channel_.send_value(wire::Type::ok, m.seq, wire::Ok{0});
            break;
          case wire::Type::map:
            on_map(m);
            break;
          case wire::Type::unmap:
            on_unmap(m);
            break;
          case wire::Type::call:
            on_call(m);
            break;
          case wire::Type::quit:
            channel_.send_value(wire::Type::ok, m.seq, wire::Ok{0});
            return 0;
          default:
            throw std::runtime_error(std::string("unexpected ") + wire::type_name(m.type));
        }
      } catch (const std::exception& e) {
        channel_.fail(m.seq, e.what());
      }
    }
  }

  /// Opens the judge's IPC handles of one placement, checking each tensor's size.
  void on_map(const wire::Message& m) {
    if (!configured_) throw std::runtime_error("map before configure");
    if (m.payload.size() < sizeof(wire::MapRequest)) throw std::runtime_error("short map request");
    wire::MapRequest req;
    std::memcpy(&req, m.payload.data(), sizeof req);
    const auto specs = problem_->tensors();
    if (req.regions != specs.size() || m.payload.size() != sizeof req + req.regions * sizeof(wire::Region))
      throw std::runtime_error("map request for " + std::to_string(req.regions) + " tensors; the problem has " +
                               std::to_string(specs.size()));
    Placement p;
    for (std::uint32_t i = 0; i < req.regions; ++i) {
      wire::Region region;
      std::memcpy(&region, m.payload.data() + sizeof req + i * sizeof region, sizeof region);
      const std::size_t want = specs[i].elements * dtype_bytes(specs[i].dtype);
      if (region.bytes != want)
        throw std::runtime_error("tensor \"" + specs[i].name + "\": the judge shares " +
                                 std::to_string(region.bytes) + " bytes, the problem needs " + std::to_string(want));
      cudaIpcMemHandle_t handle;
      std::memcpy(&handle, region.handle, sizeof handle);
      void* base = nullptr;
      cuda_check(cudaIpcOpenMemHandle(&base, handle, cudaIpcMemLazyEnablePeerAccess),
                 "cudaIpcOpenMemHandle (tensor \"" + specs[i].name + "\")");
      p.bases.push_back(base);
      void* tensor = static_cast<char*>(base) + region.offset;
      if (specs[i].output)
        p.outputs.push_back(tensor);
      else
        p.inputs.push_back(tensor);
    }
    placements_[req.placement] = std::move(p);
    channel_.send_value(wire::Type::ok, m.seq, wire::Ok{req.placement});
  }

  void on_unmap(const wire::Message& m) {
    for (auto& [id, p] : placements_)
      for (void* base : p.bases) cudaIpcCloseMemHandle(base);
    placements_.clear();
    cudaGetLastError();
    channel_.send_value(wire::Type::ok, m.seq, wire::Ok{0});
  }

  void on_call(const wire::Message& m) {
    const auto req = m.as<wire::CallRequest>();
    auto it = placements_.find(req.placement);
    if (it == placements_.end()) throw std::runtime_error("call on an unmapped placement");
    const auto kind = static_cast<wire::CallKind>(req.kind);
    if (kind == wire::CallKind::timed || kind == wire::CallKind::timed_held)
      timed_call(m, it->second, kind == wire::CallKind::timed_held);
    else if (kind == wire::CallKind::checked)
      checked_call(m, it->second, req.garbage_seed);
    else if (kind == wire::CallKind::plain)
      plain_call(m, it->second);
    else
      throw std::runtime_error("unknown call kind " + std::to_string(req.kind));
    // Whatever persisting-L2 state the call left is cleared after the answer, so that the next
    // call starts clean without the clearing inside anyone's interval.
    persisting_l2_bits(stream_, l2_controls_, true);
  }

  /// A kernel of the worker's own, waited for, first: the GPU switches from the judge's context
  /// to this one there, outside the interval. Unheld, the start event then lands at once on an
  /// idle GPU and the interval holds the whole entry point, its host-side work included; held,
  /// everything waits behind the hold until the entry point has returned, and the interval holds
  /// the GPU's work (launch_hold.cuh).
  void timed_call(const wire::Message& m, Placement& p, bool held) {
    wire::CallReply reply{};
    ops_->fence_us();
    if (held) hold_->hold(stream_);
    cudaEventRecord(start_, stream_);
    reply.ret = problem_->launch(entry_, p.inputs, p.outputs, stream_);
    cudaEventRecord(stop_, stream_);
    if (held) hold_->release();
    cudaError_t e = cudaStreamSynchronize(stream_);
    if (e == cudaSuccess) e = cudaDeviceSynchronize();
    float ms = 0;
    if (e == cudaSuccess && reply.ret == 0) e = cudaEventElapsedTime(&ms, start_, stop_);
    reply.cuda_error = e;
    reply.event_ms = ms;
    if (held && e == cudaSuccess) reply.hold = hold_->expired() ? 2 : 1;
    reply.persisting_l2 = persisting_l2_bits(stream_, l2_controls_, false);
    channel_.send_value(wire::Type::done, m.seq, reply);
  }

  /// Under fresh shared-memory garbage; after the stream is done the judge snapshots the output
  /// before the device is synchronised: what changes after ran outside the stream.
  void checked_call(const wire::Message& m, Placement& p, std::uint64_t garbage_seed) {
    wire::CallReply reply{};
    ops_->smem_garbage(garbage_seed);
    cuda_check(cudaStreamSynchronize(stream_), "shared-memory garbage");
    reply.ret = problem_->launch(entry_, p.inputs, p.outputs, stream_);
    if (reply.ret != 0) {
      reply.cuda_error = cudaDeviceSynchronize();
      channel_.send_value(wire::Type::done, m.seq, reply);
      return;
    }
    if (const cudaError_t e = cudaStreamSynchronize(stream_); e != cudaSuccess) {
      reply.cuda_error = e;
      channel_.send_value(wire::Type::done, m.seq, reply);
      return;
    }
    channel_.send(wire::Type::stream_done, m.seq);
    const wire::Message go = channel_.next();
    if (go.type != wire::Type::proceed) throw std::runtime_error("expected proceed");
    reply.cuda_error = cudaDeviceSynchronize();
    reply.persisting_l2 = persisting_l2_bits(stream_, l2_controls_, false);
    channel_.send_value(wire::Type::done, go.seq, reply);
  }

  void plain_call(const wire::Message& m, Placement& p) {
    wire::CallReply reply{};
    reply.ret = problem_->launch(entry_, p.inputs, p.outputs, stream_);
    reply.cuda_error = cudaDeviceSynchronize();
    channel_.send_value(wire::Type::done, m.seq, reply);
  }

  bool cuda_ok(cudaError_t e, const char* what) {
    if (e == cudaSuccess) return true;
    channel_.fail(0, std::string(what) + ": " + cuda_text(e));
    return false;
  }

  const WorkerOptions& options_;
  Worker& channel_;
  cudaStream_t stream_ = nullptr;
  cudaEvent_t start_ = nullptr, stop_ = nullptr;
  bool l2_controls_ = false;
  std::unique_ptr<DeviceOps> ops_;
  std::unique_ptr<LaunchHold> hold_;
  std::unique_ptr<Problem> problem_;
  void* entry_ = nullptr;
  std::map<std::uint32_t, Placement> placements_;
  bool configured_ = false;
};

}  // namespace worker_detail

/// The worker's main loop. Returns the process's exit status.
inline int worker_main(const WorkerOptions& options) {
  prctl(PR_SET_NAME,
        options.role == "candidate"          ? "socratic-cand"
        : options.role == calibration_role   ? "socratic-null"
                                             : "socratic-base",
        0, 0, 0);
  worker_detail::Worker channel(worker_channel_fd);
  return worker_detail::WorkerSession(options, channel).run();
}

}  // namespace socratic::harness
