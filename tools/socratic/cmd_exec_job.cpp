// socratic exec-job: the worker every executor runs for one phase of one evaluation job
// (socratic/exec/worker.hpp; docs/executor.md). Not meant to be typed by people.
#include <iostream>
#include <string>
#include <vector>

#include "command.hpp"
#include "socratic/exec/worker.hpp"

namespace {

constexpr const char* exec_job_usage =
    R"(Usage: socratic exec-job JOB.json --phase build|run --results DIR [--attempt N] [--build-out FILE]

Runs one phase of one evaluation job and publishes its result as DIR/ID.json (docs/executor.md).
Executors (the local GPU pool, Slurm job scripts) run this; people use `socratic eval`.
Exit code: 0 the outcome is written, 2 bad arguments or job, 3 the result could not be written.
)";

socratic::tool::command_run exec_job_setup(CLI::App& app) {
  // The worker parses its own arguments (socratic/exec/worker.hpp): everything after the command.
  app.prefix_command();
  app.set_help_flag();
  return [&app] {
    const std::vector<std::string> args = app.remaining();
    for (const auto& a : args)
      if (a == "--help" || a == "-h") {
        std::cout << exec_job_usage;
        return socratic::tool::exit_ok;
      }
    return socratic::exec::exec_worker_main(args);
  };
}

// Group "": an internal command, not listed in `socratic --help`.
const socratic::tool::command_registration exec_job_registration(
    "exec-job", "run one phase of one evaluation job (the executors' worker)", "", exec_job_setup);

}  // namespace
