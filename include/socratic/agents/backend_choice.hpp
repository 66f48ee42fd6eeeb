#pragma once
/// @file
/// @brief Which LlmBackend a provider's name and settings make: the one place that maps
/// `openai`, `anthropic` and `replay` to OpenAiBackend, AnthropicBackend and ReplayBackend, with
/// the key looked up the same way for every caller (run_llm_campaign, `socratic run`, the agents
/// of a parallel run). Heavy (Boost.Beast, OpenSSL): the backends' headers.
///
/// @par Example
/// @code
/// socratic::LlmBackendChoice choice;
/// choice.provider = socratic::llm_provider_named("anthropic", "agent.backend");
/// auto agent = socratic::with_llm_backend(choice, [&](auto backend, const socratic::PriceTable&) {
///   return socratic::AnyAgent(socratic::LlmAgent<decltype(backend)>(std::move(backend), options));
/// });
/// @endcode

#include <cstdlib>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "socratic/agents/anthropic_backend.hpp"
#include "socratic/agents/llm_provider.hpp"
#include "socratic/agents/api_key.hpp"
#include "socratic/agents/openai_backend.hpp"
#include "socratic/agents/replay_backend.hpp"
#include "socratic/core/error.hpp"

namespace socratic {

/// @brief Which backend to make, where it is and where its key is. The key is read from the
/// environment or a file when the backend is made, never written here.
struct LlmBackendChoice {
  LlmProvider provider = LlmProvider::openai;
  std::string base_url;     ///< empty: the provider's default (api.openai.com, api.anthropic.com)
  std::string api_key_env;  ///< the key's variable; empty: the provider's usual one (or its `_FILE`)
  std::optional<std::filesystem::path> api_key_file;  ///< a file holding the key instead
  std::optional<std::filesystem::path> replay_trace;  ///< replay: the trace whose responses are replayed
  /// Applied last to an HTTP backend's options: timeouts, retries, the retry log.
  std::function<void(BackendOptions&)> transport;
};

/// @brief The key `choice` points at: its file, else its variable, else the provider's usual
/// variable or the file that variable's `_FILE` twin names. Empty for replay.
inline ApiKey chosen_api_key(const LlmBackendChoice& choice) {
  if (choice.provider == LlmProvider::replay) return {};
  if (choice.api_key_file) return ApiKey::from_file(*choice.api_key_file);
  if (!choice.api_key_env.empty()) return ApiKey::from_environment(choice.api_key_env);
  return ApiKey::from_environment_or_file(usual_key_variable(choice.provider));
}

/// @brief The key file the backend of `choice` reads, if any (an agent's tools must not see it).
inline std::optional<std::filesystem::path> chosen_api_key_file(const LlmBackendChoice& choice) {
  if (choice.provider == LlmProvider::replay) return std::nullopt;
  if (choice.api_key_file) return *choice.api_key_file;
  if (!choice.api_key_env.empty()) return std::nullopt;
  const std::string variable = usual_key_variable(choice.provider) + "_FILE";
  if (const char* file = std::getenv(variable.c_str()); file && *file) return std::filesystem::path(file);
  return std::nullopt;
}

/// @brief Makes the backend `choice` names (streaming, for the HTTP ones) and returns
/// `use(backend, prices)`, the price table being the backend's. `use` is called with an
/// OpenAiBackend, an AnthropicBackend or a ReplayBackend, by value, and returns one type for all.
/// @throws error when the replay has no trace; what the backend throws when it is made (a
/// missing key for a server elsewhere, a bad base_url).
template <class Use>
auto with_llm_backend(const LlmBackendChoice& choice, Use&& use) {
  auto http_options = [&](auto options) {
    if (!choice.base_url.empty()) options.base_url = choice.base_url;
    options.api_key = chosen_api_key(choice);
    options.stream = true;
    if (choice.transport) choice.transport(options);
    return options;
  };
  switch (choice.provider) {
    case LlmProvider::anthropic: {
      const AnthropicOptions o = http_options(AnthropicOptions{});
      return use(AnthropicBackend(o), o.prices);
    }
    case LlmProvider::replay: {
      if (!choice.replay_trace) throw error("the replay backend needs a trace to replay (replay_trace)");
      return use(ReplayBackend::from_trace(*choice.replay_trace), PriceTable::from_environment());
    }
    case LlmProvider::openai: break;
  }
  const OpenAiOptions o = http_options(OpenAiOptions{});
  return use(OpenAiBackend(o), o.prices);
}

}  // namespace socratic
