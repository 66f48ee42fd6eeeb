// The wire between the judge (the runner process) and its two workers (one loads the baseline,
// one the candidate): one message per datagram on a SOCK_SEQPACKET socket pair, a fixed header
// and a payload whose size each type fixes. Plain C++17, unit-tested without a GPU.
//
// A worker runs code the judge does not trust (the candidate's worker is the candidate's), so
// everything a worker sends is checked here before the judge reads a field: the magic, the
// type the judge expects at that point, the sequence number of the request it answers, the
// payload's size and every number's range. A message that fails any check is a protocol
// violation, which fails the scenario: it is never taken for an answer.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <vector>

namespace socratic::harness::wire {

constexpr std::uint32_t magic = 0x534F4357u;  // "SOCW"
constexpr std::uint32_t protocol = 1;
constexpr std::size_t max_message_bytes = 64 * 1024;
constexpr std::size_t ipc_handle_bytes = 64;  // sizeof(cudaIpcMemHandle_t)
constexpr std::size_t max_regions = 64;

enum class Type : std::uint32_t {
  // judge -> worker
  configure = 1,  ///< payload: the scenario's parameters as JSON text
  map = 2,        ///< payload: MapRequest + regions
  unmap = 3,      ///< no payload: close every mapping
  call = 4,       ///< payload: CallRequest
  proceed = 5,    ///< no payload: after stream_done, finish the checked call
  quit = 6,       ///< no payload
  // worker -> judge
  hello = 64,        ///< payload: Hello (sent once, after the implementation is loaded)
  ok = 65,           ///< payload: Ok
  error = 66,        ///< payload: text
  stream_done = 67,  ///< no payload: a checked call's stream is done; waiting for proceed
  done = 68,         ///< payload: CallReply
};

inline const char* type_name(Type t);

struct Header {
  std::uint32_t magic;
  std::uint32_t type;
  std::uint64_t seq;
  std::uint32_t payload_bytes;
  std::uint32_t hold;  ///< timed_held calls: 1 the hold worked, 2 it expired first (else 0)
};
static_assert(sizeof(Header) == 24, "the wire header is 24 bytes");

/// One device allocation shared through CUDA IPC: the handle, and where the tensor starts.
struct Region {
  unsigned char handle[ipc_handle_bytes];
  std::uint64_t offset;  ///< bytes from the allocation's start to the tensor
  std::uint64_t bytes;   ///< the tensor's size
};

/// `map`: the tensors of one buffer placement, inputs first, the output last.
struct MapRequest {
  std::uint32_t placement;
  std::uint32_t regions;
};

enum class CallKind : std::uint32_t {
  plain = 0,    ///< call, synchronise the device, answer done
  checked = 1,  ///< shared-memory garbage, call, stream_done, wait for proceed, sync, done
  timed = 2,    ///< events around the call, sync stream and device, done with the event time
  /// As timed, with the worker's stream held by its hold kernel until the entry point has
  /// returned: the interval holds the GPU's work, not the host's launch (timing.cuh).
  timed_held = 3,
};

struct CallRequest {
  std::uint32_t placement;
  std::uint32_t kind;
  std::uint64_t garbage_seed;
};

struct CallReply {
  std::int32_t ret;           ///< the entry point's return value (nonzero: declined)
  std::int32_t cuda_error;    ///< a cudaError_t seen after the call (0: none)
  double event_ms;            ///< timed calls: the worker's events around the call; else 0
  std::uint32_t persisting_l2;  ///< bit 0: a carve-out limit was left set; bit 1: a window
  std::uint32_t hold;  ///< timed_held calls: 1 the hold worked, 2 it expired first (else 0)
};

struct Hello {
  std::int32_t pid;
  std::uint32_t protocol;
};

struct Ok {
  std::uint64_t value;  ///< map: the placement mapped; others 0
};

/// A violation of the wire by the peer: what was wrong, in words.
struct ProtocolError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// A message as received, checked for framing (magic, type known, payload size as declared).
struct Message {
  Type type{};
  std::uint64_t seq = 0;
  std::string payload;

  template <class T>
  T as() const {
    if (payload.size() != sizeof(T))
      throw ProtocolError(std::string(type_name(type)) + " payload of " +
                          std::to_string(payload.size()) + " bytes, expected " +
                          std::to_string(sizeof(T)));
    T v;
    std::memcpy(&v, payload.data(), sizeof v);
    return v;
  }
};

inline const char* type_name(Type t) {
  switch (t) {
    case Type::configure: return "configure";
    case Type::map: return "map";
    case Type::unmap: return "unmap";
    case Type::call: return "call";
    case Type::proceed: return "proceed";
    case Type::quit: return "quit";
    case Type::hello: return "hello";
    case Type::ok: return "ok";
    case Type::error: return "error";
    case Type::stream_done: return "stream_done";
    case Type::done: return "done";
  }
  return "unknown";
}

inline bool known_type(std::uint32_t t) {
  return (t >= 1 && t <= 6) || (t >= 64 && t <= 68);
}

/// The bytes of one message.
inline std::string encode(Type type, std::uint64_t seq, const void* payload = nullptr,
                          std::size_t bytes = 0) {
  if (sizeof(Header) + bytes > max_message_bytes)
    throw std::length_error("wire message of " + std::to_string(bytes) + " payload bytes");
  Header h{magic, static_cast<std::uint32_t>(type), seq, static_cast<std::uint32_t>(bytes), 0};
  std::string out(sizeof h + bytes, '\0');
  std::memcpy(out.data(), &h, sizeof h);
  if (bytes) std::memcpy(out.data() + sizeof h, payload, bytes);
  return out;
}

template <class T>
std::string encode_value(Type type, std::uint64_t seq, const T& value) {
  return encode(type, seq, &value, sizeof value);
}

/// Parses one datagram's bytes. Throws ProtocolError naming the fault.
inline Message decode(const char* data, std::size_t n) {
  if (n < sizeof(Header))
    throw ProtocolError("a message of " + std::to_string(n) + " bytes, shorter than the header");
  Header h;
  std::memcpy(&h, data, sizeof h);
  if (h.magic != magic) throw ProtocolError("a message without the wire's magic number");
  if (!known_type(h.type)) throw ProtocolError("a message of unknown type " + std::to_string(h.type));
  if (sizeof(Header) + h.payload_bytes != n)
    throw ProtocolError("a message declaring " + std::to_string(h.payload_bytes) +
                        " payload bytes in a datagram of " + std::to_string(n));
  Message m;
  m.type = static_cast<Type>(h.type);
  m.seq = h.seq;
  m.payload.assign(data + sizeof h, h.payload_bytes);
  return m;
}

/// Checks that `m` answers request `seq` with one of `allowed`; an `error` message is always
/// allowed (the worker's own account of a failure) and returned to the caller to report.
inline void expect(const Message& m, std::uint64_t seq, std::initializer_list<Type> allowed) {
  if (m.seq != seq)
    throw ProtocolError(std::string("a ") + type_name(m.type) + " message for request " +
                        std::to_string(m.seq) + " while request " + std::to_string(seq) +
                        " was outstanding");
  if (m.type == Type::error) return;
  for (Type t : allowed)
    if (m.type == t) return;
  std::string want;
  for (Type t : allowed) want += std::string(want.empty() ? "" : " or ") + type_name(t);
  throw ProtocolError(std::string("a ") + type_name(m.type) + " message where " + want +
                      " was expected");
}

/// A call's reply, with its numbers checked.
inline CallReply call_reply(const Message& m) {
  const CallReply r = m.as<CallReply>();
  if (!std::isfinite(r.event_ms) || r.event_ms < 0 || r.event_ms > 3.6e6)
    throw ProtocolError("a done message with an event time of " + std::to_string(r.event_ms) +
                        " ms");
  if (r.persisting_l2 > 3)
    throw ProtocolError("a done message with persisting-L2 bits " + std::to_string(r.persisting_l2));
  if (r.hold > 2) throw ProtocolError("a done message with hold state " + std::to_string(r.hold));
  return r;
}

/// The text of an error message (capped, printable).
inline std::string error_text(const Message& m) {
  std::string t = m.payload.substr(0, 2000);
  for (char& c : t)
    if (static_cast<unsigned char>(c) < 0x20 && c != '\n' && c != '\t') c = '?';
  return t;
}

}  // namespace socratic::harness::wire
