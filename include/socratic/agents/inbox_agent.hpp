#pragma once
/// @file
/// @brief InboxAgent: an Agent whose work is done elsewhere, asynchronously, through a folder (a
/// file mailbox). For an agent that cannot be called live (another engineer, an LLM session on
/// another machine): Socratic writes what the agent is sent for its turn N to
/// `MAILBOX/outbox/turn-N.json`; the outside agent answers in `MAILBOX/inbox/turn-N/` with the
/// candidate file (its workspace's name, e.g. `candidate.cu`), optionally `message.md` (its
/// final message, its claim) and, last, an empty `READY` file. Only a turn whose `READY` exists is
/// taken, so a half-written answer is never read.
///
/// Before each turn a parallel campaign asks `waiting_for(m)`: the agent writes the outbox file
/// (once per turn: a resumed run keeps the first, which holds the gate's verdict and question)
/// and says what it waits for when the inbox has no `READY` for that turn. The campaign then
/// pauses that agent without beginning a turn (nothing counted against any budget) and, once the
/// others are done, ends `waiting_for_agent`, left open: running it again resumes.
///
/// The turn number N is the agent's proposal number in the campaign's store (`on_proposal`), so a
/// resumed campaign or a suite's later round picks the right turn; without a parallel campaign it
/// counts the turns taken.
///
/// @par Example
/// @code
/// socratic::InboxAgent agent({"mailbox/mem-a", "mem-a", "softmax", ws, "candidate.cu"});
/// campaign.add_agent(spec, socratic::AnyAgent(agent));
/// @endcode

#include <filesystem>
#include <optional>
#include <string>

#include "socratic/concepts.hpp"
#include "socratic/core/files.hpp"
#include "socratic/core/json.hpp"

namespace socratic {

/// @brief Where an InboxAgent's mailbox is and what its outbox files name.
struct InboxOptions {
  std::filesystem::path folder;     ///< the mailbox: `outbox/` and `inbox/` under it
  std::string agent;                ///< the agent's id (said in the outbox and the waiting line)
  std::string problem;              ///< the problem's name (said in the outbox)
  std::filesystem::path workspace;  ///< the agent's workspace (said in the outbox)
  std::string candidate_name;       ///< the candidate file's name, looked for in `inbox/turn-N/`
};

class InboxAgent {
 public:
  explicit InboxAgent(InboxOptions options) : o_(std::move(options)) {}

  std::filesystem::path outbox_file(int n) const { return o_.folder / "outbox" / ("turn-" + std::to_string(n) + ".json"); }
  std::filesystem::path inbox_dir(int n) const { return o_.folder / "inbox" / ("turn-" + std::to_string(n)); }
  int next_turn() const noexcept { return next_; }

  /// @brief Told by a parallel campaign that its next proposal is number `n`: turn `n` is next.
  void on_proposal(int n) { next_ = n < 0 ? 0 : n; }

  /// @brief Writes the outbox file of the next turn (when not yet written) and returns what the
  /// agent waits for, or nothing when `inbox/turn-N/READY` exists.
  std::optional<std::string> waiting_for(const Message& m) {
    write_outbox(m);
    if (std::filesystem::exists(inbox_dir(next_) / "READY")) return std::nullopt;
    return "inbox/turn-" + std::to_string(next_) + "/READY in " + o_.folder.string() + " (written: outbox/turn-" +
           std::to_string(next_) + ".json)";
  }

  /// @brief Takes turn N from the inbox: the candidate copied into the workspace (one
  /// `write_file`), the message as the final message. Without `READY` (a campaign that does not
  /// ask waiting_for first), an error naming what it waits for.
  TurnResult turn(const Message& m, Tools& tools) {
    TurnResult out;
    if (auto w = waiting_for(m)) {
      out.error = "inbox: waits for " + *w;
      return out;
    }
    const std::filesystem::path dir = inbox_dir(next_);
    const std::string name = o_.candidate_name.empty() ? tools.candidate().source.filename().string() : o_.candidate_name;
    const std::filesystem::path file = dir / name;
    if (!std::filesystem::is_regular_file(file)) {
      out.error = "inbox: " + dir.string() + " is READY but holds no " + name;
      return out;
    }
    if (tools.charge("write_file")) {
      ++out.tool_calls;
      write_file_atomically(tools.candidate().source, read_file_bytes(file));
    }
    out.final_message = std::filesystem::exists(dir / "message.md")
                            ? read_file_bytes(dir / "message.md")
                            : "inbox turn " + std::to_string(next_) + ": " + name;
    ++next_;
    return out;
  }

 private:
  void write_outbox(const Message& m) const {
    const auto path = outbox_file(next_);
    if (std::filesystem::exists(path)) return;
    std::filesystem::create_directories(o_.folder / "outbox");
    std::filesystem::create_directories(o_.folder / "inbox");
    json j{{"schema_version", 1},
           {"agent", o_.agent},
           {"problem", o_.problem},
           {"turn", next_},
           {"workspace", o_.workspace.string()},
           {"candidate", o_.candidate_name},
           {"answer_in", "inbox/turn-" + std::to_string(next_) + "/"},
           {"message", m}};
    j["message"].erase("turn");  // the engine's count of turns, not yet given before the turn: N is the turn
    // The gate's verdict on the last proposal, as a parallel campaign's answer begins with it
    // ("Your proposal c3 was refused: ..."): structured for the outside agent.
    const std::string lead = "Your proposal ";
    if (m.text.rfind(lead, 0) == 0) {
      const std::string line = m.text.substr(0, m.text.find('\n'));
      const auto was = line.find(" was ", lead.size());
      const auto colon = was == std::string::npos ? std::string::npos : line.find(": ", was);
      if (colon != std::string::npos)
        j["gate"] = json{{"record", line.substr(lead.size(), was - lead.size())},
                         {"verdict", line.substr(was + 5, colon - was - 5)},
                         {"reason", line.substr(colon + 2)}};
    }
    write_json_atomically(path, j);
  }

  InboxOptions o_;
  int next_ = 0;
};
static_assert(Agent<InboxAgent>);

}  // namespace socratic
