// socratic suite SUITE.json: a campaign over a suite of problems (docs/suite-campaign.md). The
// suite's agents are assigned to problems round by round (a fixed share or the planner), each
// problem runs its own campaign (its own state, trace and store, left open between rounds) with
// the agents it was given, one executor serves them all; progress one line per problem; the last
// lines say why the suite ended; the suite report (HTML, JSON, Markdown) and each problem's own
// report are written at the end (or alone with --report).
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "command.hpp"
#include "llm_drivers.hpp"
#include "report_setup.hpp"
#include "suite_file.hpp"
#include "socratic/report/lineage.hpp"
#include "socratic/suite_campaign/suite_report.hpp"
#include "socratic/suite_campaign/suite_runner.hpp"

namespace {

using namespace socratic;
using namespace socratic::tool;
namespace fs = std::filesystem;

/// The standing of one problem, from its own trace and store.
ProblemStanding suite_standing_of(const SuiteProblemEntry& p) {
  const CampaignFile& c = p.campaign;
  return read_standing(p.name, c.trace_path(), c.state_dir / "store", [&c](const EvalReport& r) { return Verdict(c.goal(r)); });
}

std::string suite_times(double v) { return std::isfinite(v) ? socratic::detail::report::num(v, "%.3f") + "x" : std::string("n/a"); }

/// One line per problem: on a terminal rewritten in place, else a plain `[NAME] ...` line when
/// it changes.
class SuiteProgress {
 public:
  explicit SuiteProgress(const SuiteFile& s) : tty_(::isatty(2) != 0) {
    for (const auto& p : s.problems) {
      names_.push_back(p.name);
      width_ = std::max(width_, p.name.size());
    }
  }

  void standings(const SuiteState& state, const std::vector<ProblemStanding>& st, SuiteEventType event) {
    std::lock_guard lock(mutex_);
    for (const auto& s : st) {
      std::string agents;
      for (const auto& [agent, problem] : state.assignment)
        if (problem == s.name && state.in_progress) agents += (agents.empty() ? "" : ",") + agent;
      std::string line = "round " + std::to_string(state.round) + " | " + (agents.empty() ? "no agents" : "agents " + agents) + " | " +
                         std::to_string(s.records) + " proposals | ";
      line += s.incumbent ? "incumbent " + s.incumbent->id +
                                (s.incumbent_check && s.incumbent_check->score() == s.incumbent_check->score()
                                     ? " " + suite_times(s.incumbent_check->score())
                                     : std::string())
                          : std::string("incumbent none");
      line += " | " + std::string(s.goal_met ? "goal met" : s.finished && s.end_reason ? "ended " + std::string(to_string(*s.end_reason))
                                                                                      : event == SuiteEventType::round_planned && !agents.empty() ? "working" : "open");
      lines_[s.name] = line;
    }
    draw_locked({});
  }

  void agent(const std::string& problem, const AgentProgress& p) {
    std::lock_guard lock(mutex_);
    std::string what;
    if (p.event == AgentStep::turn_started) what = p.agent + " working (proposal " + std::to_string(p.proposals + 1) + ")";
    else if (p.event == AgentStep::gated) what = p.agent + " " + p.record + " " + std::string(p.verdict ? to_string(*p.verdict) : "?");
    else if (p.event == AgentStep::done) what = p.agent + " done" + (p.detail.empty() ? "" : ": " + p.detail);
    else return;
    std::string& line = lines_[problem];
    const auto cut = line.find(" | last: ");
    if (cut != std::string::npos) line.resize(cut);
    line += " | last: " + what;
    draw_locked(problem);
  }

 private:
  void draw_locked(const std::string& only) {
    if (!tty_) {
      for (const auto& n : names_)
        if (only.empty() || n == only) std::fprintf(stderr, "[%s] %s\n", n.c_str(), lines_[n].c_str());
    } else {
      if (drawn_) std::fprintf(stderr, "\033[%zuA", names_.size());
      for (const auto& n : names_) {
        std::string l = lines_[n];
        if (l.size() > 120) l = l.substr(0, 117) + "...";
        std::fprintf(stderr, "\r\033[K%-*s  %s\n", static_cast<int>(width_), n.c_str(), l.c_str());
      }
      drawn_ = true;
    }
    std::fflush(stderr);
  }

  std::vector<std::string> names_;
  std::map<std::string, std::string> lines_;
  std::size_t width_ = 0;
  bool tty_;
  bool drawn_ = false;
  std::mutex mutex_;
};

/// Writes the suite report (suite-report.html, .json, .md) and each problem's own report
/// (problems/NAME.html) into `out`; returns the HTML's path.
fs::path write_suite_reports(const SuiteFile& s, const fs::path& out) {
  fs::create_directories(out / "problems");
  SuiteReportModel m;
  m.title = s.title;
  const fs::path state_file = s.state_dir / "suite.json";
  if (fs::exists(state_file)) {
    const SuiteState st = read_json_file(state_file).get<SuiteState>();
    m.rounds = st.round;
    if (st.ended) m.end_reason = std::string(to_string(*st.ended)), m.end_detail = st.end_detail;
  }
  for (const auto& e : read_suite_trace(s.state_dir)) {
    const std::optional<SuiteEventType> type = parse_suite_event_type(e.value("type", ""));
    if (type == SuiteEventType::agent_moved) m.moves.push_back(e);
    // The last run paused when the last round's end is followed by its pause.
    if (type == SuiteEventType::round_planned) m.paused.clear();
    if (type == SuiteEventType::suite_paused && m.end_reason.empty())
      m.paused = e.value("reason", "") + " (" + e.value("detail", "") + ")";
  }
  for (const auto& p : s.problems) {
    const ProblemStanding standing = suite_standing_of(p);
    std::string link;
    if (fs::exists(p.campaign.trace_path())) {
      const TraceContents contents = read_trace(p.campaign.trace_path());
      HtmlReportOptions options;
      options.title = "Socratic campaign " + p.name + " (suite " + s.title + ")";
      complete_report_options(options, contents.events, p.campaign);
      const fs::path store = p.campaign.state_dir / "store" / "store.jsonl";
      if (fs::exists(store)) options.lineage = read_store_lineage(store);
      write_file_atomically(out / "problems" / (p.name + ".html"), html_report(contents.events, options));
      link = "problems/" + p.name + ".html";
    }
    m.rows.push_back(suite_row(standing, link, p.score));
  }
  complete_suite_model(m);
  write_json_atomically(out / "suite-report.json", suite_report_json(m));
  write_file_atomically(out / "suite-report.md", suite_report_markdown(m));
  write_file_atomically(out / "suite-report.html", suite_report_html(m));
  return out / "suite-report.html";
}

int suite_command(const std::string& file, const std::string& output, bool report_only) {
  const SuiteFile s = load_suite_file(file);
  for (const auto& p : s.problems) (void)campaign_scenario_ids(p.campaign);  // a bad set is said before anything runs
  const fs::path out = output.empty() ? s.state_dir / "report" : fs::absolute(output);
  if (report_only) {
    std::cout << "suite report: " << write_suite_reports(s, out).string() << "\n";
    return exit_ok;
  }

  SuiteConfig config;
  config.state_dir = s.state_dir;
  for (const auto& a : s.agents.agents) config.agents.push_back(a.id);
  for (const auto& p : s.problems) config.problems.push_back(p.name);
  config.policy = s.policy;
  config.proposals_per_round = s.proposals_per_round;
  config.budget = s.budget;
  std::map<std::string, const SuiteProblemEntry*> by_name;
  for (const auto& p : s.problems) by_name[p.name] = &p;

  auto progress = std::make_shared<SuiteProgress>(s);
  // In-process evaluations of different problems one at a time too (timings would disturb each
  // other); an executor schedules its own jobs.
  auto one_at_a_time = !s.executor.kind ? std::make_shared<std::mutex>() : nullptr;
  std::cerr << "socratic suite: " << s.problems.size() << " problems, " << s.agents.agents.size() << " agents, policy "
            << to_string(s.policy.kind) << ", " << s.proposals_per_round << " proposals per agent per round; state "
            << s.state_dir.string() << "\n";
  SuiteRunner runner(
      config, [&](const std::string& name) { return suite_standing_of(*by_name.at(name)); },
      [&](const SuiteRoundWork& w) {
        const SuiteProblemEntry& p = *by_name.at(w.problem);
        const CampaignFile c = round_view(p, s.agents, w.agents);
        SuiteProblemRound round;
        round.targets = w.targets;
        round.evaluations = one_at_a_time;
        round.on_progress = [progress, name = p.name](const AgentProgress& a) { progress->agent(name, a); };
        const ParallelResult r = run_suite_problem_round(c, s.file.string() + " (problem " + p.name + ")", round);
        SuiteRoundOutcome o;
        o.reason = r.reason;
        o.left_open = r.left_open;
        o.detail = r.detail;
        return o;
      },
      [progress](SuiteEventType event, const SuiteState& state, const std::vector<ProblemStanding>& st) {
        progress->standings(state, st, event);
      });
  const SuiteResult r = runner.run();
  int met = 0, records = 0;
  for (const auto& st : r.standings) met += st.goal_met ? 1 : 0, records += st.records;
  std::cout << (r.paused ? "suite paused: " : "suite ended: ") << to_string(r.reason) << (r.detail.empty() ? "" : " (" + r.detail + ")") << "; " << met
            << " of " << r.standings.size() << " problems met their goal; " << records << " proposals in the stores; "
            << r.rounds << " rounds (" << r.rounds_now << " in this run)" << (r.already_ended ? "; it had ended before" : "")
            << "\n";
  if (r.paused) std::cout << "not the suite's end: resume with the same command once the inbox is filled\n";
  for (const auto& st : r.standings)
    std::cout << "  " << st.name << ": " << (st.goal_met ? "goal met" : st.finished && st.end_reason ? std::string(to_string(*st.end_reason)) : "open")
              << ", " << st.records << " proposals, best "
              << (st.incumbent ? st.incumbent->id + (st.incumbent_check ? " " + suite_times(st.incumbent_check->score()) : "") : "none")
              << "\n";
  std::cout << "suite trace: " << (s.state_dir / "suite_trace.jsonl").string() << "\n";
  std::cout << "suite report: " << write_suite_reports(s, out).string() << "\n";
  return r.reason == SuiteEndReason::goal_met ? exit_ok : exit_findings;
}

command_run suite_setup(CLI::App& app) {
  auto file = std::make_shared<std::string>();
  auto output = std::make_shared<std::string>();
  auto report_only = std::make_shared<bool>(false);
  app.footer(
      "Runs a campaign over a suite of problems (docs/suite-campaign.md): the suite file lists the\n"
      "problems (campaign files, inline campaign fields over `defaults`, or a `problems_dir`), the\n"
      "shared agents (an `agents` section: llm, claude-code, codex, replay, inbox), the policy (`fixed` or\n"
      "`planner`, which moves agents to the problems furthest from their goal and away from plateaus,\n"
      "each move logged with its reason in STATE/suite_trace.jsonl), the budgets per problem and for\n"
      "the suite, and one executor for all. Each problem keeps its own campaign state, trace and store;\n"
      "killed at any point, the suite resumes when run again and counts nothing twice. One progress\n"
      "line per problem; the last lines say why the suite ended. The suite report (suite-report.html,\n"
      ".json, .md) and each problem's own report go to STATE/report/ (or -o DIR).\n"
      "Exit: 0 when every problem's goal holds, 1 when the suite ended otherwise or paused (an inbox\n"
      "agent waits for its answer: run it again once its inbox is filled), 2 on an error.\n");
  app.add_option("SUITE", *file, "the suite file")->type_name("")->required();
  app.add_option("-o,--output", *output, "the report's folder (default: STATE/report)")->type_name("DIR");
  app.add_flag("--report", *report_only, "write the report only (the suite as it stands), run nothing");
  return [file, output, report_only] { return suite_command(*file, *output, *report_only); };
}

const command_registration suite_registration("suite", "run a campaign over a suite of problems", "Campaigns", suite_setup);

}  // namespace
