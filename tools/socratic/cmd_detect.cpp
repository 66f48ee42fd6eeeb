// socratic detect TRACE.jsonl: replays a recorded campaign through the trigger detectors and
// prints every trigger that fires, as JSON lines.
#include <iostream>
#include <string>
#include <vector>

#include "command.hpp"
#include "socratic/record/trace.hpp"
#include "socratic/questions/detectors.hpp"
#include "socratic/questions/trace_replay.hpp"

namespace {

using namespace socratic;
using namespace socratic::tool;

struct DetectCommandOptions {
  std::string trace, anchors, anchor_id, plateau_evaluations, plateau_minutes, jump, roofline_fraction;
};

int detect_command(const DetectCommandOptions& o) {
  const std::string& path = o.trace;
  auto number_option = [](const std::string& name, const std::string& text, double fallback) {
    return text.empty() ? fallback : parse_number(name, text);
  };
  PlateauConfig plateau;
  if (!o.plateau_evaluations.empty())
    plateau.window_evaluations = static_cast<int>(parse_whole_number("--plateau-evaluations", o.plateau_evaluations, 1));
  plateau.window_minutes = number_option("--plateau-minutes", o.plateau_minutes, plateau.window_minutes);
  SuspiciousGainConfig gain;
  gain.jump_factor = number_option("--jump", o.jump, gain.jump_factor);
  gain.roofline_fraction = number_option("--roofline-fraction", o.roofline_fraction, gain.roofline_fraction);
  if (!o.anchors.empty()) gain.anchors = AnchorTable::load(o.anchors, o.anchor_id);
  else if (!o.anchor_id.empty()) throw usage_error("--anchor-id needs --anchors FILE");

  std::vector<std::shared_ptr<TriggerDetector>> detectors = {
      std::make_shared<ExplainedAwayDetector>(), std::make_shared<SuspiciousGainDetector>(gain),
      std::make_shared<ClaimedLimitDetector>(), std::make_shared<PlateauDetector>(plateau),
      std::make_shared<StartDetector>()};

  const TraceContents trace = read_trace(path);
  if (trace.truncated_tail) std::cerr << "warning: " << path << ": the last line was cut short and is skipped\n";
  for (const auto& fired : replay_trace(trace.events, path, detectors)) std::cout << json(fired).dump() << "\n";
  return exit_ok;
}

command_run detect_setup(CLI::App& app) {
  auto o = std::make_shared<DetectCommandOptions>();
  app.footer(
      "Replays a campaign trace event by event through the five reference detectors and prints one\n"
      "JSON line per trigger that fires: the seq and type of the event it fired at, the moment, the\n"
      "trigger, its priority, whether it is the one the campaign would ask about (chosen), and its\n"
      "evidence. Exit: 0 after a replay, 2 on an error.\n");
  app.add_option("TRACE", o->trace, "the campaign trace (trace.jsonl)")->type_name("")->required();
  app.add_option("--anchors", o->anchors, "best known TFLOP/s per scenario: adds the anchor check")
      ->type_name("FILE");
  app.add_option("--anchor-id", o->anchor_id, "id template for rows without a \"scenario\" id, e.g. \"s{s}_d{d}\"")
      ->type_name("TEMPLATE");
  app.add_option("--plateau-evaluations", o->plateau_evaluations, "evaluations without a gain that make a plateau")
      ->type_name("K");
  app.add_option("--plateau-minutes", o->plateau_minutes, "minutes without a gain that make a plateau")
      ->type_name("T");
  app.add_option("--jump", o->jump, "a gain by this factor at once is suspicious")->type_name("FACTOR");
  app.add_option("--roofline-fraction", o->roofline_fraction, "a time this close to the roofline is suspicious")
      ->type_name("F");
  return [o] { return detect_command(*o); };
}

const command_registration detect_registration{
    "detect", "replay a campaign trace through the trigger detectors", "Questions", detect_setup};

}  // namespace
