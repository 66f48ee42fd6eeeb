// The tool's command line (CLI11, tools/socratic/cli.hpp): help on every command and subcommand,
// the output conventions, one-line errors with a hint; and the campaign file's round trip.
#include "catch.hpp"

#include <regex>
#include <sstream>

#include "campaign_file.hpp"
#include "tool_fixtures.hpp"

using namespace socratic;
using namespace tool_fixtures;

namespace {

/// Every command path of the tool, leaves and groups.
const std::vector<std::vector<std::string>> all_commands = {
    {"agent"}, {"ask"},  {"bank"},   {"bank", "lint"}, {"bank", "credit"}, {"demo"}, {"detect"},
    {"eval"},  {"evolve"}, {"hook"}, {"hook", "stop"}, {"init"},   {"mcp"}, {"problem"}, {"problem", "list"}, {"problem", "check"},
    {"problem", "header"}, {"report"},         {"run"},  {"scan"}, {"suite"}};

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

}  // namespace

TEST_CASE("every command and subcommand answers -h and --help with generated help", "[tool][cli]") {
  const ProcessResult top = socratic_run({"--help"});
  REQUIRE(top.exit_code == 0);
  // The top-level list names exactly the commands this test knows.
  std::set<std::string> listed;
  const std::regex row(R"(^  ([a-z]+) {2,}\S)");
  for (const auto& line : lines_of(top.stdout_text)) {
    std::smatch m;
    if (std::regex_search(line, m, row)) listed.insert(m[1]);
  }
  std::set<std::string> known;
  for (const auto& c : all_commands) known.insert(c.front());
  CHECK(listed == known);

  for (const auto& path : all_commands) {
    std::string name = "socratic";
    for (const auto& p : path) name += " " + p;
    INFO(name);
    for (const char* flag : {"-h", "--help"}) {
      auto args = path;
      args.push_back(flag);
      const ProcessResult r = socratic_run(args);
      CHECK(r.exit_code == 0);
      CHECK(r.stderr_text.empty());
      CHECK(r.stdout_text.rfind("Usage: " + name, 0) == 0);
      CHECK(r.stdout_text.find("-h,--help") != std::string::npos);
    }
    auto help = std::vector<std::string>{"help"};
    help.insert(help.end(), path.begin(), path.end());
    CHECK(socratic_run(help).stdout_text.rfind("Usage: " + name, 0) == 0);
  }
  // Short options where they help, the same letters everywhere.
  const std::string init = socratic_run({"init", "--help"}).stdout_text;
  CHECK(init.find("-p,--problem NAME") != std::string::npos);
  CHECK(init.find("-s,--scenarios SET") != std::string::npos);
  CHECK(socratic_run({"eval", "-h"}).stdout_text.find("-p,--problem NAME") != std::string::npos);
  CHECK(socratic_run({"report", "-h"}).stdout_text.find("-o,--output PATH") != std::string::npos);
  CHECK(socratic_run({"demo", "-h"}).stdout_text.find("-o,--output PATH") != std::string::npos);
  CHECK(socratic_run({"eval", "-h"}).stdout_text.find("-o,--output PATH") != std::string::npos);
  // Hidden aliases are accepted but not shown.
  CHECK(socratic_run({"demo", "-h"}).stdout_text.find("--out ") == std::string::npos);
  const ProcessResult version = socratic_run({"--version"});
  CHECK(version.exit_code == 0);
  CHECK(version.stdout_text.rfind("socratic ", 0) == 0);
}

TEST_CASE("command-line errors are one line that names the mistake, with a hint", "[tool][cli]") {
  struct Case {
    std::vector<std::string> args;
    std::string expected;
  };
  const std::vector<Case> cases = {
      {{"ini", "x"}, "socratic: unknown command \"ini\"; did you mean init? (see `socratic --help`)"},
      {{"init", "x", "-p", "softmax_cpu", "--scenarioz", "s.json"},
       "socratic init: unknown option --scenarioz; did you mean --scenarios? (see `socratic init --help`)"},
      {{"init", "x", "-p", "softmax_cpu"},
       "socratic init: missing required option --scenarios (see `socratic init --help`)"},
      {{"report", "t.jsonl", "--output"}, "socratic report: --output needs a value (see `socratic report --help`)"},
      {{"report"}, "socratic report: missing TRACE (see `socratic report --help`)"},
      {{"bank", "lnt"},
       "socratic bank: unknown subcommand \"lnt\"; did you mean lint? (one of: lint, credit) (see `socratic bank "
       "--help`)"},
      {{"bank"}, "socratic bank: needs a subcommand: lint, credit (see `socratic bank --help`)"},
      {{"detect", "a.jsonl", "b.jsonl"}, "socratic detect: unexpected argument \"b.jsonl\" (see `socratic detect --help`)"},
      {{"detect", "a.jsonl", "--plateau-evaluations", "0"},
       "socratic detect: --plateau-evaluations needs a whole number of at least 1, got \"0\" (see `socratic detect "
       "--help`)"},
  };
  for (const auto& c : cases) {
    const ProcessResult r = socratic_run(c.args);
    INFO(r.stdout_text << r.stderr_text);
    CHECK(r.exit_code == 2);
    CHECK(r.stdout_text.empty());
    CHECK(r.stderr_text == c.expected + "\n");
  }
  // A bad `hook stop` command line never fails open: the hook blocks with the error.
  const ProcessResult hook = socratic_run({"hook", "stop", "--campaing", "x.json"}, "{}");
  CHECK(hook.exit_code == 0);
  const json block = json::parse(hook.stdout_text);
  CHECK(block["decision"] == "block");
  CHECK(std::string(block["reason"]).find("unknown option --campaing; did you mean --campaign?") != std::string::npos);
}

TEST_CASE("output flags: -o/--output for what a command writes, --json for JSON on stdout", "[tool][cli]") {
  const fs::path dir = fresh_dir("cli_output");
  const fs::path trace = source_dir() / "demo" / "softmax-cpu" / "trace.jsonl";
  for (const char* flag : {"-o", "--output"}) {
    const fs::path out = dir / (std::string(flag == std::string("-o") ? "short" : "long") + ".html");
    const ProcessResult r = socratic_run({"report", trace.string(), flag, out.string()});
    INFO(r.stderr_text);
    CHECK(r.exit_code == 0);
    CHECK(fs::file_size(out) > 1000);
    CHECK(r.stdout_text == out.string() + "\n");
  }
  const ProcessResult equals = socratic_run({"report", trace.string(), "--output=" + (dir / "eq.html").string()});
  CHECK(equals.exit_code == 0);
  CHECK(fs::exists(dir / "eq.html"));
  // `--json` is a flag wherever it appears: machine-readable output on stdout.
  const ProcessResult lint = socratic_run({"bank", "lint", "--json"});
  CHECK(json::parse(lint.stdout_text)["ok"] == true);
  const ProcessResult ask = socratic_run({"ask", "-t", "start", "--arch", "sm_90", "--json"});
  CHECK(json::parse(ask.stdout_text)["trigger"] == "start");
}

TEST_CASE("campaign file: every field survives load, save and load again, paths stay relative",
          "[tool][campaign-file]") {
  const fs::path dir = fresh_dir("campaign_roundtrip");
  // Every field away from its default; every path relative to the file's folder.
  const json original = json::parse(R"({
    "schema_version": 1,
    "problem": "softmax_cpu",
    "scenarios": "scenarios/set.json",
    "workspace": "ws",
    "candidate": "src/candidate.cpp",
    "state_dir": "state",
    "task": "Make it fast.",
    "campaign_id": "round-trip",
    "arch": "sm_90",
    "description": "a campaign file with every field set",
    "goal": {"all_of": [{"all_correct": {}}, {"every_scenario_speedup_at_least": 1.25}]},
    "budget": {"turns": 7, "tool_calls": 70, "evaluations": 21, "tokens": 123456, "wall_seconds": 3600.5,
               "cost_usd": 12.5},
    "questions": {"bank": "bank", "seed": 42, "adaptive": true, "credits": "credits.json",
                  "exploration_rate": 0.35, "has_reference": true, "anchors": "anchors.json",
                  "anchor_id": "s{s}_d{d}", "kinds": ["cpu"]},
    "evaluator": {"kind": "command", "command": ["bash", "evaluate.sh", "{candidate}", "{scenarios}"],
                  "timeout_s": 90.0, "arch": "sm_90a", "baseline": "baseline.cpp", "settings": {"k": 3.0}},
    "agent": {"backend": "replay", "model": "m-1", "base_url": "http://127.0.0.1:9/v1",
              "api_key_env": "MY_KEY", "api_key_file": "keys/key.txt", "replay_trace": "recorded/trace.jsonl",
              "max_turns_per_cli_call": 5, "cli_timeout_s": 99.0, "cli_extra_args": ["--flag", "value"],
              "sandbox": "none", "network": true, "sandbox_expose": ["tools/nvcc"], "context_window": 32768,
              "max_tokens": 2048, "retry": {"max_time_s": 120.0, "max_retries": 7, "initial_delay_s": 1.0,
              "max_delay_s": 9.0},
              "http": {"connect_timeout_s": 3.0, "read_timeout_s": 30.0, "total_timeout_s": 60.0,
                       "max_response_bytes": 1048576}},
    "hook": {"max_consecutive_blocks": 3}
  })");
  write_text(dir / "campaign.json", original.dump(2));

  const tool::CampaignFile first = tool::load_campaign_file(dir / "campaign.json");
  CHECK(first.agent.replay_trace == dir / "recorded" / "trace.jsonl");  // read as absolute paths
  CHECK(first.agent.cli_extra_args == std::vector<std::string>{"--flag", "value"});
  CHECK(first.description == "a campaign file with every field set");

  tool::CampaignFile copy = first;
  copy.file = dir / "copy.json";
  tool::save_campaign_file(copy);
  const json written = json::parse(read_text(dir / "copy.json"));
  CHECK(written == original);  // the same document: every field, paths written relative again
  if (written != original) CHECK(json::diff(original, written).dump() == "[]");

  const tool::CampaignFile second = tool::load_campaign_file(dir / "copy.json");
  CHECK(second.problem == first.problem);
  CHECK(second.scenarios == first.scenarios);
  CHECK(second.workspace == first.workspace);
  CHECK(second.candidate == first.candidate);
  CHECK(second.state_dir == first.state_dir);
  CHECK(second.task == first.task);
  CHECK(second.campaign_id == first.campaign_id);
  CHECK(second.arch == first.arch);
  CHECK(second.description == first.description);
  CHECK(second.goal.spec() == first.goal.spec());
  CHECK(json(second.budget) == json(first.budget));
  CHECK(second.questions.bank == first.questions.bank);
  CHECK(second.questions.seed == first.questions.seed);
  CHECK(second.questions.adaptive == first.questions.adaptive);
  CHECK(second.questions.credits == first.questions.credits);
  CHECK(second.questions.exploration_rate == first.questions.exploration_rate);
  CHECK(second.questions.has_reference == first.questions.has_reference);
  CHECK(second.questions.anchors == first.questions.anchors);
  CHECK(second.questions.anchor_id == first.questions.anchor_id);
  CHECK(second.questions.kinds == first.questions.kinds);
  CHECK(second.evaluator.kind == first.evaluator.kind);
  CHECK(second.evaluator.command == first.evaluator.command);
  CHECK(second.evaluator.timeout_s == first.evaluator.timeout_s);
  CHECK(second.evaluator.arch == first.evaluator.arch);
  CHECK(second.evaluator.baseline == first.evaluator.baseline);
  CHECK(second.evaluator.extra == first.evaluator.extra);
  CHECK(first.agent.backend == LlmProvider::replay);
  CHECK(second.agent.backend == first.agent.backend);
  CHECK(second.agent.model == first.agent.model);
  CHECK(second.agent.base_url == first.agent.base_url);
  CHECK(second.agent.api_key_env == first.agent.api_key_env);
  CHECK(second.agent.api_key_file == first.agent.api_key_file);
  CHECK(second.agent.replay_trace == first.agent.replay_trace);
  CHECK(second.agent.max_turns_per_cli_call == first.agent.max_turns_per_cli_call);
  CHECK(second.agent.cli_timeout_s == first.agent.cli_timeout_s);
  CHECK(second.agent.cli_extra_args == first.agent.cli_extra_args);
  CHECK(second.agent.sandbox == first.agent.sandbox);
  CHECK(second.agent.network == first.agent.network);
  CHECK(second.agent.sandbox_expose == first.agent.sandbox_expose);
  CHECK(second.agent.context_window == first.agent.context_window);
  CHECK(second.agent.max_tokens == first.agent.max_tokens);
  CHECK(second.agent.retry_time_s == first.agent.retry_time_s);
  CHECK(second.agent.max_retries == first.agent.max_retries);
  CHECK(second.agent.retry_initial_delay_s == first.agent.retry_initial_delay_s);
  CHECK(second.agent.retry_max_delay_s == first.agent.retry_max_delay_s);
  CHECK(second.agent.connect_timeout_s == first.agent.connect_timeout_s);
  CHECK(second.agent.read_timeout_s == first.agent.read_timeout_s);
  CHECK(second.agent.total_timeout_s == first.agent.total_timeout_s);
  CHECK(first.agent.max_response_bytes == 1048576);
  CHECK(second.agent.max_response_bytes == first.agent.max_response_bytes);
  CHECK(second.max_consecutive_blocks == first.max_consecutive_blocks);

  // A backend of no known provider is refused, naming the field and the names it takes.
  json wrong = original;
  wrong["agent"]["backend"] = "claude";
  write_text(dir / "wrong.json", wrong.dump());
  CHECK_THROWS_WITH(tool::load_campaign_file(dir / "wrong.json"),
                    Catch::Matchers::Contains("agent field \"backend\"") && Catch::Matchers::Contains("\"claude\"") &&
                        Catch::Matchers::Contains("openai, anthropic or replay"));
  // A path outside the file's folder is written absolute (relative to nothing the reader knows).
  copy.scenarios = "/elsewhere/set.json";
  tool::save_campaign_file(copy);
  CHECK(json::parse(read_text(dir / "copy.json"))["scenarios"] == "/elsewhere/set.json");
}
