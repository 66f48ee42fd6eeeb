// main() of the judge's test program (eval, scanner, exec). Three uses:
// - `socratic_judge_tests [slurm]` (or `[bench-slurm]`, the benchmarks): starts the single-node
//   Slurm first; when it cannot run here, prints why and exits 77, which CTest reports as skipped
//   (never as passed);
// - `socratic_judge_tests --child MODE ARGS...`: a child mode (support/child_modes.hpp; the pool
//   driver of the kill -9 test);
// - otherwise Catch2's runner.
#include "catch.hpp"
#include "catch_runner.hpp"
#include "child_modes.hpp"

#include <cstdio>
#include <string>

#include "slurm_fixture.hpp"

int main(int argc, char* argv[]) {
  int status = 0;
  if (socratic::test::run_child_mode(argc, argv, status)) return status;
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
