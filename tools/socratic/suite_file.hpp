#pragma once
// The suite file of `socratic suite SUITE.json` (docs/suite-campaign.md): its problems (campaign
// files, inline campaign fields over the suite's `defaults`, or a `problems_dir` of campaign
// folders), the shared agents, the policy, the budgets and the one executor. Each inline problem
// becomes a campaign file of its own, written under the suite's state folder
// (`STATE/problems/NAME/campaign.json`, paths absolute) and read back by load_campaign_file, so a
// suite problem is exactly a campaign as every other command knows it.

#include <algorithm>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "agents_section.hpp"
#include "campaign_file.hpp"
#include "executor_settings.hpp"
#include "problems.hpp"
#include "socratic/core/files.hpp"
#include "socratic/goals/goal_spec.hpp"
#include "socratic/suite_campaign/suite_runner.hpp"

namespace socratic::tool {

/// One problem of the suite.
struct SuiteProblemEntry {
  std::string name;
  CampaignFile campaign;
  std::optional<int> max_proposals;  ///< its store's records at most (its campaign ends `proposals_spent`)
  std::optional<double> score;       ///< the suite's own score, when the problem defines one
};

/// The whole suite file, paths absolute.
struct SuiteFile {
  std::filesystem::path file;
  std::string title;
  std::filesystem::path state_dir;  ///< suite.json, suite_trace.jsonl, problems/, report/
  std::vector<SuiteProblemEntry> problems;
  AgentsSettings agents;  ///< the shared agents (their `folder` is unused: each works in PROBLEM/agents/ID)
  SuitePolicy policy;
  int proposals_per_round = 2;
  SuiteBudget budget;
  ExecutorSettings executor;  ///< one executor for every problem (none: each evaluates in this process)
};

namespace detail {

inline bool valid_problem_name(const std::string& id) { return valid_agent_id(id); }

/// A problem taken where it lies (a SOL-ExecBench / FlashInfer-Bench folder, a KernelBench file),
/// as `socratic init --problem PATH` takes it: without "scenarios", every workload (a selection
/// file in the problem's suite folder); a workspace without the candidate gets the entry point's
/// skeleton (or the problem's native baseline), so the agents start from what init would give.
inline void default_suite_problem_fields(json& c, const std::filesystem::path& folder, const std::string& where) {
  namespace fs = std::filesystem;
  if (!c.contains("problem") || !c["problem"].is_string()) return;
  const std::string problem = c["problem"].get<std::string>();
  if (!is_problem_path(problem) || !is_suite_problem(problem)) return;
  if (c.contains("evaluator") && c["evaluator"].is_object() && c["evaluator"].value("kind", "cuda") != "cuda") return;
  const SuiteProblem sp = load_suite(problem);
  if (auto why = suite::not_judgeable_reason(sp.description))
    throw input_error(sp.path.string(), where, "cannot be judged on the GPU: " + *why);
  if (!c.contains("scenarios")) {
    std::vector<std::string> ids;
    for (const auto& w : sp.description.workloads) ids.push_back(w.uuid);
    fs::create_directories(folder);
    c["scenarios"] = suite_selection_file(problem, ids, folder).string();
  }
  if (!c.contains("task")) {
    const std::string name = sp.description.name;
    c["task"] = "Make the candidate " + c.value("candidate", std::string("candidate.cu")) + " of problem " + name +
                " faster than its baseline (" +
                (sp.baseline ? sp.baseline->filename().string() : std::string("the problem's reference in eager PyTorch")) +
                ") on every workload, correct on each by the suite's tolerance. It defines the entry point " +
                suite::entry_point_name(sp.description) + " that `socratic problem header " + problem +
                "` prints. Every proposal is judged on every workload.";
  }
  if (c["workspace"].is_string()) {
    const fs::path candidate = fs::path(c["workspace"].get<std::string>()) / c.value("candidate", std::string("candidate.cu"));
    if (!fs::exists(candidate)) {
      fs::create_directories(candidate.parent_path());
      write_file_atomically(candidate, sp.baseline ? read_text(*sp.baseline) : suite::entry_point_skeleton(sp.description));
    }
  }
}

/// Makes the path fields of inline campaign fields absolute against the suite file's folder.
inline void absolutise_campaign_fields(json& c, const std::filesystem::path& base) {
  namespace fs = std::filesystem;
  auto abs = [&](json& v) {
    if (v.is_string()) v = resolve(base, v.get<std::string>()).string();
  };
  for (const char* k : {"scenarios", "workspace", "state_dir"})
    if (c.contains(k)) abs(c[k]);
  // A problem's path beside the suite file (a registry name stays a name).
  if (c.contains("problem") && c["problem"].is_string() && !c["problem"].get<std::string>().empty() &&
      fs::exists(base / c["problem"].get<std::string>()))
    abs(c["problem"]);
  if (c.contains("evaluator") && c["evaluator"].is_object()) {
    json& e = c["evaluator"];
    if (e.contains("baseline")) abs(e["baseline"]);
    if (e.contains("command") && e["command"].is_array())
      for (auto& a : e["command"])  // an argument naming a file beside the suite
        if (a.is_string() && !a.get<std::string>().empty() && a.get<std::string>().find('{') == std::string::npos &&
            !fs::path(a.get<std::string>()).is_absolute() && fs::exists(base / a.get<std::string>()))
          abs(a);
  }
  if (c.contains("questions") && c["questions"].is_object())
    for (const char* k : {"bank", "credits", "anchors"})
      if (c["questions"].contains(k)) abs(c["questions"][k]);
  if (c.contains("agent") && c["agent"].is_object())
    for (const char* k : {"api_key_file", "replay_trace"})
      if (c["agent"].contains(k)) abs(c["agent"][k]);
}

}  // namespace detail

/// Reads and validates a suite file. Errors name the file and the field.
inline SuiteFile load_suite_file(const std::filesystem::path& path) {
  namespace fs = std::filesystem;
  const fs::path abs = fs::absolute(path).lexically_normal();
  const json j = read_json_file(abs);
  const fs::path base = abs.parent_path();
  SuiteFile s;
  s.file = abs;
  std::string where = "suite";
  try {
    if (!j.is_object()) throw input_error({}, "suite", "expected an object");
    check_schema_version(j, "suite");
    detail::reject_unknown(j, "suite",
                           {"schema_version", "title", "description", "state_dir", "problems", "problems_dir", "defaults",
                            "agents", "agent", "policy", "budget", "executor"});
    s.title = optional_field<std::string>(j, "title", "Socratic suite " + abs.stem().string(), "suite");
    s.state_dir = detail::resolve(base, optional_field<std::string>(j, "state_dir", "suite-state", "suite"));

    const json pol = optional_field<json>(j, "policy", json::object(), "suite");
    if (!pol.is_object()) throw input_error({}, "policy", "expected an object");
    detail::reject_unknown(pol, "policy", {"kind", "plateau", "plateau_weight", "proposals_per_round", "assign"});
    const std::string kind = optional_field<std::string>(pol, "kind", "planner", "policy");
    const std::optional<SuitePolicyKind> parsed = parse_suite_policy_kind(kind);
    if (!parsed) throw input_error({}, "policy field \"kind\"", "\"" + kind + "\" is not fixed or planner");
    s.policy.kind = *parsed;
    s.policy.plateau = optional_field<int>(pol, "plateau", 4, "policy");
    s.policy.plateau_weight = optional_field<double>(pol, "plateau_weight", 0.25, "policy");
    s.policy.assign = optional_field<std::map<std::string, std::string>>(pol, "assign", {}, "policy");
    s.proposals_per_round = optional_field<int>(pol, "proposals_per_round", 2, "policy");
    if (s.proposals_per_round < 1) throw input_error({}, "policy field \"proposals_per_round\"", "must be at least 1");

    const json b = optional_field<json>(j, "budget", json::object(), "suite");
    if (!b.is_object()) throw input_error({}, "budget", "expected an object");
    detail::reject_unknown(b, "budget", {"proposals", "turns", "tokens", "cost_usd", "wall_seconds"});
    s.budget.proposals = optional_value<int>(b, "proposals", "budget");
    s.budget.turns = optional_value<int>(b, "turns", "budget");
    s.budget.tokens = optional_value<long long>(b, "tokens", "budget");
    s.budget.cost_usd = optional_value<double>(b, "cost_usd", "budget");
    s.budget.wall_seconds = optional_value<double>(b, "wall_seconds", "budget");

    if (j.contains("executor") && !j["executor"].is_null()) {
      s.executor = parse_executor_section(j["executor"], base);
      if (s.executor.run_dir.empty()) s.executor.run_dir = s.state_dir / "executor";
    }

    const json defaults = optional_field<json>(j, "defaults", json::object(), "suite");
    if (!defaults.is_object()) throw input_error({}, "defaults", "expected an object of campaign fields");
    json agent_defaults = optional_field<json>(j, "agent", json(nullptr), "suite");

    // The problems: listed, then those of problems_dir (each folder with a campaign.json).
    json listed = optional_field<json>(j, "problems", json::array(), "suite");
    if (!listed.is_array()) throw input_error({}, "problems", "expected an array");
    if (auto dir = optional_value<std::string>(j, "problems_dir", "suite")) {
      const fs::path d = detail::resolve(base, *dir);
      if (!fs::is_directory(d)) throw input_error({}, "suite field \"problems_dir\"", d.string() + " is not a folder");
      std::vector<fs::path> found;
      for (const auto& e : fs::directory_iterator(d))
        if (e.is_directory() && fs::is_regular_file(e.path() / "campaign.json")) found.push_back(e.path());
      std::sort(found.begin(), found.end());
      for (const auto& f : found) listed.push_back({{"name", f.filename().string()}, {"campaign", (f / "campaign.json").string()}});
    }
    if (listed.empty()) throw input_error({}, "suite", "no problems: list them in \"problems\" or name a \"problems_dir\"");
    std::set<std::string> names;
    for (std::size_t i = 0; i < listed.size(); ++i) {
      where = "problems[" + std::to_string(i) + "]";
      const json& p = listed[i];
      if (!p.is_object()) throw input_error({}, where, "expected an object");
      SuiteProblemEntry e;
      e.name = required<std::string>(p, "name", where);
      if (!detail::valid_problem_name(e.name))
        throw input_error({}, where + " field \"name\"", "\"" + e.name + "\" is not a usable name (letters, digits, '-', '_', '.')");
      if (!names.insert(e.name).second) throw input_error({}, where + " field \"name\"", "\"" + e.name + "\" is used twice");
      e.max_proposals = optional_value<int>(p, "max_proposals", where);
      if (e.max_proposals && *e.max_proposals < 1) throw input_error({}, where + " field \"max_proposals\"", "must be at least 1");
      e.score = optional_value<double>(p, "score", where);
      if (auto file = optional_value<std::string>(p, "campaign", where)) {
        detail::reject_unknown(p, where, {"name", "campaign", "max_proposals", "score"});
        e.campaign = load_campaign_file(detail::resolve(base, *file));
      } else {
        json c = defaults;
        for (auto it = p.begin(); it != p.end(); ++it)
          if (it.key() != "name" && it.key() != "max_proposals" && it.key() != "score") c[it.key()] = it.value();
        if (!c.contains("agent") && !agent_defaults.is_null()) c["agent"] = agent_defaults;
        if (c.contains("agents")) throw input_error({}, where + " field \"agents\"", "the suite's agents are shared: name them in the suite's \"agents\"");
        detail::absolutise_campaign_fields(c, base);
        const fs::path folder = s.state_dir / "problems" / e.name;
        if (!c.contains("state_dir")) c["state_dir"] = (folder / "state").string();
        if (!c.contains("workspace")) throw input_error({}, where, "an inline problem needs its \"workspace\" (the candidate's folder)");
        detail::default_suite_problem_fields(c, folder, where);
        if (!c.contains("goal")) c["goal"] = goals::default_goal_spec();
        if (!c.contains("task"))
          c["task"] = "Make the candidate of problem " + e.name + " (" + c.value("candidate", std::string("the candidate")) +
                      ") faster than its baseline on every scenario, and correct on every one.";
        if (!c.contains("campaign_id")) c["campaign_id"] = abs.stem().string() + "-" + e.name;
        c["schema_version"] = 1;
        fs::create_directories(folder);
        const fs::path generated = folder / "campaign.json";
        if (!fs::exists(generated) || read_json_file(generated) != c) write_json_atomically(generated, c);
        e.campaign = load_campaign_file(generated);  // its errors name the generated file
      }
      if (s.executor.kind) e.campaign.executor = s.executor;  // one executor for all
      s.problems.push_back(std::move(e));
    }
    where = "suite";
    if (!j.contains("agents")) throw input_error({}, "suite", "no \"agents\": the suite's agents (docs/parallel.md's section)");
    // The agents' folders are per problem (PROBLEM/agents/ID): the section's checks run against
    // the suite's own state folder.
    s.agents = parse_agents_section(j["agents"], base, s.state_dir / "problems", s.state_dir / ".none",
                                    [](const json& o, const std::string& w, std::initializer_list<std::string_view> known) {
                                      detail::reject_unknown(o, w, known);
                                    });
    for (const auto& [agent, problem] : s.policy.assign) {
      bool ok_a = false, ok_p = false;
      for (const auto& a : s.agents.agents) ok_a |= a.id == agent;
      for (const auto& p : s.problems) ok_p |= p.name == problem;
      if (!ok_a || !ok_p)
        throw input_error({}, "policy field \"assign\"", "\"" + agent + "\": \"" + problem + "\" names " +
                                                         (ok_a ? "no problem of the suite" : "no agent of the suite"));
    }
  } catch (const input_error& e) {
    if (e.file().empty()) throw input_error(abs.string(), e.where(), e.message());
    throw;
  }
  return s;
}

/// The folder of a problem's campaign (its campaign file's): its agents work in `agents/ID` there.
inline std::filesystem::path problem_folder(const SuiteProblemEntry& p) { return p.campaign.file.parent_path(); }

/// The campaign file of `p` as one round sees it: the agents assigned, each in its own workspace
/// under the problem's folder, the suite's budget of proposals for the problem.
inline CampaignFile round_view(const SuiteProblemEntry& p, const AgentsSettings& all, const std::vector<std::string>& assigned) {
  CampaignFile c = p.campaign;
  c.agents = AgentsSettings{};
  c.agents.present = true;
  c.agents.folder = problem_folder(p) / "agents";
  c.agents.max_proposals = p.max_proposals;
  for (const auto& a : all.agents)
    if (std::find(assigned.begin(), assigned.end(), a.id) != assigned.end()) {
      AgentEntry e = a;
      e.workspace = c.agents.folder / a.id;
      // One mailbox per problem: proposals, and so turns, are numbered per problem's store.
      if (e.inbox) e.inbox = *e.inbox / p.name;
      e.inbox_problem = p.name;
      c.agents.agents.push_back(std::move(e));
    }
  return c;
}

}  // namespace socratic::tool
