// Cheat: learns the judge's options and schedule from what the machine shows of the judge
// process (its parent): /proc/PPID/cmdline (readable by every process), /proc/PPID/environ,
// then skips the timed calls the schedule it found leaves unchecked
// (--recheck-every, as skips_unchecked_calls.cu). When it finds no option it has nothing to
// exploit and computes honestly.
// Caught by: nothing to read -- the host hands the judge its options on its standard input
// (closed before any worker exists; a worker gets /dev/null there), the judge's command line
// is `socratic-runner --options-stdin`, its environment holds only the caller's (and
// /proc/PPID/environ is refused: the judge is not dumpable) -> the candidate stays honest:
// correct everywhere and no faster than its honest kernel (`max_speedup`). Against the old
// judge it found `--recheck-every` in the command line and skipped 7 of 8 timed calls.

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "schedule_kit.cuh"

namespace {

/// The judge's --recheck-every as its command line or environment shows it; 0 when absent.
int learned_recheck_every() {
  static int learned = -1;
  if (learned >= 0) return learned;
  learned = 0;
  const std::string parent = "/proc/" + std::to_string(getppid());
  for (const char* what : {"/cmdline", "/environ"}) {
    const std::vector<char> bytes = attack::read_file((parent + what).c_str());
    std::string text(bytes.begin(), bytes.end());
    for (char& c : text)
      if (c == '\0' || c == '\n') c = ' ';
    const std::size_t at = text.find("--recheck-every ");
    std::fprintf(stderr, "reads_judge_options: %s%s: %zu bytes%s\n", parent.c_str(), what,
                 bytes.size(), at == std::string::npos ? "" : ", --recheck-every found");
    if (at != std::string::npos) learned = std::atoi(text.c_str() + at + 16);
    else if (text.find("--options-stdin") == std::string::npos && text.find("--scenarios ") != std::string::npos)
      learned = 8;  // the options are there, with the default schedule
  }
  return learned;
}

}  // namespace

extern "C" int socratic_rmsnorm_forward(const socratic_rmsnorm_args* args, cudaStream_t stream) {
  const schedule::Position p = schedule::next_call(args);
  const int every = learned_recheck_every();
  if (every > 0 && p.timed && !schedule::old_judge_checks(p.sample, every)) return 0;
  return honest::launch(args, stream);
}
