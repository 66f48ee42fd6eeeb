// The suites' correctness rules against hand-computed cases: the edge of each tolerance, the
// matched ratio just below its requirement, the error cap, NaN, infinities and all-zero outputs.
#include "catch.hpp"

#include <cmath>
#include <limits>
#include <vector>

#include "socratic/suite/correctness_rule.hpp"

namespace {

using namespace socratic::suite;

constexpr float suite_inf = std::numeric_limits<float>::infinity();
const float suite_nan = std::numeric_limits<float>::quiet_NaN();

OutputVerdict judge(CorrectnessRule rule, const Tolerance& t, const std::vector<float>& expected,
                    const std::vector<float>& got) {
  return judge_output(rule, t, expected, got);
}

Tolerance sol_default() { return suite_tolerance(CorrectnessRule::sol_execbench, Dtype::bfloat16); }

}  // namespace

TEST_CASE("SOL-ExecBench: an element is within atol + rtol * |ref|, inclusive", "[suite]") {
  Tolerance t = sol_default();  // 1e-2, 1e-2, every element
  t.atol = 0.5;
  t.rtol = 0.25;
  // |ref| = 2: tolerance 0.5 + 0.25 * 2 = 1.0 (exact in binary floating point)
  const OutputVerdict at_edge = judge(CorrectnessRule::sol_execbench, t, {2.0f}, {3.0f});
  CHECK(at_edge.ok);
  CHECK(at_edge.matched_ratio == 1.0);
  CHECK(at_edge.max_abs_error == 1.0);
  CHECK(at_edge.max_rel_error == 0.5);  // 1 / max(|ref|, atol)
  const OutputVerdict beyond = judge(CorrectnessRule::sol_execbench, t, {2.0f}, {3.0009765625f});
  CHECK_FALSE(beyond.ok);
  CHECK(beyond.matched_ratio == 0.0);
  CHECK_THAT(beyond.reason, Catch::Matchers::Contains("1 of 1 elements outside atol 0.5 rtol 0.25"));
}

TEST_CASE("SOL-ExecBench: the matched ratio and the error cap", "[suite]") {
  Tolerance t = sol_default();
  t.required_matched_ratio = 0.99;
  std::vector<float> ref(100, 1.0f), got(100, 1.0f);
  got[7] = 5.0f;  // 99 of 100 match: exactly the required ratio
  const OutputVerdict one_off = judge(CorrectnessRule::sol_execbench, t, ref, got);
  CHECK(one_off.ok);
  CHECK(one_off.mismatched == 1);
  CHECK(one_off.matched_ratio == Approx(0.99));
  got[8] = 5.0f;  // 98 of 100: just below
  const OutputVerdict two_off = judge(CorrectnessRule::sol_execbench, t, ref, got);
  CHECK_FALSE(two_off.ok);
  CHECK(two_off.matched_ratio == Approx(0.98));
  CHECK_THAT(two_off.reason, Catch::Matchers::Contains("< required 0.99 (first: output[7] = 5, reference 1)"));
  got[8] = 1.0f;
  t.max_error_cap = 3.0;  // the one element off by 4 now fails the workload despite the ratio
  const OutputVerdict capped = judge(CorrectnessRule::sol_execbench, t, ref, got);
  CHECK_FALSE(capped.ok);
  CHECK_THAT(capped.reason, Catch::Matchers::Contains("max absolute error 4 exceeds the cap 3"));
  t.max_error_cap = 4.0;  // at the cap: allowed
  CHECK(judge(CorrectnessRule::sol_execbench, t, ref, got).ok);
}

TEST_CASE("SOL-ExecBench: non-finite values and all-zero outputs", "[suite]") {
  const Tolerance t = sol_default();
  // Any suite_inf or NaN in the output fails, even where the reference holds the same value.
  const OutputVerdict same_inf = judge(CorrectnessRule::sol_execbench, t, {1.0f, -suite_inf}, {1.0f, -suite_inf});
  CHECK_FALSE(same_inf.ok);
  CHECK(std::isinf(same_inf.max_abs_error));
  CHECK_THAT(same_inf.reason, Catch::Matchers::Contains("output[1] is -inf (reference -inf)"));
  const OutputVerdict same_nan = judge(CorrectnessRule::sol_execbench, t, {suite_nan}, {suite_nan});
  CHECK_FALSE(same_nan.ok);
  CHECK(std::isnan(same_nan.max_abs_error));
  // A non-finite reference with a finite output never matches (its error is not finite).
  Tolerance lenient = t;
  lenient.required_matched_ratio = 0.5;
  const OutputVerdict ref_inf = judge(CorrectnessRule::sol_execbench, lenient, {-suite_inf, 1.0f, 2.0f}, {0.0f, 1.0f, 2.0f});
  CHECK(ref_inf.ok);  // 2 of 3 match, 0.5 required
  CHECK(ref_inf.mismatched == 1);
  CHECK(std::isinf(ref_inf.max_abs_error));
  const OutputVerdict ref_nan = judge(CorrectnessRule::sol_execbench, t, {suite_nan, 1.0f}, {0.0f, 1.0f});
  CHECK_FALSE(ref_nan.ok);
  CHECK(std::isnan(ref_nan.max_abs_error));
  // All zero where the reference is not, although every element is within tolerance.
  const OutputVerdict zeros = judge(CorrectnessRule::sol_execbench, t, {0.001f, -0.002f}, {0.0f, 0.0f});
  CHECK_FALSE(zeros.ok);
  CHECK_THAT(zeros.reason, Catch::Matchers::Contains("all zero and the reference is not"));
  CHECK(judge(CorrectnessRule::sol_execbench, t, {0.0f, 0.0f}, {0.0f, 0.0f}).ok);
  CHECK(judge(CorrectnessRule::sol_execbench, t, {}, {}).ok);
  CHECK_FALSE(judge(CorrectnessRule::sol_execbench, t, {1.0f}, {1.0f, 2.0f}).ok);
}

TEST_CASE("FlashInfer-Bench: an element fails only when both errors exceed theirs", "[suite]") {
  const Tolerance t = suite_tolerance(CorrectnessRule::flashinfer_bench, Dtype::float16);
  CHECK(t.atol == 1e-2);
  CHECK(t.rtol == 1e-2);
  // abs 0.5 > atol, but rel 0.5 / 100 = 0.005 <= rtol: matches (SOL's rule would not: 0.5 > 0.01 + 1)
  CHECK(judge(CorrectnessRule::flashinfer_bench, t, {100.0f}, {100.5f}).ok);
  CHECK(judge(CorrectnessRule::sol_execbench, t, {100.0f}, {101.5f}).ok == false);
  // abs 0.005 <= atol, rel 0.005 / 0.001 = 5 > rtol: matches
  CHECK(judge(CorrectnessRule::flashinfer_bench, t, {0.001f}, {0.006f}).ok);
  // abs 0.02 > atol and rel 0.02 / 1 > rtol: fails
  const OutputVerdict off = judge(CorrectnessRule::flashinfer_bench, t, {1.0f, 1.0f}, {1.0f, 1.02f});
  CHECK_FALSE(off.ok);
  CHECK(off.matched_ratio == 0.5);
  // A NaN in the output fails outright; a NaN reference compares false and is not counted.
  CHECK_FALSE(judge(CorrectnessRule::flashinfer_bench, t, {1.0f}, {suite_nan}).ok);
  const OutputVerdict ref_nan = judge(CorrectnessRule::flashinfer_bench, t, {suite_nan, 1.0f}, {0.0f, 1.0f});
  CHECK(ref_nan.ok);
  CHECK(ref_nan.mismatched == 0);
}

TEST_CASE("KernelBench: torch.allclose(ref, got), tolerance relative to the output", "[suite]") {
  const Tolerance fp32 = suite_tolerance(CorrectnessRule::kernelbench, Dtype::float32);
  CHECK(fp32.atol == 1e-4);
  CHECK(fp32.rtol == 1e-4);
  const Tolerance half = suite_tolerance(CorrectnessRule::kernelbench, Dtype::float16);
  CHECK(half.atol == 1e-2);
  CHECK(suite_tolerance(CorrectnessRule::kernelbench, Dtype::bfloat16).rtol == 1e-2);
  CHECK(suite_tolerance(CorrectnessRule::kernelbench, Dtype::int32).atol == 0.0);
  Tolerance t = fp32;
  t.atol = 0.5;
  t.rtol = 0.25;
  // |got| = 2: tolerance 0.5 + 0.25 * 2 = 1.0; |ref - got| = 1: inclusive
  CHECK(judge(CorrectnessRule::kernelbench, t, {1.0f}, {2.0f}).ok);
  // the same pair reversed: |got| = 1, tolerance 0.75 < 1
  CHECK_FALSE(judge(CorrectnessRule::kernelbench, t, {2.0f}, {1.0f}).ok);
  // every element must be close
  std::vector<float> ref(1000, 1.0f), got(1000, 1.0f);
  got[999] = 3.0f;
  const OutputVerdict one = judge(CorrectnessRule::kernelbench, t, ref, got);
  CHECK_FALSE(one.ok);
  CHECK(one.matched_ratio == Approx(0.999));
  // equal infinities are close, opposite ones are not, NaN never is
  CHECK(judge(CorrectnessRule::kernelbench, fp32, {-suite_inf, suite_inf}, {-suite_inf, suite_inf}).ok);
  CHECK(judge(CorrectnessRule::kernelbench, fp32, {-suite_inf, suite_inf}, {-suite_inf, suite_inf}).max_abs_error == 0.0);
  CHECK_FALSE(judge(CorrectnessRule::kernelbench, fp32, {suite_inf}, {-suite_inf}).ok);
  CHECK_FALSE(judge(CorrectnessRule::kernelbench, fp32, {suite_nan}, {suite_nan}).ok);
  // no all-zero rule: a zero output within tolerance of a tiny reference passes
  CHECK(judge(CorrectnessRule::kernelbench, fp32, {1e-5f}, {0.0f}).ok);
}

TEST_CASE("a workload's override replaces only what it sets", "[suite]") {
  ToleranceOverride o;
  o.rtol = 0.05;
  o.max_error_cap = 1.0;
  const Tolerance t = apply_override(suite_tolerance(CorrectnessRule::sol_execbench, Dtype::float32), o);
  CHECK(t.atol == 1e-2);
  CHECK(t.rtol == 0.05);
  CHECK(t.required_matched_ratio == 1.0);
  REQUIRE(t.max_error_cap);
  CHECK(*t.max_error_cap == 1.0);
  CHECK(ToleranceOverride{}.empty());
  CHECK_FALSE(o.empty());
}
