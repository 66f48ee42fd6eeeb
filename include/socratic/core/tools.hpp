#pragma once
/// @file
/// @brief Tools: what the campaign lends an agent for one turn (its workspace, the evaluator,
/// budget accounting, the trace).

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "socratic/core/candidate.hpp"
#include "socratic/core/json.hpp"
#include "socratic/core/message.hpp"
#include "socratic/core/question.hpp"
#include "socratic/core/report.hpp"

namespace socratic {

/// @brief The answer of the `evaluate` tool: the report, and a question when a detector fired.
struct EvaluateResult {
  bool refused = false;     ///< the evaluation budget is spent: nothing was evaluated
  std::string refusal;      ///< why, when refused
  EvalReport report;
  std::optional<Question> question;  ///< attached when a trigger fired on this evaluation
  std::string summary;               ///< compact per-scenario table for the model
};

/// @brief What the campaign lends an agent for one turn.
///
/// An Agent uses it to find its workspace and candidate, to evaluate the candidate, to account
/// for every tool call and for model usage (so budgets hold mid-turn), and to write its own
/// events into the campaign trace. Tests and custom drivers can build one from plain functions.
class Tools {
 public:
  using evaluate_fn = std::function<EvaluateResult()>;
  using charge_fn = std::function<bool(std::string_view tool)>;
  using usage_fn = std::function<bool(const Usage&)>;
  using record_fn = std::function<void(const json&)>;

  Tools(std::filesystem::path workspace, Candidate candidate, evaluate_fn evaluate,
        charge_fn charge = {}, usage_fn usage = {}, record_fn record = {})
      : workspace_(std::move(workspace)),
        candidate_(std::move(candidate)),
        evaluate_(std::move(evaluate)),
        charge_(std::move(charge)),
        usage_(std::move(usage)),
        record_(std::move(record)) {}

  /// @brief The folder the agent may read and write; nothing outside it.
  const std::filesystem::path& workspace() const noexcept { return workspace_; }
  /// @brief The candidate the campaign evaluates (its source lies in the workspace).
  const Candidate& candidate() const noexcept { return candidate_; }

  /// @brief Evaluates the current candidate. Counts as one tool call and one evaluation.
  EvaluateResult evaluate() {
    if (!charge("evaluate")) {
      EvaluateResult r;
      r.refused = true;
      r.refusal = "tool-call budget spent";
      return r;
    }
    return evaluate_();
  }

  /// @brief Accounts for one tool call. False when a budget is spent: the agent should end its turn.
  bool charge(std::string_view tool) {
    if (exhausted_) return false;
    if (charge_ && !charge_(tool)) exhausted_ = true;
    return !exhausted_;
  }

  /// @brief Accounts for model usage. False when the token, cost or time budget is spent.
  bool add_usage(const Usage& u) {
    if (usage_ && !usage_(u)) exhausted_ = true;
    return !exhausted_;
  }

  /// @brief Writes an agent event (tool call, model request, ...) into the campaign trace.
  /// The trace redacts secrets; keep payloads small (the trace is read back on resume).
  void record(const json& event) {
    if (record_) record_(event);
  }

  /// @brief True once a budget refused more work in this turn.
  bool exhausted() const noexcept { return exhausted_; }

 private:
  std::filesystem::path workspace_;
  Candidate candidate_;
  evaluate_fn evaluate_;
  charge_fn charge_;
  usage_fn usage_;
  record_fn record_;
  bool exhausted_ = false;
};

}  // namespace socratic
