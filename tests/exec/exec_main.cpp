// main() of exec_tests. Three uses:
// - `exec_tests [slurm]` (or `[bench-slurm]`, the benchmarks): starts the single-node Slurm
//   first; when it cannot run here, prints
//   why and exits 77, which CTest reports as skipped (never as passed);
// - `exec_tests --pool-driver RUN LOG CANDIDATE...`: a pool process for the kill -9 test (it runs
//   the candidates on fake GPUs 0 and 1 and waits; the test kills it);
// - otherwise Catch2's runner.
#include "catch.hpp"
#include "catch_runner.hpp"

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "exec_fixtures.hpp"
#include "slurm_fixture.hpp"
#include "socratic/exec/local_pool.hpp"

namespace {

int pool_driver(int argc, char* argv[]) {
  using namespace socratic::exec;
  if (argc < 5) {
    std::fprintf(stderr, "usage: exec_tests --pool-driver RUN LOG CANDIDATE...\n");
    return 2;
  }
  LocalPoolConfig c;
  c.run_dir = argv[2];
  c.gpus = {"0", "1"};
  c.worker = {exec_fixtures::socratic_exe().string(), "exec-job"};
  c.build_workers = 0;
  LocalGpuPool pool(c);
  std::vector<std::string> ids;
  for (int i = 4; i < argc; ++i) ids.push_back(pool.submit(exec_fixtures::cpu_job(argv[i], argv[3], false)));
  for (const auto& id : ids) pool.wait(id, std::chrono::hours(1));
  std::printf("DONE\n");
  return 0;
}

}  // namespace

int main(int argc, char* argv[]) {
  if (argc > 1 && std::strcmp(argv[1], "--pool-driver") == 0) return pool_driver(argc, argv);
  bool slurm_only = false, slurm_tests = false;  // `[slurm]` or `[bench-slurm]`
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    slurm_tests |= a == "[slurm]";
    slurm_only |= a == "[slurm]" || a == "[bench-slurm]";
  }
  if (slurm_only && !SlurmCluster::get().up()) {
    std::printf("SKIPPED: the Slurm tests need a single-node Slurm, which cannot run here: %s\n",
                SlurmCluster::get().skip_reason.c_str());
    SlurmCluster::shutdown();
    return 77;
  }
  if (slurm_tests) prestart_slurm_jobs();
  const int result = socratic::test::run_catch_session(argc, argv);
  SlurmCluster::shutdown();
  return result;
}
