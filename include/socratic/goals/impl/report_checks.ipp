#pragma once
/// @file
/// @brief Definitions for socratic/goals/detail/report_checks.hpp: included there in header-only builds,
/// and by socratic/src.hpp (compiled once) with SOCRATIC_SEPARATE_COMPILATION.

#include "socratic/goals/detail/report_checks.hpp"

namespace socratic::goals::detail {

SOCRATIC_DECL std::string format_number(double v, int precision) {
  if (std::isnan(v)) return "not measured";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", precision, v);
  return buf;
}

SOCRATIC_DECL std::vector<UnmetCondition> report_integrity(const EvalReport& r) {
  std::vector<UnmetCondition> out;
  if (!r.built) out.push_back({"", "built", "candidate compiles", "build failed"});
  if (!r.error.empty()) out.push_back({"", "harness", "no harness error", r.error});
  if (r.expected.empty()) out.push_back({"", "scenarios", "at least one scenario", "none expected"});
  for (const auto& id : r.missing()) out.push_back({id, "present", "a result", "missing"});
  return out;
}

}  // namespace socratic::goals::detail
