#pragma once
/// @file
/// @brief Definitions for socratic/record/summary.hpp: included there in header-only builds,
/// and by socratic/src.hpp (compiled once) with SOCRATIC_SEPARATE_COMPILATION.

#include "socratic/record/summary.hpp"

namespace socratic {

SOCRATIC_DECL std::string compact_summary(const EvalReport& r) {
  auto num = [](double v, const char* fmt) {
    if (!std::isfinite(v)) return std::string("-");
    char buf[48];
    std::snprintf(buf, sizeof buf, fmt, v);
    return std::string(buf);
  };
  std::string out;
  if (r.fault != EvalFault::none)  // nothing was judged: no build, no scenario to list
    return "NOT JUDGED (" + std::string(to_string(r.fault)) + " fault, not the candidate's): " + r.error + "\n";
  if (!r.error.empty()) out += "HARNESS ERROR: " + r.error + "\n";
  if (!r.built) {
    out += "BUILD FAILED\n";
    const std::size_t keep = 4000;
    out += r.build_log.size() > keep ? r.build_log.substr(0, keep) + "\n[... build log cut ...]\n"
                                     : r.build_log + "\n";
    return out;
  }
  std::size_t correct = 0;
  for (const auto& s : r.scenarios) correct += s.correct ? 1 : 0;
  out += "correct " + std::to_string(correct) + "/" + std::to_string(r.expected.size()) +
         ", geomean speedup " + num(r.geomean_speedup(), "%.3f") + "\n";
  for (const auto& id : r.expected) {
    const ScenarioResult* s = r.find(id);
    if (!s) {
      out += id + ": MISSING\n";
      continue;
    }
    out += s->id + ": " + (s->correct ? "ok" : "FAIL") + " speedup " + num(s->speedup, "%.3f") +
           " cand " + num(s->candidate_ms, "%.4f") + " ms base " + num(s->baseline_ms, "%.4f") +
           " ms err " + num(s->max_abs_error, "%.2e") + "/" + num(s->tolerance, "%.2e");
    if (std::isfinite(s->tflops)) out += " " + num(s->tflops, "%.1f") + " TFLOP/s";
    if (!s->flags.empty()) {
      out += " [";
      for (std::size_t i = 0; i < s->flags.size(); ++i) out += (i ? "," : "") + s->flags[i];
      out += "]";
    }
    if (!s->correct && !s->reason.empty()) out += " -- " + s->reason;
    out += "\n";
  }
  for (const auto& f : r.banned) out += "BANNED " + f.library + " in " + f.file + ": " + f.evidence + "\n";
  return out;
}

}  // namespace socratic
