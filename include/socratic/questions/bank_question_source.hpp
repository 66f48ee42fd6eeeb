#pragma once
/// @file
/// @brief BankQuestionSource: the reference QuestionSource, drawing questions from a bank.
///
/// Selection, for an event with trigger T in a campaign state S:
/// 1. the pool: entries that serve T, fit S.arch, and need no reference unless S.has_reference;
/// 2. no repeats until the pool is exhausted: only the entries asked least often in this
///    campaign remain (so every entry is asked once before any is asked twice);
/// 3. fit: when the event's `details.prefer_tags` names tags and some remaining entry has one,
///    only those remain (a limit claim gets limit questions);
/// 4. adaptive mode only (credits given): with probability 1 - exploration_rate, only the
///    entries with the highest credit estimate remain;
/// 5. group rotation: only entries of the group(s) asked longest ago (never asked first) remain;
/// 6. a uniform pick, from a generator seeded by (seed, questions asked so far, trigger).
///
/// The same seed and the same history give the same question, across runs and platforms.
/// What was asked is read from S.asked (so a resumed campaign does not repeat itself) and from
/// the source's own memory of the campaign, whichever is longer.

#include <algorithm>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "socratic/concepts.hpp"
#include "socratic/core/campaign_state.hpp"
#include "socratic/core/question.hpp"
#include "socratic/questions/bank.hpp"
#include "socratic/questions/credit.hpp"

namespace socratic {

namespace detail {

/// splitmix64: a small generator whose output is the same on every platform (std::
/// distributions are not), so a seed reproduces a campaign anywhere.
class SplitMix64 {
 public:
  explicit SplitMix64(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  /// Uniform in [0, n), n > 0 (rejection sampling: no modulo bias).
  std::size_t below(std::size_t n) {
    const std::uint64_t limit = std::numeric_limits<std::uint64_t>::max() -
                                std::numeric_limits<std::uint64_t>::max() % n;
    std::uint64_t x;
    do x = next(); while (x >= limit);
    return static_cast<std::size_t>(x % n);
  }
  /// Uniform in [0, 1).
  double unit() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

 private:
  std::uint64_t state_;
};

}  // namespace detail

/// @brief Options of BankQuestionSource.
struct BankSourceOptions {
  std::uint64_t seed = 0;      ///< reproducibility: same seed and history, same question
  bool rotate_groups = true;   ///< prefer the group asked longest ago
  /// Adaptive mode: when set, prefer questions with the highest credit estimate.
  std::optional<CreditTable> credits;
  double exploration_rate = 0.2;  ///< adaptive mode: chance of ignoring credits for one pick
  CreditPrior prior;              ///< adaptive mode: the estimate's prior
  /// The kinds of the problem being optimised (problem.json's `kinds`, e.g. gpu, matmul,
  /// attention): entries that need another kind are left out, and with an empty list every
  /// kind-specific entry is. nullopt: no filter by kind (every entry, whatever the problem).
  std::optional<std::vector<std::string>> problem_kinds;
};

/// @brief Why a question was chosen; the source keeps one per question it returned.
struct SelectionRecord {
  Question question;
  TriggerEvent event;           ///< the trigger and its evidence
  std::size_t pool_size = 0;    ///< entries eligible for the trigger
  std::size_t candidates = 0;   ///< entries left before the final pick
  int times_asked_before = 0;   ///< how often it had been asked in the campaign
  bool explored = false;        ///< adaptive mode: the pick ignored credits
  double credit_estimate = -1;  ///< adaptive mode: its estimate, else -1
};

/// @brief The reference QuestionSource (see the file comment for the selection rule).
class BankQuestionSource {
 public:
  explicit BankQuestionSource(Bank bank, BankSourceOptions options = {})
      : bank_(std::move(bank)), options_(std::move(options)) {}

  const Bank& bank() const noexcept { return bank_; }
  const BankSourceOptions& options() const noexcept { return options_; }
  /// @brief Every question this source returned in the current campaign, with why.
  const std::vector<SelectionRecord>& history() const noexcept { return history_; }

  /// @brief The entries eligible for `trigger` in `state`: serving it, fitting the GPU's
  /// architecture and the problem's kinds, and needing a reference only when one exists. Entries
  /// tagged `search-only` speak of parents, inspirations and islands: only the evolutionary
  /// search asks them (evolve/mutation.hpp).
  std::vector<const BankEntry*> pool(Trigger trigger, const CampaignState& state) const {
    std::vector<const BankEntry*> out;
    for (const auto& e : bank_.entries)
      if (e.serves(trigger) && e.fits_arch(state.arch) && (!e.requires_reference || state.has_reference) &&
          (!options_.problem_kinds || e.fits_kinds(*options_.problem_kinds)) && !e.has_tag("search-only"))
        out.push_back(&e);
    return out;
  }

  /// @brief The next question for `event`, or nullopt when no entry fits.
  std::optional<Question> ask(const TriggerEvent& event, const CampaignState& state) {
    if (state.campaign_id != campaign_id_) {
      campaign_id_ = state.campaign_id;
      own_asked_.clear();
      history_.clear();
    }
    const auto eligible = pool(event.trigger, state);
    if (eligible.empty()) return std::nullopt;

    // The campaign's history of asked ids: its state's, or this source's when longer.
    std::vector<std::string> asked;
    for (const auto& a : state.asked) asked.push_back(a.question.id);
    if (own_asked_.size() > asked.size()) asked = own_asked_;
    std::map<std::string, int> count;
    std::map<std::string, long> group_last;  // group -> last position asked
    for (std::size_t i = 0; i < asked.size(); ++i) {
      ++count[asked[i]];
      if (const BankEntry* e = bank_.find(asked[i])) group_last[e->group] = static_cast<long>(i);
    }

    std::uint64_t trigger_code = static_cast<std::uint64_t>(event.trigger) + 1;
    detail::SplitMix64 rng(options_.seed ^ (asked.size() * 0x9E3779B97F4A7C15ull) ^ (trigger_code << 56));

    // 2. least asked first: no repeats until the pool is exhausted.
    int least = std::numeric_limits<int>::max();
    for (const auto* e : eligible) least = std::min(least, count[e->id]);
    std::vector<const BankEntry*> cands;
    for (const auto* e : eligible)
      if (count[e->id] == least) cands.push_back(e);

    // 3. entries whose tags fit the finding.
    if (auto it = event.details.find("prefer_tags"); it != event.details.end() && it->is_array()) {
      std::vector<const BankEntry*> fitting;
      for (const auto* e : cands)
        for (const auto& tag : *it)
          if (tag.is_string() && e->has_tag(tag.get<std::string>())) {
            fitting.push_back(e);
            break;
          }
      if (!fitting.empty()) cands = std::move(fitting);
    }

    // 4. adaptive mode: exploit the credit estimates, or explore.
    bool explored = false;
    if (options_.credits) {
      explored = rng.unit() < options_.exploration_rate;
      if (!explored) {
        double best = -1;
        for (const auto* e : cands) best = std::max(best, options_.credits->estimate(e->id, options_.prior));
        std::vector<const BankEntry*> top;
        for (const auto* e : cands)
          if (options_.credits->estimate(e->id, options_.prior) >= best - 1e-12) top.push_back(e);
        cands = std::move(top);
      }
    }

    // 5. group rotation: the group asked longest ago (never asked: -1) goes first.
    if (options_.rotate_groups) {
      long oldest = std::numeric_limits<long>::max();
      for (const auto* e : cands) oldest = std::min(oldest, group_last.count(e->group) ? group_last[e->group] : -1L);
      std::vector<const BankEntry*> rotated;
      for (const auto* e : cands)
        if ((group_last.count(e->group) ? group_last[e->group] : -1L) == oldest) rotated.push_back(e);
      cands = std::move(rotated);
    }

    // 6. the pick.
    const BankEntry& chosen = *cands[rng.below(cands.size())];
    Question q{chosen.id, chosen.group, chosen.text, chosen.checks, event.trigger, event.evidence};
    own_asked_ = asked;
    own_asked_.push_back(chosen.id);
    SelectionRecord record{q, event, eligible.size(), cands.size(), least, explored, -1};
    if (options_.credits) record.credit_estimate = options_.credits->estimate(chosen.id, options_.prior);
    history_.push_back(std::move(record));
    return q;
  }

 private:
  Bank bank_;
  BankSourceOptions options_;
  std::string campaign_id_;
  std::vector<std::string> own_asked_;
  std::vector<SelectionRecord> history_;
};

static_assert(QuestionSource<BankQuestionSource>, "BankQuestionSource must satisfy QuestionSource");

}  // namespace socratic
