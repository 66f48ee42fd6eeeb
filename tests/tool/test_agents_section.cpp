// The campaign file's `agents` section (docs/parallel.md): count, kinds, roles, budgets, the
// agents' folder apart from the workspace and the state; strict errors that name the field.
#include "catch.hpp"

#include "campaign_file.hpp"
#include "tool_fixtures.hpp"

using namespace socratic;
using namespace tool_fixtures;

namespace {

/// A minimal campaign file with `agents` as its agents section.
fs::path campaign_with_agents(const fs::path& dir, const json& agents) {
  json c{{"schema_version", 1},          {"problem", "softmax_cpu"},  {"scenarios", "scenarios.json"},
         {"workspace", "workspace"},     {"candidate", "candidate.cpp"}, {"state_dir", "state"},
         {"evaluator", {{"kind", "command"}, {"command", {"bash", "evaluate.sh", "{candidate}"}}}}};
  if (!agents.is_null()) c["agents"] = agents;
  write_text(dir / "campaign.json", c.dump(2));
  return dir / "campaign.json";
}

/// The error a campaign file with this agents section gives (empty: none).
std::string agents_error(const fs::path& dir, const std::string& agents) {
  try {
    (void)tool::load_campaign_file(campaign_with_agents(dir, json::parse(agents)));
  } catch (const input_error& e) {
    return e.what();
  }
  return {};
}

}  // namespace

TEST_CASE("agents section: count, kinds, roles and budgets, each agent its own workspace", "[tool][campaign-file][agents]") {
  const fs::path dir = fresh_dir("agents_section");
  SECTION("absent: one agent, as before") {
    const tool::CampaignFile c = tool::load_campaign_file(campaign_with_agents(dir, nullptr));
    CHECK_FALSE(c.agents.present);
    CHECK(c.agents.agents.empty());
    CHECK_FALSE(json::parse(read_text(dir / "campaign.json")).contains("agents"));
  }
  SECTION("a count alone: that many agents of the default kind, ids and folders numbered") {
    const tool::CampaignFile c = tool::load_campaign_file(campaign_with_agents(dir, {{"count", 3}}));
    REQUIRE(c.agents.present);
    REQUIRE(c.agents.agents.size() == 3);
    CHECK(c.agents.agents[0].id == "agent-1");
    CHECK(c.agents.agents[2].id == "agent-3");
    for (const auto& a : c.agents.agents) {
      CHECK(a.kind == tool::AgentKind::llm);
      CHECK(a.workspace == dir / "agents" / a.id);
      CHECK_FALSE(a.budget);
    }
  }
  SECTION("roles set kinds, ids, role texts, question groups and budgets; the rest take the defaults") {
    const json agents = json::parse(R"({
      "count": 3, "kind": "claude-code", "budget": {"turns": 5, "evaluations": 9}, "folder": "team",
      "max_proposals": 12,
      "roles": [
        {"id": "memory", "role": "Work on the memory layout.", "question_group": "memory",
         "budget": {"turns": 2}, "max_proposals": 4, "program": "bin/claude", "model": "m-2"},
        {"kind": "codex", "program": "codex"}
      ]})");
    const tool::CampaignFile c = tool::load_campaign_file(campaign_with_agents(dir, agents));
    REQUIRE(c.agents.agents.size() == 3);
    const auto& a = c.agents.agents;
    CHECK(a[0].id == "memory");
    CHECK(a[0].kind == tool::AgentKind::claude_code);
    CHECK(a[0].role == "Work on the memory layout.");
    CHECK(a[0].question_group == "memory");
    CHECK(a[0].model == "m-2");
    CHECK(a[0].max_proposals == 4);
    CHECK_FALSE(a[1].max_proposals);
    CHECK(c.agents.max_proposals == 12);
    REQUIRE(a[0].budget);
    CHECK(a[0].budget->turns == 2);
    CHECK_FALSE(a[0].budget->evaluations);  // its own budget replaces the section's
    CHECK(a[0].program == dir / "bin" / "claude");
    CHECK(a[0].workspace == dir / "team" / "memory");
    CHECK(a[1].id == "agent-2");
    CHECK(a[1].kind == tool::AgentKind::codex);
    CHECK(a[1].program == fs::path("codex"));  // a bare name: found on PATH
    REQUIRE(a[1].budget);
    CHECK(a[1].budget->turns == 5);
    CHECK(a[1].budget->evaluations == 9);
    CHECK(a[2].kind == tool::AgentKind::claude_code);
    CHECK(a[2].workspace == dir / "team" / "agent-3");

    // Saved and read again: the same agents.
    tool::CampaignFile copy = c;
    copy.file = dir / "copy.json";
    tool::save_campaign_file(copy);
    const tool::CampaignFile again = tool::load_campaign_file(dir / "copy.json");
    REQUIRE(again.agents.agents.size() == 3);
    for (std::size_t i = 0; i < 3; ++i) {
      INFO(i);
      CHECK(again.agents.agents[i].id == a[i].id);
      CHECK(again.agents.agents[i].kind == a[i].kind);
      CHECK(again.agents.agents[i].role == a[i].role);
      CHECK(again.agents.agents[i].question_group == a[i].question_group);
      CHECK(json(again.agents.agents[i].budget.value_or(Budget{})) == json(a[i].budget.value_or(Budget{})));
      CHECK(again.agents.agents[i].program == a[i].program);
      CHECK(again.agents.agents[i].workspace == a[i].workspace);
      CHECK(again.agents.agents[i].max_proposals == a[i].max_proposals);
    }
    CHECK(again.agents.max_proposals == 12);
    CHECK(json::parse(read_text(dir / "copy.json"))["agents"]["folder"] == "team");
  }
  SECTION("roles without a count: one agent per role") {
    const tool::CampaignFile c = tool::load_campaign_file(
        campaign_with_agents(dir, json::parse(R"({"roles": [{"role": "a"}, {"role": "b"}]})")));
    CHECK(c.agents.agents.size() == 2);
  }
  SECTION("a replay agent plays the recording its role names") {
    const tool::CampaignFile c = tool::load_campaign_file(
        campaign_with_agents(dir, json::parse(R"({"roles": [{"kind": "replay", "recording": "rec"}]})")));
    REQUIRE(c.agents.agents.size() == 1);
    CHECK(c.agents.agents[0].recording == dir / "rec");
  }
  SECTION("an inbox agent's mailbox: its role's inbox (or folder), else mailboxes/ID; read back") {
    const tool::CampaignFile c = tool::load_campaign_file(campaign_with_agents(
        dir, json::parse(R"({"kind": "inbox", "roles": [{"id": "a", "inbox": "mail/a"}, {"id": "b", "folder": "/abs/b"}, {"id": "c"}]})")));
    REQUIRE(c.agents.agents.size() == 3);
    CHECK(c.agents.agents[0].inbox == dir / "mail" / "a");
    CHECK(c.agents.agents[1].inbox == fs::path("/abs/b"));
    CHECK(c.agents.agents[2].inbox == dir / "mailboxes" / "c");
    const json back = tool::agents_section_json(c.agents, dir);
    CHECK(back["roles"][0]["inbox"] == "mail/a");
    CHECK(back["roles"][0]["kind"] == "inbox");
  }
}

TEST_CASE("agents section: bad input is refused with the field named", "[tool][campaign-file][agents]") {
  const fs::path dir = fresh_dir("agents_section_errors");
  const auto expect = [&](const std::string& agents, const std::string& where, const std::string& why) {
    const std::string e = agents_error(dir, agents);
    INFO(agents << "\n-> " << e);
    CHECK(e.find((dir / "campaign.json").string()) != std::string::npos);
    CHECK(e.find(where) != std::string::npos);
    CHECK(e.find(why) != std::string::npos);
  };
  expect(R"([2])", "agents", "expected an object");
  expect(R"({"count": 0})", "agents field \"count\"", "at least 1");
  expect(R"({"count": 65})", "agents field \"count\"", "at most 64");
  expect(R"({"count": "two"})", "count", "");
  expect(R"({"count": 2, "kinds": ["llm"]})", "kinds", "");
  expect(R"({"kind": "gpt"})", "agents field \"kind\"", "\"gpt\" is not llm, claude-code, codex, replay or inbox");
  expect(R"({"count": 1, "roles": [{}, {}]})", "agents field \"roles\"", "2 roles for 1 agents");
  expect(R"({"roles": {"id": "a"}})", "agents field \"roles\"", "expected an array");
  expect(R"({"roles": ["memory"]})", "agents.roles[0]", "expected an object");
  expect(R"({"roles": [{"kind": "llm"}, {"kind": "bard"}]})", "agents.roles[1] field \"kind\"", "\"bard\" is not");
  expect(R"({"roles": [{"id": "a"}, {"id": "a"}]})", "agents.roles[1] field \"id\"", "\"a\" is used twice");
  expect(R"({"roles": [{"id": "../up"}]})", "agents.roles[0] field \"id\"", "not a usable id");
  expect(R"({"roles": [{"colour": "red"}]})", "agents.roles[0]", "colour");
  expect(R"({"roles": [{"kind": "llm", "program": "claude"}]})", "agents.roles[0] field \"program\"",
         "only a claude-code or codex agent");
  expect(R"({"roles": [{"kind": "replay"}]})", "agents.roles[0] field \"recording\"", "needs the recorded campaign");
  expect(R"({"kind": "replay", "count": 1})", "agents field \"roles\"", "without a role entry");
  expect(R"({"roles": [{"recording": "rec"}]})", "agents.roles[0] field \"recording\"", "only a replay agent");
  expect(R"({"roles": [{"inbox": "mail"}]})", "agents.roles[0] field \"inbox\"", "only an inbox agent");
  expect(R"({"roles": [{"kind": "inbox", "inbox": "a", "folder": "b"}]})", "agents.roles[0] field \"folder\"",
         "both name the mailbox");
  expect(R"({"roles": [{"kind": "inbox", "folder": "state/mail"}]})", "agents.roles[0] field \"folder\"",
         "lies in the state folder");
  expect(R"({"max_proposals": 0})", "agents field \"max_proposals\"", "at least 1");
  expect(R"({"roles": [{"max_proposals": -2}]})", "agents.roles[0] field \"max_proposals\"", "at least 1");
  expect(R"({"budget": {"turns": "many"}})", "agents field \"budget\"", "");
  expect(R"({"roles": [{"budget": {"laps": 3}}]})", "agents.roles[0] field \"budget\"", "laps");
  expect(R"({"folder": "workspace/agents"})", "agents field \"folder\"", "overlap");
  expect(R"({"folder": "."})", "agents field \"folder\"", "overlap");
  expect(R"({"folder": "state/agents"})", "agents field \"folder\"", "the agents must not reach the store");
  expect(R"({"api_key": "sk-123"})", "agents field \"api_key\"", "API keys never go in a campaign file");
}

TEST_CASE("init --agents N writes an agents section that reads back", "[tool][campaign-file][agents][init]") {
  const fs::path dir = fresh_dir("init_agents") / "campaign";
  const ProcessResult r = init_cpu_campaign(dir, "none", R"({"all_correct":{}})", {"--agents", "3", "--agents-kind", "codex"});
  INFO(r.stdout_text << r.stderr_text);
  REQUIRE(r.exit_code == 0);
  const tool::CampaignFile c = tool::load_campaign_file(dir / "campaign.json");
  REQUIRE(c.agents.agents.size() == 3);
  CHECK(c.agents.agents[1].id == "agent-2");
  CHECK(c.agents.agents[1].kind == tool::AgentKind::codex);
  CHECK(c.agents.agents[2].workspace == dir / "agents" / "agent-3");
  CHECK(json::parse(read_text(dir / "campaign.json"))["agents"]["folder"] == "agents");

  const fs::path other = fresh_dir("init_agents_bad") / "campaign";
  ProcessResult bad = init_cpu_campaign(other, "none", R"({"all_correct":{}})", {"--agents", "2", "--agents-kind", "bard"});
  CHECK(bad.exit_code == 2);
  CHECK(bad.stderr_text.find("--agents-kind must be llm, claude-code or codex") != std::string::npos);
  bad = init_cpu_campaign(other, "none", R"({"all_correct":{}})", {"--agents", "0"});
  CHECK(bad.exit_code == 2);
  CHECK(bad.stderr_text.find("--agents") != std::string::npos);
}
