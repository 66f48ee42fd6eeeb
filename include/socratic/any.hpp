#pragma once
/// @file
/// @brief The four concepts' type erasures, for parts chosen at run time (from a file, a command
/// line) or kept in one container: AnyAgent, AnyEvaluator, AnyQuestionSource, AnyGoal. Beside
/// concepts.hpp and, like it, depends on core/ alone.
///
/// Who owns the wrapped object follows how each part is used:
/// - AnyAgent and AnyGoal own it (taken by value). A driver keeps its agents for the campaign's
///   life; a goal is a small value, composed and copied. Copies of an AnyAgent share one agent.
/// - AnyEvaluator and AnyQuestionSource refer to it (taken by reference; it must outlive the
///   wrapper). An evaluator and a question source are the caller's stateful objects (build
///   caches, what was asked), shared with the rest of the program.
///
/// @par Example
/// @code
/// MyEvaluator evaluator;
/// socratic::BankQuestionSource bank(socratic::load_bank(data / "question_bank"));
/// socratic::AnyEvaluator any_evaluator(evaluator);   // refers to evaluator
/// socratic::AnyQuestionSource questions(bank);         // refers to bank
/// socratic::AnyGoal goal = socratic::goals::goal_from_spec(spec);
/// socratic::Campaign campaign(agent, any_evaluator, questions, goal, config);
/// @endcode

#include <concepts>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>

#include "socratic/concepts.hpp"

namespace socratic {

/// @brief Any Agent, owned. An agent with `void on_proposal(int n)` is told the number of its
/// next proposal before each turn by a parallel campaign (its records in the store so far,
/// resumed ones included). An agent with `std::optional<std::string> waiting_for(const Message&)`
/// (InboxAgent) is asked it before each turn: a value says what it waits for, and a parallel
/// campaign pauses it without beginning the turn.
class AnyAgent {
 public:
  template <Agent A>
  explicit AnyAgent(A agent) : self_(std::make_shared<Model<A>>(std::move(agent))) {}
  TurnResult turn(const Message& m, Tools& t) { return self_->turn(m, t); }
  void on_proposal(int n) { self_->on_proposal(n); }
  std::optional<std::string> waiting_for(const Message& m) { return self_->waiting_for(m); }

 private:
  struct Concept {
    virtual ~Concept() = default;
    virtual TurnResult turn(const Message&, Tools&) = 0;
    virtual void on_proposal(int) = 0;
    virtual std::optional<std::string> waiting_for(const Message&) = 0;
  };
  template <class A>
  struct Model final : Concept {
    explicit Model(A a) : agent(std::move(a)) {}
    TurnResult turn(const Message& m, Tools& t) override { return agent.turn(m, t); }
    void on_proposal(int n) override {
      if constexpr (requires { agent.on_proposal(n); }) agent.on_proposal(n);
    }
    std::optional<std::string> waiting_for(const Message& m) override {
      if constexpr (requires { { agent.waiting_for(m) } -> std::convertible_to<std::optional<std::string>>; })
        return agent.waiting_for(m);
      else
        return std::nullopt;
    }
    A agent;
  };
  std::shared_ptr<Concept> self_;
};
static_assert(Agent<AnyAgent>);

/// @brief Any Evaluator, held by reference (it must outlive the wrapper).
class AnyEvaluator {
 public:
  template <Evaluator E>
    requires(!std::is_same_v<std::remove_cvref_t<E>, AnyEvaluator>)
  explicit AnyEvaluator(E& evaluator) : evaluate_([&evaluator](const Candidate& c) { return evaluator.evaluate(c); }) {}
  EvalReport evaluate(const Candidate& candidate) { return evaluate_(candidate); }

 private:
  std::function<EvalReport(const Candidate&)> evaluate_;
};
static_assert(Evaluator<AnyEvaluator>);

/// @brief Any QuestionSource, held by reference (it must outlive the wrapper).
class AnyQuestionSource {
 public:
  template <QuestionSource Q>
    requires(!std::is_same_v<std::remove_cvref_t<Q>, AnyQuestionSource>)
  explicit AnyQuestionSource(Q& source)
      : ask_([&source](const TriggerEvent& e, const CampaignState& s) { return source.ask(e, s); }) {}
  std::optional<Question> ask(const TriggerEvent& event, const CampaignState& state) { return ask_(event, state); }

 private:
  std::function<std::optional<Question>(const TriggerEvent&, const CampaignState&)> ask_;
};
static_assert(QuestionSource<AnyQuestionSource>);

/// @brief Any GoalPredicate, owned, with its description: goals chosen at run time (from a
/// file: goals/goal_spec.hpp) composed and handed to a campaign.
class AnyGoal {
 public:
  /// @brief Wraps any GoalPredicate. (The same_as test comes first: checking GoalPredicate<AnyGoal>
  /// would otherwise recurse into this constructor, which clang rejects.)
  template <class G>
    requires(!std::same_as<std::remove_cvref_t<G>, AnyGoal> && GoalPredicate<G>)
  AnyGoal(G goal)  // NOLINT: implicit on purpose, like std::function
      : check_(std::make_shared<const std::function<Verdict(const EvalReport&)>>(
            [g = goal](const EvalReport& r) { return Verdict(g(r)); })),
        description_(describe_goal(goal)) {}

  /// @brief The verdict of the wrapped goal.
  Verdict operator()(const EvalReport& r) const { return (*check_)(r); }
  /// @brief The wrapped goal's description.
  std::string describe() const { return description_; }

 private:
  std::shared_ptr<const std::function<Verdict(const EvalReport&)>> check_;
  std::string description_;
};
static_assert(GoalPredicate<AnyGoal>);

}  // namespace socratic
