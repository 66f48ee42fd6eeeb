#pragma once
// Builds the parts of a campaign from its campaign file: the goal, the evaluator, the question
// source and the detectors. Shared by `hook stop`, `run`, `agent` and `demo`.
// Heavy (Boost.Process through the command evaluator): include only in commands that evaluate.

#include <cstdio>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "campaign_file.hpp"
#include "data_dir.hpp"
#include "socratic/concepts.hpp"
#include "socratic/goals/goal_spec.hpp"
#include "socratic/process/run_process.hpp"
#include "socratic/questions/detector.hpp"

#if __has_include("socratic/questions/bank_question_source.hpp")
#include "socratic/questions/bank_question_source.hpp"
#include "socratic/questions/detectors.hpp"
#define SOCRATIC_TOOL_HAS_BANK 1
#endif

namespace socratic::tool {

/// Any evaluator behind one type (the campaign file chooses the kind at run time).
struct AnyEvaluator {
  std::function<EvalReport(const Candidate&)> fn;
  std::string description;
  EvalReport evaluate(const Candidate& c) { return fn(c); }
};
static_assert(Evaluator<AnyEvaluator>);

namespace detail {

inline std::string substitute(std::string arg, const std::string& key, const std::string& value) {
  for (auto pos = arg.find(key); pos != std::string::npos; pos = arg.find(key, pos + value.size()))
    arg.replace(pos, key.size(), value);
  return arg;
}

// Interim: runs the campaign's evaluator command and reads an EvalReport JSON from its stdout.
// The eval-host area's CommandEvaluator (include/socratic/eval/command_evaluator.hpp) replaces
// this once it lands on main.
inline EvalReport run_evaluator_command(const CampaignFile& c, const Candidate& candidate,
                                        const std::vector<std::string>& expected) {
  std::vector<std::string> argv;
  for (const auto& a : c.evaluator.command)
    argv.push_back(substitute(substitute(substitute(a, "{candidate}", candidate.source.string()),
                                         "{scenarios}", c.scenarios.string()),
                              "{workspace}", c.workspace.string()));
  ProcessOptions opts;
  opts.working_dir = c.file.parent_path();
  opts.timeout = std::chrono::milliseconds(static_cast<long long>(c.evaluator.timeout_s * 1000));
  opts.max_output_bytes = 8 << 20;
  const ProcessResult run = run_process(argv, opts);
  EvalReport failed;
  failed.candidate = candidate;
  failed.problem = c.problem;
  failed.expected = expected;
  const std::string command = "evaluator command `" + c.evaluator.command.front() + "`";
  if (!run.ok()) {
    std::string tail = run.stderr_text.size() > 2000 ? run.stderr_text.substr(run.stderr_text.size() - 2000)
                                                     : run.stderr_text;
    failed.error = command + " " + run.describe() + (tail.empty() ? "" : ": " + tail);
    return failed;
  }
  try {
    EvalReport r = json::parse(run.stdout_text).get<EvalReport>();
    r.candidate = candidate;
    if (r.expected.empty()) r.expected = expected;
    return r;
  } catch (const std::exception& e) {
    failed.error = command + " printed no valid report JSON on stdout: " + e.what();
    return failed;
  }
}

}  // namespace detail

/// The evaluator the campaign file names.
inline AnyEvaluator make_evaluator(const CampaignFile& c, const std::vector<std::string>& scenario_ids) {
  if (c.evaluator.kind == "command") {
    return AnyEvaluator{[c, scenario_ids](const Candidate& cand) {
                          return detail::run_evaluator_command(c, cand, scenario_ids);
                        },
                        "command evaluator (" + c.evaluator.command.front() + ")"};
  }
  // kind "cuda"
  throw error(c.file.string() +
              ": evaluator kind \"cuda\" needs the CUDA evaluator "
              "(include/socratic/eval/cuda_evaluator.hpp), which this build of socratic does not "
              "contain yet; use {\"kind\": \"command\", \"command\": [...]} meanwhile");
}

#ifdef SOCRATIC_TOOL_HAS_BANK
using ToolQuestionSource = BankQuestionSource;

inline ToolQuestionSource make_question_source(const CampaignFile& c) {
  const std::filesystem::path bank = c.questions.bank ? *c.questions.bank : data_dir() / "question_bank";
  BankSourceOptions options;
  options.seed = c.questions.seed;
  options.exploration_rate = c.questions.exploration_rate;
  if (c.questions.adaptive) options.credits = CreditTable::load(*c.questions.credits);
  return BankQuestionSource(load_bank(bank), options);
}
inline std::vector<std::shared_ptr<TriggerDetector>> make_detectors(const CampaignFile&) {
  return default_detectors();
}
#else
// Interim, until the bank area's BankQuestionSource lands on main: one plain question per
// trigger, so hooks and campaigns work end to end. Replaced by the bank, not extended.
struct ToolQuestionSource {
  std::optional<Question> ask(const TriggerEvent& e, const CampaignState&) {
    Question q;
    q.id = "interim." + std::string(to_string(e.trigger));
    q.group = "interim";
    q.trigger = e.trigger;
    q.evidence = e.evidence;
    switch (e.trigger) {
      case Trigger::start: q.text = "Which scenario is furthest from the goal, and what bounds it?"; break;
      case Trigger::plateau: q.text = "What measurement would show where the remaining time goes?"; break;
      case Trigger::claimed_limit: q.text = "Which unmet scenario did you measure last, and against what bound?"; break;
      case Trigger::suspicious_gain: q.text = "Does the output still match the reference on fresh inputs?"; break;
      case Trigger::correctness_explained_away: q.text = "Which input makes the failing scenario differ from the reference?"; break;
    }
    return q;
  }
};
inline ToolQuestionSource make_question_source(const CampaignFile&) { return {}; }
inline std::vector<std::shared_ptr<TriggerDetector>> make_detectors(const CampaignFile&) { return {}; }
#endif
static_assert(QuestionSource<ToolQuestionSource>);

}  // namespace socratic::tool
