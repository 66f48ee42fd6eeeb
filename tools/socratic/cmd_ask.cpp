// socratic ask --trigger NAME [--arch sm_90] [--state DIR]: the next question from the bank.
// This is how an external agent's hook, or a human, uses the bank without a campaign.
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "args.hpp"
#include "command.hpp"
#include "data_dir.hpp"
#include "socratic/core/files.hpp"
#include "socratic/questions/bank_question_source.hpp"

namespace {

using namespace socratic;
using namespace socratic::tool;

constexpr const char* ask_usage =
    "Usage: socratic ask --trigger NAME [--arch sm_90] [--reference] [--state DIR]\n"
    "                    [--bank DIR] [--seed N] [--evidence TEXT] [--credits FILE [--explore RATE]]\n"
    "                    [--json]\n\n"
    "Prints the next question for trigger NAME (start, plateau, claimed_limit, suspicious_gain,\n"
    "correctness_explained_away) on a GPU of architecture --arch, with --reference when another\n"
    "implementation exists to compare with. With --state DIR, what was asked is remembered in\n"
    "DIR/asked.json, so that no question repeats until its pool is exhausted. --credits turns on\n"
    "the adaptive mode (a table written by `socratic bank credit`). --json prints the question as\n"
    "JSON. Exit 0 with a question, 1 when no entry fits, 2 on an error.\n";

/// What the state folder remembers: the seed and the questions asked, in order.
struct AskState {
  std::uint64_t seed = 0;
  std::vector<AskedQuestion> asked;
};

std::filesystem::path state_file(const std::filesystem::path& dir) { return dir / "asked.json"; }

AskState load_state(const std::filesystem::path& dir) {
  AskState s;
  const auto path = state_file(dir);
  if (!std::filesystem::exists(path)) return s;
  const json j = read_json_file(path);
  try {
    check_schema_version(j, "ask state");
    s.seed = optional_field<std::uint64_t>(j, "seed", 0, "ask state");
    s.asked = optional_field<std::vector<AskedQuestion>>(j, "asked", {}, "ask state");
  } catch (const input_error& e) {
    throw input_error(path.string(), e.where(), e.message());
  }
  return s;
}

void save_state(const std::filesystem::path& dir, const AskState& s) {
  write_json_atomically(state_file(dir), json{{"schema_version", schema_version}, {"seed", s.seed}, {"asked", s.asked}});
}

int ask_command(const std::vector<std::string>& args) {
  parsed_args a(args, {"--reference", "--json", "--help"},
                {"--trigger", "--arch", "--state", "--bank", "--seed", "--evidence", "--credits", "--explore"});
  if (a.flag("--help")) {
    std::cout << ask_usage;
    return exit_ok;
  }
  if (!a.positionals().empty()) throw usage_error("unexpected argument \"" + a.positionals()[0] + "\"");
  const std::string trigger_name = a.required("--trigger");
  const auto trigger = parse_trigger(trigger_name);
  if (!trigger)
    throw usage_error("unknown trigger \"" + trigger_name +
                      "\" (start, plateau, claimed_limit, suspicious_gain, correctness_explained_away)");
  std::string arch;
  if (auto value = a.value("--arch")) {
    arch = normalize_arch(*value);
    if (arch.empty()) throw usage_error("--arch \"" + *value + "\" is not an architecture (sm_80, sm_90, sm_100, 9.0, ...)");
  }

  const auto state_dir = a.value("--state");
  AskState stored = state_dir ? load_state(*state_dir) : AskState{};
  if (auto seed = a.value("--seed")) {
    try {
      stored.seed = std::stoull(*seed);
    } catch (const std::exception&) {
      throw usage_error("--seed needs a non-negative integer, got \"" + *seed + "\"");
    }
  }

  BankSourceOptions options;
  options.seed = stored.seed;
  if (auto credits = a.value("--credits")) options.credits = CreditTable::load(*credits);
  if (auto explore = a.value("--explore")) {
    try {
      options.exploration_rate = std::stod(*explore);
    } catch (const std::exception&) {
      options.exploration_rate = -1;
    }
    if (!(options.exploration_rate >= 0 && options.exploration_rate <= 1))
      throw usage_error("--explore needs a rate between 0 and 1, got \"" + *explore + "\"");
  }
  const std::filesystem::path bank_dir = a.value("--bank") ? std::filesystem::path(*a.value("--bank"))
                                                           : data_dir() / "question_bank";
  BankQuestionSource source(load_bank(bank_dir), options);

  CampaignState state;
  state.campaign_id = "ask";
  state.arch = arch;
  state.has_reference = a.flag("--reference");
  state.asked = stored.asked;
  TriggerEvent event{*trigger, "ask", a.value_or("--evidence", "asked on the command line"), 0, json::object()};

  const auto question = source.ask(event, state);
  if (!question) {
    std::cerr << "socratic ask: no question in " << bank_dir.string() << " fits trigger " << trigger_name
              << (arch.empty() ? std::string(" (no --arch: architecture-specific entries are left out)")
                               : " on " + arch)
              << (state.has_reference ? "" : " without a reference") << "\n";
    return exit_findings;
  }
  if (state_dir) {
    stored.asked.push_back(AskedQuestion{*question, 0, -1, 0});
    save_state(*state_dir, stored);
  }
  if (a.flag("--json")) {
    const SelectionRecord& why = source.history().back();
    json j = *question;
    j["times_asked_before"] = why.times_asked_before;
    j["pool_size"] = why.pool_size;
    if (why.credit_estimate >= 0) {
      j["credit_estimate"] = why.credit_estimate;
      j["explored"] = why.explored;
    }
    std::cout << j.dump() << "\n";
  } else {
    std::cout << question->text << "\n";
  }
  return exit_ok;
}

const command_registration ask_registration{
    "ask", "print the next question from the bank for a trigger", ask_command};

}  // namespace
