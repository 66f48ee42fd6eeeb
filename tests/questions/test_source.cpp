// BankQuestionSource: filters, no repeats, rotation, reproducibility; the adaptive mode and its
// credit rule.
#include "support.hpp"

#include <map>
#include <set>

#include "socratic/questions/bank_question_source.hpp"
#include "socratic/questions/credit.hpp"
#include "socratic/questions/lint.hpp"

using namespace socratic;

namespace {

using qtest::shipped;

BankEntry make(const std::string& id, const std::string& group, std::vector<Trigger> triggers = {Trigger::plateau},
               std::vector<std::string> tags = {}, std::vector<std::string> arch = {}, bool reference = false) {
  BankEntry e;
  e.id = id;
  e.group = group;
  e.text = "Question " + id + "?";
  e.checks = "checks of " + id;
  e.triggers = std::move(triggers);
  e.tags = std::move(tags);
  e.arch = std::move(arch);
  e.requires_reference = reference;
  return e;
}

Bank bank_of(std::vector<BankEntry> entries) {
  Bank b;
  b.entries = std::move(entries);
  return b;
}

/// A bank of `groups` groups with `per_group` plateau entries each: gA.0, gA.1, ..., gB.0, ...
Bank grid_bank(int groups, int per_group) {
  std::vector<BankEntry> entries;
  for (int g = 0; g < groups; ++g)
    for (int i = 0; i < per_group; ++i) {
      const std::string group = std::string("g") + static_cast<char>('A' + g);
      entries.push_back(make(group + "." + std::to_string(i), group));
    }
  return bank_of(entries);
}

TriggerEvent event(Trigger t, json details = json::object()) {
  return TriggerEvent{t, "test", "evidence for " + std::string(to_string(t)), 10, std::move(details)};
}

/// Asks for each trigger in turn, recording every question in the state as the campaign does.
std::vector<std::string> ask_all(BankQuestionSource& source, CampaignState& state, const std::vector<Trigger>& triggers) {
  std::vector<std::string> ids;
  for (Trigger t : triggers) {
    auto q = source.ask(event(t), state);
    REQUIRE(q);
    ids.push_back(q->id);
    state.asked.push_back(AskedQuestion{*q, state.turn, -1, 0, {}});
  }
  return ids;
}

std::vector<Trigger> repeat(Trigger t, int n) { return std::vector<Trigger>(static_cast<std::size_t>(n), t); }

CampaignState campaign(const std::string& id = "c1", const std::string& arch = "sm_90", bool reference = true) {
  CampaignState s;
  s.campaign_id = id;
  s.arch = arch;
  s.has_reference = reference;
  return s;
}

}  // namespace

TEST_CASE("a question carries its entry, the trigger and the event's evidence", "[questions][source]") {
  BankQuestionSource source(bank_of({make("g.a", "g")}));
  CampaignState s = campaign();
  auto q = source.ask(event(Trigger::plateau), s);
  REQUIRE(q);
  CHECK(q->id == "g.a");
  CHECK(q->group == "g");
  CHECK(q->text == "Question g.a?");
  CHECK(q->checks == "checks of g.a");
  CHECK(q->trigger == Trigger::plateau);
  CHECK(q->evidence == "evidence for plateau");
  REQUIRE(source.history().size() == 1);
  CHECK(source.history()[0].event.detector == "test");
  CHECK(source.history()[0].pool_size == 1);
  CHECK_FALSE(source.ask(event(Trigger::start), s));  // no entry serves start
}

TEST_CASE("selection filters by trigger, architecture and reference availability", "[questions][source]") {
  BankQuestionSource source(bank_of({make("g.any", "g"), make("g.hopper", "g", {Trigger::plateau}, {}, {"sm_90"}),
                                     make("g.blackwell", "g", {Trigger::plateau}, {}, {"sm_100"}),
                                     make("g.ref", "g", {Trigger::plateau}, {}, {}, true),
                                     make("g.start", "g", {Trigger::start})}));
  auto ids = [&](const CampaignState& s) {
    std::set<std::string> out;
    for (const auto* e : source.pool(Trigger::plateau, s)) out.insert(e->id);
    return out;
  };
  CHECK(ids(campaign("c", "sm_90a", false)) == std::set<std::string>{"g.any", "g.hopper"});
  CHECK(ids(campaign("c", "", false)) == std::set<std::string>{"g.any"});
  CHECK(ids(campaign("c", "sm_100", true)) == std::set<std::string>{"g.any", "g.blackwell", "g.ref"});

  // On the shipped bank: no Hopper or Blackwell question reaches an Ampere GPU.
  BankQuestionSource real(load_bank(shipped));
  CampaignState ampere = campaign("amp", "sm_80", false);
  for (Trigger t : all_triggers)
    for (const auto* e : real.pool(t, ampere)) {
      INFO(e->id);
      CHECK(e->fits_arch("sm_80"));
      CHECK_FALSE(e->requires_reference);
      CHECK(e->text.find("wgmma") == std::string::npos);
      CHECK(e->text.find("tcgen05") == std::string::npos);
    }
  std::set<std::string> hopper_start;
  for (const auto* e : real.pool(Trigger::start, campaign("h", "sm_90", false))) hopper_start.insert(e->id);
  CHECK(hopper_start.count("compute.wgmma-used") == 1);
  CHECK(hopper_start.count("compute.tcgen05-used") == 0);
}

TEST_CASE("no question repeats until its pool is exhausted", "[questions][source]") {
  BankQuestionSource source(grid_bank(2, 3));
  CampaignState s = campaign();
  const auto ids = ask_all(source, s, repeat(Trigger::plateau, 18));
  for (int cycle = 0; cycle < 3; ++cycle) {
    const std::set<std::string> distinct(ids.begin() + cycle * 6, ids.begin() + cycle * 6 + 6);
    CHECK(distinct.size() == 6);  // every entry once per cycle
  }
  SECTION("the shipped plateau pool on Hopper") {
    BankQuestionSource real(load_bank(shipped));
    CampaignState h = campaign("h");
    const std::size_t n = real.pool(Trigger::plateau, h).size();
    REQUIRE(n > 50);
    const auto all = ask_all(real, h, repeat(Trigger::plateau, static_cast<int>(n)));
    CHECK(std::set<std::string>(all.begin(), all.end()).size() == n);
  }
}

TEST_CASE("groups rotate: the group asked longest ago comes next", "[questions][source]") {
  BankQuestionSource source(grid_bank(3, 4));
  CampaignState s = campaign();
  const auto ids = ask_all(source, s, repeat(Trigger::plateau, 12));
  for (std::size_t i = 0; i + 3 <= ids.size(); i += 3) {
    std::set<std::string> groups;
    for (std::size_t k = i; k < i + 3; ++k) groups.insert(ids[k].substr(0, 2));
    CHECK(groups.size() == 3);
  }
  // Rotation spans triggers: after a start question from group gA, plateau avoids gA.
  std::vector<BankEntry> entries = grid_bank(2, 2).entries;
  entries.push_back(make("gA.start", "gA", {Trigger::start}));
  BankQuestionSource mixed(bank_of(entries));
  CampaignState m = campaign();
  const auto seq = ask_all(mixed, m, {Trigger::start, Trigger::plateau});
  CHECK(seq[0] == "gA.start");
  CHECK(seq[1].substr(0, 2) == "gB");
  // Without rotation, some seed asks the same group twice in a row.
  bool repeated_group = false;
  for (std::uint64_t seed = 0; seed < 20 && !repeated_group; ++seed) {
    BankQuestionSource plain(grid_bank(3, 4), BankSourceOptions{seed, false, std::nullopt, 0.2, {}, std::nullopt});
    CampaignState p = campaign();
    const auto run = ask_all(plain, p, repeat(Trigger::plateau, 6));
    for (std::size_t i = 1; i < run.size(); ++i) repeated_group |= run[i].substr(0, 2) == run[i - 1].substr(0, 2);
  }
  CHECK(repeated_group);
}

TEST_CASE("selection is reproducible from the seed, across sources and resumes", "[questions][source]") {
  const Bank bank = load_bank(shipped);
  const std::vector<Trigger> script = {Trigger::start, Trigger::plateau, Trigger::plateau, Trigger::claimed_limit,
                                       Trigger::suspicious_gain, Trigger::plateau, Trigger::correctness_explained_away,
                                       Trigger::claimed_limit, Trigger::plateau, Trigger::claimed_limit};
  auto run = [&](std::uint64_t seed) {
    BankQuestionSource source(bank, BankSourceOptions{seed, true, std::nullopt, 0.2, {}, std::nullopt});
    CampaignState s = campaign();
    return ask_all(source, s, script);
  };
  CHECK(run(7) == run(7));
  CHECK(run(7) != run(8));
  // A resumed campaign (a new source reading the trace's asked list) continues identically.
  const auto full = run(7);
  BankQuestionSource first(bank, BankSourceOptions{7, true, std::nullopt, 0.2, {}, std::nullopt});
  CampaignState s = campaign();
  ask_all(first, s, std::vector<Trigger>(script.begin(), script.begin() + 5));
  BankQuestionSource resumed(bank, BankSourceOptions{7, true, std::nullopt, 0.2, {}, std::nullopt});
  const auto rest = ask_all(resumed, s, std::vector<Trigger>(script.begin() + 5, script.end()));
  CHECK(rest == std::vector<std::string>(full.begin() + 5, full.end()));
}

TEST_CASE("the source remembers its own questions when the state is not updated", "[questions][source]") {
  BankQuestionSource source(grid_bank(1, 4));
  const CampaignState s = campaign();
  std::set<std::string> ids;
  for (int i = 0; i < 4; ++i) ids.insert(source.ask(event(Trigger::plateau), s)->id);
  CHECK(ids.size() == 4);
  CHECK(source.history().size() == 4);
  // A new campaign starts afresh.
  const CampaignState other = campaign("c2");
  source.ask(event(Trigger::plateau), other);
  CHECK(source.history().size() == 1);
  // A state that already lists three of them leaves the fourth.
  BankQuestionSource fresh(grid_bank(1, 4));
  CampaignState resumed = campaign("c3");
  for (const char* id : {"gA.0", "gA.2", "gA.3"})
    resumed.asked.push_back(AskedQuestion{Question{id, "gA", "?", "", Trigger::plateau, ""}, 0, -1, 0, {}});
  CHECK(fresh.ask(event(Trigger::plateau), resumed)->id == "gA.1");
}

TEST_CASE("prefer_tags picks the questions that fit the finding", "[questions][source]") {
  const Bank bank = load_bank(shipped);
  int fitting = 0, unsteered_fitting = 0;
  for (std::uint64_t seed = 0; seed < 30; ++seed) {
    BankQuestionSource source(bank, BankSourceOptions{seed, true, std::nullopt, 0.2, {}, std::nullopt});
    BankQuestionSource unsteered(bank, BankSourceOptions{seed, true, std::nullopt, 0.2, {}, std::nullopt});
    const CampaignState s = campaign("c", "sm_90", false);
    auto q = source.ask(event(Trigger::claimed_limit, {{"prefer_tags", {"completion"}}}), s);
    auto u = unsteered.ask(event(Trigger::claimed_limit), s);
    fitting += bank.find(q->id)->has_tag("completion");
    unsteered_fitting += bank.find(u->id)->has_tag("completion");
  }
  CHECK(fitting == 30);
  CHECK(unsteered_fitting < 15);
  // A tag no entry has leaves the pool as it is.
  BankQuestionSource source(bank);
  CHECK(source.ask(event(Trigger::claimed_limit, {{"prefer_tags", {"no-such-tag"}}}), campaign()));
}

// ---- credit and the adaptive mode --------------------------------------------------------------

TEST_CASE("credit: a gain beyond noise within N evaluations after the question", "[questions][credit]") {
  CampaignState s = qtest::history({1.0, 1.2, 1.5, 1.5, 1.505, 1.51, 1.5, 1.5, 1.5, 1.8});
  auto ask = [&](const std::string& id, int after) {
    s.asked.push_back(AskedQuestion{Question{id, "g", "?", "", Trigger::plateau, ""}, 0, after, 0, {}});
  };
  ask("q.first", -1);     // before any evaluation: measured against the baseline's parity
  ask("q.gain", 1);       // best 1.2 at #1, 1.5 at #2: credited
  ask("q.noise", 3);      // best 1.5: 1.505 and 1.51 are within noise
  ask("q.late", 5);       // the gain at #9 is 4 evaluations later, past the window of 3
  ask("q.window", 6);     // #9 is the third after #6: credited
  ask("", 2);             // ad-hoc questions have no entry to credit
  const auto outcomes = credit_questions(s, CreditRule{});
  REQUIRE(outcomes.size() == 5);
  std::map<std::string, CreditOutcome> by_id;
  for (const auto& o : outcomes) by_id[o.question_id] = o;
  CHECK(by_id["q.first"].credited);
  CHECK(by_id["q.first"].credited_by == 1);  // 1.0 at #0 is parity, 1.2 at #1 is a gain
  CHECK(by_id["q.first"].reference_score == Approx(1.0));
  CHECK(by_id["q.gain"].credited);
  CHECK(by_id["q.gain"].credited_by == 2);
  CHECK(by_id["q.gain"].gain == Approx(0.25));
  CHECK_FALSE(by_id["q.noise"].credited);
  CHECK_FALSE(by_id["q.late"].credited);
  CHECK(by_id["q.window"].credited);
  CHECK(by_id["q.window"].credited_by == 9);
  // Before any score, beating the baseline's parity beyond noise counts.
  CampaignState fresh = qtest::history({1.3});
  fresh.asked.push_back(AskedQuestion{Question{"q.start", "g", "?", "", Trigger::start, ""}, 0, -1, 0, {}});
  CHECK(credit_questions(fresh, CreditRule{})[0].credited);
  CampaignState parity = qtest::history({1.003, 0.98});
  parity.asked = fresh.asked;
  CHECK_FALSE(credit_questions(parity, CreditRule{})[0].credited);
}

TEST_CASE("credit tables accumulate campaigns once and round-trip through JSON", "[questions][credit]") {
  CampaignState s = qtest::history({1.0, 1.5});
  s.campaign_id = "run-1";
  s.asked.push_back(AskedQuestion{Question{"q.a", "g", "?", "", Trigger::plateau, ""}, 0, 0, 0, {}});
  CreditTable t;
  CHECK(t.add_campaign(s));
  CHECK_FALSE(t.add_campaign(s));  // the same campaign is counted once
  CHECK(t.questions.at("q.a") == QuestionCredit{1, 1});
  CHECK(t.estimate("q.a") == Approx(2.0 / 3));
  CHECK(t.estimate("q.new") == Approx(0.5));
  const auto path = qtest::temp_dir("credit") / "credits.json";
  t.save(path);
  const CreditTable back = CreditTable::load(path);
  CHECK(back.questions == t.questions);
  CHECK(back.campaigns == t.campaigns);
  CHECK(back.rule.window_evaluations == 3);
  qtest::write_file(path, R"({"questions":{"q.a":{"asked":1,"credited":2}}})");
  CHECK_THROWS_WITH(CreditTable::load(path), Q_CONTAINS("credits.json") && Q_CONTAINS("question \"q.a\"") &&
                                                 Q_CONTAINS("credited <= asked"));
}

TEST_CASE("the adaptive mode shifts toward credited questions and still explores", "[questions][source][credit]") {
  const Bank bank = grid_bank(1, 10);  // one group: rotation plays no part
  CreditTable credits;
  credits.questions["gA.7"] = {4, 4};
  for (const char* dud : {"gA.0", "gA.1", "gA.2"}) credits.questions[dud] = {4, 0};
  auto first_questions = [&](std::optional<CreditTable> table, double exploration, int seeds) {
    std::map<std::string, int> counts;
    for (int seed = 0; seed < seeds; ++seed) {
      BankQuestionSource source(bank, BankSourceOptions{static_cast<std::uint64_t>(seed), true, table, exploration, {}, std::nullopt});
      counts[source.ask(event(Trigger::plateau), campaign())->id]++;
    }
    return counts;
  };
  auto greedy = first_questions(credits, 0.0, 100);
  CHECK(greedy["gA.7"] == 100);
  auto adaptive = first_questions(credits, 0.25, 400);
  auto uniform = first_questions(std::nullopt, 0.25, 400);
  CHECK(adaptive["gA.7"] > 240);  // about 0.75 + 0.25 / 10 of the picks
  CHECK(uniform["gA.7"] < 80);    // about 1 / 10 without credits
  CHECK(adaptive.size() >= 8);    // exploration still reaches the others
  // Never-asked entries come before entries that were asked and never credited.
  CreditTable no_star = credits;
  no_star.questions.erase("gA.7");
  for (const auto& [id, n] : first_questions(no_star, 0.0, 50)) {
    INFO(id);
    CHECK((id != "gA.0" && id != "gA.1" && id != "gA.2"));
  }
  // No repeats still hold: the credited question is asked once per cycle.
  BankQuestionSource source(bank, BankSourceOptions{1, true, credits, 0.0, {}, std::nullopt});
  CampaignState s = campaign();
  const auto ids = ask_all(source, s, repeat(Trigger::plateau, 10));
  CHECK(ids[0] == "gA.7");
  CHECK(std::set<std::string>(ids.begin(), ids.end()).size() == 10);
  CHECK(source.history()[0].credit_estimate == Approx(5.0 / 6));
}

TEST_CASE("the adaptive mode learns from recorded campaigns", "[questions][source][credit]") {
  const Bank bank = grid_bank(1, 6);
  CreditTable table;
  // Three recorded campaigns: gA.4 always preceded a gain, gA.1 never did.
  for (int c = 0; c < 3; ++c) {
    CampaignState s = qtest::history({1.0, 1.0, 1.0, 1.0, 1.3, 1.3});
    s.campaign_id = "recorded-" + std::to_string(c);
    s.asked.push_back(AskedQuestion{Question{"gA.1", "gA", "?", "", Trigger::plateau, ""}, 0, 0, 0, {}});
    s.asked.push_back(AskedQuestion{Question{"gA.4", "gA", "?", "", Trigger::plateau, ""}, 0, 3, 0, {}});
    CHECK(table.add_campaign(s));
  }
  CHECK(table.questions.at("gA.4") == QuestionCredit{3, 3});
  CHECK(table.questions.at("gA.1") == QuestionCredit{3, 0});
  BankQuestionSource source(bank, BankSourceOptions{42, true, table, 0.0, {}, std::nullopt});
  CHECK(source.ask(event(Trigger::plateau), campaign())->id == "gA.4");
}

TEST_CASE("a CPU problem is asked no GPU question at any moment; a GPU problem keeps them",
          "[questions][source][kinds]") {
  const Bank bank = load_bank(shipped);
  auto pool = [&](std::vector<std::string> kinds, Trigger t) {
    BankSourceOptions o;
    o.problem_kinds = std::move(kinds);
    BankQuestionSource source(bank, o);
    std::set<std::string> ids;
    for (const BankEntry* e : source.pool(t, CampaignState{})) ids.insert(e->id);
    return ids;
  };
  for (Trigger t : all_triggers) {
    INFO("trigger " << to_string(t));
    const auto cpu = pool({"cpu"}, t);
    CHECK_FALSE(cpu.empty());
    for (const auto& id : cpu) {
      const BankEntry* e = bank.find(id);
      INFO(id << ": " << e->text << " / " << e->checks);
      CHECK(socratic::detail::lint::first_gpu_only_term(e->text).empty());
      CHECK(socratic::detail::lint::first_gpu_only_term(e->checks).empty());
      CHECK(e->text.find("tile size") == std::string::npos);
    }
  }
  // The questions the first CPU campaigns were asked: the start question on tile sizes under
  // compute-sanitizer, plateau questions on ncu counters. A GPU campaign still asks them.
  for (const char* id : {"numerics.ragged-tail", "measurement.counter-moved", "measurement.profile-matches-build",
                         "measurement.worst-scenario-profiled"}) {
    INFO(id);
    const Trigger t = bank.find(id)->triggers.front();
    CHECK(pool({"cpu"}, t).count(id) == 0);
    CHECK(pool({"gpu", "attention"}, t).count(id) == 1);
  }
}
