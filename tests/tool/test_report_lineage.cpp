// The report's store sections (docs/parallel.md): the lineage tree of the candidates (who made
// what from what, after which question, the gate's verdict, drafts marked) and the incumbent's
// history, read from a campaign's candidate store beside its trace.
#include "catch.hpp"

#include <regex>

#include "socratic/report/html_report.hpp"
#include "tool_fixtures.hpp"

using namespace socratic;
using namespace tool_fixtures;

namespace {

/// A store line in the store's format (docs/store.md): a candidate with its report and gate.
json store_line(int seq, const std::string& agent, std::vector<std::string> parents, const std::string& origin,
                const std::string& question, const std::string& verdict, double speedup, double unix_s) {
  EvalReport r;
  r.scenarios.push_back(ScenarioResult{});
  r.scenarios.back().id = "s1";
  r.scenarios.back().correct = verdict != "failed";
  r.scenarios.back().speedup = verdict == "failed" ? std::nan("") : speedup;
  r.scenarios.back().baseline_ms = 2.0;
  r.scenarios.back().candidate_ms = 2.0 / speedup;
  r.built = true;
  r.expected = {"s1"};
  return {{"v", 1},
          {"type", "candidate"},
          {"seq", seq},
          {"id", "c" + std::to_string(seq)},
          {"parents", parents},
          {"agent", agent},
          {"origin", {{"kind", origin}, {"question_id", question.empty() ? "" : "q-" + std::to_string(seq)},
                      {"question_text", question}}},
          {"snapshot", {{"hash", "h" + std::to_string(seq)}}},
          {"report", r},
          {"gate", {{"verdict", verdict}, {"reason", verdict + " because of figures"}, {"incumbent", parents.empty() ? "" : parents.front()},
                    {"figures", json::object()}}},
          {"time", "2026-12-01T23:00:0" + std::to_string(seq) + "Z"},
          {"unix_s", unix_s}};
}

/// Two agents over one store: c0 the start, c1 (agent-1, after a question) admitted, c2
/// (agent-2) refused, c3 (agent-2's draft from c1) admitted, c4 (agent-1 from c3 and c2) failed.
std::string two_agent_store() {
  std::string s;
  s += store_line(0, "coordinator", {}, "start", "", "admitted", 1.0, 1000).dump() + "\n";
  s += store_line(1, "agent-1", {"c0"}, "question", "Where does the time go: memory or arithmetic?", "admitted", 1.4, 1010).dump() + "\n";
  s += json{{"v", 1}, {"type", "note"}, {"seq", 2}, {"id", "n2"}, {"agent", "agent-2"}, {"text", "tiling did not help"}}.dump() + "\n";
  s += store_line(3, "agent-2", {"c0"}, "question", "Which loop carries the dependency?", "refused", 1.01, 1020).dump() + "\n";
  s += store_line(4, "agent-2", {"c1"}, "draft", "Rewrite the reduction from scratch", "admitted", 2.1, 1030).dump() + "\n";
  s += store_line(5, "agent-1", {"c4", "c3"}, "crossover", "", "failed", 1.0, 1040).dump() + "\n";
  s += R"({"v":1,"type":"candidate","seq":6,"id":"c6","par)";  // a writer killed mid-line
  return s;
}

}  // namespace

TEST_CASE("report: the lineage tree and the incumbent's history, from the store beside the trace",
          "[tool][report][lineage]") {
  const fs::path dir = fresh_dir("report_lineage");
  fs::create_directories(dir / "state" / "store");
  fs::copy_file(source_dir() / "demo" / "softmax-cpu" / "trace.jsonl", dir / "state" / "trace.jsonl");
  write_text(dir / "state" / "store" / "store.jsonl", two_agent_store());

  const ProcessResult r = socratic_run({"report", (dir / "state").string(), "-o", (dir / "report.html").string()});
  INFO(r.stdout_text << r.stderr_text);
  REQUIRE(r.exit_code == 0);
  const std::string html = read_text(dir / "report.html");

  // Every complete candidate line is in the tree; the torn last one is not; notes are not candidates.
  for (const char* id : {"c0", "c1", "c3", "c4", "c5"})
    CHECK(html.find("data-candidate=\"" + std::string(id) + "\"") != std::string::npos);
  CHECK(html.find("data-candidate=\"c6\"") == std::string::npos);
  CHECK(html.find("data-candidate=\"n2\"") == std::string::npos);
  CHECK(html.find("5 candidates from 3 agents in the store; 3 admitted by the gate, 1 drafts") != std::string::npos);

  // Nesting: c1 and c3 under c0, c4 under c1, c5 under c4 (its first parent), naming c3 beside.
  const auto li = [&](const std::string& id) { return html.find("<li data-candidate=\"" + id + "\""); };
  const auto closes = [&](std::size_t open) {  // the matching </li> of the <li> at `open`
    int depth = 0;
    for (std::size_t p = open; p < html.size(); ++p) {
      if (html.compare(p, 4, "<li ") == 0) ++depth;
      if (html.compare(p, 5, "</li>") == 0 && --depth == 0) return p;
    }
    return std::string::npos;
  };
  const auto inside = [&](const std::string& child, const std::string& parent) {
    return li(child) > li(parent) && li(child) < closes(li(parent));
  };
  CHECK(inside("c1", "c0"));
  CHECK(inside("c3", "c0"));
  CHECK(inside("c4", "c1"));
  CHECK(inside("c5", "c4"));
  CHECK_FALSE(inside("c3", "c1"));
  CHECK_FALSE(inside("c5", "c3"));
  CHECK(html.find("also from c3") != std::string::npos);

  // Who, after which question, the verdict, drafts marked.
  CHECK(std::regex_search(html, std::regex(R"(<li data-candidate="c1" data-agent="agent-1" data-verdict="admitted" data-draft="false")")));
  CHECK(std::regex_search(html, std::regex(R"(<li data-candidate="c4" data-agent="agent-2" data-verdict="admitted" data-draft="true")")));
  CHECK(html.find("Where does the time go: memory or arithmetic?") != std::string::npos);
  CHECK(html.find("<span class=\"draft\">draft</span>") != std::string::npos);
  CHECK(html.find("refused because of figures") != std::string::npos);

  // The incumbent's history: the admitted ones in order, with time, agent and speedup.
  const auto table = html.substr(html.find("id=\"incumbents\""));
  const auto row = [&](const std::string& id) { return table.find("<tr data-candidate=\"" + id + "\""); };
  REQUIRE(row("c0") != std::string::npos);
  REQUIRE(row("c1") != std::string::npos);
  REQUIRE(row("c4") != std::string::npos);
  CHECK(row("c0") < row("c1"));
  CHECK(row("c1") < row("c4"));
  CHECK(row("c3") == std::string::npos);
  CHECK(table.find("+30.0 s") != std::string::npos);
  CHECK(table.find("2.100x over c1") != std::string::npos);
  CHECK(table.find("2.940x") != std::string::npos);  // chained: 1.4 x 2.1

  // The data block carries the same.
  const std::string open = "<script type=\"application/json\" id=\"socratic-data\">";
  const auto at = html.find(open) + open.size();
  std::string payload = html.substr(at, html.find("</script>", at) - at);
  for (auto p = payload.find("<\\/"); p != std::string::npos; p = payload.find("<\\/", p)) payload.replace(p, 3, "</");
  const json data = json::parse(payload);
  CHECK(data["lineage"].size() == 5);
  CHECK(data["incumbents"] == json::array({"c0", "c1", "c4"}));
}

TEST_CASE("report: a store named with --store, and a store with a bad line in the middle", "[tool][report][lineage]") {
  const fs::path dir = fresh_dir("report_lineage_store_flag");
  fs::copy_file(source_dir() / "demo" / "softmax-cpu" / "trace.jsonl", dir / "trace.jsonl");
  std::string store = two_agent_store();
  write_text(dir / "elsewhere.jsonl", store);
  ProcessResult r = socratic_run({"report", (dir / "trace.jsonl").string(), "--store", (dir / "elsewhere.jsonl").string(),
                                  "-o", (dir / "r.html").string()});
  INFO(r.stdout_text << r.stderr_text);
  CHECK(r.exit_code == 0);
  CHECK(read_text(dir / "r.html").find("id=\"lineage\"") != std::string::npos);

  // Without a store: no store sections.
  r = socratic_run({"report", (dir / "trace.jsonl").string(), "-o", (dir / "plain.html").string()});
  CHECK(r.exit_code == 0);
  CHECK(read_text(dir / "plain.html").find("id=\"lineage\"") == std::string::npos);

  write_text(dir / "bad.jsonl", "{\"type\":\"candidate\"\n" + store);
  r = socratic_run({"report", (dir / "trace.jsonl").string(), "--store", (dir / "bad.jsonl").string(), "-o",
                    (dir / "bad.html").string()});
  CHECK(r.exit_code == 2);
  CHECK(r.stderr_text.find("bad.jsonl") != std::string::npos);
  CHECK(r.stderr_text.find("line 1") != std::string::npos);

  r = socratic_run({"report", (dir / "trace.jsonl").string(), "--store", (dir / "missing.jsonl").string(), "-o",
                    (dir / "m.html").string()});
  CHECK(r.exit_code == 2);
  CHECK(r.stderr_text.find("missing.jsonl") != std::string::npos);
}
