#pragma once
/// @file
/// @brief Which questions pay: a Thompson-sampling bandit over bank questions, rewarded by gated
/// gains, persisted across campaigns and merged into the bank's credit table.
///
/// An arm is a question id. Its prior is the bank's credit (questions/credit.hpp): the credit
/// table's estimate p for the id, worth `prior_weight` pseudo-observations (Beta(p·w, (1-p)·w));
/// without a table every arm starts at Beta(1, 1). A pull is one mutation asked with the question;
/// its reward is 1 when the child passed the gate (admitted past the measured noise), 0 otherwise.
/// Choosing draws from each arm's posterior and takes the largest draw, so an arm never tried is
/// still drawn (exploration) and proven arms are preferred (exploitation); `explore` adds a uniform
/// choice with that probability.
///
/// The file is JSON: `{"schema_version":1, "campaigns":[ids], "arms":{"ID":{"pulls":N,
/// "admitted":M, "gain":G, "evidence":["CAMPAIGN#SEQ",...]}}}` — `evidence` names the journal
/// records of the admitted children, so a bank entry's evidence can come from search results.

#include <algorithm>
#include <filesystem>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "socratic/core/error.hpp"
#include "socratic/core/files.hpp"
#include "socratic/core/json.hpp"
#include "socratic/questions/credit.hpp"

namespace socratic::evolve {

/// @brief What a question's mutations earned.
struct ArmStats {
  int pulls = 0;
  int admitted = 0;
  double gain = 0;                    ///< sum of the admitted children's relative gains
  std::vector<std::string> evidence;  ///< `CAMPAIGN#SEQ` of each admitted child's record (last 16)
};

/// @brief The bandit's settings.
struct BanditConfig {
  double prior_weight = 2;  ///< pseudo-observations the credit table's estimate is worth
  double explore = 0.05;    ///< probability of a uniform choice
};

/// @brief A Thompson-sampling bandit over question ids (see the file comment).
class QuestionBandit {
 public:
  BanditConfig config;
  std::map<std::string, ArmStats> arms;
  std::set<std::string> campaigns;  ///< campaigns whose pulls are counted here
  const CreditTable* credit = nullptr;  ///< the bank's credit, the prior (optional, not owned)

  /// @brief The posterior mean of arm `id` (its chance that a mutation it asks is admitted).
  double mean(const std::string& id) const {
    auto [a, b] = posterior(id);
    return a / (a + b);
  }

  /// @brief Chooses among `ids` (at least one).
  template <class Rng>
  std::string choose(const std::vector<std::string>& ids, Rng& rng) const {
    if (ids.empty()) throw error("question bandit: no question to choose from");
    std::uniform_real_distribution<double> u(0, 1);
    if (u(rng) < config.explore) return ids[std::uniform_int_distribution<std::size_t>(0, ids.size() - 1)(rng)];
    std::string best;
    double best_draw = -1;
    for (const auto& id : ids) {
      auto [a, b] = posterior(id);
      std::gamma_distribution<double> ga(a, 1.0), gb(b, 1.0);
      const double x = ga(rng), y = gb(rng);
      const double draw = x + y > 0 ? x / (x + y) : 0.5;
      if (draw > best_draw) best_draw = draw, best = id;
    }
    return best;
  }

  /// @brief Records one pull: `admitted` by the gate, with relative `gain` and the record naming it.
  void reward(const std::string& id, bool admitted, double gain = 0, const std::string& evidence = {}) {
    auto& a = arms[id];
    ++a.pulls;
    if (!admitted) return;
    ++a.admitted;
    a.gain += gain;
    if (!evidence.empty()) {
      a.evidence.push_back(evidence);
      if (a.evidence.size() > 16) a.evidence.erase(a.evidence.begin());
    }
  }

  /// @brief Adds this bandit's pulls to the bank's credit table as one campaign (asked = pulls,
  /// credited = admitted). Returns false, adding nothing, when `campaign_id` was counted already.
  bool merge_into(CreditTable& table, const std::string& campaign_id) const {
    if (!table.campaigns.insert(campaign_id).second) return false;
    for (const auto& [id, a] : arms) {
      auto& q = table.questions[id];
      q.asked += a.pulls;
      q.credited += a.admitted;
    }
    return true;
  }

  json to_json() const {
    json a = json::object();
    for (const auto& [id, s] : arms)
      a[id] = {{"pulls", s.pulls}, {"admitted", s.admitted}, {"gain", s.gain}, {"evidence", s.evidence}};
    return {{"schema_version", 1},
            {"config", {{"prior_weight", config.prior_weight}, {"explore", config.explore}}},
            {"campaigns", campaigns},
            {"arms", a}};
  }
  static QuestionBandit from_json(const json& j, const std::string& file = {}) {
    QuestionBandit b;
    try {
      check_schema_version(j, "question bandit");
      if (auto c = j.find("config"); c != j.end()) {
        b.config.prior_weight = optional_field<double>(*c, "prior_weight", 2.0, "config");
        b.config.explore = optional_field<double>(*c, "explore", 0.05, "config");
      }
      b.campaigns = optional_field<std::set<std::string>>(j, "campaigns", {}, "question bandit");
      const json arms = optional_field<json>(j, "arms", json::object());
      if (!arms.is_object()) throw input_error({}, "arms", "expected an object of id -> {pulls, admitted}");
      for (auto it = arms.begin(); it != arms.end(); ++it) {
        const std::string where = "arm \"" + it.key() + "\"";
        ArmStats s;
        s.pulls = required<int>(*it, "pulls", where);
        s.admitted = required<int>(*it, "admitted", where);
        s.gain = optional_field<double>(*it, "gain", 0.0, where);
        s.evidence = optional_field<std::vector<std::string>>(*it, "evidence", {}, where);
        if (s.pulls < 0 || s.admitted < 0 || s.admitted > s.pulls)
          throw input_error({}, where, "needs 0 <= admitted <= pulls");
        b.arms[it.key()] = std::move(s);
      }
    } catch (const input_error& e) {
      throw input_error(file, e.where(), e.message());
    }
    return b;
  }
  /// @brief Loads a bandit file; a missing file is a fresh bandit.
  static QuestionBandit load_or_new(const std::filesystem::path& path) {
    if (!std::filesystem::exists(path)) return {};
    return from_json(read_json_file(path), path.string());
  }
  void save(const std::filesystem::path& path) const { write_json_atomically(path, to_json()); }

 private:
  std::pair<double, double> posterior(const std::string& id) const {
    double a = 1, b = 1;
    if (credit && config.prior_weight > 0) {
      const double p = std::clamp(credit->estimate(id), 0.02, 0.98);
      a = p * config.prior_weight, b = (1 - p) * config.prior_weight;
    }
    if (auto it = arms.find(id); it != arms.end()) a += it->second.admitted, b += it->second.pulls - it->second.admitted;
    return {a, b};
  }
};

}  // namespace socratic::evolve
