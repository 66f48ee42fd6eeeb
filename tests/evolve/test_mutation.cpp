// The mutation operator: the question chosen for the parent's situation, the message, the workspace.
#include "support.hpp"

#include <random>

#include "socratic/core/files.hpp"
#include "socratic/evolve/mutation.hpp"
#include "socratic/questions/bank_question_source.hpp"

using namespace socratic;
using namespace socratic::evolve;

namespace {
const std::filesystem::path bank_dir = std::filesystem::path(SOCRATIC_SOURCE_DIR) / "question_bank";
}

TEST_CASE("the shipped bank has mutation and crossover questions for a CPU problem at every moment", "[evolve][mutation]") {
  const Bank bank = load_bank(bank_dir);
  int mutation = 0, crossover = 0;
  for (const auto& e : bank.entries) mutation += e.has_tag("mutation"), crossover += e.has_tag("crossover");
  CHECK(mutation >= 15);
  CHECK(crossover >= 2);
  for (Trigger t : {Trigger::start, Trigger::plateau, Trigger::correctness_explained_away, Trigger::suspicious_gain}) {
    Situation s;
    s.trigger = t;
    s.problem_kinds = {"cpu"};
    const auto fit = eligible_questions(bank, s);
    INFO(to_string(t));
    REQUIRE(!fit.empty());
    for (const auto* e : fit) {
      CHECK(e->has_tag("mutation"));
      CHECK(e->serves(t));
      CHECK(e->kinds.empty());  // nothing GPU-only for a CPU problem
    }
  }
  Situation s;
  s.problem_kinds = {"cpu"};
  for (const auto* e : eligible_questions(bank, s, "crossover")) CHECK(e->has_tag("crossover"));
}

TEST_CASE("the weakest scenarios are those furthest from the island's best", "[evolve][mutation]") {
  std::vector<Member> island = {etest::member("p", 0, {2, 1, 1}), etest::member("q", 0, {2, 3, 1.1})};
  const auto w = weakest_scenarios(island[0], island, {"a", "b", "c"}, 2);
  CHECK(w == std::vector<std::string>{"b", "c"});
}

TEST_CASE("the message asks the question, names the weak scenarios and the workspace holds every source", "[evolve][mutation]") {
  const auto dir = etest::temp_dir("mutation");
  EvalReport r;
  r.built = true;
  r.expected = {"r64"};
  ScenarioResult s;
  s.id = "r64", s.correct = true, s.candidate_ms = 1, s.baseline_ms = 2, s.speedup = 2;
  r.scenarios = {s};
  MutationTask t;
  t.kind = MutationKind::crossover;
  t.question_id = "strategy.crossover-strengths";
  t.question_text = "Which part of parent B explains its lead?";
  t.parent = {"c1", "int a;", r};
  t.second_parent = CandidateView{"c2", "int b;", std::nullopt};
  t.inspirations = {{"c3", "int c;", std::nullopt}};
  t.weakest_scenarios = {"r64"};
  const std::string msg = write_mutation_workspace(dir / "ws", t, "kernel.cpp");
  CHECK_THAT(msg, E_CONTAINS("Question: Which part of parent B explains its lead?"));
  CHECK_THAT(msg, E_CONTAINS("weakest scenarios, against the best of its island: r64"));
  CHECK_THAT(msg, E_CONTAINS("r64: correct, 1 ms against the baseline's 2 ms, speedup 2"));
  CHECK_THAT(msg, E_CONTAINS("Parent B (c2, in `parent_b.cpp`)"));
  CHECK(read_file_bytes(dir / "ws" / "kernel.cpp") == "int a;");
  CHECK(read_file_bytes(dir / "ws" / "parent_b.cpp") == "int b;");
  CHECK(read_file_bytes(dir / "ws" / "inspiration_1.cpp") == "int c;");
  CHECK(read_json_file(dir / "ws" / "task.json")["question_id"] == "strategy.crossover-strengths");

  MutationTask plain;
  plain.kind = MutationKind::plain;
  plain.parent = {"c1", "int a;", std::nullopt};
  const std::string pm = mutation_message(plain, "kernel.cpp");
  CHECK(pm.rfind(plain_instruction, 0) == 0);
  CHECK(pm.find("Question:") == std::string::npos);
}

TEST_CASE("choose_question picks among the fitting questions through the bandit", "[evolve][mutation]") {
  const Bank bank = load_bank(bank_dir);
  QuestionBandit b;
  b.config.explore = 0;
  Situation s;
  s.trigger = Trigger::start;
  s.problem_kinds = {"cpu"};
  const auto fit = eligible_questions(bank, s);
  REQUIRE(fit.size() >= 3);
  // One question has paid many times: it is chosen nearly always.
  for (int i = 0; i < 30; ++i) b.reward(fit[1]->id, true);
  for (const auto* e : fit)
    if (e != fit[1])
      for (int i = 0; i < 30; ++i) b.reward(e->id, false);
  std::mt19937_64 rng(3);
  int hits = 0;
  for (int i = 0; i < 50; ++i) hits += choose_question(bank, b, s, rng)->id == fit[1]->id;
  CHECK(hits == 50);
}

TEST_CASE("an ordinary campaign's question source never asks a search-only entry", "[evolve][mutation]") {
  const Bank bank = load_bank(bank_dir);
  BankQuestionSource source(bank);
  CampaignState state;
  int search_only = 0;
  for (const auto& e : bank.entries) search_only += e.has_tag("search-only");
  CHECK(search_only == 9);
  for (Trigger t : all_triggers)
    for (const auto* e : source.pool(t, state)) CHECK_FALSE(e->has_tag("search-only"));
  // The search itself asks them: a crossover question is search-only.
  Situation s;
  s.problem_kinds = {"cpu"};
  for (const auto* e : eligible_questions(bank, s, "crossover")) CHECK(e->has_tag("search-only"));
}
