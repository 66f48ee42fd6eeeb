#pragma once
/// @file
/// @brief The suite report: one row per problem (the baseline, the best candidate, the speedup
/// per scenario and its geomean, the roofline fraction when known, the suite's own score when
/// the problem defines one, else "absent"), fast_p over the suite at p = 1.0, 1.5 and 2.0, which
/// questions preceded each admitted gain (the store's origin of the admitted record, and the
/// questions the traces' credit rule gives that gain, per agent), the planner's moves, and a link
/// to each problem's own report. As JSON (suite_report_json), Markdown (suite_report_markdown)
/// and one self-contained HTML file (suite_report_html: inline CSS and SVG, the data inline as
/// JSON, nothing fetched; the campaign report's style). Bounded at any number of problems: each
/// row is one line whatever its scenarios (a strip of coloured cells in HTML, at most 8 values
/// in Markdown), and the plots keep their size.

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "socratic/core/json.hpp"
#include "socratic/questions/credit.hpp"
#include "socratic/report/detail/svg.hpp"
#include "socratic/suite_campaign/standing.hpp"

namespace socratic {

/// @brief One scenario of a problem's best candidate, against the problem's baseline.
struct SuiteScenarioCell {
  std::string id;
  bool correct = false;
  double baseline_ms = std::nan("");
  double candidate_ms = std::nan("");
  double speedup = std::nan("");
  double roofline_fraction = std::nan("");
  double sol_score = std::nan("");  ///< SOL-ExecBench's S of this workload, where the problem gives T_SOL
};

/// @brief An admitted gain and the questions before it.
struct SuiteGain {
  std::string record;  ///< the store's record id
  std::string agent;
  std::string origin;       ///< its origin kind (`start`, `question`, `draft`, ...)
  std::string question_id;  ///< the question its agent had when it made it (the store's origin)
  std::vector<std::string> credited;  ///< questions the credit rule gives this gain (its agent's)
};

/// @brief One problem's row.
struct SuiteRow {
  std::string problem;
  std::string link;    ///< its own report, relative to the suite report (empty: none)
  std::string status;  ///< `goal met`, its campaign's ending, or `open`
  bool goal_met = false;
  std::string incumbent, incumbent_agent;  ///< empty: nothing admitted
  bool judged = false;  ///< the best candidate has a report against the baseline
  bool all_correct = false;
  std::vector<SuiteScenarioCell> scenarios;
  double geomean = std::nan("");           ///< of the best candidate, every scenario correct; NaN otherwise
  double roofline_fraction = std::nan("");  ///< geomean over the scenarios where known
  std::optional<double> score;              ///< the suite's own score; absent when not defined
  /// Where `score` comes from: `sol_execbench` (the mean S of the best candidate's report, over
  /// its workloads with a T_SOL), `suite file` (the problem's `score` in the suite file), or
  /// `absent` with the reason.
  std::string score_source = "absent";
  int records = 0;
  std::map<std::string, int> records_by_agent;
  std::vector<SuiteGain> gains;
  double distance = std::nan("");
};

/// @brief What the report shows.
struct SuiteReportModel {
  std::string title = "Socratic suite";
  std::string end_reason, end_detail;  ///< empty: the suite has not ended
  /// not ended, its last run paused: `waiting_for_agent (DETAIL)`, who waits for what (empty: no pause)
  std::string paused;
  int rounds = 0;
  std::vector<SuiteRow> rows;
  std::vector<json> moves;  ///< the suite trace's `agent_moved` events
  std::map<std::string, double> fast_p;  ///< "1.0", "1.5", "2.0" -> fraction of problems
};

/// @brief fast_p: the fraction of `rows` whose best candidate is correct on every scenario with a
/// geomean speedup above `p` (KernelBench's measure over a suite).
inline double suite_fast_p(const std::vector<SuiteRow>& rows, double p) {
  if (rows.empty()) return std::nan("");
  int n = 0;
  for (const auto& r : rows) n += (r.all_correct && std::isfinite(r.geomean) && r.geomean > p) ? 1 : 0;
  return static_cast<double>(n) / static_cast<double>(rows.size());
}

/// @brief A problem's row from its standing. `score`: the suite's own score when defined.
inline SuiteRow suite_row(const ProblemStanding& s, const std::string& link = {}, std::optional<double> score = {},
                          const CreditRule& rule = {}) {
  SuiteRow r;
  r.problem = s.name;
  r.link = link;
  r.goal_met = s.goal_met;
  r.status = s.goal_met ? "goal met" : s.finished && s.end_reason ? std::string(to_string(*s.end_reason)) : "open";
  r.records = s.records;
  r.records_by_agent = s.records_by_agent;
  r.distance = s.distance;
  r.score = score;
  if (score) r.score_source = "suite file";
  if (s.incumbent) r.incumbent = s.incumbent->id, r.incumbent_agent = s.incumbent->agent;
  if (s.incumbent_check) {
    const EvalReport& rep = s.incumbent_check->report;
    r.judged = true;
    r.all_correct = rep.all_correct() && rep.banned.empty();
    if (r.all_correct) r.geomean = rep.geomean_speedup();
    double log_sum = 0;
    int known = 0;
    for (const auto& sc : rep.scenarios) {
      r.scenarios.push_back(
          {sc.id, sc.correct, sc.baseline_ms, sc.candidate_ms, sc.speedup, sc.roofline_fraction, sc.sol_score});
      if (std::isfinite(sc.roofline_fraction) && sc.roofline_fraction > 0) log_sum += std::log(sc.roofline_fraction), ++known;
    }
    if (known > 0) r.roofline_fraction = std::exp(log_sum / known);
    // SOL-ExecBench's score, computed from the judged times where the problem gives T_SOL: it
    // takes the place of a number copied into the suite file.
    const double sol = rep.mean_sol_score();
    if (std::isfinite(sol)) r.score = sol, r.score_source = "sol_execbench";
    else if (!score && !rep.sol_score_absent.empty()) r.score_source = "absent: " + rep.sol_score_absent;
    else if (!score && !rep.sol_score_baseline.empty()) r.score_source = "absent: a workload with a T_SOL is not correct";
  }
  // The credit rule over the trace: which evaluation each credited question's gain was.
  std::map<int, std::vector<std::string>> credited_by;
  for (const auto& c : credit_questions(s.state, rule))
    if (c.credited) credited_by[c.credited_by].push_back(c.question_id);
  for (const auto& a : s.admitted) {
    SuiteGain g;
    g.record = a.id;
    g.agent = a.agent;
    g.origin = std::string(to_string(a.origin));
    g.question_id = a.question_id;
    for (const auto& e : s.state.evaluations)
      if (e.candidate_hash == a.hash && e.agent_id == a.agent)
        if (auto it = credited_by.find(e.index); it != credited_by.end())
          for (const auto& q : it->second)
            if (std::find(g.credited.begin(), g.credited.end(), q) == g.credited.end()) g.credited.push_back(q);
    r.gains.push_back(std::move(g));
  }
  return r;
}

/// @brief Fills fast_p from the rows.
inline void complete_suite_model(SuiteReportModel& m) {
  m.fast_p = {{"1.0", suite_fast_p(m.rows, 1.0)}, {"1.5", suite_fast_p(m.rows, 1.5)}, {"2.0", suite_fast_p(m.rows, 2.0)}};
}

namespace detail::suite_report {

inline json number_or_null(double v) { return std::isfinite(v) ? json(v) : json(nullptr); }

inline std::string times(double v) { return std::isfinite(v) ? socratic::detail::report::num(v, "%.3f") + "x" : "n/a"; }

inline std::string percent(double v) {
  return std::isfinite(v) ? socratic::detail::report::num(v * 100, "%.1f") + " %" : "n/a";
}

}  // namespace detail::suite_report

/// @brief The report as JSON.
inline json suite_report_json(const SuiteReportModel& m) {
  using detail::suite_report::number_or_null;
  json j;
  j["schema_version"] = 1;
  j["title"] = m.title;
  j["end_reason"] = m.end_reason;
  j["end_detail"] = m.end_detail;
  j["paused"] = m.paused;
  j["rounds"] = m.rounds;
  j["fast_p"] = json::object();
  for (const auto& [p, v] : m.fast_p) j["fast_p"][p] = number_or_null(v);
  j["problems"] = json::array();
  for (const auto& r : m.rows) {
    json row{{"problem", r.problem}, {"report", r.link}, {"status", r.status}, {"goal_met", r.goal_met},
             {"best", r.incumbent.empty() ? json(nullptr) : json(r.incumbent)}, {"best_agent", r.incumbent_agent},
             {"judged", r.judged}, {"all_correct", r.all_correct}, {"geomean_speedup", number_or_null(r.geomean)},
             {"roofline_fraction", number_or_null(r.roofline_fraction)},
             {"score", r.score ? json(*r.score) : json("absent")}, {"score_source", r.score_source}, {"records", r.records},
             {"records_by_agent", r.records_by_agent}, {"distance", number_or_null(r.distance)}};
    row["scenarios"] = json::array();
    for (const auto& s : r.scenarios)
      row["scenarios"].push_back({{"id", s.id}, {"correct", s.correct}, {"baseline_ms", number_or_null(s.baseline_ms)},
                                  {"candidate_ms", number_or_null(s.candidate_ms)}, {"speedup", number_or_null(s.speedup)},
                                  {"roofline_fraction", number_or_null(s.roofline_fraction)},
                                  {"sol_score", number_or_null(s.sol_score)}});
    row["gains"] = json::array();
    for (const auto& g : r.gains)
      row["gains"].push_back({{"record", g.record}, {"agent", g.agent}, {"origin", g.origin}, {"question", g.question_id},
                              {"credited_questions", g.credited}});
    j["problems"].push_back(std::move(row));
  }
  j["moves"] = m.moves;
  return j;
}

/// @brief The report as Markdown: a summary, one table row per problem, the gains and the moves.
inline std::string suite_report_markdown(const SuiteReportModel& m) {
  using namespace detail::suite_report;
  auto cell = [](std::string s) {
    for (std::size_t i = 0; (i = s.find('|', i)) != std::string::npos; i += 2) s.replace(i, 1, "\\|");
    for (auto& c : s)
      if (c == '\n') c = ' ';
    return s;
  };
  std::string md = "# " + m.title + "\n\n";
  int met = 0;
  for (const auto& r : m.rows) met += r.goal_met ? 1 : 0;
  md += "- problems: " + std::to_string(m.rows.size()) + ", goal met on " + std::to_string(met) + "\n";
  md += "- ended: " + (m.end_reason.empty() ? std::string(m.paused.empty() ? "not yet" : "not yet, paused: " + m.paused) : m.end_reason + (m.end_detail.empty() ? "" : " (" + m.end_detail + ")")) +
        " after " + std::to_string(m.rounds) + " rounds\n";
  md += "- fast_p: ";
  for (const auto& [p, v] : m.fast_p) md += "p=" + p + " " + percent(v) + (p == "2.0" ? "" : ", ");
  md += "\n\n| problem | status | best | baseline ms | speedup per scenario | geomean | roofline | score | report |\n"
        "|---|---|---|---|---|---|---|---|---|\n";
  for (const auto& r : m.rows) {
    std::string base, speed;
    for (std::size_t i = 0; i < r.scenarios.size() && i < 8; ++i) {
      const auto& s = r.scenarios[i];
      base += (i ? ", " : "") + s.id + " " + socratic::detail::report::num(s.baseline_ms, "%.4g");
      speed += (i ? ", " : "") + s.id + " " + (s.correct ? times(s.speedup) : std::string("incorrect"));
    }
    if (r.scenarios.size() > 8) {
      const std::string more = ", +" + std::to_string(r.scenarios.size() - 8) + " more";
      base += more;
      speed += more;
    }
    md += "| " + cell(r.problem) + " | " + cell(r.status) + " | " +
          (r.incumbent.empty() ? std::string("none") : cell(r.incumbent + " by " + r.incumbent_agent)) + " | " +
          cell(r.judged ? base : "not judged") + " | " + cell(r.judged ? speed : "not judged") + " | " + times(r.geomean) +
          " | " + percent(r.roofline_fraction) + " | " +
          (r.score ? socratic::detail::report::num(*r.score, "%.4g") : std::string("absent")) + " | " +
          (r.link.empty() ? std::string("none") : "[report](" + r.link + ")") + " |\n";
  }
  md += "\n## Questions before each admitted gain\n\n| problem | record | agent | origin | question | credited (trace rule) |\n"
        "|---|---|---|---|---|---|\n";
  for (const auto& r : m.rows)
    for (const auto& g : r.gains) {
      std::string credited;
      for (const auto& q : g.credited) credited += (credited.empty() ? "" : ", ") + q;
      md += "| " + cell(r.problem) + " | " + g.record + " | " + cell(g.agent) + " | " + g.origin + " | " +
            cell(g.question_id.empty() ? "none" : g.question_id) + " | " + cell(credited.empty() ? "none" : credited) + " |\n";
    }
  md += "\n## Moves\n\n| round | agent | from | to | reason |\n|---|---|---|---|---|\n";
  for (const auto& e : m.moves)
    md += "| " + std::to_string(e.value("round", 0)) + " | " + cell(e.value("agent", "")) + " | " + cell(e.value("from", "")) +
          " | " + cell(e.value("to", "")) + " | " + cell(e.value("reason", "")) + " |\n";
  return md;
}

namespace detail::suite_report {

using socratic::detail::report::Axis;
using socratic::detail::report::escape;
using socratic::detail::report::num;
using socratic::detail::report::px;
using socratic::detail::report::speedup_colour;
using socratic::detail::report::speedup_label;

/// Each problem's geomean speedup, sorted, as bars on a log axis around 1x; problems without a
/// correct best as grey marks below the axis. 900 px wide whatever the number of problems.
inline std::string geomean_plot(const std::vector<SuiteRow>& rows) {
  std::vector<const SuiteRow*> sorted;
  for (const auto& r : rows) sorted.push_back(&r);
  std::stable_sort(sorted.begin(), sorted.end(), [](const SuiteRow* a, const SuiteRow* b) {
    const double x = std::isfinite(a->geomean) ? a->geomean : -1, y = std::isfinite(b->geomean) ? b->geomean : -1;
    return x > y;
  });
  double lo = 1, hi = 1;
  for (const auto* r : sorted)
    if (std::isfinite(r->geomean) && r->geomean > 0) lo = std::min(lo, r->geomean), hi = std::max(hi, r->geomean);
  lo = std::max(lo / 1.15, 1e-3);
  hi *= 1.15;
  const double W = 900, H = 260, left = 56, right = 12, top = 12, bottom = 40;
  Axis y{lo, hi, true, H - bottom, top};
  const double slot = (W - left - right) / std::max<std::size_t>(sorted.size(), 1);
  std::string s = "<svg class=\"plot\" id=\"geomean-plot\" viewBox=\"0 0 " + px(W) + " " + px(H) +
                  "\" width=\"" + px(W) + "\" height=\"" + px(H) + "\" role=\"img\" aria-label=\"geomean speedup per problem\">";
  for (double t : y.ticks())
    s += "<line x1=\"" + px(left) + "\" x2=\"" + px(W - right) + "\" y1=\"" + px(y.at(t)) + "\" y2=\"" + px(y.at(t)) +
         "\" stroke=\"#eef0f4\"/><text x=\"" + px(left - 4) + "\" y=\"" + px(y.at(t) + 4) + "\" text-anchor=\"end\">" +
         speedup_label(t) + "</text>";
  s += "<line x1=\"" + px(left) + "\" x2=\"" + px(W - right) + "\" y1=\"" + px(y.at(1)) + "\" y2=\"" + px(y.at(1)) +
       "\" stroke=\"#1d2430\" stroke-dasharray=\"4 3\"/>";
  for (std::size_t i = 0; i < sorted.size(); ++i) {
    const SuiteRow& r = *sorted[i];
    const double x = left + i * slot, w = std::max(slot * 0.8, 0.6);
    if (std::isfinite(r.geomean) && r.geomean > 0) {
      const double y0 = y.at(1), y1 = y.at(r.geomean);
      s += "<rect class=\"bar\" data-problem=\"" + escape(r.problem) + "\" data-geomean=\"" + num(r.geomean, "%.4g") +
           "\" x=\"" + px(x) + "\" y=\"" + px(std::min(y0, y1)) + "\" width=\"" + px(w) + "\" height=\"" +
           px(std::max(std::abs(y1 - y0), 1.0)) + "\" fill=\"" + speedup_colour(r.geomean) +
           "\" stroke=\"#8c959f\" stroke-width=\"0.3\"><title>" + escape(r.problem) + ": " + times(r.geomean) +
           "</title></rect>";
    } else {
      s += "<rect class=\"bar none\" data-problem=\"" + escape(r.problem) + "\" x=\"" + px(x) + "\" y=\"" + px(H - bottom + 4) +
           "\" width=\"" + px(w) + "\" height=\"6\" fill=\"#9aa0a6\"><title>" + escape(r.problem) +
           ": no correct candidate judged against the baseline</title></rect>";
    }
  }
  s += "<text class=\"axis-title\" x=\"" + px(left) + "\" y=\"" + px(H - 8) + "\">" + std::to_string(rows.size()) +
       " problems, by geomean speedup over their baselines (grey below the axis: no correct candidate)</text></svg>";
  return s;
}

/// fast_p as p goes from 0.5 to 4: the fraction of problems correct and faster than p.
inline std::string fast_p_plot(const std::vector<SuiteRow>& rows) {
  const double W = 900, H = 200, left = 56, right = 12, top = 12, bottom = 36;
  Axis x{0.5, 4, true, left, W - right};
  Axis y{0, 1, false, H - bottom, top};
  std::string s = "<svg class=\"plot\" id=\"fast-p-plot\" viewBox=\"0 0 " + px(W) + " " + px(H) + "\" width=\"" + px(W) +
                  "\" height=\"" + px(H) + "\" role=\"img\" aria-label=\"fast_p over p\">";
  for (double t : y.ticks(5))
    s += "<line x1=\"" + px(left) + "\" x2=\"" + px(W - right) + "\" y1=\"" + px(y.at(t)) + "\" y2=\"" + px(y.at(t)) +
         "\" stroke=\"#eef0f4\"/><text x=\"" + px(left - 4) + "\" y=\"" + px(y.at(t) + 4) + "\" text-anchor=\"end\">" +
         num(t * 100, "%.0f") + "%</text>";
  for (double t : x.ticks())
    s += "<text x=\"" + px(x.at(t)) + "\" y=\"" + px(H - bottom + 14) + "\" text-anchor=\"middle\">" + speedup_label(t) + "</text>";
  std::string path;
  for (int i = 0; i <= 120; ++i) {
    const double p = 0.5 * std::pow(8.0, i / 120.0);
    const double f = suite_fast_p(rows, p);
    path += (i ? " L" : "M") + px(x.at(p)) + " " + px(y.at(std::isfinite(f) ? f : 0));
  }
  s += "<path d=\"" + path + "\" fill=\"none\" stroke=\"#1f6feb\" stroke-width=\"2\"/>";
  for (double p : {1.0, 1.5, 2.0}) {
    const double f = suite_fast_p(rows, p);
    s += "<circle class=\"fast-p\" data-p=\"" + num(p, "%.1f") + "\" data-fraction=\"" + num(f, "%.4f") + "\" cx=\"" +
         px(x.at(p)) + "\" cy=\"" + px(y.at(std::isfinite(f) ? f : 0)) + "\" r=\"4\" fill=\"#1f6feb\"><title>fast_" +
         num(p, "%.1f") + " = " + percent(f) + "</title></circle>";
  }
  s += "<text class=\"axis-title\" x=\"" + px(left) + "\" y=\"" + px(H - 4) +
       "\">fast_p: the fraction of problems correct with a geomean speedup above p</text></svg>";
  return s;
}

/// A row's scenarios as a strip of coloured cells (at most 64 drawn; the rest counted).
inline std::string scenario_strip(const SuiteRow& r) {
  if (!r.judged) return "<span class=\"why\">not judged</span>";
  const std::size_t n = std::min<std::size_t>(r.scenarios.size(), 64);
  const double cell = n > 16 ? 6 : 14;
  std::string s = "<svg class=\"strip\" width=\"" + px(cell * n + 1) + "\" height=\"14\" viewBox=\"0 0 " + px(cell * n + 1) +
                  " 14\">";
  for (std::size_t i = 0; i < n; ++i) {
    const auto& c = r.scenarios[i];
    s += "<rect x=\"" + px(i * cell) + "\" y=\"0\" width=\"" + px(cell - 1) + "\" height=\"14\" fill=\"" +
         (c.correct ? speedup_colour(c.speedup) : std::string("#8b1a1a")) + "\"><title>" + escape(c.id) + ": " +
         (c.correct ? times(c.speedup) + " (" + num(c.baseline_ms, "%.4g") + " ms &#8594; " + num(c.candidate_ms, "%.4g") + " ms" +
                          (std::isfinite(c.sol_score) ? ", S " + num(c.sol_score, "%.3f") : std::string()) + ")"
                    : std::string("incorrect")) +
         "</title></rect>";
  }
  s += "</svg>";
  if (r.scenarios.size() > n) s += " <span class=\"why\">+" + std::to_string(r.scenarios.size() - n) + "</span>";
  if (r.scenarios.size() <= 4) {
    s += " <span class=\"vals\">";
    for (std::size_t i = 0; i < r.scenarios.size(); ++i)
      s += (i ? " " : "") + escape(r.scenarios[i].id) + " " + (r.scenarios[i].correct ? times(r.scenarios[i].speedup) : "&#10007;");
    s += "</span>";
  }
  return s;
}

}  // namespace detail::suite_report

/// @brief The report as one self-contained HTML file.
inline std::string suite_report_html(const SuiteReportModel& m) {
  using namespace detail::suite_report;
  int met = 0;
  for (const auto& r : m.rows) met += r.goal_met ? 1 : 0;
  std::string h = "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
                  "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
                  "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\n"
                  "<title>" + escape(m.title) + "</title>\n<style>\n"
                  "body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;margin:24px auto;padding:0 24px;max-width:1400px;"
                  "color:#1d2430;background:#fff;line-height:1.4}"
                  "h1{font-size:22px;margin:0 0 6px}h2{font-size:17px;margin:30px 0 8px}"
                  ".note{color:#445;margin:3px 0;font-size:14px}.outcome{font-size:15px;margin:8px 0}"
                  ".met{color:#1a7f37;font-weight:600}.unmet{color:#b42318}"
                  "table.grid{border-collapse:collapse;font-size:12.5px;font-variant-numeric:tabular-nums}"
                  "table.grid td,table.grid th{border:1px solid #d5dae3;padding:2px 6px;text-align:right;vertical-align:middle;white-space:nowrap}"
                  "table.grid th{background:#f3f5f9;white-space:normal;vertical-align:bottom}"
                  "table.grid td.text,table.grid th.text{text-align:left}table.grid td.wrap{white-space:normal;text-align:left}"
                  ".scroll{overflow-x:auto}.tall{max-height:70vh;overflow-y:auto}svg text{font-size:11px;fill:#333}"
                  "svg .axis-title{font-size:12px;fill:#555}svg.plot{display:block;max-width:100%;height:auto}"
                  "svg.strip{vertical-align:middle}.why{color:#6e7781;font-size:12px}.vals{font-size:11.5px;color:#445}"
                  "</style></head><body>\n";
  h += "<h1>" + escape(m.title) + "</h1>\n";
  h += "<p class=\"outcome\" id=\"outcome\">" + std::to_string(m.rows.size()) + " problems, goal met on <span class=\"" +
       (met == static_cast<int>(m.rows.size()) ? "met" : "unmet") + "\">" + std::to_string(met) + "</span>; " +
       (m.end_reason.empty() ? std::string("the suite has not ended") + (m.paused.empty() ? "" : ", paused: " + escape(m.paused))
                             : "ended: " + escape(m.end_reason) + (m.end_detail.empty() ? "" : " (" + escape(m.end_detail) + ")")) +
       " after " + std::to_string(m.rounds) + " rounds.</p>\n<p class=\"note\" id=\"fast-p\">fast_p (correct and a geomean "
       "speedup above p): ";
  for (const auto& [p, v] : m.fast_p) h += "p = " + escape(p) + ": <b>" + percent(v) + "</b>" + (p == "2.0" ? "" : ", ");
  h += "</p>\n<h2>Geomean speedup per problem</h2>\n" + geomean_plot(m.rows) + "\n<h2>fast_p over p</h2>\n" + fast_p_plot(m.rows);
  h += "\n<h2>Problems</h2>\n<p class=\"note\">One row per problem: its best candidate (the store's incumbent) judged "
       "against the problem's own baseline; each cell of the strip a scenario (green faster, red slower, dark red "
       "incorrect; hover for the times). The score is the suite's own where the problem defines one: "
       "SOL-ExecBench's S = 1/(1 + (T - T_SOL)/(T_b - T_SOL)) averaged over the workloads that give T_SOL, from the "
       "judged times with T_b the problem's baseline here, else the suite file's <code>score</code>; hover for its "
       "source.</p>\n"
       "<div class=\"scroll tall\"><table class=\"grid\" id=\"problems\"><tr><th class=\"text\">problem</th><th>status</th>"
       "<th class=\"text\">best</th><th>baseline ms (sum)</th><th>best ms (sum)</th><th class=\"text\">speedup per scenario</th>"
       "<th>geomean</th><th>roofline</th><th>score</th><th>proposals</th><th class=\"text\">report</th></tr>\n";
  for (const auto& r : m.rows) {
    double base = 0, best = 0;
    for (const auto& s : r.scenarios) base += s.baseline_ms, best += s.candidate_ms;
    h += "<tr class=\"problem-row\" data-problem=\"" + escape(r.problem) + "\" data-goal-met=\"" + (r.goal_met ? "true" : "false") +
         "\" data-geomean=\"" + num(r.geomean, "%.4g") + "\"><td class=\"text\">" + escape(r.problem) + "</td><td class=\"" +
         (r.goal_met ? "met" : "unmet") + "\">" + escape(r.status) + "</td><td class=\"text\">" +
         (r.incumbent.empty() ? std::string("none") : escape(r.incumbent) + " <span class=\"why\">by " + escape(r.incumbent_agent) + "</span>") +
         "</td><td>" + (r.judged ? num(base, "%.4g") : "n/a") + "</td><td>" + (r.judged ? num(best, "%.4g") : "n/a") +
         "</td><td class=\"text\">" + scenario_strip(r) + "</td><td>" + times(r.geomean) + "</td><td>" + percent(r.roofline_fraction) +
         "</td><td class=\"score\" title=\"" + escape(r.score_source) + "\">" +
         (r.score ? num(*r.score, "%.4g") : std::string("absent")) + "</td><td>" + std::to_string(r.records) +
         "</td><td class=\"text\">" + (r.link.empty() ? std::string("none") : "<a href=\"" + escape(r.link) + "\">report</a>") +
         "</td></tr>\n";
  }
  h += "</table></div>\n<h2>Questions before each admitted gain</h2>\n<p class=\"note\">For every admitted candidate: the "
       "question its agent had been asked when it made it (the store's origin), and the questions the traces' credit rule "
       "gives its gain (asked of the same agent since its previous gain, within three of its evaluations; "
       "docs/question-bank.md).</p>\n<div class=\"scroll tall\"><table class=\"grid\" id=\"gains\"><tr><th class=\"text\">problem</th>"
       "<th class=\"text\">record</th><th class=\"text\">agent</th><th class=\"text\">origin</th><th class=\"text\">question</th>"
       "<th class=\"text\">credited by the trace</th></tr>\n";
  for (const auto& r : m.rows)
    for (const auto& g : r.gains) {
      std::string credited;
      for (const auto& q : g.credited) credited += (credited.empty() ? "" : ", ") + escape(q);
      h += "<tr class=\"gain\" data-problem=\"" + escape(r.problem) + "\" data-agent=\"" + escape(g.agent) + "\"><td class=\"text\">" +
           escape(r.problem) + "</td><td class=\"text\">" + escape(g.record) + "</td><td class=\"text\">" + escape(g.agent) +
           "</td><td class=\"text\">" + escape(g.origin) + "</td><td class=\"text\">" +
           (g.question_id.empty() ? std::string("none") : escape(g.question_id)) + "</td><td class=\"text\">" +
           (credited.empty() ? std::string("none") : credited) + "</td></tr>\n";
    }
  h += "</table></div>\n<h2>The planner's moves</h2>\n<div class=\"scroll tall\"><table class=\"grid\" id=\"moves\"><tr><th>round</th>"
       "<th class=\"text\">agent</th><th class=\"text\">from</th><th class=\"text\">to</th><th class=\"text\">why</th></tr>\n";
  for (const auto& e : m.moves)
    h += "<tr class=\"move\"><td>" + std::to_string(e.value("round", 0)) + "</td><td class=\"text\">" + escape(e.value("agent", "")) +
         "</td><td class=\"text\">" + escape(e.value("from", "")) + "</td><td class=\"text\">" + escape(e.value("to", "")) +
         "</td><td class=\"wrap\">" + escape(e.value("reason", "")) + "</td></tr>\n";
  h += "</table></div>\n";
  std::string payload = suite_report_json(m).dump(-1, ' ', false, json::error_handler_t::replace);
  for (std::size_t i = 0; (i = payload.find("</", i)) != std::string::npos; i += 3) payload.replace(i, 2, "<\\/");
  h += "<script type=\"application/json\" id=\"socratic-data\">" + payload + "</script>\n</body></html>\n";
  return h;
}

}  // namespace socratic
