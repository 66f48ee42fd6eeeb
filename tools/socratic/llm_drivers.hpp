// The tool's drivers of in-process LLM agents (one agent; several on one store), behind light
// declarations: Boost.Beast and OpenSSL are compiled once, in llm_drivers.cpp, not in every
// command that can start them. (An embedder's campaign with the LLM agent is the SDK's
// socratic::run_llm_campaign, socratic/campaign/llm_campaign.hpp.)
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "campaign_file.hpp"
#include "socratic/campaign/campaign.hpp"
#include "socratic/campaign/parallel_campaign.hpp"

namespace socratic::tool {

/// The backend the settings choose (agent.backend, else by the API key in the environment).
std::string llm_backend_name(const AgentSettings& agent, const std::string& where);

/// Runs (or resumes) the campaign `c` with the reference LLM agent its settings describe.
CampaignResult run_campaign_file_with_llm_agent(const CampaignFile& c, const std::string& where);

/// Runs (or resumes) the campaign of `c`'s `agents` section: its agents in parallel on one
/// candidate store (docs/parallel.md). Prints the progress and the end; returns the exit code.
int run_parallel_campaign(const CampaignFile& c, const std::string& where);

/// One round of a suite problem (socratic suite, docs/suite-campaign.md): the agents of `c`'s
/// `agents` section (those the suite assigned) on the problem's store, each until its records
/// there reach its target, the campaign left open for the next round when they are all done.
struct SuiteProblemRound {
  std::map<std::string, int> targets;           ///< agent -> its records in the store, at most
  std::function<void(const AgentProgress&)> on_progress;
  std::shared_ptr<std::mutex> evaluations;      ///< taken around each in-process evaluation (null: the problem's own)
};
ParallelResult run_suite_problem_round(const CampaignFile& c, const std::string& where, const SuiteProblemRound& round);

}  // namespace socratic::tool
