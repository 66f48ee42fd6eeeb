// The coordinator with scripted agents and a prepared measurement: proposals gated into the
// store with their lineage, drafts at the plateau and only there (a draft that wins shows where
// it started), many agents at once, and a coordinator killed with SIGKILL at random points that
// resumes to the same store and incumbent, counting nothing twice.
#include "catch.hpp"

#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>

#include <random>
#include <set>

#include "child_modes.hpp"
#include "store_fixtures.hpp"

extern char** environ;

using namespace socratic;
using namespace store_fixtures;

namespace {

std::filesystem::path fresh_root(const std::string& name) {
  auto d = std::filesystem::temp_directory_path() / ("socratic-parallel-test-" + name + "-" + std::to_string(::getpid()));
  std::filesystem::remove_all(d);
  return d;
}

ParallelAgentSpec spec_for(const std::filesystem::path& root, const std::string& id, int max_proposals) {
  ParallelAgentSpec s;
  s.id = id;
  s.workspace = root / id;
  s.candidate.source = root / id / "kernel.cu";
  s.max_proposals = max_proposals;
  return s;
}

}  // namespace

TEST_CASE("parallel: proposals of several agents are gated into one store", "[parallel]") {
  const auto root = fresh_root("gated");
  PreparedMeasure measure;
  BaselineEvaluator evaluator{measure};
  NumberedQuestions questions;
  ParallelConfig config;
  config.drafts.plateau_attempts = 0;
  std::mutex progress_mutex;
  std::map<std::string, int> gated_per_agent;
  config.on_progress = [&](const AgentProgress& p) {
    std::lock_guard lock(progress_mutex);
    if (p.event == AgentStep::gated) ++gated_per_agent[p.agent];
  };
  ParallelCampaign campaign(evaluator, PairMeasure(measure), questions, never_met, campaign_in(root), config);
  campaign.note("a3", "tiling by 128 was slower on s2");
  std::vector<std::shared_ptr<std::vector<Message>>> inboxes;
  for (int a = 0; a < 4; ++a) {
    ProposingAgent agent;
    for (int i = 0; i < 3; ++i)  // agent 0 improves; the others propose slower or equal variants
      agent.contents.push_back(a == 0 ? "ms " + std::to_string(1.0 - 0.1 * i) + "\n"
                                      : "ms " + std::to_string(1.2 + 0.1 * a) + "\n// " + std::to_string(i) + "\n");
    inboxes.push_back(agent.received);
    auto spec = spec_for(root, "a" + std::to_string(a), 3);
    spec.role = a == 0 ? "You work on memory traffic." : "";
    campaign.add_agent(spec, AnyAgent(std::move(agent)));
  }
  const ParallelResult r = campaign.run();
  CHECK(r.reason == StopReason::agents_done);
  CHECK(r.records == 12);
  CHECK(r.gated_now == 12);
  for (int a = 0; a < 4; ++a) CHECK(gated_per_agent["a" + std::to_string(a)] == 3);
  REQUIRE(r.incumbent);
  CHECK(r.incumbent->agent == "a0");
  const StoreRecord inc = campaign.store().record(r.incumbent->id);
  CHECK(parse_behaviour(read_file_bytes(campaign.store().dir() / inc.snapshot.entry)).ms == Approx(0.8));
  CHECK(inc.gate.verdict == GateOutcome::admitted);
  std::set<std::string> keys;
  for (const auto& s : campaign.store().summaries()) {
    keys.insert(s.key);
    for (const auto& p : s.parents) CHECK(campaign.store().summary(p));
  }
  CHECK(keys.size() == 12);
  const auto lineage = campaign.store().lineage(r.incumbent->id);
  CHECK(lineage.size() >= 2);
  CHECK(inboxes[0]->front().text.rfind("You work on memory traffic.", 0) == 0);
  CHECK(inboxes[1]->size() == 3);
  CHECK((*inboxes[1])[1].text.find("Your proposal c") != std::string::npos);
  CHECK((*inboxes[1])[1].text.find("Note from a3: tiling by 128 was slower on s2") != std::string::npos);
  CHECK((*inboxes[1])[2].text.find("Note from a3") == std::string::npos);  // shown once
  // The engine's trace holds every gate, per agent.
  const auto trace = read_trace(root / "state" / "trace.jsonl").events;
  int gated_events = 0;
  for (const auto& e : trace) gated_events += e["type"] == "gated";
  CHECK(gated_events == 12);
}

TEST_CASE("parallel: drafts fire at the plateau and only there; a winning draft shows its lineage", "[parallel][drafts]") {
  const auto root = fresh_root("drafts");
  PreparedMeasure measure;
  BaselineEvaluator evaluator{measure};
  NumberedQuestions questions;
  ParallelConfig config;
  config.drafts.plateau_attempts = 4;
  std::vector<std::pair<std::size_t, std::string>> drafts;  // (records when it fired, question)
  ParallelCampaign<BaselineEvaluator, NumberedQuestions, decltype(&never_met)>* self = nullptr;
  config.on_progress = [&](const AgentProgress& p) {
    if (p.event == AgentStep::draft) drafts.push_back({self->store().size(), p.detail});
  };
  ParallelCampaign campaign(evaluator, PairMeasure(measure), questions, &never_met, campaign_in(root), config);
  self = &campaign;
  ProposingAgent agent;
  // 0: the start (admitted as the first); 1-4: no gain (plateau at 4); 5: the draft, faster;
  // 6-9: no gain (plateau again); 10: the second draft, no gain either.
  agent.contents = {"ms 1.0\n"};
  for (int i = 1; i <= 10; ++i) agent.contents.push_back(i == 5 ? "ms 0.8\n" : "ms 1.0\n// " + std::to_string(i) + "\n");
  auto inbox = agent.received;
  campaign.add_agent(spec_for(root, "solo", 11), AnyAgent(std::move(agent)));
  const ParallelResult r = campaign.run();
  CHECK(r.records == 11);
  REQUIRE(drafts.size() == 2);
  CHECK(drafts[0].first == 5);   // after c0 admitted and c1..c4 not: 4 attempts
  CHECK(drafts[1].first == 10);  // after c5 admitted and c6..c9 not
  CHECK(drafts[0].second != drafts[1].second);
  const auto summaries = campaign.store().summaries();
  CHECK(summaries[5].origin == OriginKind::draft);
  CHECK(summaries[5].verdict == GateOutcome::admitted);
  CHECK(summaries[5].parents == std::vector<std::string>{"c0"});
  CHECK(summaries[10].origin == OriginKind::draft);
  for (std::size_t i = 1; i < 10; ++i)
    if (i != 5) CHECK(summaries[i].origin != OriginKind::draft);
  const StoreRecord winner = campaign.store().record("c5");
  CHECK(winner.origin.question_id.rfind("plateau.", 0) == 0);
  const auto lineage = campaign.store().lineage("c5");
  REQUIRE(lineage.size() == 2);
  CHECK(lineage[0].id == "c0");
  REQUIRE(inbox->size() == 11);
  CHECK((*inbox)[5].text.find("draft a new direction") != std::string::npos);
  REQUIRE((*inbox)[5].question);
  CHECK((*inbox)[5].question->trigger == Trigger::plateau);
  CHECK((*inbox)[4].text.find("draft a new direction") == std::string::npos);
}

TEST_CASE("parallel: distinct draft questions across agents at one plateau", "[parallel][drafts]") {
  const auto root = fresh_root("drafts-many");
  PreparedMeasure measure;
  BaselineEvaluator evaluator{measure};
  NumberedQuestions questions;
  ParallelConfig config;
  config.drafts.plateau_attempts = 6;
  std::mutex m;
  std::vector<std::string> asked;
  config.on_progress = [&](const AgentProgress& p) {
    std::lock_guard lock(m);
    if (p.event == AgentStep::draft) asked.push_back(p.detail);
  };
  ParallelCampaign campaign(evaluator, PairMeasure(measure), questions, never_met, campaign_in(root), config);
  // Every proposal as fast as the first (admitted) one, so the plateau comes at the 6th attempt
  // after it, however the threads interleave; 8 proposals each, so that no agent has used its
  // budget by then and each one gets its draft with its next answer.
  for (int a = 0; a < 3; ++a) {
    ProposingAgent agent;
    for (int i = 0; i < 8; ++i) agent.contents.push_back("ms 1.0\n// " + std::to_string(a) + " " + std::to_string(i) + "\n");
    campaign.add_agent(spec_for(root, "a" + std::to_string(a), 8), AnyAgent(std::move(agent)));
  }
  campaign.run();
  REQUIRE(asked.size() >= 3);
  CHECK(std::set<std::string>(asked.begin(), asked.end()).size() == asked.size());
}

TEST_CASE("parallel: 24 agents proposing at once", "[parallel][concurrency]") {
  const auto root = fresh_root("many");
  PreparedMeasure measure;
  measure.samples = 10;
  BaselineEvaluator evaluator{measure};
  NumberedQuestions questions;
  ParallelConfig config;
  config.max_proposals = 100;
  ParallelCampaign campaign(evaluator, PairMeasure(measure), questions, never_met, campaign_in(root), config);
  for (int a = 0; a < 24; ++a) {
    ProposingAgent agent;
    for (int i = 0; i < 6; ++i) agent.contents.push_back("ms " + std::to_string(1.0 - 0.001 * (a * 6 + i)) + "\n");
    campaign.add_agent(spec_for(root, "a" + std::to_string(a), 6), AnyAgent(std::move(agent)));
  }
  const ParallelResult r = campaign.run();
  CHECK(r.reason == StopReason::proposals_spent);
  CHECK(r.records == 100);
  StoreOptions ro;
  ro.read_only = true;
  CHECK(CandidateStore::open(root / "state" / "store", ro).size() == 100);
}

TEST_CASE("parallel: a coordinator killed with SIGKILL at random points resumes to the same store", "[parallel][resume]") {
  auto run_child = [](const std::filesystem::path& root, std::optional<int> kill_after_ms) {
    std::vector<std::string> args = socratic::test::child_command("store-coordinator", {root.string()});
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
    pid_t pid = 0;
    REQUIRE(posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ) == 0);
    posix_spawn_file_actions_destroy(&actions);
    int status = 0;
    if (kill_after_ms) {
      const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(*kill_after_ms);
      while (std::chrono::steady_clock::now() < until) {
        if (::waitpid(pid, &status, WNOHANG) == pid) return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
      }
      ::kill(pid, SIGKILL);
    }
    ::waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;  // -1: killed
  };
  auto outcome = [](const std::filesystem::path& root) {
    StoreOptions ro;
    ro.read_only = true;
    auto store = CandidateStore::open(root / "state" / "store", ro);
    std::map<std::string, GateOutcome> verdicts;
    for (const auto& s : store.summaries()) {
      CHECK(verdicts.count(s.key) == 0);  // nothing counted twice
      verdicts[s.key] = s.verdict;
    }
    return std::make_pair(verdicts, store.incumbent() ? store.incumbent()->key : std::string());
  };

  const auto reference = fresh_root("kill-reference");
  REQUIRE(run_child(reference, std::nullopt) == 0);
  const auto expected = outcome(reference);
  REQUIRE(expected.first.size() == 16);
  CHECK(expected.second.rfind("fast/7/", 0) == 0);

  const auto killed = fresh_root("kill-resumed");
  std::mt19937 rng(20261201);
  int kills = 0, finished = 0;
  for (int launch = 0; launch < 60 && !finished; ++launch) {
    const int rc = run_child(killed, std::uniform_int_distribution<int>(5, 60)(rng));
    if (rc == -1) ++kills;
    else {
      REQUIRE(rc == 0);
      finished = 1;
    }
  }
  if (!finished) REQUIRE(run_child(killed, std::nullopt) == 0);
  CHECK(kills >= 3);
  const auto got = outcome(killed);
  CHECK(got.first == expected.first);
  CHECK(got.second == expected.second);
  // Running it again changes nothing: the campaign has ended.
  REQUIRE(run_child(killed, std::nullopt) == 0);
  CHECK(outcome(killed).first.size() == 16);
}
