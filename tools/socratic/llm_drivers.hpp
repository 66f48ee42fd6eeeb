// The tool's drivers of in-process LLM agents (one agent; several on one store), behind light
// declarations: Boost.Beast and OpenSSL are compiled once, in llm_drivers.cpp, not in every
// command that can start them. (An embedder's campaign with the LLM agent is the SDK's
// socratic::run_llm_campaign, socratic/llm_campaign.hpp.)
#pragma once

#include <string>

#include "campaign_file.hpp"
#include "socratic/campaign/campaign.hpp"

namespace socratic::tool {

/// The backend the settings choose (agent.backend, else by the API key in the environment).
std::string llm_backend_name(const AgentSettings& agent, const std::string& where);

/// Runs (or resumes) the campaign `c` with the reference LLM agent its settings describe.
CampaignResult run_campaign_file_with_llm_agent(const CampaignFile& c, const std::string& where);

/// Runs (or resumes) the campaign of `c`'s `agents` section: its agents in parallel on one
/// candidate store (docs/parallel.md). Prints the progress and the end; returns the exit code.
int run_parallel_campaign(const CampaignFile& c, const std::string& where);

}  // namespace socratic::tool
