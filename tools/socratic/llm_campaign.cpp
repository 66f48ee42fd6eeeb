// The one translation unit that instantiates the LLM agent and its HTTP stack for the tool.
#include "llm_campaign.hpp"

#include "campaign_runner.hpp"
#include "llm_parts.hpp"

namespace socratic::tool {

std::string llm_backend_name(const AgentSettings& agent, const std::string& where) {
  return chosen_backend(agent, where);
}

CampaignResult run_llm_campaign(const CampaignFile& c, const std::string& where) {
  return with_llm_agent(c.agent, where, [&](auto& agent) { return run_campaign_file(agent, c); });
}

}  // namespace socratic::tool
