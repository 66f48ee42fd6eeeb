#pragma once
// The in-process LLM agent as a campaign file (or the demo) chooses it: backend, model, key.
// Heavy (Boost.Beast, OpenSSL): included by llm_campaign.cpp only.
#include <cstdlib>
#include <string>

#include "campaign_file.hpp"
#include "socratic/core/error.hpp"

#include "socratic/agents/anthropic_backend.hpp"
#include "socratic/agents/llm_agent.hpp"
#include "socratic/agents/openai_backend.hpp"
#include "socratic/agents/replay_backend.hpp"

namespace socratic::tool {

/// The key the campaign file points at, else the backend's usual variable (or its *_FILE).
inline ApiKey campaign_key(const AgentSettings& a, const char* usual_variable) {
  if (a.api_key_file) return ApiKey::from_file(*a.api_key_file);
  if (!a.api_key_env.empty()) return ApiKey::from_environment(a.api_key_env);
  return ApiKey::from_environment_or_file(usual_variable);
}

/// agent.backend, else anthropic with ANTHROPIC_API_KEY set, else openai with OPENAI_API_KEY.
inline std::string chosen_backend(const AgentSettings& a, const std::string& where) {
  if (!a.backend.empty()) return a.backend;
  if (const char* k = std::getenv("ANTHROPIC_API_KEY"); k && *k) return "anthropic";
  if (const char* k = std::getenv("OPENAI_API_KEY"); k && *k) return "openai";
  throw error(where + ": no agent backend: set agent.backend, or ANTHROPIC_API_KEY or OPENAI_API_KEY");
}

/// Calls `run(LlmAgent<Backend>&)` with the agent the settings describe; returns its result.
template <class Run>
auto with_llm_agent(const AgentSettings& a, const std::string& where, Run&& run) {
  const std::string backend = chosen_backend(a, where);
  const std::string model = a.model.empty() && backend == "replay" ? std::string("replay") : a.model;
  if (model.empty()) throw error(where + ": agent.model is empty: name the model the backend should use");
  LlmAgentOptions options;
  options.model = model;
  if (backend == "anthropic") {
    AnthropicOptions o;
    if (a.base_url) o.base_url = *a.base_url;
    o.api_key = campaign_key(a, "ANTHROPIC_API_KEY");
    o.stream = true;
    LlmAgent<AnthropicBackend> agent(AnthropicBackend(std::move(o)), options);
    return run(agent);
  }
  if (backend == "openai") {
    OpenAiOptions o;
    if (a.base_url) o.base_url = *a.base_url;
    o.api_key = campaign_key(a, "OPENAI_API_KEY");
    o.stream = true;
    LlmAgent<OpenAiBackend> agent(OpenAiBackend(std::move(o)), options);
    return run(agent);
  }
  if (!a.replay_trace) throw error(where + ": agent.backend \"replay\" needs agent.replay_trace");
  LlmAgent<ReplayBackend> agent(ReplayBackend::from_trace(*a.replay_trace), options);
  return run(agent);
}

}  // namespace socratic::tool
