// The store tools in process, with the gate's prepared measurement (tests/store): two agents'
// servers propose to one store through the writer's lock, read each other's notes, and a
// proposal whose store is held too long by another writer fails with the reason.
#include "catch.hpp"

#include "socratic/core/files.hpp"
#include "socratic/core/detail/sha256.hpp"
#include "socratic/mcp/store_tools.hpp"
#include "store_fixtures.hpp"

using namespace socratic;
using namespace socratic::mcp;

namespace {

struct StoreBench {
  std::filesystem::path root;
  explicit StoreBench(const std::string& name) {
    root = std::filesystem::temp_directory_path() / ("socratic-mcp-store-" + name + "-" + std::to_string(::getpid()));
    std::filesystem::remove_all(root);
    std::filesystem::create_directories(root / "ws");
  }
  StoreToolsConfig config(const std::string& agent) const {
    StoreToolsConfig c;
    c.store_dir = root / "store";
    c.agent = agent;
    c.workspace = root / "ws";
    c.candidate = root / "ws" / "candidate.cu";
    c.measure = store_fixtures::PreparedMeasure{};
    c.snapshot = [](const Candidate& cand) {
      Candidate out = cand;
      out.content_hash = socratic::detail::sha256_hex(read_file_bytes(cand.source));
      return out;
    };
    c.lock_wait_s = 5;
    return c;
  }
  void write(const std::string& name, const std::string& text) const { store_fixtures::write_text(root / "ws" / name, text); }
};

ToolResult call(std::vector<ToolDefinition>& tools, const std::string& name, const json& args) {
  for (auto& t : tools)
    if (t.name == name) return t.call(args, CallContext{});
  FAIL("no tool " << name);
  return {};
}

JobRecord finished(JobQueue& jobs, const ToolResult& started) {
  REQUIRE_FALSE(started.is_error);
  const auto r = jobs.wait(started.structured["job"].get<std::string>(), std::chrono::seconds(30));
  REQUIRE(r);
  REQUIRE(r->finished());
  return *r;
}

}  // namespace

TEST_CASE("store tools: two agents propose to one store, the gate decides, notes go between them", "[mcp][store]") {
  StoreBench b("two");
  JobQueue jobs_a(b.root / "jobs-a"), jobs_b(b.root / "jobs-b");
  StoreTools a(b.config("a1"), jobs_a), other(b.config("a2"), jobs_b);
  auto ta = a.definitions(), tb = other.definitions();

  CHECK(call(ta, "notes", json::object()).text.find("holds nothing yet") != std::string::npos);
  b.write("first.cu", "ms 1.00\n");
  const JobRecord first = finished(jobs_a, call(ta, "propose", {{"candidate", "first.cu"}, {"origin", "user"}}));
  INFO(json(first).dump(2));
  CHECK(first.status == "done");
  CHECK(first.result["verdict"] == "admitted");  // the first candidate, correct: the incumbent
  CHECK(first.result["record"] == "c0");

  b.write("faster.cu", "ms 0.90\n");
  b.write("wrong.cu", "ms 0.50\nwrong s2\n");
  const JobRecord faster = finished(jobs_b, call(tb, "propose", {{"candidate", "faster.cu"}, {"parents", {"c0"}}}));
  CHECK(faster.result["verdict"] == "admitted");
  CHECK(faster.result["incumbent_before"] == "c0");
  const JobRecord wrong = finished(jobs_a, call(ta, "propose", {{"candidate", "wrong.cu"}, {"origin", "question"},
                                                               {"question_id", "correctness.tails"}}));
  CHECK(wrong.result["verdict"] == "failed");

  CHECK_FALSE(call(tb, "note", {{"text", "unrolling by 4 gave 10 %"}}).is_error);
  const ToolResult seen = call(ta, "notes", json::object());
  INFO(seen.text);
  CHECK(seen.structured["candidates"] == 3);
  CHECK(seen.structured["incumbent"]["id"] == "c1");
  CHECK(seen.structured["incumbent"]["agent"] == "a2");
  CHECK(seen.structured["notes"][0]["agent"] == "a2");
  CHECK(seen.text.find("unrolling by 4 gave 10 %") != std::string::npos);
  CHECK(seen.structured["recent_failures"][0]["id"] == "c2");
  const std::int64_t since = seen.structured["next_seq"].get<std::int64_t>() - 1;
  CHECK(call(ta, "notes", {{"since", since}}).structured["notes"].empty());

  // Bad input: each an isError the model reads.
  CHECK(call(ta, "propose", {{"candidate", "missing.cu"}}).is_error);
  CHECK(call(ta, "propose", {{"origin", "telepathy"}}).is_error);
  CHECK(call(ta, "propose", {{"parents", "c0"}}).is_error);
  CHECK(call(ta, "note", {{"text", ""}}).is_error);
  CHECK(call(ta, "note", {{"text", std::string(5000, 'n')}}).is_error);
  CHECK(call(ta, "notes", {{"since", "yesterday"}}).is_error);
  const JobRecord orphan = finished(jobs_a, call(ta, "propose", {{"candidate", "faster.cu"}, {"parents", {"c99"}}}));
  CHECK(orphan.status == "failed");
  CHECK(orphan.error.find("\"c99\" is not a record") != std::string::npos);
}

TEST_CASE("store tools: a store held by another writer past the wait fails the proposal with the reason", "[mcp][store]") {
  StoreBench b("held");
  JobQueue jobs(b.root / "jobs");
  StoreToolsConfig config = b.config("a1");
  config.lock_wait_s = 0.5;
  StoreTools tools(config, jobs);
  auto t = tools.definitions();
  b.write("candidate.cu", "ms 1.00\n");
  CandidateStore coordinator = CandidateStore::open(b.root / "store");  // holds the lock
  const JobRecord r = finished(jobs, call(t, "propose", json::object()));
  CHECK(r.status == "failed");
  CHECK(r.error.find("held by another writer") != std::string::npos);
}

TEST_CASE("store tools: propose refuses when the evaluator cannot time against the incumbent", "[mcp][store]") {
  StoreBench b("unavailable");
  JobQueue jobs(b.root / "jobs");
  StoreToolsConfig config = b.config("a1");
  config.measure_unavailable = "the evaluator command names no {baseline}";
  StoreTools tools(config, jobs);
  auto t = tools.definitions();
  b.write("candidate.cu", "ms 1.00\n");
  const ToolResult r = call(t, "propose", json::object());
  CHECK(r.is_error);
  CHECK(r.text.find("names no {baseline}") != std::string::npos);
}
