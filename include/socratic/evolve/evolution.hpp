#pragma once
/// @file
/// @brief The evolution driver (not a campaign: docs/concepts.md says why it does not run on
/// CampaignEngine): generations of question-driven mutations on the candidate store,
/// judged by the gate, with islands, a front over scenarios, a question bandit, a novelty filter,
/// budgets and resume after a kill. docs/evolution.md.
///
/// A generation asks `children_per_island` children of every island. Each child is one slot with a
/// key `gG.iI.kK`; its parent, second parent, inspirations and question are drawn from the state at
/// the generation's start with a random stream seeded by (seed, G, I, K), so a resumed run draws
/// the same. A slot ends as a store record (evaluated: report against the problem's baseline, gate
/// verdict against its parent measured interleaved with it), or as a journal line (a duplicate the
/// novelty filter caught, an agent turn that failed). Resume replays the store and the journal:
/// finished slots are not redone, and the store's keys count nothing twice.

#include <chrono>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "socratic/core/budget.hpp"
#include "socratic/core/error.hpp"
#include "socratic/core/files.hpp"
#include "socratic/core/json.hpp"
#include "socratic/evolve/bandit.hpp"
#include "socratic/evolve/mutation.hpp"
#include "socratic/evolve/novelty.hpp"
#include "socratic/evolve/population.hpp"
#include "socratic/questions/bank.hpp"
#include "socratic/store/candidate_store.hpp"
#include "socratic/store/gate.hpp"

namespace socratic::evolve {

/// @brief The driver's settings.
struct EvolutionConfig {
  std::string campaign_id = "evolution";  ///< names this run in the bandit file's campaigns
  PopulationConfig population;            ///< `scenarios` is set from the start candidate's report
  int generations = 4;
  int children_per_island = 2;
  double crossover_rate = 0.2;            ///< chance a child is a crossover of two parents
  std::size_t inspirations = 2;
  MutationKind operator_kind = MutationKind::question;  ///< `plain`: the ablation's control
  int max_evaluations = 0;                ///< candidates measured (start included); 0: no limit
  double max_seconds = 0;                 ///< wall time of this invocation; 0: no limit
  std::uint64_t seed = 1;
  std::string candidate_file = "kernel.cu";  ///< the parent's file name in a workspace
  std::vector<std::string> problem_kinds;
  std::string arch;
  bool has_reference = false;
  double near_duplicate = 0.97;
  /// Slots whose agent turns, and then whose measurements, run at once (threads); the measure
  /// and agent functions must then be safe to call concurrently. 1: one slot after another.
  int parallel = 1;
  GateConfig gate;
  BanditConfig bandit;

  /// @brief The run's limits as core's Budget, the campaign's own type: `evaluations` counts
  /// store records (the start included), `wall_seconds` this invocation's time.
  Budget budget() const {
    Budget b;
    if (max_evaluations > 0) b.evaluations = max_evaluations;
    if (max_seconds > 0) b.wall_seconds = max_seconds;
    return b;
  }
};

/// @brief The name a run's `stopped_by` gives a spent budget: the campaign file's field that set it.
inline std::string budget_field(StopReason spent) {
  switch (spent) {
    case StopReason::evaluation_budget: return "max_evaluations";
    case StopReason::wall_time_budget: return "max_seconds";
    default: return std::string(to_string(spent));  // evolution sets no other limit
  }
}

/// @brief What the agent's turn returned.
struct AgentTurn {
  bool ok = true;
  std::string message;  ///< its last words, or why it failed
};

/// @brief One agent turn in `workspace` with `message` (TASK.md holds it too); the child is the
/// workspace's candidate file afterwards.
using MutationAgent = std::function<AgentTurn(const std::filesystem::path& workspace, const std::string& message,
                                              const MutationTask& task)>;

/// @brief One generation as the report shows it.
struct GenerationSummary {
  int generation = 0;
  int evaluated = 0, admitted = 0, duplicates = 0, agent_failures = 0;
  double best_fitness = 0;
  std::size_t population = 0, front = 0;
  int migrants_sent = 0, migrants_skipped = 0;
  std::vector<std::size_t> island_sizes;
  std::vector<double> island_best;
};
inline void to_json(json& j, const GenerationSummary& g) {
  j = {{"generation", g.generation}, {"evaluated", g.evaluated}, {"admitted", g.admitted},
       {"duplicates", g.duplicates}, {"agent_failures", g.agent_failures}, {"best_fitness", g.best_fitness},
       {"population", g.population}, {"front", g.front}, {"migrants_sent", g.migrants_sent},
       {"migrants_skipped", g.migrants_skipped}, {"island_sizes", g.island_sizes}, {"island_best", g.island_best}};
}

/// @brief What a run did.
struct EvolutionResult {
  std::vector<GenerationSummary> generations;
  int evaluations = 0;  ///< store records (start included)
  int admitted = 0;     ///< children admitted by the gate (start excluded)
  int duplicates = 0;
  bool finished = false;   ///< every generation done
  std::string stopped_by;  ///< "generations", "max_evaluations", "max_seconds"
  double best_fitness = 0;
  std::string best_id;
  std::vector<Member> front;       ///< the global front at the end
  QuestionBandit campaign_bandit;  ///< this run's pulls only
  QuestionBandit bandit;           ///< the persisted file's arms plus this run's
  std::map<std::string, std::string> question_of;  ///< record id -> question id (children)
};

/// @brief The driver (see the file comment).
class Evolution {
 public:
  /// @param dir the run's folder: `store/`, `evolution.jsonl`, `workspaces/`
  /// @param bandit_file the question bandit persisted across runs (empty: dir/bandit.json)
  Evolution(EvolutionConfig config, const Bank& bank, std::filesystem::path dir, std::filesystem::path start_source,
            MutationAgent agent, PairMeasure measure, std::filesystem::path bandit_file = {})
      : config_(std::move(config)), bank_(bank), dir_(std::move(dir)), start_(std::move(start_source)),
        agent_(std::move(agent)), measure_(std::move(measure)),
        bandit_file_(bandit_file.empty() ? dir_ / "bandit.json" : std::move(bandit_file)),
        novelty_(config_.near_duplicate) {
    if (!agent_) throw error("evolution: no mutation agent given");
    if (!measure_) throw error("evolution: no measurement given");
    if (config_.generations < 0 || config_.children_per_island < 1)
      throw error("evolution: generations must be >= 0 and children_per_island >= 1");
  }

  std::filesystem::path journal_path() const { return dir_ / "evolution.jsonl"; }
  std::filesystem::path store_dir() const { return dir_ / "store"; }

  EvolutionResult run() {
    namespace fs = std::filesystem;
    const auto t0 = std::chrono::steady_clock::now();
    fs::create_directories(dir_);
    auto store = CandidateStore::open(store_dir());
    read_journal();
    EvolutionResult out;
    // The persisted bandit: arms of earlier runs (this run's are added at the end, once).
    QuestionBandit prior = QuestionBandit::load_or_new(bandit_file_);
    if (prior.campaigns.count(config_.campaign_id)) prior = subtract_self(prior);
    prior.config = config_.bandit;
    QuestionBandit& mine = out.campaign_bandit;
    mine.config = config_.bandit;

    // The budget is checked before a new slot, as the engine checks it before a new turn:
    // `planned` counts the batch's slots that will add a record.
    const Budget budget = config_.budget();
    auto over_budget = [&](std::string& why, int planned = 0) {
      Spent spent;
      spent.evaluations = spent.agent_evaluations = static_cast<int>(store.size()) + planned;
      spent.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      const std::optional<StopReason> reached = exhausted_budget(budget, spent);
      if (reached) why = budget_field(*reached);
      return reached.has_value();
    };

    // The start candidate, on every island.
    StoreRecord start_record;
    if (auto s = store.find_key("start")) {
      start_record = store.record(s->id);
    } else {
      StoreRecord r;
      r.key = "start";
      r.agent = "start";
      r.origin = {OriginKind::start, "", ""};
      r.snapshot = store.take_snapshot(start_);
      Candidate c = candidate_of(store, r.snapshot, start_);
      GateRunner gate(measure_, config_.gate, config_.seed);
      GateResult g = gate.judge(c, std::nullopt);
      r.report = g.reports.back();
      r.gate = g.record(config_.gate, "");
      if (r.report.expected.empty())
        throw error("evolution: the start candidate's report lists no scenario (" + r.report.error + ")");
      start_record = store.append(std::move(r)).record;
    }
    scenario_ids_ = start_record.report.expected;
    config_.population.scenarios = scenario_ids_.size();
    Population pop(config_.population);
    const Member start_member = member_of(start_record, 0, 0);
    if (!valid_score(start_member.fitness))
      throw error("evolution: the start candidate is not correct on every scenario: " + start_record.gate.reason);
    for (int i = 0; i < pop.islands(); ++i) {
      Member m = start_member;
      m.island = i;
      pop.add(m);
    }
    remember(store, start_record);

    for (int g = 0; g < config_.generations; ++g) {
      GenerationSummary gs;
      gs.generation = g;
      QuestionBandit chooser = prior;  // the state at the generation's start
      for (const auto& [id, a] : mine.arms) merge_arm(chooser.arms[id], a);
      chooser.credit = credit_;
      std::vector<Member> children;
      std::vector<Pull> pulls;
      bool stopped = false;
      triggers_at_start_ = last_trigger_;  // a slot's question depends on the generation's start only
      std::vector<std::pair<int, int>> slots;
      for (int i = 0; i < pop.islands(); ++i)
        for (int k = 0; k < config_.children_per_island; ++k) slots.push_back({i, k});
      // Slots in batches of `parallel`: the agent turns of a batch run at once, then the novelty
      // filter screens them in slot order, then their measurements run at once, then the records
      // are appended in slot order (so a batch of 1 is the sequential search).
      const std::size_t batch = static_cast<std::size_t>(std::max(1, config_.parallel));
      for (std::size_t b0 = 0; b0 < slots.size() && !stopped; b0 += batch) {
        std::vector<Slot> work;
        for (std::size_t b = b0; b < std::min(slots.size(), b0 + batch); ++b) {
          const auto [i, k] = slots[b];
          const std::string key = "g" + std::to_string(g) + ".i" + std::to_string(i) + ".k" + std::to_string(k);
          if (auto s = store.find_key(key)) {
            Slot done;
            done.island = i;
            done.record = store.record(s->id);
            remember(store, *done.record);  // the batch's later slots are screened against it
            work.push_back(std::move(done));
          } else if (auto j = journal_.find(key); j != journal_.end()) {
            const json& e = j->second;
            const std::string q = e.value("question_id", "");
            if (e["type"] == "duplicate") ++gs.duplicates;
            else ++gs.agent_failures;
            if (!q.empty()) pulls.push_back({q, false, 0, {}});
          } else {
            const int planned = static_cast<int>(std::count_if(work.begin(), work.end(), [](const Slot& x) { return x.fresh; }));
            if (over_budget(out.stopped_by, planned)) {
              stopped = true;
              break;
            }
            if (auto slot = prepare_slot(pop, chooser, g, i, k, key)) work.push_back(std::move(*slot));
          }
        }
        run_in_parallel(work, [&](Slot& x) { x.turn = agent_(x.workspace, x.message, x.task); });
        for (auto& x : work)
          if (x.fresh) screen(store, x, gs, pulls);
        run_in_parallel(work, [&](Slot& x) {
          if (x.evaluate) measure_slot(store, x);
        });
        for (auto& x : work) {
          if (x.fresh && !x.evaluate) continue;
          if (x.fresh) x.record = store.append(std::move(*x.record)).record;
          const StoreRecord& rec = *x.record;
          ++gs.evaluated;
          Member m = member_of(rec, x.island, g + 1);
          remember(store, rec);
          const bool admitted = rec.gate.verdict == GateOutcome::admitted;
          if (admitted) ++gs.admitted;
          if (!rec.origin.question_id.empty()) {
            out.question_of[rec.id] = rec.origin.question_id;
            pulls.push_back({rec.origin.question_id, admitted, admitted ? gain_of(rec) : 0, config_.campaign_id + "#" + rec.id});
          }
          last_trigger_[rec.parents.front()] = trigger_after(rec);
          if (valid_score(m.fitness) || std::any_of(m.scenario_scores.begin(), m.scenario_scores.end(), valid_score))
            children.push_back(std::move(m));
        }
      }
      for (const auto& p : pulls) mine.reward(p.question, p.admitted, p.gain, p.admitted ? p.evidence : std::string());
      for (auto& c : children) pop.add(std::move(c));
      pop.select();
      if (config_.population.migration_interval > 0 && (g + 1) % config_.population.migration_interval == 0) {
        const auto mr = pop.migrate();
        gs.migrants_sent = mr.sent, gs.migrants_skipped = mr.skipped_identical;
      }
      fill_summary(gs, pop);
      out.admitted += gs.admitted;
      out.duplicates += gs.duplicates;
      out.generations.push_back(gs);
      if (stopped) break;
      if (!journal_generations_.count(g)) {
        append_journal({{"type", "generation"}, {"summary", gs}});
        journal_generations_.insert(g);
      }
    }
    out.finished = static_cast<int>(out.generations.size()) == config_.generations && out.stopped_by.empty();
    if (out.finished) out.stopped_by = "generations";
    out.evaluations = static_cast<int>(store.size());
    if (const Member* b = pop.best()) out.best_fitness = b->fitness, out.best_id = b->id;
    for (const Member* m : pop.global_front()) out.front.push_back(*m);
    // Persist: earlier runs' arms plus this run's, once per campaign id, when the run is done (an
    // unfinished run's pulls live in bandit.this_run.json and are counted from the store again).
    out.bandit = prior;
    for (const auto& [id, a] : mine.arms) merge_arm(out.bandit.arms[id], a);
    if (out.finished) {
      out.bandit.campaigns.insert(config_.campaign_id);
      out.bandit.save(bandit_file_);
    }
    write_json_atomically(dir_ / "evolution-state.json", state_json(out, pop));
    return out;
  }

  /// @brief The bank's credit, used as the bandit's prior (optional, not owned).
  void set_credit(const CreditTable* credit) { credit_ = credit; }

  /// @brief The source of a remembered candidate (by store id).
  const std::string& source_of(const std::string& id) const { return sources_.at(id); }

 private:
  struct Pull {
    std::string question;
    bool admitted = false;
    double gain = 0;
    std::string evidence;  ///< CAMPAIGN#RECORD of the admitted child
  };
  static void merge_arm(ArmStats& into, const ArmStats& a) {
    into.pulls += a.pulls, into.admitted += a.admitted, into.gain += a.gain;
    into.evidence.insert(into.evidence.end(), a.evidence.begin(), a.evidence.end());
  }
  /// A bandit file that already counts this campaign (a finished run asked again): its own arms
  /// are in `this_run.json`; take them out so they are not counted twice.
  QuestionBandit subtract_self(QuestionBandit b) const {
    const auto self = dir_ / "bandit.this_run.json";
    if (std::filesystem::exists(self)) {
      const QuestionBandit s = QuestionBandit::from_json(read_json_file(self), self.string());
      for (const auto& [id, a] : s.arms) {
        auto& x = b.arms[id];
        x.pulls = std::max(0, x.pulls - a.pulls), x.admitted = std::max(0, x.admitted - a.admitted), x.gain -= a.gain;
      }
    }
    b.campaigns.erase(config_.campaign_id);
    return b;
  }

  Candidate candidate_of(const CandidateStore& store, const SnapshotInfo& snap, const std::filesystem::path& source) const {
    Candidate c;
    c.source = source;
    c.snapshot = store.dir() / snap.entry;
    c.content_hash = snap.hash;
    return c;
  }

  Member member_of(const StoreRecord& r, int island, int generation) const {
    Member m;
    m.id = r.id;
    m.island = island;
    m.generation = generation;
    m.parents = r.parents;
    for (const auto& id : scenario_ids_) {
      const ScenarioResult* s = r.report.find(id);
      m.scenario_scores.push_back(s && s->correct ? s->speedup : detail::nan);
    }
    m.fitness = r.report.all_correct() ? r.report.geomean_speedup() : detail::nan;
    m.code_hash = code_hash(read_file_bytes(r.snapshot.entry.empty() ? start_ : dir_ / "store" / r.snapshot.entry));
    return m;
  }

  void remember(const CandidateStore& store, const StoreRecord& r) {
    const std::string src = read_file_bytes(store.dir() / r.snapshot.entry);
    sources_[r.id] = src;
    reports_[r.id] = r.report;
    novelty_.add(r.id, src);
  }

  static double gain_of(const StoreRecord& r) {
    const auto it = r.gate.figures.find("measurements");
    if (it != r.gate.figures.end() && it->is_array() && !it->empty()) {
      const json& s = (*it)[0]["speedup"];
      return s.is_number() && std::isfinite(s.get<double>()) ? s.get<double>() - 1 : 0;
    }
    return 0;
  }

  /// The moment a parent's last child stands for (mutation.hpp's file comment).
  Trigger trigger_after(const StoreRecord& child) const {
    if (child.gate.verdict == GateOutcome::failed) return Trigger::correctness_explained_away;
    if (child.gate.verdict == GateOutcome::admitted && gain_of(child) >= 0.5) return Trigger::suspicious_gain;
    if (child.gate.verdict == GateOutcome::admitted) return Trigger::start;
    return Trigger::plateau;
  }

  CandidateView view_of(const std::string& id) const {
    CandidateView v;
    v.id = id;
    v.source = sources_.at(id);
    if (auto it = reports_.find(id); it != reports_.end()) v.report = it->second;
    return v;
  }

  /// One child slot on its way through a batch.
  struct Slot {
    int island = 0;
    bool fresh = false;     ///< made in this run (not replayed)
    bool evaluate = false;  ///< passed the screen: to be measured
    std::string key;
    MutationTask task;
    std::string parent_id, second_id;
    std::filesystem::path workspace;
    std::string message;
    AgentTurn turn;
    std::optional<StoreRecord> record;  ///< replayed, or being made
  };

  template <class F>
  void run_in_parallel(std::vector<Slot>& work, F f) const {
    if (config_.parallel <= 1 || work.size() <= 1) {
      for (auto& x : work)
        if (x.fresh) f(x);
      return;
    }
    std::vector<std::thread> threads;
    std::vector<std::exception_ptr> errors(work.size());
    for (std::size_t n = 0; n < work.size(); ++n)
      if (work[n].fresh)
        threads.emplace_back([&, n] {
          try {
            f(work[n]);
          } catch (...) {
            errors[n] = std::current_exception();
          }
        });
    for (auto& t : threads) t.join();
    for (auto& e : errors)
      if (e) std::rethrow_exception(e);
  }

  /// The slot's draws (parent, crossover, inspirations, question) and its workspace.
  std::optional<Slot> prepare_slot(const Population& pop, const QuestionBandit& chooser, int g, int i, int k,
                                   const std::string& key) {
    std::seed_seq seq{static_cast<std::uint32_t>(config_.seed), static_cast<std::uint32_t>(config_.seed >> 32),
                      static_cast<std::uint32_t>(g), static_cast<std::uint32_t>(i), static_cast<std::uint32_t>(k)};
    std::mt19937_64 rng(seq);
    const Member* parent = pop.sample_parent(i, rng);
    if (!parent) return std::nullopt;
    Slot x;
    x.island = i;
    x.fresh = true;
    x.key = key;
    x.parent_id = parent->id;
    MutationTask& task = x.task;
    task.kind = config_.operator_kind;
    task.parent = view_of(parent->id);
    const Member* second = nullptr;
    std::uniform_real_distribution<double> u(0, 1);
    if (task.kind == MutationKind::question && u(rng) < config_.crossover_rate) {
      for (int t = 0; t < 4 && !second; ++t) {
        const Member* s = pop.sample_parent(i, rng);
        if (s && s->code_hash != parent->code_hash) second = s;
      }
      if (second) task.kind = MutationKind::crossover, task.second_parent = view_of(second->id), x.second_id = second->id;
    }
    for (const Member* m : pop.inspirations(*parent, config_.inspirations + (second ? 1 : 0)))
      if ((!second || m->code_hash != second->code_hash) && task.inspirations.size() < config_.inspirations)
        task.inspirations.push_back(view_of(m->id));
    task.weakest_scenarios = weakest_scenarios(*parent, pop.island(i), scenario_ids_);
    if (task.kind == MutationKind::plain) {
      task.question_text = plain_instruction;
    } else {
      Situation s;
      const auto lt = triggers_at_start_.find(parent->id);
      s.trigger = lt == triggers_at_start_.end() ? Trigger::start : lt->second;
      s.weakest_scenarios = task.weakest_scenarios;
      s.problem_kinds = config_.problem_kinds;
      s.arch = config_.arch;
      s.has_reference = config_.has_reference;
      const BankEntry* q = choose_question(bank_, chooser, s, rng, task.kind == MutationKind::crossover ? "crossover" : "mutation");
      if (!q) throw error("evolution: the bank has no question for this problem (kinds and architecture)");
      task.question_id = q->id;
      task.question_text = q->text;
    }
    x.workspace = dir_ / "workspaces" / key;
    x.message = write_mutation_workspace(x.workspace, task, config_.candidate_file);
    return x;
  }

  /// After the agent's turn, in slot order: a failed turn or a duplicate is journalled (not
  /// evaluated); a new child is snapshotted and marked for measurement.
  void screen(CandidateStore& store, Slot& x, GenerationSummary& gs, std::vector<Pull>& pulls) {
    const auto child_file = x.workspace / config_.candidate_file;
    if (!x.turn.ok || !std::filesystem::exists(child_file)) {
      append_journal({{"type", "agent_failed"}, {"key", x.key}, {"question_id", x.task.question_id},
                      {"why", x.turn.ok ? "the agent left no " + config_.candidate_file : x.turn.message}});
      ++gs.agent_failures;
      if (!x.task.question_id.empty()) pulls.push_back({x.task.question_id, false, 0, {}});
      return;
    }
    const std::string child_src = read_file_bytes(child_file);
    const NoveltyVerdict nv = novelty_.check(child_src);
    if (!nv.novel) {
      append_journal({{"type", "duplicate"}, {"key", x.key}, {"question_id", x.task.question_id}, {"of", nv.similar_to},
                      {"identical", nv.identical}, {"similarity", nv.similarity}});
      ++gs.duplicates;
      if (!x.task.question_id.empty()) pulls.push_back({x.task.question_id, false, 0, {}});
      return;
    }
    novelty_.add(x.key, child_src);  // a later slot of the batch making the same code is a duplicate
    StoreRecord r;
    r.key = x.key;
    r.agent = "island-" + std::to_string(x.island);
    r.parents = {x.parent_id};
    if (!x.second_id.empty()) r.parents.push_back(x.second_id);
    r.origin.kind = x.task.kind == MutationKind::question    ? OriginKind::question
                    : x.task.kind == MutationKind::crossover ? OriginKind::crossover
                                                             : OriginKind::mutation;
    r.origin.question_id = x.task.question_id;
    r.origin.question_text = x.task.question_text;
    r.snapshot = store.take_snapshot(child_file);
    x.record = std::move(r);
    x.evaluate = true;
  }

  /// The child against the problem's baseline, then the gate against its parent.
  void measure_slot(const CandidateStore& store, Slot& x) const {
    StoreRecord& r = *x.record;
    const Candidate child = candidate_of(store, r.snapshot, x.workspace / config_.candidate_file);
    r.report = measure_(child, std::nullopt, GateRunRequest{0, config_.seed});
    if (r.report.expected.empty()) r.report.expected = scenario_ids_;
    if (!r.report.all_correct()) {
      const GateMeasurement m = measure(r.report, config_.gate);
      r.gate.verdict = GateOutcome::failed;
      r.gate.reason = m.failure.empty() ? "not correct against the problem's baseline" : m.failure;
      r.gate.incumbent = x.parent_id;
      return;
    }
    const StoreRecord pr = store.record(x.parent_id);
    const Candidate pc = candidate_of(store, pr.snapshot, store.dir() / pr.snapshot.entry);
    GateRunner gate(measure_, config_.gate, config_.seed);
    r.gate = gate.judge(child, pc).record(config_.gate, x.parent_id);
  }

  void fill_summary(GenerationSummary& gs, const Population& pop) const {
    gs.population = pop.size();
    gs.front = pop.global_front().size();
    if (const Member* b = pop.best()) gs.best_fitness = b->fitness;
    for (int i = 0; i < pop.islands(); ++i) {
      gs.island_sizes.push_back(pop.island(i).size());
      double best = 0;
      for (const auto& m : pop.island(i))
        if (valid_score(m.fitness)) best = std::max(best, m.fitness);
      gs.island_best.push_back(best);
    }
  }

  json state_json(const EvolutionResult& out, const Population& pop) const {
    json islands = json::array();
    for (int i = 0; i < pop.islands(); ++i) {
      json members = json::array();
      for (const auto& m : pop.island(i))
        members.push_back({{"id", m.id}, {"fitness", m.fitness}, {"scores", m.scenario_scores}, {"migrant", m.migrant},
                           {"generation", m.generation}});
      islands.push_back(members);
    }
    json front = json::array();
    for (const auto& m : out.front)
      front.push_back({{"id", m.id}, {"fitness", m.fitness}, {"scores", m.scenario_scores},
                       {"question", out.question_of.count(m.id) ? out.question_of.at(m.id) : ""}});
    out.campaign_bandit.save(dir_ / "bandit.this_run.json");
    return {{"schema_version", 1}, {"campaign_id", config_.campaign_id}, {"scenarios", scenario_ids_},
            {"generations", out.generations}, {"finished", out.finished}, {"stopped_by", out.stopped_by},
            {"evaluations", out.evaluations}, {"admitted", out.admitted}, {"duplicates", out.duplicates},
            {"best", {{"id", out.best_id}, {"fitness", out.best_fitness}}}, {"front", front},
            {"islands", islands}, {"operator", config_.operator_kind == MutationKind::plain ? "plain" : "question"},
            {"questions", out.campaign_bandit.to_json()["arms"]}};
  }

  void read_journal() {
    journal_.clear();
    journal_generations_.clear();
    std::ifstream in(journal_path());
    std::string line;
    int n = 0;
    while (std::getline(in, line)) {
      ++n;
      if (line.empty()) continue;
      json e;
      try {
        e = json::parse(line);
      } catch (const json::exception&) {
        if (in.peek() == EOF) break;  // a torn last line: the kill came mid-write
        throw input_error(journal_path().string(), "line " + std::to_string(n), "invalid JSON");
      }
      if (e.value("type", "") == "generation") journal_generations_.insert(e["summary"].value("generation", -1));
      else if (e.contains("key")) journal_[e["key"].get<std::string>()] = e;
    }
  }
  void append_journal(const json& e) {
    std::ofstream out(journal_path(), std::ios::app);
    out << e.dump() << "\n";
    out.flush();
    if (!out) throw error("evolution: cannot write " + journal_path().string());
  }

  EvolutionConfig config_;
  const Bank& bank_;
  std::filesystem::path dir_, start_;
  MutationAgent agent_;
  PairMeasure measure_;
  std::filesystem::path bandit_file_;
  NoveltyFilter novelty_;
  const CreditTable* credit_ = nullptr;
  std::vector<std::string> scenario_ids_;
  std::map<std::string, std::string> sources_;
  std::map<std::string, EvalReport> reports_;
  std::map<std::string, Trigger> last_trigger_;
  std::map<std::string, Trigger> triggers_at_start_;
  std::map<std::string, json> journal_;
  std::set<int> journal_generations_;
};

}  // namespace socratic::evolve
