#pragma once
/// @file
/// @brief An EvalReport as text: a fixed-width table for terminals (every scenario, then the
/// geomean, banned findings, build status and timings) and a compact form for a model's context.
/// Light: the core types and the standard library.

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "socratic/core/report.hpp"
#include "socratic/eval/stats.hpp"

namespace socratic {

namespace detail {

inline std::string fmt(const char* format, double x) {
  if (std::isnan(x)) return "-";
  char buf[64];
  std::snprintf(buf, sizeof buf, format, x);
  return buf;
}

/// Pads or cuts `s` to `width` columns (left aligned; right aligned when `right`).
inline std::string cell(std::string s, std::size_t width, bool right = false) {
  if (s.size() > width) s = width > 1 ? s.substr(0, width - 1) + "~" : s.substr(0, width);
  const std::string pad(width - s.size(), ' ');
  return right ? pad + s : s + pad;
}

inline std::string percent(double fraction) {
  return std::isnan(fraction) ? "-" : fmt("%.1f%%", fraction * 100);
}

inline std::string join_flags(const std::vector<std::string>& flags) {
  std::string out;
  for (const auto& f : flags) out += (out.empty() ? "" : ",") + f;
  return out;
}

/// First `max_lines` lines of `text` that look like diagnostics (errors first), for summaries.
inline std::string log_excerpt(const std::string& text, std::size_t max_lines) {
  std::vector<std::string> lines, errors;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(start, end - start);
    if (!line.empty()) {
      lines.push_back(line);
      if (line.find("error") != std::string::npos) errors.push_back(line);
    }
    start = end + 1;
  }
  const auto& chosen = errors.empty() ? lines : errors;
  std::string out;
  for (std::size_t i = 0; i < chosen.size() && i < max_lines; ++i) out += chosen[i] + "\n";
  if (chosen.size() > max_lines)
    out += "(" + std::to_string(chosen.size() - max_lines) + " more lines)\n";
  return out;
}

inline std::string status_of(const ScenarioResult* r) {
  if (!r) return "MISSING";
  return r->correct ? "PASS" : "FAIL";
}

inline double geomean_tflops(const EvalReport& report) {
  std::vector<double> values;
  for (const auto& s : report.scenarios)
    if (s.correct) values.push_back(s.tflops);
  return stats::geomean_of_finite(values);
}

inline std::string summary_line(const EvalReport& report) {
  std::size_t correct = 0;
  for (const auto& id : report.expected)
    if (const auto* r = report.find(id); r && r->correct) ++correct;
  std::string out = std::to_string(correct) + "/" + std::to_string(report.expected.size()) + " correct";
  const double g = report.geomean_speedup();
  out += "; geomean speedup " + (std::isnan(g) ? std::string("n/a (a scenario has no speedup)") : fmt("%.3fx", g));
  const double t = geomean_tflops(report);
  if (!std::isnan(t)) out += "; geomean TFLOP/s of correct scenarios " + fmt("%.1f", t);
  return out;
}

inline bool has_sol_times(const EvalReport& report) {
  return std::any_of(report.scenarios.begin(), report.scenarios.end(), [](const auto& s) { return std::isfinite(s.sol_time_ms); });
}

/// SOL-ExecBench's score: its mean over the workloads with a T_SOL and what T_b is, or why it is
/// absent; empty for a problem of another origin.
inline std::string sol_score_line(const EvalReport& report) {
  if (report.sol_score_baseline.empty()) return {};
  if (!report.sol_score_absent.empty()) return "SOL score: absent (" + report.sol_score_absent + ")";
  int with_time = 0;
  for (const auto& id : report.expected)
    if (const auto* r = report.find(id); r && std::isfinite(r->sol_time_ms)) ++with_time;
  const double m = report.mean_sol_score();
  return "SOL score S = 1/(1 + (T - T_SOL)/(T_b - T_SOL)), T_b = this report's baseline (" + report.sol_score_baseline +
         "): mean " + (std::isnan(m) ? std::string("n/a (a workload with a T_SOL is not correct or not timed)") : fmt("%.3f", m)) +
         " over " + std::to_string(with_time) + " of " + std::to_string(report.expected.size()) + " workloads with a T_SOL";
}

inline std::string build_line(const EvalReport& report) {
  if (report.built)
    return std::string("build: ok") + (report.timings.build_cached ? " (cached)" : "") + ", " +
           fmt("%.2f", report.timings.build_s) + " s";
  return "build: FAILED";
}

}  // namespace detail

/// @brief The report as a fixed-width table: one row per expected scenario (status, max error
/// over tolerance, candidate and baseline ms, speedup, TFLOP/s, fraction of the roofline bound,
/// noise, flags; a failure's reason on the line below), then the geomean, banned findings, the
/// build and the harness error.
inline std::string format_report_table(const EvalReport& report) {
  using detail::cell;
  using detail::fmt;
  std::string out;
  out += "problem " + (report.problem.empty() ? std::string("-") : report.problem);
  if (!report.scenario_set.empty()) out += " | scenarios " + report.scenario_set;
  if (!report.candidate.source.empty()) out += " | candidate " + report.candidate.source.string();
  if (!report.gpu.empty() || !report.arch.empty())
    out += " | " + report.gpu + (report.gpu.empty() || report.arch.empty() ? "" : " ") + report.arch;
  out += "\n" + detail::build_line(report) + "\n";
  if (!report.built && !report.build_log.empty()) out += detail::log_excerpt(report.build_log, 20);

  if (!report.expected.empty() && report.scenarios.empty()) {
    // Nothing was judged (build failure, integrity, no GPU): one line, not N empty rows.
    out += "no scenario was judged (" + std::to_string(report.expected.size()) + " expected)\n";
  } else if (!report.expected.empty()) {
    const bool sol = detail::has_sol_times(report);  // the S column, where the problem gives T_SOL
    out += cell("#", 4, true) + "  " + cell("scenario", 22) + " " + cell("status", 7) + " " +
           cell("max err / tol", 19, true) + " " + cell("cand ms", 10, true) + " " +
           cell("base ms", 10, true) + " " + cell("speedup", 8, true) + " " + cell("TFLOP/s", 8, true) +
           " " + cell("roofline", 8, true) + (sol ? " " + cell("S", 6, true) : std::string()) + " " +
           cell("noise c/b", 13, true) + "  flags\n";
    for (std::size_t i = 0; i < report.expected.size(); ++i) {
      const ScenarioResult* r = report.find(report.expected[i]);
      std::string row = cell(std::to_string(i + 1), 4, true) + "  " + cell(report.expected[i], 22) + " " +
                        cell(detail::status_of(r), 7);
      if (r) {
        const std::string err = fmt("%.2e", r->max_abs_error) + "/" + fmt("%.2e", r->tolerance);
        const std::string noise = detail::percent(r->candidate_noise) + "/" + detail::percent(r->baseline_noise);
        row += " " + cell(err, 19, true) + " " + cell(fmt("%.4f", r->candidate_ms), 10, true) + " " +
               cell(fmt("%.4f", r->baseline_ms), 10, true) + " " +
               cell(std::isnan(r->speedup) ? "-" : fmt("%.3fx", r->speedup), 8, true) + " " +
               cell(fmt("%.1f", r->tflops), 8, true) + " " + cell(detail::percent(r->roofline_fraction), 8, true) +
               (sol ? " " + cell(std::isnan(r->sol_score) ? "-" : fmt("%.3f", r->sol_score), 6, true) : std::string()) +
               " " + cell(noise, 13, true) + "  " + detail::join_flags(r->flags);
      }
      while (!row.empty() && row.back() == ' ') row.pop_back();
      out += row + "\n";
      if (!r) out += "      reason: no result for this scenario\n";
      else if (!r->correct) out += "      reason: " + (r->reason.empty() ? std::string("(none given)") : r->reason) + "\n";
    }
    out += detail::summary_line(report) + "\n";
    if (const std::string sol_line = detail::sol_score_line(report); !sol_line.empty()) out += sol_line + "\n";
  }
  for (const auto& b : report.banned)
    out += "banned: " + b.library + " in " + (b.file.empty() ? std::string("?") : b.file) + ": " + b.evidence + "\n";
  for (const auto& a : report.allowed_libraries)
    out += "allowed: " + a.library + " in " + (a.file.empty() ? std::string("?") : a.file) + ": " + a.evidence + "\n";
  if (!report.library_policy.empty()) out += "libraries: " + report.library_policy + "\n";
  if (!report.error.empty()) out += "error: " + report.error + "\n";
  const auto& t = report.timings;
  out += "time: build " + fmt("%.2f", t.build_s) + " s, check " + fmt("%.2f", t.check_s) + " s, timing " +
         fmt("%.2f", t.timing_s) + " s, total " + fmt("%.2f", t.total_s) + " s\n";
  return out;
}

/// @brief A short form for a model's context: one summary line, then one line per scenario
/// (failures first with their reasons), banned findings, the build's errors, the harness error.
inline std::string format_report_compact(const EvalReport& report, std::size_t max_log_lines = 15) {
  using detail::fmt;
  std::string out;
  if (!report.built) {
    out += "BUILD FAILED:\n" + detail::log_excerpt(report.build_log, max_log_lines);
    if (!report.error.empty()) out += "error: " + report.error + "\n";
    return out;
  }
  out += (report.all_correct() && report.banned.empty() ? "ALL CORRECT" : "NOT ACCEPTED") + std::string("; ") +
         detail::summary_line(report) + "\n";
  if (const std::string sol_line = detail::sol_score_line(report); !sol_line.empty()) out += sol_line + "\n";
  // Failures first, since they are what needs attention; scenarios failing for the same reason
  // share one line (a runner that could not start fails them all alike).
  std::vector<std::pair<std::string, std::vector<std::string>>> failures;  // reason -> ids
  for (const auto& id : report.expected) {
    const ScenarioResult* r = report.find(id);
    if (r && r->correct) continue;
    const std::string reason = r ? "FAIL " + r->reason : std::string("MISSING (no result)");
    auto it = std::find_if(failures.begin(), failures.end(), [&](const auto& f) { return f.first == reason; });
    if (it == failures.end()) failures.push_back({reason, {id}});
    else it->second.push_back(id);
  }
  for (const auto& [reason, ids] : failures) {
    std::string names;
    for (std::size_t i = 0; i < ids.size() && i < 4; ++i) names += (i ? ", " : "") + ids[i];
    if (ids.size() > 4) names += " and " + std::to_string(ids.size() - 4) + " more";
    out += names + ": " + reason + "\n";
  }
  for (const auto& id : report.expected) {
    const ScenarioResult* r = report.find(id);
    if (!r || !r->correct) continue;
    out += id + ": ok " + (std::isnan(r->speedup) ? std::string("-") : fmt("%.3fx", r->speedup)) + " (" +
           fmt("%.4g", r->candidate_ms) + " vs " + fmt("%.4g", r->baseline_ms) + " ms";
    if (!std::isnan(r->tflops)) out += ", " + fmt("%.1f", r->tflops) + " TFLOP/s";
    if (!std::isnan(r->roofline_fraction)) out += ", " + detail::percent(r->roofline_fraction) + " of roofline";
    out += ")";
    if (!r->flags.empty()) out += " [" + detail::join_flags(r->flags) + "]";
    out += "\n";
  }
  for (const auto& b : report.banned) out += "BANNED " + b.library + ": " + b.evidence + "\n";
  if (!report.allowed_libraries.empty()) {  // one line: which allowed libraries the candidate uses
    std::vector<std::string> used;
    for (const auto& a : report.allowed_libraries)
      if (std::find(used.begin(), used.end(), a.library) == used.end()) used.push_back(a.library);
    out += "uses allowed libraries:";
    for (const auto& u : used) out += " " + u;
    out += "\n";
  }
  if (!report.error.empty()) out += "error: " + report.error + "\n";
  return out;
}

}  // namespace socratic
