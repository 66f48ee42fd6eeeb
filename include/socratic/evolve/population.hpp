#pragma once
/// @file
/// @brief The population of an evolutionary search: islands, selection per scenario (a front over
/// scenarios), parent sampling and ring migration.
///
/// A member's fitness is its geometric-mean speedup; its scenario scores are the speedups per
/// scenario (NaN or <= 0: not correct there). Selection keeps, on each island, every member that is
/// best on some scenario (a specialist survives even when its geomean is not the best, as GEPA keeps
/// the candidates that are best on some example) and every member no other dominates on all
/// scenarios, then fills the island's capacity by fitness. Migration is a ring: island i sends its
/// best members to island i+1; a migrant never migrates again, and code the destination already
/// holds is not sent. Everything here is plain data and indices: 1,000 members over 8 islands run
/// one generation's selection and migration in well under a millisecond
/// (notebook/benchmarks/2026-12-01-evolution/).

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <random>
#include <stdexcept>
#include <string>
#include <unordered_set>
#include <vector>

namespace socratic::evolve {

/// @brief One candidate of the population.
struct Member {
  std::string id;                    ///< the candidate's id (in the journal or the store)
  std::string code_hash;             ///< normalised-source hash (novelty.hpp): identical code, same hash
  int island = 0;
  int generation = 0;                ///< when it was made
  double fitness = 0;                ///< geomean speedup; <= 0 or NaN: not correct
  std::vector<double> scenario_scores;  ///< speedup per scenario, in the problem's order
  bool migrant = false;              ///< arrived by migration: never migrates again
  std::vector<std::string> parents;  ///< ids of its parents (empty for a start candidate)
};

/// @brief Whether a score counts (finite and positive).
inline bool valid_score(double s) { return std::isfinite(s) && s > 0; }

/// @brief `a` dominates `b`: at least as good on every scenario and better on one.
inline bool dominates(const Member& a, const Member& b) {
  bool better = false;
  const std::size_t n = std::min(a.scenario_scores.size(), b.scenario_scores.size());
  for (std::size_t s = 0; s < n; ++s) {
    const double x = valid_score(a.scenario_scores[s]) ? a.scenario_scores[s] : 0;
    const double y = valid_score(b.scenario_scores[s]) ? b.scenario_scores[s] : 0;
    if (x < y) return false;
    if (x > y) better = true;
  }
  return better;
}

/// @brief For each scenario, the index (into `members`) of the best member there; -1 when none is
/// correct on it. Ties go to the earlier member (the older one keeps its place).
inline std::vector<long> scenario_leaders(const std::vector<const Member*>& members, std::size_t scenarios) {
  std::vector<long> lead(scenarios, -1);
  for (std::size_t s = 0; s < scenarios; ++s) {
    double best = 0;
    for (std::size_t i = 0; i < members.size(); ++i) {
      const auto& sc = members[i]->scenario_scores;
      if (s < sc.size() && valid_score(sc[s]) && sc[s] > best) best = sc[s], lead[s] = static_cast<long>(i);
    }
  }
  return lead;
}

/// @brief The front over scenarios: indices of the members that lead some scenario or that no
/// other member dominates (only members correct somewhere). Sorted, without repeats.
inline std::vector<std::size_t> scenario_front(const std::vector<const Member*>& members, std::size_t scenarios) {
  std::vector<char> keep(members.size(), 0);
  for (long l : scenario_leaders(members, scenarios))
    if (l >= 0) keep[static_cast<std::size_t>(l)] = 1;
  for (std::size_t i = 0; i < members.size(); ++i) {
    if (keep[i]) continue;
    const auto& sc = members[i]->scenario_scores;
    if (std::none_of(sc.begin(), sc.end(), valid_score)) continue;
    bool dominated = false;
    for (std::size_t j = 0; j < members.size() && !dominated; ++j)
      dominated = j != i && dominates(*members[j], *members[i]);
    keep[i] = !dominated;
  }
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < members.size(); ++i)
    if (keep[i]) out.push_back(i);
  return out;
}

/// @brief How parents are drawn: with probability `exploit` the fitter of a tournament, with
/// probability `front` a front member weighted by the scenarios it leads (plus one), otherwise any
/// member of the island, uniformly (exploration).
struct ParentSampling {
  double exploit = 0.5;
  double front = 0.3;
  int tournament = 3;
};

/// @brief The population's settings.
struct PopulationConfig {
  int islands = 4;
  int capacity = 16;          ///< members kept per island after selection
  std::size_t scenarios = 0;  ///< scores per member
  int migration_interval = 2; ///< generations between migrations (0: never)
  int migrants = 1;           ///< members each island sends per migration
  ParentSampling sampling;
};

/// @brief What one migration did.
struct MigrationResult {
  int sent = 0;
  int skipped_identical = 0;  ///< the destination already held that code
};

/// @brief Islands of members with selection, sampling and migration.
class Population {
 public:
  explicit Population(PopulationConfig config) : config_(config), islands_(static_cast<std::size_t>(config.islands)) {
    if (config_.islands < 1) throw std::invalid_argument("population: islands must be at least 1");
    if (config_.capacity < 1) throw std::invalid_argument("population: capacity must be at least 1");
  }

  const PopulationConfig& config() const { return config_; }
  int islands() const { return config_.islands; }
  const std::vector<Member>& island(int i) const { return islands_.at(static_cast<std::size_t>(i)); }
  std::size_t size() const {
    std::size_t n = 0;
    for (const auto& is : islands_) n += is.size();
    return n;
  }

  /// @brief Adds a member to its island (`m.island`), without selection.
  void add(Member m) {
    invalidate();
    if (m.island < 0 || m.island >= config_.islands)
      throw std::out_of_range("population: island " + std::to_string(m.island) + " does not exist");
    if (m.scenario_scores.size() != config_.scenarios)
      throw std::invalid_argument("population: member " + m.id + " has " + std::to_string(m.scenario_scores.size()) +
                                  " scenario scores, expected " + std::to_string(config_.scenarios));
    islands_[static_cast<std::size_t>(m.island)].push_back(std::move(m));
  }

  /// @brief Whether island `i` holds code with this hash.
  bool island_holds(int i, const std::string& code_hash) const {
    for (const auto& m : island(i))
      if (m.code_hash == code_hash) return true;
    return false;
  }

  /// @brief The front of island `i` (indices into island(i)).
  std::vector<std::size_t> front(int i) const {
    return scenario_front(pointers(island(i)), config_.scenarios);
  }

  /// @brief The front over all islands, as members (a code held by several islands once).
  std::vector<const Member*> global_front() const {
    std::vector<const Member*> all;
    std::unordered_set<std::string> seen;
    for (const auto& is : islands_)
      for (const auto& m : is)
        if (seen.insert(m.code_hash).second) all.push_back(&m);
    std::vector<const Member*> out;
    for (std::size_t i : scenario_front(all, config_.scenarios)) out.push_back(all[i]);
    return out;
  }

  /// @brief The fittest member of all islands, or nullptr when none is correct.
  const Member* best() const {
    const Member* b = nullptr;
    for (const auto& is : islands_)
      for (const auto& m : is)
        if (valid_score(m.fitness) && (!b || m.fitness > b->fitness)) b = &m;
    return b;
  }

  /// @brief Keeps, on every island, the front (leaders first, then the non-dominated), then the
  /// fittest of the rest up to `capacity`. When the front alone exceeds the capacity the leaders
  /// stay and the non-dominated are cut by fitness: a scenario's best is never dropped.
  void select() {
    invalidate();
    for (auto& is : islands_) select_island(is);
  }

  /// @brief Draws a parent on island `i` (see ParentSampling); nullptr when the island is empty.
  template <class Rng>
  const Member* sample_parent(int i, Rng& rng) const {
    const auto& is = island(i);
    if (is.empty()) return nullptr;
    std::uniform_real_distribution<double> u(0, 1);
    std::uniform_int_distribution<std::size_t> any(0, is.size() - 1);
    const double r = u(rng);
    if (r < config_.sampling.exploit) {
      const Member* win = &is[any(rng)];
      for (int t = 1; t < config_.sampling.tournament; ++t) {
        const Member* c = &is[any(rng)];
        if (fitness_of(*c) > fitness_of(*win)) win = c;
      }
      return win;
    }
    if (r < config_.sampling.exploit + config_.sampling.front) {
      const FrontCache& fc = front_cache(i);
      if (!fc.front.empty()) return &is[fc.front[fc.pick(rng)]];
    }
    return &is[any(rng)];
  }

  /// @brief Up to `n` inspirations for `parent` on its island: the island's fittest other member,
  /// then front members that lead a scenario the parent is weak on; never the parent's own code.
  std::vector<const Member*> inspirations(const Member& parent, std::size_t n) const {
    std::vector<const Member*> out;
    const auto& is = island(parent.island);
    auto taken = [&](const Member& m) {
      if (m.code_hash == parent.code_hash) return true;
      for (const auto* o : out)
        if (o->code_hash == m.code_hash) return true;
      return false;
    };
    const Member* fittest = nullptr;
    for (const auto& m : is)
      if (!taken(m) && valid_score(m.fitness) && (!fittest || m.fitness > fittest->fitness)) fittest = &m;
    if (fittest && out.size() < n) out.push_back(fittest);
    const auto ptrs = pointers(is);
    for (long l : scenario_leaders(ptrs, config_.scenarios))
      if (out.size() < n && l >= 0 && !taken(*ptrs[static_cast<std::size_t>(l)])) out.push_back(ptrs[static_cast<std::size_t>(l)]);
    return out;
  }

  /// @brief A ring migration: each island sends copies of its `migrants` fittest non-migrant
  /// members to the next island; the copies are marked migrants (they never move again) and code
  /// the destination already holds is not sent. Sources are chosen before anything moves.
  MigrationResult migrate() {
    invalidate();
    MigrationResult r;
    if (config_.islands < 2) return r;
    std::vector<std::vector<Member>> outgoing(islands_.size());
    for (std::size_t i = 0; i < islands_.size(); ++i) {
      std::vector<const Member*> cands;
      for (const auto& m : islands_[i])
        if (!m.migrant && valid_score(m.fitness)) cands.push_back(&m);
      const std::size_t k = std::min<std::size_t>(cands.size(), static_cast<std::size_t>(config_.migrants));
      std::partial_sort(cands.begin(), cands.begin() + static_cast<long>(k), cands.end(),
                        [](const Member* a, const Member* b) { return a->fitness > b->fitness; });
      for (std::size_t j = 0; j < k; ++j) outgoing[i].push_back(*cands[j]);
    }
    for (std::size_t i = 0; i < islands_.size(); ++i) {
      const int dest = static_cast<int>((i + 1) % islands_.size());
      for (auto m : outgoing[i]) {
        if (island_holds(dest, m.code_hash)) {
          ++r.skipped_identical;
          continue;
        }
        m.island = dest;
        m.migrant = true;
        islands_[static_cast<std::size_t>(dest)].push_back(std::move(m));
        ++r.sent;
      }
    }
    return r;
  }

 private:
  /// The front of an island and the weights of front sampling, computed once per change.
  struct FrontCache {
    bool valid = false;
    std::vector<std::size_t> front;
    mutable std::discrete_distribution<std::size_t> pick;
  };
  void invalidate() {
    for (auto& c : caches_) c.valid = false;
  }
  const FrontCache& front_cache(int i) const {
    caches_.resize(islands_.size());
    FrontCache& c = caches_[static_cast<std::size_t>(i)];
    if (c.valid) return c;
    const auto ptrs = pointers(island(i));
    c.front = scenario_front(ptrs, config_.scenarios);
    const auto lead = scenario_leaders(ptrs, config_.scenarios);
    std::vector<double> w;
    for (std::size_t f : c.front)
      w.push_back(1.0 + static_cast<double>(std::count(lead.begin(), lead.end(), static_cast<long>(f))));
    c.pick = std::discrete_distribution<std::size_t>(w.begin(), w.end());
    c.valid = true;
    return c;
  }
  static double fitness_of(const Member& m) { return valid_score(m.fitness) ? m.fitness : 0; }
  static std::vector<const Member*> pointers(const std::vector<Member>& is) {
    std::vector<const Member*> p;
    p.reserve(is.size());
    for (const auto& m : is) p.push_back(&m);
    return p;
  }

  void select_island(std::vector<Member>& is) {
    const auto cap = static_cast<std::size_t>(config_.capacity);
    if (is.size() <= cap) return;
    const auto ptrs = pointers(is);
    const auto lead = scenario_leaders(ptrs, config_.scenarios);
    const auto fr = scenario_front(ptrs, config_.scenarios);
    std::vector<int> rank(is.size(), 2);  // 0 leader, 1 non-dominated, 2 the rest
    for (std::size_t f : fr) rank[f] = 1;
    for (long l : lead)
      if (l >= 0) rank[static_cast<std::size_t>(l)] = 0;
    std::vector<std::size_t> order(is.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
      if (rank[a] != rank[b]) return rank[a] < rank[b];
      return fitness_of(is[a]) > fitness_of(is[b]);
    });
    // Leaders are never cut, even past the capacity (at most one per scenario).
    std::size_t leaders = 0;
    for (int r : rank) leaders += r == 0;
    order.resize(std::max(cap, leaders));
    std::sort(order.begin(), order.end());  // keep the island's age order
    std::vector<Member> kept;
    kept.reserve(order.size());
    for (std::size_t i : order) kept.push_back(std::move(is[i]));
    is = std::move(kept);
  }

  PopulationConfig config_;
  std::vector<std::vector<Member>> islands_;
  mutable std::vector<FrontCache> caches_;
};

}  // namespace socratic::evolve
