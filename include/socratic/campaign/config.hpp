#pragma once
/// @file
/// @brief CampaignConfig, the one description of a campaign that every driver reads (the
/// in-process loop, the stop hook, the drivers to come), and what a campaign reports back:
/// CampaignProgress (live) and CampaignResult (at the end).

#include <cmath>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "socratic/core/budget.hpp"
#include "socratic/core/campaign_state.hpp"
#include "socratic/core/candidate.hpp"
#include "socratic/core/question.hpp"
#include "socratic/core/report.hpp"
#include "socratic/core/verdict.hpp"
#include "socratic/goals/stop_hook.hpp"
#include "socratic/questions/detector.hpp"

namespace socratic {

/// @brief The steps the live progress reports.
enum class CampaignStep { turn_started, evaluation, question, verdict, resumed, continued, ended };

constexpr std::string_view to_string(CampaignStep s) noexcept {
  switch (s) {
    case CampaignStep::turn_started: return "turn_started";
    case CampaignStep::evaluation: return "evaluation";
    case CampaignStep::question: return "question";
    case CampaignStep::verdict: return "verdict";
    case CampaignStep::resumed: return "resumed";
    case CampaignStep::continued: return "continued";
    case CampaignStep::ended: return "ended";
  }
  return "unknown";
}

/// @brief What the live-progress callback sees after each notable step.
struct CampaignProgress {
  CampaignStep event = CampaignStep::turn_started;
  std::string agent;   ///< the agent whose step it was
  int turn = 0;
  int evaluations = 0;
  double best_score = std::nan("");
  std::optional<Question> last_question;
  Spent spent;
  /// For `continued`: how the campaign had ended (e.g. `agent_error: backend unreachable`); for
  /// `ended`: the reason and its detail.
  std::string detail;
};

/// @brief One more agent of a campaign (the parallel driver runs several over one
/// state and one trace). The campaign's default agent is `CampaignConfig::agent_id`, with the
/// config's workspace and candidate.
struct AgentSpec {
  std::string id;
  std::filesystem::path workspace;  ///< its folder (empty: the campaign's)
  Candidate candidate;              ///< the file evaluated for it (empty source: the campaign's)
  std::optional<Budget> budget;     ///< its own limits (nullopt: CampaignConfig::agent_budget)
};

/// @brief How a campaign runs, whichever driver runs it. Only `workspace`, `candidate` and
/// `state_dir` are required.
struct CampaignConfig {
  std::string campaign_id;  ///< default: the state folder's name (its parent's when hidden)
  std::string task;         ///< what the agent is asked to do (first message)
  std::filesystem::path workspace;  ///< the agent's folder
  Candidate candidate;              ///< the file the campaign evaluates (inside the workspace)
  std::filesystem::path state_dir;  ///< trace.jsonl and candidates/ snapshots live here
  Budget budget;                    ///< limits of the whole campaign (every agent together)
  Budget agent_budget;              ///< limits of each agent alone (unset: none)
  std::vector<std::string> scenario_ids;  ///< expected scenarios (for reports when evaluation fails)
  std::string arch;                       ///< GPU architecture in use, for question filtering
  bool has_reference = false;             ///< another implementation exists to compare with
  std::string agent_id = "main";          ///< the default agent
  std::vector<AgentSpec> agents;          ///< further agents, if any
  /// Detectors consulted at the campaign start, after evaluations and at unmet stops. The
  /// campaign itself fires `start` on the first turn and a plain `claimed_limit` at an unmet stop
  /// when no detector fires. questions/detectors.hpp has the reference ones.
  std::vector<std::shared_ptr<TriggerDetector>> detectors;
  bool resume = true;  ///< continue from an existing trace in state_dir
  /// Consecutive evaluator exceptions after which the campaign gives up (`evaluator_error`).
  int max_evaluator_failures = 3;
  /// A stop check of content that was already judged (same content hash, a report without a
  /// harness error) repeats that judgement instead of measuring again: judging unchanged content
  /// twice must not be a lottery. The record says `reused_from`, the message says so.
  bool reuse_unchanged_judgement = true;
  /// A fingerprint of the judge (the evaluator, its settings, the scenarios), recorded with each
  /// evaluation: a judgement is repeated only under the same judge, so that a campaign whose
  /// evaluator or scenarios changed between runs (a stop hook's campaign file edited) measures
  /// again. Empty: one judge for the campaign's whole life.
  std::string judge;
  /// The stop hook's cap on consecutive blocks (goals/stop_hook.hpp).
  StopHookPolicy stop_hook;
  std::function<void(const CampaignProgress&)> on_progress;
  std::function<bool()> cancelled;  ///< polled between steps; true ends the campaign
  /// Formats a report for the agent; default compact_summary().
  std::function<std::string(const EvalReport&)> summarize;
};

/// @brief The stop hook's config is the campaign's (kept as a name for older code).
using StopHookConfig = CampaignConfig;

/// @brief How a campaign ended.
struct CampaignResult {
  StopReason reason = StopReason::goal_met;  ///< why it ended (goal_met says the goal holds)
  std::string detail;  ///< what the reason needs to be understood (the agent's error, ...)
  bool goal_met = false;
  std::optional<EvaluationRecord> best;
  std::optional<Verdict> last_verdict;
  Spent spent;
  int turns = 0;
  std::filesystem::path trace_path;
};

}  // namespace socratic
