#pragma once
/// @file
/// @brief *LlmBackend*: the concept of one model API, used by the reference LLM agent
/// (agents/llm_agent.hpp). It lives beside the agents, not with the campaign's four concepts:
/// a campaign never sees a backend, only the Agent that uses one.

#include <concepts>

#include "socratic/agents/llm_types.hpp"

namespace socratic {

/// @brief *LlmBackend*: one model API.
///
/// Requirements, for `b` an lvalue of B and `r` a `const LlmRequest&`:
/// - `b.complete(r)` returns `LlmResponse` (text and/or tool calls, usage), retrying what is
///   worth retrying, and throws `llm_error` with its kind when it cannot answer.
///
/// Optional: `b.set_retry_observer(retry_observer)`. A backend that has it reports each retry
/// (`RetryNotice`: cause, attempt, wait) as it happens, and LlmAgent records them in the trace.
template <class B>
concept LlmBackend = requires(B& b, const LlmRequest& r) {
  { b.complete(r) } -> std::same_as<LlmResponse>;
};

}  // namespace socratic
