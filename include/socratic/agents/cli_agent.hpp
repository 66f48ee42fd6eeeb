#pragma once
/// @file
/// @brief CliAgent: a coding-agent CLI driven headless as an Agent: Claude Code
/// (`claude -p ... --output-format stream-json --verbose`, later turns with `--resume SESSION`)
/// or Codex (`codex exec --json ...`, later turns with `codex exec resume SESSION ...`).
///
/// Each `turn` runs the CLI once in the campaign's workspace with the campaign's message as the
/// prompt, reads its JSON event stream, charges one tool call per tool the model used, reports
/// the model usage the CLI printed, and returns the CLI's last assistant text. The campaign then
/// judges the candidate itself. The child gets `SOCRATIC_IN_CAMPAIGN_LOOP=1`, so a `socratic hook
/// stop` configured in the workspace steps aside (the loop is the judge). Heavy (Boost.Process).

#include <chrono>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "socratic/concepts.hpp"
#include "socratic/core/json.hpp"
#include "socratic/process/environment.hpp"
#include "socratic/process/run_process.hpp"

namespace socratic {

/// @brief Which CLI.
enum class CliKind { claude_code, codex };

/// @brief How to run the CLI.
struct CliAgentOptions {
  CliKind kind = CliKind::claude_code;
  std::string program;  ///< default `claude` or `codex` (found on PATH)
  int max_turns = 40;   ///< Claude Code's --max-turns per call (model requests in one turn)
  std::chrono::seconds timeout{3600};  ///< one CLI call
  std::string model;                   ///< passed as --model / -m when set
  /// Claude Code: tools allowed without asking (headless runs cannot ask).
  std::string allowed_tools = "Bash,Edit,Write,Read,Glob,Grep";
  std::vector<std::string> extra_args;  ///< appended before the prompt
  /// Variables set in the child on top of the scrubbed environment (e.g. ANTHROPIC_BASE_URL).
  std::map<std::string, std::string> environment;
  /// Secret variables passed through from this process (the scrubbed environment drops them),
  /// e.g. ANTHROPIC_API_KEY. Their values never reach the trace (the trace redacts them).
  std::vector<std::string> pass_secrets;
  /// The argv the CLI runs under, e.g. bubblewrap's (shell_sandbox.hpp: bubblewrap_argv with an
  /// empty command ends in `--`): the CLI then sees only what the sandbox lets through. Empty: none.
  std::vector<std::string> launcher;
};

/// @brief What one CLI call printed, parsed.
struct CliTurnOutput {
  std::string session_id;
  std::string final_text;
  int tool_uses = 0;
  std::vector<std::string> tool_names;
  Usage usage;
  std::string error;  ///< the CLI reported a failure
  bool max_turns_reached = false;
};

namespace detail {

/// Claude Code's stream-json: `system` (init, with session_id), `assistant` messages (content
/// blocks, tool_use among them), `user` (tool results), and a final `result`.
inline CliTurnOutput parse_claude_stream(const std::string& text) {
  CliTurnOutput out;
  std::istringstream lines(text);
  bool have_result = false;
  for (std::string line; std::getline(lines, line);) {
    if (line.empty() || line[0] != '{') continue;
    json e;
    try {
      e = json::parse(line);
    } catch (const std::exception&) {
      continue;  // a partial or non-JSON line: the result event decides
    }
    const std::string type = e.value("type", "");
    if (e.contains("session_id") && e["session_id"].is_string()) out.session_id = e["session_id"];
    if (type == "assistant" && e.contains("message") && e["message"].contains("content")) {
      for (const auto& block : e["message"]["content"]) {
        const std::string bt = block.value("type", "");
        if (bt == "tool_use") {
          ++out.tool_uses;
          out.tool_names.push_back(block.value("name", ""));
        } else if (bt == "text" && !block.value("text", "").empty()) {
          out.final_text = block.value("text", "");
        }
      }
    } else if (type == "result") {
      have_result = true;
      if (e.contains("result") && e["result"].is_string() && !e["result"].get<std::string>().empty())
        out.final_text = e["result"];
      out.usage.cost_usd = e.value("total_cost_usd", 0.0);
      if (e.contains("usage") && e["usage"].is_object()) {
        const json& u = e["usage"];
        out.usage.input_tokens = u.value("input_tokens", 0LL);
        out.usage.output_tokens = u.value("output_tokens", 0LL);
        out.usage.cache_read_tokens = u.value("cache_read_input_tokens", 0LL);
        out.usage.cache_write_tokens = u.value("cache_creation_input_tokens", 0LL);
      }
      out.usage.requests = e.value("num_turns", 0);
      const std::string subtype = e.value("subtype", "");
      out.max_turns_reached = subtype == "error_max_turns";
      if (e.value("is_error", false) && !out.max_turns_reached)
        out.error = "claude reported " + (subtype.empty() ? std::string("an error") : subtype) +
                    (e.contains("result") && e["result"].is_string() ? ": " + e["result"].get<std::string>() : "");
    }
  }
  if (!have_result && out.error.empty()) out.error = "claude printed no result event";
  return out;
}

/// Codex's `exec --json`: `thread.started` (thread_id), `item.completed` (agent_message,
/// command_execution, file_change, ...), `turn.completed` (usage), `turn.failed` / `error`.
inline CliTurnOutput parse_codex_stream(const std::string& text) {
  CliTurnOutput out;
  std::istringstream lines(text);
  bool completed = false;
  for (std::string line; std::getline(lines, line);) {
    if (line.empty() || line[0] != '{') continue;
    json e;
    try {
      e = json::parse(line);
    } catch (const std::exception&) {
      continue;
    }
    const std::string type = e.value("type", "");
    if (type == "thread.started") {
      out.session_id = e.value("thread_id", "");
    } else if (type == "item.completed" && e.contains("item")) {
      const json& item = e["item"];
      const std::string it = item.value("type", "");
      if (it == "agent_message") {
        out.final_text = item.value("text", "");
      } else if (it != "reasoning" && it != "error") {
        ++out.tool_uses;
        out.tool_names.push_back(it);
      }
    } else if (type == "turn.completed") {
      completed = true;
      if (e.contains("usage") && e["usage"].is_object()) {
        const json& u = e["usage"];
        out.usage.input_tokens += u.value("input_tokens", 0LL) - u.value("cached_input_tokens", 0LL);
        out.usage.cache_read_tokens += u.value("cached_input_tokens", 0LL);
        out.usage.output_tokens += u.value("output_tokens", 0LL);
      }
      ++out.usage.requests;
    } else if (type == "turn.failed") {
      out.error = "codex turn failed: " + (e.contains("error") ? e["error"].value("message", e["error"].dump()) : line);
    } else if (type == "error" && out.error.empty()) {
      out.error = "codex error: " + e.value("message", line);
    }
  }
  if (completed) out.error.clear();  // transient errors that the CLI retried past
  else if (out.error.empty()) out.error = "codex printed no turn.completed event";
  return out;
}

}  // namespace detail

/// @brief A coding-agent CLI as an Agent (see the file comment).
class CliAgent {
 public:
  explicit CliAgent(CliAgentOptions options) : options_(std::move(options)) {
    if (options_.program.empty()) options_.program = options_.kind == CliKind::claude_code ? "claude" : "codex";
  }

  /// @brief The CLI's session (Claude Code session id, Codex thread id), empty before the first turn.
  const std::string& session_id() const noexcept { return session_id_; }

  /// @brief The command line of the next call for this prompt (for logs and tests).
  std::vector<std::string> command_line(const std::string& prompt) const {
    std::vector<std::string> argv{options_.program};
    if (options_.kind == CliKind::claude_code) {
      argv.insert(argv.end(), {"-p", prompt, "--output-format", "stream-json", "--verbose", "--max-turns",
                               std::to_string(options_.max_turns)});
      if (!options_.allowed_tools.empty()) argv.insert(argv.end(), {"--allowedTools", options_.allowed_tools});
      if (!session_id_.empty()) argv.insert(argv.end(), {"--resume", session_id_});
      if (!options_.model.empty()) argv.insert(argv.end(), {"--model", options_.model});
      argv.insert(argv.end(), options_.extra_args.begin(), options_.extra_args.end());
    } else {
      argv.push_back("exec");
      if (!session_id_.empty()) argv.insert(argv.end(), {"resume", session_id_});
      argv.insert(argv.end(), {"--json", "--skip-git-repo-check"});
      if (!options_.model.empty()) argv.insert(argv.end(), {"-m", options_.model});
      argv.insert(argv.end(), options_.extra_args.begin(), options_.extra_args.end());
      argv.push_back(prompt);
    }
    return argv;
  }

  TurnResult turn(const Message& message, Tools& tools) {
    TurnResult result;
    if (!tools.charge(options_.kind == CliKind::claude_code ? "claude_cli" : "codex_cli")) {
      result.error = "budget spent before the CLI could run";
      return result;
    }
    ProcessOptions po;
    po.working_dir = tools.workspace();
    po.timeout = options_.timeout;
    po.max_output_bytes = 16 << 20;
    po.environment = child_environment();
    std::vector<std::string> argv = options_.launcher;
    const std::vector<std::string> cli = command_line(message.text);
    argv.insert(argv.end(), cli.begin(), cli.end());
    const ProcessResult run = run_process(argv, po);
    tools.record({{"kind", "cli_call"},
                  {"program", options_.program},
                  {"session", session_id_},
                  {"exit", run.describe()},
                  {"seconds", run.seconds}});
    if (!run.started) {
      result.error = "cannot run " + options_.program + ": " + run.error;
      return result;
    }
    CliTurnOutput parsed = options_.kind == CliKind::claude_code ? detail::parse_claude_stream(run.stdout_text)
                                                                  : detail::parse_codex_stream(run.stdout_text);
    if (!parsed.session_id.empty()) session_id_ = parsed.session_id;
    for (const auto& name : parsed.tool_names) {
      if (!tools.charge(name)) break;
      ++result.tool_calls;
    }
    result.usage = parsed.usage;
    tools.add_usage(parsed.usage);
    result.final_message = parsed.final_text;
    if (run.timed_out) {
      result.error = options_.program + " " + run.describe();
    } else if (!parsed.error.empty()) {
      std::string tail = run.stderr_text.size() > 1500 ? run.stderr_text.substr(run.stderr_text.size() - 1500)
                                                       : run.stderr_text;
      result.error = parsed.error + " (" + options_.program + " " + run.describe() + ")" +
                     (tail.empty() ? "" : ": " + tail);
    }
    return result;
  }

 private:
  std::vector<std::string> child_environment() const {
    std::vector<std::string> env;
    for (const auto& e : scrubbed_environment()) {
      const std::string name = e.substr(0, e.find('='));
      if (!options_.environment.count(name) && name != "SOCRATIC_IN_CAMPAIGN_LOOP") env.push_back(e);
    }
    for (const auto& name : options_.pass_secrets)
      if (const char* v = std::getenv(name.c_str()); v && !options_.environment.count(name))
        env.push_back(name + "=" + v);
    for (const auto& [k, v] : options_.environment) env.push_back(k + "=" + v);
    env.push_back("SOCRATIC_IN_CAMPAIGN_LOOP=1");
    return env;
  }

  CliAgentOptions options_;
  std::string session_id_;
};
static_assert(Agent<CliAgent>);

}  // namespace socratic
