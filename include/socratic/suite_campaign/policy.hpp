#pragma once
/// @file
/// @brief Which agent works on which problem of a suite, round by round. Two policies:
/// - `fixed`: the agents are dealt out in order over the problems (or as the suite file assigns
///   them) and stay; an agent whose problem finished moves to the open problem with the fewest
///   agents;
/// - `planner`: every round, the agents are apportioned over the open problems by how far each
///   is from its goal (ProblemStanding::distance; a problem without a correct incumbent counts as
///   furthest), a problem on a plateau weighing a quarter as much; agents stay where they are
///   when they can, and each move is returned with its reason (the suite's trace logs it).
/// Pure: no I/O; the same standings give the same plan.

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "socratic/core/error.hpp"
#include "socratic/suite_campaign/standing.hpp"

namespace socratic {

/// @brief How agents are spread over the suite's problems: a fixed share, or a planner that
/// sends them where the distance to the goal is largest.
enum class SuitePolicyKind { fixed, planner };

constexpr std::string_view to_string(SuitePolicyKind k) noexcept {
  return k == SuitePolicyKind::planner ? "planner" : "fixed";
}

inline std::optional<SuitePolicyKind> parse_suite_policy_kind(std::string_view name) noexcept {
  if (name == "fixed") return SuitePolicyKind::fixed;
  if (name == "planner") return SuitePolicyKind::planner;
  return std::nullopt;
}

/// @brief The policy's settings.
struct SuitePolicy {
  SuitePolicyKind kind = SuitePolicyKind::fixed;
  int plateau = 4;             ///< attempts since the last admission that make a plateau (planner)
  double plateau_weight = 0.25;  ///< how much a problem on a plateau weighs (planner)
  std::map<std::string, std::string> assign;  ///< fixed: agent -> problem (the rest dealt out)
};

/// @brief One agent moved from a problem to another, and why.
struct AgentMove {
  std::string agent, from, to;  ///< `from` empty: its first assignment
  std::string reason;
};

/// @brief A round's assignment: agent -> problem (agents without a problem are left out).
struct SuitePlan {
  std::map<std::string, std::string> assignment;
  std::vector<AgentMove> moves;
};

namespace detail {

inline std::string describe_standing(const ProblemStanding& s, int plateau) {
  std::string d;
  if (!std::isfinite(s.distance))
    d = s.incumbent ? "its incumbent not yet judged against the baseline" : "no correct candidate yet";
  else {
    char buf[64];
    std::snprintf(buf, sizeof buf, "distance to its goal %.3f", s.distance);
    d = buf;
  }
  if (s.on_plateau(plateau))
    d += ", on a plateau (" + std::to_string(s.attempts_since_admission) + " attempts since its last admission)";
  return d;
}

/// Largest-remainder apportionment of `n` seats by `weights` (all zero: equal shares).
inline std::vector<int> apportion(int n, std::vector<double> weights) {
  std::vector<int> seats(weights.size(), 0);
  if (weights.empty() || n <= 0) return seats;
  double total = 0;
  for (double w : weights) total += w;
  if (!(total > 0)) {
    for (auto& w : weights) w = 1;
    total = static_cast<double>(weights.size());
  }
  std::vector<std::pair<double, std::size_t>> rest;
  int given = 0;
  for (std::size_t i = 0; i < weights.size(); ++i) {
    const double q = n * weights[i] / total;
    seats[i] = static_cast<int>(std::floor(q));
    given += seats[i];
    rest.push_back({q - seats[i], i});
  }
  std::stable_sort(rest.begin(), rest.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  for (std::size_t k = 0; given < n; ++k, ++given) ++seats[rest[k % rest.size()].second];
  return seats;
}

}  // namespace detail

/// @brief The next round's plan. `agents` in order; `standings` one per problem, in the suite's
/// order; `previous` the last round's assignment (empty at the start).
inline SuitePlan plan_round(const SuitePolicy& policy, const std::vector<std::string>& agents,
                            const std::vector<ProblemStanding>& standings,
                            const std::map<std::string, std::string>& previous) {
  SuitePlan plan;
  std::vector<std::size_t> open;
  std::map<std::string, std::size_t> index;
  for (std::size_t i = 0; i < standings.size(); ++i) {
    index[standings[i].name] = i;
    if (!standings[i].finished && !standings[i].goal_met) open.push_back(i);
  }
  if (open.empty()) return plan;
  auto is_open = [&](const std::string& p) {
    auto it = index.find(p);
    return it != index.end() && std::find(open.begin(), open.end(), it->second) != open.end();
  };
  auto why_left = [&](const std::string& p) -> std::string {
    auto it = index.find(p);
    if (it == index.end()) return p + " is no longer in the suite";
    const ProblemStanding& s = standings[it->second];
    return p + " finished (" + (s.goal_met ? std::string("goal met") : std::string(s.end_reason ? to_string(*s.end_reason) : "ended")) + ")";
  };

  if (policy.kind == SuitePolicyKind::fixed) {
    std::map<std::string, int> load;
    for (std::size_t i : open) load[standings[i].name] = 0;
    std::vector<std::string> unplaced;
    for (const auto& a : agents) {
      std::string want;
      if (auto it = previous.find(a); it != previous.end()) want = it->second;
      else if (auto f = policy.assign.find(a); f != policy.assign.end()) want = f->second;
      if (!want.empty() && is_open(want)) {
        plan.assignment[a] = want;
        ++load[want];
      } else {
        unplaced.push_back(a);
      }
    }
    std::size_t deal = 0;
    for (const auto& a : unplaced) {
      std::string to;
      if (previous.count(a) || policy.assign.count(a)) {  // its problem finished: to the least served
        int fewest = 1 << 30;
        for (std::size_t i : open)
          if (load[standings[i].name] < fewest) fewest = load[standings[i].name], to = standings[i].name;
      } else {
        to = standings[open[deal++ % open.size()]].name;  // dealt out in order
      }
      const std::string from = previous.count(a) ? previous.at(a) : std::string();
      plan.assignment[a] = to;
      ++load[to];
      plan.moves.push_back({a, from, to,
                            from.empty() ? "fixed share: dealt out in order"
                                         : why_left(from) + "; " + to + " has the fewest agents"});
    }
    return plan;
  }

  // The planner: weights by distance, plateaus weigh less; no correct incumbent counts as the
  // furthest (twice the largest finite distance, at least 1).
  double largest = 0;
  for (std::size_t i : open)
    if (std::isfinite(standings[i].distance)) largest = std::max(largest, standings[i].distance);
  std::vector<double> weights;
  for (std::size_t i : open) {
    const ProblemStanding& s = standings[i];
    double w = std::isfinite(s.distance) ? s.distance : std::max(1.0, 2 * largest);
    w = std::max(w, 1e-3);  // a problem near its goal still gets an agent when there are enough
    if (s.on_plateau(policy.plateau)) w *= policy.plateau_weight;
    weights.push_back(w);
  }
  const std::vector<int> seats = detail::apportion(static_cast<int>(agents.size()), weights);
  std::map<std::string, int> want;
  for (std::size_t k = 0; k < open.size(); ++k) want[standings[open[k]].name] = seats[k];
  // Agents stay where they are while their problem wants them.
  std::vector<std::string> movers;
  for (const auto& a : agents) {
    auto it = previous.find(a);
    if (it != previous.end() && want.count(it->second) && want[it->second] > 0) {
      plan.assignment[a] = it->second;
      --want[it->second];
    } else {
      movers.push_back(a);
    }
  }
  for (const auto& a : movers) {
    // The open problem still wanting an agent, furthest from its goal first.
    std::string to;
    double far = -1;
    for (std::size_t k = 0; k < open.size(); ++k) {
      const ProblemStanding& s = standings[open[k]];
      if (want[s.name] <= 0) continue;
      const double d = std::isfinite(s.distance) ? s.distance : 1e300;
      if (d > far) far = d, to = s.name;
    }
    if (to.empty()) continue;  // more agents than seats: cannot happen (seats sum to the agents)
    --want[to];
    plan.assignment[a] = to;
    const std::string from = previous.count(a) ? previous.at(a) : std::string();
    std::string reason;
    if (from.empty()) {
      reason = "first assignment";
    } else if (!is_open(from)) {
      reason = why_left(from);
    } else {
      const ProblemStanding& f = standings[index[from]];
      reason = "away from " + from + " (" + detail::describe_standing(f, policy.plateau) + ")";
    }
    reason += "; to " + to + " (" + detail::describe_standing(standings[index[to]], policy.plateau) + ")";
    plan.moves.push_back({a, from, to, reason});
  }
  return plan;
}

}  // namespace socratic
