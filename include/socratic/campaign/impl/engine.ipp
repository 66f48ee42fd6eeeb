#pragma once
/// @file
/// @brief Definitions for socratic/campaign/engine.hpp: included there in header-only builds,
/// and by socratic/src.hpp (compiled once) with SOCRATIC_SEPARATE_COMPILATION.

#include "socratic/campaign/engine.hpp"

namespace socratic {

SOCRATIC_DECL bool is_evaluator_failure(const EvaluationRecord& r) {
  return r.report.fault != EvalFault::none ||
         (!r.report.built && r.report.error.rfind("evaluator failed: ", 0) == 0);
}

}  // namespace socratic
