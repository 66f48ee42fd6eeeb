// A stand-in for a worker process (kernels/harness/worker.cuh), for the CPU tests of the
// judge's end of the wire (test_worker_boundary.cpp). It speaks the wire on descriptor 3 and
// misbehaves as its first argument says:
//   honest        hello; answers configure, call (done, 1 ms) and quit
//   double_done   answers a call twice (an early forged answer, then the real one)
//   wrong_seq     answers a call with the next request's sequence number
//   garbage       answers a call with bytes that are not a message
//   bad_number    answers a call with a negative event time
//   error         answers a call with an error message
//   die           exits with code 11 on a call
//   segv          kills itself with SIGSEGV on a call
//   hang          never answers a call
//   close         closes its channel on a call and lives on
//   refuse        installs the sandbox, then tries to make memory executable on a call
//   fds           answers a call with an error listing its open descriptors and environment
#include <signal.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>

#include "sandbox_filter.hpp"
#include "worker_wire.hpp"

namespace wire = socratic::harness::wire;

namespace {

constexpr int fd = 3;

void send_raw(const std::string& bytes) { ::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL); }

template <class T>
void send_value(wire::Type t, std::uint64_t seq, const T& v) {
  send_raw(wire::encode_value(t, seq, v));
}

bool next(wire::Message& m) {
  char buffer[wire::max_message_bytes];
  const ssize_t n = recv(fd, buffer, sizeof buffer, 0);
  if (n <= 0) return false;
  m = wire::decode(buffer, static_cast<std::size_t>(n));
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "honest";
  if (mode == "refuse") {
    std::string why;
    if (!socratic::harness::install_sandbox_reporter(fd, why) ||
        !socratic::harness::drop_privileges(why) ||
        !socratic::harness::install_sandbox_filter(socratic::harness::SandboxPhase::load, why) ||
        !socratic::harness::install_sandbox_filter(socratic::harness::SandboxPhase::run, why))
      return 50;
  }
  send_value(wire::Type::hello, 0, wire::Hello{static_cast<std::int32_t>(getpid()), wire::protocol});
  wire::Message m;
  while (next(m)) {
    if (m.type == wire::Type::quit) {
      send_value(wire::Type::ok, m.seq, wire::Ok{0});
      return 0;
    }
    if (m.type != wire::Type::call) {
      send_value(wire::Type::ok, m.seq, wire::Ok{0});
      continue;
    }
    wire::CallReply reply{};
    reply.event_ms = 1.0;
    if (mode == "honest") {
      send_value(wire::Type::done, m.seq, reply);
    } else if (mode == "double_done") {
      reply.event_ms = 0.001;
      send_value(wire::Type::done, m.seq, reply);
      reply.event_ms = 1.0;
      send_value(wire::Type::done, m.seq, reply);
    } else if (mode == "wrong_seq") {
      send_value(wire::Type::done, m.seq + 1, reply);
    } else if (mode == "garbage") {
      send_raw("certainly not a message of the wire");
    } else if (mode == "bad_number") {
      reply.event_ms = -5;
      send_value(wire::Type::done, m.seq, reply);
    } else if (mode == "error") {
      send_raw(wire::encode(wire::Type::error, m.seq, "something broke", 15));
    } else if (mode == "die") {
      return 11;
    } else if (mode == "segv") {
      signal(SIGSEGV, SIG_DFL);
      raise(SIGSEGV);
    } else if (mode == "hang") {
      pause();
    } else if (mode == "close") {
      close(fd);
      pause();
    } else if (mode == "refuse") {
      void* p = mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      mprotect(p, 4096, PROT_READ | PROT_EXEC);
      send_value(wire::Type::done, m.seq, reply);  // never reached: the filter stops it first
    } else if (mode == "fds") {
      std::string text = "fds:";
      for (const auto& e : std::filesystem::directory_iterator("/proc/self/fd"))
        text += " " + e.path().filename().string();
      text += std::string(" token:") + (std::getenv("SOCRATIC_RUNNER_TOKEN") ? "present" : "absent");
      send_raw(wire::encode(wire::Type::error, m.seq, text.data(), text.size()));
    }
  }
  return 0;
}
