#pragma once
/// @file
/// @brief run_runner: starts the runner process, reads its JSON lines as they arrive, and turns
/// them into one ScenarioResult per expected scenario. When the runner dies (signal, nonzero
/// exit, watchdog, timeout) the scenario in progress fails with a reason naming what happened,
/// the results before it are kept, and a new runner is started for the scenarios after it
/// (`--only`), so one broken scenario does not hide the others. Heavy (stream_process).

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "socratic/core/report.hpp"
#include "socratic/eval/runner_protocol.hpp"
#include "socratic/process/environment.hpp"
#include "socratic/process/stream_process.hpp"

namespace socratic {

/// @brief What the host changes of the runner's defaults (docs/runner-protocol.md, "Running"),
/// written into the words the runner is told. Unset optionals are left to the runner's defaults;
/// the runner's own view of all its options is harness::RunnerOptions (kernels/harness/cli.hpp).
struct RunnerOverrides {
  std::optional<std::uint64_t> seed;
  bool no_timing = false;
  std::optional<int> min_samples, max_samples;
  std::optional<double> target_noise;
  std::optional<int> max_ms_per_scenario;
  std::vector<std::string> extra_args;  ///< appended as given
};

/// @brief How long the runner may take and how much it may print.
struct RunnerLimits {
  /// Over all runs of one evaluation (restarts included).
  std::chrono::milliseconds timeout{std::chrono::minutes(30)};
  /// Longest silence (no complete stdout line) before the watchdog kills the runner.
  std::chrono::milliseconds watchdog{std::chrono::seconds(60)};
  std::size_t max_line_bytes = 1 << 20;
  std::size_t max_stdout_bytes = std::size_t(64) << 20;
  std::size_t max_stderr_bytes = 64 * 1024;
};

/// @brief One evaluation's worth of runner work.
struct RunnerJob {
  std::filesystem::path runner;     ///< the runner executable
  std::filesystem::path baseline;   ///< baseline shared object
  std::filesystem::path candidate;  ///< candidate shared object
  std::filesystem::path scenarios;  ///< scenario-set file the runner reads
  std::vector<std::string> expected;  ///< ids to judge, in report order
  std::string problem;              ///< when set, `hello.problem` must match
  double k = 2.0;                   ///< the FA-style tolerance factor (`--k`)
  RunnerOverrides overrides;
  RunnerLimits limits;
  std::filesystem::path working_dir;  ///< empty: the caller's
  std::optional<std::vector<std::string>> environment;  ///< nullopt: the caller's, scrubbed
};

/// @brief A scenario started or finished, for progress lines.
struct RunnerProgress {
  bool finished = false;     ///< false: scenario_begin; true: a result is in
  std::size_t position = 0;  ///< 0-based position of the scenario in `expected`
  std::size_t done = 0;      ///< results so far
  std::size_t total = 0;     ///< expected.size()
  std::string id;
  const ScenarioResult* result = nullptr;  ///< when finished
};

/// @brief What the runner runs found.
struct RunnerOutcome {
  /// One result per expected id, in `expected` order. A scenario the runner never reported gets
  /// a failed result whose reason says why.
  std::vector<ScenarioResult> results;
  std::optional<RunnerHello> hello;          ///< from the first run that sent one
  std::vector<std::string> mapped_libraries; ///< every path the runner reported, deduplicated
  /// Harness-level findings, one sentence each: crashes, restarts, protocol errors.
  std::vector<std::string> problems;
  std::string stderr_tail;  ///< stderr of the last run (capped)
  int runs = 0;             ///< runner processes started
  double seconds = 0;       ///< wall time of all runs
  double timing_s = 0;      ///< time the runner reported as timing
  double check_s = 0;       ///< the rest of the runner's time (start-up, inputs, reference, checks)
};

namespace detail {

inline std::string cap_text(std::string_view s, std::size_t n = 200) {
  if (s.size() <= n) return std::string(s);
  return std::string(s.substr(0, n)) + "...";
}

inline std::string last_nonempty_line(const std::string& text) {
  std::size_t end = text.size();
  while (end > 0) {
    std::size_t begin = text.rfind('\n', end - 1);
    begin = begin == std::string::npos ? 0 : begin + 1;
    std::string line = text.substr(begin, end - begin);
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
    if (!line.empty()) return line;
    if (begin == 0) break;
    end = begin - 1;
  }
  return {};
}

inline ScenarioResult failed_result(const std::string& id, std::string reason) {
  ScenarioResult r;
  r.id = id;
  r.correct = false;
  r.reason = std::move(reason);
  return r;
}

/// A fresh random token for one runner run (128 bits, hex): the runner writes it on every
/// protocol line, so a line without it was not written by that runner.
inline std::string runner_token() {
  std::random_device rd;
  std::string out;
  static const char* hex = "0123456789abcdef";
  for (int i = 0; i < 4; ++i) {
    std::uint32_t v = rd();
    for (int k = 0; k < 8; ++k, v >>= 4) out += hex[v & 15];
  }
  return out;
}

inline std::string join_ids(const std::vector<std::string>& ids) {
  std::string out;
  for (const auto& id : ids) out += (out.empty() ? "" : ",") + id;
  return out;
}

/// How the runner is started: its command line names no option (any process of the machine
/// can read a command line, the candidate's worker included); the options go to its standard
/// input, one word a line.
struct RunnerCommand {
  std::vector<std::string> argv;
  std::string stdin_words;
};

/// The runner's option words for the scenarios in `only` (all of the file when empty).
inline std::vector<std::string> runner_option_words(const RunnerJob& job,
                                                    const std::vector<std::string>& only) {
  std::vector<std::string> argv = {"--baseline",  job.baseline.string(),
                                   "--candidate", job.candidate.string(),
                                   "--scenarios", job.scenarios.string()};
  if (!only.empty()) {
    argv.push_back("--only");
    argv.push_back(join_ids(only));
  }
  const RunnerOverrides& o = job.overrides;
  char buf[64];
  if (o.seed) argv.insert(argv.end(), {"--seed", std::to_string(*o.seed)});
  std::snprintf(buf, sizeof buf, "%.17g", job.k);
  argv.insert(argv.end(), {"--k", buf});
  if (o.no_timing) argv.push_back("--no-timing");
  if (o.min_samples) argv.insert(argv.end(), {"--min-samples", std::to_string(*o.min_samples)});
  if (o.max_samples) argv.insert(argv.end(), {"--max-samples", std::to_string(*o.max_samples)});
  if (o.target_noise) {
    std::snprintf(buf, sizeof buf, "%.17g", *o.target_noise);
    argv.insert(argv.end(), {"--target-noise", buf});
  }
  if (o.max_ms_per_scenario)
    argv.insert(argv.end(), {"--max-ms-per-scenario", std::to_string(*o.max_ms_per_scenario)});
  argv.insert(argv.end(), o.extra_args.begin(), o.extra_args.end());
  return argv;
}

/// The runner's command line and standard input for the scenarios in `only`. Throws
/// std::invalid_argument for an option word the runner could not read back (empty, or holding
/// a newline).
inline RunnerCommand runner_command(const RunnerJob& job, const std::vector<std::string>& only) {
  RunnerCommand c;
  c.argv = {job.runner.string(), "--options-stdin"};
  for (const auto& word : runner_option_words(job, only)) {
    if (word.empty() || word.find('\n') != std::string::npos)
      throw std::invalid_argument("runner option \"" + word +
                                  "\": a word must be non-empty and hold no newline");
    c.stdin_words += word + "\n";
  }
  return c;
}

}  // namespace detail

namespace detail {

/// One evaluation's runner runs: the results kept across restarts, and what each run's lines
/// say. run() starts a run for the scenarios still without a result until all have one, a run
/// makes no progress, or the time limit is reached.
class RunnerSession {
 public:
  using clock = std::chrono::steady_clock;

  RunnerSession(const RunnerJob& job, const std::function<void(const RunnerProgress&)>& on_progress)
      : job_(job), on_progress_(on_progress), deadline_(clock::now() + job.limits.timeout),
        results_(job.expected.size()) {
    for (std::size_t i = 0; i < job.expected.size(); ++i) position_.emplace(job.expected[i], i);
  }

  RunnerOutcome run() {
    while (!stop_all_) {
      const std::vector<std::string> todo = remaining();
      if (todo.empty()) break;
      const auto now = clock::now();
      if (now >= deadline_) {
        not_run_reason_ = "not run: the evaluation's runner time limit of " +
                          format_seconds(job_.limits.timeout) + " s was reached";
        break;
      }
      // Every run names its scenarios, so a runner never judges one it was not asked for.
      RunnerCommand command;
      try {
        command = runner_command(job_, todo);
      } catch (const std::invalid_argument& e) {
        outcome_.problems.push_back(e.what());
        not_run_reason_ = std::string("not run: ") + e.what();
        break;
      }
      Run r;
      r.number = ++outcome_.runs;
      r.token = runner_token();
      const StreamResult sr = stream_process(
          command.argv, [&](std::string_view line, bool truncated) { return on_line(r, line, truncated); },
          stream_options(r, command, now));
      outcome_.seconds += sr.seconds;
      outcome_.stderr_tail = sr.stderr_text;
      if (!sr.started) {
        outcome_.problems.push_back("cannot start the runner: " + sr.error);
        not_run_reason_ = "not run: the runner could not be started";
        break;
      }
      if (stop_all_ || !run_again_after(r, sr)) break;
    }
    return finish();
  }

 private:
  /// What one runner process said so far.
  struct Run {
    int number = 0;
    std::string token;                  // written on every line of this run's runner
    std::optional<std::size_t> current;  // position of the scenario in progress
    std::string current_taint;          // a protocol error seen during the current scenario
    std::string fatal_message;
    bool saw_done = false;
    bool progressed = false;
    std::set<std::size_t> ended;        // the scenarios this run ended
    std::size_t line_number = 0;
  };

  StreamOptions stream_options(const Run& r, const RunnerCommand& command, clock::time_point now) const {
    StreamOptions so;
    so.working_dir = job_.working_dir;
    so.environment = job_.environment ? *job_.environment : scrubbed_environment();
    so.environment->push_back("SOCRATIC_RUNNER_TOKEN=" + r.token);
    so.stdin_data = command.stdin_words;
    so.timeout = std::chrono::duration_cast<std::chrono::milliseconds>(deadline_ - now);
    so.no_output_timeout = job_.limits.watchdog;
    so.max_line_bytes = job_.limits.max_line_bytes;
    so.max_stdout_bytes = job_.limits.max_stdout_bytes;
    so.max_stderr_bytes = job_.limits.max_stderr_bytes;
    return so;
  }

  void record(std::size_t pos, ScenarioResult r) {
    if (!results_[pos]) ++done_count_;
    results_[pos] = std::move(r);
    if (on_progress_)
      on_progress_({true, pos, done_count_, job_.expected.size(), job_.expected[pos], &*results_[pos]});
  }

  std::vector<std::string> remaining() const {
    std::vector<std::string> out;
    for (std::size_t i = 0; i < job_.expected.size(); ++i)
      if (!results_[i]) out.push_back(job_.expected[i]);
    return out;
  }

  void protocol_problem(Run& r, const std::string& what) {
    outcome_.problems.push_back("runner protocol error (run " + std::to_string(r.number) + "): " + what);
    if (r.current && r.current_taint.empty()) r.current_taint = what;
  }

  /// One stdout line: believed only when it parses and carries this run's token.
  StreamAction on_line(Run& r, std::string_view line, bool truncated) {
    ++r.line_number;
    if (line.find_first_not_of(" \t\r") == std::string_view::npos) return StreamAction::proceed;
    const std::string where = "stdout line " + std::to_string(r.line_number);
    if (truncated) {
      protocol_problem(r, where + " is longer than " + std::to_string(job_.limits.max_line_bytes) +
                              " bytes: \"" + cap_text(line) + "\"");
      return StreamAction::proceed;
    }
    RunnerEvent ev = parse_runner_event(line);
    if (ev.kind != RunnerEvent::Kind::malformed && ev.token != r.token &&
        !(ev.kind == RunnerEvent::Kind::hello && ev.hello.protocol != runner_protocol_version)) {
      protocol_problem(r, where + " does not carry this run's token (not written by the runner: "
                                  "ignored): \"" + cap_text(line) + "\"");
      return StreamAction::proceed;
    }
    switch (ev.kind) {
      case RunnerEvent::Kind::malformed:
        protocol_problem(r, where + " is not a protocol event (" + ev.message + "): \"" + cap_text(line) + "\"");
        break;
      case RunnerEvent::Kind::hello:
        return on_hello(ev.hello);
      case RunnerEvent::Kind::scenario_begin:
        on_scenario_begin(r, ev.id, where);
        break;
      case RunnerEvent::Kind::scenario_end:
        on_scenario_end(r, ev, where);
        break;
      case RunnerEvent::Kind::libraries:
        for (auto& path : ev.mapped)
          if (mapped_seen_.insert(path).second) outcome_.mapped_libraries.push_back(path);
        break;
      case RunnerEvent::Kind::fatal:
        r.fatal_message = ev.message.empty() ? "(no message)" : ev.message;
        break;
      case RunnerEvent::Kind::done:
        r.saw_done = true;
        break;
      case RunnerEvent::Kind::log:
      case RunnerEvent::Kind::unknown:
        break;
    }
    return StreamAction::proceed;
  }

  /// A runner of another protocol or problem cannot be trusted to run anything.
  StreamAction on_hello(const RunnerHello& hello) {
    if (hello.protocol != runner_protocol_version) {
      outcome_.problems.push_back("the runner speaks protocol " + std::to_string(hello.protocol) +
                                  ", this host speaks " + std::to_string(runner_protocol_version) +
                                  ": rebuild the runner");
      not_run_reason_ = "not run: runner protocol mismatch";
      stop_all_ = true;
      return StreamAction::stop;
    }
    if (!job_.problem.empty() && !hello.problem.empty() && hello.problem != job_.problem) {
      outcome_.problems.push_back("the runner is for problem \"" + hello.problem + "\", expected \"" +
                                  job_.problem + "\"");
      not_run_reason_ = "not run: the runner is for another problem";
      stop_all_ = true;
      return StreamAction::stop;
    }
    if (!outcome_.hello) outcome_.hello = hello;
    return StreamAction::proceed;
  }

  void on_scenario_begin(Run& r, const std::string& id, const std::string& where) {
    auto it = position_.find(id);
    if (it == position_.end() || results_[it->second]) {
      protocol_problem(r, where + ": scenario_begin for \"" + id + "\", which " +
                              (it == position_.end() ? "was not asked for" : "already has a result"));
      return;
    }
    if (r.current) {
      record(*r.current, failed_result(job_.expected[*r.current],
                                       "the runner began scenario \"" + id + "\" before ending this one"));
      r.progressed = true;
    }
    r.current = it->second;
    r.current_taint.clear();
    if (on_progress_) on_progress_({false, *r.current, done_count_, job_.expected.size(), id, nullptr});
  }

  void on_scenario_end(Run& r, RunnerEvent& ev, const std::string& where) {
    if (!r.current || ev.result.id != job_.expected[*r.current]) {
      // Not believed: only the scenario the runner announced can end.
      protocol_problem(r, where + ": scenario_end for \"" + ev.result.id +
                              "\" without a matching scenario_begin (ignored)");
      // A second end for a scenario this run already ended means one of them was forged (the
      // candidate runs inside the runner): neither is believed.
      auto it = position_.find(ev.result.id);
      if (it != position_.end() && r.ended.count(it->second) && results_[it->second]->correct)
        record(it->second, failed_result(ev.result.id, "conflicting results: the runner reported this scenario "
                                                       "twice (" + where + "); neither is believed"));
      return;
    }
    // Believed up to the runs' wall time (capped at the end): lines may reach us in bursts, so
    // the time between two of them says nothing about the runner's clock.
    if (std::isfinite(ev.timing_s) && ev.timing_s >= 0) reported_timing_ += ev.timing_s;
    ScenarioResult result = std::move(ev.result);
    if (!r.current_taint.empty()) {
      // A protocol violation during the scenario: its verdict stands as a failure and none of
      // its figures is believed.
      result.correct = false;
      result.speedup = std::numeric_limits<double>::quiet_NaN();
      result.tflops = std::numeric_limits<double>::quiet_NaN();
      result.reason = "protocol error during this scenario: " + r.current_taint +
                      (result.reason.empty() ? "" : "; runner's verdict: " + result.reason);
    } else if (!result.correct && result.reason.empty()) {
      result.reason = "failed (the runner gave no reason)";
    }
    const std::size_t pos = *r.current;
    r.current.reset();
    r.progressed = true;
    r.ended.insert(pos);
    record(pos, std::move(result));
  }

  /// How the run ended, in words, for the scenario it broke; empty for a clean end.
  std::string how_run_ended(const Run& r, const StreamResult& sr) const {
    if (sr.watchdog_fired)
      return "no output for " + format_seconds(job_.limits.watchdog) + " s: watchdog killed the runner";
    if (sr.timed_out)
      return "the runner ran past the evaluation's time limit of " + format_seconds(job_.limits.timeout) +
             " s and was killed";
    if (sr.output_limit)
      return "the runner printed more than " + std::to_string(job_.limits.max_stdout_bytes) +
             " bytes and was killed";
    if (sr.signal) return "runner killed by signal " + describe_signal(sr.signal);
    if (sr.exit_code != 0) return "runner exited with code " + std::to_string(sr.exit_code);
    if (!r.saw_done) return "runner exited (code 0) without finishing";
    return {};
  }

  /// After a run: the scenario it broke fails; true when another run should take the rest (it
  /// broke after making progress).
  bool run_again_after(Run& r, const StreamResult& sr) {
    const std::string how = how_run_ended(r, sr);
    std::string detail_text;
    if (!r.fatal_message.empty()) detail_text += "; runner reported: " + cap_text(r.fatal_message, 500);
    if (!how.empty()) {
      const std::string last = last_nonempty_line(sr.stderr_text);
      if (!last.empty()) detail_text += "; last stderr line: " + cap_text(last);
    }
    if (r.current) {
      const std::string id = job_.expected[*r.current];
      const std::string reason =
          (how.empty() ? std::string("runner stopped") : how) + " during this scenario" + detail_text;
      outcome_.problems.push_back("scenario \"" + id + "\": " + reason);
      record(*r.current, failed_result(id, reason));
      r.progressed = true;
    }
    const std::vector<std::string> left = remaining();
    if (left.empty()) return false;
    if (!how.empty() && r.progressed) {
      outcome_.problems.push_back("restarting the runner for the " + std::to_string(left.size()) +
                                  " remaining scenario(s) after: " + how + detail_text);
      return true;
    }
    // No progress (it died before any scenario), or it finished without reporting some.
    if (!how.empty() || !r.fatal_message.empty()) {
      const std::string cause = (how.empty() ? std::string("fatal error") : how) + detail_text;
      not_run_reason_ = "not run: the runner stopped before this scenario (" + cause + ")";
      outcome_.problems.push_back("the runner stopped before " + std::to_string(left.size()) +
                                  " scenario(s) without progress: " + cause);
    } else {
      not_run_reason_ = "no result: the runner finished without reporting this scenario";
      outcome_.problems.push_back("the runner finished without reporting " + std::to_string(left.size()) +
                                  " scenario(s): " + join_ids(left));
    }
    return false;
  }

  /// Every scenario without a result fails with the reason nothing ran it.
  RunnerOutcome finish() {
    if (not_run_reason_.empty()) not_run_reason_ = "not run";
    for (std::size_t i = 0; i < job_.expected.size(); ++i)
      if (!results_[i]) results_[i] = failed_result(job_.expected[i], not_run_reason_);
    outcome_.results.reserve(results_.size());
    for (auto& r : results_) outcome_.results.push_back(std::move(*r));
    outcome_.timing_s = std::min(reported_timing_, outcome_.seconds);
    outcome_.check_s = outcome_.seconds - outcome_.timing_s;
    return std::move(outcome_);
  }

  const RunnerJob& job_;
  const std::function<void(const RunnerProgress&)>& on_progress_;
  const clock::time_point deadline_;
  std::map<std::string, std::size_t> position_;  // id -> index in expected
  std::vector<std::optional<ScenarioResult>> results_;
  std::size_t done_count_ = 0;
  std::set<std::string> mapped_seen_;
  double reported_timing_ = 0;
  bool stop_all_ = false;  // the runner cannot be trusted to run anything (wrong protocol/problem)
  std::string not_run_reason_;
  RunnerOutcome outcome_;
};

}  // namespace detail

/// @brief Runs the runner until every expected scenario has a result (restarting it after a
/// crash, as long as each run makes progress). Never throws for the runner's or the candidate's
/// faults; `on_progress` (optional) sees each scenario begin and end.
inline RunnerOutcome run_runner(const RunnerJob& job,
                                const std::function<void(const RunnerProgress&)>& on_progress = {}) {
  return detail::RunnerSession(job, on_progress).run();
}

}  // namespace socratic
