// socratic bank lint [DIR]: validates a question bank and prints its counts.
// socratic bank credit --table FILE TRACE...: credits the questions of recorded campaigns.
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "args.hpp"
#include "command.hpp"
#include "data_dir.hpp"
#include "socratic/campaign/trace.hpp"
#include "socratic/campaign/trace_state.hpp"
#include "socratic/questions/credit.hpp"
#include "socratic/questions/lint.hpp"

namespace {

using namespace socratic;
using namespace socratic::tool;

constexpr const char* bank_usage =
    "Usage: socratic bank lint [DIR] [--json] [--targets]\n"
    "       socratic bank credit --table FILE [--window N] TRACE.jsonl...\n\n"
    "lint    validates every file of the bank (default: the project's question_bank/): fields,\n"
    "        duplicate ids, near-duplicate texts, question shape; prints counts per group,\n"
    "        trigger and architecture. --targets also checks the shipped bank's content targets.\n"
    "        Exit 0 when clean, 1 on any error, 2 when DIR cannot be read.\n"
    "credit  replays recorded campaigns and adds, per question, how often it was asked and how\n"
    "        often a gain beyond noise followed within N evaluations (default 3) to the credit\n"
    "        table FILE (created when absent), used by `socratic ask --credits FILE`.\n";

std::string join_counts(const std::map<std::string, std::size_t>& m) {
  std::string out;
  for (const auto& [k, v] : m) out += (out.empty() ? "" : ", ") + k + " " + std::to_string(v);
  return out.empty() ? "-" : out;
}

int lint(const std::vector<std::string>& args) {
  parsed_args a(args, {"--json", "--targets", "--help"}, {});
  if (a.flag("--help")) {
    std::cout << bank_usage;
    return exit_ok;
  }
  if (a.positionals().size() > 1) throw usage_error("bank lint takes at most one folder");
  const std::filesystem::path dir =
      a.positionals().empty() ? data_dir() / "question_bank" : std::filesystem::path(a.positionals()[0]);
  LintOptions options;
  if (a.flag("--targets")) options.targets = BankTargets{};
  BankReadResult read;
  try {
    read = read_bank(dir);
  } catch (const input_error& e) {
    std::cerr << "socratic bank lint: " << e.what() << "\n";
    return exit_error;
  }
  const LintReport report = lint_bank(read, options);
  if (a.flag("--json")) {
    json issues = json::array();
    for (const auto& i : report.issues)
      issues.push_back({{"severity", i.is_error() ? "error" : "warning"}, {"file", i.file}, {"where", i.where},
                        {"field", i.field}, {"message", i.message}});
    std::cout << json{{"dir", dir.string()},
                      {"files", read.bank.files.size()},
                      {"ok", report.errors() == 0},
                      {"errors", report.errors()},
                      {"warnings", report.warnings()},
                      {"issues", issues},
                      {"counts", report.counts}}
                     .dump(2)
              << "\n";
  } else {
    for (const auto& i : report.issues) std::cout << (i.is_error() ? "error: " : "warning: ") << i.describe() << "\n";
    const auto& c = report.counts;
    std::cout << "question bank " << dir.string() << ": " << read.bank.files.size() << " files, " << c.entries
              << " entries, " << report.errors() << " errors, " << report.warnings() << " warnings\n"
              << "  groups (" << c.by_group.size() << "): " << join_counts(c.by_group) << "\n"
              << "  triggers: " << join_counts(c.by_trigger) << "\n"
              << "  architectures (" << c.arch_specific << " arch-specific): " << join_counts(c.by_arch) << "\n"
              << "  requires_reference: " << c.requires_reference << "\n"
              << "  evidence: " << join_counts(c.by_evidence) << "\n";
  }
  return report.errors() ? exit_findings : exit_ok;
}

int credit(const std::vector<std::string>& args) {
  parsed_args a(args, {"--help"}, {"--table", "--window"});
  if (a.flag("--help")) {
    std::cout << bank_usage;
    return exit_ok;
  }
  const std::filesystem::path table_path = a.required("--table");
  if (a.positionals().empty()) throw usage_error("bank credit needs at least one trace");
  CreditTable table;
  if (std::filesystem::exists(table_path)) table = CreditTable::load(table_path);
  if (auto w = a.value("--window")) {
    int window = 0;
    try {
      window = std::stoi(*w);
    } catch (const std::exception&) {
    }
    if (window < 1) throw usage_error("--window needs a whole number of evaluations, at least 1, got \"" + *w + "\"");
    if (!table.questions.empty() && window != table.rule.window_evaluations)
      throw usage_error("--window " + *w + " differs from the table's rule (" +
                        std::to_string(table.rule.window_evaluations) + "); start a new table");
    table.rule.window_evaluations = window;
  }
  for (const auto& trace_path : a.positionals()) {
    const TraceContents trace = read_trace(trace_path);
    if (trace.truncated_tail) std::cerr << "warning: " << trace_path << ": the last line was cut short and is skipped\n";
    CampaignState state;
    try {
      state = summarize_trace(trace.events).state;
    } catch (const input_error& e) {
      throw input_error(trace_path, e.where(), e.message());
    }
    const auto outcomes = credit_questions(state, table.rule);
    int credited = 0;
    for (const auto& o : outcomes) credited += o.credited;
    const bool added = table.add_campaign(state);
    std::cout << trace_path << ": campaign \"" << state.campaign_id << "\": " << outcomes.size()
              << " questions, " << credited << " credited" << (added ? "" : " (already counted, skipped)") << "\n";
    if (added)
      for (const auto& o : outcomes)
        std::cout << "  " << o.question_id << " after evaluation " << o.after_evaluation << ": "
                  << (o.credited ? "credited by evaluation " + std::to_string(o.credited_by) : std::string("no gain"))
                  << "\n";
  }
  table.save(table_path);
  std::cout << "credit table " << table_path.string() << ": " << table.questions.size() << " questions, "
            << table.campaigns.size() << " campaigns\n";
  return exit_ok;
}

int bank_command(const std::vector<std::string>& args) {
  if (args.empty() || args[0] == "--help" || args[0] == "-h") {
    std::cout << bank_usage;
    return args.empty() ? exit_error : exit_ok;
  }
  const std::vector<std::string> rest(args.begin() + 1, args.end());
  if (args[0] == "lint") return lint(rest);
  if (args[0] == "credit") return credit(rest);
  throw usage_error("unknown bank subcommand \"" + args[0] + "\" (lint, credit)");
}

const command_registration bank_registration{
    "bank", "validate the question bank (lint), credit questions from traces", bank_command};

}  // namespace
