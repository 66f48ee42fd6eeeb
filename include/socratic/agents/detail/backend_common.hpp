#pragma once
/// @file
/// @brief What the HTTP backends share: options, one failed attempt, the retry loop with usage
/// accounting, and the classification of error bodies. Internal.

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "socratic/agents/api_key.hpp"
#include "socratic/agents/llm_types.hpp"
#include "socratic/agents/pricing.hpp"
#include "socratic/http/client.hpp"
#include "socratic/http/retry.hpp"
#include "socratic/http/sse.hpp"

namespace socratic {

/// @brief Settings every HTTP backend has.
struct BackendOptions {
  std::string base_url;   ///< the API's root, e.g. `https://api.openai.com/v1`
  ApiKey api_key;         ///< may be empty for local servers
  bool stream = false;    ///< use server-sent events
  http::HttpOptions http; ///< timeouts, size cap, proxies (from the environment), extra CA file
  http::RetryPolicy retry;
  PriceTable prices = PriceTable::from_environment();  ///< `$SOCRATIC_PRICES`, else none
  std::vector<http::Header> extra_headers;  ///< e.g. OpenRouter's `HTTP-Referer`
  /// Receives one line per retry and warning, secrets already removed. Default: none.
  std::function<void(std::string_view)> log;
  /// Waits between retries. Default: std::this_thread::sleep_for (tests substitute their own).
  std::function<void(std::chrono::milliseconds)> sleep;
  /// A server on another machine that needs no key: without this, a backend whose `api_key` is
  /// empty refuses to be made for any host but this machine's (the campaign would otherwise
  /// spend its retry budget on calls that cannot succeed before it said why).
  bool remote_without_key = false;
  /// The most bytes of one model answer held in memory: a plain response's body, or, streamed, the
  /// text and tool arguments assembled so far (and any one event). A longer answer is refused as it
  /// arrives: nothing more is read, the connection is closed, and it is not retried, so a server
  /// that runs away fails within the limit's bytes, never holding the whole answer. 8 MiB is about
  /// two million tokens of text. In a campaign file: `agent.http.max_response_bytes`. (A stream's
  /// wire bytes are not held; `http.max_response_bytes` bounds how many are read.)
  std::size_t max_response_bytes = std::size_t(8) << 20;
};

/// @brief A `BackendOptions::log` that prints each line on standard error as it happens
/// (`socratic: model server: ...`), what `socratic run` and run_llm_campaign use by default.
inline void log_to_stderr(std::string_view line) {
  std::fprintf(stderr, "socratic: model server: %.*s\n", static_cast<int>(line.size()), line.data());
  std::fflush(stderr);
}

namespace detail {

/// True for this machine's names and addresses: `localhost` (and `*.localhost`), 127.0.0.0/8,
/// ::1. A model server there (vLLM, llama.cpp) usually needs no key.
inline bool is_loopback_host(std::string_view host) {
  if (host == "localhost" || host == "::1" || host == "0:0:0:0:0:0:0:1") return true;
  if (host.size() > 10 && host.substr(host.size() - 10) == ".localhost") return true;
  return host.rfind("127.", 0) == 0 && host.find_first_not_of("0123456789.") == std::string_view::npos;
}

/// Refuses a backend with no key for a server elsewhere, naming where the key was looked for:
/// said when the backend is made, before any call, not after the retry budget is spent.
/// @throws error
inline void require_key_for_remote(const BackendOptions& o, const std::string& endpoint, std::string_view what) {
  if (!o.api_key.empty() || o.remote_without_key) return;
  const http::Url url = http::parse_url(endpoint, std::string(what) + "::base_url");
  if (is_loopback_host(url.host)) return;
  const std::string where = o.api_key.source() == "no key given" ? "none was given"
                                                                  : "looked for it in " + o.api_key.source();
  throw error(std::string(what) + ": no API key for " + url.scheme + "://" + url.host_header() + " (" +
              where + "). Set it; a server on this machine needs none; for a server elsewhere that needs "
              "none, set remote_without_key (or give the variable any value)");
}

/// One attempt's failure, before the retry loop decides what to do with it.
struct attempt_error {
  LlmErrorKind kind = LlmErrorKind::http;
  int status = 0;
  std::string message;
  bool retryable = false;
  std::optional<std::chrono::milliseconds> retry_after;  ///< what the server asked for
  Usage billed;  ///< tokens the failed attempt still cost (e.g. a stream that broke mid-way)
};

inline std::string clip(std::string_view text, std::size_t max = 600) {
  if (text.size() <= max) return std::string(text);
  return std::string(text.substr(0, max)) + "... (" + std::to_string(text.size()) + " bytes)";
}

inline bool contains_any(std::string_view haystack, std::initializer_list<std::string_view> needles) {
  const std::string lower = http::detail::lower(haystack);
  for (auto n : needles)
    if (lower.find(n) != std::string::npos) return true;
  return false;
}

/// The error fields of a body in any of the common shapes: OpenAI `{"error":{...}}`, vLLM's flat
/// `{"object":"error","message":...}`, Anthropic `{"type":"error","error":{...}}`, llama.cpp
/// `{"error":{"type":"exceed_context_size_error",...}}`, or `{"error":"text"}`.
struct error_fields {
  std::string message, type, code;
};

inline error_fields read_error_body(std::string_view body) {
  error_fields f;
  json j = json::parse(body, nullptr, false);
  if (j.is_discarded() || !j.is_object()) {
    f.message = clip(body, 300);
    return f;
  }
  const json* e = &j;
  if (j.contains("error")) {
    if (j["error"].is_string()) {
      f.message = j["error"].get<std::string>();
      return f;
    }
    if (j["error"].is_object()) e = &j["error"];
  }
  auto text = [](const json& o, const char* k) -> std::string {
    if (!o.contains(k)) return {};
    const json& v = o[k];
    return v.is_string() ? v.get<std::string>() : v.is_null() ? std::string() : v.dump();
  };
  f.message = text(*e, "message");
  if (f.message.empty()) f.message = text(j, "detail");
  f.type = text(*e, "type");
  f.code = text(*e, "code");
  // llama.cpp states the window in fields of its own, not in the message.
  if (e->contains("n_ctx") && (*e)["n_ctx"].is_number_integer())
    f.message += " [n_ctx " + std::to_string((*e)["n_ctx"].get<long long>()) +
                 (e->contains("n_prompt_tokens") && (*e)["n_prompt_tokens"].is_number_integer()
                      ? ", n_prompt_tokens " + std::to_string((*e)["n_prompt_tokens"].get<long long>())
                      : std::string()) +
                 "]";
  return f;
}

/// Maps an HTTP error (or an error event inside a stream, with status 0) to a kind and to
/// whether to retry. Context overflow is recognised by type and wording, never by status
/// alone: llama.cpp says `exceed_context_size_error`, OpenAI `context_length_exceeded`,
/// Anthropic "prompt is too long".
inline attempt_error classify_error(int status, const error_fields& f) {
  attempt_error a;
  a.status = status;
  const std::string words = f.type + " " + f.code + " " + f.message;
  if (contains_any(words, {"context_length_exceeded", "exceed_context_size", "context length",
                           "context window", "maximum context", "prompt is too long",
                           "too many tokens", "input is too long", "reduce the length"})) {
    a.kind = LlmErrorKind::context_overflow;
  } else if (status == 401 || status == 403 ||
             contains_any(f.type, {"authentication_error", "permission_error", "invalid_api_key"}) ||
             contains_any(f.code, {"invalid_api_key"})) {
    a.kind = LlmErrorKind::authentication;
  } else if (contains_any(words, {"insufficient_quota", "quota", "billing", "spend limit",
                                  "spending limit", "credit balance", "usage limit",
                                  "payment required"}) ||
             status == 402) {
    a.kind = LlmErrorKind::spend_limit;  // never retried: waiting will not add money
  } else if (status == 529 || contains_any(f.type, {"overloaded"})) {
    a.kind = LlmErrorKind::overloaded;
    a.retryable = true;
  } else if (status == 429 || contains_any(f.type, {"rate_limit"})) {
    a.kind = LlmErrorKind::rate_limited;
    a.retryable = true;
  } else if (status == 400 || status == 413 || status == 422) {
    a.kind = LlmErrorKind::bad_request;
  } else {
    a.kind = LlmErrorKind::http;
    a.retryable = status == 0 ? contains_any(f.type, {"server_error", "api_error", "timeout"})
                              : http::is_retryable_status(status);
  }
  return a;
}

/// The retry loop every backend runs around its single attempt.
class retrying_caller {
 public:
  /// @param observer receives each retry besides `options.log` (null: none).
  explicit retrying_caller(const BackendOptions& options, const retry_observer* observer = nullptr)
      : options_(options), observer_(observer), rng_(std::random_device{}()) {}

  /// Runs `attempt` (returns LlmResponse or throws attempt_error / transport_error) until it
  /// succeeds, fails for good, or the retries are spent. The response's usage counts every
  /// attempt, failed ones included; a final failure throws llm_error carrying that usage.
  template <class Attempt>
  LlmResponse run(std::string_view what, Attempt&& attempt) {
    using clock = std::chrono::steady_clock;
    Usage failed;
    // Time spent: the attempts' own time plus the waits asked for (the waits are counted as
    // asked, so a substituted sleep keeps the budget exact).
    std::chrono::milliseconds spent{0};
    int refused_in_a_row = 0;  // connections refused: nothing listens at the address
    for (int n = 0;; ++n) {
      attempt_error err;
      bool refused = false;
      const auto began = clock::now();
      try {
        LlmResponse r = attempt();
        r.usage.requests += 1;
        r.usage += failed;
        return r;
      } catch (const attempt_error& e) {
        err = e;
      } catch (const http::transport_error& e) {
        err.kind = LlmErrorKind::transport;
        err.message = e.what();
        err.retryable = e.retryable();
        refused = e.failure() == http::TransportFailure::refused;
      }
      refused_in_a_row = refused ? refused_in_a_row + 1 : 0;
      spent += std::chrono::duration_cast<std::chrono::milliseconds>(clock::now() - began);
      err.billed.requests += 1;
      err.billed.failed_requests += 1;
      failed += err.billed;
      const std::string message = Redactor().redact(err.message);
      const auto delay = http::retry_delay(options_.retry, n, err.retry_after,
                                           std::uniform_real_distribution<double>(0, 1)(rng_));
      const bool out_of_time = options_.retry.max_retry_time.count() > 0 &&
                               spent + delay > options_.retry.max_retry_time;
      const bool nothing_listens =
          options_.retry.max_refused_in_a_row > 0 && refused_in_a_row >= options_.retry.max_refused_in_a_row;
      if (!err.retryable || n >= options_.retry.max_retries || out_of_time || nothing_listens)
        throw llm_error(err.kind, final_message(message, err, n, spent, nothing_listens ? refused_in_a_row : 0),
                        err.status, failed);
      if (options_.log)
        options_.log(std::string(what) + ": " + std::string(to_string(err.kind)) + ", retry " +
                     std::to_string(n + 1) + " in " + std::to_string(delay.count()) + " ms (" +
                     std::to_string(spent.count() / 1000) + " s of " +
                     std::to_string(options_.retry.max_retry_time.count() / 1000) + " s spent retrying): " +
                     clip(message, 300));
      if (observer_ && *observer_)
        (*observer_)(RetryNotice{std::string(what), err.kind, err.status, n + 1, delay, spent,
                                 options_.retry.max_retry_time, clip(message, 300)});
      if (options_.sleep)
        options_.sleep(delay);
      else
        std::this_thread::sleep_for(delay);
      spent += delay;
    }
  }

 private:
  /// The whole reason, for the user: the server's words, how many attempts over how long and
  /// why no more, and where the key came from (never the key).
  /// `refused`: the connections refused in a row that ended the retries (0: something else did).
  std::string final_message(const std::string& message, const attempt_error& err, int n,
                            std::chrono::milliseconds spent, int refused) const {
    std::string out = message;
    if (n > 0) {
      char took[32];
      std::snprintf(took, sizeof took, "%.1f", static_cast<double>(spent.count()) / 1000.0);
      out += " (after " + std::to_string(n + 1) + " attempts over " + took + " s";
      if (refused > 0)
        out += "; refused " + std::to_string(refused) +
               " times in a row, so not retried for the rest of the retry time: is the model server running, "
               "and at this address?";
      else if (err.retryable)
        out += n >= options_.retry.max_retries
                   ? "; the retry limit of " + std::to_string(options_.retry.max_retries) + " was reached"
                   : "; the retry time of " + std::to_string(options_.retry.max_retry_time.count() / 1000) +
                         " s was spent";
      out += ")";
    } else if (!err.retryable) {
      out += " (not retried: " + std::string(not_retried_because(err.kind)) + ")";
    }
    if (out.find("the key came from") == std::string::npos && out.find("no API key was sent") == std::string::npos)
      out += options_.api_key.empty() ? "; no API key was sent (looked for it in " + options_.api_key.source() + ")"
                                      : "; the key came from " + options_.api_key.source();
    return out;
  }

  static std::string_view not_retried_because(LlmErrorKind k) {
    switch (k) {
      case LlmErrorKind::authentication: return "the key was refused; waiting will not change that";
      case LlmErrorKind::spend_limit: return "a quota or spend limit; waiting will not add money";
      case LlmErrorKind::context_overflow: return "the conversation is too long for the model";
      case LlmErrorKind::bad_request: return "the server refused the request itself";
      default: return "the failure is not transient";
    }
  }

  const BackendOptions& options_;
  const retry_observer* observer_;
  std::mt19937 rng_;
};

/// The client's settings for a backend's options: a plain body is the answer itself, so its cap
/// is `max_response_bytes` when that is the tighter.
inline http::HttpOptions client_options(const BackendOptions& o) {
  http::HttpOptions h = o.http;
  if (!o.stream) h.max_response_bytes = std::min(h.max_response_bytes, o.max_response_bytes);
  return h;
}

/// The refusal of an answer over `BackendOptions::max_response_bytes` (never retried: the server
/// would send it again). `so_far`: what had arrived when it was refused.
inline attempt_error answer_too_large(const std::string& what, std::size_t cap, const std::string& so_far) {
  char mib[32];
  std::snprintf(mib, sizeof mib, "%.1f MiB", static_cast<double>(cap) / (1024.0 * 1024.0));
  attempt_error a;
  a.kind = LlmErrorKind::transport;
  a.retryable = false;
  a.message = what + ": the model's answer exceeds the cap of " + std::to_string(cap) + " bytes (" + mib +
              ") held in memory (" + so_far +
              "); the rest was not read and the connection was closed. The limit is agent.http.max_response_bytes "
              "in the campaign file (BackendOptions::max_response_bytes in code)";
  return a;
}

/// Feeds a stream's bytes to its event parser, refusing an event or a line over the answer's cap
/// as it arrives (the parser would otherwise buffer it whole).
inline void feed_capped(http::SseParser& sse, std::string_view chunk, const std::string& what, std::size_t cap) {
  try {
    sse.feed(chunk);
  } catch (const http::sse_too_large&) {
    throw answer_too_large(what, cap, "one streamed event alone passed it");
  }
}

/// Sends a plain (not streamed) request whose body is the answer: a body over the answer's cap
/// (the client stopped reading it at the cap) is refused as answer_too_large.
inline http::HttpResponse send_capped(const http::HttpClient& client, const http::HttpRequest& req,
                                      const std::string& what, std::size_t cap) {
  try {
    return client.send(req);
  } catch (const http::transport_error& e) {
    if (e.failure() != http::TransportFailure::too_large || client.options().max_response_bytes != cap) throw;
    throw answer_too_large(what, cap, "a body longer than that was announced or arriving");
  }
}

/// An attempt_error for a non-2xx response, with the server's retry-after and a message that
/// names the endpoint, the status and the server's words.
inline attempt_error http_failure(const std::string& what, const http::HttpResponse& r,
                                  const ApiKey& key) {
  const error_fields f = read_error_body(r.body);
  attempt_error a = classify_error(r.status, f);
  a.retry_after = http::server_retry_delay(r.header("retry-after-ms"), r.header("retry-after"));
  std::string detail = f.message.empty() ? r.reason : f.message;
  if (!f.type.empty()) detail = f.type + ": " + detail;
  if (!f.code.empty() && f.code != f.type) detail += " [" + f.code + "]";
  a.message = what + " answered " + std::to_string(r.status) + ": " + clip(detail);
  if (a.kind == LlmErrorKind::authentication)
    a.message += key.empty() ? " (no API key was sent: looked for it in " + key.source() + ")"
                             : " (the key came from " + key.source() + ")";
  if (a.kind == LlmErrorKind::context_overflow)
    a.message += " (the conversation no longer fits the model's context window)";
  return a;
}

/// Parses arguments sent as a JSON string: malformed JSON is kept, with the reason, for the
/// agent to tell the model (nothing throws).
inline void parse_tool_arguments(ToolCall& call) {
  const std::string_view raw = http::detail::trim(call.raw_arguments);
  if (raw.empty()) {
    call.arguments = json::object();
    return;
  }
  try {
    call.arguments = json::parse(raw);
    if (!call.arguments.is_object()) {
      call.parse_error = "the arguments are JSON but not an object";
      call.arguments = nullptr;
    }
  } catch (const json::parse_error& e) {
    call.parse_error = std::string("the arguments are not valid JSON: ") + e.what();
    call.arguments = nullptr;
  }
}

/// Sets the cost of a usage from the price table (the response's model name first, then the
/// requested one).
inline void price(Usage& u, const PriceTable& prices, std::string_view response_model,
                  std::string_view requested_model) {
  if (auto c = prices.cost({response_model, requested_model}, u)) u.cost_usd = *c;
}

inline std::vector<http::Header> common_headers(const BackendOptions& o) {
  std::vector<http::Header> h{{"Content-Type", "application/json"}};
  h.insert(h.end(), o.extra_headers.begin(), o.extra_headers.end());
  return h;
}

/// A JSON body the server sent with a 2xx status.
inline json parse_success_body(const std::string& what, const std::string& body) {
  json j = json::parse(body, nullptr, false);
  if (j.is_discarded()) {
    attempt_error a;
    a.kind = LlmErrorKind::bad_response;
    a.message = what + " answered with a body that is not valid JSON: " + clip(body, 200);
    throw a;
  }
  return j;
}

}  // namespace detail
}  // namespace socratic
