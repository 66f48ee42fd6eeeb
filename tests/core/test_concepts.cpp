// Compile-time checks: a type missing a required member does not satisfy the concept.
#include "catch.hpp"

#include "socratic/agents/llm_backend.hpp"
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
