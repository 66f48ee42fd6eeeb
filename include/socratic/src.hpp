#pragma once
/// @file
/// @brief Socratic's heavy definitions, for separate compilation: with
/// `SOCRATIC_SEPARATE_COMPILATION` defined in every translation unit of the program, include
/// this header in exactly one of them (CMake: `socratic_compile_separately(target)`). It holds
/// the HTTP client (Boost.Beast, OpenSSL), the process spawner (Boost.Process, Asio),
/// run_llm_campaign() with the LLM agent and both backends, and the bodies of the functions that
/// every program includes (the value types' JSON conversions, the goals, run_process): each
/// header then declares them only, and its `impl/*.ipp` is compiled here. Templates stay in the
/// headers.

#ifndef SOCRATIC_SEPARATE_COMPILATION
#error "socratic/src.hpp is for SOCRATIC_SEPARATE_COMPILATION builds; define it in every translation unit"
#endif

#include "socratic/campaign/impl/campaign_id.ipp"
#include "socratic/campaign/impl/messages.ipp"
#include "socratic/record/impl/summary.ipp"
#include "socratic/record/impl/trace.ipp"
#include "socratic/record/impl/trace_state.ipp"
#include "socratic/core/impl/budget.ipp"
#include "socratic/core/impl/campaign_state.ipp"
#include "socratic/core/impl/candidate.ipp"
#include "socratic/core/impl/candidate_files.ipp"
#include "socratic/core/impl/files.ipp"
#include "socratic/core/impl/json.ipp"
#include "socratic/core/impl/message.ipp"
#include "socratic/core/impl/question.ipp"
#include "socratic/core/impl/redact.ipp"
#include "socratic/core/impl/report.ipp"
#include "socratic/core/impl/scenario.ipp"
#include "socratic/core/impl/secrets.ipp"
#include "socratic/core/impl/verdict.ipp"
#include "socratic/goals/impl/goal_spec.ipp"
#include "socratic/goals/impl/predicates.ipp"
#include "socratic/goals/impl/report_checks.ipp"
#include "socratic/goals/impl/stop_hook.ipp"
#include "socratic/http/src.hpp"
#include "socratic/campaign/impl/llm_campaign.ipp"
#include "socratic/core/impl/sha256.ipp"
#include "socratic/process/impl/child.ipp"
#include "socratic/process/impl/environment.ipp"
#include "socratic/process/impl/run_process.ipp"
#include "socratic/questions/impl/bank.ipp"
#include "socratic/questions/impl/credit.ipp"
#include "socratic/questions/impl/detection.ipp"
#include "socratic/questions/impl/detectors.ipp"
#include "socratic/questions/impl/improvement.ipp"
#include "socratic/questions/impl/phrase_matcher.ipp"
