#pragma once
/// @file
/// @brief The four concepts a campaign is composed of: Agent, Evaluator, QuestionSource,
/// GoalPredicate. Depends on core/ alone (the LlmBackend concept of the reference LLM agent is in
/// agents/llm_backend.hpp).
///
/// Each concept is a small set of type requirements. Write a type with the right members and it
/// plugs in; no base class, no registration. Every reference implementation is followed by a
/// `static_assert` that it satisfies its concept. docs/concepts.md explains each with examples.

#include <concepts>
#include <optional>

#include "socratic/core/campaign_state.hpp"
#include "socratic/core/candidate.hpp"
#include "socratic/core/message.hpp"
#include "socratic/core/question.hpp"
#include "socratic/core/report.hpp"
#include "socratic/core/tools.hpp"
#include "socratic/core/verdict.hpp"

namespace socratic {

/// @brief *Evaluator*: judges a candidate.
///
/// Requirements, for `e` an lvalue of E and `c` a `const Candidate&`:
/// - `e.evaluate(c)` returns `EvalReport`. It builds the candidate, checks it on every scenario
///   and times it. It reports failures (compile errors, crashes, wrong answers) inside the report
///   and throws only when it cannot judge at all (its own files are missing or tampered with).
/// - The report's `expected` lists every scenario it was asked to judge.
template <class E>
concept Evaluator = requires(E& e, const Candidate& c) {
  { e.evaluate(c) } -> std::same_as<EvalReport>;
};

/// @brief *GoalPredicate*: the goal, as code.
///
/// Requirements, for `g` a `const G&` and `r` a `const EvalReport&`:
/// - `g(r)` returns something convertible to `Verdict`, naming every unmet condition.
/// - It never passes a report with missing scenarios, a build failure, or a harness error.
/// Any callable `Verdict(const EvalReport&)` qualifies, lambdas included. Optionally
/// `g.describe()` returns a `std::string` for traces and messages.
template <class G>
concept GoalPredicate = std::copy_constructible<G> && requires(const G& g, const EvalReport& r) {
  { g(r) } -> std::convertible_to<Verdict>;
};

/// @brief *QuestionSource*: picks the question for a moment.
///
/// Requirements, for `q` an lvalue of Q, `e` a `const TriggerEvent&` and `s` a
/// `const CampaignState&`:
/// - `q.ask(e, s)` returns `std::optional<Question>`: a question for `e.trigger`, or nullopt when
///   it has none. The question's `trigger` and `evidence` say why it was asked.
/// - It may remember what it asked; it must not modify the campaign.
template <class Q>
concept QuestionSource = requires(Q& q, const TriggerEvent& e, const CampaignState& s) {
  { q.ask(e, s) } -> std::same_as<std::optional<Question>>;
};

/// @brief *Agent*: does one turn of work.
///
/// Requirements, for `a` an lvalue of A, `m` a `const Message&` and `t` a `Tools&`:
/// - `a.turn(m, t)` returns `TurnResult` when the agent ends its turn (tries to stop). It works
///   only inside `t.workspace()`, calls `t.charge()` for every tool call, `t.add_usage()` for model
///   usage, and stops early when either returns false. Errors it cannot recover from are returned
///   in `TurnResult::error`, not thrown.
/// - It keeps its conversation between turns: the next `turn` continues where it stopped.
template <class A>
concept Agent = requires(A& a, const Message& m, Tools& t) {
  { a.turn(m, t) } -> std::same_as<TurnResult>;
};

/// @brief A goal's description: `g.describe()` when it has one, else a generic name.
template <GoalPredicate G>
std::string describe_goal(const G& g) {
  if constexpr (requires { { g.describe() } -> std::convertible_to<std::string>; })
    return g.describe();
  else
    return "user-defined goal";
}

}  // namespace socratic
