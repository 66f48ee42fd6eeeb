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
  std::string role;            ///< "baseline" or "candidate"
  std::string implementation;  ///< the shared object to load
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
  void* output = nullptr;
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

}  // namespace worker_detail

/// The worker's main loop. Returns the process's exit status.
inline int worker_main(const WorkerOptions& options) {
  using namespace worker_detail;
  prctl(PR_SET_NAME, options.role == "candidate" ? "socratic-cand" : "socratic-base", 0, 0, 0);
  Worker channel(worker_channel_fd);
  std::string why;
  // A refused call ends the worker with SIGSYS where the reporter cannot run; no core dump of a
  // process holding a CUDA context (it takes seconds, and the judge waits for the end).
  rlimit no_core{0, 0};
  setrlimit(RLIMIT_CORE, &no_core);
  // Privileges first: the CUDA driver's threads, created next, inherit none.
  if (!drop_privileges(why)) {
    channel.fail(0, "the worker cannot drop its privileges: " + why);
    return 2;
  }
  auto cuda_or_fail = [&](cudaError_t e, const char* what) {
    if (e == cudaSuccess) return true;
    channel.fail(0, std::string(what) + ": " + cuda_text(e));
    return false;
  };
  // Spin while waiting: the judge's clock sees the worker's synchronisation latency.
  if (!cuda_or_fail(cudaSetDeviceFlags(cudaDeviceScheduleSpin), "cudaSetDeviceFlags") ||
      !cuda_or_fail(cudaSetDevice(0), "cudaSetDevice(0)") ||
      !cuda_or_fail(cudaFree(nullptr), "CUDA context creation"))
    return 3;
  cudaStream_t stream = nullptr;
  cudaEvent_t start = nullptr, stop = nullptr;
  if (!cuda_or_fail(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate") ||
      !cuda_or_fail(cudaEventCreate(&start), "cudaEventCreate") ||
      !cuda_or_fail(cudaEventCreate(&stop), "cudaEventCreate"))
    return 3;
  cudaDeviceProp prop{};
  cudaGetDeviceProperties(&prop, 0);
  const bool l2_controls = prop.persistingL2CacheMaxSize > 0;
  std::unique_ptr<DeviceOps> ops;
  std::unique_ptr<LaunchHold> hold;
  std::unique_ptr<Problem> problem;
  try {
    ops = std::make_unique<DeviceOps>(stream, prop.multiProcessorCount, 0, /*flush_buffer=*/false);
    hold = std::make_unique<LaunchHold>(prop.multiProcessorCount, static_cast<int>(ops->garbage_bytes()));
    problem = socratic_make_problem();
    hold->hold(stream);
    hold->release();
    cuda_check(cudaStreamSynchronize(stream), "hold warm-up");
    hold->expired();
    // Every runtime call the worker makes later, once, before the filter: whatever the driver
    // sets up lazily is set up now.
    ops->smem_garbage(1);
    cudaEventRecord(start, stream);
    cudaEventRecord(stop, stream);
    cuda_check(cudaStreamSynchronize(stream), "warm-up");
    float ms = 0;
    cudaEventElapsedTime(&ms, start, stop);
    cuda_check(cudaDeviceSynchronize(), "warm-up");
    persisting_l2_bits(stream, l2_controls, true);
    void* scratch = nullptr;
    cuda_check(cudaMalloc(&scratch, 1 << 20), "warm-up allocation");
    cudaFree(scratch);
  } catch (const std::exception& e) {
    channel.fail(0, std::string("worker set-up: ") + e.what());
    return 3;
  }
  if (!install_sandbox_reporter(worker_channel_fd, why) ||
      !install_sandbox_filter(SandboxPhase::load, why)) {
    channel.fail(0, "the worker cannot install its sandbox: " + why);
    return 2;
  }
  // The implementation: its static constructors run here, already under the filter.
  void* lib = dlopen(options.implementation.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char* e = dlerror();
    channel.fail(0, "cannot load the " + options.role + " " + options.implementation + ": " +
                        (e ? e : "unknown error"));
    return 2;
  }
  void* entry = dlsym(lib, socratic_problem_entry_point());
  if (!entry) {
    channel.fail(0, "the " + options.role + " " + options.implementation +
                        " has no entry point \"" + socratic_problem_entry_point() +
                        "\" (it must be extern \"C\")");
    return 2;
  }
  if (!install_sandbox_filter(SandboxPhase::run, why)) {
    channel.fail(0, "the worker cannot tighten its sandbox: " + why);
    return 2;
  }
  channel.send_value(wire::Type::hello, 0, wire::Hello{static_cast<std::int32_t>(getpid()), wire::protocol});

  std::map<std::uint32_t, Placement> placements;
  bool configured = false;
  for (;;) {
    wire::Message m;
    try {
      m = channel.next();
    } catch (const wire::ProtocolError& e) {
      channel.fail(0, std::string("the judge's message could not be read: ") + e.what());
      return 2;
    }
    try {
      switch (m.type) {
        case wire::Type::configure: {
          problem->configure(nlohmann::json::parse(m.payload));
          configured = true;
          channel.send_value(wire::Type::ok, m.seq, wire::Ok{0});
          break;
        }
        case wire::Type::map: {
          if (!configured) throw std::runtime_error("map before configure");
          if (m.payload.size() < sizeof(wire::MapRequest)) throw std::runtime_error("short map request");
          wire::MapRequest req;
          std::memcpy(&req, m.payload.data(), sizeof req);
          const auto specs = problem->tensors();
          if (req.regions != specs.size() ||
              m.payload.size() != sizeof req + req.regions * sizeof(wire::Region))
            throw std::runtime_error("map request for " + std::to_string(req.regions) +
                                     " tensors; the problem has " + std::to_string(specs.size()));
          Placement p;
          for (std::uint32_t i = 0; i < req.regions; ++i) {
            wire::Region region;
            std::memcpy(&region, m.payload.data() + sizeof req + i * sizeof region, sizeof region);
            const std::size_t want = specs[i].elements * dtype_bytes(specs[i].dtype);
            if (region.bytes != want)
              throw std::runtime_error("tensor \"" + specs[i].name + "\": the judge shares " +
                                       std::to_string(region.bytes) + " bytes, the problem needs " +
                                       std::to_string(want));
            cudaIpcMemHandle_t handle;
            std::memcpy(&handle, region.handle, sizeof handle);
            void* base = nullptr;
            cuda_check(cudaIpcOpenMemHandle(&base, handle, cudaIpcMemLazyEnablePeerAccess),
                       "cudaIpcOpenMemHandle (tensor \"" + specs[i].name + "\")");
            p.bases.push_back(base);
            void* tensor = static_cast<char*>(base) + region.offset;
            if (specs[i].output)
              p.output = tensor;
            else
              p.inputs.push_back(tensor);
          }
          placements[req.placement] = std::move(p);
          channel.send_value(wire::Type::ok, m.seq, wire::Ok{req.placement});
          break;
        }
        case wire::Type::unmap: {
          for (auto& [id, p] : placements)
            for (void* base : p.bases) cudaIpcCloseMemHandle(base);
          placements.clear();
          cudaGetLastError();
          channel.send_value(wire::Type::ok, m.seq, wire::Ok{0});
          break;
        }
        case wire::Type::call: {
          const auto req = m.as<wire::CallRequest>();
          auto it = placements.find(req.placement);
          if (it == placements.end()) throw std::runtime_error("call on an unmapped placement");
          Placement& p = it->second;
          wire::CallReply reply{};
          const auto kind = static_cast<wire::CallKind>(req.kind);
          if (kind == wire::CallKind::timed || kind == wire::CallKind::timed_held) {
            // A kernel of the worker's own, waited for, first: the GPU switches from the judge's
            // context to this one there, outside the interval. Unheld, the start event then
            // lands at once on an idle GPU and the interval holds the whole entry point, its
            // host-side work included; held, everything waits behind the hold until the entry
            // point has returned, and the interval holds the GPU's work (launch_hold.cuh).
            const bool held = kind == wire::CallKind::timed_held;
            ops->fence_us();
            if (held) hold->hold(stream);
            cudaEventRecord(start, stream);
            reply.ret = problem->launch(entry, p.inputs, {p.output}, stream);
            cudaEventRecord(stop, stream);
            if (held) hold->release();
            cudaError_t e = cudaStreamSynchronize(stream);
            if (e == cudaSuccess) e = cudaDeviceSynchronize();
            float ms = 0;
            if (e == cudaSuccess && reply.ret == 0) e = cudaEventElapsedTime(&ms, start, stop);
            reply.cuda_error = e;
            reply.event_ms = ms;
            if (held && e == cudaSuccess) reply.hold = hold->expired() ? 2 : 1;
            reply.persisting_l2 = persisting_l2_bits(stream, l2_controls, false);
            channel.send_value(wire::Type::done, m.seq, reply);
          } else if (kind == wire::CallKind::checked) {
            ops->smem_garbage(req.garbage_seed);
            cuda_check(cudaStreamSynchronize(stream), "shared-memory garbage");
            reply.ret = problem->launch(entry, p.inputs, {p.output}, stream);
            if (reply.ret != 0) {
              reply.cuda_error = cudaDeviceSynchronize();
              channel.send_value(wire::Type::done, m.seq, reply);
              break;
            }
            cudaError_t e = cudaStreamSynchronize(stream);
            if (e != cudaSuccess) {
              reply.cuda_error = e;
              channel.send_value(wire::Type::done, m.seq, reply);
              break;
            }
            // The judge snapshots the output now; what changes after ran outside the stream.
            channel.send(wire::Type::stream_done, m.seq);
            const wire::Message go = channel.next();
            if (go.type != wire::Type::proceed) throw std::runtime_error("expected proceed");
            reply.cuda_error = cudaDeviceSynchronize();
            reply.persisting_l2 = persisting_l2_bits(stream, l2_controls, false);
            channel.send_value(wire::Type::done, go.seq, reply);
          } else if (kind == wire::CallKind::plain) {
            reply.ret = problem->launch(entry, p.inputs, {p.output}, stream);
            reply.cuda_error = cudaDeviceSynchronize();
            channel.send_value(wire::Type::done, m.seq, reply);
          } else {
            throw std::runtime_error("unknown call kind " + std::to_string(req.kind));
          }
          // Whatever persisting-L2 state the call left is cleared after the answer, so that
          // the next call starts clean without the clearing inside anyone's interval.
          persisting_l2_bits(stream, l2_controls, true);
          break;
        }
        case wire::Type::quit:
          channel.send_value(wire::Type::ok, m.seq, wire::Ok{0});
          return 0;
        default:
          throw std::runtime_error(std::string("unexpected ") + wire::type_name(m.type));
      }
    } catch (const std::exception& e) {
      channel.fail(m.seq, e.what());
    }
  }
}

}  // namespace socratic::harness
