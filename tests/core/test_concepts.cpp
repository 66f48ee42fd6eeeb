// Compile-time checks: a type missing a required member does not satisfy the concept; the
// concepts' type erasures (any.hpp) forward to what they wrap.
#include "catch.hpp"

#include <vector>

#include "socratic/agents/llm_backend.hpp"
#include "socratic/any.hpp"
#include "socratic/concepts.hpp"

using namespace socratic;

namespace {

struct GoodEvaluator {
  EvalReport evaluate(const Candidate&) { return {}; }
};
struct EvaluatorWrongReturn {
  bool evaluate(const Candidate&) { return true; }
};
struct EvaluatorNoMember {};

struct GoodAgent {
  TurnResult turn(const Message&, Tools&) { return {}; }
};
struct AgentWrongArgs {
  TurnResult turn(const std::string&) { return {}; }
};

struct GoodSource {
  std::optional<Question> ask(const TriggerEvent&, const CampaignState&) { return std::nullopt; }
};
struct SourceReturnsQuestion {
  Question ask(const TriggerEvent&, const CampaignState&) { return {}; }
};

struct GoodGoal {
  Verdict operator()(const EvalReport&) const { return Verdict::pass(); }
};
struct GoalNotConst {
  Verdict operator()(const EvalReport&) { return Verdict::pass(); }
};
struct GoalReturnsInt {
  int operator()(const EvalReport&) const { return 1; }
};

struct GoodBackend {
  LlmResponse complete(const LlmRequest&) { return {}; }
};
struct BackendNoComplete {
  LlmResponse send(const LlmRequest&) { return {}; }
};

}  // namespace

static_assert(Evaluator<GoodEvaluator>);
static_assert(!Evaluator<EvaluatorWrongReturn>, "evaluate must return EvalReport");
static_assert(!Evaluator<EvaluatorNoMember>);
static_assert(Agent<GoodAgent>);
static_assert(!Agent<AgentWrongArgs>, "turn takes (const Message&, Tools&)");
static_assert(QuestionSource<GoodSource>);
static_assert(!QuestionSource<SourceReturnsQuestion>, "ask returns std::optional<Question>");
static_assert(GoalPredicate<GoodGoal>);
static_assert(!GoalPredicate<GoalNotConst>, "a goal is callable on a const object");
static_assert(!GoalPredicate<GoalReturnsInt>);
static_assert(LlmBackend<GoodBackend>);
static_assert(!LlmBackend<BackendNoComplete>);

TEST_CASE("concepts accept conforming types and reject types missing a requirement", "[concepts]") {
  // The static_asserts above are the test; these repeat them at run time for the report.
  CHECK(Evaluator<GoodEvaluator>);
  CHECK_FALSE(Evaluator<EvaluatorWrongReturn>);
  CHECK_FALSE(Agent<AgentWrongArgs>);
  CHECK_FALSE(QuestionSource<SourceReturnsQuestion>);
  CHECK_FALSE(GoalPredicate<GoalNotConst>);
  CHECK_FALSE(LlmBackend<BackendNoComplete>);
  auto lambda_goal = [](const EvalReport&) { return Verdict::pass(); };
  CHECK(GoalPredicate<decltype(lambda_goal)>);
}

namespace {

struct CountingEvaluator {
  int calls = 0;
  EvalReport evaluate(const Candidate& c) {
    ++calls;
    EvalReport r;
    r.candidate = c;
    return r;
  }
};
struct CountingAgent {
  std::vector<int>* proposals = nullptr;
  TurnResult turn(const Message&, Tools&) { return {}; }
  void on_proposal(int n) { proposals->push_back(n); }
};
struct NamedGoal {
  Verdict operator()(const EvalReport&) const { return Verdict::pass(); }
  std::string describe() const { return "always met"; }
};

}  // namespace

TEST_CASE("the type erasures forward to what they wrap", "[concepts]") {
  CountingEvaluator evaluator;
  AnyEvaluator any_evaluator(evaluator);
  Candidate c;
  c.label = "k";
  CHECK(any_evaluator.evaluate(c).candidate.label == "k");
  CHECK(evaluator.calls == 1);  // the caller's object, not a copy

  std::vector<int> proposals;
  CountingAgent agent;
  agent.proposals = &proposals;
  AnyAgent any_agent(agent);
  any_agent.on_proposal(4);
  CHECK(proposals == std::vector<int>{4});
  AnyAgent any_plain(GoodAgent{});
  any_plain.on_proposal(1);  // an agent without on_proposal is not told

  GoodSource source;
  AnyQuestionSource questions(source);
  CHECK_FALSE(questions.ask(TriggerEvent{}, CampaignState{}));

  const AnyGoal goal = NamedGoal{};
  CHECK(goal(EvalReport{}).met);
  CHECK(goal.describe() == "always met");
  const AnyGoal lambda = [](const EvalReport&) { return Verdict::pass(); };
  CHECK(lambda.describe() == "user-defined goal");
}
