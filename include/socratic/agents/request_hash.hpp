#pragma once
/// @file
/// @brief The hash that keys recorded model exchanges: SHA-256 of a canonical dump of the whole
/// LlmRequest (model, system prompt, every message, tools, output limit, temperature), since
/// each of these changes the model's answer. Light.

#include <string>

#include "socratic/agents/llm_types.hpp"
#include "socratic/core/detail/sha256.hpp"

namespace socratic {

/// @brief Version of the canonical form below; a change to it changes every hash.
inline constexpr int request_hash_version = 1;

/// @brief Hex SHA-256 of the request's canonical form: its JSON with keys sorted (nlohmann's
/// objects are ordered maps), compact, numbers as nlohmann writes them (round-trip exact).
inline std::string llm_request_hash(const LlmRequest& request) {
  const json canonical{{"socratic_llm_request", request_hash_version}, {"request", request}};
  return detail::sha256_hex(canonical.dump(-1, ' ', false, json::error_handler_t::replace));
}

}  // namespace socratic
