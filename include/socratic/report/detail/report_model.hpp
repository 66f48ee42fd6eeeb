#pragma once
/// @file
/// @brief What the report says, read from a trace before anything is drawn: each evaluation's
/// score, noise and whether it beat the incumbent beyond the noise (the ImprovementRule that
/// `bank credit` and the plateau detector use), each question with its credit and the agent's
/// words after it, the stops and how they were judged, and the campaign's outcome.

#include <cmath>
#include <optional>
#include <regex>
#include <string>
#include <vector>

#include "socratic/record/trace_state.hpp"
#include "socratic/core/json.hpp"
#include "socratic/core/trace_events.hpp"
#include "socratic/questions/credit.hpp"
#include "socratic/questions/improvement.hpp"

namespace socratic::detail::report {

/// One evaluation as the report shows it.
struct EvaluationView {
  const EvaluationRecord* record = nullptr;
  double score = std::nan("");        ///< geomean speedup; NaN unless every scenario is correct
  double worst = std::nan("");        ///< the lowest scenario speedup; NaN unless every scenario is correct
  double noise = std::nan("");        ///< relative noise of the score (ImprovementRule's measure)
  bool new_best = false;              ///< improved on the incumbent beyond the noise
  double incumbent = std::nan("");    ///< the best beyond noise so far, this one included
  std::string failure;                ///< why it has no score, in a few words
};

/// One stop of the agent and how it was judged.
struct StopView {
  int evaluation_index = -1;  ///< the evaluation that judged it (-1: none)
  bool allowed = false;       ///< the agent was let stop
  /// The stop hook's verdict (a campaign driven by the hook); none: the campaign's own stop check,
  /// met when `allowed`.
  std::optional<HookVerdict> hook_verdict;
  /// The verdict in a word: the hook's kind, or `met`/`unmet` for the campaign's own check.
  std::string kind_name() const {
    return hook_verdict ? std::string(to_string(*hook_verdict)) : allowed ? "met" : "unmet";
  }
};

/// One question with what followed it.
struct QuestionView {
  const AskedQuestion* asked = nullptr;
  CreditOutcome credit;                        ///< by the credit rule: gain beyond noise, or none
  double best_in_window = std::nan("");        ///< the highest score within the window, noise or not
  const EvaluationRecord* reference = nullptr; ///< the best evaluation when it was asked
  std::string words_after;                     ///< the agent's words at the first turn end after it
  std::string agent;                           ///< the agent it was asked (its `question` event's)
};

/// A moment the campaign ended or failed, in trace order: each `campaign_ended` (its reason and
/// detail), each `campaign_continued` that took an ending back, and each turn an agent ended with
/// an error (the agent's error: a model server down, a refused key).
enum class EndingKind { ended, continued, agent_error };

constexpr std::string_view to_string(EndingKind k) noexcept {
  switch (k) {
    case EndingKind::ended: return "ended";
    case EndingKind::continued: return "continued";
    case EndingKind::agent_error: return "agent_error";
  }
  return "unknown";
}

struct EndingView {
  EndingKind kind = EndingKind::ended;
  /// The stop reason (ended), the reason taken back (continued); none for a turn error.
  std::optional<StopReason> reason;
  std::string detail;  ///< the ending's detail, or the agent's error
  std::string agent;   ///< the agent of a turn error
  int turn = -1;       ///< the turn of a turn error
  double elapsed_s = 0;
};

struct ReportModel {
  TraceSummary summary;
  std::vector<EvaluationView> evaluations;
  bool several_agents = false;  ///< questions went to more than one agent (a parallel campaign)
  std::vector<QuestionView> questions;
  std::vector<StopView> stops;
  std::vector<EndingView> endings;  ///< every ending, continuation and agent error, in order
  bool hook_driven = false;   ///< judged by `socratic hook stop` (an external agent)
  bool goal_met = false;
  std::string outcome;        ///< one sentence
  std::optional<double> geomean_goal;   ///< the goal's geomean threshold, when it has one
  std::optional<double> scenario_goal;  ///< the goal's every-scenario threshold, when it has one
  CreditRule rule;
};

/// The thresholds of a goal spec (goal_spec.hpp): the largest of each kind under `all_of`.
inline void goal_thresholds(const json& spec, std::optional<double>& geomean, std::optional<double>& scenario) {
  if (!spec.is_object()) return;
  for (auto it = spec.begin(); it != spec.end(); ++it) {
    if (it.key() == "geomean_speedup_at_least" && it->is_number())
      geomean = std::max(geomean.value_or(0.0), it->get<double>());
    else if (it.key() == "every_scenario_speedup_at_least" && it->is_number())
      scenario = std::max(scenario.value_or(0.0), it->get<double>());
    else if (it.key() == "all_of" && it->is_array())
      for (const auto& part : *it) goal_thresholds(part, geomean, scenario);
  }
}

/// The same thresholds read from a goal's description in `campaign_started` (predicates.hpp).
inline void goal_thresholds(const std::string& description, std::optional<double>& geomean,
                            std::optional<double>& scenario) {
  static const std::regex g(R"(geomean speedup >= ([0-9]*\.?[0-9]+))"), s(R"(every scenario speedup >= ([0-9]*\.?[0-9]+))");
  std::smatch m;
  if (std::regex_search(description, m, g)) geomean = std::stod(m[1]);
  if (std::regex_search(description, m, s)) scenario = std::stod(m[1]);
}

inline std::string failure_of(const EvalReport& r) {
  if (!r.built) return "build failed";
  if (!r.error.empty()) return "harness error";
  if (!r.banned.empty()) return "banned library";
  std::size_t wrong = 0;
  for (const auto& s : r.scenarios) wrong += s.correct ? 0 : 1;
  const std::size_t missing = r.missing().size();
  if (wrong) return std::to_string(wrong) + " of " + std::to_string(r.expected.size()) + " scenarios incorrect";
  if (missing) return std::to_string(missing) + " scenarios not run";
  return "no score";
}

inline ReportModel build_model(const std::vector<json>& events, const CreditRule& rule, const json& goal_spec) {
  ReportModel m;
  m.rule = rule;
  m.summary = summarize_trace(events);
  const CampaignState& st = m.summary.state;

  // Evaluations, and the incumbent by the improvement rule.
  const EvaluationRecord* incumbent = nullptr;
  for (const auto& ev : st.evaluations) {
    EvaluationView v;
    v.record = &ev;
    v.score = ev.score();
    v.noise = score_noise(ev, rule.improvement.default_noise);
    if (std::isfinite(v.score)) {
      double worst = std::nan("");
      for (const auto& s : ev.report.scenarios)
        if (std::isfinite(s.speedup) && (!std::isfinite(worst) || s.speedup < worst)) worst = s.speedup;
      v.worst = worst;
      if (!incumbent || rule.improvement.improves(ev, incumbent->score(), incumbent)) {
        v.new_best = true;
        incumbent = &ev;
      }
    } else {
      v.failure = failure_of(ev.report);
    }
    v.incumbent = incumbent ? incumbent->score() : std::nan("");
    m.evaluations.push_back(v);
  }

  // Questions: the credit rule's outcome, and the agent's words at the first turn end after each.
  const std::vector<CreditOutcome> credits = credit_questions(st, rule);
  std::vector<std::size_t> question_event, turn_end_event;
  for (std::size_t i = 0; i < events.size(); ++i) {
    const std::optional<TraceEventType> type = trace_event_type(events[i]);
    if (type == TraceEventType::question) question_event.push_back(i);
    if (type == TraceEventType::turn_ended) turn_end_event.push_back(i);
  }
  std::size_t credit_at = 0;
  for (std::size_t qi = 0; qi < st.asked.size(); ++qi) {
    QuestionView q;
    q.asked = &st.asked[qi];
    if (!q.asked->question.id.empty() && credit_at < credits.size()) q.credit = credits[credit_at++];
    else q.credit.after_evaluation = q.asked->after_evaluation;
    for (const auto& e : st.evaluations)
      if (e.index <= q.asked->after_evaluation && std::isfinite(e.score()) && (!q.reference || e.score() > q.reference->score()))
        q.reference = &e;
    for (const auto& e : st.evaluations)
      if (e.index > q.asked->after_evaluation && e.index <= q.asked->after_evaluation + rule.window_evaluations &&
          std::isfinite(e.score()) && !(e.score() <= q.best_in_window))
        q.best_in_window = e.score();
    if (qi < question_event.size()) q.agent = events[question_event[qi]].value("agent", std::string());
    // The words of the agent it was asked: in a parallel campaign another's turn may end first.
    if (qi < question_event.size())
      for (std::size_t t : turn_end_event)
        if (t > question_event[qi] && events[t].value("agent", std::string()) == q.agent) {
          const json& r = events[t].value("result", json::object());
          q.words_after = r.is_object() ? r.value("final_message", std::string()) : std::string();
          break;
        }
    if (!m.questions.empty() && m.questions.front().agent != q.agent) m.several_agents = true;
    m.questions.push_back(q);
  }

  // Stops: hook calls for an external agent, else the campaign's verdicts at its turn ends.
  for (const auto& e : events)
    if (is_event(e, TraceEventType::hook_call)) m.hook_driven = true;
  for (const auto& e : events) {
    const std::optional<TraceEventType> type = trace_event_type(e);
    if (m.hook_driven && type == TraceEventType::hook_call) {
      StopView s;
      s.evaluation_index = e.contains("evaluation_index") && e["evaluation_index"].is_number() ? e["evaluation_index"].get<int>() : -1;
      s.allowed = e.value("decision", "") == "allow";
      s.hook_verdict = required<HookVerdict>(e, "kind", "trace event seq " + std::to_string(e.value("seq", -1)) + " (hook_call)");
      m.stops.push_back(s);
    } else if (!m.hook_driven && type == TraceEventType::verdict && e.contains("verdict")) {
      StopView s;
      s.evaluation_index = e.value("evaluation_index", -1);
      s.allowed = e["verdict"].value("met", false);
      m.stops.push_back(s);
    }
  }

  // Endings and agent errors, with their details.
  for (const auto& e : events) {
    const std::optional<TraceEventType> type = trace_event_type(e);
    const std::string where = "trace event seq " + std::to_string(e.value("seq", -1));
    EndingView v;
    v.elapsed_s = e.contains("elapsed_s") && e["elapsed_s"].is_number() ? e["elapsed_s"].get<double>() : 0.0;
    if (type == TraceEventType::campaign_ended) {
      v.kind = EndingKind::ended;
      v.reason = required<StopReason>(e, "reason", where + " (campaign_ended)");
      v.detail = e.value("detail", "");
    } else if (type == TraceEventType::campaign_continued) {
      v.kind = EndingKind::continued;
      v.reason = required<StopReason>(e, "previous_reason", where + " (campaign_continued)");
      v.detail = e.value("previous_detail", "");
    } else if (type == TraceEventType::turn_ended && e.contains("result") && e["result"].is_object() &&
               !e["result"].value("error", std::string()).empty()) {
      v.kind = EndingKind::agent_error;
      v.detail = e["result"].value("error", std::string());
      v.agent = e.value("agent", std::string());
      v.turn = e.value("turn", -1);
    } else {
      continue;
    }
    m.endings.push_back(std::move(v));
  }

  // The goal's thresholds, for the goal lines.
  goal_thresholds(goal_spec, m.geomean_goal, m.scenario_goal);
  if (!m.geomean_goal && !m.scenario_goal && m.summary.started.is_object())
    goal_thresholds(m.summary.started.value("goal", std::string()), m.geomean_goal, m.scenario_goal);

  // The outcome, in words.
  auto at = [](int i) { return i >= 0 ? " at evaluation " + std::to_string(i) : std::string(); };
  if (m.summary.ended) {
    m.goal_met = m.summary.end_reason == StopReason::goal_met;
    m.outcome = m.goal_met ? "goal met" : "ended without its goal: " + std::string(to_string(*m.summary.end_reason));
    if (!m.goal_met && !m.summary.end_detail.empty()) m.outcome += " (" + m.summary.end_detail + ")";
  } else if (m.hook_driven && !m.stops.empty()) {
    const StopView* first_met = nullptr;
    int allowed_after = 0;
    for (const auto& s : m.stops) {
      if (s.allowed && s.hook_verdict == HookVerdict::goal_met && !first_met) first_met = &s;
      else if (first_met && s.allowed) ++allowed_after;
    }
    const StopView& last = m.stops.back();
    m.goal_met = last.allowed && last.hook_verdict == HookVerdict::goal_met;
    if (m.goal_met && first_met)
      m.outcome = "goal met: the stop hook let the agent stop" + at(first_met->evaluation_index) +
                  (allowed_after ? " (and at " + std::to_string(allowed_after) + " later stops, each judged again)" : "");
    else if (last.allowed && last.hook_verdict == HookVerdict::block_cap)
      m.outcome = "stopped at the stop hook's block cap: the goal was NOT met";
    else if (!last.allowed)
      m.outcome = "not ended: the agent's last stop was blocked (the goal did not hold" + at(last.evaluation_index) + ")";
    else
      m.outcome = "the agent's last stop was let through (" + last.kind_name() + ")";
  } else {
    m.outcome = "not ended (still running, or stopped before its end)";
  }
  return m;
}

}  // namespace socratic::detail::report
