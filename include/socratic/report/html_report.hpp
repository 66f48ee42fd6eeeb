#pragma once
/// @file
/// @brief A campaign report as one self-contained HTML file (inline SVG, inline CSS, the data
/// inline as JSON; nothing fetched): best speedup over evaluations with each question marked on
/// the timeline with its trigger, a per-scenario heatmap of the best and the last candidate, the
/// questions and what followed them, and the budgets spent. Drawn from a campaign trace.

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "socratic/campaign/trace.hpp"
#include "socratic/campaign/trace_state.hpp"
#include "socratic/core/files.hpp"
#include "socratic/core/json.hpp"

namespace socratic {

/// @brief Options of the HTML report.
struct HtmlReportOptions {
  std::string title;  ///< default: "Socratic campaign <id>"
  /// Lines shown under the title (e.g. the demo's "live" and "replayed" parts).
  std::vector<std::string> notes;
  /// A question "preceded a gain" when the best score improves within this many evaluations.
  int gain_window = 3;
};

namespace detail {

inline std::string html_escape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

inline std::string fmt(double v, const char* f = "%.3f") {
  if (!std::isfinite(v)) return "n/a";
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

/// Colour of a speedup on a log scale: red below 1, white at 1, green above (saturates at 4x).
inline std::string speedup_colour(double s, bool correct) {
  if (!correct) return "#7a1f2b";
  if (!std::isfinite(s) || s <= 0) return "#999999";
  const double t = std::clamp(std::log2(s) / 2.0, -1.0, 1.0);
  int r = 255, g = 255, b = 255;
  if (t < 0) {
    g = static_cast<int>(255 * (1 + t * 0.75));
    b = g;
  } else {
    r = static_cast<int>(255 * (1 - t * 0.8));
    b = r;
  }
  char buf[16];
  std::snprintf(buf, sizeof buf, "#%02x%02x%02x", r, g, b);
  return buf;
}

inline std::string excerpt(const std::string& s, std::size_t n = 240) {
  return s.size() <= n ? s : s.substr(0, n) + "...";
}

}  // namespace detail

/// @brief The report's HTML for these trace events (as read by read_trace).
inline std::string html_report(const std::vector<json>& events, const HtmlReportOptions& options = {}) {
  using detail::fmt;
  using detail::html_escape;
  const TraceSummary summary = summarize_trace(events);
  const CampaignState& st = summary.state;
  const json started = summary.started.is_object() ? summary.started : json::object();

  // Turn-end messages and hook decisions, for "what followed".
  std::map<int, std::string> final_messages;
  int hook_blocks = 0, hook_allows = 0;
  for (const auto& e : events) {
    const std::string type = e.value("type", "");
    if (type == "turn_ended" && e.contains("result") && e["result"].is_object())
      final_messages[e.value("turn", 0)] = e["result"].value("final_message", "");
    if (type == "hook_call") (e.value("decision", "") == "block" ? hook_blocks : hook_allows)++;
  }

  // Best-so-far series.
  std::vector<double> score, best_so_far;
  double best = std::nan("");
  for (const auto& ev : st.evaluations) {
    const double s = ev.score();
    score.push_back(s);
    if (std::isfinite(s) && (!std::isfinite(best) || s > best)) best = s;
    best_so_far.push_back(best);
  }

  // ---- data block (inline JSON, for scripts and for tests) -------------------------------------
  json data;
  data["campaign_id"] = st.campaign_id;
  data["goal"] = started.value("goal", "");
  data["end_reason"] = summary.ended ? summary.end_reason : "";
  data["evaluations"] = json::array();
  for (std::size_t i = 0; i < st.evaluations.size(); ++i) {
    const auto& ev = st.evaluations[i];
    data["evaluations"].push_back({{"index", ev.index},
                                   {"turn", ev.turn},
                                   {"origin", ev.origin},
                                   {"all_correct", ev.report.all_correct()},
                                   {"geomean_speedup", ev.report.geomean_speedup()},
                                   {"best_so_far", best_so_far[i]}});
  }
  data["questions"] = json::array();
  for (const auto& a : st.asked)
    data["questions"].push_back({{"id", a.question.id}, {"trigger", a.question.trigger},
                                 {"turn", a.turn}, {"after_evaluation", a.after_evaluation},
                                 {"text", a.question.text}});
  data["spent"] = st.spent;

  std::string h;
  const std::string title =
      options.title.empty() ? "Socratic campaign " + (st.campaign_id.empty() ? std::string("(unnamed)") : st.campaign_id)
                            : options.title;
  h += "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n";
  h += "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\n";
  h += "<title>" + html_escape(title) + "</title>\n<style>\n"
       "body{font-family:system-ui,sans-serif;margin:24px;color:#1d2430;background:#fff}"
       "h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:28px 0 8px}"
       ".note{color:#445;margin:2px 0}.kv{border-collapse:collapse}.kv td,.kv th,.q td,.q th,.hm td,.hm th"
       "{border:1px solid #ccd;padding:4px 8px;font-size:13px;text-align:left;vertical-align:top}"
       ".q{border-collapse:collapse;width:100%}.hm{border-collapse:collapse}.hm td.cell{text-align:center;"
       "min-width:90px;font-variant-numeric:tabular-nums}.fail{color:#fff}.trig{font-weight:600}"
       "svg text{font-size:11px;fill:#333}.legend span{display:inline-block;margin-right:14px;font-size:12px}"
       "</style></head><body>\n";
  h += "<h1>" + html_escape(title) + "</h1>\n";
  for (const auto& n : options.notes) h += "<p class=\"note\">" + html_escape(n) + "</p>\n";
  h += "<p class=\"note\">Goal: " + html_escape(started.value("goal", std::string("(not recorded)"))) + "</p>\n";
  h += "<p class=\"note\">Outcome: " +
       html_escape(summary.ended ? summary.end_reason : std::string("not ended (running, or driven by a Stop hook)")) +
       "; " + std::to_string(st.evaluations.size()) + " evaluations, " + std::to_string(st.asked.size()) +
       " questions, best geomean speedup " + fmt(best) + "</p>\n";

  // ---- timeline ---------------------------------------------------------------------------------
  h += "<h2>Best speedup over evaluations</h2>\n";
  const int W = 860, H = 300, L = 56, R = 20, T = 20, B = 40;
  const std::size_t n = st.evaluations.size();
  double ymax = 1.0;
  for (double s : score)
    if (std::isfinite(s)) ymax = std::max(ymax, s);
  ymax *= 1.15;
  auto x_of = [&](double i) { return L + (n <= 1 ? 0.5 : i / static_cast<double>(n - 1)) * (W - L - R); };
  auto y_of = [&](double v) { return T + (1 - v / ymax) * (H - T - B); };
  h += "<svg id=\"timeline\" width=\"" + std::to_string(W) + "\" height=\"" + std::to_string(H) +
       "\" role=\"img\" aria-label=\"best speedup over evaluations\">\n";
  h += "<rect x=\"0\" y=\"0\" width=\"" + std::to_string(W) + "\" height=\"" + std::to_string(H) + "\" fill=\"#fbfcfe\"/>\n";
  for (int k = 0; k <= 4; ++k) {  // y grid
    const double v = ymax * k / 4;
    h += "<line x1=\"" + std::to_string(L) + "\" x2=\"" + std::to_string(W - R) + "\" y1=\"" + fmt(y_of(v), "%.1f") +
         "\" y2=\"" + fmt(y_of(v), "%.1f") + "\" stroke=\"#e3e6ee\"/><text x=\"" + std::to_string(L - 6) +
         "\" y=\"" + fmt(y_of(v) + 4, "%.1f") + "\" text-anchor=\"end\">" + fmt(v, "%.2f") + "x</text>\n";
  }
  h += "<line x1=\"" + std::to_string(L) + "\" x2=\"" + std::to_string(W - R) + "\" y1=\"" + fmt(y_of(1), "%.1f") +
       "\" y2=\"" + fmt(y_of(1), "%.1f") + "\" stroke=\"#8894aa\" stroke-dasharray=\"4 3\"/>\n";
  h += "<text x=\"" + std::to_string((W + L) / 2) + "\" y=\"" + std::to_string(H - 8) +
       "\" text-anchor=\"middle\">evaluation</text>\n";
  // Questions: vertical markers just after the evaluation they followed.
  for (std::size_t qi = 0; qi < st.asked.size(); ++qi) {
    const auto& a = st.asked[qi];
    // Just after the evaluation it followed; a question before any evaluation sits at the left edge.
    const double xq = a.after_evaluation < 0 ? L + 2.0 : std::min(x_of(a.after_evaluation + 0.5), W - R - 2.0);
    const std::string trig(to_string(a.question.trigger));
    h += "<g class=\"question-marker\" data-question-id=\"" + html_escape(a.question.id) + "\" data-trigger=\"" + trig +
         "\"><line x1=\"" + fmt(xq, "%.1f") + "\" x2=\"" + fmt(xq, "%.1f") + "\" y1=\"" + std::to_string(T) +
         "\" y2=\"" + std::to_string(H - B) + "\" stroke=\"#d08a00\" stroke-width=\"2\"/>"
         "<text x=\"" + fmt(xq + 3, "%.1f") + "\" y=\"" + std::to_string(T + 12 + static_cast<int>(qi % 4) * 13) +
         "\">Q" + std::to_string(qi + 1) + " " + trig + "</text><title>" + html_escape(trig + ": " + a.question.text) +
         "</title></g>\n";
  }
  // Best-so-far as a step line: flat until the evaluation that improved it.
  std::string path;
  for (std::size_t i = 0; i < n; ++i) {
    if (!std::isfinite(best_so_far[i])) continue;
    const std::string x = fmt(x_of(static_cast<double>(i)), "%.1f"), y = fmt(y_of(best_so_far[i]), "%.1f");
    path += path.empty() ? "M" + x + " " + y : " H" + x + " V" + y;
  }
  if (!path.empty()) h += "<path id=\"best-line\" d=\"" + path + "\" fill=\"none\" stroke=\"#1f6feb\" stroke-width=\"2\"/>\n";
  for (std::size_t i = 0; i < n; ++i) {
    const auto& ev = st.evaluations[i];
    const bool ok = std::isfinite(score[i]);
    const double yv = ok ? score[i] : 0.0;
    h += "<circle class=\"evaluation-point\" data-index=\"" + std::to_string(ev.index) + "\" data-speedup=\"" +
         fmt(ev.report.geomean_speedup(), "%.4f") + "\" data-correct=\"" + (ev.report.all_correct() ? "true" : "false") +
         "\" cx=\"" + fmt(x_of(static_cast<double>(i)), "%.1f") + "\" cy=\"" + fmt(y_of(yv), "%.1f") +
         "\" r=\"5\" fill=\"" + (ok ? "#1f6feb" : "#c62828") + "\"><title>evaluation " + std::to_string(ev.index) +
         " (" + html_escape(ev.origin) + ", turn " + std::to_string(ev.turn) + "): geomean " +
         fmt(ev.report.geomean_speedup()) + (ok ? "" : ", not all correct") + "</title></circle>\n";
  }
  h += "</svg>\n<p class=\"legend\"><span>&#9679; blue: evaluation, every scenario correct (geomean speedup)</span>"
       "<span style=\"color:#c62828\">&#9679; red: some scenario failed (drawn at 0)</span>"
       "<span style=\"color:#1f6feb\">&#8212; best so far</span><span style=\"color:#d08a00\">| question and its trigger</span></p>\n";

  // ---- heatmap ------------------------------------------------------------------------------------
  h += "<h2>Per-scenario speedup: best and last candidate</h2>\n";
  const EvaluationRecord* best_ev = st.best();
  const EvaluationRecord* last_ev = st.last_evaluation();
  std::vector<std::string> ids = started.value("scenario_ids", std::vector<std::string>{});
  if (ids.empty() && last_ev) ids = last_ev->report.expected;
  h += "<table class=\"hm\" id=\"heatmap\"><tr><th>scenario</th><th>best (evaluation " +
       (best_ev ? std::to_string(best_ev->index) : std::string("none")) + ")</th><th>last (evaluation " +
       (last_ev ? std::to_string(last_ev->index) : std::string("none")) + ")</th></tr>\n";
  auto cell = [&](const EvaluationRecord* ev, const std::string& id, const char* which) {
    if (!ev) return std::string("<td class=\"cell\">-</td>");
    const ScenarioResult* s = ev->report.find(id);
    if (!s)
      return std::string("<td class=\"cell fail\" style=\"background:#555\" data-scenario=\"") + html_escape(id) +
             "\" data-which=\"" + which + "\">missing</td>";
    return "<td class=\"cell" + std::string(s->correct ? "" : " fail") + "\" style=\"background:" +
           detail::speedup_colour(s->speedup, s->correct) + "\" data-scenario=\"" + html_escape(id) +
           "\" data-which=\"" + which + "\" data-speedup=\"" + fmt(s->speedup, "%.4f") + "\" data-correct=\"" +
           (s->correct ? "true" : "false") + "\" title=\"" + html_escape(s->reason) + "\">" + fmt(s->speedup, "%.2f") +
           "x" + (s->correct ? "" : " &#10007;") + "</td>";
  };
  for (const auto& id : ids)
    h += "<tr><th>" + html_escape(id) + "</th>" + cell(best_ev, id, "best") + cell(last_ev, id, "last") + "</tr>\n";
  h += "</table>\n<p class=\"note\">Green: faster than the baseline; red: slower; dark red with &#10007;: incorrect.</p>\n";

  // ---- questions ----------------------------------------------------------------------------------
  h += "<h2>Questions and what followed</h2>\n<table class=\"q\" id=\"questions\"><tr><th>#</th><th>turn</th>"
       "<th>trigger</th><th>question</th><th>why now</th><th>what followed</th></tr>\n";
  for (std::size_t qi = 0; qi < st.asked.size(); ++qi) {
    const auto& a = st.asked[qi];
    const double before = a.after_evaluation >= 0 && a.after_evaluation < static_cast<int>(n)
                              ? best_so_far[static_cast<std::size_t>(a.after_evaluation)]
                              : std::nan("");
    double after = before;
    const std::size_t from = static_cast<std::size_t>(std::max(0, a.after_evaluation + 1));
    for (std::size_t i = from; i < n && i < from + static_cast<std::size_t>(options.gain_window); ++i)
      if (std::isfinite(best_so_far[i])) after = best_so_far[i];
    std::string followed;
    if (std::isfinite(after) && (!std::isfinite(before) || after > before))
      followed = "best geomean " + fmt(before) + " &#8594; " + fmt(after) + " within " +
                 std::to_string(options.gain_window) + " evaluations";
    else
      followed = "no gain within " + std::to_string(options.gain_window) + " evaluations";
    if (auto it = final_messages.find(a.turn); it != final_messages.end() && !it->second.empty())
      followed += "<br>agent at the end of the turn: &#8220;" + html_escape(detail::excerpt(it->second)) + "&#8221;";
    h += "<tr data-question-id=\"" + html_escape(a.question.id) + "\"><td>Q" + std::to_string(qi + 1) + "</td><td>" +
         std::to_string(a.turn) + "</td><td class=\"trig\">" + std::string(to_string(a.question.trigger)) + "</td><td>" +
         html_escape(a.question.text) + "</td><td>" + html_escape(a.question.evidence) + "</td><td>" + followed +
         "</td></tr>\n";
  }
  h += "</table>\n";

  // ---- budgets ------------------------------------------------------------------------------------
  h += "<h2>Budgets</h2>\n<table class=\"kv\" id=\"budgets\"><tr><th>budget</th><th>spent</th><th>limit</th></tr>\n";
  const json budget = started.value("budget", json::object());
  auto limit = [&](const char* key) {
    return budget.contains(key) && !budget[key].is_null() ? budget[key].dump() : std::string("none");
  };
  auto row = [&](const char* name, const std::string& spent, const char* key) {
    h += std::string("<tr><td>") + name + "</td><td data-budget=\"" + key + "\">" + spent + "</td><td>" + limit(key) +
         "</td></tr>\n";
  };
  row("turns", std::to_string(st.spent.turns), "turns");
  row("tool calls", std::to_string(st.spent.tool_calls), "tool_calls");
  row("evaluations (agent's)", std::to_string(st.spent.agent_evaluations), "evaluations");
  row("evaluations (all)", std::to_string(st.spent.evaluations), "all_evaluations");
  row("tokens", std::to_string(st.spent.tokens), "tokens");
  row("wall seconds", fmt(st.spent.wall_seconds, "%.1f"), "wall_seconds");
  row("cost (USD)", fmt(st.spent.cost_usd, "%.4f"), "cost_usd");
  if (hook_blocks + hook_allows > 0)
    h += "<tr><td>stop-hook calls</td><td>" + std::to_string(hook_blocks) + " blocked, " + std::to_string(hook_allows) +
         " allowed</td><td></td></tr>\n";
  h += "</table>\n";

  std::string payload = data.dump(-1, ' ', false, json::error_handler_t::replace);
  for (std::size_t p = payload.find("</"); p != std::string::npos; p = payload.find("</", p + 2))
    payload.replace(p, 2, "<\\/");
  h += "<script type=\"application/json\" id=\"socratic-data\">" + payload + "</script>\n";
  h += "</body></html>\n";
  return h;
}

/// @brief Reads a trace file and writes its report. Throws input_error naming a bad trace.
inline void write_html_report(const std::filesystem::path& trace, const std::filesystem::path& out,
                              const HtmlReportOptions& options = {}) {
  const TraceContents contents = read_trace(trace);
  const std::string html = html_report(contents.events, options);
  write_file_atomically(out, html);
}

}  // namespace socratic
