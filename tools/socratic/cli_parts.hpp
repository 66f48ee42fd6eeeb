#pragma once
// A coding-agent CLI (CliAgent) as a campaign file describes it: model, base URL, the key from
// the variable or file the file names (never from the file itself). Shared by `socratic agent`
// and the agents of a parallel `socratic run`.
#include <cstdlib>
#include <string>

#include "campaign_file.hpp"
#include "socratic/agents/cli_agent.hpp"
#include "socratic/core/files.hpp"
#include "socratic/core/redact.hpp"

namespace socratic::tool {

/// The CLI's options from the campaign file's `agent` settings; `program` empty: found on PATH.
inline CliAgentOptions cli_agent_options(const AgentSettings& a, CliKind kind, const std::string& program) {
  const bool claude = kind == CliKind::claude_code;
  CliAgentOptions options;
  options.kind = kind;
  options.program = program;
  options.max_turns = a.max_turns_per_cli_call;
  options.timeout = std::chrono::seconds(static_cast<long long>(a.cli_timeout_s));
  options.model = a.model;
  options.extra_args = a.cli_extra_args;
  const std::string default_key_var = claude ? "ANTHROPIC_API_KEY" : "OPENAI_API_KEY";
  const std::string key_var = !a.api_key_env.empty() ? a.api_key_env : default_key_var;
  if (a.base_url) options.environment[claude ? "ANTHROPIC_BASE_URL" : "OPENAI_BASE_URL"] = *a.base_url;
  if (a.api_key_file) {
    std::string key = socratic::read_file_bytes(*a.api_key_file);
    while (!key.empty() && (key.back() == '\n' || key.back() == '\r' || key.back() == ' ')) key.pop_back();
    register_secret(key);
    options.environment[default_key_var] = key;
  } else if (const char* v = std::getenv(key_var.c_str()); v && *v) {
    register_secret(v);
    options.environment[default_key_var] = v;
  }
  for (const char* pass : {"ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "OPENAI_API_KEY", "CODEX_API_KEY"})
    options.pass_secrets.push_back(pass);
  return options;
}

}  // namespace socratic::tool
