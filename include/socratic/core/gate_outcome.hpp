#pragma once
/// @file
/// @brief GateOutcome: what the gate decided for a candidate, one definition for the store that
/// records it, the coordinator that reports it and the report that draws it.

#include <string>
#include <string_view>

#include "socratic/core/error.hpp"

namespace socratic {

/// @brief What the gate decided for a candidate.
enum class GateOutcome {
  admitted,  ///< the new incumbent
  refused,   ///< correct and clean, but not faster than the incumbent beyond the noise
  failed,    ///< wrong on some scenario, banned library, build or harness failure
};
constexpr std::string_view to_string(GateOutcome o) noexcept {
  switch (o) {
    case GateOutcome::admitted: return "admitted";
    case GateOutcome::refused: return "refused";
    case GateOutcome::failed: return "failed";
  }
  return "unknown";
}
inline GateOutcome parse_gate_outcome(std::string_view name, std::string_view where = {}) {
  for (GateOutcome o : {GateOutcome::admitted, GateOutcome::refused, GateOutcome::failed})
    if (to_string(o) == name) return o;
  throw input_error({}, std::string(where),
                    "unknown gate verdict \"" + std::string(name) + "\" (admitted, refused, failed)");
}

}  // namespace socratic
