// socratic evolve end to end on the CPU problem with the scripted agent: killed with SIGKILL
// mid-run and resumed; the ablation harness as one command.
#include "support.hpp"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <set>
#include <thread>

#include "socratic/core/files.hpp"
#include "socratic/process/run_process.hpp"
#include "socratic/store/candidate_store.hpp"

using namespace socratic;

namespace {

const std::filesystem::path cpu_campaign_file = std::filesystem::path(SOCRATIC_SOURCE_DIR) / "tests/evolve/cpu/campaign.json";

std::size_t line_count(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::size_t n = 0;
  std::string line;
  while (std::getline(in, line)) n += !line.empty();
  return n;
}

ProcessResult run_evolve_tool(const std::vector<std::string>& extra) {
  std::vector<std::string> argv = {SOCRATIC_TOOL_PATH, "evolve", cpu_campaign_file.string()};
  argv.insert(argv.end(), extra.begin(), extra.end());
  ProcessOptions o;
  o.timeout = std::chrono::minutes(10);
  return run_process(argv, o);
}

std::vector<StoreRecord> records_of(const std::filesystem::path& store_dir) {
  StoreOptions ro;
  ro.read_only = true;
  auto store = CandidateStore::open(store_dir, ro);
  std::vector<StoreRecord> out;
  for (const auto& s : store.summaries()) out.push_back(store.record(s.id));
  return out;
}

}  // namespace

TEST_CASE("socratic evolve killed with SIGKILL resumes without redoing or double counting", "[evolve][tool][resume]") {
  const auto dir = etest::temp_dir("tool-kill");
  const auto state = dir / "state";
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    setpgid(0, 0);  // its own group: the kill takes the agent and the evaluator with it
    execl(SOCRATIC_TOOL_PATH, SOCRATIC_TOOL_PATH, "evolve", cpu_campaign_file.c_str(), "--state", state.c_str(),
          static_cast<char*>(nullptr));
    _exit(127);
  }
  setpgid(pid, pid);
  // Kill it once the store holds the start and at least one child.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(3);
  while (line_count(state / "store" / "store.jsonl") < 2 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  ::kill(-pid, SIGKILL);
  int status = 0;
  waitpid(pid, &status, 0);
  REQUIRE(WIFSIGNALED(status));
  CHECK(WTERMSIG(status) == SIGKILL);
  CHECK_FALSE(std::filesystem::exists(state / "evolution-state.json"));  // it never reached the end
  const std::size_t before = records_of(state / "store").size();
  CHECK(before >= 2);

  const ProcessResult resumed = run_evolve_tool({"--state", state.string()});
  INFO(resumed.stdout_text << resumed.stderr_text);
  REQUIRE(resumed.exit_code == 0);
  const json st = read_json_file(state / "evolution-state.json");
  CHECK(st["finished"] == true);
  // Every slot ended once: store keys and journal keys are unique and together cover the
  // 3 generations x 2 islands x 2 children.
  std::set<std::string> keys;
  const auto records = records_of(state / "store");
  for (const auto& r : records) CHECK(keys.insert(r.key).second);
  std::ifstream journal(state / "evolution.jsonl");
  std::string line;
  int generations = 0;
  while (std::getline(journal, line)) {
    const json e = json::parse(line);
    if (e["type"] == "generation") ++generations;
    else CHECK(keys.insert(e["key"].get<std::string>()).second);
  }
  CHECK(keys.size() == 1 + 3 * 2 * 2);
  CHECK(generations == 3);
  CHECK(st["evaluations"] == records.size());
  // Children name their parents and questions; the gate measured them against the parent.
  for (const auto& r : records) {
    if (r.key == "start") continue;
    CHECK(!r.parents.empty());
    CHECK(r.gate.incumbent == r.parents.front());
    CHECK(!r.origin.question_id.empty());
  }
  // The report shows the population over time, the front and the questions that paid.
  const std::string report = read_file_bytes(state / "evolution-report.md");
  CHECK_THAT(report, E_CONTAINS("## The population over time"));
  CHECK_THAT(report, E_CONTAINS("## The front over scenarios"));
  CHECK_THAT(report, E_CONTAINS("## Questions that produced admitted children"));
  // The scripted agent's compute questions are real rewrites: the search got faster than the start.
  CHECK(st["best"]["fitness"].get<double>() > 1.3);

  // A further run finds everything done and changes nothing.
  const ProcessResult again = run_evolve_tool({"--state", state.string()});
  CHECK(again.exit_code == 0);
  CHECK(records_of(state / "store").size() == records.size());
}

TEST_CASE("the ablation runs question and plain mutations on the same budget as one command", "[evolve][tool][ablation]") {
  const auto dir = etest::temp_dir("tool-ablation");
  const ProcessResult r = run_evolve_tool({"--ablation", "--state", (dir / "state").string()});
  INFO(r.stdout_text << r.stderr_text);
  REQUIRE(r.exit_code == 0);
  const auto ab = dir / "state" / "ablation";
  const std::string md = read_file_bytes(ab / "ablation.md");
  CHECK_THAT(md, E_CONTAINS("| question |"));
  CHECK_THAT(md, E_CONTAINS("| plain |"));
  CHECK_THAT(md, E_CONTAINS("not an effect size"));
  const json j = read_json_file(ab / "ablation.json");
  CHECK(j["question"]["generations"].size() == 3);
  CHECK(j["plain"]["generations"].size() == 3);
  for (const auto& rec : records_of(ab / "plain" / "store"))
    if (rec.key != "start") {
      CHECK(rec.origin.kind == OriginKind::mutation);
      CHECK(rec.origin.question_text == "Make this kernel faster.");
    }
  for (const auto& rec : records_of(ab / "question" / "store"))
    if (rec.key != "start") CHECK((rec.origin.kind == OriginKind::question || rec.origin.kind == OriginKind::crossover));
}

TEST_CASE("a finished run merges its questions' pulls into the bank's credit table, once", "[evolve][tool][credit]") {
  const auto dir = etest::temp_dir("tool-credit");
  json c = read_json_file(cpu_campaign_file);
  const auto cpu = cpu_campaign_file.parent_path();
  c["evolution"]["start"] = (cpu / "start.cpp").string();
  c["evolution"]["generations"] = 1;
  c["evolution"]["credit"] = (dir / "credit.json").string();
  c["measure"]["command"] = json::array({"bash", (cpu / "pair_evaluate.sh").string(), "{candidate}", "{baseline}",
                                         (cpu / "../../tool/cpu_problem/scenarios.json").string()});
  c["measure"]["baseline"] = (cpu / "start.cpp").string();
  c["agent"]["command"] = json::array({"bash", (cpu / "scripted_agent.sh").string()});
  c["bank"] = (cpu / "../../../question_bank").string();
  const auto file = etest::write_file(dir / "campaign.json", c.dump(2));
  ProcessOptions o;
  o.timeout = std::chrono::minutes(5);
  const ProcessResult r = run_process({SOCRATIC_TOOL_PATH, "evolve", file.string(), "--state", (dir / "state").string()}, o);
  INFO(r.stdout_text << r.stderr_text);
  REQUIRE(r.exit_code == 0);
  const json credit = read_json_file(dir / "credit.json");
  CHECK(credit["campaigns"] == json::array({"softmax-cpu-evolution"}));
  int asked = 0;
  for (const auto& [id, q] : credit["questions"].items()) asked += q["asked"].get<int>();
  CHECK(asked == 2 * 2);  // one generation: 2 islands x 2 children, each asked one question
  // Asked again, the finished run adds nothing.
  REQUIRE(run_process({SOCRATIC_TOOL_PATH, "evolve", file.string(), "--state", (dir / "state").string()}, o).exit_code == 0);
  CHECK(read_json_file(dir / "credit.json") == credit);
}

TEST_CASE("a campaign file's mistakes name the file, the section and the field", "[evolve][tool]") {
  const auto dir = etest::temp_dir("tool-bad");
  json c = read_json_file(cpu_campaign_file);
  c["evolution"]["islnds"] = 3;
  const auto file = etest::write_file(dir / "campaign.json", c.dump(2));
  const ProcessResult r = run_process({SOCRATIC_TOOL_PATH, "evolve", file.string()});
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.stderr_text, E_CONTAINS("campaign.json") && E_CONTAINS("evolution") && E_CONTAINS("islnds"));
  c = read_json_file(cpu_campaign_file);
  c["evolution"]["operator"] = "faster";
  etest::write_file(file, c.dump(2));
  const ProcessResult r2 = run_process({SOCRATIC_TOOL_PATH, "evolve", file.string()});
  CHECK(r2.exit_code == 2);
  CHECK_THAT(r2.stderr_text, E_CONTAINS("\"operator\": \"faster\" is not question or plain"));
}
