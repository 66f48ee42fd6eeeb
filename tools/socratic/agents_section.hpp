#pragma once
// The campaign file's `agents` section (docs/parallel.md): how many agents work at once on the
// campaign's one store, of which kinds, with which roles, within which budgets. Absent: one agent,
// as before. Each agent gets its own workspace under the campaign folder (never inside another's,
// never near the state), its own conversation and its own sandbox.

#include <cctype>
#include <filesystem>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "socratic/core/budget.hpp"
#include "socratic/core/error.hpp"
#include "socratic/core/json.hpp"

namespace socratic::tool {

/// The kinds of agent a campaign file can name: `llm` (the in-process LLM agent with the `agent`
/// section's backend), `claude-code` and `codex` (the CLI headless, CliAgent), `replay` (a
/// recorded campaign's actions), `inbox` (an outside agent answering through a mailbox).
enum class AgentKind { llm, claude_code, codex, replay, inbox };
inline constexpr const char* agent_kind_names = "llm, claude-code, codex, replay or inbox";

constexpr std::string_view to_string(AgentKind k) noexcept {
  switch (k) {
    case AgentKind::llm: return "llm";
    case AgentKind::claude_code: return "claude-code";
    case AgentKind::codex: return "codex";
    case AgentKind::replay: return "replay";
    case AgentKind::inbox: return "inbox";
  }
  return "unknown";
}

constexpr std::optional<AgentKind> parse_agent_kind(std::string_view name) noexcept {
  for (const AgentKind k : {AgentKind::llm, AgentKind::claude_code, AgentKind::codex, AgentKind::replay, AgentKind::inbox})
    if (to_string(k) == name) return k;
  return std::nullopt;
}

/// A CLI agent (claude-code, codex): it runs a program of its own.
constexpr bool runs_cli(AgentKind k) noexcept { return k == AgentKind::claude_code || k == AgentKind::codex; }

/// One agent of a parallel campaign.
struct AgentEntry {
  std::string id;    ///< unique; names its workspace folder and its steps in the trace
  AgentKind kind = AgentKind::llm;
  std::string role;            ///< text added to its task (e.g. "work on the memory layout")
  std::string question_group;  ///< the bank group its questions come from first, when one fits
  std::optional<Budget> budget;  ///< its own limits (none: the section's `budget`)
  std::optional<int> max_proposals;  ///< its gated proposals at most (counted in the store)
  std::string model;             ///< overrides agent.model for this one
  std::optional<std::filesystem::path> program;    ///< claude-code, codex: the CLI's executable
  std::optional<std::filesystem::path> recording;  ///< replay: the recorded campaign's folder
  /// inbox: the mailbox folder (InboxAgent, agents/inbox_agent.hpp); a suite gives each problem
  /// its own `MAILBOX/PROBLEM`
  std::optional<std::filesystem::path> inbox;
  std::string inbox_problem;  ///< inbox: the problem's name its outbox files say (a suite's name)
  std::filesystem::path workspace;  ///< `<folder>/<id>`, absolute
};

/// The whole section.
struct AgentsSettings {
  bool present = false;             ///< the file has an `agents` section
  std::vector<AgentEntry> agents;   ///< `count` of them
  std::optional<Budget> budget;     ///< each agent's own limits unless its entry says otherwise
  std::filesystem::path folder;     ///< where the workspaces go (absolute)
  std::optional<int> max_proposals;  ///< gated proposals of the whole campaign (counted in the store)
};

namespace detail {

inline Budget parse_budget(const json& j, const std::string& where) {
  try {
    return j.get<Budget>();
  } catch (const input_error& e) {
    throw input_error({}, where, e.message());
  } catch (const std::exception& e) {
    throw input_error({}, where, e.what());
  }
}

/// Field `kind` of `j` (`fallback` when absent), an input_error naming `where` otherwise.
inline AgentKind agent_kind_field(const json& j, AgentKind fallback, const std::string& where) {
  const std::string name = optional_field<std::string>(j, "kind", std::string(to_string(fallback)), where);
  if (const auto k = parse_agent_kind(name)) return *k;
  throw input_error({}, where + " field \"kind\"", "\"" + name + "\" is not " + agent_kind_names);
}

inline bool valid_agent_id(const std::string& id) {
  if (id.empty() || id.size() > 64 || id == "." || id == "..") return false;
  for (char ch : id)
    if (!(std::isalnum(static_cast<unsigned char>(ch)) || ch == '-' || ch == '_' || ch == '.')) return false;
  return true;
}

}  // namespace detail

/// Reads the `agents` section. `base` is the campaign file's folder; `workspace` and `state_dir`
/// are the campaign's (the agents' folder must lie outside both, and they outside it).
/// `reject_unknown` is the file's unknown-field check. Errors name the field.
template <class RejectUnknown>
AgentsSettings parse_agents_section(const json& j, const std::filesystem::path& base,
                                    const std::filesystem::path& workspace, const std::filesystem::path& state_dir,
                                    RejectUnknown reject_unknown) {
  namespace fs = std::filesystem;
  AgentsSettings s;
  s.present = true;
  if (!j.is_object()) throw input_error({}, "agents", "expected an object");
  reject_unknown(j, "agents", {"count", "kind", "budget", "folder", "roles", "max_proposals"});
  const AgentKind kind = detail::agent_kind_field(j, AgentKind::llm, "agents");
  if (j.contains("budget") && !j["budget"].is_null()) s.budget = detail::parse_budget(j["budget"], "agents field \"budget\"");
  const std::string folder = optional_field<std::string>(j, "folder", "agents", "agents");
  {
    fs::path p(folder);
    s.folder = (p.is_absolute() ? p : base / p).lexically_normal();
  }
  const auto inside = [](const fs::path& p, const fs::path& dir) {
    const auto rel = p.lexically_relative(dir);
    return !rel.empty() && rel.native().rfind("..", 0) != 0;
  };
  if (inside(s.folder, workspace) || inside(workspace, s.folder))
    throw input_error({}, "agents field \"folder\"",
                      "\"" + s.folder.string() + "\" and the workspace " + workspace.string() +
                          " overlap: each agent's workspace must lie apart from the campaign's");
  if (inside(s.folder, state_dir) || inside(state_dir, s.folder))
    throw input_error({}, "agents field \"folder\"",
                      "\"" + s.folder.string() + "\" and the state folder " + state_dir.string() +
                          " overlap: the agents must not reach the store, the trace or the judge's records");

  s.max_proposals = optional_value<int>(j, "max_proposals", "agents");
  if (s.max_proposals && *s.max_proposals < 1) throw input_error({}, "agents field \"max_proposals\"", "must be at least 1");
  const json roles = optional_field<json>(j, "roles", json::array(), "agents");
  if (!roles.is_array()) throw input_error({}, "agents field \"roles\"", "expected an array of objects");
  const int count = optional_field<int>(j, "count", static_cast<int>(roles.size()), "agents");
  if (count < 1) throw input_error({}, "agents field \"count\"", "must be at least 1 (or leave the section out)");
  if (count > 64) throw input_error({}, "agents field \"count\"", "at most 64 agents, not " + std::to_string(count));
  if (static_cast<int>(roles.size()) > count)
    throw input_error({}, "agents field \"roles\"",
                      std::to_string(roles.size()) + " roles for " + std::to_string(count) +
                          " agents: raise \"count\" or drop a role");
  std::set<std::string> ids;
  for (int i = 0; i < count; ++i) {
    AgentEntry a;
    a.kind = kind;
    a.id = "agent-" + std::to_string(i + 1);
    if (i < static_cast<int>(roles.size())) {
      const json& r = roles[static_cast<std::size_t>(i)];
      const std::string where = "agents.roles[" + std::to_string(i) + "]";
      if (!r.is_object()) throw input_error({}, where, "expected an object");
      reject_unknown(r, where, {"id", "kind", "role", "question_group", "budget", "max_proposals", "model", "program", "recording",
                         "inbox", "folder"});
      a.id = optional_field<std::string>(r, "id", a.id, where);
      a.kind = detail::agent_kind_field(r, kind, where);
      a.role = optional_field<std::string>(r, "role", "", where);
      a.question_group = optional_field<std::string>(r, "question_group", "", where);
      if (r.contains("budget") && !r["budget"].is_null()) a.budget = detail::parse_budget(r["budget"], where + " field \"budget\"");
      a.max_proposals = optional_value<int>(r, "max_proposals", where);
      if (a.max_proposals && *a.max_proposals < 1)
        throw input_error({}, where + " field \"max_proposals\"", "must be at least 1");
      a.model = optional_field<std::string>(r, "model", "", where);
      if (auto p = optional_value<std::string>(r, "program", where)) {
        if (!runs_cli(a.kind))
          throw input_error({}, where + " field \"program\"", "only a claude-code or codex agent runs a program");
        fs::path pp(*p);
        // A bare name is found on PATH; a path is the campaign folder's.
        a.program = pp.has_parent_path() ? (pp.is_absolute() ? pp : base / pp).lexically_normal() : pp;
      }
      if (auto p = optional_value<std::string>(r, "recording", where)) {
        fs::path pp(*p);
        a.recording = (pp.is_absolute() ? pp : base / pp).lexically_normal();
      }
      if (r.contains("inbox") && r.contains("folder"))
        throw input_error({}, where + " field \"folder\"", "\"inbox\" and \"folder\" both name the mailbox: give one");
      for (const char* k : {"inbox", "folder"})
        if (auto p = optional_value<std::string>(r, k, where)) {
          if (a.kind != AgentKind::inbox)
            throw input_error({}, where + " field \"" + k + "\"", "only an inbox agent has a mailbox folder");
          fs::path pp(*p);
          a.inbox = (pp.is_absolute() ? pp : base / pp).lexically_normal();
          if (inside(*a.inbox, state_dir) || *a.inbox == state_dir.lexically_normal())
            throw input_error({}, where + " field \"" + k + "\"",
                              "\"" + a.inbox->string() + "\" lies in the state folder: the outside agent must not reach the store");
        }
      if (!detail::valid_agent_id(a.id))
        throw input_error({}, where + " field \"id\"",
                          "\"" + a.id + "\" is not a usable id (letters, digits, '-', '_', '.'; at most 64)");
      if (a.kind == AgentKind::replay && !a.recording)
        throw input_error({}, where + " field \"recording\"", "a replay agent needs the recorded campaign's folder");
      if (a.kind != AgentKind::replay && a.recording)
        throw input_error({}, where + " field \"recording\"", "only a replay agent plays a recording");
    } else if (a.kind == AgentKind::replay) {
      throw input_error({}, "agents field \"roles\"",
                        "agent " + std::to_string(i + 1) +
                            " is a replay agent without a role entry naming its \"recording\"");
    }
    // An inbox agent without a folder: `mailboxes/ID` beside the campaign (or suite) file.
    if (a.kind == AgentKind::inbox && !a.inbox) a.inbox = (base / "mailboxes" / a.id).lexically_normal();
    if (!a.budget) a.budget = s.budget;
    if (!ids.insert(a.id).second)
      throw input_error({}, "agents.roles[" + std::to_string(i) + "] field \"id\"", "\"" + a.id + "\" is used twice");
    a.workspace = s.folder / a.id;
    s.agents.push_back(std::move(a));
  }
  return s;
}

/// The section as JSON (paths relative to `base` where they lie under it); the parser reads it back.
inline json agents_section_json(const AgentsSettings& s, const std::filesystem::path& base) {
  const auto path = [&](const std::filesystem::path& p) {
    auto rel = p.lexically_relative(base);
    return !rel.empty() && rel.native().rfind("..", 0) != 0 ? rel.string() : p.string();
  };
  json out{{"count", s.agents.size()}, {"folder", path(s.folder)}};
  std::optional<AgentKind> common = s.agents.empty() ? AgentKind::llm : s.agents.front().kind;
  for (const auto& a : s.agents)
    if (a.kind != common) common.reset();
  if (common) out["kind"] = std::string(to_string(*common));
  if (s.budget) out["budget"] = *s.budget;
  if (s.max_proposals) out["max_proposals"] = *s.max_proposals;
  json roles = json::array();
  for (const auto& a : s.agents) {
    json r{{"id", a.id}, {"kind", std::string(to_string(a.kind))}};
    if (!a.role.empty()) r["role"] = a.role;
    if (!a.question_group.empty()) r["question_group"] = a.question_group;
    if (a.budget && a.budget != s.budget) r["budget"] = *a.budget;
    if (a.max_proposals) r["max_proposals"] = *a.max_proposals;
    if (!a.model.empty()) r["model"] = a.model;
    if (a.program) r["program"] = a.program->has_parent_path() ? path(*a.program) : a.program->string();
    if (a.recording) r["recording"] = path(*a.recording);
    if (a.inbox) r["inbox"] = path(*a.inbox);
    roles.push_back(std::move(r));
  }
  out["roles"] = std::move(roles);
  return out;
}

}  // namespace socratic::tool
