#pragma once
/// @file
/// @brief Definitions for socratic/record/trace_state.hpp: included there in header-only builds,
/// and by socratic/src.hpp (compiled once) with SOCRATIC_SEPARATE_COMPILATION.

#include "socratic/record/trace_state.hpp"

namespace socratic {

SOCRATIC_DECL TraceSummary summarize_trace(const std::vector<json>& events) {
  TraceSummary out;
  CampaignState& st = out.state;
  std::map<std::string, int, std::less<>> open_turn;  // agent -> its turn in progress
  for (const json& e : events) {
    const std::optional<TraceEventType> type = trace_event_type(e);
    const std::string agent = e.contains("agent") && e["agent"].is_string() ? e["agent"].get<std::string>() : std::string();
    Spent& by_agent = out.spent_by_agent[agent];
    const std::string where = "trace event seq " + std::to_string(e.value("seq", -1)) + " (" + e.value("type", "") + ")";
    try {
      if (e.contains("elapsed_s") && e["elapsed_s"].is_number())
        st.elapsed_s = std::max(st.elapsed_s, e["elapsed_s"].get<double>());
      if (!type) continue;  // a type this version does not know: a newer writer's, skipped
      if (type == TraceEventType::campaign_started) {
        out.started = e;
        st.campaign_id = e.value("campaign_id", "");
        st.arch = e.value("arch", "");
        st.has_reference = e.value("has_reference", false);
      } else if (type == TraceEventType::turn_started) {
        st.turn = required<int>(e, "turn", where);
        open_turn[agent] = st.turn;
        ++st.spent.turns;
        ++by_agent.turns;
        ++out.turns_started;
        out.last_message = optional_value<Message>(e, "message", where);
      } else if (type == TraceEventType::tool_call) {
        ++st.spent.tool_calls;
        ++by_agent.tool_calls;
      } else if (type == TraceEventType::usage) {
        const Usage u = required<Usage>(e, "usage", where);
        st.spent.tokens += u.total_tokens();
        st.spent.cost_usd += u.cost_usd;
        by_agent.tokens += u.total_tokens();
        by_agent.cost_usd += u.cost_usd;
      } else if (type == TraceEventType::evaluation) {
        EvaluationRecord rec = required<EvaluationRecord>(e, "record", where);
        ++st.spent.evaluations;
        ++by_agent.evaluations;
        if (rec.origin == EvaluationOrigin::agent) ++st.spent.agent_evaluations, ++by_agent.agent_evaluations;
        st.evaluations.push_back(std::move(rec));
      } else if (type == TraceEventType::trigger) {
        st.triggers.push_back(required<TriggerEvent>(e, "event", where));
      } else if (type == TraceEventType::question) {
        AskedQuestion asked = required<AskedQuestion>(e, "asked", where);
        if (asked.agent_id.empty()) asked.agent_id = e.value("agent", "");
        st.asked.push_back(std::move(asked));
      } else if (type == TraceEventType::verdict) {
        out.last_verdict = required<Verdict>(e, "verdict", where);
      } else if (type == TraceEventType::turn_ended) {
        const TurnResult r = required<TurnResult>(e, "result", where);
        open_turn.erase(agent);
        st.last_agent_message = r.final_message;
        const Usage extra = optional_field<Usage>(e, "unreported_usage", {});
        st.spent.tokens += extra.total_tokens();
        st.spent.cost_usd += extra.cost_usd;
        by_agent.tokens += extra.total_tokens();
        by_agent.cost_usd += extra.cost_usd;
      } else if (type == TraceEventType::campaign_ended) {
        out.ended = true;
        out.end_reason = required<StopReason>(e, "reason", where);
        out.end_detail = e.value("detail", "");
      } else if (type == TraceEventType::campaign_continued) {  // an ending that a later run took back
        out.ended = false;
      }
      // A run that takes the campaign up again finds the turns its predecessor left open cut off.
      if (type == TraceEventType::campaign_resumed || type == TraceEventType::campaign_continued) {
        for (const auto& [who, turn] : open_turn) {
          out.cut_turns.push_back({who, turn});
          --st.spent.turns;
          --out.spent_by_agent[who].turns;
        }
        open_turn.clear();
      }
    } catch (const input_error& err) {
      throw input_error({}, where, err.message());
    }
  }
  for (const auto& [who, turn] : open_turn) out.open_turns.push_back({who, turn});
  st.spent.wall_seconds = st.elapsed_s;
  for (auto& [agent, spent] : out.spent_by_agent) spent.wall_seconds = st.elapsed_s;
  return out;
}

}  // namespace socratic
