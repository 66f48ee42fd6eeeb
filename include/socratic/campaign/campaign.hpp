#pragma once
/// @file
/// @brief Campaign<A, E, Q, G>: the in-process loop, a driver on the campaign engine
/// (campaign/engine.hpp) that composes an agent, an evaluator, a question source and a goal.
///
/// When the agent ends its turn the campaign evaluates the candidate itself (it never trusts the
/// agent's claim), applies the goal to every scenario, and either ends or sends the agent back
/// with the unmet conditions and a question for the moment its detectors saw.

#include <filesystem>
#include <string>

#include "socratic/campaign/config.hpp"
#include "socratic/campaign/engine.hpp"
#include "socratic/concepts.hpp"

namespace socratic {

/// @brief The campaign loop.
///
/// @tparam A an Agent, @tparam E an Evaluator, @tparam Q a QuestionSource, @tparam G a
/// GoalPredicate. The agent, evaluator and source are held by reference and must outlive it.
///
/// @par Example
/// @code
/// socratic::Campaign campaign(agent, evaluator, questions,
///                             socratic::goals::every_scenario_speedup_at_least{1.1}, config);
/// socratic::CampaignResult result = campaign.run();
/// @endcode
template <Agent A, Evaluator E, QuestionSource Q, GoalPredicate G>
class Campaign {
 public:
  Campaign(A& agent, E& evaluator, Q& questions, G goal, CampaignConfig config)
      : agent_(agent), engine_(evaluator, questions, std::move(goal), checked(std::move(config))) {}

  /// @brief The trace file.
  std::filesystem::path trace_path() const { return engine_.trace_path(); }
  /// @brief The campaign's memory (valid during and after run()).
  CampaignState state() const { return engine_.state(); }
  /// @brief The engine under the loop, for drivers that extend it.
  CampaignEngine<E, Q, G>& engine() noexcept { return engine_; }

  /// @brief Runs until the goal holds, a budget is spent, the agent fails or it is cancelled.
  /// A campaign whose trace already ends returns that ending without running again; one that
  /// ended on an agent or evaluator error continues (same history, same budgets).
  CampaignResult run() {
    const std::string id = engine_.config().agent_id;
    const OpenResult opened = engine_.open();
    if (opened.goal_met_unrecorded) return engine_.end(StopReason::goal_met);
    if (opened.ended) return engine_.result(*opened.end_reason, opened.end_detail);
    Message message = opened.fresh ? engine_.start_message(id) : engine_.resume_message(id, opened);
    while (true) {
      if (auto b = engine_.exhausted(id))
        return engine_.end(b->reason, b->agent.empty() ? "" : "agent " + id + "'s own budget");
      if (engine_.cancelled()) return engine_.end(StopReason::cancelled);
      engine_.begin_turn(id, message);
      Tools tools = engine_.tools(id);
      TurnResult result;
      try {
        result = agent_.turn(message, tools);
      } catch (const std::exception& e) {
        result.error = std::string("agent threw: ") + e.what();
      }
      engine_.end_turn(id, result);
      if (!result.error.empty()) return engine_.end(StopReason::agent_error, result.error);
      StopOutcome stop = engine_.handle_stop(id, result.final_message);
      if (stop.end_reason) return engine_.end(*stop.end_reason, stop.end_detail);
      if (stop.agent_budget_spent)  // one agent: its own budget is the campaign's end
        return engine_.end(*stop.agent_budget_spent, "agent " + id + "'s own budget");
      message = std::move(*stop.send_back);
    }
  }

 private:
  static CampaignConfig checked(CampaignConfig c) {
    if (c.workspace.empty()) throw error("campaign: workspace is required");
    return c;
  }

  A& agent_;
  CampaignEngine<E, Q, G> engine_;
};

}  // namespace socratic
