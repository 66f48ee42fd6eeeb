#pragma once
/// @file
/// @brief Definitions for socratic/core/campaign_state.hpp: included there in header-only builds,
/// and by socratic/src.hpp (compiled once) with SOCRATIC_SEPARATE_COMPILATION.

#include "socratic/core/campaign_state.hpp"

namespace socratic {

SOCRATIC_DECL void to_json(json& j, EvaluationOrigin o) { j = std::string(to_string(o)); }

SOCRATIC_DECL void from_json(const json& j, EvaluationOrigin& o) {
  if (!j.is_string()) throw input_error({}, "evaluation \"origin\"", "expected a string, got " + j.dump());
  const auto parsed = parse_evaluation_origin(j.get_ref<const std::string&>());
  if (!parsed)
    throw input_error({}, "evaluation \"origin\"",
                      "unknown origin \"" + j.get<std::string>() + "\" (agent, stop_check, gate, incumbent_check)");
  o = *parsed;
}

SOCRATIC_DECL void to_json(json& j, const EvaluationRecord& e) {
  j = json{{"index", e.index},         {"turn", e.turn},
           {"agent_id", e.agent_id},   {"origin", e.origin},
           {"elapsed_s", e.elapsed_s}, {"candidate_hash", e.candidate_hash},
           {"report", e.report}};
  if (e.reused_from) j["reused_from"] = *e.reused_from;
  if (!e.judge.empty()) j["judge"] = e.judge;
}

SOCRATIC_DECL void from_json(const json& j, EvaluationRecord& e) {
  e.index = required<int>(j, "index", "evaluation");
  e.turn = optional_field<int>(j, "turn", 0);
  e.agent_id = optional_field<std::string>(j, "agent_id", "");
  e.origin = optional_field<EvaluationOrigin>(j, "origin", EvaluationOrigin::agent, "evaluation");
  e.elapsed_s = optional_field<double>(j, "elapsed_s", 0);
  e.candidate_hash = optional_field<std::string>(j, "candidate_hash", "");
  e.report = required<EvalReport>(j, "report", "evaluation");
  e.reused_from = optional_value<int>(j, "reused_from", "evaluation");
  e.judge = optional_field<std::string>(j, "judge", "", "evaluation");
}

SOCRATIC_DECL void to_json(json& j, const AskedQuestion& a) {
  j = json{{"question", a.question}, {"turn", a.turn}, {"after_evaluation", a.after_evaluation},
           {"elapsed_s", a.elapsed_s}};
  if (!a.agent_id.empty()) j["agent_id"] = a.agent_id;
}

SOCRATIC_DECL void from_json(const json& j, AskedQuestion& a) {
  a.question = required<Question>(j, "question", "asked question");
  a.turn = optional_field<int>(j, "turn", 0);
  a.after_evaluation = optional_field<int>(j, "after_evaluation", -1);
  a.elapsed_s = optional_field<double>(j, "elapsed_s", 0);
  a.agent_id = optional_field<std::string>(j, "agent_id", "");
}

}  // namespace socratic
