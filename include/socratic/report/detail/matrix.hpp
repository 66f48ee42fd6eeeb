#pragma once
/// @file
/// @brief The report's per-scenario part: a table of the best evaluation by scenario (the
/// scenario's parameters, times, noise, TFLOP/s, roofline fraction, the anchors when known), and
/// a scenario-by-evaluation matrix of speedups that stays readable from 4 to 400 evaluations.

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "socratic/core/scenario.hpp"
#include "socratic/questions/anchors.hpp"
#include "socratic/report/detail/report_model.hpp"
#include "socratic/report/detail/svg.hpp"

namespace socratic::detail::report {

/// The scenario ids of the campaign, in its order.
inline std::vector<std::string> scenario_ids(const ReportModel& m) {
  std::vector<std::string> ids = m.summary.started.is_object()
                                     ? m.summary.started.value("scenario_ids", std::vector<std::string>{})
                                     : std::vector<std::string>{};
  if (ids.empty())
    for (const auto& e : m.evaluations)
      if (!e.record->report.expected.empty()) {
        ids = e.record->report.expected;
        break;
      }
  return ids;
}

inline std::string param_text(const json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_boolean()) return v.get<bool>() ? "yes" : "no";
  return v.dump();
}

/// @brief The table of the best evaluation, scenario by scenario.
inline std::string scenario_table(const ReportModel& m, const std::vector<std::string>& ids,
                                  const std::optional<ScenarioSet>& set, const std::optional<AnchorTable>& anchors,
                                  const std::string& baseline) {
  const EvaluationRecord* best = m.summary.state.best();
  std::string h;
  if (!best) return "<p class=\"note\">No evaluation was correct on every scenario, so there is no best candidate to show.</p>\n";

  // Parameters: the ones that vary are columns, the others are said once.
  std::vector<std::string> varying;
  std::string constant;
  if (set) {
    std::map<std::string, std::set<std::string>> values;
    std::vector<std::string> order;
    for (const auto& s : set->scenarios)
      for (auto it = s.params.begin(); it != s.params.end(); ++it) {
        if (!values.count(it.key())) order.push_back(it.key());
        values[it.key()].insert(it->dump());
      }
    // Parameters equal in every scenario (seqlen_q and seqlen_kv of a square grid) share a column.
    std::map<std::string, std::string> column_of_signature;
    for (const auto& name : order) {
      if (values[name].size() <= 1) {
        if (!set->scenarios.empty())
          constant += (constant.empty() ? "" : ", ") + name + " " + param_text(set->scenarios.front().params[name]);
        continue;
      }
      std::string signature;
      for (const auto& sc : set->scenarios) signature += (sc.params.contains(name) ? sc.params[name].dump() : "-") + "|";
      if (auto it = column_of_signature.find(signature); it != column_of_signature.end()) {
        for (auto& v : varying)
          if (v == it->second) v += " = " + name;
        it->second += " = " + name;
        continue;
      }
      column_of_signature[signature] = name;
      varying.push_back(name);
    }
  }
  std::string anchor_note;
  std::vector<std::string> implementations;
  if (anchors) {
    if (!anchors->gpu.empty() && !best->report.gpu.empty() && anchors->gpu != best->report.gpu)
      anchor_note = "The anchors (" + anchors->source + ") were measured on " + anchors->gpu + ", this campaign ran on " +
                    best->report.gpu + ": not shown.";
    else
      implementations = anchors->implementations();
    if (implementations.empty() && anchor_note.empty() && !anchors->tflops.empty()) implementations.push_back("");
  }

  h += "<p class=\"note\">Evaluation " + std::to_string(best->index) + ", the best geomean (" + num(best->score()) +
       "x over " + escape(baseline) + ")" + (best->report.gpu.empty() ? "" : ", on " + escape(best->report.gpu)) + ". " +
       (constant.empty() ? "" : "All scenarios: " + escape(constant) + ". ") +
       "Times are medians of the timed samples; noise is their relative spread (candidate / baseline)." +
       (anchors && anchor_note.empty() ? " Anchors: the best known TFLOP/s (" + escape(anchors->source) + ")." : "") +
       (anchor_note.empty() ? "" : " " + escape(anchor_note)) + "</p>\n";
  // SOL-ExecBench's score where the problem gives T_SOL (socratic/suite/sol_score.hpp), or why not.
  const bool sol = std::any_of(best->report.scenarios.begin(), best->report.scenarios.end(),
                               [](const ScenarioResult& r) { return std::isfinite(r.sol_time_ms); });
  if (!best->report.sol_score_baseline.empty())
    h += "<p class=\"note\" id=\"sol-score\">SOL-ExecBench's score S = 1/(1 + (T - T<sub>SOL</sub>)/(T<sub>b</sub> - "
         "T<sub>SOL</sub>)), T<sub>b</sub> this report's baseline (" + escape(best->report.sol_score_baseline) + "): " +
         (!best->report.sol_score_absent.empty() ? "absent, " + escape(best->report.sol_score_absent)
          : std::isfinite(best->report.mean_sol_score()) ? "mean <b>" + num(best->report.mean_sol_score(), "%.3f") + "</b> over the workloads with a T<sub>SOL</sub>"
                                                         : std::string("no mean: a workload with a T<sub>SOL</sub> is not correct")) +
         ".</p>\n";
  h += "<div class=\"scroll\"><table class=\"grid\" id=\"scenario-table\"><tr><th>scenario</th>";
  for (const auto& p : varying) h += "<th class=\"param\">" + escape(p) + "</th>";
  h += "<th>" + escape(baseline) + " ms</th><th>candidate ms</th><th>speedup over " + escape(baseline) +
       "</th><th>noise (candidate / baseline)</th><th>TFLOP/s</th><th>of roofline</th>" +
       (sol ? std::string("<th>T<sub>SOL</sub> ms</th><th>SOL score S</th>") : std::string());
  for (const auto& impl : implementations) {
    const std::string name = impl.empty() ? std::string("best known") : anchors->label(impl);
    h += "<th class=\"anchor\">" + escape(name) + " TFLOP/s</th><th class=\"anchor\">vs " + escape(name) + "</th>";
  }
  h += "</tr>\n";
  for (const auto& id : ids) {
    const ScenarioResult* s = best->report.find(id);
    h += "<tr data-scenario=\"" + escape(id) + "\"><th>" + escape(id) + "</th>";
    const Scenario* sc = set ? set->find(id) : nullptr;
    for (const auto& column : varying) {
      const std::string p = column.substr(0, column.find(" = "));  // merged columns hold equal values
      h += "<td class=\"param\">" + (sc && sc->params.contains(p) ? escape(param_text(sc->params[p])) : std::string("-")) + "</td>";
    }
    if (!s) {
      h += "<td colspan=\"6\">not run</td></tr>\n";
      continue;
    }
    h += "<td>" + num(s->baseline_ms, "%.4g") + "</td><td>" + num(s->candidate_ms, "%.4g") +
         "</td><td class=\"speedup\" style=\"background:" + speedup_colour(s->speedup) + "\" data-speedup=\"" +
         num(s->speedup, "%.4f") + "\">" + num(s->speedup, "%.3f") + "x</td><td>\xc2\xb1" +
         num(s->candidate_noise * 100, "%.1f") + "% / \xc2\xb1" + num(s->baseline_noise * 100, "%.1f") + "%</td><td>" +
         num(s->tflops, "%.1f") + "</td><td>" + (std::isfinite(s->roofline_fraction) ? num(s->roofline_fraction * 100, "%.0f") + "%" : std::string("n/a")) +
         "</td>" +
         (sol ? "<td>" + (std::isfinite(s->sol_time_ms) ? num(s->sol_time_ms, "%.4g") : std::string("-")) +
                    "</td><td class=\"sol-score\">" + (std::isfinite(s->sol_score) ? num(s->sol_score, "%.3f") : std::string("-")) + "</td>"
              : std::string());
    for (const auto& impl : implementations) {
      std::optional<double> a;
      if (impl.empty()) a = anchors->find(id);
      else if (auto row = anchors->by_implementation.find(id); row != anchors->by_implementation.end())
        if (auto v = row->second.find(impl); v != row->second.end()) a = v->second;
      h += "<td class=\"anchor\">" + (a ? num(*a, "%.1f") : std::string("-")) + "</td><td class=\"anchor\"" +
           (a && std::isfinite(s->tflops) ? " data-anchor-ratio=\"" + num(s->tflops / *a, "%.4f") + "\">" + num(s->tflops / *a, "%.2f") + "x"
                                          : std::string(">-")) +
           "</td>";
    }
    h += "</tr>\n";
  }
  return h + "</table></div>\n";
}

/// @brief Speedup by scenario (rows) and evaluation (columns), coloured on a log scale around 1x.
inline std::string scenario_matrix(const ReportModel& m, const std::vector<std::string>& ids, const std::string& baseline) {
  const std::size_t n = m.evaluations.size();
  if (n == 0 || ids.empty()) return "<p class=\"note\">No evaluation yet.</p>\n";
  double label_w = 60;
  for (const auto& id : ids) label_w = std::max(label_w, text_width(id, 11) + 12);
  label_w = std::min(label_w, 240.0);
  const double max_w = 1000;
  const double cw = std::clamp((max_w - label_w - 20) / static_cast<double>(n), 1.5, 46.0);
  const double rh = ids.size() <= 48 ? 16 : std::max(5.0, 760.0 / static_cast<double>(ids.size()));
  const double top = 34, plot_w = cw * static_cast<double>(n), kw = std::min(320.0, std::max(200.0, plot_w));
  const std::string key_text = "speedup over " + baseline + " (log scale); dark red: incorrect; grey: not run";
  const double W = std::max(label_w + plot_w + 20, label_w + kw + 14 + text_width(key_text, 11) + 10);
  const double H = top + rh * static_cast<double>(ids.size()) + 58;
  const bool values_inside = cw >= 38 && rh >= 14, detailed = n <= 80;
  const EvaluationRecord* best = m.summary.state.best();

  double span = std::log(1.25);  // the colour scale saturates at the largest deviation seen, 1.25x..8x
  for (const auto& e : m.evaluations)
    for (const auto& s : e.record->report.scenarios)
      if (s.correct && std::isfinite(s.speedup) && s.speedup > 0) span = std::max(span, std::abs(std::log(s.speedup)));
  const double saturate = std::exp(std::min(span, std::log(8.0)));

  std::string h = "<div class=\"scroll\"><svg id=\"scenario-matrix\" class=\"matrix\" viewBox=\"0 0 " + px(W) + " " + px(H) +
                  "\" width=\"" + px(W) + "\" height=\"" + px(H) + "\" data-scenarios=\"" + std::to_string(ids.size()) +
                  "\" data-evaluations=\"" + std::to_string(n) + "\">\n";
  const double step = std::max(1.0, nice_step(static_cast<double>(n), std::max(2, static_cast<int>(plot_w / 40))));
  for (double v = 0; v < static_cast<double>(n); v += step) {
    const double x = label_w + (v + 0.5) * cw;
    h += "<text class=\"matrix-x\" x=\"" + px(x) + "\" y=\"" + px(top - 8) + "\" text-anchor=\"middle\">" + num(v, "%.0f") + "</text>\n";
  }
  h += "<text x=\"" + px(label_w) + "\" y=\"12\" class=\"axis-title\">evaluation</text>\n";
  for (std::size_t r = 0; r < ids.size(); ++r) {
    const double y = top + rh * static_cast<double>(r);
    h += "<g class=\"matrix-row\" data-scenario=\"" + escape(ids[r]) + "\">";
    if (rh >= 9)
      h += "<text x=\"" + px(label_w - 6) + "\" y=\"" + px(y + rh / 2 + 4) + "\" text-anchor=\"end\">" + escape(ids[r]) + "</text>";
    for (std::size_t c = 0; c < n; ++c) {
      const EvaluationRecord& ev = *m.evaluations[c].record;
      const ScenarioResult* s = ev.report.find(ids[r]);
      const double x = label_w + cw * static_cast<double>(c);
      std::string fill = "#d0d4da", cls = "cell cell-missing", value = "n/a", tip;
      if (s && s->correct && std::isfinite(s->speedup)) {
        fill = speedup_colour(s->speedup, saturate);
        cls = "cell";
        value = num(s->speedup, "%.4f");
        if (detailed)
          tip = escape(ids[r]) + ", evaluation " + std::to_string(ev.index) + ": " + num(s->speedup) + "x (" +
                num(s->candidate_ms, "%.4g") + " ms against " + num(s->baseline_ms, "%.4g") + " ms, \xc2\xb1" +
                num(s->candidate_noise * 100, "%.1f") + "%)";
      } else if (s) {
        fill = "#7a1f2b";
        cls = "cell cell-failed";
        if (detailed) tip = escape(ids[r]) + ", evaluation " + std::to_string(ev.index) + ": incorrect: " + escape(excerpt(s->reason, 160));
      } else if (detailed) {
        tip = escape(ids[r]) + ", evaluation " + std::to_string(ev.index) + ": not run (" + escape(m.evaluations[c].failure) + ")";
      }
      h += "<rect class=\"" + cls + "\"" + (detailed ? " data-scenario=\"" + escape(ids[r]) + "\"" : std::string()) +
           " data-evaluation=\"" + std::to_string(ev.index) + "\" data-speedup=\"" + value + "\" x=\"" + px(x) + "\" y=\"" +
           px(y) + "\" width=\"" + px(cw - (cw >= 4 ? 1 : 0)) + "\" height=\"" + px(rh - (rh >= 6 ? 1 : 0)) + "\" fill=\"" +
           fill + "\">" + (tip.empty() ? std::string() : "<title>" + tip + "</title>") + "</rect>";
      if (values_inside && value != "n/a")
        h += "<text class=\"cell-value\" x=\"" + px(x + cw / 2) + "\" y=\"" + px(y + rh / 2 + 3.5) +
             "\" text-anchor=\"middle\">" + num(s->speedup, "%.2f") + "</text>";
      else if (values_inside && s && !s->correct)
        h += "<text class=\"cell-value fail\" x=\"" + px(x + cw / 2) + "\" y=\"" + px(y + rh / 2 + 3.5) + "\" text-anchor=\"middle\">\xe2\x9c\x97</text>";
    }
    h += "</g>\n";
  }
  if (best)
    for (std::size_t c = 0; c < n; ++c)
      if (m.evaluations[c].record == best)
        h += "<rect class=\"best-column\" x=\"" + px(label_w + cw * static_cast<double>(c) - 0.5) + "\" y=\"" + px(top - 1) +
             "\" width=\"" + px(cw) + "\" height=\"" + px(rh * static_cast<double>(ids.size()) + 1) +
             "\" fill=\"none\" stroke=\"#1d2430\" stroke-width=\"1.5\"><title>evaluation " + std::to_string(best->index) +
             ": the best geomean</title></rect>\n";

  // The colour key, in the unit of the cells.
  const double ky = top + rh * static_cast<double>(ids.size()) + 16;
  h += "<g class=\"colour-key\">";
  for (int i = 0; i < 64; ++i) {
    const double t = -1 + 2 * (i + 0.5) / 64;
    h += "<rect x=\"" + px(label_w + kw * i / 64) + "\" y=\"" + px(ky) + "\" width=\"" + px(kw / 64 + 0.6) +
         "\" height=\"10\" fill=\"" + speedup_colour(std::pow(saturate, t), saturate) + "\"/>";
  }
  for (double v : {1 / saturate, 1.0, saturate}) {
    const double x = label_w + kw * (std::log(v) / std::log(saturate) + 1) / 2;
    const char* anchor = v < 1 ? "start" : v > 1 ? "end" : "middle";
    h += "<text x=\"" + px(x) + "\" y=\"" + px(ky + 23) + "\" text-anchor=\"" + anchor + "\">" + speedup_label(v) + "</text>";
  }
  h += "<text x=\"" + px(label_w + kw + 14) + "\" y=\"" + px(ky + 9) + "\">" + escape(key_text) + "</text></g>\n";
  return h + "</svg></div>\n";
}

}  // namespace socratic::detail::report
