// What a new user meets first: the rough edges of the tool's commands, each a case that failed
// before its fix (a raw stream error, a doubled prefix, output out of order, a minute of building
// on a machine that cannot run the result).
#include "catch.hpp"

#include <chrono>

#include "socratic/agents/llm_agent.hpp"
#include "socratic/questions/lint.hpp"
#include "tool_fixtures.hpp"

using namespace socratic;
using namespace tool_fixtures;

TEST_CASE("report takes a campaign folder, and says plainly what is wrong with a path", "[tool][report][first-use]") {
  const fs::path dir = fresh_dir("report_paths");
  const fs::path ws = dir / "ws";
  REQUIRE(init_cpu_campaign(ws, "claude-code").ok());
  REQUIRE(socratic_run({"hook", "stop", "--campaign", (ws / "campaign.json").string()},
                       hook_input("done", false, workspace_of(ws)))
              .exit_code == 0);
  // The campaign folder, and its state folder, name their trace.
  for (const fs::path& folder : {ws, ws / "state"}) {
    const ProcessResult r = socratic_run({"report", folder.string(), "-o", (dir / "r.html").string()});
    INFO(r.stderr_text);
    CHECK(r.exit_code == 0);
    CHECK(read_text(dir / "r.html").find("evaluation-point") != std::string::npos);
  }
  // A folder without a trace, and a folder as the output: one line naming the path, no stream error.
  fs::create_directories(dir / "empty");
  ProcessResult r = socratic_run({"report", (dir / "empty").string(), "-o", (dir / "x.html").string()});
  CHECK(r.exit_code == 2);
  CHECK(r.stderr_text.rfind("socratic report: " + (dir / "empty").string() + ": is a folder without a campaign trace",
                            0) == 0);
  CHECK(count_of(r.stderr_text, "\n") == 1);
  CHECK(r.stderr_text.find("basic_filebuf") == std::string::npos);
  r = socratic_run({"report", ws.string(), "-o", (dir / "empty").string()});
  CHECK(r.exit_code == 2);
  CHECK(r.stderr_text.find("is a folder; name the HTML file to write") != std::string::npos);
  CHECK(r.stderr_text.find("filesystem error") == std::string::npos);
}

TEST_CASE("run names its error once, without a doubled prefix", "[tool][run][first-use]") {
  const fs::path ws = fresh_dir("run_prefix");
  REQUIRE(init_cpu_campaign(ws, "none").ok());
  const ProcessResult r = socratic_run({"run", (ws / "campaign.json").string()}, "",
                                       {"ANTHROPIC_API_KEY=", "OPENAI_API_KEY="});
  INFO(r.stderr_text);
  CHECK(r.exit_code == 2);
  CHECK(count_of(r.stderr_text, "socratic run:") == 1);
  CHECK(r.stderr_text.rfind("socratic run: " + (ws / "campaign.json").string() + ": no agent backend", 0) == 0);
}

TEST_CASE("demo says what is not live before the run, also when stdout and stderr share a pipe", "[tool][demo][first-use]") {
  const fs::path out = fresh_dir("demo_order");
  const std::string command = "'" + socratic_exe().string() + "' demo --replay -o '" + out.string() + "' 2>&1";
  ProcessOptions o;
  o.timeout = std::chrono::minutes(5);
  o.environment = scrubbed_environment();
  const ProcessResult r = run_process({"bash", "-c", command}, o);
  INFO(r.stdout_text);
  REQUIRE(r.exit_code == 0);
  const auto not_live = r.stdout_text.find("not live because");
  const auto progress = r.stdout_text.find("| evaluations ");
  REQUIRE(not_live != std::string::npos);
  REQUIRE(progress != std::string::npos);
  CHECK(not_live < progress);
}

TEST_CASE("eval without a GPU says so at once instead of building for a minute", "[tool][eval][first-use]") {
  const fs::path cache = fresh_dir("eval_no_gpu");
  const auto start = std::chrono::steady_clock::now();
  const ProcessResult r = socratic_run({"eval", (source_dir() / "kernels" / "attention" / "baseline.cu").string(), "-p",
                                        "attention", "-s", "attention_edge", "--arch", "sm_90a", "--cache-dir",
                                        cache.string()},
                                       "", {"SOCRATIC_CUDA_DRIVER=/nonexistent/libcuda.so.1"});
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  INFO(r.stdout_text << r.stderr_text);
  CHECK(r.exit_code == 2);
  CHECK(r.stderr_text.rfind("socratic eval: no GPU to run the candidate on: no CUDA driver here "
                            "(/nonexistent/libcuda.so.1 does not load",
                            0) == 0);
  CHECK(seconds < 20);  // the harness build alone takes about a minute on this machine
  CHECK_FALSE(fs::exists(cache / "builds"));  // nothing was built
}

namespace {

/// Ids of the shipped bank's entries serving `trigger` on any GPU without a reference, leaving
/// out those only the evolutionary search asks (tag search-only): all of them, and those for any
/// problem (no "kinds").
std::pair<std::set<std::string>, std::set<std::string>> shipped_entries(const std::string& trigger) {
  std::set<std::string> all, any_problem;
  for (const auto& f : fs::directory_iterator(source_dir() / "question_bank")) {
    if (f.path().filename() == "schema.json") continue;
    const json file = json::parse(read_text(f.path()));  // kept: the loop reads into it
    for (const auto& e : file["entries"]) {
      const auto triggers = e["triggers"].get<std::vector<std::string>>();
      if (std::find(triggers.begin(), triggers.end(), trigger) == triggers.end()) continue;
      if (e.value("requires_reference", false) || e.contains("arch")) continue;
      const auto tags = e["tags"].get<std::vector<std::string>>();  // search-only: the evolution's alone
      if (std::find(tags.begin(), tags.end(), "search-only") != tags.end()) continue;
      all.insert(e["id"].get<std::string>());
      if (!e.contains("kinds")) any_problem.insert(e["id"].get<std::string>());
    }
  }
  return {all, any_problem};
}

}  // namespace

TEST_CASE("a CPU softmax campaign is asked no GPU or attention question", "[tool][questions][first-use]") {
  const auto [all_start, any_start] = shipped_entries("start");
  REQUIRE(any_start.size() < all_start.size());
  // `ask` for the CPU problem's kind draws from the entries for any problem only ...
  ProcessResult r = socratic_run({"ask", "-t", "start", "--kind", "cpu", "--json"});
  INFO(r.stderr_text);
  REQUIRE(r.exit_code == 0);
  json q = json::parse(r.stdout_text);
  CHECK(q["pool_size"] == any_start.size());
  CHECK(any_start.count(q["id"].get<std::string>()) == 1);
  // ... while the attention problem (kinds gpu, matmul, attention in its problem.json) gets the rest too.
  r = socratic_run({"ask", "-t", "start", "--problem", "attention", "--json"});
  REQUIRE(r.exit_code == 0);
  CHECK(json::parse(r.stdout_text)["pool_size"] == all_start.size());

  // A campaign on the CPU problem (not registered: no kinds) asks from the same pool, at its
  // start and at every stop.
  const fs::path ws = fresh_dir("cpu_kinds");
  REQUIRE(init_cpu_campaign(ws, "claude-code").ok());
  CHECK(json::parse(read_text(ws / "campaign.json"))["questions"]["kinds"] == json::array());
  write_text(workspace_of(ws) / "candidate.cpp", read_text(cpu_problem() / "fast_tail_bug.cpp"));
  for (int i = 0; i < 3; ++i)
    REQUIRE(socratic_run({"hook", "stop", "--campaign", (ws / "campaign.json").string()},
                         hook_input("Done: it is as fast as it gets.", i > 0, workspace_of(ws)))
                .exit_code == 0);
  const auto asked = events_of(trace_of(ws), "question");
  REQUIRE(asked.size() == 4);  // the start question and one per blocked stop
  for (const auto& a : asked) {
    const std::string id = a["asked"]["question"]["id"];
    const std::string trigger = a["asked"]["question"]["trigger"];
    INFO(id << " (" << trigger << ")");
    CHECK(shipped_entries(trigger).second.count(id) == 1);
  }
}

TEST_CASE("a campaign with --kind cpu speaks no GPU: its task, its brief, its questions and the agent's prompt; a GPU "
          "campaign keeps them", "[tool][questions][first-use][kinds]") {
  const fs::path dir = fresh_dir("cpu_speaks_cpu");
  for (const char* agent : {"claude-code", "codex"}) {
    const fs::path ws = dir / agent;
    REQUIRE(init_cpu_campaign(ws, agent, R"({"all_correct":{}})", {"--kind", "cpu"}).ok());
    const json c = json::parse(read_text(ws / "campaign.json"));
    const std::string brief = read_text(workspace_of(ws) / (std::string(agent) == "codex" ? "AGENTS.md" : "CLAUDE.md"));
    for (const std::string& text : {c["task"].get<std::string>(), brief}) {
      INFO(text);
      CHECK(socratic::detail::lint::first_gpu_only_term(text).empty());
      CHECK(text.find("CUTLASS") == std::string::npos);
    }
    // Sent back three times with the wrong tail: every question asked names no GPU tool.
    write_text(workspace_of(ws) / "candidate.cpp", read_text(cpu_problem() / "fast_tail_bug.cpp"));
    for (int i = 0; i < 3; ++i)
      REQUIRE(socratic_run({"hook", "stop", "--campaign", (ws / "campaign.json").string()},
                           hook_input(i == 1 ? "The mismatch is rounding noise." : "Done: as fast as it gets.", i > 0,
                                      workspace_of(ws)))
                  .exit_code == 0);
    const auto asked = events_of(trace_of(ws), "question");
    REQUIRE(asked.size() == 4);
    for (const auto& a : asked) {
      const std::string text = a["asked"]["question"]["text"].get<std::string>() + " " +
                               a["asked"]["question"].value("checks", std::string());
      INFO(text);
      CHECK(socratic::detail::lint::first_gpu_only_term(text).empty());
    }
  }
  // The reference agent's prompt follows the kinds: a performance engineer's for a CPU problem.
  const std::string cpu_prompt = default_agent_system_prompt({"cpu"});
  CHECK(socratic::detail::lint::first_gpu_only_term(cpu_prompt).empty());
  CHECK(cpu_prompt.find("cuDNN") == std::string::npos);
  CHECK(default_agent_system_prompt({"gpu", "attention"}) == default_agent_system_prompt());
  CHECK(default_agent_system_prompt({}).find("GPU kernel engineer") != std::string::npos);  // kinds unknown
  // A GPU problem's task keeps the banned libraries.
  const fs::path gpu = dir / "gpu";
  REQUIRE(init_cpu_campaign(gpu, "none", R"({"all_correct":{}})", {"--kind", "gpu"}).ok());
  CHECK(json::parse(read_text(gpu / "campaign.json"))["task"].get<std::string>().find("cuDNN") != std::string::npos);
}

namespace {

/// Everything the agent would read of a hook call (the block's reason) and what the person reads.
struct HookAnswer {
  json printed;
  bool blocked() const { return printed.contains("decision"); }
  std::string shown() const { return printed.value("systemMessage", std::string()); }
};

HookAnswer hook_stop(const fs::path& dir, bool active = false) {
  const ProcessResult r = socratic_run({"hook", "stop", "--campaign", (dir / "campaign.json").string()},
                                       hook_input("Done.", active, workspace_of(dir)));
  INFO(r.stdout_text << r.stderr_text);
  REQUIRE(r.exit_code == 0);
  return {json::parse(r.stdout_text)};
}

}  // namespace

TEST_CASE("the person's mistakes are refused at init, not blamed on the agent: a goal over absent scenarios, a "
          "parameter of two types", "[tool][init][first-use][configuration]") {
  const fs::path dir = fresh_dir("init_configuration");
  // A goal naming a scenario the set does not have could never be met: init says so, writes nothing.
  ProcessResult r = init_cpu_campaign(dir / "goal", "claude-code",
                                      R"({"on_scenarios": {"ids": ["r128_c4097", "r99_c99"], "goal": {"all_correct": {}}}})");
  INFO(r.stderr_text);
  CHECK(r.exit_code != 0);
  CHECK(r.stderr_text.find("--goal.on_scenarios.ids[1]: scenario \"r99_c99\" is not in the scenario set") !=
        std::string::npos);
  CHECK_FALSE(fs::exists(dir / "goal" / "campaign.json"));
  // A scenario whose parameter has another type than in the set's other scenarios: the user's
  // judge reads it one way, so it would skip or misread that scenario at every stop.
  json set = json::parse(read_text(cpu_problem() / "scenarios.json"));
  set["scenarios"][1]["cols"] = std::to_string(set["scenarios"][1]["cols"].get<int>());
  write_text(dir / "typed.json", set.dump(2));
  r = socratic_run({"init", (dir / "typed").string(), "--problem", "softmax_cpu", "--scenarios",
                    (dir / "typed.json").string(), "--baseline", (cpu_problem() / "baseline.cpp").string(),
                    "--evaluator-command", "bash " + (cpu_problem() / "evaluate.sh").string() + " {candidate} {scenarios}"});
  INFO(r.stderr_text);
  CHECK(r.exit_code != 0);
  const std::string id = set["scenarios"][1]["id"];
  CHECK(r.stderr_text.find("typed.json: scenario \"" + id + "\" field \"cols\": a string") != std::string::npos);
  CHECK(r.stderr_text.find("but a number in scenario") != std::string::npos);
  CHECK_FALSE(fs::exists(dir / "typed" / "campaign.json"));
}

TEST_CASE("what a command evaluator reads of every scenario is checked at init and at every load, naming the "
          "file, the scenario and the field", "[tool][init][hook][first-use][configuration]") {
  const fs::path dir = fresh_dir("scenario_fields");
  const std::string original = read_text(cpu_problem() / "scenarios.json");
  auto init = [&](const fs::path& ws, const fs::path& scenarios) {
    return socratic_run({"init", ws.string(), "--problem", "softmax_cpu", "--scenarios", scenarios.string(), "--baseline",
                         (cpu_problem() / "baseline.cpp").string(), "--evaluator-command",
                         "bash " + (cpu_problem() / "evaluate.sh").string() + " {candidate} {scenarios}",
                         "--scenario-fields", "rows:integer,cols:integer", "--agent", "claude-code"});
  };
  json without_cols = json::parse(original);
  without_cols["scenarios"][1].erase("cols");
  // At init: a scenario without a field the judge reads.
  write_text(dir / "no_cols.json", without_cols.dump(2));
  ProcessResult r = init(dir / "missing", dir / "no_cols.json");
  INFO(r.stderr_text);
  CHECK(r.exit_code != 0);
  CHECK(r.stderr_text.find("no_cols.json: scenario \"r512_c1000\" field \"cols\": missing: the evaluator command "
                           "reads it as an integer") != std::string::npos);
  CHECK_FALSE(fs::exists(dir / "missing" / "campaign.json"));
  // At init: a field of the wrong type in every scenario (the types agree, so only the declared
  // needs can tell).
  json as_text = json::parse(original);
  for (auto& s : as_text["scenarios"]) s["cols"] = std::to_string(s["cols"].get<int>());
  write_text(dir / "text_cols.json", as_text.dump(2));
  r = init(dir / "typed", dir / "text_cols.json");
  CHECK(r.exit_code != 0);
  CHECK(r.stderr_text.find("text_cols.json: scenario \"r2048_c64\" field \"cols\": string \"64\", but the evaluator "
                           "command reads it as an integer") != std::string::npos);
  CHECK(r.stderr_text.find("scenario \"r128_c4097\" field \"cols\"") != std::string::npos);  // every one named
  CHECK_FALSE(fs::exists(dir / "typed" / "campaign.json"));
  // At load: a campaign made with a good set keeps the needs; the set edited later is refused at
  // the first stop, to the person, before the judge runs, and never as the candidate's failure.
  write_text(dir / "good.json", original);
  REQUIRE(init(dir / "ws", dir / "good.json").ok());
  CHECK(json::parse(read_text(dir / "ws" / "campaign.json"))["evaluator"]["scenario_fields"] ==
        json{{"rows", "integer"}, {"cols", "integer"}});
  write_text(dir / "good.json", without_cols.dump(2));
  const HookAnswer a = hook_stop(dir / "ws");
  INFO(a.printed.dump(2));
  CHECK_FALSE(a.blocked());
  CHECK(a.shown().find("not of the candidate") != std::string::npos);
  CHECK(a.shown().find("good.json: scenario \"r512_c1000\" field \"cols\": missing") != std::string::npos);
  CHECK(a.shown().find("BUILD FAILED") == std::string::npos);
  CHECK(events_of(trace_of(dir / "ws"), "evaluation").empty());
}

TEST_CASE("a fault of the configuration or the harness is said to the person at the first stop, never as the "
          "candidate's failure", "[tool][hook][first-use][configuration]") {
  const fs::path dir = fresh_dir("hook_configuration");
  auto never_blames_candidate = [](const HookAnswer& a) {
    INFO(a.printed.dump(2));
    CHECK_FALSE(a.blocked());  // no agent can fix it: it is let go at once ...
    CHECK(a.shown().find("NOT verified") != std::string::npos);  // ... and the person reads why
    CHECK(a.shown().find("not of the candidate") != std::string::npos);
    CHECK(a.shown().find("BUILD FAILED") == std::string::npos);
    CHECK(a.shown().find("change the candidate") == std::string::npos);
  };
  SECTION("a goal edited by hand to name a scenario the set lacks") {
    REQUIRE(init_cpu_campaign(dir, "claude-code").ok());
    json c = json::parse(read_text(dir / "campaign.json"));
    c["goal"] = json::parse(R"({"on_scenarios": {"ids": ["r99_c99"], "goal": {"all_correct": {}}}})");
    write_text(dir / "campaign.json", c.dump(2));
    const HookAnswer a = hook_stop(dir);
    never_blames_candidate(a);
    CHECK(a.shown().find("the campaign's configuration") != std::string::npos);
    CHECK(a.shown().find("scenario \"r99_c99\" is not in the scenario set") != std::string::npos);
    CHECK(events_of(trace_of(dir), "evaluation").empty());
    CHECK(events_of(trace_of(dir), "hook_call").back()["kind"] == "judge_fault");
  }
  SECTION("a judge that fails by itself (it cannot read its scenarios)") {
    REQUIRE(socratic_run({"init", dir.string(), "--problem", "softmax_cpu", "--scenarios",
                          (cpu_problem() / "scenarios.json").string(), "--baseline", (cpu_problem() / "baseline.cpp").string(),
                          "--evaluator-command",
                          R"(["sh", "-c", "echo 'harness: scenario r2048_c64: field rows is not an integer' >&2; exit 2"])",
                          "--agent", "claude-code"})
                .ok());
    const HookAnswer a = hook_stop(dir);
    never_blames_candidate(a);
    CHECK(a.shown().find("the evaluator (harness)") != std::string::npos);
    CHECK(a.shown().find("field rows is not an integer") != std::string::npos);
    CHECK(events_of(trace_of(dir), "question").size() == 1);  // the start question only: none about gains
    CHECK(events_of(trace_of(dir), "evaluation").at(0)["record"]["report"]["fault"] == "harness");
    CHECK(events_of(trace_of(dir), "campaign_ended").at(0)["reason"] == "evaluator_error");
  }
  SECTION("a deleted candidate") {
    REQUIRE(init_cpu_campaign(dir, "claude-code").ok());
    fs::remove(workspace_of(dir) / "candidate.cpp");
    const HookAnswer a = hook_stop(dir);
    never_blames_candidate(a);
    CHECK(a.shown().find("candidate.cpp does not exist (deleted or moved?)") != std::string::npos);
    CHECK(a.shown().find("Question") == std::string::npos);
    CHECK(events_of(trace_of(dir), "question").size() == 1);  // the start question only
    CHECK(events_of(trace_of(dir), "evaluation").at(0)["record"]["report"]["fault"] == "configuration");
    // Put back, the next stop is judged again: the campaign continues.
    write_text(workspace_of(dir) / "candidate.cpp", read_text(cpu_problem() / "fast_fixed.cpp"));
    CHECK(hook_stop(dir).shown().find("the goal holds") != std::string::npos);
  }
  SECTION("a candidate without the entry point is still the candidate's failure, a build that failed") {
    REQUIRE(init_cpu_campaign(dir, "claude-code").ok());
    write_text(workspace_of(dir) / "candidate.cpp", "extern \"C\" void not_the_entry_point() {}\n");
    const HookAnswer a = hook_stop(dir);
    REQUIRE(a.blocked());
    CHECK(a.printed["reason"].get<std::string>().find("does not export softmax_rows") != std::string::npos);
  }
}

TEST_CASE("init for a coding agent briefs it: the task, how stops are judged, the start question",
          "[tool][init][first-use]") {
  const fs::path dir = fresh_dir("init_brief");
  for (const char* agent : {"claude-code", "codex"}) {
    const fs::path ws = dir / agent;
    const fs::path brief = workspace_of(ws) / (std::string(agent) == "codex" ? "AGENTS.md" : "CLAUDE.md");
    write_text(brief, "# My notes\nKeep these.\n");
    REQUIRE(init_cpu_campaign(ws, agent).ok());
    const auto asked = events_of(trace_of(ws), "question");
    REQUIRE(asked.size() == 1);
    CHECK(asked[0]["asked"]["question"]["trigger"] == "start");
    CHECK(asked[0]["asked"]["after_evaluation"] == -1);
    const std::string text = read_text(brief);
    CHECK(text.rfind("# My notes\nKeep these.\n", 0) == 0);  // the user's part is kept
    CHECK(text.find("Question (start): " + asked[0]["asked"]["question"]["text"].get<std::string>()) != std::string::npos);
    CHECK(text.find("r128_c4097") == std::string::npos);  // the brief names the set, not its secrets
    CHECK(text.find("socratic hook stop") != std::string::npos);
    CHECK(text.find("softmax_cpu_small (3 scenarios)") != std::string::npos);
    // Again with --force: the same question, the section replaced, not appended.
    REQUIRE(init_cpu_campaign(ws, agent, R"({"all_correct":{}})", {"--force"}).ok());
    CHECK(events_of(trace_of(ws), "question").size() == 1);
    const std::string again = read_text(brief);
    CHECK(count_of(again, "<!-- socratic:begin") == 1);
    CHECK(again == text);
  }
}

TEST_CASE("the command-evaluator template judges a candidate from init to the goal", "[tool][template][first-use]") {
  const fs::path tpl = source_dir() / "examples" / "command_evaluator";
  const fs::path ws = fresh_dir("template") / "ws";
  const ProcessResult init = socratic_run({"init", ws.string(), "--problem", "row_norms", "--scenarios",
                                           (tpl / "scenarios.json").string(), "--baseline", (tpl / "baseline.cpp").string(),
                                           "--evaluator-command", "bash " + (tpl / "evaluate.sh").string() + " {candidate} {scenarios}",
                                           "--kind", "cpu", "--agent", "none"});
  INFO(init.stdout_text << init.stderr_text);
  REQUIRE(init.ok());
  const std::string campaign = (ws / "campaign.json").string();
  // The baseline itself never meets a goal of being faster: sent back.
  ProcessResult r = socratic_run({"hook", "stop", "--campaign", campaign}, hook_input("Done.", false, workspace_of(ws)));
  INFO(r.stderr_text);
  REQUIRE(r.exit_code == 0);
  REQUIRE_FALSE(r.stdout_text.empty());
  CHECK(json::parse(r.stdout_text)["decision"] == "block");
  // Eight accumulators instead of one: several times faster, and the goal holds.
  write_text(workspace_of(ws) / "candidate.cpp", read_text(tpl / "faster.cpp"));
  r = socratic_run({"hook", "stop", "--campaign", campaign},
                   hook_input("Eight accumulators now.", true, workspace_of(ws)));
  INFO(r.stderr_text);
  CHECK(r.exit_code == 0);
  CHECK_FALSE(json::parse(r.stdout_text).contains("decision"));
  const auto calls = events_of(trace_of(ws), "hook_call");
  REQUIRE(calls.size() == 2);
  CHECK(calls[1]["kind"] == "goal_met");
  const auto evaluations = events_of(trace_of(ws), "evaluation");
  REQUIRE(evaluations.size() == 2);
  for (const auto& s : evaluations[1]["record"]["report"]["scenarios"]) {
    CHECK(s["correct"] == true);
    CHECK(s["speedup"].get<double>() > 1.5);
  }
}

TEST_CASE("init checks what it is given, as eval would, and its hints lead to a campaign that can be judged",
          "[tool][init][first-use]") {
  const fs::path dir = fresh_dir("init_checks");
  auto init = [&](const std::string& name, std::vector<std::string> extra) {
    std::vector<std::string> args{"init", (dir / name).string()};
    args.insert(args.end(), extra.begin(), extra.end());
    return socratic_run(args);
  };
  // A scenario set by name, as eval takes it; the problem's kinds and the missing GPU said.
  ProcessResult r = init("by_name", {"-p", "attention", "-s", "attention_edge"});
  INFO(r.stdout_text << r.stderr_text);
  REQUIRE(r.ok());
  const json c = json::parse(read_text(dir / "by_name" / "campaign.json"));
  CHECK(fs::path(c["scenarios"].get<std::string>()) == source_dir() / "scenarios" / "attention_edge.json");
  CHECK(c["questions"]["kinds"] == json::array({"gpu", "matmul", "attention"}));
  CHECK(r.stdout_text.find("socratic run") == std::string::npos);  // no model named: no run hint ...
  CHECK(r.stdout_text.find("--backend anthropic|openai --model NAME") != std::string::npos);  // ... but how to
  // Another problem's set, a parameter the problem does not have, an unregistered problem without
  // its own judge: refused before anything is written.
  r = init("wrong_set", {"-p", "attention", "-s", "rmsnorm"});
  CHECK(r.exit_code == 2);
  CHECK(r.stderr_text.find("field \"problem\": the set is for problem \"rmsnorm\", not \"attention\"") != std::string::npos);
  write_text(dir / "typo.json", R"({"name":"t","problem":"attention","scenarios":[{"id":"a","batch":1,"seqlen":128,
    "heads_q":8,"heads_kv":8,"head_dim":64}]})");
  r = init("typo", {"-p", "attention", "-s", (dir / "typo.json").string()});
  CHECK(r.exit_code == 2);
  CHECK(r.stderr_text.find("scenario \"a\" field \"seqlen\": unknown parameter") != std::string::npos);
  r = init("own", {"-p", "softmax_cpu", "-s", (cpu_problem() / "scenarios.json").string(), "--baseline",
                   (cpu_problem() / "baseline.cpp").string()});
  CHECK(r.exit_code == 2);
  CHECK(r.stderr_text.find("pass --evaluator-command and --baseline") != std::string::npos);
  for (const char* name : {"wrong_set", "typo", "own"}) CHECK_FALSE(fs::exists(dir / name / "campaign.json"));
  // The model named on the command line: the campaign file says so, and `run` is the hint.
  r = init_cpu_campaign(dir / "model", "none", R"({"all_correct":{}})",
                        {"--backend", "openai", "--model", "m-1", "--base-url", "http://127.0.0.1:9/v1", "--api-key-env",
                         "MY_KEY"});
  REQUIRE(r.ok());
  const json m = json::parse(read_text(dir / "model" / "campaign.json"))["agent"];
  CHECK(m["backend"] == "openai");
  CHECK(m["model"] == "m-1");
  CHECK(m["base_url"] == "http://127.0.0.1:9/v1");
  CHECK(m["api_key_env"] == "MY_KEY");
  CHECK(r.stdout_text.find("Run the campaign in process: socratic run " + (dir / "model" / "campaign.json").string()) !=
        std::string::npos);
  r = init_cpu_campaign(dir / "key", "none", R"({"all_correct":{}})", {"--api-key-env", "sk-ant-0123"});
  CHECK(r.exit_code == 2);
  CHECK(r.stderr_text.find("never the key itself") != std::string::npos);
}
