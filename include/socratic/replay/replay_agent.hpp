#pragma once
/// @file
/// @brief ReplayAgent: an Agent that replays a recorded campaign's actions. Each turn it writes
/// the candidate versions the recorded agent evaluated (calling the real `evaluate` tool), leaves
/// the version the recorded turn ended with, and ends with the recorded final message. It does
/// not read the messages it is sent: questions are asked live, the answers are the recording's.

#include <filesystem>
#include <fstream>
#include <string>

#include "socratic/concepts.hpp"
#include "socratic/replay/recorded_campaign.hpp"

namespace socratic {

class ReplayAgent {
 public:
  explicit ReplayAgent(const RecordedCampaign& recording) : recording_(recording) {}

  TurnResult turn(const Message&, Tools& tools) {
    TurnResult out;
    if (next_ >= recording_.turns.size()) {
      out.error = "replay: the recording has no turn " + std::to_string(next_) +
                  " (the live goal check disagreed with the recorded one, or the recording ended)";
      return out;
    }
    const RecordedTurn& rt = recording_.turns[next_++];
    for (const auto& hash : rt.evaluated_hashes) {
      if (!write(tools, hash)) return ended(out, rt);
      ++out.tool_calls;
      const EvaluateResult r = tools.evaluate();
      if (r.refused) return ended(out, rt);
      ++out.tool_calls;
    }
    if (!rt.final_hash.empty() && write(tools, rt.final_hash)) ++out.tool_calls;
    return ended(out, rt);
  }

  std::size_t turns_played() const noexcept { return next_; }

  /// @brief In a campaign of several agents each turn ends in one proposal: told that its next is
  /// proposal `n` (a resumed campaign, a suite's later round), the replay goes on at turn `n`.
  void on_proposal(int n) { next_ = n < 0 ? 0 : static_cast<std::size_t>(n); }

 private:
  bool write(Tools& tools, const std::string& hash) {
    if (!tools.charge("write_file")) return false;
    const std::string bytes = recording_.candidate_bytes(hash);
    std::ofstream f(tools.candidate().source, std::ios::binary | std::ios::trunc);
    f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    return static_cast<bool>(f);
  }
  static TurnResult& ended(TurnResult& out, const RecordedTurn& rt) {
    out.final_message = rt.final_message;
    return out;
  }

  const RecordedCampaign& recording_;
  std::size_t next_ = 0;
};
static_assert(Agent<ReplayAgent>);

}  // namespace socratic
