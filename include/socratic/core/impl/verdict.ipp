#pragma once
/// @file
/// @brief Definitions for socratic/core/verdict.hpp: included there in header-only builds, and by
/// socratic/src.hpp (compiled once) with SOCRATIC_SEPARATE_COMPILATION.

#include "socratic/core/verdict.hpp"

namespace socratic {

SOCRATIC_DECL void to_json(json& j, const UnmetCondition& u) {
  j = json{{"scenario", u.scenario}, {"condition", u.condition}, {"required", u.required},
           {"measured", u.measured}};
}

SOCRATIC_DECL void from_json(const json& j, UnmetCondition& u) {
  u.scenario = optional_field<std::string>(j, "scenario", "");
  u.condition = required<std::string>(j, "condition", "unmet condition");
  u.required = optional_field<std::string>(j, "required", "");
  u.measured = optional_field<std::string>(j, "measured", "");
}

SOCRATIC_DECL void to_json(json& j, const Verdict& v) { j = json{{"met", v.met}, {"unmet", v.unmet}}; }

SOCRATIC_DECL void from_json(const json& j, Verdict& v) {
  v.met = required<bool>(j, "met", "verdict");
  v.unmet = optional_field<std::vector<UnmetCondition>>(j, "unmet", {});
  if (v.met && !v.unmet.empty()) throw input_error({}, "verdict", "met is true but unmet conditions are listed");
}

}  // namespace socratic
