#pragma once
/// @file
/// @brief The evolution's report (Markdown): the population over time, the front, and which
/// questions produced admitted children; and the ablation's comparison of two runs.

#include <cmath>
#include <sstream>
#include <string>

#include "socratic/core/json.hpp"
#include "socratic/questions/bank.hpp"

namespace socratic::evolve {

namespace detail {
inline std::string fmt(double x, int digits = 3) {
  if (!std::isfinite(x)) return "-";
  std::ostringstream o;
  o.setf(std::ios::fixed);
  o.precision(digits);
  o << x;
  return o.str();
}
inline double number(const json& j, const char* key) {
  const auto it = j.find(key);
  return it != j.end() && it->is_number() ? it->get<double>() : std::nan("");
}
}  // namespace detail

/// @brief The report of one run from its `evolution-state.json` document.
inline std::string evolution_report_markdown(const json& state, const Bank* bank = nullptr) {
  std::ostringstream o;
  o << "# Evolution " << state.value("campaign_id", "") << "\n\n"
    << "Operator: " << state.value("operator", "question") << ". Evaluations: " << state.value("evaluations", 0)
    << " (the start included); admitted children: " << state.value("admitted", 0)
    << "; duplicates not evaluated: " << state.value("duplicates", 0) << "; "
    << (state.value("finished", false) ? "finished" : "stopped by " + state.value("stopped_by", std::string("?")))
    << ".\n\n## The population over time\n\n"
    << "| generation | evaluated | admitted | duplicates | agent failures | population | front | best geomean | migrants sent / skipped | best per island |\n"
    << "|---|---|---|---|---|---|---|---|---|---|\n";
  for (const auto& g : state.value("generations", json::array())) {
    std::string islands;
    for (const auto& b : g.value("island_best", json::array()))
      islands += (islands.empty() ? "" : " ") + detail::fmt(b.is_number() ? b.get<double>() : std::nan(""), 2);
    o << "| " << g.value("generation", 0) << " | " << g.value("evaluated", 0) << " | " << g.value("admitted", 0) << " | "
      << g.value("duplicates", 0) << " | " << g.value("agent_failures", 0) << " | " << g.value("population", 0) << " | "
      << g.value("front", 0) << " | " << detail::fmt(detail::number(g, "best_fitness")) << " | "
      << g.value("migrants_sent", 0) << " / " << g.value("migrants_skipped", 0) << " | " << islands << " |\n";
  }
  const json scenarios = state.value("scenarios", json::array());
  o << "\n## The front over scenarios\n\nA member is here when it is the best on some scenario or no other "
       "member is at least as fast on every scenario and faster on one.\n\n| candidate | geomean |";
  for (const auto& s : scenarios) o << " " << s.get<std::string>() << " |";
  o << " question |\n|---|---|";
  for (std::size_t i = 0; i < scenarios.size(); ++i) o << "---|";
  o << "---|\n";
  for (const auto& m : state.value("front", json::array())) {
    o << "| " << m.value("id", "") << " | " << detail::fmt(detail::number(m, "fitness")) << " |";
    for (const auto& s : m.value("scores", json::array()))
      o << " " << detail::fmt(s.is_number() ? s.get<double>() : std::nan("")) << " |";
    o << " " << m.value("question", "") << " |\n";
  }
  o << "\n## Questions that produced admitted children\n\n";
  const json arms = state.value("questions", json::object());
  bool any = false;
  std::ostringstream rows;
  for (auto it = arms.begin(); it != arms.end(); ++it) {
    const int admitted = it->value("admitted", 0);
    if (admitted == 0) continue;
    any = true;
    const BankEntry* e = bank ? bank->find(it.key()) : nullptr;
    rows << "| " << it.key() << " | " << it->value("pulls", 0) << " | " << admitted << " | "
         << detail::fmt(detail::number(*it, "gain") / admitted) << " | " << (e ? e->text : std::string()) << " |\n";
  }
  if (any)
    o << "| question | asked | admitted | mean gain | text |\n|---|---|---|---|---|\n" << rows.str();
  else
    o << "None (" << arms.size() << " questions asked).\n";
  int asked_only = 0;
  for (auto it = arms.begin(); it != arms.end(); ++it) asked_only += it->value("admitted", 0) == 0;
  if (any && asked_only) o << "\n" << asked_only << " other questions were asked without an admitted child.\n";
  return o.str();
}

/// @brief The ablation's comparison: the same budget, question mutations against plain ones.
inline std::string ablation_markdown(const json& question, const json& plain) {
  std::ostringstream o;
  o << "# Ablation: question mutations against \"make it faster\"\n\n"
    << "The same problem, start, budget, seed, islands and gate; only the instruction differs. One run "
       "per arm: the difference below is one sample of a noisy process, not an effect size "
       "(docs/evolution.md says what this can and cannot show).\n\n"
    << "| arm | evaluations | admitted | duplicates | best geomean | stopped by |\n|---|---|---|---|---|---|\n";
  for (const auto* s : {&question, &plain}) {
    const json& st = *s;
    o << "| " << st.value("operator", "") << " | " << st.value("evaluations", 0) << " | " << st.value("admitted", 0)
      << " | " << st.value("duplicates", 0) << " | " << detail::fmt(detail::number(st.value("best", json::object()), "fitness"))
      << " | " << st.value("stopped_by", "") << " |\n";
  }
  o << "\n## Best geomean per generation\n\n| generation | question | plain |\n|---|---|---|\n";
  const json gq = question.value("generations", json::array()), gp = plain.value("generations", json::array());
  for (std::size_t g = 0; g < std::max(gq.size(), gp.size()); ++g)
    o << "| " << g << " | " << (g < gq.size() ? detail::fmt(detail::number(gq[g], "best_fitness")) : "-") << " | "
      << (g < gp.size() ? detail::fmt(detail::number(gp[g], "best_fitness")) : "-") << " |\n";
  return o.str();
}

}  // namespace socratic::evolve
