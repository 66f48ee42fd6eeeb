// socratic ask --trigger NAME [--arch sm_90] [--state DIR]: the next question from the bank.
// This is how an external agent's hook, or a human, uses the bank without a campaign.
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "command.hpp"
#include "data_dir.hpp"
#include "problems.hpp"
#include "socratic/core/files.hpp"
#include "socratic/questions/bank_question_source.hpp"

namespace {

using namespace socratic;
using namespace socratic::tool;

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

/// What `socratic ask` is given.
struct AskCommandOptions {
  std::string trigger, arch, state, bank, seed, evidence = "asked on the command line", credits, explore, problem;
  std::vector<std::string> kinds;
  bool reference = false, json = false;
};

int ask_command(const AskCommandOptions& o) {
  const std::string& trigger_name = o.trigger;
  const auto trigger = parse_trigger(trigger_name);
  if (!trigger)
    throw usage_error("unknown trigger \"" + trigger_name +
                      "\" (start, plateau, claimed_limit, suspicious_gain, correctness_explained_away)");
  std::string arch;
  if (!o.arch.empty()) {
    arch = normalize_arch(o.arch);
    if (arch.empty()) throw usage_error("--arch \"" + o.arch + "\" is not an architecture (sm_80, sm_90, sm_100, 9.0, ...)");
  }

  const std::optional<std::filesystem::path> state_dir =
      o.state.empty() ? std::nullopt : std::optional<std::filesystem::path>(o.state);
  AskState stored = state_dir ? load_state(*state_dir) : AskState{};
  if (!o.seed.empty()) stored.seed = parse_seed("--seed", o.seed);

  BankSourceOptions options;
  options.seed = stored.seed;
  // The problem's kinds: --kind, else the registered problem's; neither: questions for any problem.
  options.problem_kinds = !o.kinds.empty() ? o.kinds : campaign_problem_kinds(std::nullopt, o.problem);
  if (!o.problem.empty() && o.kinds.empty() && !problem_registry().find(o.problem))
    throw usage_error("--problem \"" + o.problem + "\" is not registered (kernels/problems.json): name its kinds with --kind");
  if (!o.credits.empty()) options.credits = CreditTable::load(o.credits);  // before --explore: a missing file first
  if (!o.explore.empty()) {
    try {
      options.exploration_rate = std::stod(o.explore);
    } catch (const std::exception&) {
      options.exploration_rate = -1;
    }
    if (!(options.exploration_rate >= 0 && options.exploration_rate <= 1))
      throw usage_error("--explore needs a rate between 0 and 1, got \"" + o.explore + "\"");
  }
  const std::filesystem::path bank_dir = !o.bank.empty() ? std::filesystem::path(o.bank) : data_dir() / "question_bank";
  BankQuestionSource source(load_bank(bank_dir), options);

  CampaignState state;
  state.campaign_id = "ask";
  state.arch = arch;
  state.has_reference = o.reference;
  state.asked = stored.asked;
  TriggerEvent event{*trigger, "ask", o.evidence, 0, json::object()};

  const auto question = source.ask(event, state);
  if (!question) {
    std::cerr << "socratic ask: no question in " << bank_dir.string() << " fits trigger " << trigger_name
              << (arch.empty() ? std::string(" (no --arch: architecture-specific entries are left out)")
                               : " on " + arch)
              << (state.has_reference ? "" : " without a reference")
              << (options.problem_kinds->empty() ? " for any problem (no --problem or --kind)" : "") << "\n";
    return exit_findings;
  }
  if (state_dir) {
    stored.asked.push_back(AskedQuestion{*question, 0, -1, 0, {}});
    save_state(*state_dir, stored);
  }
  if (o.json) {
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

command_run ask_setup(CLI::App& app) {
  auto o = std::make_shared<AskCommandOptions>();
  app.footer(
      "Prints the next question for a trigger on a GPU of architecture --arch, for a problem of the\n"
      "kinds of --problem (or --kind), with --reference when another implementation exists to compare\n"
      "with; without --arch, architecture-specific questions are left out, without --problem or --kind,\n"
      "questions for a kind of problem. With --state DIR, what was asked is remembered\n"
      "in DIR/asked.json, so that no question repeats until its pool is exhausted. --credits turns on\n"
      "the adaptive mode (a table written by `socratic bank credit`).\n"
      "Exit: 0 with a question, 1 when no entry fits, 2 on an error.\n");
  app.add_option("-t,--trigger", o->trigger,
                 "start, plateau, claimed_limit, suspicious_gain or correctness_explained_away")
      ->type_name("NAME")
      ->required();
  app.add_option("--arch", o->arch, "the GPU's architecture (sm_90, 9.0, ...)")->type_name("ARCH");
  app.add_flag("--reference", o->reference, "another implementation exists to compare with");
  app.add_option("-p,--problem", o->problem, "the problem (its kinds choose the questions)")->type_name("NAME");
  add_repeatable(app, "--kind", o->kinds, "the problem's kind instead (gpu, matmul, attention, cpu; repeatable)")
      ->type_name("KIND");
  app.add_option("--state", o->state, "remember what was asked in DIR/asked.json")->type_name("DIR");
  app.add_option("--bank", o->bank, "the question bank (default: the installed question_bank/)")->type_name("DIR");
  app.add_option("--seed", o->seed, "selection seed (stored in the state folder)")->type_name("N");
  app.add_option("--evidence", o->evidence, "why the question is asked (shown with it)")->type_name("TEXT");
  app.add_option("--credits", o->credits, "adaptive mode: a credit table from `socratic bank credit`")
      ->type_name("FILE");
  app.add_option("--explore", o->explore, "adaptive mode: exploration rate between 0 and 1 (default 0.2)")
      ->type_name("RATE");
  add_json_flag(app, o->json, "print the question as JSON, with why it was chosen");
  return [o] { return ask_command(*o); };
}

const command_registration ask_registration{"ask", "print the next question from the bank for a trigger",
                                            "Questions", ask_setup};

}  // namespace
