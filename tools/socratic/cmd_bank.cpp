// socratic bank lint [DIR]: validates a question bank and prints its counts.
// socratic bank credit --table FILE TRACE...: credits the questions of recorded campaigns.
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "command.hpp"
#include "data_dir.hpp"
#include "socratic/record/trace.hpp"
#include "socratic/record/trace_state.hpp"
#include "socratic/questions/credit.hpp"
#include "socratic/questions/lint.hpp"

namespace {

using namespace socratic;
using namespace socratic::tool;

struct BankLintOptions {
  std::string dir;
  bool json = false, targets = false;
};
struct BankCreditOptions {
  std::string table, window;
  std::vector<std::string> traces;
};

std::string join_counts(const std::map<std::string, std::size_t>& m) {
  std::string out;
  for (const auto& [k, v] : m) out += (out.empty() ? "" : ", ") + k + " " + std::to_string(v);
  return out.empty() ? "-" : out;
}

int lint(const BankLintOptions& o) {
  const std::filesystem::path dir = o.dir.empty() ? data_dir() / "question_bank" : std::filesystem::path(o.dir);
  LintOptions options;
  if (o.targets) options.targets = BankTargets{};
  BankReadResult read;
  try {
    read = read_bank(dir);
  } catch (const input_error& e) {
    std::cerr << "socratic bank lint: " << e.what() << "\n";
    return exit_error;
  }
  const LintReport report = lint_bank(read, options);
  if (o.json) {
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
              << "  problem kinds: " << join_counts(c.by_kind) << " (for any problem, by trigger: "
              << join_counts(c.any_problem_by_trigger) << ")\n"
              << "  requires_reference: " << c.requires_reference << "\n"
              << "  evidence: " << join_counts(c.by_evidence) << "\n";
  }
  return report.errors() ? exit_findings : exit_ok;
}

int credit(const BankCreditOptions& o) {
  const std::filesystem::path table_path = o.table;
  if (o.traces.empty()) throw usage_error("bank credit needs at least one trace");
  CreditTable table;
  if (std::filesystem::exists(table_path)) table = CreditTable::load(table_path);
  if (!o.window.empty()) {
    const int window = static_cast<int>(parse_whole_number("--window", o.window, 1));
    if (!table.questions.empty() && window != table.rule.window_evaluations)
      throw usage_error("--window " + o.window + " differs from the table's rule (" +
                        std::to_string(table.rule.window_evaluations) + "); start a new table");
    table.rule.window_evaluations = window;
  }
  for (const auto& trace_path : o.traces) {
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
        std::cout << "  " << o.question_id << " after evaluation " << o.after_evaluation
                  << (o.agent.empty() ? std::string() : " (asked of " + o.agent + ")") << ": "
                  << (o.credited ? "credited by evaluation " + std::to_string(o.credited_by) : std::string("no gain"))
                  << (o.shared() ? " (shared by " + std::to_string(o.shared_by) + " questions)" : std::string())
                  << "\n";
  }
  table.save(table_path);
  std::cout << "credit table " << table_path.string() << ": " << table.questions.size() << " questions, "
            << table.campaigns.size() << " campaigns\n";
  return exit_ok;
}

command_run bank_setup(CLI::App& app) {
  app.require_subcommand(1);
  auto lint_options = std::make_shared<BankLintOptions>();
  CLI::App* lint_app = app.add_subcommand("lint", "validate a question bank and print its counts");
  lint_app->footer(
      "Validates every file of the bank (default: the project's question_bank/): fields, duplicate ids,\n"
      "near-duplicate texts, question shape, problem kinds; prints counts per group, trigger and\n"
      "architecture. Exit: 0 when clean, 1 on any error, 2 when DIR cannot be read.\n");
  lint_app->add_option("DIR", lint_options->dir, "the bank's folder")->type_name("");
  add_json_flag(*lint_app, lint_options->json, "the issues and counts as JSON on stdout");
  lint_app->add_flag("--targets", lint_options->targets, "also check the shipped bank's content targets");

  auto credit_options = std::make_shared<BankCreditOptions>();
  CLI::App* credit_app = app.add_subcommand("credit", "credit the questions of recorded campaigns");
  credit_app->footer(
      "Replays recorded campaigns and adds, per question, how often it was asked and how often a gain\n"
      "beyond noise followed within N evaluations to the credit table FILE (created when absent), used\n"
      "by `socratic ask --credits FILE`.\n");
  credit_app->add_option("TRACE", credit_options->traces, "campaign traces (trace.jsonl)")->type_name("");
  credit_app->add_option("--table", credit_options->table, "the credit table, read and written")
      ->type_name("FILE")
      ->required();
  credit_app->add_option("--window", credit_options->window, "evaluations a gain may take to follow (default 3)")
      ->type_name("N");
  return [=] { return lint_app->parsed() ? lint(*lint_options) : credit(*credit_options); };
}

const command_registration bank_registration{
    "bank", "validate the question bank (lint), credit questions from traces", "Questions", bank_setup};

}  // namespace
