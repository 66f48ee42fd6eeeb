#pragma once
/// @file
/// @brief CommandEvaluator: an Evaluator that runs a user-given command and reads an EvalReport
/// JSON (docs/report-schema.md) from its stdout. It plugs in a user's own harness, and lets
/// tests without a GPU use a script as the evaluator. Like the CUDA evaluator it guards its
/// judge: the command, the script it names and that script's folder are hashed at construction
/// (or at the campaign's start, from a saved manifest) and verified before every evaluation.
/// Heavy (run_process).

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "socratic/concepts.hpp"
#include "socratic/core/candidate.hpp"
#include "socratic/core/error.hpp"
#include "socratic/core/json.hpp"
#include "socratic/core/report.hpp"
#include "socratic/core/detail/sha256.hpp"
#include "socratic/eval/integrity.hpp"
#include "socratic/process/run_process.hpp"

namespace socratic {

/// @brief What to run.
struct CommandEvaluatorConfig {
  /// argv, program first. In every argument `{candidate}` becomes the candidate's source path,
  /// `{snapshot}` the campaign's immutable copy of the bytes judged (the source when there is
  /// none) and `{label}` its label.
  std::vector<std::string> command;
  std::chrono::milliseconds timeout{std::chrono::minutes(30)};
  std::filesystem::path working_dir;  ///< empty: the caller's
  std::optional<std::vector<std::string>> environment;  ///< nullopt: the caller's, scrubbed
  /// When not empty, the report must list exactly these scenario ids in `expected` (a harness
  /// cannot drop a scenario it failed).
  std::vector<std::string> expected;
  std::size_t max_output_bytes = std::size_t(16) << 20;
  /// The baseline's source, when the command judges against one: a candidate byte-identical to
  /// it is reported `identical_to_baseline` (no goal of being faster holds on it).
  std::optional<std::filesystem::path> baseline;
  /// The judge's files found in the command: every argument naming an existing file (the
  /// program itself only when given with a path; a program found on PATH is the toolchain),
  /// with the other files of its folder. False: only `judge` and the command itself.
  bool judge_from_command = true;
  /// More of the judge: files, or folders (walked), whose change must stop every evaluation.
  std::vector<std::filesystem::path> judge;
  /// The agent's folder: nothing in it is the judge (the candidate lies there).
  std::filesystem::path workspace;
  /// A manifest recorded at the campaign's start (save_integrity_manifest); it must cover this
  /// evaluator's judge. nullopt: recorded at construction.
  std::optional<std::filesystem::path> integrity_manifest;
};

namespace detail {
inline std::string tail_lines(const std::string& text, std::size_t max_chars) {
  if (text.size() <= max_chars) return text;
  return "..." + text.substr(text.size() - max_chars);
}
}  // namespace detail

/// @brief Runs a command per evaluation; its stdout must be one EvalReport JSON document (or end
/// with one on its last line, after free text). Every failure (cannot start, nonzero exit,
/// timeout, no or bad JSON, wrong scenario list) becomes a report whose `error` says what
/// happened; `evaluate` never throws. A failure of the command itself (it could not start,
/// exited with an error code below 128 without a report, printed no report or the wrong
/// scenarios) is `fault: harness`; a signal, a shell's 128+N or a timeout may be the candidate's
/// doing and is not.
class CommandEvaluator {
 public:
  /// @throws error for an empty command; input_error when a saved manifest cannot be read (one
  /// that does not cover the judge, recorded for another command, fails every evaluation).
  explicit CommandEvaluator(CommandEvaluatorConfig config) : config_(std::move(config)) {
    if (config_.command.empty()) throw error("CommandEvaluator: empty command");
    if (config_.baseline) baseline_hash_ = detail::sha256_file(*config_.baseline);
    find_judge();
    if (config_.integrity_manifest) {
      manifest_ = load_integrity_manifest(*config_.integrity_manifest);
      for (const auto& f : judge_files_)
        if (!manifest_.covers(f)) uncovered_.push_back(f.string() + " was not recorded at the campaign's start");
    } else {
      manifest_ = record_integrity(judge_files_, judge_folders_);
      record_value(manifest_, "evaluator command", command_text());
    }
  }

  /// @brief The judge's files and folders this evaluator verifies (for the agent's sandbox).
  std::vector<std::filesystem::path> judge_paths() const {
    std::vector<std::filesystem::path> out = judge_files_;
    out.insert(out.end(), judge_folders_.begin(), judge_folders_.end());
    return out;
  }
  /// @brief What was recorded (save it at the campaign's start for later processes).
  const IntegrityManifest& integrity_manifest() const noexcept { return manifest_; }

  /// @brief What changed in the judge since it was recorded (empty: nothing): the check
  /// `evaluate` makes first, for a caller that judges elsewhere (an executor's job).
  std::vector<std::string> judge_changes() const {
    std::vector<std::string> tampered = uncovered_;
    for (auto& t : verify_integrity(manifest_)) tampered.push_back(std::move(t));
    for (auto& t : verify_values(manifest_, {{"evaluator command", command_text()}})) tampered.push_back(std::move(t));
    return tampered;
  }

  EvalReport evaluate(const Candidate& candidate) {
    using clock = std::chrono::steady_clock;
    const auto began = clock::now();
    // The judge first: a changed script, folder or command never produces a verdict.
    std::vector<std::string> tampered = judge_changes();
    if (!tampered.empty()) {
      EvalReport report;
      report.candidate = candidate;
      report.expected = config_.expected;
      report.error = "integrity check failed: ";
      for (std::size_t i = 0; i < tampered.size() && i < 10; ++i) report.error += (i ? "; " : "") + tampered[i];
      report.error += " (restore the files or start a new campaign)";
      report.judge_modified = std::move(tampered);
      report.fault = EvalFault::configuration;  // no verdict on the candidate: the person's to fix
      report.timings.total_s = std::chrono::duration<double>(clock::now() - began).count();
      return report;
    }
    Candidate judged = candidate;
    if (!candidate.has_snapshot()) {  // a campaign hashed the bytes already when it snapshotted them
      try {
        judged.content_hash = detail::sha256_file(candidate.source);
      } catch (const std::exception&) {
        // The command may know where to find it; its own report says whether it could.
      }
    }

    std::vector<std::string> argv;
    for (std::string arg : config_.command) {
      replace(arg, "{candidate}", candidate.source.string());
      replace(arg, "{snapshot}", candidate.judged_file().string());
      replace(arg, "{label}", candidate.label);
      argv.push_back(std::move(arg));
    }
    ProcessOptions po;
    po.working_dir = config_.working_dir;
    po.environment = config_.environment;
    po.timeout = config_.timeout;
    po.max_output_bytes = config_.max_output_bytes;
    const ProcessResult r = run_process(argv, po);
    const double seconds = std::chrono::duration<double>(clock::now() - began).count();

    auto failure = [&](std::string why, EvalFault fault) {
      EvalReport report;
      report.candidate = judged;
      report.expected = config_.expected;
      report.fault = fault;
      report.error = "evaluator command \"" + config_.command.front() + "\" " + why;
      if (!r.stderr_text.empty()) report.error += "; stderr: " + detail::tail_lines(r.stderr_text, 2000);
      report.timings.total_s = seconds;
      return report;
    };
    // A judge killed by a signal (or a shell's 128+N), or one that hung, may have been brought
    // down by the candidate it ran: that stays the candidate's, and its stdout is not believed.
    if (r.timed_out || r.signal != 0 || (r.started && r.exit_code >= 128))
      return failure(r.describe() + " (the candidate may have crashed or hung it)", EvalFault::none);
    if (!r.started) return failure(r.describe() + " without a report", EvalFault::harness);
    if (r.stdout_truncated) return failure("printed more than the output cap", EvalFault::harness);
    // A harness may exit nonzero after printing its report (1 when a scenario fails, say): the
    // report is kept, and the exit is never a success. Without a report it failed by itself.
    const bool exited_nonzero = r.exit_code != 0;

    EvalReport report;
    std::string parse_error;
    if (!parse(r.stdout_text, report, parse_error))
      return failure(exited_nonzero ? r.describe() + " and printed no EvalReport JSON on stdout (" + parse_error + ")"
                                    : "printed no EvalReport JSON on stdout (" + parse_error + ")",
                     EvalFault::harness);
    if (exited_nonzero) {
      std::string note = "evaluator command \"" + config_.command.front() + "\" " + r.describe() +
                         " after printing its report (kept)";
      if (!r.stderr_text.empty()) note += "; stderr: " + detail::tail_lines(r.stderr_text, 2000);
      report.error = report.error.empty() ? note : report.error + "; " + note;
    }
    if (!config_.expected.empty() && report.expected != config_.expected)
      return failure(scenario_list_mismatch(report.expected), EvalFault::harness);
    report.candidate = judged;
    if (!baseline_hash_.empty() && judged.content_hash == baseline_hash_) report.identical_to_baseline = true;
    if (report.timings.total_s <= 0) report.timings.total_s = seconds;
    return report;
  }

  const CommandEvaluatorConfig& config() const noexcept { return config_; }

 private:
  std::string command_text() const { return json(config_.command).dump(); }

  /// The files the command names (outside the workspace) and their folders' other files.
  void find_judge() {
    namespace fs = std::filesystem;
    std::error_code ec;
    const fs::path base = config_.working_dir.empty() ? fs::current_path() : config_.working_dir;
    const fs::path ws = config_.workspace.empty() ? fs::path() : fs::weakly_canonical(config_.workspace, ec);
    auto in_workspace = [&](const fs::path& p) {
      if (ws.empty()) return false;
      const auto rel = p.lexically_relative(ws);
      return !rel.empty() && rel.native().rfind("..", 0) != 0;
    };
    auto add_file = [&](const fs::path& f) {
      if (std::find(judge_files_.begin(), judge_files_.end(), f) == judge_files_.end()) judge_files_.push_back(f);
    };
    if (config_.judge_from_command) {
      for (std::size_t i = 0; i < config_.command.size(); ++i) {
        const std::string& arg = config_.command[i];
        if (arg.find("{candidate}") != std::string::npos || arg.find("{snapshot}") != std::string::npos ||
            arg.find("{label}") != std::string::npos)
          continue;
        if (i == 0 && arg.find('/') == std::string::npos) continue;  // a program on PATH: the toolchain
        const fs::path given(arg);
        const fs::path full = fs::weakly_canonical(given.is_absolute() ? given : base / given, ec);
        if (ec || !fs::is_regular_file(full, ec) || in_workspace(full)) continue;
        add_file(full);
        for (const auto& e : fs::directory_iterator(full.parent_path(), ec))
          if (e.is_regular_file(ec)) add_file(fs::weakly_canonical(e.path(), ec));
      }
    }
    for (const auto& p : config_.judge) {
      const fs::path full = fs::weakly_canonical(p.is_absolute() ? p : base / p, ec);
      if (!fs::exists(full, ec))
        throw input_error(p.string(), {}, "CommandEvaluator: a judge path that does not exist");
      if (fs::is_directory(full, ec))
        judge_folders_.push_back(full);
      else
        add_file(full);
    }
    std::sort(judge_files_.begin(), judge_files_.end());
  }

  /// Which scenarios of the set the command's report left out or added.
  std::string scenario_list_mismatch(const std::vector<std::string>& reported) const {
    auto absent = [](const std::vector<std::string>& from, const std::vector<std::string>& in) {
      std::string out;
      for (const auto& id : from)
        if (std::find(in.begin(), in.end(), id) == in.end()) out += (out.empty() ? "" : ", ") + id;
      return out;
    };
    std::string out = "reported scenarios that differ from the scenario set's (" +
                      std::to_string(reported.size()) + " reported, " + std::to_string(config_.expected.size()) +
                      " expected)";
    if (const std::string missing = absent(config_.expected, reported); !missing.empty())
      out += "; missing: " + missing + " (does the judge read every scenario of the set, with the fields it "
             "needs, of the types it needs?)";
    if (const std::string extra = absent(reported, config_.expected); !extra.empty())
      out += "; not in the set: " + extra;
    if (out.find("missing") == std::string::npos && out.find("not in the set") == std::string::npos)
      out += "; the same ids in another order";
    return out;
  }

  static void replace(std::string& text, const std::string& from, const std::string& to) {
    for (std::size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
      text.replace(at, from.size(), to);
  }

  /// The whole of stdout, or else its last non-empty line, as an EvalReport.
  static bool parse(const std::string& out, EvalReport& report, std::string& why) {
    auto attempt = [&](const std::string& text) {
      try {
        report = json::parse(text).get<EvalReport>();
        return true;
      } catch (const std::exception& e) {
        why = e.what();
        return false;
      }
    };
    if (out.find_first_not_of(" \t\r\n") == std::string::npos) {
      why = "stdout was empty";
      return false;
    }
    if (attempt(out)) return true;
    const std::string first_error = why;
    std::size_t end = out.find_last_not_of(" \t\r\n");
    const std::size_t start = out.rfind('\n', end);
    const std::string last = out.substr(start == std::string::npos ? 0 : start + 1,
                                        end - (start == std::string::npos ? 0 : start + 1) + 1);
    if (last.size() < out.size() && attempt(last)) return true;
    why = first_error;
    return false;
  }

  CommandEvaluatorConfig config_;
  std::string baseline_hash_;
  std::vector<std::filesystem::path> judge_files_, judge_folders_;
  IntegrityManifest manifest_;
  std::vector<std::string> uncovered_;  ///< judge files a loaded manifest does not cover
};

static_assert(Evaluator<CommandEvaluator>, "CommandEvaluator must satisfy the Evaluator concept");

}  // namespace socratic
