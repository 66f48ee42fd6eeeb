#pragma once
/// @file
/// @brief Definitions for socratic/process/run_process.hpp: included there in header-only builds,
/// and by socratic/src.hpp (compiled once) with SOCRATIC_SEPARATE_COMPILATION.

#include "socratic/process/run_process.hpp"

namespace socratic {

SOCRATIC_DECL ProcessResult run_process(const std::vector<std::string>& argv,
                                        const ProcessOptions& options) {
  detail::child_spec spec;
  spec.argv = argv;
  spec.working_dir = options.working_dir;
  spec.environment = options.environment;
  spec.stdin_data = options.stdin_data;
  spec.timeout = options.timeout;
  spec.drain_grace = options.drain_grace;
  spec.keep_stdout_after_kill = true;
  detail::capped_text out_text(options.max_output_bytes), err_text(options.max_output_bytes);
  const detail::child_outcome o = detail::run_child(
      spec,
      [&](const char* data, std::size_t n) {
        out_text.append(data, n);
        return detail::sink_action::proceed;
      },
      [&](const char* data, std::size_t n) {
        err_text.append(data, n);
        return detail::sink_action::proceed;
      });
  ProcessResult result;
  result.started = o.started;
  result.error = o.error;
  result.exit_code = o.exit_code;
  result.signal = o.signal;
  result.timed_out = o.timed_out;
  result.seconds = o.seconds;
  result.stdout_text = out_text.str(result.stdout_truncated);
  result.stderr_text = err_text.str(result.stderr_truncated);
  return result;
}

}  // namespace socratic
