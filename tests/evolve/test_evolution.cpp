// The driver on a synthetic problem whose speed per scenario is written in the candidate, with a
// scripted agent: the population improves, specialists are kept, the bandit shifts toward the
// questions that gain, duplicates are not evaluated, an interrupted run resumes to the same end.
#include "support.hpp"

#include <atomic>
#include <sstream>
#include <thread>

#include "socratic/core/files.hpp"
#include "socratic/evolve/evolution.hpp"

using namespace socratic;
using namespace socratic::evolve;

namespace {

const std::vector<std::string> synthetic_scenarios = {"small", "medium", "large"};

std::vector<double> speeds_in(const std::string& src) {
  std::istringstream in(src.substr(src.find("speed")));
  std::string word;
  in >> word;
  std::vector<double> v(3);
  for (double& x : v) in >> x;
  return v;
}

std::string source_with(const std::vector<double>& v) {
  std::ostringstream o;
  o.precision(6);
  o << "// a synthetic candidate\nspeed " << v[0] << " " << v[1] << " " << v[2] << "\n";
  return o.str();
}

/// The synthetic pair measurement: time per scenario = 1 / speed; 1 % noise; the incumbent (or the
/// problem's baseline, speed 1) is the run's baseline.
EvalReport synthetic_measure(const Candidate& c, const std::optional<Candidate>& incumbent, const GateRunRequest&) {
  const auto cs = speeds_in(read_file_bytes(c.judged_file()));
  const auto bs = incumbent ? speeds_in(read_file_bytes(incumbent->judged_file())) : std::vector<double>{1, 1, 1};
  EvalReport r;
  r.problem = "synthetic";
  r.built = true;
  r.expected = synthetic_scenarios;
  for (std::size_t s = 0; s < 3; ++s) {
    ScenarioResult x;
    x.id = synthetic_scenarios[s];
    x.correct = cs[s] > 0;
    x.candidate_ms = 1 / cs[s], x.baseline_ms = 1 / bs[s];
    x.candidate_noise = x.baseline_noise = 0.005;
    x.samples = 30;
    x.speedup = x.baseline_ms / x.candidate_ms;
    r.scenarios.push_back(x);
  }
  return r;
}

/// The scripted agent: `compute` questions speed the parent's weakest scenario up by 30 %,
/// `memory` questions make a specialist (x2.5 on "small", x0.7 elsewhere), a crossover takes the
/// better speed per scenario of its two parents; every other question leaves the code unchanged
/// (a duplicate). The plain instruction speeds a random scenario up by 10 % or slows it by 10 %.
AgentTurn scripted_agent(const std::filesystem::path& ws, const std::string&, const MutationTask& t) {
  auto v = speeds_in(t.parent.source);
  const auto weakest = t.weakest_scenarios.empty() ? std::string("small") : t.weakest_scenarios.front();
  const auto w = static_cast<std::size_t>(std::find(synthetic_scenarios.begin(), synthetic_scenarios.end(), weakest) -
                                          synthetic_scenarios.begin());
  if (t.kind == MutationKind::crossover) {
    const auto b = speeds_in(t.second_parent->source);
    for (std::size_t s = 0; s < 3; ++s) v[s] = std::max(v[s], b[s]);
  } else if (t.kind == MutationKind::plain) {
    const std::size_t s = std::hash<std::string>{}(t.parent.id + ws.filename().string()) % 3;
    v[s] *= (std::hash<std::string>{}(ws.filename().string()) % 2) ? 1.1 : 0.9;
  } else if (t.question_id.rfind("compute.", 0) == 0) {
    v[w] *= 1.3;
  } else if (t.question_id.rfind("memory.", 0) == 0) {
    v = {v[0] * 2.5, v[1] * 0.7, v[2] * 0.7};
  }
  write_file_atomically(ws / "kernel.src", source_with(v));
  return {};
}

EvolutionConfig small_config() {
  EvolutionConfig c;
  c.campaign_id = "synthetic";
  c.population.islands = 3;
  c.population.capacity = 6;
  c.population.migration_interval = 2;
  c.generations = 8;
  c.children_per_island = 3;
  c.crossover_rate = 0.15;
  c.candidate_file = "kernel.src";
  c.problem_kinds = {"cpu"};
  c.bandit.explore = 0.1;
  c.seed = 42;
  return c;
}

std::filesystem::path start_file(const std::filesystem::path& dir) {
  return etest::write_file(dir / "start" / "kernel.src", source_with({1, 1, 1}));
}

}  // namespace

TEST_CASE("question mutations improve the population; specialists stay; the bandit learns", "[evolve][driver]") {
  const auto dir = etest::temp_dir("driver");
  const Bank bank = load_bank(std::filesystem::path(SOCRATIC_SOURCE_DIR) / "question_bank");
  Evolution evo(small_config(), bank, dir / "run", start_file(dir), scripted_agent, synthetic_measure);
  const EvolutionResult r = evo.run();
  REQUIRE(r.finished);
  REQUIRE(r.generations.size() == 8);
  // The population improves over generations.
  CHECK(r.generations.front().best_fitness < r.generations.back().best_fitness);
  CHECK(r.generations.back().best_fitness > 1.5);
  for (std::size_t g = 1; g < r.generations.size(); ++g)
    CHECK(r.generations[g].best_fitness >= r.generations[g - 1].best_fitness);  // the best never leaves
  CHECK(r.admitted > 0);
  // A specialist: on the front, the best on "small", not the fittest.
  bool specialist = false;
  for (const auto& m : r.front) specialist = specialist || (m.scenario_scores[0] >= 2.4 && m.fitness < r.best_fitness);
  CHECK(specialist);
  // The bandit: the paying group (compute) is pulled more, and rated higher, than the idle ones.
  int compute = 0, idle = 0;
  double compute_mean = 0, idle_mean = 0;
  int compute_n = 0, idle_n = 0;
  for (const auto& [id, a] : r.campaign_bandit.arms) {
    const bool pays = id.rfind("compute.", 0) == 0;
    const bool neutral = id.rfind("memory.", 0) != 0 && id.rfind("strategy.crossover", 0) != 0;
    if (pays) compute += a.pulls, compute_mean += r.campaign_bandit.mean(id), ++compute_n;
    else if (neutral) idle += a.pulls, idle_mean += r.campaign_bandit.mean(id), ++idle_n;
  }
  INFO("compute pulls " << compute << ", idle pulls " << idle);
  REQUIRE(compute_n > 0);
  REQUIRE(idle_n > 0);
  CHECK(compute_mean / compute_n > idle_mean / idle_n);
  // Compute is 4 of the ~20 questions that fit: a uniform chooser would give it about a fifth.
  CHECK(compute > (compute + idle) / 3);
  // Duplicates were caught and not evaluated: store records = start + evaluated children.
  CHECK(r.duplicates > 0);
  int evaluated = 0;
  for (const auto& g : r.generations) evaluated += g.evaluated;
  CHECK(r.evaluations == 1 + evaluated);
  CHECK(evaluated + r.duplicates <= 8 * 3 * 3);
  // Persisted: the bandit file counts this campaign; the state file names the front's questions.
  const QuestionBandit saved = QuestionBandit::load_or_new(dir / "run" / "bandit.json");
  CHECK(saved.campaigns.count("synthetic") == 1);
  const json state = read_json_file(dir / "run" / "evolution-state.json");
  CHECK(state["front"].size() == r.front.size());
  CHECK(state["generations"].size() == 8);
}

TEST_CASE("an interrupted run resumes to the end an uninterrupted one reaches", "[evolve][driver][resume]") {
  const auto dir = etest::temp_dir("resume");
  const Bank bank = load_bank(std::filesystem::path(SOCRATIC_SOURCE_DIR) / "question_bank");
  const auto start = start_file(dir);
  Evolution whole(small_config(), bank, dir / "whole", start, scripted_agent, synthetic_measure);
  const EvolutionResult w = whole.run();

  EvolutionConfig cut = small_config();
  cut.max_evaluations = 20;  // stops mid-way, as a kill would (the slots done stay done)
  int turns = 0;
  auto counting = [&](const std::filesystem::path& ws, const std::string& m, const MutationTask& t) {
    ++turns;
    return scripted_agent(ws, m, t);
  };
  const EvolutionResult first = Evolution(cut, bank, dir / "cut", start, counting, synthetic_measure).run();
  CHECK_FALSE(first.finished);
  CHECK(first.stopped_by == "max_evaluations");
  CHECK(first.evaluations == 20);
  const int turns_before = turns;
  const EvolutionResult second = Evolution(small_config(), bank, dir / "cut", start, counting, synthetic_measure).run();
  CHECK(second.finished);
  CHECK(second.evaluations == w.evaluations);
  CHECK(second.best_fitness == Approx(w.best_fitness));
  CHECK(second.admitted == w.admitted);
  // Finished slots were not asked again: the two parts together made as many turns as the whole.
  int whole_turns = 0;
  for (const auto& g : w.generations) whole_turns += g.evaluated + g.duplicates + g.agent_failures;
  CHECK(turns == whole_turns);
  CHECK(turns > turns_before);
  // A third run finds everything done: no turn, nothing counted twice in the bandit file.
  const auto pulls = [](const QuestionBandit& b) {
    int n = 0;
    for (const auto& [id, a] : b.arms) n += a.pulls;
    return n;
  };
  const int before = pulls(QuestionBandit::load_or_new(dir / "cut" / "bandit.json"));
  const EvolutionResult third = Evolution(small_config(), bank, dir / "cut", start, counting, synthetic_measure).run();
  CHECK(turns == whole_turns);
  CHECK(third.evaluations == w.evaluations);
  CHECK(pulls(QuestionBandit::load_or_new(dir / "cut" / "bandit.json")) == before);
}

TEST_CASE("the run's limits are core's Budget; stopped_by names the field that set the one spent", "[evolve][driver][budget]") {
  EvolutionConfig c = small_config();
  CHECK(c.budget() == Budget{});
  c.max_evaluations = 5;
  c.max_seconds = 1e-9;
  const Budget b = c.budget();
  CHECK(b.evaluations == 5);
  CHECK(b.wall_seconds == 1e-9);
  CHECK(budget_field(StopReason::evaluation_budget) == "max_evaluations");
  CHECK(budget_field(StopReason::wall_time_budget) == "max_seconds");

  // A wall time spent before the first child: the start is measured, no agent turn runs.
  const auto dir = etest::temp_dir("budget");
  const Bank bank = load_bank(std::filesystem::path(SOCRATIC_SOURCE_DIR) / "question_bank");
  EvolutionConfig timed = small_config();
  timed.max_seconds = 1e-9;
  int turns = 0;
  auto counting = [&](const std::filesystem::path& ws, const std::string& m, const MutationTask& t) {
    ++turns;
    return scripted_agent(ws, m, t);
  };
  const EvolutionResult r = Evolution(timed, bank, dir / "run", start_file(dir), counting, synthetic_measure).run();
  CHECK_FALSE(r.finished);
  CHECK(r.stopped_by == "max_seconds");
  CHECK(r.evaluations == 1);
  CHECK(turns == 0);
}

TEST_CASE("the plain operator asks no question and records its children as mutations", "[evolve][driver]") {
  const auto dir = etest::temp_dir("plain");
  const Bank bank = load_bank(std::filesystem::path(SOCRATIC_SOURCE_DIR) / "question_bank");
  EvolutionConfig c = small_config();
  c.operator_kind = MutationKind::plain;
  c.generations = 2;
  Evolution evo(c, bank, dir / "run", start_file(dir), scripted_agent, synthetic_measure);
  const EvolutionResult r = evo.run();
  CHECK(r.finished);
  CHECK(r.campaign_bandit.arms.empty());
  StoreOptions read_only;
  read_only.read_only = true;
  auto store = CandidateStore::open(dir / "run" / "store", read_only);
  for (const auto& s : store.summaries())
    if (s.key != "start") CHECK(s.origin == OriginKind::mutation);
}

TEST_CASE("slots run in parallel batches give the search that runs them one by one", "[evolve][driver][parallel]") {
  const auto dir = etest::temp_dir("parallel");
  const Bank bank = load_bank(std::filesystem::path(SOCRATIC_SOURCE_DIR) / "question_bank");
  const auto start = start_file(dir);
  const EvolutionResult one = Evolution(small_config(), bank, dir / "one", start, scripted_agent, synthetic_measure).run();
  EvolutionConfig c = small_config();
  c.parallel = 4;
  std::atomic<int> in_flight{0}, most{0};
  auto slow_agent = [&](const std::filesystem::path& ws, const std::string& m, const MutationTask& t) {
    const int now = ++in_flight;
    for (int seen = most.load(); now > seen && !most.compare_exchange_weak(seen, now);) {
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    AgentTurn turn = scripted_agent(ws, m, t);
    --in_flight;
    return turn;
  };
  const EvolutionResult four = Evolution(c, bank, dir / "four", start, slow_agent, synthetic_measure).run();
  CHECK(most.load() > 1);  // turns did overlap
  CHECK(four.evaluations == one.evaluations);
  CHECK(four.duplicates == one.duplicates);
  CHECK(four.admitted == one.admitted);
  CHECK(four.best_fitness == Approx(one.best_fitness));
}
