#pragma once
/// @file
/// @brief Definitions for socratic/core/question.hpp: included there in header-only builds, and by
/// socratic/src.hpp (compiled once) with SOCRATIC_SEPARATE_COMPILATION.

#include "socratic/core/question.hpp"

namespace socratic {

SOCRATIC_DECL std::optional<Trigger> parse_trigger(std::string_view name) noexcept {
  for (Trigger t : all_triggers)
    if (to_string(t) == name) return t;
  return std::nullopt;
}

SOCRATIC_DECL void to_json(json& j, Trigger t) { j = std::string(to_string(t)); }

SOCRATIC_DECL void from_json(const json& j, Trigger& t) {
  if (!j.is_string()) throw input_error({}, "trigger", "expected a string");
  auto parsed = parse_trigger(j.get<std::string>());
  if (!parsed)
    throw input_error({}, "trigger",
                      "unknown trigger \"" + j.get<std::string>() +
                          "\" (start, plateau, claimed_limit, suspicious_gain, "
                          "correctness_explained_away)");
  t = *parsed;
}

SOCRATIC_DECL void to_json(json& j, const TriggerEvent& e) {
  j = json{{"trigger", e.trigger}, {"detector", e.detector}, {"evidence", e.evidence},
           {"priority", e.priority}, {"details", e.details}};
}

SOCRATIC_DECL void from_json(const json& j, TriggerEvent& e) {
  e.trigger = required<Trigger>(j, "trigger", "trigger event");
  e.detector = optional_field<std::string>(j, "detector", "");
  e.evidence = optional_field<std::string>(j, "evidence", "");
  e.priority = optional_field<int>(j, "priority", 0);
  e.details = optional_field<json>(j, "details", json::object());
}

SOCRATIC_DECL std::string render_question(const Question& q) {
  std::string out = "Question (" + std::string(to_string(q.trigger)) + "): " + q.text + "\n";
  if (!q.checks.empty()) out += "(Answer it with a measurement: " + q.checks + ")\n";
  return out;
}

SOCRATIC_DECL void to_json(json& j, const Question& q) {
  j = json{{"id", q.id},           {"group", q.group},     {"text", q.text},
           {"checks", q.checks},   {"trigger", q.trigger}, {"evidence", q.evidence}};
}

SOCRATIC_DECL void from_json(const json& j, Question& q) {
  q.id = optional_field<std::string>(j, "id", "");
  q.group = optional_field<std::string>(j, "group", "");
  q.text = required<std::string>(j, "text", "question");
  q.checks = optional_field<std::string>(j, "checks", "");
  q.trigger = required<Trigger>(j, "trigger", "question");
  q.evidence = optional_field<std::string>(j, "evidence", "");
}

}  // namespace socratic
