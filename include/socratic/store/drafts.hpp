#pragma once
/// @file
/// @brief Drafts at plateaus: when the incumbent has not moved for a number of gated attempts,
/// the coordinator asks agents for new directions, each seeded by a different question the
/// source picks for the plateau trigger and started from the incumbent, an earlier incumbent, or
/// a candidate that was correct but slower. docs/gate.md, "Drafts".

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "socratic/concepts.hpp"
#include "socratic/core/campaign_state.hpp"
#include "socratic/core/question.hpp"
#include "socratic/store/candidate_store.hpp"

namespace socratic {

/// @brief When drafts fire.
struct DraftConfig {
  /// Gated attempts without an admission that make a plateau; drafts fire when the count reaches
  /// it, and again at each further multiple. 0: never.
  int plateau_attempts = 8;
  /// How many agents are asked for a draft at each plateau (0: every agent).
  int agents_per_plateau = 0;
};

/// @brief Whether drafts fire after `attempts_since_admission` gated attempts without an
/// admission: exactly at each multiple of plateau_attempts (once per window, never between).
inline bool plateau_reached(int attempts_since_admission, const DraftConfig& config) {
  return config.plateau_attempts > 0 && attempts_since_admission > 0 &&
         attempts_since_admission % config.plateau_attempts == 0;
}

/// @brief Where a draft starts.
enum class DraftStart { incumbent, earlier, slower };
constexpr std::string_view to_string(DraftStart s) noexcept {
  switch (s) {
    case DraftStart::incumbent: return "incumbent";
    case DraftStart::earlier: return "earlier candidate";
    case DraftStart::slower: return "correct but slower candidate";
  }
  return "unknown";
}

/// @brief One agent's draft: its question and its start point.
struct DraftAssignment {
  std::string agent;
  Question question;
  DraftStart start = DraftStart::incumbent;
  std::string start_id;  ///< the store record the draft starts from
};

/// @brief The start points a store offers: the incumbent, the newest earlier incumbent, the
/// newest correct candidate that was refused (correct, not faster).
struct DraftStarts {
  std::optional<RecordSummary> incumbent, earlier, slower;
};
inline DraftStarts draft_starts(const std::vector<RecordSummary>& summaries) {
  DraftStarts s;
  for (auto it = summaries.rbegin(); it != summaries.rend(); ++it) {
    if (it->verdict == GateOutcome::admitted) {
      if (!s.incumbent)
        s.incumbent = *it;
      else if (!s.earlier)
        s.earlier = *it;
    } else if (it->verdict == GateOutcome::refused && !s.slower && !it->scenarios.empty()) {
      bool correct = true;
      for (const auto& [id, f] : it->scenarios) correct = correct && f.correct;
      if (correct) s.slower = *it;
    }
  }
  return s;
}

/// @brief Plans the drafts of one plateau: for each of `agents` (in order) a question of the
/// source for Trigger::plateau that no other agent of this plateau got (an agent's preferred
/// group first, when a question of it comes), and a start point, rotating over incumbent,
/// earlier, slower (the incumbent when the store has no other). Deterministic for a
/// deterministic source.
template <QuestionSource Q>
std::vector<DraftAssignment> plan_drafts(Q& questions, CampaignState state, const std::vector<std::string>& agents,
                                         const std::vector<std::string>& preferred_groups,
                                         const std::vector<RecordSummary>& summaries, int attempts) {
  std::vector<DraftAssignment> out;
  const DraftStarts starts = draft_starts(summaries);
  std::set<std::string> taken;
  TriggerEvent event{Trigger::plateau, "drafts",
                     std::to_string(attempts) + " gated attempts without a new incumbent", 20,
                     json{{"attempts_since_admission", attempts}}};
  for (std::size_t i = 0; i < agents.size(); ++i) {
    std::optional<Question> chosen, fallback;
    const std::string preferred = i < preferred_groups.size() ? preferred_groups[i] : std::string();
    for (int tries = 0; tries < 16 && !chosen; ++tries) {
      std::optional<Question> q = questions.ask(event, state);
      if (!q) break;
      state.asked.push_back(AskedQuestion{*q, state.turn, -1, state.elapsed_s, agents[i]});  // the source skips it next
      if (taken.count(q->id.empty() ? q->text : q->id)) continue;
      if (preferred.empty() || q->group == preferred)
        chosen = q;
      else if (!fallback)
        fallback = q;
    }
    if (!chosen) chosen = fallback;
    if (!chosen) break;  // the source has no more distinct questions for a plateau
    taken.insert(chosen->id.empty() ? chosen->text : chosen->id);
    chosen->trigger = Trigger::plateau;
    if (chosen->evidence.empty()) chosen->evidence = event.evidence;
    DraftAssignment a;
    a.agent = agents[i];
    a.question = *chosen;
    const DraftStart order[3] = {DraftStart::incumbent, DraftStart::earlier, DraftStart::slower};
    a.start = order[i % 3];
    const std::optional<RecordSummary>* pick = a.start == DraftStart::earlier ? &starts.earlier
                                               : a.start == DraftStart::slower ? &starts.slower
                                                                               : &starts.incumbent;
    if (!*pick) a.start = DraftStart::incumbent, pick = &starts.incumbent;
    if (*pick) a.start_id = (*pick)->id;
    out.push_back(std::move(a));
  }
  return out;
}

}  // namespace socratic
