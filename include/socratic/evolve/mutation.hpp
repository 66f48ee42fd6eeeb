#pragma once
/// @file
/// @brief The mutation operator: (question, parent, inspirations) to one agent turn in a fresh
/// workspace; crossover is a question over two parents; the plain operator ("make it faster") is
/// the ablation's control.
///
/// The question is chosen from the bank for the parent's situation: the trigger its last outcome
/// stands for (none yet: start; a child rejected by the gate: plateau; a child that failed a
/// scenario: correctness_explained_away; a jump past 1.5x: suspicious_gain) and the scenarios it
/// is weakest on (against the island's best there). Entries tagged `mutation` (or `crossover` for
/// two parents) are preferred; the bandit picks among those that fit.

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "socratic/core/files.hpp"
#include "socratic/core/question.hpp"
#include "socratic/core/report.hpp"
#include "socratic/evolve/bandit.hpp"
#include "socratic/evolve/population.hpp"
#include "socratic/questions/bank.hpp"

namespace socratic::evolve {

/// @brief How a child is asked for.
enum class MutationKind { question, plain, crossover };

inline const char* to_string(MutationKind k) {
  switch (k) {
    case MutationKind::question: return "question";
    case MutationKind::plain: return "mutation";
    case MutationKind::crossover: return "crossover";
  }
  return "question";
}

/// @brief The control operator's instruction (the ablation's "improve this").
inline constexpr const char* plain_instruction = "Make this kernel faster.";

/// @brief What the chooser knows about a parent.
struct Situation {
  Trigger trigger = Trigger::start;
  std::vector<std::string> weakest_scenarios;  ///< worst first
  std::vector<std::string> problem_kinds;      ///< problem.json's kinds (cpu, gpu, ...)
  std::string arch;                            ///< the GPU's architecture; empty: none known
  bool has_reference = false;
};

/// @brief The scenarios of `parent`, worst first, by its speedup over the best speedup on its
/// island there (a scenario it fails counts as 0).
inline std::vector<std::string> weakest_scenarios(const Member& parent, const std::vector<Member>& island,
                                                  const std::vector<std::string>& scenario_ids, std::size_t n = 2) {
  std::vector<std::pair<double, std::size_t>> ratio;
  for (std::size_t s = 0; s < scenario_ids.size() && s < parent.scenario_scores.size(); ++s) {
    double best = 0;
    for (const auto& m : island)
      if (s < m.scenario_scores.size() && valid_score(m.scenario_scores[s])) best = std::max(best, m.scenario_scores[s]);
    const double mine = valid_score(parent.scenario_scores[s]) ? parent.scenario_scores[s] : 0;
    ratio.push_back({best > 0 ? mine / best : 0, s});
  }
  std::stable_sort(ratio.begin(), ratio.end());
  std::vector<std::string> out;
  for (std::size_t i = 0; i < ratio.size() && out.size() < n; ++i) out.push_back(scenario_ids[ratio[i].second]);
  return out;
}

/// @brief The bank entries that fit the situation; those tagged `tag` when any fits.
inline std::vector<const BankEntry*> eligible_questions(const Bank& bank, const Situation& s,
                                                        const std::string& tag = "mutation") {
  std::vector<const BankEntry*> fit, tagged;
  for (const auto& e : bank.entries) {
    if (!e.serves(s.trigger) || !e.fits_kinds(s.problem_kinds) || !e.fits_arch(s.arch)) continue;
    if (e.requires_reference && !s.has_reference) continue;
    fit.push_back(&e);
    if (e.has_tag(tag)) tagged.push_back(&e);
  }
  if (!tagged.empty()) return tagged;
  if (!fit.empty()) return fit;
  // No entry serves this trigger here: any tagged entry that fits the problem.
  for (const auto& e : bank.entries)
    if (e.has_tag(tag) && e.fits_kinds(s.problem_kinds) && e.fits_arch(s.arch) && (!e.requires_reference || s.has_reference))
      fit.push_back(&e);
  return fit;
}

/// @brief Chooses the question for a situation through the bandit; nullptr when the bank has none.
template <class Rng>
const BankEntry* choose_question(const Bank& bank, const QuestionBandit& bandit, const Situation& s, Rng& rng,
                                 const std::string& tag = "mutation") {
  const auto fit = eligible_questions(bank, s, tag);
  if (fit.empty()) return nullptr;
  std::vector<std::string> ids;
  for (const auto* e : fit) ids.push_back(e->id);
  const std::string id = bandit.choose(ids, rng);
  return bank.find(id);
}

/// @brief A candidate as the agent sees it: its source and its last report.
struct CandidateView {
  std::string id;
  std::string source;
  std::optional<EvalReport> report;
};

/// @brief One agent turn's task.
struct MutationTask {
  MutationKind kind = MutationKind::question;
  std::string question_id;    ///< empty for the plain operator
  std::string question_text;  ///< the question, or plain_instruction
  CandidateView parent;
  std::optional<CandidateView> second_parent;  ///< crossover only
  std::vector<CandidateView> inspirations;     ///< one or two
  std::vector<std::string> weakest_scenarios;
};

/// @brief One line per scenario: id, correct, times and speedup.
inline std::string report_summary(const EvalReport& r) {
  std::ostringstream o;
  o.precision(4);
  if (!r.built) return "did not build\n";
  if (!r.error.empty()) o << "error: " << r.error << "\n";
  for (const auto& id : r.expected) {
    const auto* s = r.find(id);
    if (!s) {
      o << "- " << id << ": missing\n";
      continue;
    }
    o << "- " << id << ": " << (s->correct ? "correct" : "WRONG (" + s->reason + ")") << ", " << s->candidate_ms
      << " ms against the baseline's " << s->baseline_ms << " ms, speedup " << s->speedup << "\n";
  }
  o << "geomean speedup " << r.geomean_speedup() << "\n";
  return o.str();
}

/// @brief The message of one agent turn: the question first, then what it is about.
inline std::string mutation_message(const MutationTask& t, const std::string& candidate_file) {
  std::ostringstream o;
  if (t.kind == MutationKind::plain) {
    o << plain_instruction << "\n\nEdit `" << candidate_file << "` in this folder; it is the parent below.\n";
  } else {
    o << "Question: " << t.question_text << "\n\n";
    if (t.kind == MutationKind::crossover)
      o << "Answer it for the two parents below, then write in `" << candidate_file
        << "` (now parent A) one candidate that carries over what the answer points to.\n";
    else
      o << "Answer it by measuring or reading the code, then change `" << candidate_file
        << "` (now the parent below) as the answer suggests. One change, checked.\n";
  }
  if (!t.weakest_scenarios.empty()) {
    o << "\nThe parent's weakest scenarios, against the best of its island: ";
    for (std::size_t i = 0; i < t.weakest_scenarios.size(); ++i) o << (i ? ", " : "") << t.weakest_scenarios[i];
    o << ".\n";
  }
  auto section = [&](const char* title, const CandidateView& c, const std::string& file) {
    o << "\n## " << title << " (" << c.id << ", in `" << file << "`)\n";
    if (c.report) o << report_summary(*c.report);
  };
  section(t.kind == MutationKind::crossover ? "Parent A" : "Parent", t.parent, candidate_file);
  if (t.second_parent) section("Parent B", *t.second_parent, "parent_b" + std::filesystem::path(candidate_file).extension().string());
  for (std::size_t i = 0; i < t.inspirations.size(); ++i)
    section(("Inspiration " + std::to_string(i + 1)).c_str(), t.inspirations[i],
            "inspiration_" + std::to_string(i + 1) + std::filesystem::path(candidate_file).extension().string());
  return o.str();
}

/// @brief Writes a fresh workspace for the task: the parent as `candidate_file`, parent B and the
/// inspirations beside it, and TASK.md holding the message. Returns the message.
inline std::string write_mutation_workspace(const std::filesystem::path& dir, const MutationTask& t,
                                            const std::string& candidate_file) {
  namespace fs = std::filesystem;
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string ext = fs::path(candidate_file).extension().string();
  write_file_atomically(dir / candidate_file, t.parent.source);
  if (t.second_parent) write_file_atomically(dir / ("parent_b" + ext), t.second_parent->source);
  for (std::size_t i = 0; i < t.inspirations.size(); ++i)
    write_file_atomically(dir / ("inspiration_" + std::to_string(i + 1) + ext), t.inspirations[i].source);
  const std::string message = mutation_message(t, candidate_file);
  write_file_atomically(dir / "TASK.md", message);
  json task = {{"kind", to_string(t.kind)}, {"question_id", t.question_id}, {"question", t.question_text},
               {"parent", t.parent.id}, {"weakest_scenarios", t.weakest_scenarios}};
  if (t.second_parent) task["second_parent"] = t.second_parent->id;
  write_file_atomically(dir / "task.json", task.dump(2) + "\n");
  return message;
}

}  // namespace socratic::evolve
