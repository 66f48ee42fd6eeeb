#pragma once
/// @file
/// @brief Combining goals: all_of, any_of, negate, scenario_filter, and `goal()` to name any
/// callable. All results satisfy GoalPredicate.

#include <algorithm>
#include <functional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "socratic/concepts.hpp"
#include "socratic/goals/detail/report_checks.hpp"

namespace socratic::goals {

/// @brief Met when every part is met; lists the unmet conditions of all parts.
template <GoalPredicate... G>
struct all_of_t {
  std::tuple<G...> parts;

  Verdict operator()(const EvalReport& r) const {
    std::vector<UnmetCondition> unmet;
    std::apply([&](const auto&... g) { (append(unmet, Verdict(g(r))), ...); }, parts);
    if (sizeof...(G) == 0) unmet = detail::report_integrity(r);
    return unmet.empty() ? Verdict::pass() : Verdict::fail(std::move(unmet));
  }
  std::string describe() const {
    std::string out = "all of (";
    std::apply([&](const auto&... g) { ((out += describe_goal(g) + "; "), ...); }, parts);
    return out + ")";
  }

 private:
  static void append(std::vector<UnmetCondition>& out, const Verdict& v) {
    for (const auto& u : v.unmet)
      if (std::find(out.begin(), out.end(), u) == out.end()) out.push_back(u);
  }
};

/// @brief Met when at least one part is met; otherwise lists every part's unmet conditions.
template <GoalPredicate... G>
struct any_of_t {
  std::tuple<G...> parts;

  Verdict operator()(const EvalReport& r) const {
    static_assert(sizeof...(G) > 0, "any_of needs at least one goal");
    std::vector<UnmetCondition> unmet;
    bool met = false;
    std::apply(
        [&](const auto&... g) {
          (
              [&] {
                if (met) return;
                Verdict v = g(r);
                if (v.met)
                  met = true;
                else
                  unmet.insert(unmet.end(), v.unmet.begin(), v.unmet.end());
              }(),
              ...);
        },
        parts);
    return met ? Verdict::pass() : Verdict::fail(std::move(unmet));
  }
  std::string describe() const {
    std::string out = "any of (";
    std::apply([&](const auto&... g) { ((out += describe_goal(g) + "; "), ...); }, parts);
    return out + ")";
  }
};

/// @brief Met when the inner goal is not, but never on a report that cannot be judged
/// (missing scenarios, failed build, harness error).
template <GoalPredicate G>
struct negate_t {
  G inner;
  Verdict operator()(const EvalReport& r) const {
    auto unmet = detail::report_integrity(r);
    if (!unmet.empty()) return Verdict::fail(std::move(unmet));
    if (Verdict(inner(r)).met)
      return Verdict::fail({{"", "not", "not (" + describe_goal(inner) + ")", "it holds"}});
    return Verdict::pass();
  }
  std::string describe() const { return "not (" + describe_goal(inner) + ")"; }
};

/// @brief Applies a goal to the scenarios whose id satisfies `select` (e.g. only causal ones).
/// A report where no expected scenario is selected fails: a goal over nothing is not met.
template <GoalPredicate G>
struct scenario_filter_t {
  std::function<bool(const std::string&)> select;
  G inner;
  std::string name = "selected scenarios";

  Verdict operator()(const EvalReport& r) const {
    EvalReport sub = r;
    sub.expected.clear();
    sub.scenarios.clear();
    for (const auto& id : r.expected)
      if (select(id)) sub.expected.push_back(id);
    for (const auto& s : r.scenarios)
      if (select(s.id)) sub.scenarios.push_back(s);
    if (sub.expected.empty() && !r.expected.empty())
      return Verdict::fail({{"", "scenario_filter", name + " non-empty", "no scenario selected"}});
    return inner(sub);
  }
  std::string describe() const { return describe_goal(inner) + " on " + name; }
};

/// @brief A user callable `Verdict(const EvalReport&)` with a description for traces.
template <class F>
struct named_goal_t {
  F fn;
  std::string description;
  Verdict operator()(const EvalReport& r) const { return fn(r); }
  std::string describe() const { return description; }
};

template <GoalPredicate... G>
all_of_t<G...> all_of(G... g) {
  return {std::tuple<G...>(std::move(g)...)};
}
template <GoalPredicate... G>
any_of_t<G...> any_of(G... g) {
  return {std::tuple<G...>(std::move(g)...)};
}
template <GoalPredicate G>
negate_t<G> negate(G g) {
  return {std::move(g)};
}
template <GoalPredicate G>
scenario_filter_t<G> scenario_filter(std::function<bool(const std::string&)> select, G g,
                                     std::string name = "selected scenarios") {
  return {std::move(select), std::move(g), std::move(name)};
}
/// @brief Restricts a goal to an explicit list of scenario ids.
template <GoalPredicate G>
scenario_filter_t<G> scenario_filter(std::vector<std::string> ids, G g) {
  std::string name = "scenarios {";
  for (std::size_t i = 0; i < ids.size(); ++i) name += (i ? ", " : "") + ids[i];
  name += "}";
  return {[ids = std::move(ids)](const std::string& id) {
            return std::find(ids.begin(), ids.end(), id) != ids.end();
          },
          std::move(g), std::move(name)};
}
template <class F>
  requires GoalPredicate<F>
named_goal_t<F> goal(F fn, std::string description) {
  return {std::move(fn), std::move(description)};
}

}  // namespace socratic::goals
