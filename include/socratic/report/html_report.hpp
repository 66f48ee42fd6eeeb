#pragma once
/// @file
/// @brief A campaign report as one self-contained HTML file (inline SVG, inline CSS, the data
/// inline as JSON; nothing fetched), drawn from a campaign trace: the outcome, the speedup over
/// evaluations (noise, the best beyond noise, the goal, questions, stops, failures), the best
/// evaluation scenario by scenario (parameters, times, noise, TFLOP/s, roofline, anchors), a
/// scenario-by-evaluation matrix, the questions and what followed them (by the credit rule of
/// `bank credit`: per agent, shared credit marked), every ending and agent error with its
/// detail, and the budgets spent.

#include <cmath>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "socratic/record/trace.hpp"
#include "socratic/record/trace_state.hpp"
#include "socratic/core/files.hpp"
#include "socratic/core/json.hpp"
#include "socratic/core/scenario.hpp"
#include "socratic/questions/anchors.hpp"
#include "socratic/questions/credit.hpp"
#include "socratic/report/detail/matrix.hpp"
#include "socratic/report/detail/report_model.hpp"
#include "socratic/report/detail/svg.hpp"
#include "socratic/report/detail/timeline.hpp"
#include "socratic/report/lineage.hpp"

namespace socratic {

/// @brief Options of the HTML report.
struct HtmlReportOptions {
  std::string title;  ///< default: "Socratic campaign <id>"
  /// Lines shown under the title (e.g. the demo's "live" and "replayed" parts).
  std::vector<std::string> notes;
  /// A gain credits the questions asked of its agent when it comes within this many of that
  /// agent's evaluations after them: the rule of `socratic bank credit` (questions/credit.hpp).
  int gain_window = 3;
  /// The scenario set the campaign ran (its parameters become columns); absent: ids only.
  std::optional<ScenarioSet> scenarios;
  /// Best known TFLOP/s per scenario (cuDNN, FlashAttention-2, ...), shown beside the candidate's.
  std::optional<AnchorTable> anchors;
  /// The goal spec (goal_spec.hpp), for the goal lines; absent: read from the trace's description.
  json goal = nullptr;
  /// How the baseline is named in units ("speedup over baseline.cu").
  std::string baseline = "the baseline";
  /// The campaign's candidate store (report/lineage.hpp), when it has one: the lineage tree and
  /// the incumbent's history are drawn from it. Empty: a campaign of one agent without a store.
  std::vector<LineageNode> lineage;
};

/// @brief The report's HTML for these trace events (as read by read_trace).
inline std::string html_report(const std::vector<json>& events, const HtmlReportOptions& options = {}) {
  using namespace detail::report;
  CreditRule rule;
  rule.window_evaluations = options.gain_window;
  const ReportModel m = build_model(events, rule, options.goal);
  const CampaignState& st = m.summary.state;
  const json started = m.summary.started.is_object() ? m.summary.started : json::object();
  const std::vector<std::string> ids = scenario_ids(m);
  const std::string baseline = options.baseline.empty() ? std::string("the baseline") : options.baseline;

  // ---- data block (inline JSON, for scripts and for tests) -------------------------------------
  json data;
  data["campaign_id"] = st.campaign_id;
  data["goal"] = started.value("goal", "");
  data["end_reason"] = m.summary.ended && m.summary.end_reason ? std::string(to_string(*m.summary.end_reason)) : std::string();
  data["end_detail"] = m.summary.ended ? m.summary.end_detail : "";
  data["endings"] = json::array();
  for (const auto& e : m.endings)
    data["endings"].push_back({{"kind", std::string(to_string(e.kind))},
                               {"reason", e.reason ? std::string(to_string(*e.reason)) : std::string()}, {"detail", e.detail}, {"agent", e.agent},
                               {"turn", e.turn}, {"elapsed_s", e.elapsed_s}});
  data["outcome"] = m.outcome;
  data["goal_met"] = m.goal_met;
  data["evaluations"] = json::array();
  for (const auto& e : m.evaluations)
    data["evaluations"].push_back({{"index", e.record->index},
                                   {"turn", e.record->turn},
                                   {"origin", e.record->origin},
                                   {"all_correct", e.record->report.all_correct()},
                                   {"geomean_speedup", e.record->report.geomean_speedup()},
                                   {"noise", e.noise},
                                   {"new_best", e.new_best},
                                   {"best_beyond_noise", e.incumbent}});
  data["questions"] = json::array();
  for (const auto& q : m.questions)
    data["questions"].push_back({{"id", q.asked->question.id},
                                 {"trigger", q.asked->question.trigger},
                                 {"turn", q.asked->turn},
                                 {"after_evaluation", q.asked->after_evaluation},
                                 {"text", q.asked->question.text},
                                 {"agent", q.agent},
                                 {"credited", q.credit.credited},
                                 {"credited_by", q.credit.credited_by},
                                 {"shared_by", q.credit.shared_by}});
  data["stops"] = json::array();
  for (const auto& s : m.stops)
    data["stops"].push_back({{"evaluation_index", s.evaluation_index}, {"allowed", s.allowed}, {"kind", s.kind_name()}});
  data["spent"] = st.spent;
  if (!options.lineage.empty()) {
    data["lineage"] = lineage_json(options.lineage);
    data["incumbents"] = json::array();
    for (const auto& n : incumbent_history(options.lineage)) data["incumbents"].push_back(n.id);
  }

  std::string h;
  const std::string title =
      options.title.empty() ? "Socratic campaign " + (st.campaign_id.empty() ? std::string("(unnamed)") : st.campaign_id)
                            : options.title;
  h += "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
       "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
  h += "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\n";
  h += "<title>" + escape(title) + "</title>\n<style>\n"
       "body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;margin:24px auto;padding:0 24px;max-width:1400px;"
       "color:#1d2430;background:#fff;line-height:1.4}"
       "h1{font-size:22px;margin:0 0 6px}h2{font-size:17px;margin:30px 0 8px}"
       ".note{color:#445;margin:3px 0;font-size:14px}.outcome{font-size:15px;margin:8px 0}"
       ".outcome b.met{color:#1a7f37}.outcome b.unmet{color:#b42318}"
       "table.grid{border-collapse:collapse;font-size:12.5px;font-variant-numeric:tabular-nums}"
       "table.grid td,table.grid th{border:1px solid #d5dae3;padding:2px 6px;text-align:right;vertical-align:top;white-space:nowrap}"
       "table.grid tr:first-child th{white-space:normal;vertical-align:bottom}"
       "table.grid th:first-child,table.grid td.text{text-align:left}table.grid tr:first-child th{background:#f3f5f9}"
       "table.q{width:100%}table.q td,table.q th{text-align:left;white-space:normal}table.q td:nth-child(-n+3){white-space:nowrap}.trig{font-weight:600;white-space:nowrap}"
       ".credited{color:#1a7f37;font-weight:600}.shared{color:#7d4e00;font-weight:600}.within{color:#6e7781}.words{color:#445;font-style:italic}"
       ".scroll{overflow-x:auto}svg text{font-size:11px;fill:#333}svg .axis-title{font-size:12px;fill:#555}"
       "svg .no-scores{font-size:14px;fill:#b42318}svg .lane{fill:#6e7781}svg .cell-value{font-size:10px;fill:#1d2430}"
       "svg .cell-value.fail{fill:#fff}svg.plot{display:block;max-width:100%;height:auto}"
       ".legend span{display:inline-block;margin-right:16px;font-size:12px}"
       "ul.tree,ul.tree ul{list-style:none;margin:0;padding-left:22px;border-left:1px solid #d5dae3}"
       "ul.tree{padding-left:4px;border:0;font-size:13px}ul.tree li{margin:4px 0}"
       ".cand{font-weight:600;font-family:ui-monospace,monospace}.who{color:#445}"
       ".verdict{font-size:11px;padding:0 5px;border-radius:3px;background:#eef0f4}"
       ".verdict.admitted{background:#dafbe1;color:#1a7f37;font-weight:600}.verdict.failed{background:#ffebe9;color:#b42318}"
       ".draft{font-size:11px;padding:0 5px;border-radius:3px;background:#fff8c5;color:#7d4e00}"
       ".after{color:#445;font-style:italic;font-size:12px}.why{color:#6e7781;font-size:12px}.also{color:#6e7781}"
       "</style></head><body>\n";
  h += "<h1>" + escape(title) + "</h1>\n";
  for (const auto& n : options.notes) h += "<p class=\"note\">" + escape(n) + "</p>\n";
  h += "<p class=\"note\">Goal: " + escape(started.value("goal", std::string("(not recorded)"))) + "</p>\n";
  const EvaluationRecord* best = st.best();
  h += "<p class=\"outcome\" id=\"outcome\">Outcome: <b class=\"" + std::string(m.goal_met ? "met" : "unmet") + "\">" +
       escape(m.outcome) + "</b>; " + std::to_string(m.evaluations.size()) + " evaluations, " +
       std::to_string(m.questions.size()) + " questions" +
       (best ? ", best geomean " + num(best->score()) + "x over " + escape(baseline) + " (evaluation " +
                   std::to_string(best->index) + ")"
             : std::string(", no evaluation correct on every scenario")) +
       ".</p>\n";

  // ---- timeline ---------------------------------------------------------------------------------
  h += "<h2>Speedup over the evaluations</h2>\n" + timeline_svg(m, baseline);
  h += "<p class=\"legend\"><span style=\"color:#1f6feb\">&#9679; geomean speedup over " + escape(baseline) +
       ", every scenario correct (bar: &#177; its noise); dark: a new best beyond twice the noise</span>"
       "<span style=\"color:#1f6feb\">&#8212; best beyond the noise</span>"
       "<span style=\"color:#a371f7\">&#9632; lowest scenario</span>"
       "<span style=\"color:#1a7f37\">- - goal</span><span style=\"color:#d08a00\">| Qn: question (after the evaluation "
       "left of it)</span><span style=\"color:#1a7f37\">&#9670; stop allowed</span><span style=\"color:#8c959f\">| stop "
       "sent back</span><span style=\"color:#c62828\">&#215; evaluation without a speedup (a scenario failed, a build "
       "failed)</span></p>\n";

  // ---- per scenario -------------------------------------------------------------------------------
  h += "<h2>The best evaluation, scenario by scenario</h2>\n" +
       scenario_table(m, ids, options.scenarios, options.anchors, baseline);
  h += "<h2>Speedup by scenario and evaluation</h2>\n" + scenario_matrix(m, ids, baseline);

  // ---- questions ----------------------------------------------------------------------------------
  h += "<h2>Questions and what followed</h2>\n<p class=\"note\">A gain is an evaluation that improves on the best "
       "geomean before it by more than twice the measured noise. It is credited to the questions asked of the agent "
       "that made it since that agent's previous gain, when it came within " +
       std::to_string(options.gain_window) +
       " of that agent's evaluations after the question; a question asked of another agent gets no credit for it. "
       "When several questions qualify, they share the credit, marked <span class=\"shared\">shared</span> (the "
       "rule of <code>socratic bank credit</code>, docs/question-bank.md).</p>\n"
       "<table class=\"grid q\" id=\"questions\"><tr><th>#</th><th>after</th><th>trigger</th><th>question</th>"
       "<th>why now</th><th>what followed</th><th>the agent's words after it</th></tr>\n";
  for (std::size_t qi = 0; qi < m.questions.size(); ++qi) {
    const auto& q = m.questions[qi];
    const auto& a = *q.asked;
    const double before = q.reference ? q.reference->score() : 1.0;
    const std::string before_text = q.reference ? num(before) + "x" : "the baseline (1x)";
    std::string followed;
    if (q.credit.credited) {
      followed = "<span class=\"credited\">a gain beyond the noise</span>: " + before_text + " &#8594; " +
                 num(before * (1 + q.credit.gain)) + "x (+" + num(q.credit.gain * 100, "%.1f") + "%) at evaluation " +
                 std::to_string(q.credit.credited_by);
      if (q.credit.shared()) {
        std::string others;  // the other questions credited with the same gain
        for (std::size_t oi = 0; oi < m.questions.size(); ++oi)
          if (oi != qi && m.questions[oi].credit.credited && m.questions[oi].credit.credited_by == q.credit.credited_by)
            others += (others.empty() ? "Q" : ", Q") + std::to_string(oi + 1);
        followed += "; <span class=\"shared\">shared</span> by " + std::to_string(q.credit.shared_by) +
                    " questions (with " + others + "): the trace cannot tell which of them led to it";
      }
    } else if (std::isfinite(q.best_in_window) && q.best_in_window > before) {
      followed = "<span class=\"within\">no gain beyond the noise</span> within " + std::to_string(options.gain_window) +
                 " evaluations (the best rose " + before_text + " &#8594; " + num(q.best_in_window) + "x, inside the noise)";
    } else {
      followed = "<span class=\"within\">no gain</span> within " + std::to_string(options.gain_window) + " evaluations";
    }
    std::string after = a.after_evaluation < 0 ? std::string("start") : "eval " + std::to_string(a.after_evaluation);
    if (m.several_agents) after += ", to " + escape(q.agent);
    h += "<tr data-question-id=\"" + escape(a.question.id) + "\" data-credited=\"" +
         (q.credit.credited ? "true" : "false") + "\" data-shared-by=\"" + std::to_string(q.credit.shared_by) +
         "\" data-agent=\"" + escape(q.agent) + "\"><td>Q" + std::to_string(qi + 1) + "</td><td class=\"text\">" + after +
         "</td><td class=\"trig text\">" + std::string(to_string(a.question.trigger)) + "</td><td class=\"text\">" +
         escape(a.question.text) + "</td><td class=\"text\">" + escape(a.question.evidence) + "</td><td class=\"text\">" +
         followed + "</td><td class=\"text words\">" +
         (q.words_after.empty() ? std::string("-") : "&#8220;" + escape(excerpt(q.words_after)) + "&#8221;") +
         "</td></tr>\n";
  }
  h += "</table>\n";

  // ---- the store: lineage and incumbents ----------------------------------------------------------
  if (!options.lineage.empty()) {
    std::set<std::string> agents;
    int admitted = 0, drafts = 0;
    for (const auto& n : options.lineage) {
      agents.insert(n.agent);
      admitted += n.admitted();
      drafts += n.draft();
    }
    h += "<h2>Lineage of the candidates</h2>\n<p class=\"note\">" + std::to_string(options.lineage.size()) +
         " candidates from " + std::to_string(agents.size()) + " agents in the store; " + std::to_string(admitted) +
         " admitted by the gate, " + std::to_string(drafts) +
         " drafts. Each candidate stands under the one it was made from, with the question or direction that led "
         "to it and the gate's verdict.</p>\n" +
         lineage_tree_html(options.lineage);
    h += "<h2>The incumbent's history</h2>\n" + incumbent_history_html(options.lineage);
  }

  // ---- endings and errors: each with its whole reason ----------------------------------------------
  if (!m.endings.empty()) {
    h += "<h2>Endings and errors</h2>\n<p class=\"note\">Every end of the campaign with its reason and detail, every "
         "run that took an ending back, and every turn an agent ended with an error, in order.</p>\n"
         "<table class=\"grid q\" id=\"endings\"><tr><th>at</th><th>what</th><th>reason</th><th>detail</th></tr>\n";
    for (const auto& e : m.endings) {
      const std::string what = e.kind == EndingKind::ended       ? "campaign ended"
                               : e.kind == EndingKind::continued ? "run again: the ending before was taken back"
                                                       : "agent error (" + escape(e.agent) + ", turn " +
                                                             std::to_string(e.turn) + ")";
      h += "<tr data-ending=\"" + std::string(to_string(e.kind)) + "\"><td>" + num(e.elapsed_s, "%.1f") + " s</td><td class=\"text\">" +
           what + "</td><td class=\"text\">" + escape(e.kind == EndingKind::agent_error ? std::string("agent_error")
                                                                             : e.reason ? std::string(to_string(*e.reason))
                                                                                        : std::string()) +
           "</td><td class=\"text\">" + (e.detail.empty() ? std::string("-") : escape(e.detail)) + "</td></tr>\n";
    }
    h += "</table>\n";
  }

  // ---- budgets ------------------------------------------------------------------------------------
  h += "<h2>Budgets</h2>\n<table class=\"grid\" id=\"budgets\"><tr><th>budget</th><th>spent</th><th>limit</th></tr>\n";
  const json budget = started.value("budget", json::object());
  auto limit = [&](const char* key) {
    return budget.contains(key) && !budget[key].is_null() ? budget[key].dump() : std::string("none");
  };
  auto row = [&](const char* name, const std::string& spent, const char* key) {
    h += std::string("<tr><th>") + name + "</th><td data-budget=\"" + key + "\">" + spent + "</td><td>" + limit(key) +
         "</td></tr>\n";
  };
  row("turns", std::to_string(st.spent.turns), "turns");
  row("tool calls", std::to_string(st.spent.tool_calls), "tool_calls");
  row("evaluations (agent's)", std::to_string(st.spent.agent_evaluations), "evaluations");
  row("evaluations (all)", std::to_string(st.spent.evaluations), "all_evaluations");
  row("tokens", std::to_string(st.spent.tokens), "tokens");
  row("wall seconds", num(st.spent.wall_seconds, "%.1f"), "wall_seconds");
  row("cost (USD)", num(st.spent.cost_usd, "%.4f"), "cost_usd");
  int blocked = 0, allowed = 0;
  for (const auto& s : m.stops) (s.allowed ? allowed : blocked)++;
  if (!m.stops.empty())
    h += std::string("<tr><th>stops judged") + (m.hook_driven ? " (stop hook)" : "") + "</th><td>" +
         std::to_string(blocked) + " sent back, " + std::to_string(allowed) + " allowed</td><td></td></tr>\n";
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
