#pragma once
/// @file
/// @brief The campaign: its engine, the in-process loop, its config, tools, trace and resume.

#include "socratic/campaign/campaign.hpp"
#include "socratic/campaign/config.hpp"
#include "socratic/campaign/engine.hpp"
#include "socratic/campaign/messages.hpp"
#include "socratic/campaign/summary.hpp"
#include "socratic/campaign/trace.hpp"
#include "socratic/campaign/trace_state.hpp"
#include "socratic/core/tools.hpp"
