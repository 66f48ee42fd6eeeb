// socratic report TRACE.jsonl -o report.html: one self-contained HTML report of a campaign.
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "args.hpp"
#include "command.hpp"
#include "socratic/report/html_report.hpp"

namespace {

using namespace socratic;
using namespace socratic::tool;

constexpr const char* report_usage =
    "Usage: socratic report TRACE.jsonl -o REPORT.html [--title TEXT]\n\n"
    "Writes one self-contained HTML file (inline SVG and data, nothing fetched): best speedup over\n"
    "evaluations with each question marked with its trigger, a per-scenario heatmap of the best and\n"
    "the last candidate, the questions and what followed them, and the budgets spent.\n";

int report_command(const std::vector<std::string>& raw) {
  std::vector<std::string> args;
  for (const auto& a : raw) args.push_back(a == "-o" ? "--output" : a);
  parsed_args a(args, {"--help"}, {"--output", "--title"});
  if (a.flag("--help")) {
    std::cout << report_usage;
    return exit_ok;
  }
  if (a.positionals().size() != 1) throw usage_error("expected one trace file");
  const std::filesystem::path trace = a.positionals()[0];
  const std::filesystem::path out = a.required("--output");
  HtmlReportOptions options;
  options.title = a.value_or("--title", "");
  write_html_report(trace, out, options);
  std::cout << std::filesystem::absolute(out).string() << "\n";
  return exit_ok;
}

const command_registration report_registration("report",
                                               "write a campaign's HTML report from its trace",
                                               report_command);

}  // namespace
