#pragma once
/// @file
/// @brief Credit per question, learned from recorded campaigns, for BankQuestionSource's adaptive
/// mode.
///
/// The rule, per agent and per question:
/// - A *gain* is an evaluation that improves, by the ImprovementRule (beyond the noise), on the
///   best before it, the campaign's incumbent (the baseline's parity, speedup 1.0, before any):
///   the new bests beyond the noise that the report's timeline marks.
/// - A gain made by agent A (`EvaluationRecord::agent_id`) is credited to the questions asked of A
///   (`AskedQuestion::agent_id`) since A's previous gain: asked after that gain (or at any time
///   before it, when A had none) and before the gain itself, and followed by it within
///   `window_evaluations` of A's own evaluations (the question asked after evaluation `a`,
///   `AskedQuestion::after_evaluation`, -1 before any, is followed by A's evaluations after `a`).
///   A question asked of another agent never gets credit for A's gain.
/// - When more than one question qualifies, each is credited and the credit is marked shared
///   (`CreditOutcome::shared_by`, the number of questions that share that gain): the trace
///   cannot tell which of them did it.
/// A question that no gain of its agent followed in time counts as asked and not credited; so
/// does one whose window the campaign never filled. A trace that does not record agents (empty
/// ids) is one agent's.
///
/// The table is a JSON file: `{"schema_version":1, "rule":{...}, "campaigns":[ids],
/// "questions":{"ID":{"asked":N,"credited":M}}}`: a shared credit counts as a credit of each
/// question that shares it. A campaign is counted once (by its id).

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "socratic/core/campaign_state.hpp"
#include "socratic/core/error.hpp"
#include "socratic/core/json.hpp"
#include "socratic/core/files.hpp"
#include "socratic/core/detail/separate_compilation.hpp"
#include "socratic/questions/improvement.hpp"

namespace socratic {

/// @brief How credit is given (see the file comment).
struct CreditRule {
  int window_evaluations = 3;  ///< N: how many evaluations after the question may show its gain
  ImprovementRule improvement;
};

/// @brief The credit outcome of one asked question.
struct CreditOutcome {
  std::string question_id;
  int after_evaluation = -1;  ///< the evaluation it followed
  double reference_score = 1;  ///< the best score when it was asked (1.0: the baseline)
  bool credited = false;
  int credited_by = -1;       ///< the evaluation that showed the gain
  double gain = 0;            ///< that evaluation's score / reference_score - 1
  std::string agent;          ///< the agent it was asked of (the one whose gain may credit it)
  int shared_by = 0;          ///< credited: how many questions share the gain, itself included (1: its alone)
  bool shared() const noexcept { return shared_by > 1; }
};

/// @brief Applies the rule to one campaign's history: one outcome per asked question with an id,
/// in the order they were asked.
SOCRATIC_DECL std::vector<CreditOutcome> credit_questions(const CampaignState& state, const CreditRule& rule);

/// @brief How many times a question was asked and credited.
struct QuestionCredit {
  int asked = 0;
  int credited = 0;
  friend bool operator==(const QuestionCredit&, const QuestionCredit&) = default;
};

/// @brief The prior of the credit estimate: a Beta(successes, failures) pseudo-count. With the
/// default (1, 1) a never-asked question scores 0.5, above a question asked four times without
/// credit (1/6) and below one credited three times in four (4/6): new entries get asked, proven
/// ones get preferred.
struct CreditPrior {
  double successes = 1;
  double failures = 1;
};

/// @brief Credits per question, accumulated over campaigns; saved as JSON.
class CreditTable {
 public:
  CreditRule rule;
  std::map<std::string, QuestionCredit> questions;
  std::set<std::string> campaigns;  ///< ids of the campaigns already counted

  /// @brief Counts one campaign's questions. Returns false (and counts nothing) when a campaign
  /// with this id was already counted; campaigns without an id are always counted.
  bool add_campaign(const CampaignState& state) {
    if (!state.campaign_id.empty() && !campaigns.insert(state.campaign_id).second) return false;
    for (const auto& o : credit_questions(state, rule)) {
      auto& q = questions[o.question_id];
      ++q.asked;
      if (o.credited) ++q.credited;
    }
    return true;
  }

  /// @brief The estimated chance that asking `id` precedes a gain (posterior mean under `prior`).
  double estimate(const std::string& id, const CreditPrior& prior = {}) const {
    const auto it = questions.find(id);
    const double s = it == questions.end() ? 0 : it->second.credited;
    const double n = it == questions.end() ? 0 : it->second.asked;
    return (s + prior.successes) / (n + prior.successes + prior.failures);
  }

  /// @brief Reads a table; errors name the file and the field.
  static CreditTable from_json(const json& j, const std::string& file = {}) {
    CreditTable t;
    try {
      check_schema_version(j, "credit table");
      if (auto r = j.find("rule"); r != j.end()) {
        t.rule.window_evaluations = optional_field<int>(*r, "window_evaluations", 3, "rule");
        t.rule.improvement.noise_multiple = optional_field<double>(*r, "noise_multiple", 2.0, "rule");
        t.rule.improvement.min_relative = optional_field<double>(*r, "min_relative", 0.005, "rule");
        t.rule.improvement.default_noise = optional_field<double>(*r, "default_noise", 0.01, "rule");
      }
      t.campaigns = optional_field<std::set<std::string>>(j, "campaigns", {}, "credit table");
      const json qs = optional_field<json>(j, "questions", json::object());
      if (!qs.is_object()) throw input_error({}, "questions", "expected an object of id -> {asked, credited}");
      for (auto it = qs.begin(); it != qs.end(); ++it) {
        const std::string where = "question \"" + it.key() + "\"";
        QuestionCredit c;
        c.asked = required<int>(*it, "asked", where);
        c.credited = required<int>(*it, "credited", where);
        if (c.asked < 0 || c.credited < 0 || c.credited > c.asked)
          throw input_error({}, where, "needs 0 <= credited <= asked");
        t.questions[it.key()] = c;
      }
    } catch (const input_error& e) {
      throw input_error(file, e.where(), e.message());
    }
    return t;
  }
  json to_json() const {
    json qs = json::object();
    for (const auto& [id, c] : questions) qs[id] = {{"asked", c.asked}, {"credited", c.credited}};
    return {{"schema_version", schema_version},
            {"rule", {{"window_evaluations", rule.window_evaluations},
                      {"noise_multiple", rule.improvement.noise_multiple},
                      {"min_relative", rule.improvement.min_relative},
                      {"default_noise", rule.improvement.default_noise}}},
            {"campaigns", campaigns},
            {"questions", qs}};
  }

  /// @brief Loads a table file.
  static CreditTable load(const std::filesystem::path& path) {
    return from_json(read_json_file(path), path.string());
  }
  /// @brief Writes the table (through a temporary file, so a crash never leaves half a table).
  void save(const std::filesystem::path& path) const {
    write_json_atomically(path, to_json());
  }
};

}  // namespace socratic

#ifndef SOCRATIC_SEPARATE_COMPILATION
#include "socratic/questions/impl/credit.ipp"
#endif
