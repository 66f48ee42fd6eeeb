#pragma once
/// @file
/// @brief LlmProvider: the model APIs the reference backends speak, by the names settings use
/// (`openai`, `anthropic`, `replay`). Light: a campaign file's reader names a provider without
/// the backends' headers (agents/backend_choice.hpp makes one).

#include <string>
#include <string_view>

#include "socratic/core/error.hpp"

namespace socratic {

/// @brief The model APIs the reference backends speak.
enum class LlmProvider {
  openai,     ///< OpenAI's Chat Completions, or any server compatible with it (vLLM, llama.cpp)
  anthropic,  ///< Anthropic's Messages
  replay,     ///< the responses of a recorded trace, in order (no server)
};

/// @brief The provider's name in settings: `openai`, `anthropic`, `replay`.
inline std::string_view provider_name(LlmProvider provider) {
  switch (provider) {
    case LlmProvider::openai: return "openai";
    case LlmProvider::anthropic: return "anthropic";
    case LlmProvider::replay: return "replay";
  }
  return "unknown";
}

/// @brief The provider a settings name means.
/// @throws input_error naming `where` and the names accepted.
inline LlmProvider llm_provider_named(std::string_view name, std::string_view where) {
  for (LlmProvider p : {LlmProvider::openai, LlmProvider::anthropic, LlmProvider::replay})
    if (name == provider_name(p)) return p;
  throw input_error({}, std::string(where), "unknown backend \"" + std::string(name) + "\" (openai, anthropic or replay)");
}

/// @brief The variable that usually holds a provider's key (`OPENAI_API_KEY`,
/// `ANTHROPIC_API_KEY`; its `_FILE` twin names a file instead). Empty for replay.
inline std::string usual_key_variable(LlmProvider provider) {
  switch (provider) {
    case LlmProvider::openai: return "OPENAI_API_KEY";
    case LlmProvider::anthropic: return "ANTHROPIC_API_KEY";
    case LlmProvider::replay: return "";
  }
  return "";
}

}  // namespace socratic
