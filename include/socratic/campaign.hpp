#pragma once
/// @file
/// @brief The campaign: its engine, the in-process loop, its config, tools, trace and resume.

#include "socratic/campaign/campaign.hpp"
#include "socratic/campaign/config.hpp"
#include "socratic/campaign/engine.hpp"
#include "socratic/campaign/messages.hpp"
#include "socratic/record/summary.hpp"
#include "socratic/record/trace.hpp"
#include "socratic/record/trace_state.hpp"
#include "socratic/core/tools.hpp"
