// Which implementations a scenario times and how (kernels/harness/sides.hpp): the baseline a
// scenario resolves to, the plan of its timed calls, the order of the calls in a sample, and the
// clock and quiet checks against the judge's null implementation when the baseline is PyTorch.
#include "catch.hpp"

#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "cli.hpp"
#include "sides.hpp"

using namespace socratic::harness;
using Catch::Matchers::Contains;

TEST_CASE("the baseline a scenario resolves to: the workload's word, then the option's, then native",
          "[harness][sides]") {
  const BaselineOption so = baseline_option("/x/baseline.so");
  CHECK(so.has_native());
  CHECK_FALSE(so.word);
  const BaselineOption eager = baseline_option("pytorch_eager");
  CHECK_FALSE(eager.has_native());
  CHECK(eager.word == BaselineKind::pytorch_eager);
  CHECK(baseline_option("pytorch_compile").word == BaselineKind::pytorch_compile);
  CHECK_THROWS_WITH(baseline_option("native"), Contains("is not a shared object"));

  CHECK(scenario_baseline(so, "", true) == BaselineKind::native);
  CHECK(scenario_baseline(so, "", false) == BaselineKind::native);
  CHECK(scenario_baseline(so, "pytorch_eager", true) == BaselineKind::pytorch_eager);
  CHECK(scenario_baseline(so, "pytorch_compile", true) == BaselineKind::pytorch_compile);
  CHECK(scenario_baseline(so, "native", true) == BaselineKind::native);
  CHECK(scenario_baseline(eager, "", true) == BaselineKind::pytorch_eager);
  CHECK(scenario_baseline(eager, "pytorch_compile", true) == BaselineKind::pytorch_compile);
  CHECK_THROWS_WITH(scenario_baseline(eager, "native", true),
                    Contains("asks for the native baseline and the runner was given none"));
  CHECK_THROWS_WITH(scenario_baseline(so, "pytorch_eager", false), Contains("this problem has none"));
  CHECK_THROWS_WITH(scenario_baseline(eager, "", false), Contains("this problem has none"));
  CHECK_THROWS_WITH(scenario_baseline(so, "eager", true), Contains("is not one of native, pytorch_eager"));
}

TEST_CASE("--baseline takes a shared object or a PyTorch baseline's name", "[harness][sides][cli]") {
  auto words = [](const std::string& baseline) {
    return std::vector<std::string>{"--baseline", baseline, "--candidate", "c.so", "--scenarios", "s.json"};
  };
  CHECK(parse_runner_words(words("pytorch_eager")).baseline == "pytorch_eager");
  CHECK(parse_runner_words(words("pytorch_compile")).baseline == "pytorch_compile");
  CHECK(parse_runner_words(words("/b/base.so")).baseline == "/b/base.so");
  CHECK_THROWS_WITH(parse_runner_words(words("native")), Contains("--baseline") && Contains("not a shared object"));
}

TEST_CASE("a PyTorch baseline is timed unheld, the candidate and the judge's null implementation held",
          "[harness][sides]") {
  const TimingPlan native = timing_plan(true, BaselineKind::native);
  CHECK(native.held);
  CHECK(native.baseline_held);
  CHECK_FALSE(native.calibration);
  CHECK(native.note.empty());
  CHECK_FALSE(timing_plan(false, BaselineKind::native).held);
  for (BaselineKind k : {BaselineKind::pytorch_eager, BaselineKind::pytorch_compile}) {
    const TimingPlan p = timing_plan(true, k);
    CHECK(p.held);  // the candidate and the null implementation (D152: a side stream passed unheld)
    CHECK_FALSE(p.baseline_held);
    CHECK(p.calibration);
    CHECK_THAT(p.note, Contains("cannot take the launch hold") && Contains("stay behind the hold"));
    const TimingPlan unheld = timing_plan(false, k);
    CHECK(unheld.calibration);
    CHECK(unheld.note.empty());  // nothing departs from the options
  }
}

TEST_CASE("the order of a sample's calls: each side first, and after each other, equally often",
          "[harness][sides]") {
  // Two sides, as before: the candidate first in odd samples.
  CHECK(sample_order(0, false) == std::vector<Side>{Side::baseline, Side::candidate});
  CHECK(sample_order(1, false) == std::vector<Side>{Side::candidate, Side::baseline});
  // Three sides over 12 samples, across sample boundaries too (the quiet fence before a sample's
  // first call follows the previous sample's last).
  std::map<Side, int> first;
  std::map<std::pair<Side, Side>, int> follows;
  std::vector<Side> sequence;
  for (int s = 0; s < 12; ++s) {
    const auto o = sample_order(s, true);
    REQUIRE(o.size() == 3);
    CHECK(std::set<Side>(o.begin(), o.end()).size() == 3);
    ++first[o[0]];
    sequence.insert(sequence.end(), o.begin(), o.end());
  }
  for (std::size_t i = 1; i < sequence.size(); ++i) ++follows[{sequence[i - 1], sequence[i]}];
  for (Side s : {Side::candidate, Side::baseline, Side::calibration}) CHECK(first[s] == 4);
  CHECK(follows.size() == 6);  // every ordered pair of different sides, never a side after itself
  for (const auto& [pair, n] : follows) {
    CHECK(pair.first != pair.second);
    CHECK((n == 5 || n == 6));  // 35 transitions over 6 pairs
  }
}

namespace {
/// `n` calls of `event_ms` each whose judge's clock read `residual_us` more (with some jitter).
SideTimes side(double event_ms, double residual_us, int n = 24, double jitter_us = 2.0, double quiet_us = 12) {
  SideTimes t;
  for (int i = 0; i < n; ++i) {
    const double j = jitter_us * ((i % 5) - 2) / 2.0;
    t.event_ms.push_back(event_ms);
    t.wall_ms.push_back(event_ms + (residual_us + j) / 1e3);
    t.quiet_after_us.push_back(quiet_us + (i % 3));
  }
  return t;
}
}  // namespace

TEST_CASE("the clock check against the null implementation catches what a PyTorch baseline would hide",
          "[harness][sides]") {
  // The native path's overhead (messages, context switches, the fence) as on the H200, about
  // 300 us; the PyTorch baseline's residual holds the worker's JSON, its copies, the flush and the
  // interpreter besides: about 1.5 ms, and far noisier.
  const SideTimes null_side = side(0.004, 300);
  const SideTimes pytorch = side(0.5, 1500, 24, 200);
  SECTION("an honest candidate passes") {
    const SideTimes honest = side(0.2, 302);
    CHECK_FALSE(candidate_clock(honest, pytorch, &null_side).mismatch);
  }
  SECTION("a candidate that reports a third of its time is caught against the null side only") {
    SideTimes forged = side(0.6, 300);
    for (auto& e : forged.event_ms) e /= 3;  // 0.2 ms claimed for 0.6 ms of work: +400 us residual
    const ClockVerdict calibrated = candidate_clock(forged, pytorch, &null_side);
    CHECK(calibrated.mismatch);
    CHECK(calibrated.excess_us == Approx(400).margin(5));
    CHECK(calibrated.baseline_residual_us == Approx(300).margin(2));
    // Against the PyTorch baseline's own residual the forgery would pass: the reason for the
    // null side.
    CHECK_FALSE(candidate_clock(forged, pytorch, nullptr).mismatch);
  }
  SECTION("as strong as with a native baseline: the same forgery, the same verdict, the same allowance") {
    SideTimes forged = side(0.3, 300 + 150);  // work left on another stream: the fence waits 150 us
    const SideTimes native_baseline = side(0.004, 300);
    const ClockVerdict with_null = candidate_clock(forged, pytorch, &null_side);
    const ClockVerdict with_native = candidate_clock(forged, native_baseline, nullptr);
    CHECK(with_null.mismatch);
    CHECK(with_native.mismatch);
    CHECK(with_null.allowance_us == Approx(with_native.allowance_us));
    CHECK(with_null.excess_us == Approx(with_native.excess_us));
  }
  SECTION("the quiet check compares with the null side's fences too") {
    const SideTimes hog = side(0.2, 302, 24, 2.0, 300);  // fences after it wait a time slice
    const SideTimes quiet_pytorch = side(0.5, 1500, 24, 200, 400);  // (say) a slow fence after Python
    CHECK(candidate_left_gpu_busy(hog, quiet_pytorch, &null_side));
    CHECK_FALSE(candidate_left_gpu_busy(hog, quiet_pytorch, nullptr));
    CHECK_FALSE(candidate_left_gpu_busy(side(0.2, 302), pytorch, &null_side));
  }
}
