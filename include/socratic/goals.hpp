#pragma once
/// @file
/// @brief Goal predicates and their combinators.

#include "socratic/goals/combinators.hpp"
#include "socratic/goals/predicates.hpp"
