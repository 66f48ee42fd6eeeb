// What the attacks on the judge's schedule share (skips_unchecked_calls.cu,
// predicts_inputs.cu, reads_judge_options.cu): where a call falls in the judge's sequence for
// one scenario, as the judge before the secret schedule made it (docs/harness.md, "Threat
// model"): per scenario, calls 0-3 are the correctness trials (trial 0, its re-run, trials 1
// and 2), 4-5 the warm-up, and from 6 on timed sample s = call - 6, of which s % 8 == 0 (and
// the last) were compared with the reference, and nothing else. A scenario starts when the
// shape changes (the scenarios of scenarios/rmsnorm.json all differ in shape).
#pragma once

#include "attack_kit.cuh"

namespace schedule {

struct Position {
  int call = 0;   ///< calls of this scenario so far, this one included, from 0
  bool timed = false;
  int sample = -1;  ///< timed sample index, or -1
};

inline Position next_call(const socratic_rmsnorm_args* a) {
  static int rows = -1, cols = -1, dtype = -1, calls = 0;
  if (a->rows != rows || a->cols != cols || a->dtype != dtype) {
    rows = a->rows, cols = a->cols, dtype = a->dtype, calls = 0;
  }
  Position p;
  p.call = calls++;
  p.timed = p.call >= 6;
  p.sample = p.timed ? p.call - 6 : -1;
  return p;
}

/// Under the old schedule, whether timed sample `s` was compared with anything: every Nth,
/// and the last, which may come at any sample from --min-samples on.
inline bool old_judge_checks(int sample, int recheck_every = 8, int min_samples = 12) {
  return sample % recheck_every == 0 || sample >= min_samples - 1;
}

/// The samples a careful cheat skips: a small share (the odd ones) of those the old judge
/// left unchecked, so that the median it reports is an honest sample, a little faster.
inline bool skip(int sample, int recheck_every = 8, int min_samples = 12) {
  return sample % 2 == 1 && !old_judge_checks(sample, recheck_every, min_samples);
}

}  // namespace schedule
