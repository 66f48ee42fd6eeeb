// socratic mcp [--campaign FILE]: the campaign's judge, questions and standing as Model Context
// Protocol tools over stdio (docs/mcp.md), for any coding agent that takes MCP servers.
// stdout carries protocol messages only (fd 1 is pointed at stderr; the protocol keeps its own
// copy of the descriptor); logs go to stderr. When the client goes away (stdin closed, a signal)
// with evaluations under way, they are recorded as cancelled and their processes killed.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>

#include "campaign_file.hpp"
#include "campaign_parts.hpp"
#include "command.hpp"
#include "socratic/goals/goal_spec.hpp"
#include "socratic/mcp/server.hpp"
#include "socratic/mcp/store_tools.hpp"
#include "socratic/mcp/tools.hpp"
#include "socratic/version.hpp"

namespace {

using namespace socratic;
using namespace socratic::tool;

volatile std::sig_atomic_t mcp_stop_signal = 0;
void mcp_on_signal(int sig) { mcp_stop_signal = sig; }

/// What `socratic mcp` is given.
struct McpCommandOptions {
  std::string campaign, agent_id, max_message_bytes, store;
};

std::filesystem::path mcp_find_campaign(const std::string& given) {
  if (!given.empty()) return given;
  if (const char* env = std::getenv("SOCRATIC_CAMPAIGN"); env && *env) return env;
  for (auto d = std::filesystem::current_path(); !d.empty(); d = d.parent_path()) {
    if (std::filesystem::exists(d / "campaign.json")) return d / "campaign.json";
    if (d == d.root_path()) break;
  }
  throw error("no campaign file: pass --campaign FILE (socratic init writes it into the client's MCP configuration)");
}

void mcp_log(const std::string& line) { std::cerr << "socratic mcp: " << line << std::endl; }

/// Writes all of `text` to `fd`; false when the client is gone (EPIPE and the like).
bool mcp_write_all(int fd, const std::string& text) {
  const char* p = text.data();
  std::size_t left = text.size();
  while (left > 0) {
    const ssize_t n = ::write(fd, p, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    p += n;
    left -= static_cast<std::size_t>(n);
  }
  return true;
}

/// The gate's measurement for this campaign's evaluator: the candidate timed in one run with the
/// incumbent as the run's baseline. The CUDA evaluator takes the incumbent as its baseline; an
/// evaluator command does when it names `{baseline}`. `unavailable` says why not, otherwise.
PairMeasure mcp_pair_measure(const CampaignFile& c, std::string& unavailable) {
  if (c.evaluator.kind == exec::EvaluatorKind::command) {
    const bool takes_baseline = std::any_of(c.evaluator.command.begin(), c.evaluator.command.end(),
                                            [](const std::string& a) { return a.find("{baseline}") != std::string::npos; });
    if (!takes_baseline) {
      unavailable = "the campaign's evaluator command names no {baseline}, so the gate cannot time a candidate "
                    "against the incumbent (add {baseline} to evaluator.command: the file to time against)";
      return {};
    }
    return [c](const Candidate& cand, const std::optional<Candidate>& incumbent, const GateRunRequest&) {
      const std::filesystem::path baseline =
          incumbent ? incumbent->judged_file() : c.evaluator.baseline.value_or(std::filesystem::path());
      if (baseline.empty()) throw error("no incumbent yet and no evaluator.baseline to time the first candidate against");
      CommandEvaluatorConfig config;
      config.command = tool::detail::evaluator_argv(c, baseline);
      config.timeout = std::chrono::milliseconds(static_cast<long long>(c.evaluator.timeout_s * 1000));
      config.working_dir = c.file.parent_path();
      config.expected = campaign_scenario_ids(c);
      config.workspace = c.workspace;
      return CommandEvaluator(std::move(config)).evaluate(cand);
    };
  }
  return [c](const Candidate& cand, const std::optional<Candidate>& incumbent, const GateRunRequest& request) {
    if (const std::string missing = missing_cuda_gpu(); !missing.empty())
      throw error("the CUDA evaluator needs a GPU: " + missing);
    CudaEvaluatorConfig config;
    config.data_dir = data_dir();
    config.problem = c.problem;
    config.scenarios = c.scenarios;
    config.baseline = incumbent ? std::optional<std::filesystem::path>(incumbent->judged_file()) : c.evaluator.baseline;
    config.arch = c.evaluator.arch.value_or("");
    config.cache_dir = c.state_dir / "build-cache";
    if (c.evaluator.extra.contains("k")) config.k = c.evaluator.extra["k"].get<double>();
    if (c.evaluator.extra.contains("nvcc_flags"))
      config.nvcc_flags = c.evaluator.extra["nvcc_flags"].get<std::vector<std::string>>();
    config.libraries = c.evaluator.libraries;
    config.ban_scan = default_ban_scan();
    config.runner.seed = request.seed;
    return CudaEvaluator(std::move(config)).evaluate(cand);
  };
}

int mcp_command(const McpCommandOptions& o) {
  // The protocol's own stdout; fd 1 then goes to stderr, so a stray print never breaks the framing.
  const int protocol_fd = ::fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
  if (protocol_fd < 0) throw error(std::string("cannot duplicate stdout: ") + std::strerror(errno));
  ::dup2(STDERR_FILENO, STDOUT_FILENO);
  std::signal(SIGPIPE, SIG_IGN);
  struct sigaction sa {};
  sa.sa_handler = mcp_on_signal;
  for (int sig : {SIGTERM, SIGINT, SIGHUP}) ::sigaction(sig, &sa, nullptr);

  mcp::ServerLimits limits;
  if (!o.max_message_bytes.empty())
    limits.max_message_bytes =
        static_cast<std::size_t>(parse_whole_number("--max-message-bytes", o.max_message_bytes, 1024));

  const CampaignFile c = load_campaign_file(mcp_find_campaign(o.campaign));
  CampaignConfig config = campaign_config(c, campaign_scenario_ids(c));
  CampaignEvaluator evaluator = make_evaluator(c, config.scenario_ids);
  ToolQuestionSource questions = make_question_source(c);
  mcp::CampaignToolsOptions options;
  options.agent = o.agent_id.empty() ? config.agent_id : o.agent_id;
  mcp::CampaignTools<CampaignEvaluator, ToolQuestionSource, goals::ParsedGoal> tools(evaluator, questions, c.goal, config, options);

  mcp::ServerInfo info;
  info.version = version_string;
  info.instructions = "Socratic judges this campaign's candidate (" + c.candidate.filename().string() +
                      "): `evaluate` starts an evaluation and returns a job id, `result` gives its per-scenario "
                      "table and the goal's verdict, `ask` gives the next question for a trigger, `standing` "
                      "says where the campaign stands. Goal: " + describe_goal(c.goal) + ".";
  std::vector<mcp::ToolDefinition> definitions = tools.definitions();
  std::unique_ptr<mcp::StoreTools> store_tools;
  if (!o.store.empty()) {
    mcp::StoreToolsConfig s;
    s.store_dir = std::filesystem::absolute(o.store).lexically_normal();
    s.agent = options.agent;
    s.workspace = c.workspace;
    s.candidate = c.candidate;
    s.measure = mcp_pair_measure(c, s.measure_unavailable);
    s.snapshot = [&tools, agent = options.agent](const Candidate& cand) {
      return tools.with_engine([&](auto& e) { return e.prepare_evaluation(agent, EvaluationOrigin::gate, cand).candidate; });
    };
    s.record_evaluation = [&tools, agent = options.agent](const Candidate& cand, const EvalReport& report) {
      return tools.with_engine([&](auto& e) {
        PreparedEvaluation p{agent, EvaluationOrigin::gate, e.state().turn, cand};
        const int index = e.record_evaluation(p, report).index;
        e.sync();
        return index;
      });
    };
    store_tools = std::make_unique<mcp::StoreTools>(std::move(s), tools.jobs());
    for (auto& d : store_tools->definitions()) definitions.push_back(std::move(d));
  }
  mcp::Server server(info, std::move(definitions), limits);
  server.log = mcp_log;
  server.on_tool_call = [&](const std::string& tool, const json& args, const mcp::ToolResult& r,
                            const mcp::CallContext& ctx) { tools.record_call(tool, args, r, ctx); };
  mcp_log("serving campaign " + c.file.string() + " as agent " + options.agent + " (" +
          std::to_string(server.tools().size()) + " tools)");

  auto leave = [&](const std::string& why) {
    const std::size_t pending = tools.jobs().pending();
    if (pending == 0) {
      mcp_log(why + ": done");
      return exit_ok;
    }
    [[maybe_unused]] auto held = tools.shutdown(why + " during the evaluation");
    mcp_log(why + ": " + std::to_string(pending) + " evaluation job(s) cancelled and their processes killed");
    std::cerr.flush();
    ::_exit(exit_ok);  // the evaluation thread is not joined: its process is gone, its job recorded
  };

  std::string buffer;
  bool discarding = false;  // inside a line over the limit: dropped up to its newline
  std::size_t discarded = 0;
  char chunk[65536];
  for (;;) {
    if (mcp_stop_signal) return leave("stopped by signal " + std::to_string(static_cast<int>(mcp_stop_signal)));
    pollfd in{STDIN_FILENO, POLLIN, 0};
    const int ready = ::poll(&in, 1, 250);
    if (ready < 0 && errno != EINTR) return leave(std::string("stdin: ") + std::strerror(errno));
    if (ready <= 0) continue;
    const ssize_t n = ::read(STDIN_FILENO, chunk, sizeof chunk);
    if (n < 0) {
      if (errno == EINTR || errno == EAGAIN) continue;
      return leave(std::string("stdin: ") + std::strerror(errno));
    }
    if (n == 0) return leave("the client closed stdin");
    std::size_t start = 0;
    for (std::size_t i = 0; i < static_cast<std::size_t>(n); ++i) {
      if (chunk[i] != '\n') continue;
      std::optional<json> reply;
      if (discarding) {
        discarded += i - start;
        reply = mcp::make_error(nullptr, mcp::error_code::invalid_request,
                                "message of " + std::to_string(discarded) + " bytes is over the limit of " +
                                    std::to_string(limits.max_message_bytes) + " bytes");
        mcp_log("refused a message of " + std::to_string(discarded) + " bytes");
        discarding = false;
        discarded = 0;
      } else {
        buffer.append(chunk + start, i - start);
        if (buffer.find_first_not_of(" \t\r") != std::string::npos) reply = server.handle_line(buffer);
        buffer.clear();
      }
      start = i + 1;
      if (reply && !mcp_write_all(protocol_fd, mcp::frame(*reply))) return leave("the client stopped reading");
    }
    const std::size_t rest = static_cast<std::size_t>(n) - start;
    if (discarding) {
      discarded += rest;
    } else {
      buffer.append(chunk + start, rest);
      if (buffer.size() > limits.max_message_bytes) {  // never hold more than the limit
        discarding = true;
        discarded = buffer.size();
        buffer.clear();
      }
    }
  }
}

command_run mcp_setup(CLI::App& app) {
  auto o = std::make_shared<McpCommandOptions>();
  app.footer(
      "A Model Context Protocol server over stdio (newline-delimited JSON-RPC 2.0) for coding agents:\n"
      "the tools evaluate (a job id at once), result (a compact per-scenario table; the full report in\n"
      "a file), ask (the next question for a trigger), scan (banned libraries in a binary) and standing\n"
      "(the goal's verdict, the incumbent, the best per scenario). Protocols 2025-11-25 (initialize,\n"
      "then notifications/initialized; older clients negotiated down) and 2026-07-28 (no handshake:\n"
      "_meta in each request; server/discover). Every call is recorded in the campaign's trace.\n"
      "With --store DIR (a campaign's candidate store, docs/store.md): propose (gate a candidate against\n"
      "the incumbent and store it), notes (the incumbent, the best per scenario, the agents' notes), note.\n"
      "`socratic init ... --agent claude-code|codex` writes the client's MCP configuration. The campaign\n"
      "file is --campaign, else $SOCRATIC_CAMPAIGN, else campaign.json here or in a folder above.\n"
      "Exit: 0 when the client goes away, 2 when the campaign cannot be loaded.\n");
  app.add_option("-c,--campaign", o->campaign, "the campaign file")->type_name("FILE");
  app.add_option("--agent-id", o->agent_id, "the agent id the calls are recorded with (default: the campaign's)")
      ->type_name("ID");
  app.add_option("--store", o->store,
                 "the campaign's candidate store (docs/store.md): adds propose, notes and note")
      ->type_name("DIR");
  app.add_option("--max-message-bytes", o->max_message_bytes, "the largest message read (default 1048576)")
      ->type_name("N");
  return [o] { return mcp_command(*o); };
}

const command_registration mcp_registration("mcp", "a Model Context Protocol server: the judge and questions as tools",
                                            "Campaigns", mcp_setup);

}  // namespace
