// Which implementations a scenario times, and how (docs/harness.md, "A PyTorch baseline"): the
// baseline a scenario asks for (a native shared object, or its problem's PyTorch reference in
// eager mode or under torch.compile), whether the calls are timed behind the launch hold, the
// judge-owned null implementation that calibrates the clock and quiet checks when the baseline is
// not a native worker, the order of the calls in each sample, and the checks against that
// calibration. Plain C++17, unit-tested without a GPU (tests/gpu/test_runner_logic.cpp).
#pragma once

#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "stats.hpp"

namespace socratic::harness {

enum class BaselineKind {
  native,           ///< a shared object in a sandboxed worker (--baseline PATH)
  pytorch_eager,    ///< the problem's PyTorch reference, eager, in the reference worker
  pytorch_compile,  ///< the same under torch.compile, compiled and warmed before any timing
};

inline const char* baseline_kind_name(BaselineKind k) {
  switch (k) {
    case BaselineKind::native: return "native";
    case BaselineKind::pytorch_eager: return "pytorch_eager";
    case BaselineKind::pytorch_compile: return "pytorch_compile";
  }
  return "native";
}

inline std::optional<BaselineKind> baseline_kind_named(const std::string& word) {
  for (BaselineKind k : {BaselineKind::native, BaselineKind::pytorch_eager, BaselineKind::pytorch_compile})
    if (word == baseline_kind_name(k)) return k;
  return std::nullopt;
}

inline bool is_pytorch(BaselineKind k) { return k != BaselineKind::native; }

/// The runner's --baseline: a shared object's path, or the word pytorch_eager / pytorch_compile
/// (every scenario's baseline is its problem's PyTorch reference, and no native baseline worker
/// is started).
struct BaselineOption {
  std::optional<BaselineKind> word;  ///< set for pytorch_eager / pytorch_compile
  std::string path;                  ///< set for a shared object
  bool has_native() const { return !path.empty(); }
};

inline BaselineOption baseline_option(const std::string& value) {
  BaselineOption o;
  const auto k = baseline_kind_named(value);
  if (k && is_pytorch(*k))
    o.word = k;
  else if (value == "native")
    throw std::invalid_argument("option --baseline: \"native\" is not a shared object; give its path, or "
                                "pytorch_eager / pytorch_compile");
  else
    o.path = value;
  return o;
}

/// The baseline of one scenario. `asked`: what the scenario's own description asks
/// (a suite problem's resolved workload, `reference.baseline`; empty when it does not say), which
/// wins over the option; else the option's word; else the native baseline. `problem_has_pytorch`:
/// whether the problem can run its reference as a baseline. Throws std::invalid_argument with
/// the reason when the scenario cannot have the baseline it resolves to.
inline BaselineKind scenario_baseline(const BaselineOption& option, const std::string& asked,
                                      bool problem_has_pytorch) {
  BaselineKind k = BaselineKind::native;
  if (!asked.empty()) {
    const auto named = baseline_kind_named(asked);
    if (!named)
      throw std::invalid_argument("reference.baseline \"" + asked +
                                  "\" is not one of native, pytorch_eager, pytorch_compile");
    k = *named;
  } else if (option.word) {
    k = *option.word;
  }
  if (k == BaselineKind::native && !option.has_native())
    throw std::invalid_argument("the scenario asks for the native baseline and the runner was given none (--baseline " +
                                std::string(baseline_kind_name(option.word.value_or(BaselineKind::native))) +
                                "): give --baseline PATH");
  if (is_pytorch(k) && !problem_has_pytorch)
    throw std::invalid_argument(std::string("the baseline ") + baseline_kind_name(k) +
                                " is a problem's PyTorch reference, and this problem has none");
  return k;
}

/// How a scenario's timed calls are made.
struct TimingPlan {
  bool held = true;  ///< the native sides behind the worker's launch hold (launch_hold.cuh)
  /// Whether the baseline's calls take the hold too: a PyTorch baseline cannot (its calls are
  /// timed unheld, its dispatch inside the interval, as eager PyTorch runs).
  bool baseline_held = true;
  /// A judge-owned null implementation, in a native worker as the candidate's, is timed in every
  /// sample beside the two: the clock check's and the quiet check's calibration (the baseline
  /// is not on the candidate's path).
  bool calibration = false;
  std::string note;  ///< why the plan departs from the options (a log line), or empty
};

inline TimingPlan timing_plan(bool launch_hold_option, BaselineKind baseline) {
  TimingPlan p;
  p.held = launch_hold_option;
  if (!is_pytorch(baseline)) return p;
  p.calibration = true;
  p.baseline_held = false;
  // The candidate stays behind the hold, as on the native path, and so does the null
  // implementation its clock and quiet checks compare with: timed unheld, work a candidate hides
  // on a stream of its own is done before the judge's fence, for a short kernel (D152: a 27 us
  // RMSNorm's side stream passed unheld).
  if (launch_hold_option)
    p.note = std::string("the baseline (") + baseline_kind_name(baseline) +
             ") runs in the PyTorch reference worker, which cannot take the launch hold: it is timed unheld, "
             "its dispatch inside the interval; the candidate and the judge's null implementation stay behind "
             "the hold";
  return p;
}

/// The sides of a timed sample.
enum class Side { candidate = 0, baseline = 1, calibration = 2 };

/// The order of the calls in sample `s`. Two sides: the candidate goes first in odd samples.
/// Three: the six orders in turn, so that each side goes first, and follows each other side,
/// equally often (a call's wall time depends on what ran before it).
inline std::vector<Side> sample_order(int s, bool calibration) {
  if (!calibration)
    return s % 2 == 1 ? std::vector<Side>{Side::candidate, Side::baseline}
                      : std::vector<Side>{Side::baseline, Side::candidate};
  static const Side orders[6][3] = {
      {Side::candidate, Side::baseline, Side::calibration}, {Side::baseline, Side::calibration, Side::candidate},
      {Side::calibration, Side::candidate, Side::baseline}, {Side::candidate, Side::calibration, Side::baseline},
      {Side::calibration, Side::baseline, Side::candidate}, {Side::baseline, Side::candidate, Side::calibration}};
  const auto& o = orders[((s % 6) + 6) % 6];
  return {o[0], o[1], o[2]};
}

/// One side's timed calls: its worker's events, the judge's clock, and the quiet fences of the
/// calls that followed it.
struct SideTimes {
  std::vector<double> event_ms, wall_ms, quiet_after_us;
};

/// The side the candidate's clock and quiet checks compare with: the calibration when the plan
/// has one, else the native baseline (same worker, same path as the candidate's).
inline const SideTimes& clock_reference(const SideTimes& baseline, const SideTimes* calibration) {
  return calibration ? *calibration : baseline;
}

/// The judge's clock against the candidate's events, calibrated by the reference side.
inline ClockVerdict candidate_clock(const SideTimes& candidate, const SideTimes& baseline,
                                    const SideTimes* calibration, ClockRule rule = {}) {
  const SideTimes& ref = clock_reference(baseline, calibration);
  return clock_check(candidate.event_ms, candidate.wall_ms, ref.event_ms, ref.wall_ms, rule);
}

/// The quiet check: fences after the candidate's calls against those after the reference side's.
inline bool candidate_left_gpu_busy(const SideTimes& candidate, const SideTimes& baseline,
                                    const SideTimes* calibration, QuietRule rule = {}) {
  const SideTimes& ref = clock_reference(baseline, calibration);
  return gpu_busy_after_candidate(candidate.quiet_after_us, ref.quiet_after_us, rule);
}

}  // namespace socratic::harness
