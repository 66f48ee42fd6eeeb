#pragma once
/// @file
/// @brief CommandEvaluator: an Evaluator that runs a user-given command and reads an EvalReport
/// JSON (docs/report-schema.md) from its stdout. It plugs in a user's own harness, and lets
/// tests without a GPU use a script as the evaluator. Heavy (run_process).

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
#include "socratic/detail/sha256.hpp"
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
/// happened; `evaluate` never throws.
class CommandEvaluator {
 public:
  explicit CommandEvaluator(CommandEvaluatorConfig config) : config_(std::move(config)) {
    if (config_.command.empty()) throw error("CommandEvaluator: empty command");
    if (config_.baseline) baseline_hash_ = detail::sha256_file(*config_.baseline);
  }

  EvalReport evaluate(const Candidate& candidate) {
    using clock = std::chrono::steady_clock;
    const auto began = clock::now();
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

    auto failure = [&](std::string why) {
      EvalReport report;
      report.candidate = judged;
      report.expected = config_.expected;
      report.error = "evaluator command \"" + config_.command.front() + "\" " + why;
      if (!r.stderr_text.empty()) report.error += "; stderr: " + detail::tail_lines(r.stderr_text, 2000);
      report.timings.total_s = seconds;
      return report;
    };
    if (!r.ok()) return failure(r.describe());
    if (r.stdout_truncated) return failure("printed more than the output cap");

    EvalReport report;
    std::string parse_error;
    if (!parse(r.stdout_text, report, parse_error))
      return failure("printed no EvalReport JSON on stdout (" + parse_error + ")");
    if (!config_.expected.empty() && report.expected != config_.expected)
      return failure("reported scenarios that differ from the expected list");
    report.candidate = judged;
    if (!baseline_hash_.empty() && judged.content_hash == baseline_hash_) report.identical_to_baseline = true;
    if (report.timings.total_s <= 0) report.timings.total_s = seconds;
    return report;
  }

  const CommandEvaluatorConfig& config() const noexcept { return config_; }

 private:
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
};

static_assert(Evaluator<CommandEvaluator>, "CommandEvaluator must satisfy the Evaluator concept");

}  // namespace socratic
