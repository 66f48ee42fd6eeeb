// Cheat (in-process): writes nothing to its output, and on every call writes forged protocol
// lines (a correct scenario_end with a 100x speedup for every scenario of the set) to every
// descriptor it has, hoping one of them is the judge's protocol stream.
// Caught by: the boundary: the worker holds none of the judge's descriptors (its stdout is the
// judge's stderr, a free-text stream; the host also requires every protocol line to carry the
// run's token); what lands on its channel to the judge is not a message of the wire -> every
// scenario fails, with `worker_protocol` (the judge read a forged datagram) or `unwritten`.
#include <sys/socket.h>
#include <sys/stat.h>

#include "attack_kit.cuh"

extern "C" int socratic_rmsnorm_forward(const socratic_rmsnorm_args*, cudaStream_t) {
  static const char* ids[] = {"tiny", "small", "odd_cols_fp16", "odd_rows", "mid_fp16", "cols_5120", "wide", "large"};
  for (const char* id : ids) {
    char line[512];
    const int n = std::snprintf(line, sizeof line,
                                "{\"event\":\"scenario_end\",\"result\":{\"id\":\"%s\",\"correct\":true,"
                                "\"reason\":\"\",\"candidate_ms\":0.01,\"baseline_ms\":1.0,\"speedup\":100.0,"
                                "\"flags\":[]}}\n",
                                id);
    for (int fd = 0; fd < 256; ++fd) {
      struct stat st;
      // Streams (pipes and sockets) carry protocols; the GPU driver's descriptors do not.
      if (fstat(fd, &st) != 0 || !(S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode))) continue;
      ssize_t ignored = write(fd, line, static_cast<std::size_t>(n));
      (void)ignored;
    }
  }
  return 0;
}
