// The tool's campaign commands end to end: init, hook stop (with the CPU problem's real evaluator
// command), report (rendered in headless Chromium), demo (replay, no GPU).
#include "catch.hpp"

#include <regex>
#include <set>

#include "png_pixels.hpp"
#include "socratic/record/trace_state.hpp"
#include "socratic/report/html_report.hpp"
#include "socratic/goals/goal_spec.hpp"
#include "tool_fixtures.hpp"

using namespace socratic;
using namespace tool_fixtures;

namespace {

std::string stdout_of(const ProcessResult& r) { return r.stdout_text + r.stderr_text; }

/// Text as a serialised DOM shows it in a text node (only &, < and > escaped).
std::string as_dom_text(const std::string& s) {
  std::string out;
  for (char c : s) out += c == '&' ? "&amp;" : c == '<' ? "&lt;" : c == '>' ? "&gt;" : std::string(1, c);
  return out;
}

fs::path find_chromium() {
  for (const char* name : {"chromium", "chromium-browser", "google-chrome"}) {
    fs::path p = find_program(name);
    if (!p.empty()) return p;
  }
  return {};
}

ProcessResult chromium(const std::vector<std::string>& extra, const fs::path& profile) {
  const fs::path exe = find_chromium();
  std::vector<std::string> argv{exe.string(),          "--headless",          "--no-sandbox",
                                "--disable-gpu",       "--disable-quic",      "--no-first-run",
                                "--disable-background-networking", "--disable-component-update",
                                "--disable-sync",      "--hide-scrollbars",   "--user-data-dir=" + profile.string()};
  argv.insert(argv.end(), extra.begin(), extra.end());
  ProcessOptions o;
  o.timeout = std::chrono::seconds(120);
  o.max_output_bytes = 16 << 20;
  return run_process(argv, o);
}

}  // namespace

TEST_CASE("init on a registered CUDA problem tells the agent the entry point its candidate exports", "[tool][init]") {
  const fs::path dir = fresh_dir("init_cuda");
  const ProcessResult r = socratic_run({"init", (dir / "attn").string(), "--problem", "attention", "--scenarios",
                                        "attention_edge", "--arch", "sm_90a", "--agent", "none"});
  INFO(r.stdout_text << r.stderr_text);
  REQUIRE(r.ok());
  const json campaign = json::parse(read_text(dir / "attn" / "campaign.json"));
  CHECK_THAT(campaign["task"].get<std::string>(),
             Catch::Matchers::Contains("It exports the C function socratic_attention_forward, declared in " +
                                       (source_dir() / "kernels" / "attention" / "attention_args.h").string()));
}

TEST_CASE("init writes a valid workspace and the Claude Code and Codex hook configurations", "[tool][init]") {
  const fs::path dir = fresh_dir("init");
  const ProcessResult r = init_cpu_campaign(dir / "claude", "claude-code");
  INFO(stdout_of(r));
  REQUIRE(r.ok());
  const fs::path campaign_dir = dir / "claude";
  const fs::path ws = workspace_of(campaign_dir);
  CHECK(read_text(ws / "candidate.cpp") == read_text(cpu_problem() / "baseline.cpp"));
  // The campaign's state lies beside the workspace, never in it.
  CHECK(fs::is_directory(campaign_dir / "state"));
  CHECK_FALSE(fs::exists(ws / ".socratic"));
  CHECK_FALSE(fs::exists(ws / "campaign.json"));
  const json campaign = json::parse(read_text(campaign_dir / "campaign.json"));
  CHECK(campaign["problem"] == "softmax_cpu");
  CHECK(campaign["workspace"] == "workspace");
  CHECK(campaign["state_dir"] == "state");
  CHECK(campaign["candidate"] == "candidate.cpp");
  CHECK(campaign["evaluator"]["kind"] == "command");
  CHECK(campaign["agent"]["sandbox"] == "bubblewrap");
  CHECK(campaign["goal"] == json::parse(R"({"all_correct":{}})"));
  CHECK(campaign.dump().find("api_key\"") == std::string::npos);
  const json settings = json::parse(read_text(ws / ".claude" / "settings.json"));
  const std::string command = settings["hooks"]["Stop"][0]["hooks"][0]["command"];
  CHECK(settings["hooks"]["Stop"][0]["hooks"][0]["type"] == "command");
  CHECK(command.find(socratic_exe().string()) != std::string::npos);
  CHECK(command.find("hook stop --campaign '" + (campaign_dir / "campaign.json").string() + "'") != std::string::npos);
  const std::string deny = settings["permissions"]["deny"].dump();
  CHECK(deny.find("Edit(/" + (campaign_dir / "campaign.json").string() + ")") != std::string::npos);
  CHECK(deny.find("Read(/" + (campaign_dir / "state").string() + "/**)") != std::string::npos);

  const ProcessResult codex = init_cpu_campaign(dir / "codex", "codex");
  REQUIRE(codex.ok());
  const json hooks = json::parse(read_text(workspace_of(dir / "codex") / ".codex" / "hooks.json"));
  CHECK(std::string(hooks["hooks"]["Stop"][0]["hooks"][0]["command"]).find("hook stop") != std::string::npos);

  // Running init again keeps the user's own hooks and does not duplicate ours.
  json user = settings;
  user["hooks"]["Stop"].push_back({{"hooks", json::array({{{"type", "command"}, {"command", "echo mine"}}})}});
  write_text(ws / ".claude" / "settings.json", user.dump());
  REQUIRE(init_cpu_campaign(campaign_dir, "claude-code", R"({"all_correct":{}})", {"--force"}).ok());
  const json again = json::parse(read_text(ws / ".claude" / "settings.json"));
  CHECK(again["hooks"]["Stop"].size() == 2);
  CHECK(again["hooks"]["Stop"].dump().find("echo mine") != std::string::npos);

  SECTION("bad input is refused with its name") {
    const ProcessResult exists = init_cpu_campaign(campaign_dir, "none");
    CHECK(exists.exit_code == 2);
    CHECK(exists.stderr_text.find("already exists") != std::string::npos);
    const ProcessResult unknown = socratic_run({"init", (dir / "x").string(), "--problem", "nosuch", "--scenarios",
                                                (cpu_problem() / "scenarios.json").string()});
    CHECK(unknown.exit_code == 2);
    CHECK(unknown.stderr_text.find("unknown problem \"nosuch\"") != std::string::npos);
    write_text(dir / "bad_scenarios.json", R"({"name":"x","problem":"p","scenarios":[{"rows":1}]})");
    const ProcessResult bad = socratic_run({"init", (dir / "y").string(), "--problem", "softmax_cpu", "--scenarios",
                                            (dir / "bad_scenarios.json").string(), "--baseline",
                                            (cpu_problem() / "baseline.cpp").string()});
    CHECK(bad.exit_code == 2);
    CHECK(bad.stderr_text.find("bad_scenarios.json: scenario #0: missing field \"id\"") != std::string::npos);
    const ProcessResult goal = init_cpu_campaign(dir / "z", "none", R"({"fastest":{}})");
    CHECK(goal.exit_code == 2);
    CHECK(goal.stderr_text.find("unknown goal \"fastest\"") != std::string::npos);
    CHECK_FALSE(fs::exists(dir / "z" / "campaign.json"));
  }
}

TEST_CASE("init: anchors and a reference implementation go into the campaign file, checked first", "[tool][init]") {
  const fs::path dir = fresh_dir("init_anchors");
  write_text(dir / "anchors.json", R"({"r2048_c64": 12.5})");
  ProcessResult r = init_cpu_campaign(dir / "ws", "none", R"({"all_correct":{}})",
                                      {"--anchors", (dir / "anchors.json").string(), "--has-reference", "--turns", "4"});
  INFO(stdout_of(r));
  REQUIRE(r.ok());
  const json campaign = json::parse(read_text(dir / "ws" / "campaign.json"));
  CHECK(campaign["questions"]["has_reference"] == true);
  CHECK(campaign["budget"]["turns"] == 4);
  CHECK(campaign["campaign_id"] == "ws");  // the workspace's name, not ".socratic"
  CHECK(fs::path(std::string(campaign["questions"]["anchors"])).filename() == "anchors.json");

  write_text(dir / "bad_anchors.json", R"({"r2048_c64": "fast"})");
  r = init_cpu_campaign(dir / "bad", "none", R"({"all_correct":{}})", {"--anchors", (dir / "bad_anchors.json").string()});
  CHECK(r.exit_code == 2);
  CHECK(r.stderr_text.find("bad_anchors.json") != std::string::npos);
  CHECK_FALSE(fs::exists(dir / "bad" / "campaign.json"));
  r = init_cpu_campaign(dir / "id", "none", R"({"all_correct":{}})", {"--anchor-id", "s{s}"});
  CHECK(r.exit_code == 2);
  CHECK(r.stderr_text.find("--anchor-id needs --anchors") != std::string::npos);
  r = init_cpu_campaign(dir / "turns", "none", R"({"all_correct":{}})", {"--turns", "3x"});
  CHECK(r.exit_code == 2);
  CHECK(r.stderr_text.find("--turns needs a whole number of at least 1, got \"3x\"") != std::string::npos);

  // A campaign whose anchors file went missing blocks with the file named (never lets the agent go).
  fs::remove(dir / "anchors.json");
  r = socratic_run({"hook", "stop", "--campaign", (dir / "ws" / "campaign.json").string()},
                   hook_input("done", false, dir / "ws"));
  CHECK(r.exit_code == 0);
  const json block = json::parse(r.stdout_text);
  CHECK(block["decision"] == "block");
  CHECK(std::string(block["reason"]).find("anchors.json") != std::string::npos);
}

TEST_CASE("campaign files are validated with the file and the field named", "[tool][campaign-file]") {
  const fs::path dir = fresh_dir("campaign_file");
  REQUIRE(init_cpu_campaign(dir, "none").ok());
  json c = json::parse(read_text(dir / "campaign.json"));
  auto hook_with = [&](const json& doc) {
    write_text(dir / "edited.json", doc.dump());
    return socratic_run({"hook", "stop", "--campaign", (dir / "edited.json").string()}, hook_input("done", false, dir));
  };
  json with_key = c;
  with_key["agent"]["api_key"] = "sk-ant-0123456789abcdef0123";
  ProcessResult r = hook_with(with_key);
  CHECK(r.exit_code == 0);  // a hook never fails open: it blocks with the error
  const std::string reason = json::parse(r.stdout_text)["reason"];
  CHECK(reason.find("edited.json: agent field \"api_key\": API keys never go in a campaign file") != std::string::npos);
  CHECK(reason.find("sk-ant") == std::string::npos);
  json bad_budget = c;
  bad_budget["budget"]["turns"] = -1;
  r = hook_with(bad_budget);
  CHECK(std::string(json::parse(r.stdout_text)["reason"]).find("budget: field \"turns\" is negative") != std::string::npos);
  json bad_eval = c;
  bad_eval["evaluator"] = {{"kind", "magic"}};
  r = hook_with(bad_eval);
  CHECK(std::string(json::parse(r.stdout_text)["reason"]).find("evaluator field \"kind\"") != std::string::npos);
}

TEST_CASE("hook stop with the real evaluator command: block with unmet scenarios, then allow", "[tool][hook]") {
  const fs::path dir = fresh_dir("hook_binary");
  REQUIRE(init_cpu_campaign(dir, "claude-code").ok());
  const fs::path ws = workspace_of(dir);
  const std::string campaign = (dir / "campaign.json").string();
  write_text(ws / "candidate.cpp", read_text(cpu_problem() / "fast_tail_bug.cpp"));

  ProcessResult r = socratic_run({"hook", "stop", "--campaign", campaign},
                                 hook_input("Done. The mismatch on odd widths is just rounding noise.", false, ws));
  INFO(r.stderr_text);
  REQUIRE(r.exit_code == 0);
  const json block = json::parse(r.stdout_text);
  CHECK(block["decision"] == "block");
  const std::string reason = block["reason"];
  CHECK(reason.find("- r128_c4097: correct required correct, measured max abs error") != std::string::npos);
  CHECK(reason.find("r2048_c64") != std::string::npos);  // the evaluation table names every scenario
  CHECK(reason.find("Question (") != std::string::npos);
  CHECK(r.stderr_text.find("blocked") != std::string::npos);

  write_text(ws / "candidate.cpp", read_text(cpu_problem() / "fast_fixed.cpp"));
  r = socratic_run({"hook", "stop"}, hook_input("Fixed the tail.", true, ws));  // finds campaign.json above the cwd
  INFO(r.stderr_text);
  CHECK(r.exit_code == 0);
  CHECK_FALSE(json::parse(r.stdout_text).contains("decision"));  // let through, the verdict for the person
  const auto calls = events_of(trace_of(dir), "hook_call");
  REQUIRE(calls.size() == 2);
  CHECK(calls[0]["decision"] == "block");
  CHECK(calls[1]["decision"] == "allow");

  SECTION("inside a campaign loop the hook steps aside and records nothing") {
    r = socratic_run({"hook", "stop", "--campaign", campaign}, hook_input("x", false, ws), {"SOCRATIC_IN_CAMPAIGN_LOOP=1"});
    CHECK(r.exit_code == 0);
    CHECK(r.stdout_text.empty());
    CHECK(events_of(trace_of(dir), "hook_call").size() == 2);
  }
  SECTION("a missing campaign or a failing evaluator command blocks with the error") {
    r = socratic_run({"hook", "stop", "--campaign", (dir / "nope.json").string()}, hook_input("x", false, ws));
    CHECK(r.exit_code == 0);
    CHECK(std::string(json::parse(r.stdout_text)["reason"]).find("nope.json: cannot open file") != std::string::npos);
    // The evaluator command swapped in the campaign file after its start: the judge changed. No
    // verdict on the candidate, and the person's to settle: the agent is let go, the person reads
    // what changed.
    json c = json::parse(read_text(dir / "campaign.json"));
    c["evaluator"]["command"] = {"sh", "-c", "echo '{\"built\":true,\"expected\":[],\"scenarios\":[]}'"};
    write_text(dir / "campaign.json", c.dump());
    r = socratic_run({"hook", "stop", "--campaign", campaign}, hook_input("x", false, ws));
    INFO(r.stdout_text);
    CHECK_FALSE(json::parse(r.stdout_text).contains("decision"));
    const std::string swapped = json::parse(r.stdout_text).value("systemMessage", "");
    CHECK(swapped.find("integrity check failed: the evaluator command changed") != std::string::npos);
    const auto modified = events_of(trace_of(dir), "judge_modified");
    REQUIRE(modified.size() == 1);
    CHECK(modified[0]["files"][0].get<std::string>().find("the evaluator command changed") != std::string::npos);
    // A campaign whose evaluator command cannot start at all.
    const fs::path other = fresh_dir("hook_binary_missing");
    REQUIRE(socratic_run({"init", other.string(), "--problem", "softmax_cpu", "--scenarios",
                          (cpu_problem() / "scenarios.json").string(), "--baseline", (cpu_problem() / "baseline.cpp").string(),
                          "--evaluator-command", "/nonexistent/evaluate {candidate}"})
                .ok());
    r = socratic_run({"hook", "stop", "--campaign", (other / "campaign.json").string()}, hook_input("x", false, workspace_of(other)));
    // The judge's own fault: the agent is let go, and the person reads what failed.
    CHECK_FALSE(json::parse(r.stdout_text).contains("decision"));
    const std::string why = json::parse(r.stdout_text)["systemMessage"];
    CHECK(why.find("evaluator command") != std::string::npos);
    CHECK(why.find("/nonexistent/evaluate") != std::string::npos);
    // A candidate that does not compile is a report with its build log, and blocks.
    c["evaluator"]["command"] = {"bash", (cpu_problem() / "evaluate.sh").string(), "{candidate}", "{scenarios}"};
    write_text(dir / "campaign.json", c.dump());
    write_text(ws / "candidate.cpp", "this is not C++");
    r = socratic_run({"hook", "stop", "--campaign", campaign}, hook_input("x", false, ws));
    const std::string build = json::parse(r.stdout_text)["reason"];
    CHECK(build.find("built required candidate compiles, measured build failed") != std::string::npos);
    CHECK(build.find("BUILD FAILED") != std::string::npos);
    r = socratic_run({"hook", "stop", "--campaign", campaign, "--bogus"}, "{}");
    CHECK(json::parse(r.stdout_text)["decision"] == "block");
  }
  SECTION("an evaluator that cannot start (the CUDA one, for a problem it does not know) blocks, is recorded, and is capped") {
    json c = json::parse(read_text(dir / "campaign.json"));
    c["evaluator"] = {{"kind", "cuda"}};
    c["hook"]["max_consecutive_blocks"] = 2;
    write_text(dir / "campaign.json", c.dump());
    for (int i = 0; i < 3; ++i) {
      r = socratic_run({"hook", "stop", "--campaign", campaign}, hook_input("done", i > 0, ws));
      CHECK(r.exit_code == 0);
      if (i < 2) {
        REQUIRE_FALSE(r.stdout_text.empty());
        const std::string why = json::parse(r.stdout_text)["reason"];
        CHECK(why.find("could not verify the goal") != std::string::npos);
        CHECK(why.find("unknown problem \"softmax_cpu\"") != std::string::npos);
      } else {
        CHECK_FALSE(json::parse(r.stdout_text).contains("decision"));  // the cap, said to the person and recorded
        CHECK(r.stderr_text.find("NOT met") != std::string::npos);
      }
    }
    const auto recorded = events_of(trace_of(dir), "hook_call");
    REQUIRE(recorded.size() >= 3);
    CHECK(recorded[recorded.size() - 3]["kind"] == "error");
    CHECK(recorded[recorded.size() - 2]["cap_reached"] == true);
    CHECK(recorded.back()["kind"] == "block_cap");
  }
}

TEST_CASE("hook stop on the CPU problem: the baseline's copy, judged at 12 stops, never meets the default goal; "
          "a real gain does", "[tool][hook][noise]") {
  const fs::path dir = fresh_dir("hook_doing_nothing");
  REQUIRE(init_cpu_campaign(dir, "claude-code", socratic::goals::default_goal_spec().dump()).ok());
  const fs::path ws = workspace_of(dir);
  REQUIRE(read_text(ws / "candidate.cpp") == read_text(cpu_problem() / "baseline.cpp"));
  const std::string campaign = (dir / "campaign.json").string();
  for (int stop = 0; stop < 12; ++stop) {
    const ProcessResult r = socratic_run({"hook", "stop", "--campaign", campaign},
                                         hook_input("Nothing left to gain.", stop % 4 != 0, ws));
    INFO("stop " << stop << ": " << r.stderr_text);
    REQUIRE(r.exit_code == 0);
    REQUIRE_FALSE(r.stdout_text.empty());
    CHECK(json::parse(r.stdout_text)["decision"] == "block");
  }
  const fs::path trace = trace_of(dir);
  const auto evaluations = events_of(trace, "evaluation");
  REQUIRE(evaluations.size() == 12);
  CHECK(evaluations[0]["record"]["report"]["identical_to_baseline"] == true);  // the evaluator knows its baseline
  for (std::size_t i = 1; i < evaluations.size(); ++i) CHECK(evaluations[i]["record"]["reused_from"] == 0);
  for (const auto& v : events_of(trace, "verdict")) CHECK(v["verdict"]["met"] == false);
  for (const auto& s : evaluations[0]["record"]["report"]["scenarios"]) {  // it reports its noise
    CHECK(s["candidate_noise"].is_number());
    CHECK(s["baseline_noise"].is_number());
    CHECK(s["samples"] == 21);
  }

  write_text(ws / "candidate.cpp", read_text(cpu_problem() / "fast_fixed.cpp"));
  const ProcessResult r = socratic_run({"hook", "stop", "--campaign", campaign}, hook_input("Faster now.", false, ws));
  INFO(r.stderr_text);
  CHECK(r.exit_code == 0);
  CHECK_FALSE(json::parse(r.stdout_text).contains("decision"));  // the goal holds beyond the noise: the stop goes through
  CHECK(events_of(trace, "hook_call").back()["kind"] == "goal_met");
}

TEST_CASE("report: one self-contained HTML file whose plots hold the trace's data, rendered by Chromium",
          "[tool][report]") {
  const fs::path recording = source_dir() / "demo" / "softmax-cpu";
  const fs::path trace = recording / "trace.jsonl";
  REQUIRE(fs::exists(trace));
  const fs::path dir = fresh_dir("report");
  const fs::path out = dir / "report.html";
  const ProcessResult r = socratic_run({"report", trace.string(), "-o", out.string()});
  INFO(stdout_of(r));
  REQUIRE(r.ok());
  const std::string html = read_text(out);
  CHECK(html.find("src=") == std::string::npos);
  CHECK(html.find("<link") == std::string::npos);
  CHECK(html.find("url(") == std::string::npos);

  const TraceSummary s = summarize_trace(read_trace(trace).events);
  REQUIRE(s.state.evaluations.size() >= 2);
  REQUIRE_FALSE(s.state.asked.empty());

  const fs::path chrome = find_chromium();
  if (chrome.empty()) FAIL("chromium is not installed: run scripts/install-deps.sh --tests");
  const ProcessResult dom = chromium({"--dump-dom", "file://" + out.string()}, dir / "profile-dom");
  INFO(dom.stderr_text);
  REQUIRE(dom.ok());
  const std::string& d = dom.stdout_text;
  // Every evaluation is a point with its measured geomean; every question a marker with its trigger.
  for (const auto& ev : s.state.evaluations) {
    char speedup[32];
    std::snprintf(speedup, sizeof speedup, "%.4f", ev.score());  // no speedup for an incorrect one
    const std::string point = "data-index=\"" + std::to_string(ev.index) + "\" data-speedup=\"" +
                              (std::isfinite(ev.score()) ? std::string(speedup) : "n/a") + "\"";
    CHECK(d.find(point) != std::string::npos);
  }
  for (const auto& a : s.state.asked) {
    CHECK(d.find("data-trigger=\"" + std::string(to_string(a.question.trigger)) + "\"") != std::string::npos);
    CHECK(d.find(as_dom_text(a.question.text)) != std::string::npos);
  }
  const EvaluationRecord* last = s.state.last_evaluation();
  for (const auto& sc : last->report.scenarios) {
    char v[32];
    std::snprintf(v, sizeof v, "%.4f", sc.speedup);
    CHECK(d.find("data-scenario=\"" + sc.id + "\" data-evaluation=\"" + std::to_string(last->index) + "\" data-speedup=\"" +
                 v + "\"") != std::string::npos);
  }
  CHECK(d.find("id=\"budgets\"") != std::string::npos);

  const fs::path png = dir / "shot.png";
  const ProcessResult shot =
      chromium({"--screenshot=" + png.string(), "--window-size=1000,1400", "file://" + out.string()}, dir / "profile-shot");
  INFO(shot.stderr_text);
  REQUIRE(fs::exists(png));
  const png_pixels::Image img = png_pixels::decode(read_text(png));
  CHECK(img.width == 1000);
  std::set<std::uint32_t> colours;
  std::size_t blue = 0, non_white = 0;
  for (unsigned y = 0; y < img.height; y += 2)
    for (unsigned x = 0; x < img.width; x += 2) {
      const std::uint32_t c = img.rgb(x, y);
      colours.insert(c);
      if (c != 0xffffff) ++non_white;
      if (c == 0x1f6feb) ++blue;  // the evaluation points and the best-so-far line
    }
  CHECK(colours.size() > 20);
  CHECK(non_white > 5000);
  CHECK(blue > 20);
}

TEST_CASE("demo: a replay that cannot reach the recording's end says what it left out and why", "[tool][demo]") {
  // The CPU recording with its last version altered: the replay has no measurement of it.
  const fs::path dir = fresh_dir("demo_short");
  const fs::path recording = dir / "recording";
  fs::copy(source_dir() / "demo" / "softmax-cpu", recording, fs::copy_options::recursive);
  const auto evaluations = summarize_trace(read_trace(recording / "trace.jsonl").events).state.evaluations;
  REQUIRE(evaluations.size() == 3);
  const fs::path last = recording / "candidates" / (evaluations.back().candidate_hash + ".cpp");
  write_text(last, read_text(last) + "\n// altered\n");
  const ProcessResult r = socratic_run({"demo", "--replay", "--recording", recording.string(), "-o", (dir / "out").string()});
  INFO(stdout_of(r));
  CHECK(r.exit_code == 0);
  CHECK(r.stdout_text.find("Replayed the whole recording") == std::string::npos);
  CHECK(r.stdout_text.find("Replayed 2 of 3 recorded evaluations (3 of 3 turns begun): left out evaluations 2 to 2, "
                           "because evaluation 2 of the replay is not the recorded version") != std::string::npos);
  CHECK(read_text(dir / "out" / "report.html").find("Replayed 2 of 3 recorded evaluations") != std::string::npos);
}

TEST_CASE("demo without a GPU replays the recording through the real machinery and writes its report", "[tool][demo]") {
  const fs::path out = fresh_dir("demo");
  const ProcessResult r = socratic_run({"demo", "--out", out.string()});  // the default recording
  INFO(stdout_of(r));
  REQUIRE(r.exit_code == 0);
  CHECK(r.stdout_text.find("no GPU") != std::string::npos);
  CHECK(r.stdout_text.find("LIVE here:") != std::string::npos);
  CHECK(r.stdout_text.find("REPLAYED:") != std::string::npos);
  CHECK(r.stdout_text.find("campaign ended: goal_met") != std::string::npos);
  const std::string last_line = r.stdout_text.substr(r.stdout_text.rfind("report: "));
  CHECK(last_line == "report: " + (out / "report.html").string() + "\n");
  REQUIRE(fs::exists(out / "report.html"));
  const std::string html = read_text(out / "report.html");
  CHECK(html.find("(replayed)") != std::string::npos);
  CHECK(html.find("class=\"evaluation-point\"") != std::string::npos);
  const auto questions = events_of(out / "state" / "trace.jsonl", "question");
  CHECK_FALSE(questions.empty());  // asked live by the real source

  // The whole recording is replayed, past the goal the recorded agent went beyond, and the
  // console says so, with the goal and why it is that goal.
  const fs::path recorded = source_dir() / "demo" / "attention-h200";
  const auto recorded_evaluations = summarize_trace(read_trace(recorded / "trace.jsonl").events).state.evaluations;
  const auto replayed = summarize_trace(read_trace(out / "state" / "trace.jsonl").events).state.evaluations;
  REQUIRE(replayed.size() == recorded_evaluations.size());
  CHECK(replayed.back().candidate_hash == recorded_evaluations.back().candidate_hash);
  CHECK(r.stdout_text.find("Replayed the whole recording: all " + std::to_string(recorded_evaluations.size()) +
                           " recorded turns") != std::string::npos);
  CHECK(r.stdout_text.find("The goal was first met at evaluation 3; the recorded agent went on past it") !=
        std::string::npos);
  CHECK(r.stdout_text.find("goal:          all of (all scenarios correct; geomean speedup >= 2.240") != std::string::npos);
  CHECK(r.stdout_text.find("why: 2.24x the baseline is where cuDNN stood") != std::string::npos);
  CHECK(html.find("Replayed the whole recording") != std::string::npos);
  CHECK(html.find("Why this goal: 2.24x the baseline") != std::string::npos);

  const ProcessResult live = socratic_run({"demo", "--live", "--out", out.string()});
  CHECK(live.exit_code == 2);
  CHECK(live.stderr_text.find("cannot run live here") != std::string::npos);
  const ProcessResult missing = socratic_run({"demo", "--recording", (out / "nothing").string(), "--out", out.string()});
  CHECK(missing.exit_code == 2);
  CHECK(missing.stderr_text.find("no recorded trace") != std::string::npos);
}
