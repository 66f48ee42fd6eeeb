#pragma once
/// @file
/// @brief Several agents on one campaign: the candidate store they share, the gate that admits an
/// incumbent beyond the measured noise, drafts at plateaus, and the coordinator (docs/store.md,
/// docs/gate.md). The GPU measurement for the gate is store/cuda_gate.hpp (it needs the CUDA
/// evaluator).

#include "socratic/campaign/parallel_campaign.hpp"
#include "socratic/store/candidate_store.hpp"
#include "socratic/store/drafts.hpp"
#include "socratic/store/gate.hpp"
#include "socratic/store/store_record.hpp"
