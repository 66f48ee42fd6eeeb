// The five trigger detectors on synthetic histories and messages, and trace replay.
#include "support.hpp"

#include "socratic/record/trace.hpp"
#include "socratic/questions/detectors.hpp"
#include "socratic/questions/trace_replay.hpp"

using namespace socratic;
using qtest::evaluation;
using qtest::history;

namespace {

/// Runs `d` after each evaluation of `scores` (as the campaign does) and returns the indices of
/// the evaluations it fired at.
std::vector<int> fires_after(TriggerDetector& d, const CampaignState& full) {
  std::vector<int> out;
  CampaignState s = full;
  s.evaluations.clear();
  for (const auto& e : full.evaluations) {
    s.evaluations.push_back(e);
    s.elapsed_s = e.elapsed_s;
    if (d.detect({Moment::after_evaluation, s, "", nullptr})) out.push_back(e.index);
  }
  return out;
}

std::optional<TriggerEvent> at_turn_end(TriggerDetector& d, const CampaignState& s, std::string_view message,
                                        const Verdict& verdict) {
  return d.detect({Moment::turn_end, s, message, &verdict});
}

const Verdict unmet = Verdict::fail({{"s0", "speedup", ">= 2.00", "1.40"}});

}  // namespace

// ---- start ------------------------------------------------------------------------------------

TEST_CASE("start fires at the campaign's start only", "[questions][detectors]") {
  StartDetector d;
  CampaignState s;
  s.campaign_id = "c1";
  auto e = d.detect({Moment::campaign_start, s, "", nullptr});
  REQUIRE(e);
  CHECK(e->trigger == Trigger::start);
  CHECK(e->priority == 0);
  CHECK(e->details["campaign_id"] == "c1");
  CHECK_FALSE(d.detect({Moment::after_evaluation, s, "", nullptr}));
  CHECK_FALSE(d.detect({Moment::turn_end, s, "done", &unmet}));
}

// ---- plateau ----------------------------------------------------------------------------------

TEST_CASE("plateau: fires after K evaluations without a gain beyond noise, once per window", "[questions][detectors][plateau]") {
  PlateauDetector d;  // K = 4
  // A gain to 1.50, then jitter within noise (1 % noise: margin 2 * 1.41 % = 2.8 %).
  const CampaignState s = history({1.0, 1.2, 1.5, 1.505, 1.498, 1.51, 1.503, 1.5, 1.509, 1.497, 1.506}, 0.01);
  CHECK(fires_after(d, s) == std::vector<int>{6, 10});
  CampaignState upto6 = s;
  upto6.evaluations.resize(7);
  auto e = d.detect({Moment::after_evaluation, upto6, "", nullptr});
  REQUIRE(e);
  CHECK(e->trigger == Trigger::plateau);
  CHECK(e->priority == 20);
  CHECK(e->details["incumbent_evaluation"] == 2);  // 1.51 at #5 is within noise of 1.50
  CHECK(e->details["evaluations_since"] == 4);
  CHECK(e->details["best_score"].get<double>() == Approx(1.5));
  CHECK(e->details["best_score_since"].get<double>() == Approx(1.51));
  CHECK(e->details["margin"].get<double>() == Approx(0.02 * std::sqrt(2.0)));
  CHECK_THAT(e->evidence, Q_CONTAINS("best score 1.5x (evaluation #2)") && Q_CONTAINS("last 4 evaluations"));
}

TEST_CASE("plateau: silent on steady gains, honest modest gains, and a single flat step", "[questions][detectors][plateau]") {
  PlateauDetector d;
  SECTION("steady large gains") { CHECK(fires_after(d, history({1.0, 1.1, 1.2, 1.3, 1.4, 1.5, 1.6, 1.7})).empty()); }
  SECTION("modest gains of 3 % with 0.5 % noise") {
    CHECK(fires_after(d, history({1.0, 1.03, 1.061, 1.093, 1.126, 1.159, 1.194, 1.23, 1.267})).empty());
  }
  SECTION("a single flat step, even with K configured to 1") {
    PlateauConfig cfg;
    cfg.window_evaluations = 1;
    PlateauDetector eager(cfg);
    CHECK(fires_after(eager, history({1.0, 1.2, 1.2, 1.4, 1.4, 1.6})).empty());
    CHECK(fires_after(eager, history({1.0, 1.2, 1.2, 1.2})) == std::vector<int>{3});  // two flat steps do
  }
  SECTION("failures are attempts, but a campaign with no correct evaluation has no best to stall") {
    CampaignState s = history({1.0, 1.0, 1.0, 1.0, 1.0});
    for (auto& e : s.evaluations) e.report.scenarios[0].correct = false;
    CHECK(fires_after(d, s).empty());
  }
}

TEST_CASE("plateau is noise-aware: gains within noise are no gains", "[questions][detectors][plateau]") {
  PlateauDetector d;
  // +1 % per evaluation looks like progress, but with 2 % noise (margin 5.7 %) it is not.
  const CampaignState noisy = history({1.0, 1.01, 1.02, 1.03, 1.04, 1.05}, 0.02);
  CHECK(fires_after(d, noisy) == std::vector<int>{4});
  // The same +1 % steps with 0.1 % noise (margin 0.5 %) are real.
  CHECK(fires_after(d, history({1.0, 1.01, 1.02, 1.03, 1.04, 1.05}, 0.001)).empty());
  CHECK(significant_improvements(noisy.evaluations, ImprovementRule{}) == std::vector<std::size_t>{0});
  // Creeping within noise adds up: once the total passes the margin, it is a gain.
  const CampaignState creeping = history({1.0, 1.01, 1.02, 1.03, 1.04, 1.05, 1.06, 1.07}, 0.02);
  CHECK(significant_improvements(creeping.evaluations, ImprovementRule{}) == std::vector<std::size_t>{0, 6});
  CHECK(fires_after(d, creeping) == std::vector<int>{4});
}

TEST_CASE("plateau: the time window fires before K evaluations, never on one step", "[questions][detectors][plateau]") {
  PlateauConfig cfg;
  cfg.window_minutes = 10;
  PlateauDetector d(cfg);
  CampaignState s = history({1.0, 1.5, 1.5, 1.5, 1.5});
  for (auto& e : s.evaluations) e.elapsed_s = e.index * 6 * 60.0;  // every 6 minutes
  // #2 is 6 min after the best, #3 is 12 min (crosses T with 2 evaluations), #4 is 18 min.
  CHECK(fires_after(d, s) == std::vector<int>{3});
  // One slow flat step of 30 minutes is still a single step.
  CampaignState slow = history({1.0, 1.5, 1.5});
  slow.evaluations[2].elapsed_s = slow.evaluations[1].elapsed_s + 30 * 60;
  CHECK(fires_after(d, slow).empty());
  // At a turn end the plateau fires whenever it holds.
  CampaignState held = s;
  held.elapsed_s = s.evaluations.back().elapsed_s;
  CHECK(at_turn_end(d, held, "", unmet));
  CampaignState fresh = history({1.0, 1.5});
  CHECK_FALSE(at_turn_end(d, fresh, "", unmet));
}

// ---- claimed limit ----------------------------------------------------------------------------

TEST_CASE("the rule-based classifier finds limit and completion claims, negation-aware", "[questions][detectors][claims]") {
  RuleBasedClaimClassifier c;
  auto kind = [&](std::string_view m) -> std::string {
    auto claim = c.classify(m);
    return claim ? std::string(to_string(claim->kind)) : "none";
  };
  CHECK(kind("The kernel is now at the hardware limit.") == "limit");
  CHECK(kind("I've tried everything: this cannot be improved further.") == "limit");
  CHECK(kind("I believe this implementation is optimal for H200.") == "limit");
  CHECK(kind("I don't think it can be improved any more.") == "limit");
  CHECK(kind("I don't think it's optimal yet.") == "none");
  CHECK(kind("We are hitting the roofline on every shape.") == "limit");
  CHECK(kind("There are diminishing returns now.") == "limit");
  CHECK(kind("Done.") == "completion");
  CHECK(kind("The optimization is complete and the goal is met.") == "completion");
  CHECK(kind("All done!") == "completion");
  CHECK(kind("This is the final version of the kernel.") == "completion");
  // A limit argument wins over a completion claim in the same message.
  CHECK(kind("I'm done: the kernel saturates the memory bandwidth.") == "limit");

  CHECK(kind("This is not optimal yet; next I will try TMA loads.") == "none");
  CHECK(kind("Is this optimal? I will profile to find out.") == "none");
  CHECK(kind("We are far from the hardware limit, so there is headroom.") == "none");
  CHECK(kind("I have done the tiling change and will profile next.") == "none");
  CHECK(kind("The kernel isn't at the roofline yet.") == "none");
  CHECK(kind("The work is not done, the causal scenarios still lag.") == "none");
  CHECK(kind("") == "none");

  auto claim = c.classify("After profiling, I believe we are at the memory bandwidth limit.");
  REQUIRE(claim);
  CHECK(claim->phrase == "bandwidth limit");
  CHECK(claim->rule == "hardware-limit");
}

TEST_CASE("claimed limit: explicit claims outrank plain stops; the verdict decides", "[questions][detectors][claims]") {
  ClaimedLimitDetector d;
  const CampaignState s = history({1.0, 1.4});
  auto claim = at_turn_end(d, s, "This is as fast as the hardware allows.", unmet);
  REQUIRE(claim);
  CHECK(claim->trigger == Trigger::claimed_limit);
  CHECK(claim->priority == 30);
  CHECK(claim->details["claim"] == "limit");
  CHECK(claim->details["prefer_tags"] == json::array({"limit"}));
  CHECK_THAT(claim->evidence, Q_CONTAINS("claiming a limit") && Q_CONTAINS("s0: speedup required >= 2.00, measured 1.40"));

  auto done = at_turn_end(d, s, "Task complete.", unmet);
  REQUIRE(done);
  CHECK(done->details["claim"] == "completion");

  auto plain = at_turn_end(d, s, "I changed the tile size and will look at occupancy next.", unmet);
  REQUIRE(plain);
  CHECK(plain->priority == 10);
  CHECK(plain->details["claim"] == "none");

  CHECK_FALSE(at_turn_end(d, s, "It is optimal.", Verdict::pass()));  // the goal holds: no trigger
  CHECK_FALSE(d.detect({Moment::after_evaluation, s, "It is optimal.", nullptr}));

  ClaimedLimitConfig quiet;
  quiet.report_plain_stop = false;
  ClaimedLimitDetector only_claims(std::make_shared<RuleBasedClaimClassifier>(), quiet);
  CHECK_FALSE(at_turn_end(only_claims, s, "Profiling next.", unmet));
}

TEST_CASE("claimed limit: a user's classifier replaces the rules", "[questions][detectors][claims]") {
  struct ShipItClassifier : ClaimClassifier {
    std::optional<Claim> classify(std::string_view m) const override {
      if (m.find("ship it") != std::string_view::npos) return Claim{ClaimKind::completion, "ship it", "ship-it"};
      return std::nullopt;
    }
  };
  ClaimedLimitDetector d(std::make_shared<ShipItClassifier>());
  const CampaignState s = history({1.0});
  auto e = at_turn_end(d, s, "Good enough, ship it", unmet);
  REQUIRE(e);
  CHECK(e->details["rule"] == "ship-it");
  CHECK(e->priority == 30);
  auto other = at_turn_end(d, s, "This is the hardware limit.", unmet);  // the rules are gone
  REQUIRE(other);
  CHECK(other->priority == 10);
}

// ---- suspicious gain --------------------------------------------------------------------------

TEST_CASE("suspicious gain: a jump past the factor over the previous best", "[questions][detectors][gain]") {
  SuspiciousGainDetector d;  // 1.5x
  CHECK(fires_after(d, history({1.2, 1.25, 2.0})) == std::vector<int>{2});
  auto s = history({1.2, 1.25, 2.0});
  auto e = d.detect({Moment::after_evaluation, s, "", nullptr});
  REQUIRE(e);
  CHECK(e->priority == 40);
  CHECK(e->details["findings"][0]["kind"] == "jump");
  CHECK_THAT(e->evidence, Q_CONTAINS("score 2x is 1.6 times the previous best 1.25x (evaluation #1)"));
  CHECK(e->details["prefer_tags"] == json::array({"cheat", "timing"}));
}

TEST_CASE("suspicious gain: silent on noise and honest modest gains", "[questions][detectors][gain]") {
  SuspiciousGainDetector d;
  CHECK(fires_after(d, history({1.2, 1.21, 1.19, 1.22, 1.2}, 0.02)).empty());
  CHECK(fires_after(d, history({1.0, 1.2, 1.4, 1.65, 1.9, 2.2, 2.6})).empty());
  CHECK(fires_after(d, history({1.4})).empty());  // a first candidate modestly past the baseline
  // A failed evaluation in between does not count as the previous best.
  CampaignState s = history({1.2, 0.1, 1.4});
  s.evaluations[1].report.scenarios[0].correct = false;
  CHECK(fires_after(d, s).empty());
}

TEST_CASE("suspicious gain: a first evaluation far past the baseline is a jump from 1x", "[questions][detectors][gain]") {
  SuspiciousGainDetector d;
  CHECK(fires_after(d, history({2.1})) == std::vector<int>{0});
  auto s = history({2.1});
  auto e = d.detect({Moment::after_evaluation, s, "", nullptr});
  REQUIRE(e);
  CHECK(e->details["findings"][0]["previous_best"] == 1.0);
  CHECK_THAT(e->evidence, Q_CONTAINS("times the baseline (no earlier correct evaluation)"));
  // A failed first evaluation is no best: the next correct one is still judged against 1x.
  CampaignState failed = history({0.5, 2.0});
  failed.evaluations[0].report.scenarios[0].correct = false;
  CHECK(fires_after(d, failed) == std::vector<int>{1});
}

TEST_CASE("suspicious gain: one scenario's jump hidden in the geometric mean", "[questions][detectors][gain]") {
  SuspiciousGainDetector d;
  CampaignState s;
  s.evaluations = {evaluation(0, {1.0, 1.0, 1.0, 1.0, 1.0}), evaluation(1, {1.0, 1.0, 4.0, 1.0, 1.0})};
  auto e = d.detect({Moment::after_evaluation, s, "", nullptr});  // geomean 1.32x: no jump
  REQUIRE(e);
  REQUIRE(e->details["findings"].size() == 1);
  CHECK(e->details["findings"][0]["kind"] == "scenario_jump");
  CHECK(e->details["findings"][0]["scenario"] == "s2");
}

TEST_CASE("suspicious gain: near or under the roofline, flags, anchors", "[questions][detectors][gain]") {
  SuspiciousGainDetector d;
  CampaignState s;
  auto with_fraction = [](int i, double fraction) {
    auto e = evaluation(i, {1.1 + 0.01 * i});
    e.report.scenarios[0].roofline_fraction = fraction;
    e.report.scenarios[0].roofline_ms = fraction / e.report.scenarios[0].speedup;
    return e;
  };
  s.evaluations = {with_fraction(0, 0.6)};
  CHECK_FALSE(d.detect({Moment::after_evaluation, s, "", nullptr}));
  s.evaluations.push_back(with_fraction(1, 0.93));  // lands near its floor: fires once
  auto near = d.detect({Moment::after_evaluation, s, "", nullptr});
  REQUIRE(near);
  CHECK(near->details["findings"][0]["kind"] == "roofline");
  CHECK_THAT(near->evidence, Q_CONTAINS("s0 runs at 0.93 of its roofline"));
  s.evaluations.push_back(with_fraction(2, 0.94));  // stays there: no news
  CHECK_FALSE(d.detect({Moment::after_evaluation, s, "", nullptr}));
  s.evaluations.push_back(with_fraction(3, 1.05));  // under the physical floor: always
  CHECK(d.detect({Moment::after_evaluation, s, "", nullptr}));
  s.evaluations.push_back(with_fraction(4, 1.05));
  CHECK(d.detect({Moment::after_evaluation, s, "", nullptr}));

  SECTION("a wrong scenario is a correctness failure, not a gain") {
    s.evaluations.back().report.scenarios[0].correct = false;
    CHECK_FALSE(d.detect({Moment::after_evaluation, s, "", nullptr}));
  }
  SECTION("harness flags") {
    s.evaluations.back().report.scenarios[0].roofline_fraction = 0.5;
    s.evaluations.back().report.scenarios[0].flags = {"side_stream"};
    auto e = d.detect({Moment::after_evaluation, s, "", nullptr});
    REQUIRE(e);
    CHECK(e->details["findings"][0]["flag"] == "side_stream");
  }
  SECTION("anchors: implausibly past the best known throughput") {
    SuspiciousGainConfig cfg;
    cfg.anchors = AnchorTable::from_json(json{{"s0", 400.0}});
    SuspiciousGainDetector anchored(cfg);
    CampaignState a;
    a.evaluations = {evaluation(0, {1.0})};
    a.evaluations[0].report.scenarios[0].tflops = 440;  // 1.10x the anchor: plausible
    CHECK_FALSE(anchored.detect({Moment::after_evaluation, a, "", nullptr}));
    a.evaluations[0].report.scenarios[0].tflops = 520;  // 1.30x: implausible
    auto e = anchored.detect({Moment::after_evaluation, a, "", nullptr});
    REQUIRE(e);
    CHECK(e->details["findings"][0]["kind"] == "anchor");
    CHECK_THAT(e->evidence, Q_CONTAINS("520 TFLOP/s, 1.3 times the best known 400"));
  }
}

TEST_CASE("anchor tables load from maps, rows and sdpa-style rows with an id template", "[questions][detectors][gain]") {
  auto rows = AnchorTable::from_json(json::parse(R"({"anchors":[{"scenario":"a","tflops":300}]})"));
  CHECK(rows.find("a") == 300.0);
  CHECK_FALSE(rows.find("b"));
  auto sdpa = AnchorTable::from_json(json::parse(R"([{"causal":false,"d":64,"s":512,"cudnn_tflops":306.0,"flash_tflops":231.0}])"),
                                     "s{s}_d{d}_causal{causal}");
  CHECK(sdpa.find("s512_d64_causalfalse") == 306.0);  // the best implementation of the row
  CHECK_THROWS_WITH(AnchorTable::from_json(json::parse(R"([{"d":64,"tflops":1}])"), "", "anchors.json"),
                    Q_CONTAINS("anchors.json: anchor row #0: no \"scenario\""));
  CHECK_THROWS_WITH(AnchorTable::from_json(json::parse(R"({"a":"fast"})")), Q_CONTAINS("anchor \"a\""));
  // The project's measured anchors load with a template.
  const auto shared = std::filesystem::path("/work/shared/anchors/sdpa_h200.json");
  if (std::filesystem::exists(shared)) {
    auto t = AnchorTable::load(shared, "b{b}_h{h}_s{s}_d{d}_causal{causal}");
    CHECK(t.tflops.size() == 36);
  }
}

// ---- correctness explained away ---------------------------------------------------------------

TEST_CASE("explained away: a failure rationalised, a tolerance change, or a silent stop", "[questions][detectors][explained]") {
  ExplainedAwayDetector d;
  CampaignState s;
  s.evaluations = {evaluation(0, {1.3, 1.3}), evaluation(1, {1.5, 1.5})};
  s.evaluations[1].report.scenarios[1].correct = false;
  s.evaluations[1].report.scenarios[1].max_abs_error = 0.031;

  auto rationalised = at_turn_end(d, s, "All good. The mismatch on s1 is just numerical noise from bf16.", unmet);
  REQUIRE(rationalised);
  CHECK(rationalised->trigger == Trigger::correctness_explained_away);
  CHECK(rationalised->priority == 50);
  CHECK(rationalised->details["kind"] == "rationalised");
  CHECK(rationalised->details["failed"] == json::array({"s1"}));
  CHECK(rationalised->details["prefer_tags"] == json::array({"tolerance"}));
  CHECK_THAT(rationalised->evidence, Q_CONTAINS("evaluation #1 failed 1 scenario(s): s1 (max_abs_error 0.031, tolerance 0.01)") &&
                                         Q_CONTAINS("\"numerical noise\""));

  auto flaky = at_turn_end(d, s, "That failure is flaky, it passed before.", unmet);
  REQUIRE(flaky);
  CHECK(flaky->details["prefer_tags"] == json::array({"flaky"}));
  auto edge = at_turn_end(d, s, "s1 is an edge case nobody hits.", unmet);
  REQUIRE(edge);
  CHECK(edge->details["prefer_tags"] == json::array({"edge-case"}));

  auto moved = at_turn_end(d, s, "I will relax the tolerance to 5e-2 so that s1 passes.", unmet);
  REQUIRE(moved);
  CHECK(moved->details["kind"] == "tolerance_change");

  auto silent = at_turn_end(d, s, "Finished the pipelining work.", unmet);
  REQUIRE(silent);
  CHECK(silent->details["kind"] == "stopped_with_failure");
  // Negated words are no rationalisation.
  auto honest = at_turn_end(d, s, "This error is not acceptable; the mask offset is wrong.", unmet);
  REQUIRE(honest);
  CHECK(honest->details["kind"] == "stopped_with_failure");

  ExplainedAwayConfig cfg;
  cfg.fire_on_silent_stop = false;
  ExplainedAwayDetector strict(cfg);
  CHECK_FALSE(at_turn_end(strict, s, "This error is not acceptable; the mask offset is wrong.", unmet));
  CHECK(at_turn_end(strict, s, "The difference is negligible.", unmet));
}

TEST_CASE("explained away: silent when the last evaluation is correct or did not build", "[questions][detectors][explained]") {
  ExplainedAwayDetector d;
  CampaignState s;
  s.evaluations = {evaluation(0, {1.3}, 0.005, -1, false), evaluation(1, {1.4})};  // fixed since
  CHECK_FALSE(at_turn_end(d, s, "The error was within tolerance, acceptable.", unmet));
  s.evaluations.push_back(evaluation(2, {1.4}, 0.005, -1, false));
  s.evaluations.back().report.built = false;
  CHECK_FALSE(at_turn_end(d, s, "The error is acceptable.", unmet));
  CHECK_FALSE(d.detect({Moment::after_evaluation, s, "acceptable", nullptr}));
  CHECK_FALSE(at_turn_end(d, CampaignState{}, "acceptable", unmet));  // nothing evaluated
}

TEST_CASE("explained away: scenarios lost to a crash count as failed", "[questions][detectors][explained]") {
  ExplainedAwayDetector d;
  CampaignState s;
  s.evaluations = {evaluation(0, {1.2, 1.2, 1.2})};
  s.evaluations[0].report.scenarios.resize(1);  // the runner died after s0
  s.evaluations[0].report.error = "runner killed by signal 11 in scenario s1";
  auto e = at_turn_end(d, s, "Probably a flaky driver.", unmet);
  REQUIRE(e);
  CHECK(e->details["failed"] == json::array({"s1", "s2"}));
  CHECK_THAT(e->evidence, Q_CONTAINS("s1 (missing)"));
}

TEST_CASE("default_detectors holds the five reference detectors", "[questions][detectors]") {
  auto all = default_detectors();
  std::set<std::string> names;
  for (const auto& d : all) names.insert(d->name());
  CHECK(names == std::set<std::string>{"start", "plateau", "claimed_limit", "suspicious_gain", "correctness_explained_away"});
}

// ---- trace replay -----------------------------------------------------------------------------

TEST_CASE("trace replay rebuilds the state and runs the detectors at each moment", "[questions][replay]") {
  auto line = [](long seq, const std::string& type, json body) {
    body["v"] = 1;
    body["seq"] = seq;
    body["type"] = type;
    body["elapsed_s"] = seq * 10.0;
    body["agent"] = "main";
    return body.dump();
  };
  auto eval_json = [](int i, double speedup, EvaluationOrigin origin = EvaluationOrigin::agent) {
    auto record = evaluation(i, {speedup});
    record.origin = origin;
    return json{{"record", record}};
  };
  std::string text;
  text += line(0, "campaign_started", {{"campaign_id", "c9"}, {"arch", "sm_90"}, {"has_reference", true}}) + "\n";
  text += line(1, "turn_started", {{"turn", 0}, {"message", "task"}}) + "\n";
  text += line(2, "evaluation", eval_json(0, 1.2)) + "\n";
  text += line(3, "evaluation", eval_json(1, 2.5)) + "\n";  // suspicious jump
  text += line(4, "turn_ended", {{"turn", 0}, {"result", {{"final_message", "This is optimal."}}}}) + "\n";
  text += line(5, "evaluation", eval_json(2, 4.0, EvaluationOrigin::stop_check)) + "\n";  // judged at its verdict
  text += line(6, "verdict", {{"turn", 0}, {"evaluation_index", 2}, {"verdict", Verdict::fail({})}}) + "\n";
  text += line(7, "question", {{"asked", AskedQuestion{Question{"limits.ten-percent", "limits", "Q?", "", Trigger::claimed_limit, "e"}, 0, 2, 70, {}}}}) + "\n";
  text += "\n" + line(8, "campaign_ended", {{"reason", "turn_budget"}}) + "\n";
  text += R"({"v":1,"seq":9,"type":"evalua)";  // killed mid-write
  auto path = qtest::write_file(qtest::temp_dir("replay") / "trace.jsonl", text);

  const TraceContents contents = read_trace(path);
  CHECK(contents.events.size() == 9);
  CHECK(contents.truncated_tail);
  CampaignState state;
  const auto fired = replay_trace(contents.events, path.string(), default_detectors(), &state);
  REQUIRE(fired.size() == 4);
  CHECK(fired[0].event.trigger == Trigger::start);
  CHECK(fired[0].seq == 0);
  CHECK(fired[0].chosen);
  CHECK(fired[1].event.trigger == Trigger::suspicious_gain);
  CHECK(fired[1].seq == 3);
  CHECK(fired[1].moment == Moment::after_evaluation);
  CHECK(fired[1].evaluation_index == 1);
  // At the unmet stop: turn_end first, then the stop check's own evaluation, as the campaign.
  CHECK(fired[2].event.trigger == Trigger::claimed_limit);
  CHECK(fired[2].moment == Moment::turn_end);
  CHECK(fired[2].seq == 6);
  CHECK(fired[2].message_seq == 4);
  CHECK(fired[2].event.priority == 30);
  CHECK_FALSE(fired[2].chosen);
  CHECK(fired[3].event.trigger == Trigger::suspicious_gain);  // 4.0 after 2.5
  CHECK(fired[3].moment == Moment::after_evaluation);
  CHECK(fired[3].seq == 6);
  CHECK(fired[3].evaluation_index == 2);
  CHECK(fired[3].message_seq == -1);
  CHECK(fired[3].chosen);
  CHECK(state.campaign_id == "c9");
  CHECK(state.arch == "sm_90");
  CHECK(state.has_reference);
  CHECK(state.evaluations.size() == 3);
  CHECK(state.asked.size() == 1);
  CHECK(state.last_agent_message == "This is optimal.");
  const json out = fired[2];
  CHECK(out["message_seq"] == 4);
  CHECK(out["moment"] == "turn_end");
  CHECK(out["trigger"] == "claimed_limit");
  CHECK(out["at"] == "verdict");

  auto bad_event = qtest::write_file(qtest::temp_dir("replay_bad_event") / "t.jsonl", line(0, "evaluation", json::object()) + "\n");
  CHECK_THROWS_WITH(replay_trace(read_trace(bad_event).events, bad_event.string(), default_detectors()),
                    Q_CONTAINS("t.jsonl: trace event seq 0") && Q_CONTAINS("missing field \"record\""));
  // A met verdict asks nothing: the detectors stay silent at that stop.
  std::string met = line(0, "turn_ended", {{"turn", 0}, {"result", {{"final_message", "It is optimal."}}}}) + "\n";
  met += line(1, "evaluation", eval_json(0, 2.0, EvaluationOrigin::stop_check)) + "\n";
  met += line(2, "verdict", {{"turn", 0}, {"evaluation_index", 0}, {"verdict", Verdict::pass()}}) + "\n";
  auto met_path = qtest::write_file(qtest::temp_dir("replay_met") / "t.jsonl", met);
  CHECK(replay_trace(read_trace(met_path).events, met_path.string(), default_detectors()).empty());
}
