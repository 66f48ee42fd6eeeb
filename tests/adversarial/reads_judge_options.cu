// Cheat: learns the judge's options and schedule from what the machine shows of the judge
// process (its parent): /proc/PPID/cmdline (readable by every process), /proc/PPID/environ,
// then skips some of the timed calls the schedule it found leaves unchecked (--recheck-every
// and --min-samples, as skips_unchecked_calls.cu). When it finds no option it has nothing to
// exploit and computes honestly.
// Caught by: nothing to read -- the host hands the judge its options on its standard input
// (closed before any worker exists; a worker gets /dev/null there), the judge's command line
// is `socratic-runner --options-stdin`, its environment holds only the caller's (and
// /proc/PPID/environ is refused: the judge is not dumpable) -> the candidate stays honest:
// correct everywhere and no faster than its honest kernel (`max_speedup`). Against the old
// judge it found the options in the command line and skipped the odd samples before the
// earliest last one that were not every 8th.

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "schedule_kit.cuh"

namespace {

struct Learned {
  bool found = false;
  int recheck_every = 8, min_samples = 12;
};

int option(const std::string& text, const char* name, int fallback) {
  const std::size_t at = text.find(name);
  return at == std::string::npos ? fallback : std::atoi(text.c_str() + at + std::strlen(name));
}

/// The judge's options as its command line or environment shows them.
const Learned& learned() {
  static Learned l;
  static bool done = false;
  if (done) return l;
  done = true;
  const std::string parent = "/proc/" + std::to_string(getppid());
  for (const char* what : {"/cmdline", "/environ"}) {
    const std::vector<char> bytes = attack::read_file((parent + what).c_str());
    std::string text(bytes.begin(), bytes.end());
    for (char& c : text)
      if (c == '\0' || c == '\n') c = ' ';
    const bool options = text.find("--scenarios ") != std::string::npos;
    std::fprintf(stderr, "reads_judge_options: %s%s: %zu bytes%s\n", parent.c_str(), what,
                 bytes.size(), options ? ", the judge's options found" : "");
    if (!options) continue;
    l.found = true;
    l.recheck_every = option(text, "--recheck-every ", l.recheck_every);
    l.min_samples = option(text, "--min-samples ", l.min_samples);
  }
  return l;
}

}  // namespace

extern "C" int socratic_rmsnorm_forward(const socratic_rmsnorm_args* args, cudaStream_t stream) {
  const schedule::Position p = schedule::next_call(args);
  const Learned& l = learned();
  if (l.found && p.timed && schedule::skip(p.sample, l.recheck_every, l.min_samples)) return 0;
  return honest::launch(args, stream);
}
