#pragma once
// What a campaign's report is told beyond its trace: the scenario set (its parameters), the
// anchors (best known TFLOP/s), the goal spec and the baseline's name. From the campaign file when
// there is one, else from the data folder by the scenario set's name the reports carry.

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "campaign_file.hpp"
#include "data_dir.hpp"
#include "problems.hpp"
#include "socratic/record/trace_state.hpp"
#include "socratic/report/html_report.hpp"

namespace socratic::tool {

/// @brief The name of the scenario set and the problem the trace's evaluations report.
inline std::pair<std::string, std::string> reported_set_and_problem(const std::vector<json>& events) {
  for (const auto& e : events)
    if (is_event(e, TraceEventType::evaluation) && e.contains("record") && e["record"].contains("report")) {
      const json& r = e["record"]["report"];
      return {r.value("scenario_set", std::string()), r.value("problem", std::string())};
    }
  return {};
}

/// @brief Fills `options` for the trace `events`; `campaign` when the campaign file is known.
/// What cannot be found is left out (the report then shows less), never guessed.
inline void complete_report_options(HtmlReportOptions& options, const std::vector<json>& events,
                                    const std::optional<CampaignFile>& campaign) {
  namespace fs = std::filesystem;
  const auto [set_name, problem] = reported_set_and_problem(events);
  const fs::path data = data_dir();
  if (!options.scenarios) {
    fs::path file;
    if (campaign) file = campaign->scenarios;
    else if (!set_name.empty() && fs::is_regular_file(data / "scenarios" / (set_name + ".json")))
      file = data / "scenarios" / (set_name + ".json");
    if (!file.empty()) {
      ScenarioSet set = load_scenario_set(file);
      if (set_name.empty() || set.name == set_name) options.scenarios = std::move(set);
    }
  }
  if (!options.anchors) {
    if (campaign && campaign->questions.anchors)
      options.anchors = AnchorTable::load(*campaign->questions.anchors, campaign->questions.anchor_id);
    else if (!set_name.empty() && fs::is_regular_file(data / "scenarios" / "anchors" / (set_name + ".json")))
      options.anchors = AnchorTable::load(data / "scenarios" / "anchors" / (set_name + ".json"));
  }
  if (options.goal.is_null() && campaign) options.goal = campaign->goal.spec();
  if (options.baseline.empty() || options.baseline == "the baseline") {
    if (campaign && campaign->evaluator.baseline) options.baseline = campaign->evaluator.baseline->filename().string();
    else if (const std::string name = campaign ? campaign->problem : problem; !name.empty()) {
      const ProblemRegistry registry = problem_registry();
      if (const ProblemSpec* spec = registry.find(name)) options.baseline = spec->baseline;
    }
  }
}

}  // namespace socratic::tool
