#pragma once
// Helpers shared by the question tests: matchers that read the same in Catch2 v2 and v3,
// synthetic evaluation histories, temporary folders.
#include "catch.hpp"

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "socratic/core/campaign_state.hpp"

#ifdef SOCRATIC_CATCH3
using Catch::Approx;
#define Q_CONTAINS(text) Catch::Matchers::ContainsSubstring(text)
#else
#define Q_CONTAINS(text) Catch::Matchers::Contains(text)
#endif

namespace qtest {

using namespace socratic;

/// The question bank shipped in the source tree.
inline const std::filesystem::path shipped = std::filesystem::path(SOCRATIC_SOURCE_DIR) / "question_bank";

/// A fresh, empty folder under the system's temporary folder.
inline std::filesystem::path temp_dir(const std::string& name) {
  auto dir = std::filesystem::temp_directory_path() / "socratic_questions_tests" / name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

inline std::filesystem::path write_file(const std::filesystem::path& path, const std::string& text) {
  std::filesystem::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

inline std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

/// An evaluation whose scenarios s0..sN-1 have the given speedups and relative noise.
inline EvaluationRecord evaluation(int index, std::vector<double> speedups, double noise = 0.005,
                                   double elapsed_s = -1, bool correct = true) {
  EvaluationRecord r;
  r.index = index;
  r.elapsed_s = elapsed_s >= 0 ? elapsed_s : index * 60.0;
  r.report.built = true;
  for (std::size_t i = 0; i < speedups.size(); ++i) {
    ScenarioResult s;
    s.id = "s";
    s.id += std::to_string(i);  // not "s" + to_string(i): g++ 12 warns falsely (-Wrestrict, PR 105651)
    s.correct = correct;
    s.speedup = speedups[i];
    s.candidate_ms = 1.0 / speedups[i];
    s.baseline_ms = 1.0;
    s.candidate_noise = noise;
    s.baseline_noise = noise;
    s.samples = 50;
    s.max_abs_error = correct ? 0.001 : 0.05;
    s.tolerance = 0.01;
    r.report.expected.push_back(s.id);
    r.report.scenarios.push_back(s);
  }
  return r;
}

/// A campaign state whose evaluations have these single-scenario scores.
inline CampaignState history(const std::vector<double>& scores, double noise = 0.005) {
  CampaignState s;
  s.campaign_id = "test";
  for (std::size_t i = 0; i < scores.size(); ++i)
    s.evaluations.push_back(evaluation(static_cast<int>(i), {scores[i]}, noise));
  if (!s.evaluations.empty()) s.elapsed_s = s.evaluations.back().elapsed_s;
  return s;
}

}  // namespace qtest
