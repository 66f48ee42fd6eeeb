// Benchmark: one generation's selection and migration for 1,000 candidates over 8 islands
// (3 scenarios), and parent sampling for the next generation's children. Prints figures.
// Usage: bench_evolution [MEMBERS] [ISLANDS] [SCENARIOS] [GENERATIONS]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>
#include <algorithm>

#include "socratic/evolve/population.hpp"

using namespace socratic::evolve;

int main(int argc, char** argv) {
  const int members = argc > 1 ? std::atoi(argv[1]) : 1000;
  const int islands = argc > 2 ? std::atoi(argv[2]) : 8;
  const std::size_t scenarios = argc > 3 ? static_cast<std::size_t>(std::atoi(argv[3])) : 3;
  const int generations = argc > 4 ? std::atoi(argv[4]) : 200;
  PopulationConfig c;
  c.islands = islands;
  c.capacity = members / islands;
  c.scenarios = scenarios;
  c.migrants = 2;
  Population pop(c);
  std::mt19937_64 rng(1);
  std::lognormal_distribution<double> speed(0.3, 0.4);
  long next = 0;
  auto make = [&](int island) {
    Member m;
    // Formatted, not "c" + to_string: g++ 12's -Wrestrict false positive at -O3.
    char text[32];
    std::snprintf(text, sizeof text, "c%ld", next);
    m.id = text;
    std::snprintf(text, sizeof text, "h%ld", next++);
    m.code_hash = text;
    m.island = island;
    double log_sum = 0;
    for (std::size_t s = 0; s < scenarios; ++s) {
      m.scenario_scores.push_back(speed(rng));
      log_sum += std::log(m.scenario_scores.back());
    }
    m.fitness = std::exp(log_sum / static_cast<double>(scenarios));
    return m;
  };
  for (int i = 0; i < members; ++i) pop.add(make(i % islands));
  const int children = members / 4;  // a quarter of the population is new each generation
  std::vector<double> select_ms, migrate_ms, sample_ms;
  for (int g = 0; g < generations; ++g) {
    auto t0 = std::chrono::steady_clock::now();
    for (int k = 0; k < children; ++k) (void)pop.sample_parent(k % islands, rng);
    auto t1 = std::chrono::steady_clock::now();
    for (int k = 0; k < children; ++k) pop.add(make(k % islands));
    auto t2 = std::chrono::steady_clock::now();
    pop.select();
    auto t3 = std::chrono::steady_clock::now();
    pop.migrate();
    auto t4 = std::chrono::steady_clock::now();
    sample_ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
    select_ms.push_back(std::chrono::duration<double, std::milli>(t3 - t2).count());
    migrate_ms.push_back(std::chrono::duration<double, std::milli>(t4 - t3).count());
  }
  auto report = [](const char* what, std::vector<double> v) {
    std::sort(v.begin(), v.end());
    std::printf("%-28s median %.3f ms  p90 %.3f ms  max %.3f ms\n", what, v[v.size() / 2], v[v.size() * 9 / 10], v.back());
  };
  std::printf("population %d over %d islands, %zu scenarios, %d children per generation, %d generations\n", members,
              islands, scenarios, children, generations);
  std::printf("after: %zu members, front %zu\n", pop.size(), pop.global_front().size());
  report("parent sampling (all)", sample_ms);
  report("selection (front + fill)", select_ms);
  report("ring migration", migrate_ms);
  std::vector<double> total(select_ms.size());
  for (std::size_t i = 0; i < total.size(); ++i) total[i] = select_ms[i] + migrate_ms[i] + sample_ms[i];
  report("generation (all three)", total);
  return 0;
}
