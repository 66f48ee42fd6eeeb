#pragma once
// Runs a campaign file's campaign with a given agent: the shared part of `run`, `agent` and `demo`
// (config from the file, live progress on the terminal, the result printed).
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <iostream>
#include <string>

#include "campaign_file.hpp"
#include "campaign_parts.hpp"
#include "command.hpp"
#include "socratic/campaign/campaign.hpp"

namespace socratic::tool {

/// One line per step on stderr: rewritten in place on a terminal, appended otherwise.
inline std::function<void(const CampaignProgress&)> terminal_progress() {
  const bool tty = ::isatty(2) != 0;
  return [tty](const CampaignProgress& p) {
    char best[32] = "n/a";
    if (std::isfinite(p.best_score)) std::snprintf(best, sizeof best, "%.3fx", p.best_score);
    std::string q = p.last_question ? p.last_question->text : std::string("-");
    if (q.size() > 70) q = q.substr(0, 67) + "...";
    char line[512];
    std::snprintf(line, sizeof line, "turn %d | evaluations %d | best geomean %s | last question: %s", p.turn,
                  p.evaluations, best, q.c_str());
    if (p.event == CampaignStep::continued) {  // said once, plainly, on its own line
      std::fprintf(stderr, "%scampaign continues: it had ended with %s; same history, same budgets\n",
                   tty ? "\r\033[K" : "", p.detail.c_str());
      std::fflush(stderr);
      return;
    }
    if (tty)
      std::fprintf(stderr, "\r\033[K%s%s", line, p.event == CampaignStep::ended ? "\n" : "");
    else
      std::fprintf(stderr, "[%s] %s\n", std::string(to_string(p.event)).c_str(), line);
    std::fflush(stderr);
  };
}

/// Prints how the campaign ended; exit 0 when the goal holds, 1 otherwise.
inline int print_result(const CampaignResult& r) {
  std::cout << "campaign ended: " << to_string(r.reason) << (r.detail.empty() ? "" : " (" + r.detail + ")") << " after "
            << r.turns << " turns, " << r.spent.evaluations << " evaluations\n";
  if (CampaignEngine<CampaignEvaluator, ToolQuestionSource, goals::ParsedGoal>::continuable(r.reason))
    std::cout << "run the same command again to continue this campaign (same history, same budgets)\n";
  if (r.best) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3f", r.best->score());
    std::cout << "best: evaluation #" << r.best->index << ", geomean speedup " << buf << "\n";
  }
  if (r.last_verdict && !r.last_verdict->met) std::cout << "unmet at the last check:\n" << r.last_verdict->describe();
  std::cout << "trace: " << r.trace_path.string() << "\n";
  return r.goal_met ? exit_ok : exit_findings;
}

/// Runs the campaign of `c` with `agent`, `evaluator` (the file's), the bank and the file's goal.
template <Agent A>
CampaignResult run_campaign_file(A& agent, const CampaignFile& c, CampaignEvaluator& evaluator) {
  const std::vector<std::string> ids = campaign_scenario_ids(c);
  ToolQuestionSource questions = make_question_source(c);
  CampaignConfig config = campaign_config(c, ids);
  config.on_progress = terminal_progress();
  Campaign campaign(agent, evaluator, questions, c.goal, std::move(config));
  return campaign.run();
}

/// Runs the campaign of `c` with `agent`, the file's evaluator, the bank and the file's goal.
template <Agent A>
CampaignResult run_campaign_file(A& agent, const CampaignFile& c) {
  CampaignEvaluator evaluator = make_evaluator(c, campaign_scenario_ids(c));
  return run_campaign_file(agent, c, evaluator);
}

}  // namespace socratic::tool
