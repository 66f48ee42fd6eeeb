// main() of suite_campaign_tests. `suite_campaign_tests [slurm]` starts the single-node Slurm
// of tests/exec/slurm_cluster.sh first and, when it cannot run here, prints why and exits 77,
// which CTest reports as skipped (never as passed); otherwise Catch2's runner.
#include "catch.hpp"
#include "catch_runner.hpp"

#include <cstdio>
#include <string>

#include "slurm_fixture.hpp"

int main(int argc, char* argv[]) {
  bool slurm = false;
  for (int i = 1; i < argc; ++i) slurm |= std::string(argv[i]) == "[slurm]";
  if (slurm && !SlurmCluster::get().up()) {
    std::printf("SKIPPED: the Slurm tests need a single-node Slurm, which cannot run here: %s\n",
                SlurmCluster::get().skip_reason.c_str());
    SlurmCluster::shutdown();
    return 77;
  }
  const int result = socratic::test::run_catch_session(argc, argv);
  SlurmCluster::shutdown();
  return result;
}
