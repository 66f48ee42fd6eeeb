// Cheat (in-process, against a judge that talks to a worker): finds its worker's channel to the
// judge (the one SOCK_SEQPACKET socket among its descriptors) and answers the judge itself,
// before its work is done, with a framed "done" message claiming 1 microsecond, for each of
// the next sequence numbers it guesses; then it does the work (four times over).
// Caught by: the judge's checks on the wire: an answer to a request that is not outstanding,
// or a second answer to one, is a protocol violation -> `worker_protocol`. (An answer the judge
// believed early would still be measured to the judge's own fence: `clock_mismatch`.)
#include <sys/socket.h>
#include <sys/stat.h>

#include "attack_kit.cuh"

namespace {
struct Header { std::uint32_t magic, type; std::uint64_t seq; std::uint32_t payload_bytes, reserved; };
struct Done { std::int32_t ret, cuda_error; double event_ms; std::uint32_t persisting_l2, reserved; };
std::uint64_t guess = 1;
}  // namespace

extern "C" int socratic_rmsnorm_forward(const socratic_rmsnorm_args* a, cudaStream_t stream) {
  for (int fd = 3; fd < 256; ++fd) {
    int type = 0;
    socklen_t len = sizeof type;
    if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &len) != 0 || type != SOCK_SEQPACKET) continue;
    for (std::uint64_t seq = guess; seq < guess + 8; ++seq) {
      unsigned char msg[sizeof(Header) + sizeof(Done)];
      const Header h{0x534F4357u, 68, seq, sizeof(Done), 0};
      const Done d{0, 0, 0.001, 0, 0};
      std::memcpy(msg, &h, sizeof h);
      std::memcpy(msg + sizeof h, &d, sizeof d);
      send(fd, msg, sizeof msg, MSG_NOSIGNAL | MSG_DONTWAIT);
    }
    guess += 8;
  }
  int ret = 0;
  for (int i = 0; i < 4; ++i) ret |= honest::launch(a, stream);
  return ret;
}
