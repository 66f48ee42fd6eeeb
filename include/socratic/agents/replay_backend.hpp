#pragma once
/// @file
/// @brief ReplayBackend: answers model calls from a recorded campaign trace, keyed by the hash
/// of the request, and fails loudly when a request was never recorded. Reproduces a campaign
/// without cost or network, and serves as a test fixture. Satisfies `LlmBackend`. Light.
///
/// Recording: LlmAgent writes one `llm_exchange` agent event per model call,
/// `{"type":"llm_exchange","request_hash":H,"response":LlmResponse,"usage":Usage}`, or with
/// `"error":{"kind","status","message","billed"}` instead of a response when the call failed;
/// the campaign wraps it as `{"type":"agent_event","turn":N,"event":{...}}`.

#include <deque>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "socratic/agents/llm_types.hpp"
#include "socratic/agents/request_hash.hpp"
#include "socratic/core/trace_events.hpp"
#include "socratic/record/trace.hpp"
#include "socratic/agents/llm_backend.hpp"
#include "socratic/concepts.hpp"

namespace socratic {

/// @brief One recorded model call.
struct RecordedExchange {
  std::string request_hash;
  std::optional<LlmResponse> response;  ///< the answer, or nullopt when the call failed
  LlmErrorKind error_kind = LlmErrorKind::http;
  int error_status = 0;
  std::string error_message;
  Usage error_billed;
  int turn = -1;     ///< the campaign turn it belongs to (-1 when unknown)
  int position = 0;  ///< 0-based order among the recorded calls
};

/// @brief Reads an `llm_exchange` event. @throws input_error naming `where` and the field.
inline RecordedExchange exchange_from_event(const json& event, int turn, int position,
                                            const std::string& where) {
  RecordedExchange x;
  x.request_hash = required<std::string>(event, "request_hash", where);
  x.turn = turn;
  x.position = position;
  if (event.contains("response") && !event["response"].is_null()) {
    x.response = required<LlmResponse>(event, "response", where);
  } else if (event.contains("error") && event["error"].is_object()) {
    const json& e = event["error"];
    const std::string kind = optional_field<std::string>(e, "kind", "http");
    for (auto k : {LlmErrorKind::transport, LlmErrorKind::http, LlmErrorKind::authentication,
                   LlmErrorKind::rate_limited, LlmErrorKind::spend_limit, LlmErrorKind::overloaded,
                   LlmErrorKind::context_overflow, LlmErrorKind::bad_request,
                   LlmErrorKind::bad_response, LlmErrorKind::replay_miss})
      if (to_string(k) == kind) x.error_kind = k;
    x.error_status = optional_field<int>(e, "status", 0);
    x.error_message = optional_field<std::string>(e, "message", "");
    x.error_billed = optional_field<Usage>(e, "billed", {});
  } else {
    throw input_error({}, where, "an llm_exchange needs a \"response\" or an \"error\"");
  }
  return x;
}

/// @brief Answers from recordings.
///
/// @par Example
/// @code
/// auto replay = ReplayBackend::from_trace("runs/r1/state/trace.jsonl");
/// LlmAgent agent(std::move(replay), options);  // same options as the recorded run
/// @endcode
class ReplayBackend {
 public:
  explicit ReplayBackend(std::vector<RecordedExchange> exchanges, std::string source = "recording")
      : source_(std::move(source)) {
    for (auto& x : exchanges) order_.push_back(x);
    for (std::size_t i = 0; i < order_.size(); ++i) by_hash_[order_[i].request_hash].push_back(i);
    used_.assign(order_.size(), false);
  }

  /// @brief The exchanges recorded in a campaign trace (agent events) or in a file of bare
  /// `llm_exchange` lines. @throws input_error for an unreadable or malformed file.
  static ReplayBackend from_trace(const std::filesystem::path& path) {
    if (!std::filesystem::exists(path)) throw input_error(path.string(), "replay", "no such file");
    const TraceContents contents = read_trace(path);
    std::vector<RecordedExchange> xs;
    int line = 0;
    for (const auto& ev : contents.events) {
      ++line;
      const std::string where = "line " + std::to_string(line);
      const std::string type = optional_field<std::string>(ev, "type", "");
      try {
        if (type == to_string(TraceEventType::agent_event) && ev.contains("event") &&
            optional_field<std::string>(ev["event"], "type", "") == "llm_exchange")
          xs.push_back(exchange_from_event(ev["event"], optional_field<int>(ev, "turn", -1),
                                           static_cast<int>(xs.size()), where));
        else if (type == "llm_exchange")
          xs.push_back(exchange_from_event(ev, optional_field<int>(ev, "turn", -1),
                                           static_cast<int>(xs.size()), where));
      } catch (const input_error& e) {
        throw input_error(path.string(), e.where(), e.message());
      }
    }
    if (xs.empty())
      throw input_error(path.string(), "replay",
                        "holds no llm_exchange events (was it recorded by LlmAgent?)");
    return ReplayBackend(std::move(xs), path.string());
  }

  /// @brief The recorded answer to `request`, or the recorded failure rethrown.
  /// @throws llm_error(replay_miss) naming the hash and where the recording expected to be.
  LlmResponse complete(const LlmRequest& request) {
    const std::string hash = llm_request_hash(request);
    ++calls_;
    auto it = by_hash_.find(hash);
    if (it != by_hash_.end()) {
      for (std::size_t index : it->second) {
        if (used_[index]) continue;
        used_[index] = true;
        const RecordedExchange& x = order_[index];
        if (x.response) return *x.response;
        throw llm_error(x.error_kind, "(replayed) " + x.error_message, x.error_status, x.error_billed);
      }
    }
    std::string expected = "every recorded call has been answered";
    for (std::size_t i = 0; i < order_.size(); ++i) {
      if (used_[i]) continue;
      const auto& x = order_[i];
      expected = "the next unanswered recorded call is #" + std::to_string(x.position) +
                 (x.turn >= 0 ? " in turn " + std::to_string(x.turn) : std::string()) +
                 " with request " + x.request_hash;
      break;
    }
    throw llm_error(LlmErrorKind::replay_miss,
                    "no recorded answer for request " + hash + " (call #" +
                        std::to_string(calls_ - 1) + " of this replay, " +
                        std::to_string(request.messages.size()) + " messages) in " + source_ +
                        "; " + expected +
                        ". The run diverged from the recording: a tool result, the task, the "
                        "options or the model name differ.");
  }

  /// @brief Recorded calls not yet answered.
  std::size_t remaining() const {
    std::size_t n = 0;
    for (bool u : used_) n += u ? 0 : 1;
    return n;
  }
  std::size_t size() const noexcept { return order_.size(); }

 private:
  std::string source_;
  std::vector<RecordedExchange> order_;
  std::map<std::string, std::vector<std::size_t>> by_hash_;
  std::vector<bool> used_;
  std::size_t calls_ = 0;
};

static_assert(LlmBackend<ReplayBackend>, "ReplayBackend must satisfy LlmBackend");

}  // namespace socratic
