#pragma once
/// @file
/// @brief Credit per question, learned from recorded campaigns, for BankQuestionSource's adaptive
/// mode.
///
/// The rule: a question asked after evaluation `a` (`AskedQuestion::after_evaluation`, -1 before
/// any) is *credited* when one of the next `window_evaluations` evaluations (indices a+1 ..
/// a+window) improves, by the ImprovementRule (beyond noise), on the best score known when it
/// was asked; when no score was known yet, on the baseline's parity (speedup 1.0). Several
/// questions asked before the same gain are all credited: the trace cannot tell them apart. A
/// question whose window the campaign never filled counts as asked and not credited.
///
/// The table is a JSON file: `{"schema_version":1, "rule":{...}, "campaigns":[ids],
/// "questions":{"ID":{"asked":N,"credited":M}}}`. A campaign is counted once (by its id).

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
#include "socratic/detail/separate_compilation.hpp"
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
};

/// @brief Applies the rule to one campaign's history.
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
