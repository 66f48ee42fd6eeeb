#pragma once
// The campaign's questions as its campaign file sets them up: the bank source (filtered by the
// problem's kinds) and the trigger detectors. Light: `init` asks the start question with it.

#include <filesystem>
#include <memory>
#include <vector>

#include "campaign_file.hpp"
#include "data_dir.hpp"
#include "problems.hpp"
#include "socratic/concepts.hpp"
#include "socratic/questions/bank_question_source.hpp"
#include "socratic/questions/detector.hpp"
#include "socratic/questions/detectors.hpp"

namespace socratic::tool {

using ToolQuestionSource = BankQuestionSource;

inline ToolQuestionSource make_question_source(const CampaignFile& c) {
  const std::filesystem::path bank = c.questions.bank ? *c.questions.bank : data_dir() / "question_bank";
  BankSourceOptions options;
  options.seed = c.questions.seed;
  options.exploration_rate = c.questions.exploration_rate;
  options.problem_kinds = campaign_problem_kinds(c.questions.kinds, c.problem);
  if (c.questions.adaptive) options.credits = CreditTable::load(*c.questions.credits);
  return BankQuestionSource(load_bank(bank), options);
}
inline std::vector<std::shared_ptr<TriggerDetector>> make_detectors(const CampaignFile& c) {
  if (c.questions.anchors) return default_detectors(AnchorTable::load(*c.questions.anchors, c.questions.anchor_id));
  return default_detectors();
}
static_assert(QuestionSource<ToolQuestionSource>);

}  // namespace socratic::tool
