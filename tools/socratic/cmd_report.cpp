// socratic report TRACE.jsonl -o report.html: one self-contained HTML report of a campaign.
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>

#include "command.hpp"
#include "socratic/report/html_report.hpp"

namespace {

using namespace socratic;
using namespace socratic::tool;

struct ReportCommandOptions {
  std::string trace, output, title;
};

int report_command(const ReportCommandOptions& o) {
  HtmlReportOptions options;
  options.title = o.title;
  write_html_report(o.trace, o.output, options);
  std::cout << std::filesystem::absolute(o.output).string() << "\n";
  return exit_ok;
}

command_run report_setup(CLI::App& app) {
  auto o = std::make_shared<ReportCommandOptions>();
  app.footer(
      "Writes one self-contained HTML file (inline SVG and data, nothing fetched): best speedup over\n"
      "evaluations with each question marked with its trigger, a per-scenario heatmap of the best and\n"
      "the last candidate, the questions and what followed them, and the budgets spent.\n");
  app.add_option("TRACE", o->trace, "the campaign trace (STATE/trace.jsonl)")->type_name("")->required();
  add_output_option(app, o->output, "the HTML file to write")->required();
  app.add_option("--title", o->title, "the report's title (default: Socratic campaign ID)")->type_name("TEXT");
  return [o] { return report_command(*o); };
}

const command_registration report_registration("report", "write a campaign's HTML report from its trace",
                                               "Campaigns", report_setup);

}  // namespace
