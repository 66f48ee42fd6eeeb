// One scenario's outcome as the runner builds it, written exactly as
// socratic::to_json(ScenarioResult) writes it (include/socratic/core/report.hpp), which the
// runner cannot include (C++20, the runner is C++17). tests/gpu/test_runner_logic.cpp checks
// that both write the same members.
#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "stats.hpp"

namespace socratic::harness {

struct RunnerResult {
  std::string id;
  /// Wall seconds of the correctness checks and of the timed phase (scenario_end's optional
  /// `check_s` / `timing_s`, so the host can split an evaluation's time).
  double check_s = not_measured;
  double timing_s = not_measured;
  bool correct = true;  ///< until a check fails
  std::string reason;
  double max_abs_error = not_measured;
  double rel_l2_error = not_measured;
  double baseline_max_abs_error = not_measured;
  double tolerance = not_measured;
  double candidate_ms = not_measured;
  double baseline_ms = not_measured;
  double candidate_noise = not_measured;
  double baseline_noise = not_measured;
  int samples = 0;
  double speedup = not_measured;
  double tflops = not_measured;
  double roofline_ms = not_measured;
  double roofline_fraction = not_measured;
  double sm_clock_mhz = not_measured;
  std::vector<std::string> flags;

  bool has_flag(const std::string& f) const {
    return std::find(flags.begin(), flags.end(), f) != flags.end();
  }
  /// Adds an observation that qualifies the numbers (does not fail the scenario by itself).
  void flag(const std::string& f) {
    if (!f.empty() && !has_flag(f)) flags.push_back(f);
  }
  /// Fails the scenario: flag (may be empty) plus "label: message" appended to the reason.
  /// A flag already raised is not described twice.
  void fail(const std::string& f, const std::string& label, const std::string& message) {
    correct = false;
    if (!f.empty() && has_flag(f)) return;
    flag(f);
    if (!reason.empty()) reason += "; ";
    reason += label + ": " + message;
  }

  nlohmann::json to_json() const {
    // Same members, same order as socratic::to_json(ScenarioResult). NaN is written as null.
    return nlohmann::json{{"id", id},
                          {"correct", correct},
                          {"reason", reason},
                          {"max_abs_error", max_abs_error},
                          {"rel_l2_error", rel_l2_error},
                          {"baseline_max_abs_error", baseline_max_abs_error},
                          {"tolerance", tolerance},
                          {"candidate_ms", candidate_ms},
                          {"baseline_ms", baseline_ms},
                          {"candidate_noise", candidate_noise},
                          {"baseline_noise", baseline_noise},
                          {"samples", samples},
                          {"speedup", speedup},
                          {"tflops", tflops},
                          {"roofline_ms", roofline_ms},
                          {"roofline_fraction", roofline_fraction},
                          {"sm_clock_mhz", sm_clock_mhz},
                          {"flags", flags}};
  }
};

}  // namespace socratic::harness
