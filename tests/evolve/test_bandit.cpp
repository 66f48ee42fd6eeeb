// The question bandit: it shifts toward questions that gain, explores, persists, feeds the credit.
#include "support.hpp"

#include <map>
#include <random>

#include "socratic/evolve/bandit.hpp"

using namespace socratic;
using namespace socratic::evolve;

TEST_CASE("the bandit shifts toward the question whose mutations are admitted", "[evolve][bandit]") {
  QuestionBandit b;
  b.config.explore = 0.05;
  const std::vector<std::string> ids = {"q.gains", "q.idle", "q.rarely"};
  const std::map<std::string, double> pays = {{"q.gains", 0.6}, {"q.idle", 0.0}, {"q.rarely", 0.1}};
  std::mt19937_64 rng(11);
  std::bernoulli_distribution coin(0.5);
  std::map<std::string, int> early, late;
  for (int t = 0; t < 400; ++t) {
    const std::string q = b.choose(ids, rng);
    (t < 40 ? early : late)[q] += t < 40 || t >= 300;
    std::bernoulli_distribution win(pays.at(q));
    const bool ok = win(rng);
    b.reward(q, ok, ok ? 0.1 : 0, ok ? "run#c" + std::to_string(t) : "");
  }
  // Every question was tried (exploration), and late on the paying one dominates.
  CHECK(b.arms.at("q.idle").pulls >= 3);
  CHECK(b.arms.at("q.rarely").pulls >= 3);
  CHECK(late["q.gains"] > 70);  // of the last 100 choices
  CHECK(b.mean("q.gains") > b.mean("q.rarely"));
  CHECK(b.arms.at("q.gains").evidence.size() == 16);  // the last 16 admitted records, named
}

TEST_CASE("the bank's credit is the prior; pulls merge into the credit table once per campaign", "[evolve][bandit]") {
  CreditTable credit;
  credit.questions["q.proven"] = {10, 8};
  credit.questions["q.failed"] = {10, 0};
  QuestionBandit b;
  b.credit = &credit;
  b.config.prior_weight = 10;
  CHECK(b.mean("q.proven") > 0.6);
  CHECK(b.mean("q.failed") < 0.1);
  CHECK(b.mean("q.new") == Approx(0.5));  // the credit table's own prior for an unknown id

  b.reward("q.new", true, 0.2, "evo#c3");
  b.reward("q.new", false);
  CHECK(b.merge_into(credit, "evo-1"));
  CHECK(credit.questions.at("q.new") == QuestionCredit{2, 1});
  CHECK_FALSE(b.merge_into(credit, "evo-1"));  // counted once
  CHECK(credit.questions.at("q.new") == QuestionCredit{2, 1});
}

TEST_CASE("the bandit file round-trips and bad files name the field", "[evolve][bandit]") {
  const auto dir = etest::temp_dir("bandit");
  QuestionBandit b;
  b.campaigns.insert("run-a");
  b.reward("compute.mut-repeated-work", true, 0.4, "run-a#c2");
  b.reward("compute.mut-repeated-work", false);
  b.save(dir / "bandit.json");
  const QuestionBandit r = QuestionBandit::load_or_new(dir / "bandit.json");
  CHECK(r.campaigns == b.campaigns);
  CHECK(r.arms.at("compute.mut-repeated-work").pulls == 2);
  CHECK(r.arms.at("compute.mut-repeated-work").evidence == std::vector<std::string>{"run-a#c2"});
  CHECK(QuestionBandit::load_or_new(dir / "missing.json").arms.empty());
  etest::write_file(dir / "bad.json", R"({"schema_version":1,"arms":{"q":{"pulls":1,"admitted":2}}})");
  CHECK_THROWS_WITH(QuestionBandit::load_or_new(dir / "bad.json"),
                    E_CONTAINS("bad.json") && E_CONTAINS("arm \"q\"") && E_CONTAINS("admitted <= pulls"));
}
