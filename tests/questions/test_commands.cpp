// `socratic bank lint`, `bank credit`, `ask` and `detect`, end to end: exit codes and output.
#include "support.hpp"

#include <set>
#include <sstream>

#include "socratic/process/run_process.hpp"
#include "socratic/core/verdict.hpp"
#include "socratic/questions/bank.hpp"

using namespace socratic;

namespace {

const std::filesystem::path shipped_bank = std::filesystem::path(SOCRATIC_SOURCE_DIR) / "question_bank";

ProcessResult tool(std::vector<std::string> args) {
  args.insert(args.begin(), SOCRATIC_TOOL_PATH);
  ProcessOptions options;
  options.timeout = std::chrono::seconds(60);
  ProcessResult r = run_process(args, options);
  REQUIRE(r.started);
  return r;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) out.push_back(line);
  return out;
}

/// A small bank: three plateau questions in two groups, one Hopper-only start question.
std::filesystem::path small_bank(const std::string& name) {
  auto dir = qtest::temp_dir(name);
  qtest::write_file(dir / "a.json", R"({"group":"a","entries":[
    {"id":"a.one","text":"Is one the answer?","triggers":["plateau"],"evidence":"public","tags":[],"checks":"c1"},
    {"id":"a.two","text":"Is two the answer?","triggers":["plateau"],"evidence":"public","tags":[],"checks":"c2"}]})");
  qtest::write_file(dir / "b.json", R"({"group":"b","entries":[
    {"id":"b.three","text":"Does three fit?","triggers":["plateau"],"evidence":"public","tags":[],"checks":"c3"},
    {"id":"b.hopper","text":"Does wgmma run?","triggers":["start"],"arch":"sm_90","evidence":"public","tags":[],"checks":"c4"}]})");
  return dir;
}

std::string trace_line(long seq, const std::string& type, json body) {
  body["v"] = 1;
  body["seq"] = seq;
  body["type"] = type;
  body["time"] = "2026-12-01T10:00:00Z";
  body["elapsed_s"] = seq * 30.0;
  body["agent"] = "main";
  return body.dump() + "\n";
}

}  // namespace

TEST_CASE("bank lint: the shipped bank is clean and counted", "[questions][cli]") {
  auto r = tool({"bank", "lint", "--targets"});
  INFO(r.stdout_text << r.stderr_text);
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.stdout_text, Q_CONTAINS("0 errors, 0 warnings") && Q_CONTAINS("groups (10)") &&
                                Q_CONTAINS("triggers: claimed_limit") && Q_CONTAINS("sm_90") &&
                                Q_CONTAINS("requires_reference:"));
  auto j = tool({"bank", "lint", shipped_bank.string(), "--json"});
  CHECK(j.exit_code == 0);
  const json report = json::parse(j.stdout_text);
  CHECK(report["ok"] == true);
  CHECK(report["counts"]["entries"].get<int>() >= 100);
  CHECK(report["counts"]["arch_specific"].get<int>() >= 18);
  CHECK(report["counts"]["by_group"].size() == 10);
}

TEST_CASE("bank lint: errors name file, entry and field, and exit 1", "[questions][cli]") {
  auto dir = small_bank("cli_lint");
  qtest::write_file(dir / "c.json", R"({"group":"c","entries":[
    {"id":"a.one","text":"Is one the answer?","triggers":["plateau"],"evidence":"public","tags":[],"checks":"x"},
    {"id":"c.bad","text":"Use TMA.","triggers":["sometimes"],"evidence":"public","tags":[]}]})");
  auto r = tool({"bank", "lint", dir.string()});
  INFO(r.stdout_text);
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.stdout_text, Q_CONTAINS("error: " + (dir / "c.json").string() +
                                       ": entry #1 \"c.bad\": field \"triggers\": unknown trigger \"sometimes\""));
  CHECK_THAT(r.stdout_text, Q_CONTAINS("entry #0 \"a.one\": field \"id\": duplicate id"));
  CHECK_THAT(r.stdout_text, Q_CONTAINS("near-duplicate"));
  CHECK(tool({"bank", "lint", "/nonexistent/bank"}).exit_code == 2);
  CHECK(tool({"bank", "frobnicate"}).exit_code == 2);
}

TEST_CASE("ask: remembers what it asked in the state folder, no repeats until exhausted", "[questions][cli]") {
  auto bank = small_bank("cli_ask_bank");
  auto state = qtest::temp_dir("cli_ask_state");
  std::vector<std::string> texts;
  for (int i = 0; i < 3; ++i) {
    auto r = tool({"ask", "--trigger", "plateau", "--bank", bank.string(), "--state", state.string()});
    INFO(r.stderr_text);
    REQUIRE(r.exit_code == 0);
    texts.push_back(r.stdout_text);
  }
  CHECK(std::set<std::string>(texts.begin(), texts.end()).size() == 3);
  // Groups rotate: the two questions of group a are not asked back to back.
  CHECK_FALSE((texts[0].find("one") != std::string::npos || texts[0].find("two") != std::string::npos) ==
              (texts[1].find("one") != std::string::npos || texts[1].find("two") != std::string::npos));
  const json saved = json::parse(qtest::read_file(state / "asked.json"));
  CHECK(saved["asked"].size() == 3);
  CHECK(saved["asked"][0]["question"]["trigger"] == "plateau");
  // The pool is exhausted: the fourth question repeats one, as JSON with its count.
  auto again = tool({"ask", "--trigger", "plateau", "--bank", bank.string(), "--state", state.string(), "--json"});
  REQUIRE(again.exit_code == 0);
  const json q = json::parse(again.stdout_text);
  CHECK(q["times_asked_before"] == 1);
  CHECK(q["pool_size"] == 3);
  CHECK(q["evidence"] == "asked on the command line");
  CHECK_FALSE(q["checks"].get<std::string>().empty());
}

TEST_CASE("ask: seeds reproduce, architecture filters, errors exit 2", "[questions][cli]") {
  auto run = [&](const std::string& state, const std::string& seed) {
    std::vector<std::string> ids;
    for (const char* trigger : {"start", "plateau", "claimed_limit", "plateau", "suspicious_gain"}) {
      auto r = tool({"ask", "--trigger", trigger, "--arch", "sm_90", "--reference", "--state", state, "--seed", seed, "--json"});
      REQUIRE(r.exit_code == 0);
      ids.push_back(json::parse(r.stdout_text)["id"]);
    }
    return ids;
  };
  const auto a = run(qtest::temp_dir("cli_seed_a").string(), "11");
  CHECK(a == run(qtest::temp_dir("cli_seed_b").string(), "11"));
  CHECK(a != run(qtest::temp_dir("cli_seed_c").string(), "12"));

  auto bank = small_bank("cli_arch_bank");
  auto hopper = tool({"ask", "--trigger", "start", "--bank", bank.string(), "--arch", "9.0"});
  CHECK(hopper.exit_code == 0);
  CHECK(hopper.stdout_text == "Does wgmma run?\n");
  auto unknown_arch = tool({"ask", "--trigger", "start", "--bank", bank.string()});
  CHECK(unknown_arch.exit_code == 1);
  CHECK_THAT(unknown_arch.stderr_text, Q_CONTAINS("no question") && Q_CONTAINS("architecture-specific"));
  auto bad = tool({"ask", "--trigger", "plateu"});
  CHECK(bad.exit_code == 2);
  CHECK_THAT(bad.stderr_text, Q_CONTAINS("unknown trigger \"plateu\""));
  CHECK(tool({"ask", "--trigger", "start", "--arch", "hopper"}).exit_code == 2);
  CHECK(tool({"ask"}).exit_code == 2);
  auto explore = tool({"ask", "--trigger", "start", "--credits", "/nonexistent.json", "--explore", "lots"});
  CHECK(explore.exit_code == 2);
  CHECK_THAT(explore.stderr_text, Q_CONTAINS("/nonexistent.json") && Q_CONTAINS("cannot open"));
  auto rate = tool({"ask", "--trigger", "start", "--explore", "lots"});
  CHECK(rate.exit_code == 2);
  CHECK_THAT(rate.stderr_text, Q_CONTAINS("--explore needs a rate between 0 and 1, got \"lots\""));
}

TEST_CASE("detect: replays a trace and prints each trigger as a JSON line", "[questions][cli]") {
  auto eval = [](int i, double speedup, bool correct = true, EvaluationOrigin origin = EvaluationOrigin::agent) {
    auto record = qtest::evaluation(i, {speedup, speedup}, 0.005, i * 60.0, correct);
    record.origin = origin;
    return json{{"record", record}};
  };
  std::string text = trace_line(0, "campaign_started", {{"campaign_id", "cli"}, {"arch", "sm_90"}, {"has_reference", false}});
  text += trace_line(1, "turn_started", {{"turn", 0}, {"message", "go"}});
  text += trace_line(2, "evaluation", eval(0, 1.2));
  text += trace_line(3, "evaluation", eval(1, 1.21));
  text += trace_line(4, "evaluation", eval(2, 1.19));
  text += trace_line(5, "evaluation", eval(3, 1.2));
  text += trace_line(6, "evaluation", eval(4, 1.205));  // fourth without a gain: plateau
  text += trace_line(7, "evaluation", eval(5, 1.3, false));
  text += trace_line(8, "turn_ended", {{"turn", 0}, {"result", {{"final_message", "The remaining error is acceptable."}}}});
  text += trace_line(9, "evaluation", eval(6, 1.3, false, EvaluationOrigin::stop_check));
  text += trace_line(10, "verdict", {{"turn", 0}, {"evaluation_index", 6}, {"verdict", Verdict::fail({{"s0", "correct", "true", "false"}})}});
  text += trace_line(11, "campaign_ended", {{"reason", "turn_budget"}});
  auto path = qtest::write_file(qtest::temp_dir("cli_detect") / "trace.jsonl", text);

  auto r = tool({"detect", path.string()});
  INFO(r.stdout_text << r.stderr_text);
  REQUIRE(r.exit_code == 0);
  const auto lines = lines_of(r.stdout_text);
  std::vector<json> fired;
  for (const auto& l : lines) fired.push_back(json::parse(l));
  REQUIRE(fired.size() == 5);
  CHECK(fired[0]["trigger"] == "start");
  CHECK(fired[0]["seq"] == 0);
  CHECK(fired[1]["trigger"] == "plateau");
  CHECK(fired[1]["seq"] == 6);
  CHECK(fired[1]["moment"] == "after_evaluation");
  CHECK(fired[1]["evaluation_index"] == 4);
  // At the unmet stop: the failure explained away outranks the plain stop.
  CHECK(fired[2]["trigger"] == "correctness_explained_away");
  CHECK(fired[2]["seq"] == 10);
  CHECK(fired[2]["message_seq"] == 8);
  CHECK(fired[2]["chosen"] == true);
  CHECK(fired[2]["details"]["kind"] == "rationalised");
  CHECK_THAT(fired[2]["evidence"].get<std::string>(), Q_CONTAINS("\"acceptable\""));
  CHECK(fired[3]["trigger"] == "claimed_limit");
  CHECK(fired[3]["priority"] == 10);
  CHECK(fired[3]["chosen"] == false);
  CHECK(fired[4]["trigger"] == "plateau");  // still on the plateau when it stopped
  CHECK(fired[4]["moment"] == "turn_end");

  // Thresholds are options: with K = 2 the plateau fires after 2, 4 and 6 flat evaluations (the
  // sixth is the stop check, judged at its verdict).
  auto k2 = tool({"detect", path.string(), "--plateau-evaluations", "2"});
  std::vector<long> plateau_seqs;
  for (const auto& l : lines_of(k2.stdout_text)) {
    const json f = json::parse(l);
    if (f["trigger"] == "plateau" && f["moment"] == "after_evaluation") plateau_seqs.push_back(f["seq"]);
  }
  CHECK(plateau_seqs == std::vector<long>{4, 6, 10});

  auto missing = tool({"detect", "/nonexistent/trace.jsonl"});
  CHECK(missing.exit_code == 2);
  CHECK_THAT(missing.stderr_text, Q_CONTAINS("cannot open trace"));
  auto corrupt = qtest::write_file(qtest::temp_dir("cli_detect_corrupt") / "t.jsonl", "{oops\n" + text);
  auto bad = tool({"detect", corrupt.string()});
  CHECK(bad.exit_code == 2);
  CHECK_THAT(bad.stderr_text, Q_CONTAINS("t.jsonl: line 1: corrupt trace line"));
}

TEST_CASE("bank credit feeds ask's adaptive mode", "[questions][cli]") {
  auto bank = small_bank("cli_credit_bank");
  auto question = [](const std::string& id, int after) {
    return json{{"asked", AskedQuestion{Question{id, "a", "?", "", Trigger::plateau, "e"}, 0, after, 0, {}}}};
  };
  std::string text = trace_line(0, "campaign_started", {{"campaign_id", "credit-run"}});
  text += trace_line(1, "evaluation", {{"record", qtest::evaluation(0, {1.0})}});
  text += trace_line(2, "question", question("a.one", 0));
  text += trace_line(3, "evaluation", {{"record", qtest::evaluation(1, {1.0})}});
  text += trace_line(4, "question", question("b.three", 1));
  text += trace_line(5, "evaluation", {{"record", qtest::evaluation(2, {1.4})}});
  auto trace = qtest::write_file(qtest::temp_dir("cli_credit") / "t.jsonl", text);
  auto table = qtest::temp_dir("cli_credit_table") / "credits.json";

  auto r = tool({"bank", "credit", "--table", table.string(), trace.string()});
  INFO(r.stdout_text << r.stderr_text);
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.stdout_text, Q_CONTAINS("2 questions, 2 credited"));
  const json t = json::parse(qtest::read_file(table));
  CHECK(t["questions"]["a.one"]["credited"] == 1);  // 1.4 came two evaluations after it
  CHECK(t["campaigns"] == json::array({"credit-run"}));
  auto again = tool({"bank", "credit", "--table", table.string(), trace.string()});
  CHECK_THAT(again.stdout_text, Q_CONTAINS("already counted"));

  // Mark a.two as never helping: with exploration off, the credited entries come first.
  json edited = t;
  edited["questions"]["a.two"] = {{"asked", 5}, {"credited", 0}};
  qtest::write_file(table, edited.dump());
  for (const char* seed : {"1", "2", "3", "4"}) {
    auto q = tool({"ask", "--trigger", "plateau", "--bank", bank.string(), "--credits", table.string(),
                   "--explore", "0", "--seed", seed, "--json"});
    REQUIRE(q.exit_code == 0);
    CHECK(json::parse(q.stdout_text)["id"] != "a.two");
  }
}
