#pragma once
/// @file
/// @brief A campaign with the reference LLM agent behind a light declaration, for programs that
/// embed Socratic: your evaluator, question source and goal, any of them your own types, and a
/// model named by backend, name and address.
///
/// Header-only by default: the agent, its backends and the HTTP client are compiled in the
/// translation unit that includes this header (about 100 s of CPU at -O3 on a 2-core
/// machine). With `SOCRATIC_SEPARATE_COMPILATION` defined in every translation unit, this header
/// only declares run_llm_campaign(), and its definition, with the agent, Boost.Beast and
/// OpenSSL, is compiled once, in the one translation unit that includes `socratic/src.hpp`
/// (CMake: `socratic_compile_separately(target)`, cmake/socratic-functions.cmake); a translation
/// unit that runs a campaign with the LLM agent then costs what your own code costs
/// (docs/benchmarks.md: "One translation unit with the LLM agent").
///
/// @par Example
/// @code
/// MyEvaluator evaluator;                  // your harness
/// socratic::BankQuestionSource bank(socratic::load_bank(data / "question_bank"));
/// socratic::LlmModel model{"openai", "gpt-4.1"};   // key: $OPENAI_API_KEY
/// auto result = socratic::run_llm_campaign(model, {}, socratic::AnyEvaluator(evaluator),
///                                          socratic::AnyQuestionSource(bank), goal, config);
/// @endcode

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "socratic/any.hpp"
#include "socratic/campaign/config.hpp"
#include "socratic/concepts.hpp"
#include "socratic/detail/separate_compilation.hpp"
#include "socratic/goals/goal_spec.hpp"

namespace socratic {

/// @brief Which model the agent talks to. The key comes from the environment or a file, never
/// from here.
struct LlmModel {
  std::string backend = "openai";  ///< `openai` (any OpenAI-compatible server) or `anthropic`
  std::string model;               ///< the model's name, as the API knows it
  std::string base_url;            ///< empty: the backend's default (api.openai.com, api.anthropic.com)
  std::string api_key_env;         ///< the variable holding the key; empty: OPENAI_API_KEY / ANTHROPIC_API_KEY
  std::optional<std::filesystem::path> api_key_file;  ///< a file holding the key instead
};

/// @brief The agent's settings that an embedder most often changes (llm_agent.hpp has them all).
struct LlmCampaignOptions {
  int max_tokens = 8192;                 ///< output limit per model call
  std::optional<double> temperature;
  int max_steps_per_turn = 150;          ///< model calls in one turn before it is ended
  long long context_window = 128'000;    ///< the model's context window, in tokens
  std::vector<std::filesystem::path> judge_paths;  ///< the judge's files, checked after every turn
  std::string system_prompt;             ///< empty: the reference agent's own
  /// Receives one line per retry and warning of the backend (cause, attempt, wait), secrets
  /// removed. Default (empty): each line on standard error, as it happens.
  std::function<void(std::string_view)> log;
};

/// @brief Runs (or resumes) the campaign of `config` with the reference LLM agent on `model`,
/// judged by `evaluator` and `goal`, asked by `questions`. Throws error, before any call, when
/// the backend is unknown, the model is not named or the key is missing for a server that is not
/// on this machine (it names where the key was looked for).
SOCRATIC_DECL CampaignResult run_llm_campaign(const LlmModel& model, const LlmCampaignOptions& options,
                                              AnyEvaluator evaluator, AnyQuestionSource questions,
                                              AnyGoal goal, CampaignConfig config);

}  // namespace socratic

#ifndef SOCRATIC_SEPARATE_COMPILATION
#include "socratic/impl/llm_campaign.ipp"
#endif
