#pragma once
// The in-process LLM agent as a campaign file (or the demo) chooses it: backend, model, key, and
// the agent's boundary (what its tools must not see or change, the shell's sandbox).
// Heavy (Boost.Beast, OpenSSL): included by llm_drivers.cpp only.
#include <algorithm>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "campaign_file.hpp"
#include "data_dir.hpp"
#include "problems.hpp"
#include "socratic/core/error.hpp"

#include "socratic/agents/backend_choice.hpp"
#include "socratic/agents/llm_agent.hpp"

namespace socratic::tool {

/// agent.backend, else anthropic with ANTHROPIC_API_KEY set, else openai with OPENAI_API_KEY.
inline LlmProvider chosen_backend(const AgentSettings& a, const std::string& where) {
  if (a.backend) return *a.backend;
  if (const char* k = std::getenv("ANTHROPIC_API_KEY"); k && *k) return LlmProvider::anthropic;
  if (const char* k = std::getenv("OPENAI_API_KEY"); k && *k) return LlmProvider::openai;
  throw error(where + ": no agent backend: set agent.backend, or ANTHROPIC_API_KEY or OPENAI_API_KEY");
}

/// What the agent's tools must not reach in campaign `c`: its judge (`judge`: verified after
/// every turn, never writable) and its private files (`hidden`: the evaluator's own, the
/// campaign's state and file, the bank, the key file), besides the shell's sandbox settings.
struct AgentBoundary {
  std::vector<std::filesystem::path> judge;
  std::vector<std::filesystem::path> hidden;
};

/// The shell sandbox the settings choose.
inline ShellSandboxOptions sandbox_options(const AgentSettings& a) {
  ShellSandboxOptions o;
  o.kind = a.sandbox;
  o.network = a.network;
  o.exposed = a.sandbox_expose;
  return o;
}

/// The agent's options for campaign `c`: the model, its window (the campaign file's, else the
/// price table's, else 128k), the boundary.
inline LlmAgentOptions agent_options(const CampaignFile& c, const std::string& model, const LlmBackendChoice& backend,
                                     const PriceTable& prices, const AgentBoundary& boundary) {
  LlmAgentOptions o;
  o.model = model;
  o.system_prompt = default_agent_system_prompt(campaign_problem_kinds(c.questions.kinds, c.problem));
  if (c.agent.context_window)
    o.context_window = *c.agent.context_window;
  else if (auto w = prices.context_window(model))
    o.context_window = *w;
  if (c.agent.max_tokens) o.max_tokens = *c.agent.max_tokens;
  o.tools.sandbox = sandbox_options(c.agent);
  o.tools.hidden = boundary.hidden;
  o.tools.hidden.push_back(c.file);
  o.tools.hidden.push_back(c.state_dir);
  if (auto key = chosen_api_key_file(backend)) o.tools.hidden.push_back(*key);
  o.tools.hidden.push_back(c.questions.bank ? *c.questions.bank : data_dir() / "question_bank");
  if (c.questions.credits) o.tools.hidden.push_back(*c.questions.credits);
  if (c.questions.anchors) o.tools.hidden.push_back(*c.questions.anchors);
  o.judge_paths = boundary.judge;
  if (std::find(o.judge_paths.begin(), o.judge_paths.end(), c.scenarios) == o.judge_paths.end())
    o.judge_paths.push_back(c.scenarios);
  return o;
}

/// Timeouts and retries of the backend from the settings.
inline void transport_options(BackendOptions& o, const AgentSettings& a) {
  using std::chrono::milliseconds;
  auto ms = [](double s) { return milliseconds(static_cast<long long>(s * 1000)); };
  o.http.connect_timeout = ms(a.connect_timeout_s);
  o.http.read_timeout = ms(a.read_timeout_s);
  o.http.total_timeout = ms(a.total_timeout_s);
  o.max_response_bytes = a.max_response_bytes;
  o.retry.max_retry_time = ms(a.retry_time_s);
  o.retry.max_retries = a.max_retries;
  o.retry.initial_delay = ms(a.retry_initial_delay_s);
  o.retry.max_delay = ms(a.retry_max_delay_s);
  // Every retry on the terminal as it happens (cause, attempt, wait): a server that is down or
  // refusing is seen within seconds, not after the retry budget.
  o.log = log_to_stderr;
}

/// The backend the settings choose (chosen_backend), where it is, its key and its transport.
inline LlmBackendChoice backend_choice(const AgentSettings& a, LlmProvider backend) {
  LlmBackendChoice choice;
  choice.provider = backend;
  if (a.base_url) choice.base_url = *a.base_url;
  choice.api_key_env = a.api_key_env;
  choice.api_key_file = a.api_key_file;
  choice.replay_trace = a.replay_trace;
  choice.transport = [&a](BackendOptions& o) { transport_options(o, a); };
  return choice;
}

/// Calls `run(LlmAgent<Backend>&)` with the agent the settings of `c` describe (the whole
/// campaign's, or one agent's view of it); returns its result.
template <class Run>
auto with_llm_agent(const CampaignFile& c, const AgentBoundary& boundary, const std::string& where, Run&& run) {
  const AgentSettings& a = c.agent;
  const LlmProvider backend = chosen_backend(a, where);
  const std::string model = a.model.empty() && backend == LlmProvider::replay ? std::string("replay") : a.model;
  if (model.empty()) throw error(where + ": agent.model is empty: name the model the backend should use");
  if (backend == LlmProvider::replay && !a.replay_trace)
    throw error(where + ": agent.backend \"replay\" needs agent.replay_trace");
  const LlmBackendChoice choice = backend_choice(a, backend);
  return with_llm_backend(choice, [&](auto made, const PriceTable& prices) {
    LlmAgent<decltype(made)> agent(std::move(made), agent_options(c, model, choice, prices, boundary));
    return run(agent);
  });
}

}  // namespace socratic::tool
