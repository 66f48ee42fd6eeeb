#pragma once
/// @file
/// @brief The value types every part shares. Light: nlohmann/json and the standard library only.

#include "socratic/core/budget.hpp"
#include "socratic/core/campaign_state.hpp"
#include "socratic/core/candidate.hpp"
#include "socratic/core/error.hpp"
#include "socratic/core/files.hpp"
#include "socratic/core/json.hpp"
#include "socratic/core/message.hpp"
#include "socratic/core/question.hpp"
#include "socratic/core/report.hpp"
#include "socratic/core/scenario.hpp"
#include "socratic/core/tools.hpp"
#include "socratic/core/verdict.hpp"
#include "socratic/version.hpp"
