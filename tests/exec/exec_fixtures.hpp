#pragma once
// Shared by the executor tests: folders, candidates of the CPU problem with markers for the fake
// evaluator (fixtures/fake_eval.sh), the job template that judges them, and the evaluator's log.
#include <signal.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "socratic/core/json.hpp"
#include "test_files.hpp"
#include "socratic/exec/job.hpp"
#include "socratic/exec/make_job.hpp"
#include "socratic/process/detail/proc_file.hpp"

namespace exec_fixtures {

namespace fs = std::filesystem;
using socratic::json;

inline fs::path source_dir() { return SOCRATIC_SOURCE_DIR; }
inline fs::path cpu_problem() { return source_dir() / "tests" / "tool" / "cpu_problem"; }
inline fs::path fixtures() { return source_dir() / "tests" / "exec" / "fixtures"; }
inline fs::path socratic_exe() { return SOCRATIC_TOOL_PATH; }

using socratic::test::fresh_dir;
using socratic::test::read_text;
using socratic::test::write_text;

/// A candidate of the CPU problem (the correct `fast_fixed.cpp`, or with `wrong` the one with a
/// tail bug) labelled `label`, with fake-evaluator markers appended (`sleep=1`, `crash`, ...).
inline fs::path candidate(const fs::path& dir, const std::string& label, const std::vector<std::string>& markers = {},
                          bool wrong = false) {
  std::string text = read_text(cpu_problem() / (wrong ? "fast_tail_bug.cpp" : "fast_fixed.cpp"));
  text += "\n// FAKE-LABEL: " + label + "\n";
  for (const auto& m : markers) text += "// FAKE: " + m + "\n";
  const fs::path p = dir / "candidates" / (label + ".cpp");
  write_text(p, text);
  return p;
}

/// Judged by fixtures/fake_eval.sh (logging to `log`), built first by fixtures/fake_build.sh.
/// The log is passed as `--log=PATH`, not as a bare path: a file the command names is one of
/// the judge's files, hashed when the evaluator starts, and this one changes as others run.
inline socratic::exec::JobTemplate cpu_template(const fs::path& log, bool with_build = true) {
  socratic::exec::JobTemplate t;
  t.problem = "softmax_cpu";
  t.scenarios = cpu_problem() / "scenarios.json";
  t.evaluator.kind = socratic::exec::EvaluatorKind::command;
  t.evaluator.command.command = {"bash", (fixtures() / "fake_eval.sh").string(), "{candidate}", "{scenarios}",
                                 "--log=" + log.string()};
  if (with_build) t.evaluator.command.build_command = {"bash", (fixtures() / "fake_build.sh").string(), "{candidate}",
                                                       "--log=" + log.string()};
  t.evaluator.command.timeout_s = 120;
  return t;
}

inline socratic::exec::EvalJob cpu_job(const fs::path& cand, const fs::path& log, bool with_build = true) {
  socratic::Candidate c;
  c.source = cand;
  return socratic::exec::make_eval_job(c, cpu_template(log, with_build));
}

/// One line of the fake evaluator's log.
struct LogLine {
  std::string kind;  // START, END, BUILD_START, BUILD_END
  std::string label;
  std::map<std::string, std::string> fields;  // pid, cvd, slurm, t
  double t = 0;
};

inline std::vector<LogLine> read_log(const fs::path& log) {
  std::vector<LogLine> out;
  std::istringstream in(read_text(log));
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream words(line);
    LogLine l;
    words >> l.kind >> l.label;
    std::string w;
    while (words >> w)
      if (auto eq = w.find('='); eq != std::string::npos) l.fields[w.substr(0, eq)] = w.substr(eq + 1);
    if (l.fields.count("t")) l.t = std::atof(l.fields["t"].c_str());
    out.push_back(std::move(l));
  }
  return out;
}

inline std::size_t count_lines(const std::vector<LogLine>& log, const std::string& kind, const std::string& label) {
  std::size_t n = 0;
  for (const auto& l : log) n += l.kind == kind && l.label == label;
  return n;
}

/// A run of the evaluator: [start, end] on one GPU (from START/END lines with the same pid).
struct Span {
  std::string label, cvd, slurm;
  double start = 0, end = 0;
};

inline std::vector<Span> spans(const std::vector<LogLine>& log) {
  std::vector<Span> out;
  for (const auto& s : log) {
    if (s.kind != "START") continue;
    for (const auto& e : log)
      if (e.kind == "END" && e.fields.count("pid") && s.fields.count("pid") && e.fields.at("pid") == s.fields.at("pid") &&
          e.label == s.label && e.t >= s.t) {
        out.push_back({s.label, s.fields.at("cvd"), s.fields.count("slurm") ? s.fields.at("slurm") : "", s.t, e.t});
        break;
      }
  }
  return out;
}

inline bool process_alive(pid_t pid) {
  if (pid <= 0 || ::kill(pid, 0) != 0) return false;
  // A zombie has ended; only its parent has not looked yet.
  const std::string s = socratic::detail::read_proc_file("/proc/" + std::to_string(pid) + "/stat");
  const auto close = s.rfind(')');
  return close == std::string::npos || close + 2 >= s.size() || s[close + 2] != 'Z';
}

template <class Pred>
bool eventually(Pred pred, std::chrono::milliseconds timeout = std::chrono::seconds(30)) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    if (pred()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return pred();
}

}  // namespace exec_fixtures
