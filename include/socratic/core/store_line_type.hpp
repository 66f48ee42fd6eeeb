#pragma once
/// @file
/// @brief StoreLineType: what a line of the candidate store's log holds, one definition for the
/// store that writes and reads it and the report that reads it.

#include <optional>
#include <string_view>

namespace socratic {

enum class StoreLineType {
  candidate,  ///< a StoreRecord: a candidate and the gate's verdict on it
  note,       ///< a StoreNote: what an agent learned, for the others
};

constexpr std::string_view to_string(StoreLineType t) noexcept {
  return t == StoreLineType::note ? "note" : "candidate";
}

/// @brief The line type named `name`; none for a name this version does not write.
constexpr std::optional<StoreLineType> parse_store_line_type(std::string_view name) noexcept {
  if (name == "candidate") return StoreLineType::candidate;
  if (name == "note") return StoreLineType::note;
  return std::nullopt;
}

}  // namespace socratic
