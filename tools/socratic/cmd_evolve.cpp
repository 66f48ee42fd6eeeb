// socratic evolve CAMPAIGN.json [--ablation]: an evolutionary search whose mutations are questions
// from the bank, on the candidate store and the gate (socratic/evolve/evolution.hpp,
// docs/evolution.md). Run again after a kill: finished slots are not redone.
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "command.hpp"
#include "data_dir.hpp"
#include "socratic/core/files.hpp"
#include "socratic/evolve/evolution.hpp"
#include "socratic/evolve/evolution_report.hpp"
#include "socratic/process/run_process.hpp"

namespace {

namespace fs = std::filesystem;
using namespace socratic;
using namespace socratic::evolve;

struct EvolveOptions {
  std::string campaign;
  std::string state;
  bool ablation = false;
};

/// The campaign file's parts, paths resolved against its folder.
struct EvolveCampaign {
  EvolutionConfig config;
  fs::path start, state, bank, bandit_file, credit;
  std::vector<std::string> measure_command;  // {candidate} {baseline} {seed}
  fs::path measure_baseline;
  std::chrono::milliseconds measure_timeout{std::chrono::minutes(30)};
  std::vector<std::string> agent_command;  // {workspace} {task}
  std::chrono::milliseconds agent_timeout{std::chrono::minutes(30)};
};

fs::path evolve_resolve(const fs::path& base, const std::string& p) {
  if (p.empty()) return {};
  const fs::path x(p);
  return x.is_absolute() ? x : base / x;
}

std::vector<std::string> evolve_command_of(const json& j, const std::string& file, const char* where) {
  const auto cmd = required<std::vector<std::string>>(j, "command", where);
  if (cmd.empty()) throw input_error(file, where, "field \"command\": empty");
  return cmd;
}

EvolveCampaign read_evolve_campaign(const fs::path& file) {
  const json j = read_json_file(file);
  const std::string f = file.string();
  const fs::path base = fs::absolute(file).parent_path();
  EvolveCampaign c;
  try {
    reject_unknown_fields(j, {"schema_version", "evolution", "measure", "agent", "bank", "state"}, f);
    c.bank = evolve_resolve(base, optional_field<std::string>(j, "bank", ""));
    c.state = evolve_resolve(base, optional_field<std::string>(j, "state", "state"));
    const json& e = j.contains("evolution") ? j["evolution"] : json::object();
    reject_unknown_fields(e, {"campaign_id", "start", "candidate_file", "problem_kinds", "arch", "has_reference",
                              "islands", "capacity", "generations", "children_per_island", "crossover_rate",
                              "inspirations", "migration_interval", "migrants", "seed", "max_evaluations",
                              "max_seconds", "operator", "near_duplicate", "bandit_file", "credit", "explore",
                              "parallel", "gate"},
                          f, "evolution");
    auto& k = c.config;
    k.campaign_id = optional_field<std::string>(e, "campaign_id", file.stem().string(), "evolution");
    c.start = evolve_resolve(base, required<std::string>(e, "start", "evolution"));
    k.candidate_file = optional_field<std::string>(e, "candidate_file", c.start.filename().string(), "evolution");
    k.problem_kinds = optional_field<std::vector<std::string>>(e, "problem_kinds", {}, "evolution");
    k.arch = optional_field<std::string>(e, "arch", "", "evolution");
    k.has_reference = optional_field<bool>(e, "has_reference", false, "evolution");
    k.population.islands = optional_field<int>(e, "islands", 4, "evolution");
    k.population.capacity = optional_field<int>(e, "capacity", 16, "evolution");
    k.population.migration_interval = optional_field<int>(e, "migration_interval", 2, "evolution");
    k.population.migrants = optional_field<int>(e, "migrants", 1, "evolution");
    k.generations = optional_field<int>(e, "generations", 4, "evolution");
    k.children_per_island = optional_field<int>(e, "children_per_island", 2, "evolution");
    k.crossover_rate = optional_field<double>(e, "crossover_rate", 0.2, "evolution");
    k.inspirations = optional_field<std::size_t>(e, "inspirations", 2, "evolution");
    k.seed = optional_field<std::uint64_t>(e, "seed", 1, "evolution");
    k.max_evaluations = optional_field<int>(e, "max_evaluations", 0, "evolution");
    k.max_seconds = optional_field<double>(e, "max_seconds", 0, "evolution");
    k.near_duplicate = optional_field<double>(e, "near_duplicate", 0.97, "evolution");
    k.parallel = optional_field<int>(e, "parallel", 1, "evolution");
    k.bandit.explore = optional_field<double>(e, "explore", 0.05, "evolution");
    const std::string op = optional_field<std::string>(e, "operator", "question", "evolution");
    if (op == "question") k.operator_kind = MutationKind::question;
    else if (op == "plain") k.operator_kind = MutationKind::plain;
    else throw input_error(f, "evolution", "field \"operator\": \"" + op + "\" is not question or plain");
    if (k.population.islands < 1 || k.population.capacity < 1 || k.children_per_island < 1 || k.generations < 0)
      throw input_error(f, "evolution", "islands, capacity and children_per_island must be >= 1, generations >= 0");
    if (e.contains("gate")) k.gate = e["gate"].get<GateConfig>();
    c.bandit_file = evolve_resolve(base, optional_field<std::string>(e, "bandit_file", "", "evolution"));
    c.credit = evolve_resolve(base, optional_field<std::string>(e, "credit", "", "evolution"));

    if (!j.contains("measure")) throw input_error(f, {}, "field \"measure\": missing (the pair evaluator's command)");
    const json& m = j["measure"];
    reject_unknown_fields(m, {"command", "baseline", "timeout_s"}, f, "measure");
    c.measure_command = evolve_command_of(m, f, "measure");
    for (auto& a : c.measure_command)
      if (a.find('{') == std::string::npos && fs::exists(base / a)) a = (base / a).string();
    c.measure_baseline = evolve_resolve(base, required<std::string>(m, "baseline", "measure"));
    c.measure_timeout = std::chrono::milliseconds(static_cast<long long>(1000 * optional_field<double>(m, "timeout_s", 1800, "measure")));

    if (!j.contains("agent")) throw input_error(f, {}, "field \"agent\": missing (the mutation agent's command)");
    const json& a = j["agent"];
    reject_unknown_fields(a, {"command", "timeout_s"}, f, "agent");
    c.agent_command = evolve_command_of(a, f, "agent");
    for (auto& x : c.agent_command)
      if (x.find('{') == std::string::npos && fs::exists(base / x)) x = (base / x).string();
    c.agent_timeout = std::chrono::milliseconds(static_cast<long long>(1000 * optional_field<double>(a, "timeout_s", 1800, "agent")));
  } catch (const input_error& e) {
    if (!e.file().empty()) throw;
    throw input_error(f, e.where(), e.message());
  }
  if (!fs::is_regular_file(c.start)) throw input_error(f, "evolution", "field \"start\": no file " + c.start.string());
  if (!fs::is_regular_file(c.measure_baseline))
    throw input_error(f, "measure", "field \"baseline\": no file " + c.measure_baseline.string());
  return c;
}

std::string evolve_substitute(std::string arg, const std::string& from, const std::string& to) {
  for (std::size_t p = arg.find(from); p != std::string::npos; p = arg.find(from, p + to.size())) arg.replace(p, from.size(), to);
  return arg;
}

/// The pair measurement: the measure command with the candidate and the run's baseline (the
/// incumbent, or the problem's baseline); its stdout's last line is an EvalReport.
PairMeasure evolve_command_measure(const EvolveCampaign& c) {
  return [c](const Candidate& cand, const std::optional<Candidate>& incumbent, const GateRunRequest& req) {
    std::vector<std::string> argv;
    const std::string base = incumbent ? incumbent->judged_file().string() : c.measure_baseline.string();
    for (const auto& a : c.measure_command)
      argv.push_back(evolve_substitute(evolve_substitute(evolve_substitute(a, "{candidate}", cand.judged_file().string()), "{baseline}", base),
                                "{seed}", std::to_string(req.seed)));
    ProcessOptions po;
    po.timeout = c.measure_timeout;
    po.max_output_bytes = std::size_t(16) << 20;
    const ProcessResult pr = run_process(argv, po);
    EvalReport r;
    r.built = false;
    if (!pr.ok()) {
      r.error = "the measure command " + pr.describe() + ": " + pr.stderr_text.substr(0, 2000);
      return r;
    }
    const auto last = pr.stdout_text.find_last_of('\n', pr.stdout_text.size() >= 2 ? pr.stdout_text.size() - 2 : 0);
    const std::string line = last == std::string::npos ? pr.stdout_text : pr.stdout_text.substr(last + 1);
    try {
      r = json::parse(line).get<EvalReport>();
    } catch (const std::exception& e) {
      r = EvalReport{};
      r.error = std::string("the measure command's last line is not a report: ") + e.what();
    }
    return r;
  };
}

/// The mutation agent: the agent command run in the workspace, TASK.md's text on its stdin.
MutationAgent evolve_command_agent(const EvolveCampaign& c) {
  return [c](const fs::path& ws, const std::string& message, const MutationTask&) {
    std::vector<std::string> argv;
    for (const auto& a : c.agent_command)
      argv.push_back(evolve_substitute(evolve_substitute(a, "{workspace}", ws.string()), "{task}", (ws / "TASK.md").string()));
    ProcessOptions po;
    po.working_dir = ws;
    po.stdin_data = message;
    po.timeout = c.agent_timeout;
    const ProcessResult pr = run_process(argv, po);
    write_file_atomically(ws / "agent.log", pr.stdout_text + (pr.stderr_text.empty() ? "" : "\n[stderr]\n" + pr.stderr_text));
    AgentTurn t;
    t.ok = pr.ok();
    t.message = pr.ok() ? pr.stdout_text.substr(0, 2000) : "the agent command " + pr.describe();
    return t;
  };
}

json evolve_run_one(const EvolveCampaign& c, const Bank& bank, const fs::path& dir, CreditTable* credit) {
  Evolution evo(c.config, bank, dir, c.start, evolve_command_agent(c), evolve_command_measure(c), c.bandit_file);
  evo.set_credit(credit);
  const EvolutionResult r = evo.run();
  const json state = read_json_file(dir / "evolution-state.json");
  write_file_atomically(dir / "evolution-report.md", evolution_report_markdown(state, &bank));
  if (credit && r.finished && r.campaign_bandit.merge_into(*credit, c.config.campaign_id)) credit->save(c.credit);
  std::cout << dir.string() << ": " << (r.finished ? "finished" : "stopped by " + r.stopped_by) << ", "
            << r.evaluations << " evaluations, " << r.admitted << " admitted, " << r.duplicates
            << " duplicates not evaluated, best geomean " << r.best_fitness << " (" << r.best_id << "); report "
            << (dir / "evolution-report.md").string() << "\n";
  return state;
}

int run_evolve(const EvolveOptions& o) {
  try {
    EvolveCampaign c = read_evolve_campaign(o.campaign);
    if (!o.state.empty()) c.state = o.state;
    const Bank bank = load_bank(c.bank.empty() ? socratic::tool::data_dir() / "question_bank" : c.bank);
    std::optional<CreditTable> credit;
    if (!c.credit.empty()) credit = fs::exists(c.credit) ? CreditTable::load(c.credit) : CreditTable{};
    if (!o.ablation) {
      const json st = evolve_run_one(c, bank, c.state, credit ? &*credit : nullptr);
      return st.value("finished", false) ? socratic::tool::exit_ok : socratic::tool::exit_findings;
    }
    // The ablation: the same budget, seed and start; question mutations against plain ones.
    // Each arm keeps its own bandit file, and neither feeds the credit table.
    EvolveCampaign q = c, p = c;
    q.config.operator_kind = MutationKind::question;
    p.config.operator_kind = MutationKind::plain;
    q.config.campaign_id = c.config.campaign_id + "-ablation-question";
    p.config.campaign_id = c.config.campaign_id + "-ablation-plain";
    q.bandit_file.clear(), p.bandit_file.clear();
    const fs::path dir = c.state / "ablation";
    const json sq = evolve_run_one(q, bank, dir / "question", nullptr);
    const json sp = evolve_run_one(p, bank, dir / "plain", nullptr);
    write_file_atomically(dir / "ablation.md", ablation_markdown(sq, sp));
    write_json_atomically(dir / "ablation.json", {{"question", sq}, {"plain", sp}});
    std::cout << "ablation: " << (dir / "ablation.md").string() << "\n";
    return sq.value("finished", false) && sp.value("finished", false) ? socratic::tool::exit_ok
                                                                       : socratic::tool::exit_findings;
  } catch (const std::exception& e) {
    std::cerr << "socratic evolve: " << e.what() << "\n";
    return socratic::tool::exit_error;
  }
}

socratic::tool::command_run evolve_setup(CLI::App& app) {
  auto o = std::make_shared<EvolveOptions>();
  app.footer(
      "Runs an evolutionary search whose mutations are questions from the bank (docs/evolution.md):\n"
      "islands with ring migration, a front over scenarios, a question bandit, a novelty filter, the\n"
      "gate against each child's parent. Run it again after a kill: it resumes. --ablation runs the\n"
      "same budget twice, question mutations against plain \"make it faster\" ones, and compares.\n"
      "Exit: 0 finished, 1 stopped by a budget, 2 an error.\n");
  app.add_option("CAMPAIGN", o->campaign, "the campaign file (JSON, docs/evolution.md)")->required()->type_name("");
  app.add_option("--state", o->state, "the run's folder (default: the file's `state`)")->type_name("DIR");
  app.add_flag("--ablation", o->ablation, "question mutations against plain ones, same budget");
  return [o] { return run_evolve(*o); };
}

const socratic::tool::command_registration evolve_registration{
    "evolve", "evolutionary search whose mutations are questions", "Campaigns", evolve_setup};

}  // namespace
