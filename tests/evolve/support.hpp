#pragma once
// Helpers of the evolution tests: temporary folders, members with given scores, a synthetic
// problem whose speed is written in the candidate's source.
#include "catch.hpp"

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "socratic/evolve/population.hpp"

#ifdef SOCRATIC_CATCH3
#define E_CONTAINS(text) Catch::Matchers::ContainsSubstring(text)
#else
#define E_CONTAINS(text) Catch::Matchers::Contains(text)
#endif

namespace etest {

inline std::filesystem::path temp_dir(const std::string& name) {
  auto dir = std::filesystem::temp_directory_path() / "socratic_evolve_tests" / name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

inline std::filesystem::path write_file(const std::filesystem::path& path, const std::string& text) {
  std::filesystem::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

inline socratic::evolve::Member member(std::string id, int island, std::vector<double> scores) {
  socratic::evolve::Member m;
  m.id = id;
  m.code_hash = "h-" + id;
  m.island = island;
  double log_sum = 0;
  bool ok = true;
  for (double s : scores) {
    ok = ok && socratic::evolve::valid_score(s);
    if (ok) log_sum += std::log(s);
  }
  m.fitness = ok ? std::exp(log_sum / static_cast<double>(scores.size())) : std::nan("");
  m.scenario_scores = std::move(scores);
  return m;
}

}  // namespace etest
