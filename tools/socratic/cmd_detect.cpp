// socratic detect TRACE.jsonl: replays a recorded campaign through the trigger detectors and
// prints every trigger that fires, as JSON lines.
#include <iostream>
#include <string>
#include <vector>

#include "args.hpp"
#include "command.hpp"
#include "socratic/campaign/trace.hpp"
#include "socratic/questions/detectors.hpp"
#include "socratic/questions/trace_replay.hpp"

namespace {

using namespace socratic;
using namespace socratic::tool;

constexpr const char* detect_usage =
    "Usage: socratic detect TRACE.jsonl [--anchors FILE [--anchor-id TEMPLATE]]\n"
    "                       [--plateau-evaluations K] [--plateau-minutes T] [--jump FACTOR]\n"
    "                       [--roofline-fraction F]\n\n"
    "Replays a campaign trace event by event through the five reference detectors and prints\n"
    "one JSON line per trigger that fires: the seq and type of the event it fired at, the\n"
    "moment, the trigger, its priority, whether it is the one the campaign would ask about\n"
    "(chosen), and its evidence. --anchors adds the best-known-throughput check (TEMPLATE names\n"
    "rows without a \"scenario\" id, e.g. \"s{s}_d{d}\"). Exit 0 after a replay, 2 on an error.\n";

double number_option(const parsed_args& a, const std::string& name, double fallback) {
  auto v = a.value(name);
  if (!v) return fallback;
  try {
    return std::stod(*v);
  } catch (const std::exception&) {
    throw usage_error(name + " needs a number, got \"" + *v + "\"");
  }
}

int detect_command(const std::vector<std::string>& args) {
  parsed_args a(args, {"--help"},
                {"--anchors", "--anchor-id", "--plateau-evaluations", "--plateau-minutes", "--jump",
                 "--roofline-fraction"});
  if (a.flag("--help")) {
    std::cout << detect_usage;
    return exit_ok;
  }
  if (a.positionals().size() != 1) throw usage_error("detect needs exactly one trace file");
  const std::string path = a.positionals()[0];

  PlateauConfig plateau;
  plateau.window_evaluations = static_cast<int>(number_option(a, "--plateau-evaluations", plateau.window_evaluations));
  if (plateau.window_evaluations < 1) throw usage_error("--plateau-evaluations needs at least 1");
  plateau.window_minutes = number_option(a, "--plateau-minutes", plateau.window_minutes);
  SuspiciousGainConfig gain;
  gain.jump_factor = number_option(a, "--jump", gain.jump_factor);
  gain.roofline_fraction = number_option(a, "--roofline-fraction", gain.roofline_fraction);
  if (auto anchors = a.value("--anchors")) gain.anchors = AnchorTable::load(*anchors, a.value_or("--anchor-id", ""));

  std::vector<std::shared_ptr<TriggerDetector>> detectors = {
      std::make_shared<ExplainedAwayDetector>(), std::make_shared<SuspiciousGainDetector>(gain),
      std::make_shared<ClaimedLimitDetector>(), std::make_shared<PlateauDetector>(plateau),
      std::make_shared<StartDetector>()};

  const TraceContents trace = read_trace(path);
  if (trace.truncated_tail) std::cerr << "warning: " << path << ": the last line was cut short and is skipped\n";
  for (const auto& fired : replay_trace(trace.events, path, detectors)) std::cout << json(fired).dump() << "\n";
  return exit_ok;
}

const command_registration detect_registration{
    "detect", "replay a campaign trace through the trigger detectors", detect_command};

}  // namespace
