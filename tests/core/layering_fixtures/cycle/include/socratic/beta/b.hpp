#pragma once
// A fixture for core_layering_sees_cycles: alpha and beta include each other.
#include "socratic/alpha/a.hpp"
