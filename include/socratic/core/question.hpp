#pragma once
/// @file
/// @brief Trigger (the five moments a question is asked), TriggerEvent and Question.

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "socratic/core/json.hpp"
#include "socratic/core/detail/separate_compilation.hpp"

namespace socratic {

/// @brief The five moments at which the campaign asks a question.
enum class Trigger {
  start,                       ///< the campaign's first turn
  plateau,                     ///< the best score stopped improving beyond noise
  claimed_limit,               ///< the agent stopped without the goal, or claimed a limit or completion
  suspicious_gain,             ///< a gain too large, or a time near or under the physical floor
  correctness_explained_away,  ///< a correctness failure rationalised instead of fixed
};

inline constexpr std::array<Trigger, 5> all_triggers = {
    Trigger::start, Trigger::plateau, Trigger::claimed_limit, Trigger::suspicious_gain,
    Trigger::correctness_explained_away};

/// @brief Stable name of a trigger, as used in JSON and on the command line.
constexpr std::string_view to_string(Trigger t) noexcept {
  switch (t) {
    case Trigger::start: return "start";
    case Trigger::plateau: return "plateau";
    case Trigger::claimed_limit: return "claimed_limit";
    case Trigger::suspicious_gain: return "suspicious_gain";
    case Trigger::correctness_explained_away: return "correctness_explained_away";
  }
  return "unknown";
}

/// @brief Parses a trigger name; nullopt when unknown.
SOCRATIC_DECL std::optional<Trigger> parse_trigger(std::string_view name) noexcept;

SOCRATIC_DECL void to_json(json& j, Trigger t);
SOCRATIC_DECL void from_json(const json& j, Trigger& t);

/// @brief A detector's finding that one of the five moments has come, with its evidence.
///
/// `priority` orders simultaneous events: the campaign asks about the highest one. Reference
/// detectors use: correctness_explained_away 50, suspicious_gain 40, explicit claimed limit 30,
/// plateau 20, plain stop without the goal 10, start 0.
struct TriggerEvent {
  Trigger trigger = Trigger::start;
  std::string detector;  ///< which detector fired
  std::string evidence;  ///< what it saw, in words a human can check
  int priority = 0;
  json details = json::object();  ///< machine-readable evidence (numbers, matched phrases)
  friend bool operator==(const TriggerEvent&, const TriggerEvent&) = default;
};

SOCRATIC_DECL void to_json(json& j, const TriggerEvent& e);
SOCRATIC_DECL void from_json(const json& j, TriggerEvent& e);

/// @brief A question put to the agent: a bank entry plus why it was asked now.
struct Question {
  std::string id;      ///< stable id of the bank entry (empty for ad-hoc questions)
  std::string group;   ///< bank group
  std::string text;    ///< the question itself
  std::string checks;  ///< optional: the measurement that answers it
  Trigger trigger = Trigger::start;  ///< the moment it answers
  std::string evidence;              ///< why it was asked now (from the TriggerEvent)
  friend bool operator==(const Question&, const Question&) = default;
};

/// @brief The one rendering of a question for an agent: `Question (TRIGGER): TEXT`, and the
/// measurement that answers it when the entry names one. Used by every message the campaign
/// sends (start, send-back, resume, stop-hook blocks) and by the evaluate tool's answer.
SOCRATIC_DECL std::string render_question(const Question& q);

SOCRATIC_DECL void to_json(json& j, const Question& q);
SOCRATIC_DECL void from_json(const json& j, Question& q);

}  // namespace socratic

#ifndef SOCRATIC_SEPARATE_COMPILATION
#include "socratic/core/impl/question.ipp"
#endif
