#pragma once
// Test doubles for the store, the gate and the parallel coordinator: a prepared measurement
// whose true times and noise the test controls (candidate files say their time per scenario),
// scripted agents that write a prepared candidate per proposal, a question source with numbered
// questions. Shared by store_tests and the kill -9 child.

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "socratic/campaign/parallel_campaign.hpp"
#include "socratic/core/files.hpp"
#include "socratic/store/candidate_store.hpp"
#include "socratic/store/drafts.hpp"
#include "socratic/store/gate.hpp"
#include "test_files.hpp"

namespace store_fixtures {

using namespace socratic;

using socratic::test::read_text;
using socratic::test::write_text;

/// A candidate file's meaning: `ms X` (every scenario's true time, ms), `wrong SCENARIO`,
/// `banned LIB`, `flag SCENARIO FLAG`, `build_error`, any other line ignored (comments make
/// different bytes with the same times).
struct Behaviour {
  double ms = 1.0;
  std::map<std::string, double> ms_of;  ///< `ms_of SCENARIO X`: one scenario's own time
  double time_of(const std::string& scenario) const {
    auto it = ms_of.find(scenario);
    return it == ms_of.end() ? ms : it->second;
  }
  std::string wrong, banned, flag_scenario, flag;
  bool build_error = false;
};
inline Behaviour parse_behaviour(const std::string& text) {
  Behaviour b;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream l(line);
    std::string word;
    l >> word;
    if (word == "ms") l >> b.ms;
    if (word == "ms_of") {
      std::string id;
      double x = 0;
      l >> id >> x;
      b.ms_of[id] = x;
    }
    if (word == "wrong") l >> b.wrong;
    if (word == "banned") l >> b.banned;
    if (word == "flag") l >> b.flag_scenario >> b.flag;
    if (word == "build_error") b.build_error = true;
  }
  return b;
}

/// Measures candidate and incumbent (or the baseline, `baseline_ms`) as an interleaved run
/// would: `samples` samples each with relative noise `noise` (normal), medians, spreads and the
/// speedup, seeded by the request's seed. `delay` slows each call (a simulated GPU run).
struct PreparedMeasure {
  std::vector<std::string> scenarios = {"s1", "s2", "s3"};
  double noise = 0.01;
  /// The run-to-run variation of the candidate's times (one log-normal factor per run, i.e. per
  /// seed): what a GPU shows between runs beyond the samples' own spread (docs/gate.md).
  double run_noise = 0;
  int samples = 30;
  double baseline_ms = 1.0;
  std::chrono::milliseconds delay{0};
  std::shared_ptr<std::atomic<int>> calls = std::make_shared<std::atomic<int>>(0);
  /// Nanoseconds spent inside the measurement (the simulated executor's busy time).
  std::shared_ptr<std::atomic<long long>> busy_ns = std::make_shared<std::atomic<long long>>(0);

  EvalReport operator()(const Candidate& c, const std::optional<Candidate>& incumbent, const GateRunRequest& req) const {
    ++*calls;
    const auto started = std::chrono::steady_clock::now();
    if (delay.count() > 0) std::this_thread::sleep_for(delay);
    struct Busy {
      std::chrono::steady_clock::time_point started;
      std::atomic<long long>& total;
      ~Busy() { total += std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - started).count(); }
    } busy{started, *busy_ns};
    const Behaviour cand = parse_behaviour(read_file_bytes(c.judged_file()));
    const std::optional<Behaviour> inc = incumbent ? std::optional<Behaviour>(parse_behaviour(read_file_bytes(incumbent->judged_file()))) : std::nullopt;
    EvalReport r;
    r.problem = "toy";
    r.candidate = c;
    r.expected = scenarios;
    r.built = !cand.build_error;
    if (!r.built) {
      r.build_log = "error: prepared build failure";
      return r;
    }
    if (!cand.banned.empty()) r.banned.push_back({"candidate.so", cand.banned, "DT_NEEDED lib" + cand.banned + ".so"});
    std::mt19937_64 rng(req.seed);
    std::normal_distribution<double> normal(0.0, 1.0);
    const double run_factor = run_noise > 0 ? std::exp(run_noise * normal(rng)) : 1.0;
    for (const auto& id : scenarios) {
      ScenarioResult s;
      s.id = id;
      s.correct = cand.wrong != id;
      if (!s.correct) s.reason = "max error 0.5 > tolerance 0.01";
      std::vector<double> cs, bs;
      for (int i = 0; i < samples; ++i) {
        cs.push_back(cand.time_of(id) * run_factor * (1 + noise * normal(rng)));
        bs.push_back((inc ? inc->time_of(id) : baseline_ms) * (1 + noise * normal(rng)));
      }
      s.candidate_ms = median(cs);
      s.baseline_ms = median(bs);
      s.candidate_noise = spread(cs);
      s.baseline_noise = spread(bs);
      s.samples = samples;
      s.speedup = s.baseline_ms / s.candidate_ms;
      if (cand.flag_scenario == id) s.flags.push_back(cand.flag);
      r.scenarios.push_back(s);
    }
    return r;
  }
  static double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
  }
  static double spread(const std::vector<double>& v) {
    double m = 0, sq = 0;
    for (double x : v) m += x;
    m /= static_cast<double>(v.size());
    for (double x : v) sq += (x - m) * (x - m);
    return std::sqrt(sq / static_cast<double>(v.size() - 1)) / m;
  }
};

/// The engine's Evaluator over the same measurement, against the problem's baseline.
struct BaselineEvaluator {
  PreparedMeasure measure;
  EvalReport evaluate(const Candidate& c) { return measure(c, std::nullopt, GateRunRequest{0, 42}); }
};
static_assert(Evaluator<BaselineEvaluator>);

/// Writes `contents[n]` (the last one past the end) for its proposal number n.
struct ProposingAgent {
  std::vector<std::string> contents;
  int next = 0;
  std::shared_ptr<std::vector<Message>> received = std::make_shared<std::vector<Message>>();
  std::chrono::milliseconds think{0};
  void on_proposal(int n) { next = n; }
  TurnResult turn(const Message& m, Tools& tools) {
    received->push_back(m);
    if (think.count() > 0) std::this_thread::sleep_for(think);
    TurnResult out;
    if (!tools.charge("write_file")) return out;
    out.tool_calls = 1;
    write_text(tools.candidate().source, contents.at(std::min<std::size_t>(static_cast<std::size_t>(next), contents.size() - 1)));
    out.final_message = "proposed";
    return out;
  }
};
static_assert(Agent<ProposingAgent>);

/// Numbered questions per trigger, never the same twice for a trigger; groups g0, g1, g2.
struct NumberedQuestions {
  std::map<std::string, int> asked;
  std::optional<Question> ask(const TriggerEvent& e, const CampaignState&) {
    const std::string t(to_string(e.trigger));
    const int n = asked[t]++;
    Question q;
    q.id = t + "." + std::to_string(n);
    q.group = "g" + std::to_string(n % 3);
    q.text = "Question " + std::to_string(n) + " for " + t + "?";
    return q;
  }
};
static_assert(QuestionSource<NumberedQuestions>);

inline Verdict never_met(const EvalReport&) { return Verdict::fail({{"", "speedup", ">= 100", "less"}}); }

/// A campaign config in `root` for scenarios s1..s3.
inline CampaignConfig campaign_in(const std::filesystem::path& root) {
  CampaignConfig c;
  c.task = "Make the toy kernel faster.";
  c.workspace = root / "workspace";
  c.candidate.source = root / "workspace" / "kernel.cu";
  c.state_dir = root / "state";
  c.scenario_ids = {"s1", "s2", "s3"};
  return c;
}

/// A store record for a candidate measured by `m` (no incumbent needed).
inline StoreRecord record_of(const std::string& agent, const EvalReport& report, GateOutcome verdict,
                             std::vector<std::string> parents = {}, std::string key = {}) {
  StoreRecord r;
  r.agent = agent;
  r.key = std::move(key);
  r.parents = std::move(parents);
  r.origin = Origin{OriginKind::question, "q.1", "Is it faster?"};
  r.report = report;
  r.gate.verdict = verdict;
  r.gate.reason = std::string(to_string(verdict)) + " for the test";
  return r;
}

}  // namespace store_fixtures
