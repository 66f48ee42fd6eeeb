// `socratic suite` with `"executor": {"kind": "slurm"}` on the single-node Slurm of
// tests/exec/slurm_cluster.sh (`suite_campaign_tests [slurm]`; skipped, exit 77, where it cannot
// start): the toy suite of suite_fixtures.hpp, six proposals over three problems. Every
// evaluation is a Slurm job; the stores and the ending are those of the local pool; a kill -9
// while a job runs, then a resume, counts nothing twice and leaves no job behind; a job cancelled
// outside the suite is said, with Slurm's reason, in its problem's trace, and the agent goes on.
#include "catch.hpp"

#include <sys/wait.h>

#include <map>
#include <set>
#include <sstream>
#include <thread>

#include "slurm_fixture.hpp"
#include "suite_fixtures.hpp"

using namespace socratic;
using namespace tool_fixtures;
using namespace suite_fixtures;

namespace {

const std::vector<std::string> slurm_suite_problems{"gain", "easy", "stuck"};

/// The toy suite in `dir` with six proposals and `executor` as its executor section.
fs::path executor_suite(const fs::path& dir, const json& executor) {
  const fs::path file = write_toy_suite(dir);
  json suite = json::parse(read_text(file));
  suite["executor"] = executor;
  suite["budget"] = {{"proposals", 6}};
  write_text(file, suite.dump(2));
  return file;
}

json slurm_section() {
  return {{"kind", "slurm"},
          {"shared_dir", "slurm-shared"},
          {"environment", {"SLURM_CONF=" + SlurmCluster::get().slurm_conf}},
          {"time_limit", "5"},
          {"poll_max_s", 1}};
}

/// `CMD` with the test cluster's SLURM_CONF, its standard output.
std::string slurm_cmd(const std::string& cmd) {
  const ProcessResult r = run_process({"bash", "-c", "SLURM_CONF=" + SlurmCluster::get().slurm_conf + " " + cmd});
  INFO(cmd << ": " << r.describe() << r.stderr_text);
  REQUIRE(r.exit_code == 0);
  return r.stdout_text;
}

/// The jobs of the cluster that are not finished (pending, running, completing).
std::string live_slurm_jobs() { return slurm_cmd("squeue -h -t pending,running,completing -o '%i %j %T'"); }

/// Every problem's store: its records' keys with their gate verdicts, in order.
std::map<std::string, std::vector<std::string>> stores_of(const fs::path& state) {
  std::map<std::string, std::vector<std::string>> out;
  for (const auto& p : slurm_suite_problems) {
    const fs::path dir = state / "problems" / p / "state" / "store";
    if (!fs::exists(dir / "store.jsonl")) continue;
    StoreOptions ro;
    ro.read_only = true;
    for (const auto& r : CandidateStore::open(dir, ro).summaries())
      out[p].push_back(r.key + " " + std::string(to_string(r.verdict)));
  }
  return out;
}

/// The executor's journal: every job submitted (id -> candidate hash), its Slurm id, its ending.
struct SlurmJournal {
  std::map<std::string, std::string> hash, slurm_id, finished;
  std::size_t submitted_events = 0, finished_events = 0;
};
SlurmJournal read_journal(const fs::path& file) {
  SlurmJournal j;
  std::istringstream lines(read_text(file));
  for (std::string line; std::getline(lines, line);) {
    if (line.empty()) continue;
    const json e = json::parse(line);
    const std::string event = e.value("event", "");
    if (event == "submitted") {
      ++j.submitted_events;
      j.hash[e["job"].value("id", "")] = e["job"]["candidate"].value("content_hash", "");
    } else if (event == "backend" && e.contains("slurm_id")) {
      j.slurm_id[e.value("id", "")] = e.value("slurm_id", "");
    } else if (event == "finished") {
      ++j.finished_events;
      j.finished[e.value("id", "")] = e.value("state", "");
    }
  }
  return j;
}

/// The reference: the same suite on the local pool (two fake GPUs), run once: its stores, its
/// ending (reason and detail) and its exit code.
struct LocalReference {
  std::map<std::string, std::vector<std::string>> stores;
  std::string reason, detail;
  int exit_code = -1;
};
const LocalReference& local_reference() {
  static const LocalReference ref = [] {
    LocalReference out;
    const fs::path local = fresh_dir("suite_slurm_local");
    const ProcessResult r =
        socratic_run({"suite", executor_suite(local, {{"kind", "local"}, {"gpus", "0,1"}, {"build_workers", 0}}).string()});
    out.exit_code = r.exit_code;
    out.stores = stores_of(local / "state");
    const auto ended = suite_events(local / "state", "suite_ended");
    if (ended.size() == 1) out.reason = ended[0].value("reason", ""), out.detail = ended[0].value("detail", "");
    return out;
  }();
  return ref;
}

/// Waits for `pid` at most `limit`; true when it exited.
bool wait_exit(pid_t pid, std::chrono::seconds limit, int& status) {
  const auto until = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < until) {
    if (::waitpid(pid, &status, WNOHANG) == pid) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return false;
}

}  // namespace

TEST_CASE("socratic suite under Slurm: every evaluation a job, the local pool's results, kill -9 and resume", "[slurm]") {
  const LocalReference& ref = local_reference();
  REQUIRE(ref.exit_code == 1);
  REQUIRE(ref.reason == "proposals_spent");

  // Under Slurm, killed with SIGKILL while a job of its is on the cluster, after some records.
  const fs::path dir = fresh_dir("suite_slurm");
  const fs::path file = executor_suite(dir, slurm_section());
  const fs::path journal = dir / "slurm-shared" / "journal.jsonl";
  const pid_t pid = start_suite(file, dir / "killed.log");
  bool killed = false;
  int status = 0;
  for (auto until = std::chrono::steady_clock::now() + std::chrono::seconds(60); std::chrono::steady_clock::now() < until;) {
    if (::waitpid(pid, &status, WNOHANG) == pid) break;
    if (fs::exists(journal) && read_journal(journal).submitted_events >= 4 && !live_slurm_jobs().empty()) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      killed = true;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  INFO(read_text(dir / "killed.log"));
  REQUIRE(killed);  // mid-round: a job was on the cluster when the suite died
  CHECK(suite_events(dir / "state", "suite_ended").empty());

  const ProcessResult r = socratic_run({"suite", file.string()});
  INFO(r.stdout_text << r.stderr_text);
  CHECK(r.exit_code == ref.exit_code);

  // The same records, verdicts and ending as the local pool; each key once.
  const auto stores = stores_of(dir / "state");
  CHECK(stores == ref.stores);
  std::size_t records = 0;
  for (const auto& [p, keys] : stores) {
    CHECK(std::set<std::string>(keys.begin(), keys.end()).size() == keys.size());
    records += keys.size();
  }
  CHECK(records == 6);
  const auto ended = suite_events(dir / "state", "suite_ended");
  REQUIRE(ended.size() == 1);
  CHECK(ended[0].value("reason", "") == ref.reason);
  CHECK(ended[0].value("detail", "") == ref.detail);

  // Every proposal judged by a Slurm job that completed; each job submitted once, finished once.
  const SlurmJournal j = read_journal(journal);
  CHECK(j.submitted_events == j.hash.size());
  CHECK(j.finished_events == j.hash.size());
  const std::string jobcomp = read_text(SlurmCluster::get().dir / "slurm" / "log" / "jobcomp.txt");
  std::set<std::string> judged;
  for (const auto& [id, hash] : j.hash) {
    INFO(id);
    REQUIRE(j.slurm_id.count(id));
    CHECK(j.finished.at(id) == "completed");
    CHECK(jobcomp.find("JobId=" + j.slurm_id.at(id) + " ") != std::string::npos);
    judged.insert(hash);
  }
  for (const auto& [p, keys] : stores)
    for (const auto& k : keys) {
      const std::string hash = k.substr(k.rfind('/') + 1, k.find(' ') - k.rfind('/') - 1);
      INFO(k);
      CHECK(judged.count(hash));
    }
  for (const auto& p : slurm_suite_problems) CHECK(!fs::exists(dir / "state" / "problems" / p / "state" / "executor"));
  // No job left on the cluster.
  CHECK(live_slurm_jobs().empty());
}

TEST_CASE("socratic suite under Slurm: a job cancelled outside the suite is said in its problem's trace", "[slurm]") {
  const fs::path dir = fresh_dir("suite_slurm_cancel");
  const fs::path file = executor_suite(dir, slurm_section());
  // The evaluator's first run anywhere writes its Slurm job id and waits to be cancelled. The
  // script in a folder of its own (the judge's files are its folder's: checked before each job),
  // its marks in another.
  const fs::path judge = dir / "judge", marks = dir / "marks";
  fs::create_directories(judge);
  fs::create_directories(marks);
  write_text(judge / "slow_eval.sh",
             "if mkdir '" + (marks / "once").string() + "' 2>/dev/null; then\n"
             "  echo \"${SLURM_JOB_ID:-unknown}\" > '" + (marks / "jobid.tmp").string() + "'\n"
             "  mv '" + (marks / "jobid.tmp").string() + "' '" + (marks / "jobid").string() + "'\n"
             "  sleep 60\n"
             "fi\n"
             "exec bash '" + (toy() / "evaluate.sh").string() + "' \"$@\"\n");
  json suite = json::parse(read_text(file));
  for (auto& p : suite["problems"]) p["evaluator"]["command"][1] = (judge / "slow_eval.sh").string();
  write_text(file, suite.dump(2));

  const pid_t pid = start_suite(file, dir / "run.log");
  std::string job;
  for (auto until = std::chrono::steady_clock::now() + std::chrono::seconds(60);
       job.empty() && std::chrono::steady_clock::now() < until;) {
    if (fs::exists(marks / "jobid")) job = read_text(marks / "jobid");
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  while (!job.empty() && (job.back() == '\n' || job.back() == ' ')) job.pop_back();
  INFO("job " << job);
  REQUIRE(!job.empty());
  REQUIRE(job != "unknown");
  slurm_cmd("scancel " + job);
  int status = 0;
  const bool exited = wait_exit(pid, std::chrono::seconds(90), status);
  if (!exited) {
    ::kill(pid, SIGKILL);
    ::waitpid(pid, &status, 0);
  }
  INFO(read_text(dir / "run.log"));
  REQUIRE(exited);
  CHECK(WEXITSTATUS(status) == 1);
  // The suite went on to its end, with no agent or evaluator error, and the same records as on
  // the local pool: the cancelled job judged nothing, so its proposal was made and judged again.
  const auto ended = suite_events(dir / "state", "suite_ended");
  REQUIRE(ended.size() == 1);
  CHECK(ended[0].value("reason", "") == local_reference().reason);
  for (const auto& e : suite_events(dir / "state", "round_ended")) CHECK(e.value("errors", "") == "");
  CHECK(stores_of(dir / "state") == local_reference().stores);
  // The cancellation is in its problem's trace with Slurm's word, as a judge fault (no verdict
  // on the candidate); no gate verdict names it.
  int said = 0;
  std::string reasons;
  for (const auto& p : slurm_suite_problems) {
    const fs::path trace = dir / "state" / "problems" / p / "state" / "trace.jsonl";
    for (const auto& e : events_of(trace, "evaluation")) {
      const json& report = e["record"]["report"];
      if (report.value("error", "").find("Slurm job " + job + " was cancelled") == std::string::npos) continue;
      ++said;
      CHECK(report.value("fault", "") == "harness");
    }
    for (const auto& e : events_of(trace, "gated")) reasons += p + ": " + e.value("reason", "") + "\n";
  }
  INFO(reasons);
  CHECK(said == 1);
  CHECK(reasons.find("cancel") == std::string::npos);
  CHECK(reasons.find("did not build") == std::string::npos);
  // The job ended cancelled in the executor's journal; every other job completed.
  const SlurmJournal j = read_journal(dir / "slurm-shared" / "journal.jsonl");
  int cancelled = 0;
  for (const auto& [id, state] : j.finished) {
    INFO(id << " " << state);
    if (j.slurm_id.count(id) && j.slurm_id.at(id) == job) {
      ++cancelled;
      CHECK(state == "cancelled");
    } else {
      CHECK(state == "completed");
    }
  }
  CHECK(cancelled == 1);
  CHECK(live_slurm_jobs().empty());
}
