// The campaign report as a reader meets it: rendered by headless Chromium (its DOM and its
// screenshot) at 14 evaluations (the replayed demo) and at 400 (a long campaign built from the
// recording's real measurements), and checked for what it must not claim: a gain inside the
// noise, words from before a question, questions the recorded agent never read, an unfinished
// outcome for a hook campaign whose goal was met, failed evaluations drawn at 0.
#include "catch.hpp"

#include <regex>
#include <set>

#include "png_pixels.hpp"
#include "socratic/record/trace_state.hpp"
#include "socratic/core/report.hpp"
#include "socratic/questions/credit.hpp"
#include "tool_fixtures.hpp"

using namespace socratic;
using namespace tool_fixtures;

namespace {

fs::path recording(const std::string& name) {
  for (const fs::path& p : {source_dir() / "demo" / name})
    if (fs::exists(p / "trace.jsonl")) return p;
  FAIL("no recording " << name);
  return {};
}

fs::path chromium_program_path() {
  for (const char* name : {"chromium", "chromium-browser", "google-chrome"})
    if (fs::path p = find_program(name); !p.empty()) return p;
  return {};
}

ProcessResult headless_chromium(const std::vector<std::string>& extra, const fs::path& profile) {
  const fs::path exe = chromium_program_path();
  if (exe.empty()) FAIL("chromium is not installed: run scripts/install-deps.sh --tests");
  std::vector<std::string> argv{exe.string(), "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                                "--no-first-run", "--disable-background-networking", "--disable-component-update",
                                "--disable-sync", "--hide-scrollbars", "--user-data-dir=" + profile.string()};
  argv.insert(argv.end(), extra.begin(), extra.end());
  ProcessOptions o;
  o.timeout = std::chrono::seconds(120);
  o.max_output_bytes = 64 << 20;
  return run_process(argv, o);
}

/// The DOM as Chromium built it from the report file.
std::string dom_of(const fs::path& html, const fs::path& dir) {
  const ProcessResult r = headless_chromium({"--dump-dom", "file://" + html.string()}, dir / "profile-dom");
  INFO(r.stderr_text);
  REQUIRE(r.ok());
  return r.stdout_text;
}

png_pixels::Image screenshot(const fs::path& html, const fs::path& png, int width, int height, const fs::path& dir) {
  const ProcessResult r = headless_chromium({"--screenshot=" + png.string(), "--window-size=" + std::to_string(width) + "," +
                                        std::to_string(height), "file://" + html.string()},
                                   dir / ("profile-" + png.stem().string()));
  INFO(r.stderr_text);
  REQUIRE(fs::exists(png));
  return png_pixels::decode(read_text(png));
}

/// The values of attribute `attr` on elements whose class attribute starts with `cls`.
std::vector<std::string> attributes(const std::string& dom, const std::string& cls, const std::string& attr) {
  std::vector<std::string> out;
  const std::regex element("<[a-z]+ [^>]*class=\"" + cls + "[^\"]*\"[^>]*>");
  const std::regex value(attr + "=\"([^\"]*)\"");
  for (auto it = std::sregex_iterator(dom.begin(), dom.end(), element); it != std::sregex_iterator(); ++it) {
    std::smatch m;
    const std::string tag = it->str();
    if (std::regex_search(tag, m, value)) out.push_back(m[1]);
  }
  return out;
}

/// No two question labels on one row overlap.
void check_labels_apart(const std::string& dom) {
  const std::regex label(R"re(class="question-label"[^>]*data-x0="([0-9.]+)" data-x1="([0-9.]+)" data-row="([0-9]+)")re");
  std::map<int, std::vector<std::pair<double, double>>> rows;
  for (auto it = std::sregex_iterator(dom.begin(), dom.end(), label); it != std::sregex_iterator(); ++it)
    rows[std::stoi((*it)[3])].push_back({std::stod((*it)[1]), std::stod((*it)[2])});
  for (auto& [row, spans] : rows) {
    std::sort(spans.begin(), spans.end());
    for (std::size_t i = 1; i < spans.size(); ++i) {
      INFO("row " << row << ": " << spans[i - 1].second << " > " << spans[i].first);
      CHECK(spans[i - 1].second <= spans[i].first);
    }
  }
}

/// How many columns of the image, in rows [y0, y1), hold the timeline's blue.
std::pair<unsigned, unsigned> blue_extent(const png_pixels::Image& img, unsigned y0, unsigned y1) {
  unsigned lo = img.width, hi = 0;
  for (unsigned y = y0; y < std::min(y1, img.height); ++y)
    for (unsigned x = 0; x < img.width; ++x)
      if (img.rgb(x, y) == 0x1f6feb) lo = std::min(lo, x), hi = std::max(hi, x);
  return {lo, hi};
}

/// A trace line as a writer of the Campaign schema would write it.
std::string line(long seq, const std::string& type, json body) {
  body["v"] = 1;
  body["seq"] = seq;
  body["type"] = type;
  body["time"] = "2026-12-01T10:00:00Z";
  body["elapsed_s"] = seq * 1.0;
  body["agent"] = "main";
  return body.dump() + "\n";
}

}  // namespace

TEST_CASE("report at 14 evaluations: the replayed demo, its questions, the scenario table with anchors",
          "[tool][report][chromium]") {
  const fs::path out = fresh_dir("report4");
  const ProcessResult demo = socratic_run({"demo", "--replay", "--recording", recording("attention-h200").string(), "-o",
                                           out.string()});
  INFO(demo.stdout_text << demo.stderr_text);
  REQUIRE(demo.exit_code == 0);
  const fs::path html = out / "report.html";
  const std::string d = dom_of(html, out);
  const TraceSummary replay = summarize_trace(read_trace(out / "state" / "trace.jsonl").events);
  const TraceSummary recorded = summarize_trace(read_trace(recording("attention-h200") / "trace.jsonl").events);
  REQUIRE(replay.state.evaluations.size() == 14);  // the whole recording, past the goal met at the fourth

  // The demo asked exactly the recording's questions, at the recorded moments.
  std::vector<std::pair<std::string, int>> asked, recorded_asked;
  for (const auto& a : replay.state.asked) asked.push_back({a.question.id, a.after_evaluation});
  for (const auto& a : recorded.state.asked) recorded_asked.push_back({a.question.id, a.after_evaluation});
  CHECK(asked == recorded_asked);

  // Timeline: ticks on x, a y axis that does not start at 0, the goal line, labels apart.
  CHECK(attributes(d, "x-tick", "data-value") == std::vector<std::string>{"0", "2", "4", "6", "8", "10", "12"});
  const std::vector<std::string> ymin = attributes(d, "plot", "data-y-min");
  REQUIRE(ymin.size() == 1);
  CHECK(std::stod(ymin[0]) > 0.5);
  CHECK(attributes(d, "y-tick", "data-value").size() >= 4);
  CHECK(attributes(d, "goal-line", "data-goal") == std::vector<std::string>{"2.24"});
  check_labels_apart(d);
  CHECK(count_of(d, "class=\"question-label\"") == 3);
  // The stops: three sent back, then every one allowed (the campaign's verdicts), as recorded.
  CHECK(attributes(d, "stop-blocked", "data-evaluation") == std::vector<std::string>{"0", "1", "2"});
  CHECK(attributes(d, "stop-allowed", "data-evaluation") ==
        std::vector<std::string>{"3", "4", "5", "6", "7", "8", "9", "10", "11", "12", "13"});
  CHECK(d.find("Outcome: <b class=\"met\">goal met</b>") != std::string::npos);

  // The scenario table: the set's varying parameters, times, TFLOP/s, and both anchors.
  for (const char* header : {"<th class=\"param\">seqlen_kv = seqlen_q</th>", "<th class=\"param\">head_dim</th>",
                             "<th class=\"param\">causal</th>", "<th>baseline.cu ms</th>", "<th>TFLOP/s</th>",
                             "<th>of roofline</th>", "cuDNN TFLOP/s", "FA2 TFLOP/s", "vs cuDNN"})
    CHECK(d.find(header) != std::string::npos);
  CHECK(count_of(d, "data-anchor-ratio=") == 72);  // 36 scenarios x 2 anchors
  // The matrix: one cell per scenario and evaluation, values printed at this size.
  CHECK(count_of(d, "class=\"cell\"") == 36 * 14);
  CHECK(count_of(d, "class=\"cell-value\"") == 36 * 14);
  CHECK(d.find("speedup over baseline.cu (log scale)") != std::string::npos);

  // What followed each question: the credit rule's verdict, and the agent's next words.
  const auto credits = credit_questions(replay.state, CreditRule{});
  REQUIRE(credits.size() == 3);
  for (const auto& c : credits)
    CHECK(d.find("data-question-id=\"" + c.question_id + "\" data-credited=\"" + (c.credited ? "true" : "false") + "\"") !=
          std::string::npos);
  // The one gain they came before (evaluation 3) is theirs together: marked shared, not each one's.
  for (const auto& c : credits) CHECK(c.shared_by == 3);
  CHECK(count_of(d, "data-shared-by=\"3\"") == 3);
  CHECK(count_of(d, "shared</span> by 3 questions") == 3);
  const auto ended = events_of(out / "state" / "trace.jsonl", "turn_ended");
  REQUIRE(ended.size() == 14);
  const std::string after_q1 = ended[1]["result"]["final_message"];  // Q1 came at turn 0's stop
  CHECK(d.find(after_q1.substr(0, 60)) != std::string::npos);

  // The screenshot: the plot fills the width of the page it is on.
  const auto narrow = screenshot(html, out / "narrow.png", 900, 900, out);
  const auto wide = screenshot(html, out / "wide.png", 1500, 900, out);
  const auto [n0, n1] = blue_extent(narrow, 150, 700);
  const auto [w0, w1] = blue_extent(wide, 150, 900);
  INFO("blue columns: narrow " << n0 << ".." << n1 << ", wide " << w0 << ".." << w1);
  REQUIRE(n1 > n0);
  CHECK(static_cast<double>(w1 - w0) > 1.4 * static_cast<double>(n1 - n0));
  screenshot(html, out / "report4.png", 1280, 2600, out);  // for people: look at it
}

TEST_CASE("report at 400 evaluations stays readable", "[tool][report][chromium]") {
  const fs::path dir = fresh_dir("report400");
  // 400 evaluations from the recording's real reports: a slow climb, noise, one in seven failing,
  // a question every 25, a stop every 10 (the last allowed).
  const auto source = summarize_trace(read_trace(recording("attention-h200") / "trace.jsonl").events);
  const json started = json::parse(R"js({"campaign_id":"long","goal":"all of (all scenarios correct; geomean speedup >= 2.240 with every scenario correct; no banned libraries)","driver":"stop_hook"})js");
  json s = started;
  s["scenario_ids"] = source.started["scenario_ids"];
  std::string text = line(0, "campaign_started", s);
  long seq = 1;
  const char* triggers[] = {"plateau", "claimed_limit", "suspicious_gain", "plateau", "correctness_explained_away"};
  int questions = 0, turn = 0;
  for (int i = 0; i < 400; ++i) {
    EvaluationRecord rec = source.state.evaluations[static_cast<std::size_t>(i % 14)];
    rec.index = i;
    rec.turn = turn;
    rec.origin = i % 10 == 9 ? EvaluationOrigin::stop_check : EvaluationOrigin::agent;
    const double trend = 0.85 + 0.35 * i / 400.0 + 0.01 * ((i * 37) % 11 - 5) / 5.0;
    for (auto& sc : rec.report.scenarios) {
      sc.speedup *= trend;
      sc.candidate_ms /= trend;
      sc.tflops *= trend;
    }
    if (i % 7 == 3) {
      rec.report.scenarios[static_cast<std::size_t>(i % 36)].correct = false;
      rec.report.scenarios[static_cast<std::size_t>(i % 36)].reason = "max abs error 0.6 above the tolerance";
    }
    text += line(seq++, "evaluation", {{"record", rec}});
    if (i % 25 == 24) {
      AskedQuestion a{Question{"q.synthetic-" + std::to_string(questions), "g",
                               "Which scenario moved least after evaluation " + std::to_string(i) + "?", "a reading",
                               *parse_trigger(triggers[questions % 5]), "synthetic"},
                      turn, i, 0, "main"};
      ++questions;
      text += line(seq++, "question", {{"asked", a}});
    }
    if (i % 10 == 9) {
      text += line(seq++, "turn_ended", {{"turn", turn}, {"result", {{"final_message", "turn " + std::to_string(turn) + " done"}}}});
      text += line(seq++, "hook_call", {{"decision", i == 399 ? "allow" : "block"}, {"kind", i == 399 ? "goal_met" : "goal_unmet"},
                                        {"evaluation_index", i}});
      text += line(seq++, "turn_started", {{"turn", ++turn}, {"message", {{"turn", turn}, {"text", "go on"}}}});
    }
  }
  write_text(dir / "trace.jsonl", text);
  const ProcessResult r = socratic_run({"report", (dir / "trace.jsonl").string(), "-o", (dir / "report.html").string()});
  INFO(r.stderr_text);
  REQUIRE(r.exit_code == 0);
  CHECK(fs::file_size(dir / "report.html") < 4'000'000);
  const std::string d = dom_of(dir / "report.html", dir);
  CHECK(attributes(d, "plot", "data-evaluations") == std::vector<std::string>{"400"});
  const auto ticks = attributes(d, "x-tick", "data-value");
  CHECK(ticks.size() >= 5);
  CHECK(ticks.size() <= 14);
  check_labels_apart(d);
  CHECK(count_of(d, "class=\"question-marker\"") == 16);
  CHECK(count_of(d, "class=\"evaluation-failed\"") == 57);  // i % 7 == 3 for i < 400
  CHECK(count_of(d, "class=\"stop-blocked\"") == 39);
  CHECK(count_of(d, "class=\"stop-allowed\"") == 1);
  CHECK(d.find("goal met: the stop hook let the agent stop at evaluation 399") != std::string::npos);
  CHECK(count_of(d, "<rect class=\"cell") == 36 * 400);  // the matrix keeps every evaluation
  CHECK(count_of(d, "class=\"cell-value\"") == 0);       // without values too small to read
  // Anchors and parameters found by the reported scenario set's name, in the data folder.
  CHECK(d.find("cuDNN TFLOP/s") != std::string::npos);
  CHECK(d.find("<th class=\"param\">seqlen_kv = seqlen_q</th>") != std::string::npos);
  const auto img = screenshot(dir / "report.html", dir / "report400.png", 1280, 2600, dir);
  std::size_t non_white = 0;
  for (unsigned y = 0; y < img.height; y += 3)
    for (unsigned x = 0; x < img.width; x += 3) non_white += img.rgb(x, y) != 0xffffff;
  CHECK(non_white > 20000);
}

TEST_CASE("report tells the truth: noise is not a gain, words come after the question, failures are not zeros",
          "[tool][report][chromium]") {
  const fs::path dir = fresh_dir("report_truth");
  auto evaluation = [](int index, double speedup, bool correct, double noise) {
    EvaluationRecord rec;
    rec.index = index;
    rec.origin = EvaluationOrigin::stop_check;
    rec.report.built = true;
    rec.report.expected = {"a", "b"};
    for (const char* id : {"a", "b"}) {
      ScenarioResult s;
      s.id = id;
      s.correct = correct;
      s.reason = correct ? "" : "wrong";
      s.speedup = speedup;
      s.candidate_ms = 1 / speedup;
      s.baseline_ms = 1;
      s.candidate_noise = noise;
      s.baseline_noise = noise;
      rec.report.scenarios.push_back(s);
    }
    return json{{"record", rec}};
  };
  AskedQuestion q{Question{"measurement.noise-vs-gain", "measurement", "Is it noise?", "a rerun", Trigger::plateau, "flat"},
                  0, 0, 0, "main"};
  std::string t = line(0, "campaign_started", {{"campaign_id", "truth"}, {"scenario_ids", {"a", "b"}}, {"goal", "all scenarios correct"}});
  t += line(1, "turn_started", {{"turn", 0}, {"message", {{"turn", 0}, {"text", "go"}}}});
  t += line(2, "turn_ended", {{"turn", 0}, {"result", {{"final_message", "BEFORE the question"}}}});
  t += line(3, "evaluation", evaluation(0, 1.000, true, 0.01));
  t += line(4, "question", {{"asked", q}});
  t += line(5, "turn_started", {{"turn", 1}, {"message", {{"turn", 1}, {"text", "Is it noise?"}}}});
  t += line(6, "turn_ended", {{"turn", 1}, {"result", {{"final_message", "AFTER the question"}}}});
  t += line(7, "evaluation", evaluation(1, 1.003, true, 0.01));  // +0.3%: inside 2 x 1.4% noise
  t += line(8, "campaign_ended", {{"reason", "turn_budget"}});
  write_text(dir / "trace.jsonl", t);
  REQUIRE(socratic_run({"report", (dir / "trace.jsonl").string(), "-o", (dir / "r.html").string()}).exit_code == 0);
  const std::string d = dom_of(dir / "r.html", dir);
  CHECK(d.find("data-credited=\"false\"") != std::string::npos);
  CHECK(d.find("no gain beyond the noise") != std::string::npos);
  CHECK(d.find("AFTER the question") != std::string::npos);
  CHECK(d.find("BEFORE the question") == std::string::npos);
  // `bank credit` on the same trace says the same.
  const ProcessResult credit = socratic_run({"bank", "credit", "--table", (dir / "credits.json").string(), (dir / "trace.jsonl").string()});
  CHECK(credit.stdout_text.find("measurement.noise-vs-gain after evaluation 0 (asked of main): no gain") != std::string::npos);
  // The best-beyond-noise line does not step up for the rise inside the noise.
  CHECK(attributes(d, "evaluation-point new-best", "data-index") == std::vector<std::string>{"0"});

  // A campaign whose every evaluation failed: a message and failure marks, no points at 0.
  std::string f = line(0, "campaign_started", {{"campaign_id", "failed"}, {"scenario_ids", {"a", "b"}}});
  for (int i = 0; i < 5; ++i) f += line(i + 1, "evaluation", evaluation(i, 1.5, false, 0.01));
  write_text(dir / "failed.jsonl", f);
  REQUIRE(socratic_run({"report", (dir / "failed.jsonl").string(), "-o", (dir / "f.html").string()}).exit_code == 0);
  const std::string fd = dom_of(dir / "f.html", dir);
  CHECK(fd.find("class=\"no-scores\"") != std::string::npos);
  CHECK(count_of(fd, "class=\"evaluation-point") == 0);
  CHECK(count_of(fd, "class=\"evaluation-failed\"") == 5);
  CHECK(attributes(fd, "plot", "data-y-min") == std::vector<std::string>{""});
  CHECK(count_of(fd, "class=\"cell cell-failed\"") == 10);
}

TEST_CASE("report on a hook campaign whose goal was met says so, and marks every stop", "[tool][report][chromium]") {
  const fs::path dir = fresh_dir("report_hook");
  const fs::path trace = recording("attention-h200") / "trace.jsonl";
  REQUIRE(socratic_run({"report", trace.string(), "-o", (dir / "r.html").string()}).exit_code == 0);
  const std::string d = dom_of(dir / "r.html", dir);
  CHECK(d.find("not ended") == std::string::npos);
  CHECK(d.find("goal met: the stop hook let the agent stop at evaluation 3") != std::string::npos);
  std::size_t allowed = 0, blocked = 0;
  for (const auto& c : events_of(trace, "hook_call")) (c["decision"] == "allow" ? allowed : blocked)++;
  CHECK(allowed == 11);
  CHECK(count_of(d, "class=\"stop-allowed\"") == allowed);
  CHECK(count_of(d, "class=\"stop-blocked\"") == blocked);
}
