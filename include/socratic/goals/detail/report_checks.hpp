#pragma once
// Checks every reference predicate makes first: a report that was not built, that carries a
// harness error, that names no scenarios, or that lacks any expected scenario never passes.

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "socratic/core/report.hpp"
#include "socratic/core/verdict.hpp"
#include "socratic/core/detail/separate_compilation.hpp"

namespace socratic::goals::detail {

SOCRATIC_DECL std::string format_number(double v, int precision = 3);

/// Unmet conditions that make any verdict on this report meaningless.
SOCRATIC_DECL std::vector<UnmetCondition> report_integrity(const EvalReport& r);

}  // namespace socratic::goals::detail

#ifndef SOCRATIC_SEPARATE_COMPILATION
#include "socratic/goals/impl/report_checks.ipp"
#endif
