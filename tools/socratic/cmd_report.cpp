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

namespace fs = std::filesystem;

/// The trace a path names: the file itself, or the trace inside a campaign folder (a state folder,
/// a workspace made by `socratic init`, a demo's output folder).
fs::path trace_in(const fs::path& given) {
  if (!fs::exists(given)) throw input_error(given.string(), {}, "no such file or folder");
  if (!fs::is_directory(given)) return given;
  for (const fs::path& inside : {given / "trace.jsonl", given / ".socratic" / "trace.jsonl", given / "state" / "trace.jsonl"})
    if (fs::is_regular_file(inside)) return inside;
  throw input_error(given.string(), {},
                    "is a folder without a campaign trace (looked for trace.jsonl, .socratic/trace.jsonl and "
                    "state/trace.jsonl in it); name the trace file");
}

int report_command(const ReportCommandOptions& o) {
  const fs::path trace = trace_in(o.trace);
  fs::path out = o.output;
  if (fs::is_directory(out)) throw usage_error("--output " + out.string() + " is a folder; name the HTML file to write");
  HtmlReportOptions options;
  options.title = o.title;
  write_html_report(trace, out, options);
  std::cout << fs::absolute(out).string() << "\n";
  return exit_ok;
}

command_run report_setup(CLI::App& app) {
  auto o = std::make_shared<ReportCommandOptions>();
  app.footer(
      "Writes one self-contained HTML file (inline SVG and data, nothing fetched): best speedup over\n"
      "evaluations with each question marked with its trigger, a per-scenario heatmap of the best and\n"
      "the last candidate, the questions and what followed them, and the budgets spent.\n");
  app.add_option("TRACE", o->trace, "the campaign trace, or a folder holding it (a workspace, a state folder)")
      ->type_name("")
      ->required();
  add_output_option(app, o->output, "the HTML file to write")->required();
  app.add_option("--title", o->title, "the report's title (default: Socratic campaign ID)")->type_name("TEXT");
  return [o] { return report_command(*o); };
}

const command_registration report_registration("report", "write a campaign's HTML report from its trace",
                                               "Campaigns", report_setup);

}  // namespace
