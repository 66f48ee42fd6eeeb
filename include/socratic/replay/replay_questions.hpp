#pragma once
/// @file
/// @brief ReplayQuestionSource: the questions a recorded campaign asked, asked again at the same
/// moments of its replay. A replay that chose its questions live would pair the recording's
/// gains with questions the recorded agent never read; this source asks only what was asked.

#include <optional>
#include <vector>

#include "socratic/concepts.hpp"
#include "socratic/core/campaign_state.hpp"
#include "socratic/core/question.hpp"

namespace socratic {

/// @brief Answers an event with the recorded question of the same trigger asked after the same
/// evaluation (each recorded question once); nothing when the recording asked nothing there.
class ReplayQuestionSource {
 public:
  explicit ReplayQuestionSource(std::vector<AskedQuestion> recorded) : recorded_(std::move(recorded)) {
    used_.assign(recorded_.size(), false);
  }

  std::optional<Question> ask(const TriggerEvent& event, const CampaignState& state) {
    const int after = state.evaluations.empty() ? -1 : state.evaluations.back().index;
    for (std::size_t i = 0; i < recorded_.size(); ++i)
      if (!used_[i] && recorded_[i].after_evaluation == after && recorded_[i].question.trigger == event.trigger) {
        used_[i] = true;
        return recorded_[i].question;
      }
    return std::nullopt;
  }

  /// @brief The recorded questions the replay did not reach (its moments differed).
  std::vector<AskedQuestion> unasked() const {
    std::vector<AskedQuestion> out;
    for (std::size_t i = 0; i < recorded_.size(); ++i)
      if (!used_[i]) out.push_back(recorded_[i]);
    return out;
  }

 private:
  std::vector<AskedQuestion> recorded_;
  std::vector<bool> used_;
};
static_assert(QuestionSource<ReplayQuestionSource>);

}  // namespace socratic
