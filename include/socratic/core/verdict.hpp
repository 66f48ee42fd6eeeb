#pragma once
/// @file
/// @brief Verdict: whether a goal holds, and every condition that does not.

#include <string>
#include <vector>

#include "socratic/core/json.hpp"
#include "socratic/core/detail/separate_compilation.hpp"

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

SOCRATIC_DECL void to_json(json& j, const UnmetCondition& u);
SOCRATIC_DECL void from_json(const json& j, UnmetCondition& u);
SOCRATIC_DECL void to_json(json& j, const Verdict& v);
SOCRATIC_DECL void from_json(const json& j, Verdict& v);

}  // namespace socratic

#ifndef SOCRATIC_SEPARATE_COMPILATION
#include "socratic/core/impl/verdict.ipp"
#endif
