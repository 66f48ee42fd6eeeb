#pragma once
/// @file
/// @brief ReplayEvaluator: an Evaluator that answers with recorded reports, matched by the
/// candidate's content hash (the same version always gets its recorded report, repeats in
/// recorded order), so a recorded campaign replays through the real campaign machinery.

#include <map>
#include <string>
#include <vector>

#include "socratic/concepts.hpp"
#include "socratic/core/error.hpp"
#include "socratic/core/detail/sha256.hpp"
#include "socratic/replay/recorded_campaign.hpp"

namespace socratic {

/// @brief Answers from recorded evaluations. A candidate that was never recorded is an error
/// naming its hash: a replay never invents a measurement.
class ReplayEvaluator {
 public:
  explicit ReplayEvaluator(const std::vector<EvaluationRecord>& recorded) {
    for (const auto& r : recorded) by_hash_[r.candidate_hash].push_back(r.report);
  }

  EvalReport evaluate(const Candidate& c) {
    const std::string hash = c.has_snapshot() ? c.content_hash : detail::sha256_file(c.source);
    auto it = by_hash_.find(hash);
    if (it == by_hash_.end())
      throw error("replay: no recorded evaluation of the candidate with sha256 " + hash + " (" + c.source.string() +
                  "); a replay only answers for recorded versions");
    std::size_t& next = served_[hash];
    EvalReport r = it->second[std::min(next, it->second.size() - 1)];
    ++next;
    r.candidate = c;
    r.candidate.content_hash = hash;
    ++calls_;
    return r;
  }

  int calls() const noexcept { return calls_; }

 private:
  std::map<std::string, std::vector<EvalReport>> by_hash_;
  std::map<std::string, std::size_t> served_;
  int calls_ = 0;
};
static_assert(Evaluator<ReplayEvaluator>);

}  // namespace socratic
