// `socratic run` with an agents section (docs/parallel.md): two replay agents (the recorded CPU
// softmax campaign) in parallel on one store, judged by the CPU problem's evaluator command; the
// store, the trace, the progress lines, the final line, the workspaces, resume, and the report.
#include "catch.hpp"

#include <set>
#include <sstream>

#include "tool_fixtures.hpp"

using namespace socratic;
using namespace tool_fixtures;

namespace {

std::vector<json> store_candidates(const fs::path& store) {
  std::vector<json> out;
  std::istringstream lines(read_text(store));
  for (std::string text; std::getline(lines, text);)
    if (const json line = json::parse(text); line.value("type", "") == "candidate") out.push_back(line);
  return out;
}

}  // namespace

TEST_CASE("socratic run: two replay agents in parallel on one store", "[tool][parallel]") {
  const fs::path dir = fresh_dir("parallel_replay") / "campaign";
  // A goal no candidate meets: the campaign ends when both agents have made their proposals.
  REQUIRE(init_cpu_campaign(dir, "none", R"({"every_scenario_speedup_at_least": 1000})").ok());
  json c = json::parse(read_text(dir / "campaign.json"));
  const std::string recording = (source_dir() / "demo" / "softmax-cpu").string();
  c["agent"]["sandbox"] = "none";  // replay agents run no shell
  c["agents"] = {{"kind", "replay"},
                 {"roles",
                  {{{"id", "r1"}, {"recording", recording}, {"max_proposals", 2}, {"role", "first replay"}},
                   {{"id", "r2"}, {"recording", recording}, {"max_proposals", 2}}}}};
  write_text(dir / "campaign.json", c.dump(2));

  const ProcessResult r = socratic_run({"run", (dir / "campaign.json").string()});
  INFO(r.stdout_text << r.stderr_text);
  REQUIRE(r.exit_code == 1);
  CHECK(r.stdout_text.find("campaign ended: agents_done; 4 candidates in the store, 4 gated in this run") !=
        std::string::npos);
  CHECK(r.stdout_text.find("incumbent: c") != std::string::npos);
  CHECK(r.stderr_text.find("2 agents on one store") != std::string::npos);
  for (const char* id : {"r1", "r2"}) {
    INFO(id);
    CHECK(r.stderr_text.find("[" + std::string(id) + "] 0 proposals | incumbent none | working (proposal 1)") !=
          std::string::npos);
    CHECK(r.stderr_text.find("[" + std::string(id) + "] ") != std::string::npos);
    CHECK(fs::is_regular_file(dir / "agents" / id / "candidate.cpp"));  // its own workspace
  }
  CHECK(r.stderr_text.find(" admitted: ") != std::string::npos);

  const fs::path store = dir / "state" / "store" / "store.jsonl";
  REQUIRE(fs::exists(store));
  const std::vector<json> records = store_candidates(store);
  REQUIRE(records.size() == 4);
  std::map<std::string, int> per_agent;
  for (const auto& rec : records) ++per_agent[rec.value("agent", "")];
  CHECK(per_agent == std::map<std::string, int>{{"r1", 2}, {"r2", 2}});
  CHECK(records.front()["gate"].value("verdict", "") == "admitted");  // the first correct one, against the baseline

  std::set<std::string> gated;
  for (const auto& e : events_of(trace_of(dir), "gated")) gated.insert(e.value("agent", ""));
  CHECK(gated == std::set<std::string>{"r1", "r2"});

  // Run again: the campaign ended, nothing is gated twice.
  const ProcessResult again = socratic_run({"run", (dir / "campaign.json").string()});
  INFO(again.stdout_text << again.stderr_text);
  CHECK(store_candidates(store).size() == 4);

  // The report shows the lineage of those four records.
  const ProcessResult rep = socratic_run({"report", dir.string(), "-o", (dir / "report.html").string()});
  REQUIRE(rep.exit_code == 0);
  const std::string html = read_text(dir / "report.html");
  CHECK(html.find("4 candidates from 2 agents in the store") != std::string::npos);
  CHECK(count_of(html, "<li data-candidate=") == 4);
}

TEST_CASE("socratic run: agents whose model calls all fail end agent_error; fixed, the campaign continues", "[tool][parallel]") {
  const fs::path dir = fresh_dir("parallel_agent_error") / "campaign";
  REQUIRE(init_cpu_campaign(dir, "none", R"({"every_scenario_speedup_at_least": 1000})").ok());
  json c = json::parse(read_text(dir / "campaign.json"));
  // A model server that is not there (nothing listens on port 1): each call fails after its one retry.
  c["agent"] = {{"backend", "anthropic"},
                {"model", "claude-test"},
                {"base_url", "http://127.0.0.1:1"},
                {"api_key_env", "SOCRATIC_TEST_PARALLEL_KEY"},
                {"sandbox", "none"},
                {"retry", {{"max_retries", 1}, {"max_time_s", 5}, {"initial_delay_s", 0.1}, {"max_delay_s", 0.1}}}};
  c["agents"] = {{"kind", "llm"},
                 {"roles", {{{"id", "r1"}, {"max_proposals", 2}}, {{"id", "r2"}, {"max_proposals", 2}}}}};
  write_text(dir / "campaign.json", c.dump(2));
  const std::vector<std::string> env = {"SOCRATIC_TEST_PARALLEL_KEY=sk-test-not-a-real-key"};

  const ProcessResult failed = socratic_run({"run", (dir / "campaign.json").string()}, {}, env);
  INFO(failed.stdout_text << failed.stderr_text);
  REQUIRE(failed.exit_code == 1);
  CHECK(failed.stdout_text.find("campaign ended: agent_error (") != std::string::npos);
  CHECK(failed.stdout_text.find("r1: ") != std::string::npos);
  CHECK(failed.stdout_text.find("; r2: ") != std::string::npos);
  CHECK(failed.stdout_text.find("not the campaign's end: fix the fault") != std::string::npos);
  CHECK(failed.stdout_text.find("sk-test-not-a-real-key") == std::string::npos);
  const std::size_t turns_before = events_of(trace_of(dir), "turn_started").size();
  CHECK(turns_before == 2);

  // The fault fixed (here: the agents replay a recorded campaign): the same store and trace continue.
  const std::string recording = (source_dir() / "demo" / "softmax-cpu").string();
  c["agents"] = {{"kind", "replay"},
                 {"roles",
                  {{{"id", "r1"}, {"recording", recording}, {"max_proposals", 2}},
                   {{"id", "r2"}, {"recording", recording}, {"max_proposals", 2}}}}};
  write_text(dir / "campaign.json", c.dump(2));
  const ProcessResult resumed = socratic_run({"run", (dir / "campaign.json").string()}, {}, env);
  INFO(resumed.stdout_text << resumed.stderr_text);
  CHECK(resumed.stdout_text.find("campaign ended: agents_done; 4 candidates in the store, 4 gated in this run") !=
        std::string::npos);
  const auto continued = events_of(trace_of(dir), "campaign_continued");
  REQUIRE(continued.size() == 1);
  CHECK(continued[0].value("previous_reason", "") == "agent_error");
  CHECK(events_of(trace_of(dir), "campaign_started").size() == 1);
  CHECK(events_of(trace_of(dir), "turn_started").size() > turns_before);
  CHECK(store_candidates(dir / "state" / "store" / "store.jsonl").size() == 4);
}
