#pragma once
// Checks every reference predicate makes first: a report that was not built, that carries a
// harness error, that names no scenarios, or that lacks any expected scenario never passes.

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "socratic/core/report.hpp"
#include "socratic/core/verdict.hpp"

namespace socratic::goals::detail {

inline std::string format_number(double v, int precision = 3) {
  if (std::isnan(v)) return "not measured";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", precision, v);
  return buf;
}

/// Unmet conditions that make any verdict on this report meaningless.
inline std::vector<UnmetCondition> report_integrity(const EvalReport& r) {
  std::vector<UnmetCondition> out;
  if (!r.built) out.push_back({"", "built", "candidate compiles", "build failed"});
  if (!r.error.empty()) out.push_back({"", "harness", "no harness error", r.error});
  if (r.expected.empty()) out.push_back({"", "scenarios", "at least one scenario", "none expected"});
  for (const auto& id : r.missing()) out.push_back({id, "present", "a result", "missing"});
  return out;
}

}  // namespace socratic::goals::detail
