#pragma once
/// @file
/// @brief Definitions for socratic/questions/detectors.hpp: included there in header-only builds,
/// and by socratic/src.hpp (compiled once) with SOCRATIC_SEPARATE_COMPILATION.

#include "socratic/questions/detectors.hpp"

namespace socratic::detail::detectors {

SOCRATIC_DECL std::string num(double v, int digits) {
  if (!std::isfinite(v)) return "n/a";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.*g", digits, v);
  return buf;
}

SOCRATIC_DECL std::string unmet_summary(const Verdict* verdict) {
  if (!verdict || verdict->unmet.empty()) return "the goal is not met";
  const auto& u = verdict->unmet.front();
  std::string s = (u.scenario.empty() ? std::string("(all)") : u.scenario) + ": " + u.condition +
                  " required " + u.required + ", measured " + u.measured;
  if (verdict->unmet.size() > 1) s += " (and " + std::to_string(verdict->unmet.size() - 1) + " more)";
  return s;
}

}  // namespace socratic::detail::detectors

namespace socratic {

SOCRATIC_DECL std::vector<std::shared_ptr<TriggerDetector>> default_detectors(std::optional<AnchorTable> anchors) {
  SuspiciousGainConfig gain;
  gain.anchors = std::move(anchors);
  return {std::make_shared<ExplainedAwayDetector>(), std::make_shared<SuspiciousGainDetector>(std::move(gain)),
          std::make_shared<ClaimedLimitDetector>(), std::make_shared<PlateauDetector>(),
          std::make_shared<StartDetector>()};
}

}  // namespace socratic
