// socratic report TRACE.jsonl -o report.html: one self-contained HTML report of a campaign.
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <string>

#include "command.hpp"
#include "problems.hpp"
#include "report_setup.hpp"
#include "socratic/report/html_report.hpp"

namespace {

using namespace socratic;
using namespace socratic::tool;

struct ReportCommandOptions {
  std::string trace, output, title, scenarios, anchors, anchor_id, campaign, store;
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

/// The campaign file of a folder given as the trace (a workspace holds campaign.json).
std::optional<CampaignFile> campaign_of(const ReportCommandOptions& o) {
  if (!o.campaign.empty()) return load_campaign_file(o.campaign);
  if (fs::is_directory(o.trace) && fs::is_regular_file(fs::path(o.trace) / "campaign.json"))
    return load_campaign_file(fs::path(o.trace) / "campaign.json");
  return std::nullopt;
}

/// The candidate store beside a trace (a parallel campaign keeps it in its state folder).
std::optional<fs::path> store_beside(const fs::path& trace) {
  for (const fs::path& f : {trace.parent_path() / "store" / "store.jsonl", trace.parent_path() / "store.jsonl"})
    if (fs::is_regular_file(f)) return f;
  return std::nullopt;
}

int report_command(const ReportCommandOptions& o) {
  const fs::path trace = trace_in(o.trace);
  fs::path out = o.output;
  if (fs::is_directory(out)) throw usage_error("--output " + out.string() + " is a folder; name the HTML file to write");
  HtmlReportOptions options;
  options.title = o.title;
  if (!o.scenarios.empty()) options.scenarios = load_scenario_set(resolve_scenario_set(o.scenarios));
  if (!o.anchors.empty()) options.anchors = AnchorTable::load(o.anchors, o.anchor_id);
  else if (!o.anchor_id.empty()) throw usage_error("--anchor-id needs --anchors FILE");
  const TraceContents contents = read_trace(trace);
  complete_report_options(options, contents.events, campaign_of(o));
  fs::path store = o.store;
  if (!store.empty() && fs::is_directory(store)) store /= "store.jsonl";
  if (!store.empty() && !fs::is_regular_file(store)) throw input_error(store.string(), {}, "no such store file");
  if (store.empty()) store = store_beside(trace).value_or(fs::path());
  if (!store.empty()) options.lineage = read_store_lineage(store);
  write_html_report(trace, out, options);
  std::cout << fs::absolute(out).string() << "\n";
  return exit_ok;
}

command_run report_setup(CLI::App& app) {
  auto o = std::make_shared<ReportCommandOptions>();
  app.footer(
      "Writes one self-contained HTML file (inline SVG and data, nothing fetched): the outcome; the\n"
      "speedup over evaluations with its noise, the best beyond noise, the goal, the questions, the\n"
      "stops and the failures; the best evaluation scenario by scenario (parameters, times, noise,\n"
      "TFLOP/s, roofline fraction, anchors such as cuDNN and FlashAttention-2 when known); a\n"
      "scenario-by-evaluation matrix; the questions and what followed them, credited by the rule of\n"
      "`socratic bank credit`; the budgets spent. A campaign of several agents (an `agents` section)\n"
      "adds, from its candidate store, the lineage tree (who made what from what, after which question,\n"
      "the gate's verdict, drafts marked) and the incumbent's history.\n");
  app.add_option("TRACE", o->trace, "the campaign trace, or a folder holding it (a workspace, a state folder)")
      ->type_name("")
      ->required();
  add_output_option(app, o->output, "the HTML file to write")->required();
  app.add_option("--title", o->title, "the report's title (default: Socratic campaign ID)")->type_name("TEXT");
  app.add_option("--campaign", o->campaign, "the campaign file (default: DIR/campaign.json of a workspace)")
      ->type_name("FILE");
  app.add_option("-s,--scenarios", o->scenarios, "the scenario set, for its parameters (default: the campaign's, or "
                                               "the data folder's set of the reported name)")
      ->type_name("SET");
  app.add_option("--anchors", o->anchors, "best known TFLOP/s per scenario (default: the campaign's, or "
                                        "scenarios/anchors/SET.json)")
      ->type_name("FILE");
  app.add_option("--store", o->store, "the candidate store (default: store/store.jsonl beside the trace)")
      ->type_name("FILE");
  app.add_option("--anchor-id", o->anchor_id, "id template for row-shaped anchor files")->type_name("TEMPLATE");
  return [o] { return report_command(*o); };
}

const command_registration report_registration("report", "write a campaign's HTML report from its trace",
                                               "Campaigns", report_setup);

}  // namespace
