#pragma once
// A fixture for core_layering_sees_cycles: the concepts header the layering test reads.
