#pragma once
/// @file
/// @brief The definition of run_llm_campaign() (llm_campaign.hpp): the agent, its backends and
/// the campaign. Included by llm_campaign.hpp (header-only) or by socratic/src.hpp (compiled once).

#include <functional>
#include <string_view>
#include <utility>

#include "socratic/agents/anthropic_backend.hpp"
#include "socratic/agents/llm_agent.hpp"
#include "socratic/agents/openai_backend.hpp"
#include "socratic/campaign/campaign.hpp"
#include "socratic/core/error.hpp"
#include "socratic/detail/separate_compilation.hpp"
#include "socratic/llm_campaign.hpp"

namespace socratic {

SOCRATIC_DECL CampaignResult run_llm_campaign(const LlmModel& model, const LlmCampaignOptions& options,
                                              AnyEvaluator evaluator, AnyQuestionSource questions,
                                              goals::AnyGoal goal, CampaignConfig config) {
  if (model.model.empty()) throw error("run_llm_campaign: LlmModel::model is empty: name the model the backend should use");
  LlmAgentOptions agent_options;
  agent_options.model = model.model;
  agent_options.max_tokens = options.max_tokens;
  agent_options.temperature = options.temperature;
  agent_options.max_steps_per_turn = options.max_steps_per_turn;
  agent_options.context_window = options.context_window;
  agent_options.judge_paths = options.judge_paths;
  if (!options.system_prompt.empty()) agent_options.system_prompt = options.system_prompt;
  auto key = [&](const char* usual) {
    if (model.api_key_file) return ApiKey::from_file(*model.api_key_file);
    return model.api_key_env.empty() ? ApiKey::from_environment_or_file(usual) : ApiKey::from_environment(model.api_key_env);
  };
  // Retries reach the terminal unless the embedder takes them.
  const std::function<void(std::string_view)> log =
      options.log ? options.log : std::function<void(std::string_view)>(log_to_stderr);
  auto run = [&](auto& agent) {
    Campaign campaign(agent, evaluator, questions, std::move(goal), std::move(config));
    return campaign.run();
  };
  if (model.backend == "openai") {
    OpenAiOptions o;
    if (!model.base_url.empty()) o.base_url = model.base_url;
    o.api_key = key("OPENAI_API_KEY");
    o.stream = true;
    o.log = log;
    LlmAgent<OpenAiBackend> agent(OpenAiBackend(std::move(o)), agent_options);
    return run(agent);
  }
  if (model.backend == "anthropic") {
    AnthropicOptions o;
    if (!model.base_url.empty()) o.base_url = model.base_url;
    o.api_key = key("ANTHROPIC_API_KEY");
    o.stream = true;
    o.log = log;
    LlmAgent<AnthropicBackend> agent(AnthropicBackend(std::move(o)), agent_options);
    return run(agent);
  }
  throw error("run_llm_campaign: unknown backend \"" + model.backend + "\" (openai or anthropic)");
}

}  // namespace socratic
