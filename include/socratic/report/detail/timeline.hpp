#pragma once
/// @file
/// @brief The report's timeline: every evaluation's geomean speedup (with its noise) and its
/// lowest scenario, the best beyond noise as a step line, the goal and the baseline as lines,
/// questions as markers on their own rows of labels, stops (allowed, blocked) and failed
/// evaluations in lanes of their own. Readable from a handful of evaluations to hundreds; the
/// SVG scales with the page (viewBox, width 100%).

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "socratic/report/detail/report_model.hpp"
#include "socratic/report/detail/svg.hpp"

namespace socratic::detail::report {

/// @brief The value axis of the timeline: the scores, the lowest scenarios and the goal, padded;
/// from zero only when the values reach down to it; logarithmic when they span more than 3x.
inline Axis timeline_axis(const ReportModel& m, double pixel_lo, double pixel_hi) {
  std::vector<double> values;
  for (const auto& e : m.evaluations) {
    if (std::isfinite(e.score)) values.push_back(e.score);
    if (std::isfinite(e.worst)) values.push_back(e.worst);
  }
  Axis a;
  a.pixel_lo = pixel_lo;
  a.pixel_hi = pixel_hi;
  if (values.empty()) return a;  // nothing to plot: the caller says so
  for (const auto& g : {m.geomean_goal, m.scenario_goal})
    if (g) values.push_back(*g);
  double lo = *std::min_element(values.begin(), values.end());
  double hi = *std::max_element(values.begin(), values.end());
  if (1.0 >= lo / 1.6 && 1.0 <= hi * 1.6) lo = std::min(lo, 1.0), hi = std::max(hi, 1.0);  // the baseline, when near
  if (lo > 0 && hi / lo > 3) {
    a.log = true;
    a.lo = lo / 1.12;
    a.hi = hi * 1.12;
    return a;
  }
  const double span = std::max(hi - lo, 0.04 * std::max(std::abs(hi), 1e-9));
  a.lo = lo - 0.1 * span;
  a.hi = hi + 0.1 * span;
  if (a.lo < 0 && lo >= 0) a.lo = 0;
  return a;
}

inline std::string timeline_svg(const ReportModel& m, const std::string& baseline) {
  const double W = 1000, L = 74, R = 130, lane_h = 16;
  const std::size_t n = m.evaluations.size();
  auto x_at = [&](double position) { return L + (position + 0.5) / std::max<double>(1, static_cast<double>(n)) * (W - L - R); };

  // Question labels first: they decide how tall the top is.
  struct QLabel {
    double x, x0, w;
    std::string text;
  };
  std::vector<QLabel> labels;
  for (std::size_t qi = 0; qi < m.questions.size(); ++qi) {
    const double x = m.questions[qi].asked->after_evaluation < 0
                         ? L + 3
                         : std::min(x_at(m.questions[qi].asked->after_evaluation + 0.5), W - R - 3);
    const std::string text = "Q" + std::to_string(qi + 1);
    const double w = text_width(text, 11);
    labels.push_back({x, x - w / 2, w, text});
  }
  std::vector<double> x0s, ws;
  for (const auto& l : labels) x0s.push_back(l.x0), ws.push_back(l.w);
  const std::vector<int> rows = place_labels(x0s, ws, 3, 4);
  int rows_used = 0;
  for (int r : rows) rows_used = std::max(rows_used, r + 1);
  const double T = 12 + rows_used * 14 + 6, PH = 250;
  const double stops_y = T + PH + 8, failed_y = stops_y + lane_h, axis_y = failed_y + lane_h + 4;
  const double H = axis_y + 36;
  const Axis y = timeline_axis(m, T + PH, T);
  bool any_score = false;
  for (const auto& e : m.evaluations) any_score = any_score || std::isfinite(e.score);

  std::string h = "<svg id=\"timeline\" class=\"plot\" viewBox=\"0 0 " + px(W) + " " + px(H) +
                  "\" width=\"100%\" preserveAspectRatio=\"xMinYMin meet\" role=\"img\" aria-label=\"speedup over "
                  "evaluations\" data-evaluations=\"" + std::to_string(n) + "\" data-scale=\"" +
                  (y.log ? "log" : "linear") + "\" data-y-min=\"" + (any_score ? num(y.lo, "%.4f") : "") +
                  "\" data-y-max=\"" + (any_score ? num(y.hi, "%.4f") : "") + "\">\n";
  h += "<rect x=\"" + px(L) + "\" y=\"" + px(T) + "\" width=\"" + px(W - L - R) + "\" height=\"" + px(PH) +
       "\" fill=\"#fbfcfe\" stroke=\"#d5dae3\"/>\n";

  // Axes: y ticks and grid, x ticks.
  if (any_score) {
    for (double v : y.ticks(8)) {
      const double yy = y.at(v);
      if (yy < T - 0.5 || yy > T + PH + 0.5) continue;
      h += "<g class=\"y-tick\" data-value=\"" + num(v, "%.4g") + "\"><line x1=\"" + px(L) + "\" x2=\"" + px(W - R) +
           "\" y1=\"" + px(yy) + "\" y2=\"" + px(yy) + "\" stroke=\"#e6e9f0\"/><text x=\"" + px(L - 6) + "\" y=\"" +
           px(yy + 4) + "\" text-anchor=\"end\">" + speedup_label(v) + "</text></g>\n";
    }
    h += "<text class=\"axis-title\" transform=\"translate(16 " + px(T + PH / 2) +
         ") rotate(-90)\" text-anchor=\"middle\">speedup over " + escape(baseline) + "</text>\n";
  } else {
    h += "<text class=\"no-scores\" x=\"" + px((L + W - R) / 2) + "\" y=\"" + px(T + PH / 2) +
         "\" text-anchor=\"middle\">No evaluation was correct on every scenario: there is no speedup to plot. "
         "The failed evaluations are marked below.</text>\n";
  }
  const double step = nice_step(std::max<double>(1, static_cast<double>(n) - 1), 12);
  for (double v = 0; n > 0 && v <= static_cast<double>(n - 1) + 1e-9; v += std::max(1.0, step)) {
    const double xx = x_at(v);
    h += "<g class=\"x-tick\" data-value=\"" + num(v, "%.0f") + "\"><line x1=\"" + px(xx) + "\" x2=\"" + px(xx) +
         "\" y1=\"" + px(T + PH) + "\" y2=\"" + px(axis_y) + "\" stroke=\"#c9ced8\"/><text x=\"" + px(xx) + "\" y=\"" +
         px(axis_y + 13) + "\" text-anchor=\"middle\">" + num(v, "%.0f") + "</text></g>\n";
  }
  h += "<text class=\"axis-title\" x=\"" + px((L + W - R) / 2) + "\" y=\"" + px(H - 4) +
       "\" text-anchor=\"middle\">evaluation (in the order they ran)</text>\n";
  h += "<text class=\"lane\" x=\"" + px(L - 6) + "\" y=\"" + px(stops_y + 11) + "\" text-anchor=\"end\">stops</text>"
       "<text class=\"lane\" x=\"" + px(L - 6) + "\" y=\"" + px(failed_y + 11) + "\" text-anchor=\"end\">failed</text>\n";

  // Reference lines: the baseline and the goal, labelled at the right end. Lines at nearly the
  // same height (the default goal sits just above the baseline) keep their labels a line apart.
  struct reference_line {
    double yy;
    std::string cls, colour, label, attrs;
  };
  std::vector<reference_line> references;
  auto hline = [&](double v, const std::string& cls, const std::string& colour, const std::string& label,
                   const std::string& attrs) {
    if (!any_score || !y.contains(v)) return;
    references.push_back({y.at(v), cls, colour, label, attrs});
  };
  hline(1.0, "baseline-line", "#8894aa", "baseline 1x", "");
  if (m.geomean_goal)
    hline(*m.geomean_goal, "goal-line", "#1a7f37", "goal: geomean " + speedup_label(*m.geomean_goal),
          "data-goal=\"" + num(*m.geomean_goal, "%.4g") + "\" data-of=\"geomean\"");
  if (m.scenario_goal && (!m.geomean_goal || std::abs(*m.scenario_goal - *m.geomean_goal) > 1e-9))
    hline(*m.scenario_goal, "goal-line", "#1a7f37", "goal: each " + speedup_label(*m.scenario_goal),
          "data-goal=\"" + num(*m.scenario_goal, "%.4g") + "\" data-of=\"every_scenario\"");
  std::sort(references.begin(), references.end(), [](const auto& a, const auto& b) { return a.yy < b.yy; });
  constexpr double label_gap = 12;  // one line of the 11 px labels
  double last_label_y = -1e9;
  for (const auto& r : references) {
    const double label_y = std::max(r.yy + 4, last_label_y + label_gap);
    last_label_y = label_y;
    h += "<g class=\"" + r.cls + "\" " + r.attrs + "><line x1=\"" + px(L) + "\" x2=\"" + px(W - R) + "\" y1=\"" +
         px(r.yy) + "\" y2=\"" + px(r.yy) + "\" stroke=\"" + r.colour +
         "\" stroke-width=\"1.5\" stroke-dasharray=\"6 4\"/><text x=\"" + px(W - R + 6) + "\" y=\"" + px(label_y) +
         "\" fill=\"" + r.colour + "\">" + escape(r.label) + "</text></g>\n";
  }

  // Questions: a marker line at the moment, its label on the first free row above the plot.
  for (std::size_t qi = 0; qi < m.questions.size(); ++qi) {
    const auto& q = *m.questions[qi].asked;
    const std::string trig(to_string(q.question.trigger));
    const auto& l = labels[qi];
    h += "<g class=\"question-marker\" data-question-id=\"" + escape(q.question.id) + "\" data-trigger=\"" + trig +
         "\"><title>" + escape(l.text + " (" + trig + ", after evaluation " + std::to_string(q.after_evaluation) +
                               "): " + q.question.text) +
         "</title><line x1=\"" + px(l.x) + "\" x2=\"" + px(l.x) + "\" y1=\"" + px(T) + "\" y2=\"" + px(T + PH) +
         "\" stroke=\"#d08a00\" stroke-width=\"1.2\" stroke-dasharray=\"3 3\" opacity=\"0.8\"/>";
    if (rows[qi] >= 0) {
      const double ly = 12 + rows[qi] * 14 + 10;
      h += "<text class=\"question-label\" x=\"" + px(l.x) + "\" y=\"" + px(ly) + "\" text-anchor=\"middle\" data-x0=\"" +
           px(l.x0) + "\" data-x1=\"" + px(l.x0 + l.w) + "\" data-row=\"" + std::to_string(rows[qi]) + "\">" + l.text +
           "</text>";
    }
    h += "</g>\n";
  }

  // Stops and failed evaluations, in their lanes.
  std::vector<int> position_of;  // evaluation index -> position
  for (std::size_t i = 0; i < n; ++i) {
    const int idx = m.evaluations[i].record->index;
    if (idx >= 0) {
      if (position_of.size() <= static_cast<std::size_t>(idx)) position_of.resize(static_cast<std::size_t>(idx) + 1, -1);
      position_of[static_cast<std::size_t>(idx)] = static_cast<int>(i);
    }
  }
  for (const auto& s : m.stops) {
    if (s.evaluation_index < 0 || static_cast<std::size_t>(s.evaluation_index) >= position_of.size() ||
        position_of[static_cast<std::size_t>(s.evaluation_index)] < 0)
      continue;
    const double xx = x_at(position_of[static_cast<std::size_t>(s.evaluation_index)]);
    const double cy = stops_y + lane_h / 2;
    if (s.allowed)
      h += "<path class=\"stop-allowed\" data-evaluation=\"" + std::to_string(s.evaluation_index) + "\" d=\"M" +
           px(xx) + " " + px(cy - 5) + " L" + px(xx + 5) + " " + px(cy) + " L" + px(xx) + " " + px(cy + 5) + " L" +
           px(xx - 5) + " " + px(cy) + " Z\" fill=\"#1a7f37\"><title>stop at evaluation " +
           std::to_string(s.evaluation_index) + ": allowed (" + escape(s.kind_name()) + ")</title></path>\n";
    else
      h += "<rect class=\"stop-blocked\" data-evaluation=\"" + std::to_string(s.evaluation_index) + "\" x=\"" +
           px(xx - 1.5) + "\" y=\"" + px(cy - 5) + "\" width=\"3\" height=\"10\" fill=\"#8c959f\"><title>stop at "
           "evaluation " + std::to_string(s.evaluation_index) + ": sent back (" + escape(s.kind_name()) + ")</title></rect>\n";
  }
  const double r = n <= 60 ? 4.5 : n <= 150 ? 3 : 2;
  for (std::size_t i = 0; i < n; ++i) {
    const auto& e = m.evaluations[i];
    if (std::isfinite(e.score)) continue;
    const double xx = x_at(static_cast<double>(i)), cy = failed_y + lane_h / 2, d = std::max(2.5, r);
    h += "<path class=\"evaluation-failed\" data-index=\"" + std::to_string(e.record->index) + "\" data-speedup=\"n/a\" d=\"M" +
         px(xx - d) + " " + px(cy - d) + " L" + px(xx + d) + " " + px(cy + d) + " M" + px(xx - d) + " " + px(cy + d) +
         " L" + px(xx + d) + " " + px(cy - d) + "\" stroke=\"#c62828\" stroke-width=\"1.8\"><title>evaluation " +
         std::to_string(e.record->index) + ": " + escape(e.failure) + "</title></path>\n";
  }
  if (!any_score) return h + "</svg>\n";

  // The lowest scenario of each evaluation, then the noise, the best beyond noise, the points.
  std::string worst_path;
  for (std::size_t i = 0; i < n; ++i) {
    const auto& e = m.evaluations[i];
    if (!std::isfinite(e.worst)) continue;
    worst_path += (worst_path.empty() ? "M" : " L") + px(x_at(static_cast<double>(i))) + " " + px(y.at(std::clamp(e.worst, y.lo, y.hi)));
  }
  if (!worst_path.empty())
    h += "<path class=\"worst-line\" d=\"" + worst_path + "\" fill=\"none\" stroke=\"#a371f7\" stroke-width=\"" +
         std::string(n <= 100 ? "1.2" : "0.8") + "\" stroke-dasharray=\"2 2\" opacity=\"" + (n <= 100 ? "1" : "0.6") + "\"/>\n";
  std::string best;
  for (std::size_t i = 0; i < n; ++i) {
    const double v = m.evaluations[i].incumbent;
    if (!std::isfinite(v)) continue;
    const std::string xx = px(x_at(static_cast<double>(i))), yy = px(y.at(v));
    best += best.empty() ? "M" + xx + " " + yy : " H" + xx + " V" + yy;
  }
  if (!best.empty())
    h += "<path id=\"best-line\" d=\"" + best + " H" + px(W - R) + "\" fill=\"none\" stroke=\"#1f6feb\" stroke-width=\"2\"/>\n";
  for (std::size_t i = 0; i < n; ++i) {
    const auto& e = m.evaluations[i];
    if (!std::isfinite(e.score)) continue;
    const double xx = x_at(static_cast<double>(i)), yy = y.at(e.score);
    if (n <= 80 && std::isfinite(e.noise) && e.noise > 0)
      h += "<line class=\"noise-bar\" x1=\"" + px(xx) + "\" x2=\"" + px(xx) + "\" y1=\"" +
           px(y.at(std::clamp(e.score * (1 - e.noise), y.lo, y.hi))) + "\" y2=\"" +
           px(y.at(std::clamp(e.score * (1 + e.noise), y.lo, y.hi))) + "\" stroke=\"#1f6feb\" stroke-width=\"1\" opacity=\"0.55\"/>";
    if (std::isfinite(e.worst) && n <= 150)
      h += "<rect class=\"worst-point\" x=\"" + px(xx - 2) + "\" y=\"" + px(y.at(std::clamp(e.worst, y.lo, y.hi)) - 2) +
           "\" width=\"4\" height=\"4\" fill=\"#a371f7\"/>";
    h += "<circle class=\"evaluation-point" + std::string(e.new_best ? " new-best" : "") + "\" data-index=\"" +
         std::to_string(e.record->index) + "\" data-speedup=\"" + num(e.score, "%.4f") + "\" data-correct=\"true\" cx=\"" +
         px(xx) + "\" cy=\"" + px(yy) + "\" r=\"" + px(e.new_best ? r + 1 : r) + "\" fill=\"" +
         (e.new_best ? "#1f6feb" : "#8fb3f5") + "\" stroke=\"#ffffff\" stroke-width=\"" + (n <= 150 ? "1" : "0") +
         "\"><title>evaluation " + std::to_string(e.record->index) + " (" + std::string(to_string(e.record->origin)) + ", turn " +
         std::to_string(e.record->turn) + "): geomean " + num(e.score) + "x \xc2\xb1" + num(e.noise * 100, "%.1f") +
         "%, lowest scenario " + num(e.worst) + "x" + (e.new_best ? "; a new best beyond the noise" : "") +
         "</title></circle>\n";
  }
  return h + "</svg>\n";
}

}  // namespace socratic::detail::report
