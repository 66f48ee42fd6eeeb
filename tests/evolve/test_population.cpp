// Islands, the front over scenarios, parent sampling and ring migration.
#include "support.hpp"

#include <map>
#include <random>
#include <set>

using namespace socratic::evolve;
using etest::member;

namespace {
PopulationConfig config(int islands, int capacity, std::size_t scenarios) {
  PopulationConfig c;
  c.islands = islands;
  c.capacity = capacity;
  c.scenarios = scenarios;
  return c;
}
bool holds(const Population& p, int island, const std::string& id) {
  for (const auto& m : p.island(island))
    if (m.id == id) return true;
  return false;
}
}  // namespace

TEST_CASE("selection keeps a scenario's specialist whose geomean is not the best", "[evolve][population]") {
  Population p(config(1, 2, 3));
  p.add(member("balanced", 0, {2.0, 2.0, 2.0}));     // geomean 2.0, the best
  p.add(member("balanced2", 0, {1.9, 1.9, 1.9}));    // geomean 1.9, second, dominated
  p.add(member("specialist", 0, {3.0, 0.5, 0.5}));   // geomean 0.91, best on scenario 0
  p.add(member("weak", 0, {1.0, 1.0, 1.0}));         // dominated, low
  p.select();
  REQUIRE(p.island(0).size() == 2);
  CHECK(holds(p, 0, "balanced"));
  CHECK(holds(p, 0, "specialist"));  // a pure fitness cut would have kept balanced2
  CHECK_FALSE(holds(p, 0, "balanced2"));
  CHECK_FALSE(holds(p, 0, "weak"));
}

TEST_CASE("the front holds the leaders and the non-dominated, never the dominated", "[evolve][population]") {
  std::vector<Member> ms = {member("a", 0, {2, 1}), member("b", 0, {1, 2}), member("c", 0, {1.5, 1.5}),
                            member("d", 0, {1, 1}), member("broken", 0, {std::nan(""), 5})};
  std::vector<const Member*> ptr;
  for (auto& m : ms) ptr.push_back(&m);
  const auto front = scenario_front(ptr, 2);
  std::set<std::string> ids;
  for (auto i : front) ids.insert(ms[i].id);
  // `broken` leads scenario 1 (it is correct there): a specialist, kept; b is beaten by no one
  // on both scenarios at once; d is dominated by c.
  CHECK(ids == std::set<std::string>{"a", "b", "c", "broken"});
  CHECK(dominates(ms[0], ms[3]));
  CHECK_FALSE(dominates(ms[0], ms[1]));
}

TEST_CASE("leaders survive even past the capacity; the rest is cut by fitness", "[evolve][population]") {
  Population p(config(1, 1, 3));
  p.add(member("s0", 0, {3, 1, 1}));
  p.add(member("s1", 0, {1, 3, 1}));
  p.add(member("s2", 0, {1, 1, 3}));
  p.add(member("mid", 0, {1.4, 1.4, 1.4}));
  p.select();
  CHECK(p.island(0).size() == 3);
  CHECK_FALSE(holds(p, 0, "mid"));
}

TEST_CASE("ring migration: the best goes to the next island, once, and identical code is not sent", "[evolve][population]") {
  auto c = config(3, 8, 1);
  c.migrants = 1;
  Population p(c);
  p.add(member("a", 0, {3}));
  p.add(member("a-low", 0, {1}));
  p.add(member("b", 1, {2}));
  Member same_as_b = member("b-copy", 2, {1.5});
  same_as_b.code_hash = "h-b";  // island 2 already holds b's code
  p.add(same_as_b);
  const MigrationResult r = p.migrate();
  CHECK(holds(p, 1, "a"));         // 0 -> 1
  CHECK_FALSE(holds(p, 2, "b"));   // 1 -> 2: identical code there already
  CHECK(r.skipped_identical == 1);
  CHECK(holds(p, 0, "b-copy"));    // 2 -> 0, the ring closes
  CHECK(r.sent == 2);
  for (const auto& m : p.island(1))
    if (m.id == "a") CHECK(m.migrant);
  // A migrant never migrates again: island 1's only non-migrant is b, which island 2 refuses.
  const MigrationResult r2 = p.migrate();
  CHECK_FALSE(holds(p, 2, "a"));
  CHECK(r2.skipped_identical >= 1);
  // Migrants are also not sent from island 0 (b-copy arrived there by migration).
  for (const auto& m : p.island(1)) CHECK(m.id != "b-copy");
}

TEST_CASE("parent sampling balances the fittest, the front and exploration", "[evolve][population]") {
  auto c = config(1, 64, 2);
  Population p(c);
  p.add(member("best", 0, {3, 3}));
  p.add(member("spec", 0, {0.5, 4}));
  for (int i = 0; i < 20; ++i) p.add(member("w" + std::to_string(i), 0, {1, 1}));
  std::mt19937_64 rng(7);
  std::map<std::string, int> n;
  const int draws = 4000;
  for (int i = 0; i < draws; ++i) ++n[p.sample_parent(0, rng)->id];
  // The fittest is drawn far above uniform (1/22), the specialist too (it leads a scenario), and
  // the weak members are still drawn (exploration).
  CHECK(n["best"] > draws / 5);
  CHECK(n["spec"] > draws / 10);
  int weak = 0;
  for (int i = 0; i < 20; ++i) weak += n["w" + std::to_string(i)] > 0;
  CHECK(weak == 20);
}

TEST_CASE("inspirations: the fittest other member and the leaders the parent is weak against", "[evolve][population]") {
  Population p(config(1, 16, 2));
  p.add(member("parent", 0, {1, 1}));
  p.add(member("fit", 0, {2, 2}));
  p.add(member("spec", 0, {0.5, 4}));
  const Member& parent = p.island(0)[0];
  const auto ins = p.inspirations(parent, 2);
  REQUIRE(ins.size() == 2);
  CHECK(ins[0]->id == "fit");
  CHECK(ins[1]->id == "spec");
}

TEST_CASE("population errors name the member and the island", "[evolve][population]") {
  Population p(config(2, 4, 2));
  CHECK_THROWS_WITH(p.add(member("x", 5, {1, 1})), E_CONTAINS("island 5"));
  CHECK_THROWS_WITH(p.add(member("y", 0, {1})), E_CONTAINS("member y has 1 scenario scores, expected 2"));
}
