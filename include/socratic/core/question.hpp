#pragma once
/// @file
/// @brief Trigger (the five moments a question is asked), TriggerEvent and Question.

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "socratic/core/json.hpp"

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
inline std::optional<Trigger> parse_trigger(std::string_view name) noexcept {
  for (Trigger t : all_triggers)
    if (to_string(t) == name) return t;
  return std::nullopt;
}

inline void to_json(json& j, Trigger t) { j = std::string(to_string(t)); }
inline void from_json(const json& j, Trigger& t) {
  if (!j.is_string()) throw input_error({}, "trigger", "expected a string");
  auto parsed = parse_trigger(j.get<std::string>());
  if (!parsed)
    throw input_error({}, "trigger",
                      "unknown trigger \"" + j.get<std::string>() +
                          "\" (start, plateau, claimed_limit, suspicious_gain, "
                          "correctness_explained_away)");
  t = *parsed;
}

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

inline void to_json(json& j, const TriggerEvent& e) {
  j = json{{"trigger", e.trigger}, {"detector", e.detector}, {"evidence", e.evidence},
           {"priority", e.priority}, {"details", e.details}};
}
inline void from_json(const json& j, TriggerEvent& e) {
  e.trigger = required<Trigger>(j, "trigger", "trigger event");
  e.detector = optional_field<std::string>(j, "detector", "");
  e.evidence = optional_field<std::string>(j, "evidence", "");
  e.priority = optional_field<int>(j, "priority", 0);
  e.details = optional_field<json>(j, "details", json::object());
}

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
inline std::string render_question(const Question& q) {
  std::string out = "Question (" + std::string(to_string(q.trigger)) + "): " + q.text + "\n";
  if (!q.checks.empty()) out += "(Answer it with a measurement: " + q.checks + ")\n";
  return out;
}

inline void to_json(json& j, const Question& q) {
  j = json{{"id", q.id},           {"group", q.group},     {"text", q.text},
           {"checks", q.checks},   {"trigger", q.trigger}, {"evidence", q.evidence}};
}
inline void from_json(const json& j, Question& q) {
  q.id = optional_field<std::string>(j, "id", "");
  q.group = optional_field<std::string>(j, "group", "");
  q.text = required<std::string>(j, "text", "question");
  q.checks = optional_field<std::string>(j, "checks", "");
  q.trigger = required<Trigger>(j, "trigger", "question");
  q.evidence = optional_field<std::string>(j, "evidence", "");
}

}  // namespace socratic
