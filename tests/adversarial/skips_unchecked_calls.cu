// Cheat: does the work only in the calls whose output the judge looks at. Every correctness
// call and the timed samples the old judge re-checked (every 8th and the last, which comes at
// --min-samples at the earliest: schedule_kit.cuh, the corpus's 10) are computed honestly; some
// of the others (the odd ones) return at once, leaving the output as it was. An
// outside tester's version of this read 1.21x geomean on RMSNorm against 1.04x done honestly,
// and a search with many agents finds such a pattern by itself.
// Caught by: every timed output is checked after its sample (no poison left, within the
// agreement bound of the baseline's output on the same inputs), and which samples also get the
// full reference check is drawn from the judge's secret after the call -> `unwritten` (reason
// "timed call"), on every scenario.

#include "schedule_kit.cuh"

extern "C" int socratic_rmsnorm_forward(const socratic_rmsnorm_args* args, cudaStream_t stream) {
  const schedule::Position p = schedule::next_call(args);
  if (p.timed && schedule::skip(p.sample, 8, 10)) return 0;  // nobody looks: skip
  return honest::launch(args, stream);
}
