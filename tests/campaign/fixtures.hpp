#pragma once
// User-written replacements for the four concepts, as a researcher would write them: a scripted
// agent, an evaluator that returns prepared reports, a fixed question source. Shared by the
// campaign tests and the child process of the resume test.

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "socratic/socratic.hpp"
#include "test_files.hpp"

namespace fixtures {

using namespace socratic;

using socratic::test::fresh_dir;
using socratic::test::read_text;
using socratic::test::write_text;

/// A report over scenarios "a" and "b" with the given speedups (NaN = incorrect).
inline EvalReport report_with(double speedup_a, double speedup_b) {
  EvalReport r;
  r.problem = "toy";
  r.built = true;
  r.expected = {"a", "b"};
  for (auto [id, s] : {std::pair<const char*, double>{"a", speedup_a}, {"b", speedup_b}}) {
    ScenarioResult res;
    res.id = id;
    res.correct = !std::isnan(s);
    res.reason = res.correct ? "" : "max error 0.5 > tolerance 0.01";
    res.speedup = s;
    res.candidate_noise = 0.002;
    r.scenarios.push_back(res);
  }
  return r;
}

/// Evaluator returning the report prepared for the candidate file's content.
struct PreparedEvaluator {
  std::map<std::string, EvalReport> reports;
  int calls = 0;
  EvalReport evaluate(const Candidate& c) {
    ++calls;
    const std::string content = read_text(c.source);
    auto it = reports.find(content);
    if (it != reports.end()) {
      EvalReport r = it->second;
      r.candidate = c;
      return r;
    }
    EvalReport r;
    r.candidate = c;
    r.built = false;
    r.build_log = "unknown candidate content: " + content;
    r.expected = {"a", "b"};
    return r;
  }
};
static_assert(Evaluator<PreparedEvaluator>);

/// One scripted turn: what to write into the candidate, whether to call evaluate, what to say.
struct Step {
  explicit Step(std::string w, bool eval = false, std::string msg = "done", Usage u = {},
                int extra = 0)
      : write(std::move(w)), evaluate(eval), final_message(std::move(msg)), usage(u),
        extra_tool_calls(extra) {}
  std::string write;
  bool evaluate = false;
  std::string final_message = "done";
  Usage usage{};
  int extra_tool_calls = 0;
  std::string record;  ///< text recorded as an agent event (for secret tests)
  std::function<void()> during;  ///< runs mid-turn (the resume test blocks here to be killed)
};

struct ScriptedAgent {
  std::vector<Step> steps;
  std::vector<Message> received;
  std::vector<EvaluateResult> evaluate_results;
  std::size_t next = 0;

  TurnResult turn(const Message& m, Tools& tools) {
    received.push_back(m);
    TurnResult out;
    const Step& step = steps.at(std::min(next, steps.size() - 1));
    ++next;
    if (!tools.charge("write_file")) return out;
    ++out.tool_calls;
    write_text(tools.candidate().source, step.write);
    for (int i = 0; i < step.extra_tool_calls; ++i) {
      if (!tools.charge("run_shell")) break;
      ++out.tool_calls;
    }
    if (!step.record.empty()) tools.record({{"kind", "note"}, {"text", step.record}});
    if (step.evaluate) {
      evaluate_results.push_back(tools.evaluate());
      ++out.tool_calls;
    }
    if (step.during) step.during();
    if (step.usage.total_tokens() > 0) tools.add_usage(step.usage);
    out.usage = step.usage;
    out.final_message = step.final_message;
    return out;
  }
};
static_assert(Agent<ScriptedAgent>);

/// Always the same question for a trigger, numbered so repeats are visible.
struct FixedQuestionSource {
  int asked = 0;
  std::optional<Question> ask(const TriggerEvent& e, const CampaignState& s) {
    ++asked;
    Question q;
    q.id = "q" + std::to_string(s.asked.size());
    q.group = "measurement";
    q.text = "Which scenario is furthest from its bound, and why? (" + std::string(to_string(e.trigger)) + ")";
    q.trigger = e.trigger;
    return q;
  }
};
static_assert(QuestionSource<FixedQuestionSource>);

/// The goal as a user's lambda: every scenario correct and at least 1.2x.
inline auto speedup_goal() {
  return [](const EvalReport& r) {
    std::vector<UnmetCondition> unmet;
    for (const auto& id : r.missing()) unmet.push_back({id, "present", "a result", "missing"});
    if (!r.built) unmet.push_back({"", "built", "yes", "no"});
    for (const auto& s : r.scenarios)
      if (!s.correct || !(s.speedup >= 1.2))
        unmet.push_back({s.id, "speedup", ">= 1.2", s.correct ? std::to_string(s.speedup) : "incorrect"});
    return unmet.empty() ? Verdict::pass() : Verdict::fail(unmet);
  };
}

inline CampaignConfig config_in(const std::filesystem::path& dir) {
  CampaignConfig c;
  c.task = "Make candidate.cu faster than the baseline on every scenario.";
  c.workspace = dir / "workspace";
  c.candidate.source = dir / "workspace" / "candidate.cu";
  c.state_dir = dir / "state";
  c.scenario_ids = {"a", "b"};
  c.arch = "sm_90";
  return c;
}


}  // namespace fixtures
