#pragma once
/// @file
/// @brief The campaign loop, its tools, trace and resume.

#include "socratic/campaign/campaign.hpp"
#include "socratic/campaign/summary.hpp"
#include "socratic/campaign/tools.hpp"
#include "socratic/campaign/trace.hpp"
#include "socratic/campaign/trace_state.hpp"
