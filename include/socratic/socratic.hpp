#pragma once
/// @file
/// @brief Socratic's front door: the value types, the four concepts, goals and the campaign loop.
///
/// Light on purpose (nlohmann/json, OpenSSL's digest and the standard library): the heavy parts
/// have their own headers, included only where used:
/// - `socratic/eval/cuda_evaluator.hpp` (the CUDA harness; Boost.Process),
/// - `socratic/agents/llm_agent.hpp` and the backends (Boost.Beast, OpenSSL),
/// - `socratic/questions/bank_question_source.hpp` (the question bank).

#include "socratic/campaign.hpp"
#include "socratic/concepts.hpp"
#include "socratic/core.hpp"
#include "socratic/goals.hpp"
#include "socratic/questions/detector.hpp"
#include "socratic/version.hpp"
