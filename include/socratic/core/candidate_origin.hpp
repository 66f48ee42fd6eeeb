#pragma once
/// @file
/// @brief OriginKind: what led to a candidate of a campaign's store (a question, a draft, a
/// mutation, ...). One definition for the store that writes it and the reports that read it.

#include <string>
#include <string_view>

#include "socratic/core/error.hpp"

namespace socratic {

/// @brief What led to a candidate.
enum class OriginKind { start, question, draft, mutation, crossover, user };

constexpr std::string_view to_string(OriginKind k) noexcept {
  switch (k) {
    case OriginKind::start: return "start";
    case OriginKind::question: return "question";
    case OriginKind::draft: return "draft";
    case OriginKind::mutation: return "mutation";
    case OriginKind::crossover: return "crossover";
    case OriginKind::user: return "user";
  }
  return "unknown";
}
inline OriginKind parse_origin_kind(std::string_view name, std::string_view where = {}) {
  for (OriginKind k : {OriginKind::start, OriginKind::question, OriginKind::draft, OriginKind::mutation,
                       OriginKind::crossover, OriginKind::user})
    if (to_string(k) == name) return k;
  throw input_error({}, std::string(where),
                    "unknown origin kind \"" + std::string(name) +
                        "\" (start, question, draft, mutation, crossover, user)");
}

}  // namespace socratic
