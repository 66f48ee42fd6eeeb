// The judge's handle on one implementation that runs in its own worker process (worker.cuh):
// shares a placement's tensors with it through CUDA IPC, asks it to call the implementation,
// and reads its answers through the checks of worker_link.hpp. Nothing the worker says is
// believed beyond what those checks allow: the judge's own clock and its own look at the
// output decide (timing.cuh, correctness.cuh).
#pragma once

#include <cuda_runtime.h>

#include <chrono>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cuda_check.hpp"
#include "device_buffers.cuh"
#include "implementation.cuh"
#include "proc_self.hpp"
#include "worker_link.hpp"
#include "worker_wire.hpp"

namespace socratic::harness {

/// A CUDA error inside a worker's context: the implementation broke its own context.
struct WorkerCudaError : std::runtime_error {
  WorkerCudaError(const std::string& what, std::string who) : std::runtime_error(what), role(std::move(who)) {}
  std::string role;
};

class RemoteImplementation final : public Implementation {
 public:
  RemoteImplementation(std::string role, WorkerLink link)
      : role_(std::move(role)), link_(std::move(link)) {}

  const std::string& role() const override { return role_; }
  WorkerLink& link() { return link_; }
  void stop() override { link_.stop(); }
  void resume() override { link_.resume(); }

  /// Waits for the worker's hello (it has loaded the implementation under its sandbox).
  void await_hello(std::chrono::milliseconds timeout) {
    const wire::Message m = link_.receive(0, {wire::Type::hello}, timeout);
    const auto hello = m.as<wire::Hello>();
    if (hello.protocol != wire::protocol)
      throw WorkerFailure(WorkerFailure::Kind::protocol,
                          link_.role() + " speaks wire protocol " + std::to_string(hello.protocol), role_);
  }

  void configure(const nlohmann::json& params) override {
    const auto seq = link_.send(wire::Type::configure, params.dump());
    link_.receive(seq, {wire::Type::ok}, control_timeout);
  }

  /// Shares `tensors` (the problem's order: inputs, then the one output) as a new placement.
  std::uint32_t map(const std::vector<const GuardedTensor*>& tensors) override {
    const std::uint32_t id = next_placement_++;
    wire::MapRequest req{id, static_cast<std::uint32_t>(tensors.size())};
    std::string payload(reinterpret_cast<const char*>(&req), sizeof req);
    for (const GuardedTensor* t : tensors) {
      wire::Region region{};
      const cudaIpcMemHandle_t handle = t->ipc_handle();
      std::memcpy(region.handle, &handle, sizeof handle);
      region.offset = t->offset_in_allocation();
      region.bytes = t->bytes();
      payload.append(reinterpret_cast<const char*>(&region), sizeof region);
    }
    const auto seq = link_.send(wire::Type::map, payload);
    const wire::Message m = link_.receive(seq, {wire::Type::ok}, control_timeout);
    if (m.as<wire::Ok>().value != id)
      throw WorkerFailure(WorkerFailure::Kind::protocol, link_.role() + " acknowledged another placement", role_);
    return id;
  }

  /// Closes every mapping (before the judge frees the scenario's buffers).
  void unmap() override {
    const auto seq = link_.send(wire::Type::unmap);
    link_.receive(seq, {wire::Type::ok}, control_timeout);
  }

  /// Call, synchronise, answer.
  RemoteReply plain(std::uint32_t placement) override {
    const auto seq = send_call(placement, wire::CallKind::plain, 0);
    return reply(link_.receive(seq, {wire::Type::done}, call_timeout));
  }

  /// Shared-memory garbage, call; when the worker's stream is done (and before its device is),
  /// `at_stream_done` runs in the judge (the output snapshot); then the worker synchronises.
  RemoteReply checked(std::uint32_t placement, std::uint64_t garbage_seed,
                      const std::function<void()>& at_stream_done) {
    const auto seq = send_call(placement, wire::CallKind::checked, garbage_seed);
    const wire::Message first = link_.receive(seq, {wire::Type::stream_done, wire::Type::done}, call_timeout);
    if (first.type == wire::Type::done) return reply(first);  // declined, or its stream failed
    if (!first.payload.empty())
      throw WorkerFailure(WorkerFailure::Kind::protocol, link_.role() + " sent a stream_done with a payload", role_);
    at_stream_done();
    const auto proceed = link_.send(wire::Type::proceed);
    return reply(link_.receive(proceed, {wire::Type::done}, call_timeout));
  }

  /// A timed call: the worker's events around the call; the judge keeps its own clock around
  /// this function (timing.cuh). The answer is awaited spinning, so the judge wakes at once.
  RemoteReply timed(std::uint32_t placement, bool held) override {
    link_.assert_quiet();
    const auto seq =
        send_call(placement, held ? wire::CallKind::timed_held : wire::CallKind::timed, 0);
    return reply(link_.receive(seq, {wire::Type::done}, call_timeout, std::chrono::seconds(5)));
  }

  /// The shared objects mapped in the worker's process now (what the implementation loaded).
  std::vector<std::string> mapped_libraries() const {
    if (link_.pid() <= 0) return {};
    std::ifstream maps("/proc/" + std::to_string(link_.pid()) + "/maps");
    return shared_objects_in_maps(maps);
  }

  /// Ends the worker.
  void close() { link_.kill_and_reap(); }

  std::chrono::milliseconds call_timeout{std::chrono::minutes(10)};
  std::chrono::milliseconds control_timeout{std::chrono::seconds(60)};

 private:
  std::uint64_t send_call(std::uint32_t placement, wire::CallKind kind, std::uint64_t seed) {
    return link_.send_value(wire::Type::call, wire::CallRequest{placement, static_cast<std::uint32_t>(kind), seed});
  }

  RemoteReply reply(const wire::Message& m) {
    wire::CallReply r;
    try {
      r = wire::call_reply(m);
    } catch (const wire::ProtocolError& e) {
      throw WorkerFailure(WorkerFailure::Kind::protocol, link_.role() + " sent " + e.what(), role_);
    }
    RemoteReply out;
    out.ret = r.ret;
    out.cuda_error = static_cast<cudaError_t>(r.cuda_error);
    out.event_ms = r.event_ms;
    out.persisting_l2 = r.persisting_l2;
    out.hold_expired = r.hold == 2;
    return out;
  }

  std::string role_;
  WorkerLink link_;
  std::uint32_t next_placement_ = 1;
};

}  // namespace socratic::harness
