#pragma once
// `socratic run` of a campaign file with an `agents` section (docs/parallel.md): the agents'
// workspaces and sandboxes, the agents of the kinds that need no HTTP stack (CLI, replay), the
// gate's measurement from the campaign's evaluator, the live progress per agent, the final line.
// The LLM agents and the run itself are in llm_drivers.cpp (Boost.Beast compiles once).
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "campaign_file.hpp"
#include "campaign_parts.hpp"
#include "cli_parts.hpp"
#include "data_dir.hpp"
#include "socratic/agents/shell_sandbox.hpp"
#include "socratic/campaign/parallel_campaign.hpp"
#include "socratic/replay/recorded_campaign.hpp"
#include "socratic/replay/replay_agent.hpp"
#include "socratic/agents/inbox_agent.hpp"
#include "socratic/store/cuda_gate.hpp"

namespace socratic::tool {

namespace fs = std::filesystem;

/// The campaign file as one agent of the section sees it: its workspace and candidate, its model.
inline CampaignFile agent_view_of(const CampaignFile& c, const AgentEntry& a) {
  CampaignFile v = c;
  v.workspace = a.workspace;
  v.candidate = a.workspace / c.candidate.lexically_relative(c.workspace);
  if (!a.model.empty()) v.agent.model = a.model;
  return v;
}

/// Gives an agent its workspace: a copy of the campaign's, the first time (a resumed campaign
/// keeps what the agent left). Returns its candidate file.
inline fs::path prepare_agent_workspace(const CampaignFile& c, const AgentEntry& a) {
  const fs::path candidate = agent_view_of(c, a).candidate;
  std::error_code ec;
  if (fs::is_directory(a.workspace, ec) && !fs::is_empty(a.workspace, ec)) return candidate;
  fs::create_directories(a.workspace);
  if (fs::is_directory(c.workspace, ec))
    fs::copy(c.workspace, a.workspace, fs::copy_options::recursive | fs::copy_options::copy_symlinks, ec);
  if (ec)
    throw error("agents: cannot copy the workspace " + c.workspace.string() + " to " + a.workspace.string() + ": " +
                ec.message());
  return candidate;
}

/// What every agent of the campaign must not see: the judge's private files, the campaign's file
/// and state (the store and the trace among them), the bank, key files, the other agents'
/// workspaces and the campaign's own workspace.
inline std::vector<fs::path> agent_hidden_paths(const CampaignFile& c, const CampaignEvaluator& evaluator,
                                                const AgentEntry& self) {
  std::vector<fs::path> hidden = evaluator.hidden;
  hidden.push_back(c.file);
  hidden.push_back(c.state_dir);
  hidden.push_back(c.questions.bank ? *c.questions.bank : data_dir() / "question_bank");
  if (c.questions.credits) hidden.push_back(*c.questions.credits);
  if (c.questions.anchors) hidden.push_back(*c.questions.anchors);
  if (c.agent.api_key_file) hidden.push_back(*c.agent.api_key_file);
  hidden.push_back(c.workspace);
  for (const auto& other : c.agents.agents)
    if (other.id != self.id) hidden.push_back(other.workspace);
  return hidden;
}

/// A coding-agent CLI as one agent of the section, confined by bubblewrap (unless agent.sandbox
/// is `none`): its workspace writable, the judge read-only, the state, the store, the other
/// agents and the key files out of sight. The CLI talks to its model, so it keeps the network.
inline CliAgent make_cli_agent(const CampaignFile& c, const AgentEntry& a, const CampaignEvaluator& evaluator) {
  const CampaignFile v = agent_view_of(c, a);
  CliAgentOptions options = cli_agent_options(v.agent, a.kind == AgentKind::codex ? CliKind::codex : CliKind::claude_code,
                                              a.program ? a.program->string() : std::string());
  if (c.agent.sandbox == ShellSandboxKind::none) return CliAgent(options);
  ShellSandboxOptions box;
  box.network = true;
  box.exposed = c.agent.sandbox_expose;
  // The CLI's own installation may lie under the hidden home (an npm prefix): made visible.
  const fs::path program = find_program(options.program.empty() ? (a.kind == AgentKind::codex ? "codex" : "claude") : options.program);
  if (!program.empty()) {
    std::error_code ec;
    const fs::path real = fs::canonical(program, ec);
    for (const fs::path& p : {program.parent_path().parent_path(), ec ? fs::path() : real.parent_path()})
      if (!p.empty()) box.exposed.push_back(p);
    // node_modules/.bin/claude -> ../@scope/pkg/bin/x: the whole node_modules folder.
    if (program.parent_path().filename() == ".bin") box.exposed.push_back(program.parent_path().parent_path());
  }
  SandboxPaths paths;
  paths.workspace = a.workspace;
  for (const auto& j : evaluator.judge)
    if (socratic::detail::sandbox_inside(socratic::detail::sandbox_canonical(j), socratic::detail::sandbox_canonical(c.workspace)))
      paths.read_only.push_back(a.workspace / j.lexically_relative(c.workspace));
  paths.hidden = agent_hidden_paths(c, evaluator, a);
  if (const std::string problem = shell_sandbox_problem(box, paths); !problem.empty())
    throw error(c.file.string() + ": agent \"" + a.id + "\" (" + std::string(to_string(a.kind)) + ") cannot be sandboxed here: " + problem +
                ". To run the CLIs without an OS sandbox (they can then reach whatever you can), set agent.sandbox to "
                "\"none\"");
  options.launcher = bubblewrap_argv(box, paths, {});
  // The real home is out of sight; the CLI keeps its sessions (later turns resume them) and its
  // settings in a home of its own inside its workspace.
  const fs::path home = a.workspace / ".cli-home";
  fs::create_directories(home / ".codex");
  options.environment["HOME"] = home.string();
  if (a.kind == AgentKind::codex) options.environment["CODEX_HOME"] = (home / ".codex").string();
  return CliAgent(options);
}

/// A replay agent: the recorded campaign's actions, held with it.
struct HeldReplayAgent {
  std::shared_ptr<RecordedCampaign> recording;
  std::shared_ptr<ReplayAgent> agent;
  TurnResult turn(const Message& m, Tools& t) { return agent->turn(m, t); }
  void on_proposal(int n) { agent->on_proposal(n); }
};
inline HeldReplayAgent make_replay_agent(const AgentEntry& a) {
  auto rec = std::make_shared<RecordedCampaign>(load_recorded_campaign(*a.recording));
  return HeldReplayAgent{rec, std::make_shared<ReplayAgent>(*rec)};
}

/// The gate's measurement from the campaign's evaluator, which judges against the problem's own
/// baseline: the candidate and the incumbent are each measured, and each scenario's speedup is
/// the incumbent's time over the candidate's (two runs, one after the other, not interleaved in
/// one; the noise is both runs' spread). Without an incumbent, the candidate's report as it is.
inline PairMeasure evaluator_pair_measure(CampaignEvaluator& evaluator) {
  return [&evaluator](const Candidate& candidate, const std::optional<Candidate>& incumbent, const GateRunRequest&) {
    EvalReport r = evaluator.evaluate(candidate);
    if (!incumbent || !r.error.empty()) return r;
    const EvalReport inc = evaluator.evaluate(*incumbent);
    std::map<std::string, const ScenarioResult*> by_id;
    for (const auto& s : inc.scenarios) by_id[s.id] = &s;
    for (auto& s : r.scenarios) {
      auto it = by_id.find(s.id);
      if (it == by_id.end() || !it->second->correct || !std::isfinite(it->second->candidate_ms)) {
        s.speedup = std::nan("");
        continue;
      }
      s.baseline_ms = it->second->candidate_ms;
      s.baseline_noise = it->second->candidate_noise;
      s.speedup = std::isfinite(s.candidate_ms) && s.candidate_ms > 0 ? s.baseline_ms / s.candidate_ms : std::nan("");
    }
    return r;
  };
}

/// Makes the evaluator's calls one at a time whoever calls it (the agents' `evaluate` tools
/// through the engine, the gate on the coordinator's thread): two timings at once on one machine
/// would disturb each other.
/// `shared`: a mutex to take instead of a new one (a suite's problems, judged in this process,
/// one at a time between them too).
inline std::shared_ptr<std::mutex> serialise_evaluations(CampaignEvaluator& evaluator,
                                                         std::shared_ptr<std::mutex> shared = nullptr) {
  auto mutex = shared ? std::move(shared) : std::make_shared<std::mutex>();
  evaluator.fn = [inner = std::move(evaluator.fn), mutex](const Candidate& c) {
    std::lock_guard lock(*mutex);
    return inner(c);
  };
  return mutex;
}

/// The gate's measurement for the campaign's evaluator: the CUDA evaluator in this process times
/// candidate and incumbent interleaved in one run (store/cuda_gate.hpp); any other (a command,
/// an executor's jobs) measures the two one after the other (evaluator_pair_measure). Both take
/// `mutex`, the evaluations' one at a time.
inline PairMeasure campaign_pair_measure(CampaignEvaluator& evaluator, std::shared_ptr<std::mutex> mutex) {
  if (evaluator.cuda_config) {
    PairMeasure cuda = cuda_pair_measure(*evaluator.cuda_config);
    return [cuda, mutex](const Candidate& c, const std::optional<Candidate>& inc, const GateRunRequest& req) {
      if (const std::string missing = missing_cuda_gpu(); !missing.empty())
        throw error("the CUDA evaluator needs a GPU: " + missing);
      std::lock_guard lock(*mutex);
      return cuda(c, inc, req);
    };
  }
  return evaluator_pair_measure(evaluator);  // its calls go through the serialised fn
}

/// Live progress of every agent: on a terminal one line per agent, rewritten in place; else a
/// plain line per step.
class AgentsProgress {
 public:
  explicit AgentsProgress(std::vector<std::string> ids) : ids_(std::move(ids)), tty_(::isatty(2) != 0) {
    for (const auto& id : ids_) lines_[id] = "waiting";
    width_ = 0;
    for (const auto& id : ids_) width_ = std::max(width_, id.size());
  }

  void operator()(const AgentProgress& p) {
    std::lock_guard lock(mutex_);
    std::string line;
    switch (p.event) {
      case AgentStep::turn_started: line = "working (proposal " + std::to_string(p.proposals + 1) + ")"; break;
      case AgentStep::proposed: line = "proposed, waiting for the gate"; break;
      case AgentStep::gated:
        line = p.record + " " + std::string(p.verdict ? to_string(*p.verdict) : "?") + ": " + p.reason;
        break;
      case AgentStep::not_judged: line = "not judged: " + p.detail; break;
      case AgentStep::draft: line = "asked for a draft" + (p.record.empty() ? "" : " from " + p.record); break;
      case AgentStep::done: line = "done" + (p.detail.empty() ? "" : ": " + p.detail); break;
    }
    line = std::to_string(p.proposals) + " proposals | incumbent " + (p.incumbent.empty() ? "none" : p.incumbent) +
           " | " + line;
    lines_[p.agent] = line;
    if (!tty_) {
      std::fprintf(stderr, "[%s] %s\n", p.agent.c_str(), line.c_str());
    } else {
      if (drawn_) std::fprintf(stderr, "\033[%zuA", ids_.size());
      for (const auto& id : ids_) {
        std::string l = lines_[id];
        if (l.size() > 110) l = l.substr(0, 107) + "...";
        std::fprintf(stderr, "\r\033[K%-*s  %s\n", static_cast<int>(width_), id.c_str(), l.c_str());
      }
      drawn_ = true;
    }
    std::fflush(stderr);
  }

 private:
  std::vector<std::string> ids_;
  std::map<std::string, std::string> lines_;
  std::size_t width_ = 0;
  bool tty_;
  bool drawn_ = false;
  std::mutex mutex_;
};

/// Prints why the parallel campaign ended; exit 0 when the goal holds, 1 otherwise.
inline int print_parallel_result(const ParallelResult& r, const fs::path& trace, const fs::path& store) {
  std::cout << "campaign ended: " << to_string(r.reason) << (r.detail.empty() ? "" : " (" + r.detail + ")") << "; " << r.records
            << " candidates in the store, " << r.gated_now << " gated in this run, " << r.drafts << " drafts asked\n";
  if (r.incumbent) std::cout << "incumbent: " << r.incumbent->id << " by " << r.incumbent->agent << "\n";
  else std::cout << "incumbent: none (no candidate was admitted)\n";
  if (r.reason == StopReason::waiting_for_agent)
    std::cout << "campaign paused: " << r.detail << "; resume with the same command once the inbox is filled\n";
  if (r.reason == StopReason::agent_error || r.reason == StopReason::evaluator_error)
    std::cout << "not the campaign's end: fix the fault (the key, the server, the CLI) and run again; it continues "
                 "with its history and its store\n";
  std::cout << "trace: " << trace.string() << "\nstore: " << store.string() << "\n";
  return r.reason == StopReason::goal_met ? exit_ok : exit_findings;
}

}  // namespace socratic::tool
