#pragma once
/// @file
/// @brief Socratic's heavy definitions, for separate compilation: with
/// `SOCRATIC_SEPARATE_COMPILATION` defined in every translation unit of the program, include
/// this header in exactly one of them (CMake: `socratic_compile_separately(target)`). It holds
/// the HTTP client (Boost.Beast, OpenSSL), the process spawner (Boost.Process, Asio) and
/// run_llm_campaign() with the LLM agent and both backends; everything else stays header-only.

#ifndef SOCRATIC_SEPARATE_COMPILATION
#error "socratic/src.hpp is for SOCRATIC_SEPARATE_COMPILATION builds; define it in every translation unit"
#endif

#include "socratic/http/src.hpp"
#include "socratic/process/detail/child.hpp"
#include "socratic/process/impl/child.ipp"
#include "socratic/impl/llm_campaign.ipp"
