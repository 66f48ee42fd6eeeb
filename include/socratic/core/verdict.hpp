#pragma once
/// @file
/// @brief Verdict: whether a goal holds, and every condition that does not.

#include <string>
#include <vector>

#include "socratic/core/json.hpp"

namespace socratic {

/// @brief One unmet condition: which scenario (empty for the whole report), what was required,
/// what was measured.
struct UnmetCondition {
  std::string scenario;   ///< scenario id, or empty when the condition is about the whole report
  std::string condition;  ///< short name, e.g. `speedup`, `correct`, `no_banned_libraries`
  std::string required;   ///< e.g. `>= 1.10`
  std::string measured;   ///< e.g. `0.97`, or `missing`
  friend bool operator==(const UnmetCondition&, const UnmetCondition&) = default;
};

/// @brief The outcome of a goal predicate. `met` is true only when `unmet` is empty.
struct Verdict {
  bool met = false;
  std::vector<UnmetCondition> unmet;

  static Verdict pass() { return Verdict{true, {}}; }
  static Verdict fail(std::vector<UnmetCondition> why) {
    if (why.empty()) why.push_back({"", "goal", "met", "not met"});
    return Verdict{false, std::move(why)};
  }
  explicit operator bool() const noexcept { return met; }

  /// @brief One line per unmet condition, for messages to the agent and terminals.
  std::string describe() const {
    if (met) return "goal met";
    std::string out;
    for (const auto& u : unmet) {
      out += "- ";
      out += u.scenario.empty() ? std::string("(all)") : u.scenario;
      out += ": " + u.condition + " required " + u.required + ", measured " + u.measured + "\n";
    }
    return out;
  }
  friend bool operator==(const Verdict&, const Verdict&) = default;
};

inline void to_json(json& j, const UnmetCondition& u) {
  j = json{{"scenario", u.scenario}, {"condition", u.condition}, {"required", u.required},
           {"measured", u.measured}};
}
inline void from_json(const json& j, UnmetCondition& u) {
  u.scenario = optional_field<std::string>(j, "scenario", "");
  u.condition = required<std::string>(j, "condition", "unmet condition");
  u.required = optional_field<std::string>(j, "required", "");
  u.measured = optional_field<std::string>(j, "measured", "");
}
inline void to_json(json& j, const Verdict& v) { j = json{{"met", v.met}, {"unmet", v.unmet}}; }
inline void from_json(const json& j, Verdict& v) {
  v.met = required<bool>(j, "met", "verdict");
  v.unmet = optional_field<std::vector<UnmetCondition>>(j, "unmet", {});
  if (v.met && !v.unmet.empty()) throw input_error({}, "verdict", "met is true but unmet conditions are listed");
}

}  // namespace socratic
