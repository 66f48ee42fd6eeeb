#pragma once
/// @file
/// @brief Socratic's front door: the value types, the four concepts and their type erasures
/// (any.hpp), goals and goal specs, the campaign loop, the question bank with its trigger
/// detectors, and (with `SOCRATIC_SEPARATE_COMPILATION`) run_llm_campaign(), the campaign with
/// the reference LLM agent.
///
/// Light on purpose (nlohmann/json, OpenSSL's digest and the standard library), and lighter with
/// SOCRATIC_SEPARATE_COMPILATION, where the bodies of its functions (JSON conversions, goals,
/// trace, bank, detectors) are compiled once in socratic/src.hpp and only the templates (the
/// campaign loop, AnyGoal, the combinators) and classes' inline members stay here. A program that
/// only runs run_llm_campaign() needs `socratic/llm_campaign.hpp` alone (its own evaluator, question
/// source and goal included), which is lighter still. The heavy parts have their own headers,
/// included only where used:
/// - `socratic/eval/cuda_evaluator.hpp` (the CUDA harness; Boost.Process),
/// - `socratic/eval/command_evaluator.hpp` (a harness of your own as a command; Boost.Process),
/// - `socratic/agents/llm_agent.hpp` and the backends (Boost.Beast, OpenSSL), and
///   `socratic/llm_campaign.hpp`, which in a header-only build brings their definitions along. With
///   SOCRATIC_SEPARATE_COMPILATION those are compiled once (socratic/src.hpp;
///   `socratic_compile_separately(target)` in CMake) and this header declares run_llm_campaign().

#include "socratic/any.hpp"
#include "socratic/campaign.hpp"
#include "socratic/concepts.hpp"
#include "socratic/core.hpp"
#include "socratic/goals.hpp"
#include "socratic/goals/goal_spec.hpp"
#include "socratic/questions/bank_question_source.hpp"
#include "socratic/questions/detector.hpp"
#include "socratic/questions/detectors.hpp"
#include "socratic/version.hpp"
#ifdef SOCRATIC_SEPARATE_COMPILATION
#include "socratic/llm_campaign.hpp"
#endif
