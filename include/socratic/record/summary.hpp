#pragma once
/// @file
/// @brief A compact, model-friendly summary of an EvalReport: one line per scenario.

#include <cmath>
#include <cstdio>
#include <string>

#include "socratic/core/report.hpp"
#include "socratic/core/detail/separate_compilation.hpp"

namespace socratic {

/// @brief One line per scenario (status, speedup, times, error vs tolerance, flags) plus a
/// header with the geomean. Short enough to hand to a model after every evaluation.
SOCRATIC_DECL std::string compact_summary(const EvalReport& r);

}  // namespace socratic

#ifndef SOCRATIC_SEPARATE_COMPILATION
#include "socratic/record/impl/summary.ipp"
#endif
