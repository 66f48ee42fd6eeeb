// What a new user meets first: the rough edges of the tool's commands, each a case that failed
// before its fix (a raw stream error, a doubled prefix, output out of order, a minute of building
// on a machine that cannot run the result).
#include "catch.hpp"

#include <chrono>

#include "tool_fixtures.hpp"

using namespace socratic;
using namespace tool_fixtures;

namespace {

std::size_t count_of(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto p = text.find(what); p != std::string::npos; p = text.find(what, p + what.size())) ++n;
  return n;
}

}  // namespace

TEST_CASE("report takes a campaign folder, and says plainly what is wrong with a path", "[tool][report][first-use]") {
  const fs::path dir = fresh_dir("report_paths");
  const fs::path ws = dir / "ws";
  REQUIRE(init_cpu_campaign(ws, "claude-code").ok());
  REQUIRE(socratic_run({"hook", "stop", "--campaign", (ws / "campaign.json").string()}, hook_input("done", false, ws))
              .exit_code == 0);
  // The workspace, and its state folder, name their trace.
  for (const fs::path& folder : {ws, ws / ".socratic"}) {
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
