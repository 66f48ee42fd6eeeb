#pragma once
/// @file
/// @brief The definition of run_llm_campaign() (llm_campaign.hpp): the agent, its backends and
/// the campaign. Included by llm_campaign.hpp (header-only) or by socratic/src.hpp (compiled once).

#include <functional>
#include <string_view>
#include <utility>

#include "socratic/agents/backend_choice.hpp"
#include "socratic/agents/llm_agent.hpp"
#include "socratic/campaign/campaign.hpp"
#include "socratic/core/error.hpp"
#include "socratic/detail/separate_compilation.hpp"
#include "socratic/llm_campaign.hpp"

namespace socratic {

SOCRATIC_DECL CampaignResult run_llm_campaign(const LlmModel& model, const LlmCampaignOptions& options,
                                              AnyEvaluator evaluator, AnyQuestionSource questions,
                                              AnyGoal goal, CampaignConfig config) {
  if (model.model.empty()) throw error("run_llm_campaign: LlmModel::model is empty: name the model the backend should use");
  LlmAgentOptions agent_options;
  agent_options.model = model.model;
  agent_options.max_tokens = options.max_tokens;
  agent_options.temperature = options.temperature;
  agent_options.max_steps_per_turn = options.max_steps_per_turn;
  agent_options.context_window = options.context_window;
  agent_options.judge_paths = options.judge_paths;
  if (!options.system_prompt.empty()) agent_options.system_prompt = options.system_prompt;
  // Only the HTTP providers: LlmModel has no trace to replay.
  if (model.backend != "openai" && model.backend != "anthropic")
    throw error("run_llm_campaign: unknown backend \"" + model.backend + "\" (openai or anthropic)");
  LlmBackendChoice choice;
  choice.provider = llm_provider_named(model.backend, "LlmModel::backend");
  choice.base_url = model.base_url;
  choice.api_key_env = model.api_key_env;
  choice.api_key_file = model.api_key_file;
  // Retries reach the terminal unless the embedder takes them.
  choice.transport = [&options](BackendOptions& o) {
    o.log = options.log ? options.log : std::function<void(std::string_view)>(log_to_stderr);
  };
  return with_llm_backend(choice, [&](auto backend, const PriceTable&) {
    LlmAgent<decltype(backend)> agent(std::move(backend), agent_options);
    Campaign campaign(agent, evaluator, questions, std::move(goal), std::move(config));
    return campaign.run();
  });
}

}  // namespace socratic
