#pragma once
/// @file
/// @brief The runner's events (docs/runner-protocol.md), parsed from its stdout lines. Pure:
/// nlohmann/json and the core types, no processes.

#include <cmath>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "socratic/core/json.hpp"
#include "socratic/core/report.hpp"

namespace socratic {

/// @brief The protocol version this host speaks (the `hello` event's `protocol`). Version 2:
/// the implementations run in worker processes, and every line carries the run's token.
inline constexpr int runner_protocol_version = 2;

/// @brief The runner's first line: what it runs on.
struct RunnerHello {
  int protocol = 0;
  std::string problem;
  std::string device;  ///< e.g. `NVIDIA H200`
  std::string arch;    ///< e.g. `sm_90`
  int sm_count = 0;
  long long l2_bytes = 0;
  double peak_tflops = std::numeric_limits<double>::quiet_NaN();
  double peak_gbps = std::numeric_limits<double>::quiet_NaN();
};

/// @brief One line of the runner's stdout, parsed.
struct RunnerEvent {
  enum class Kind {
    hello,
    scenario_begin,
    scenario_end,
    libraries,
    log,
    fatal,
    done,
    unknown,    ///< a well-formed event this host does not know (ignored: forward compatibility)
    malformed,  ///< not a protocol event at all; `message` says why
  };
  Kind kind = Kind::malformed;
  std::string name;        ///< the `event` member as sent
  RunnerHello hello;       ///< hello
  int index = -1;          ///< scenario_begin
  std::string id;          ///< scenario_begin
  ScenarioResult result;   ///< scenario_end
  double check_s = std::numeric_limits<double>::quiet_NaN();   ///< scenario_end, optional
  double timing_s = std::numeric_limits<double>::quiet_NaN();  ///< scenario_end, optional
  std::vector<std::string> mapped;  ///< libraries
  std::string message;     ///< log, fatal; for malformed: what was wrong
  int scenarios = 0;       ///< done
  std::string token;       ///< the run's token, as the line carries it (empty when absent)
};

namespace detail {
inline RunnerEvent malformed_event(std::string why) {
  RunnerEvent e;
  e.kind = RunnerEvent::Kind::malformed;
  e.message = std::move(why);
  return e;
}
}  // namespace detail

/// @brief Parses one stdout line. Never throws: anything that is not a protocol event comes back
/// as Kind::malformed with the reason (the caller decides what a bad line costs).
inline RunnerEvent parse_runner_event(std::string_view line) {
  json j;
  try {
    j = json::parse(line);
  } catch (const json::exception&) {
    return detail::malformed_event("not JSON");
  }
  if (!j.is_object()) return detail::malformed_event("not a JSON object");
  auto it = j.find("event");
  if (it == j.end() || !it->is_string())
    return detail::malformed_event("no string member \"event\"");
  RunnerEvent e;
  e.name = it->get<std::string>();
  if (auto t = j.find("token"); t != j.end() && t->is_string()) e.token = t->get<std::string>();
  const std::string where = "event \"" + e.name + "\"";
  try {
    if (e.name == "hello") {
      e.kind = RunnerEvent::Kind::hello;
      e.hello.protocol = required<int>(j, "protocol", where);
      e.hello.problem = optional_field<std::string>(j, "problem", "", where);
      e.hello.device = optional_field<std::string>(j, "device", "", where);
      e.hello.arch = optional_field<std::string>(j, "arch", "", where);
      e.hello.sm_count = optional_field<int>(j, "sm_count", 0, where);
      e.hello.l2_bytes = optional_field<long long>(j, "l2_bytes", 0, where);
      e.hello.peak_tflops = number_or_nan(j, "peak_tflops");
      e.hello.peak_gbps = number_or_nan(j, "peak_gbps");
    } else if (e.name == "scenario_begin") {
      e.kind = RunnerEvent::Kind::scenario_begin;
      e.index = required<int>(j, "index", where);
      e.id = required<std::string>(j, "id", where);
    } else if (e.name == "scenario_end") {
      e.kind = RunnerEvent::Kind::scenario_end;
      e.result = required<ScenarioResult>(j, "result", where);
      e.check_s = number_or_nan(j, "check_s");
      e.timing_s = number_or_nan(j, "timing_s");
    } else if (e.name == "libraries") {
      e.kind = RunnerEvent::Kind::libraries;
      e.mapped = required<std::vector<std::string>>(j, "mapped", where);
    } else if (e.name == "log" || e.name == "fatal") {
      e.kind = e.name == "log" ? RunnerEvent::Kind::log : RunnerEvent::Kind::fatal;
      e.message = optional_field<std::string>(j, "message", "", where);
    } else if (e.name == "done") {
      e.kind = RunnerEvent::Kind::done;
      e.scenarios = optional_field<int>(j, "scenarios", 0, where);
    } else {
      e.kind = RunnerEvent::Kind::unknown;
    }
  } catch (const input_error& err) {
    return detail::malformed_event(err.where().empty() ? where + ": " + err.message()
                                                       : err.where() + ": " + err.message());
  }
  return e;
}

}  // namespace socratic
