#pragma once
/// @file
/// @brief LlmAgent<Backend>: the reference Agent. A general coding agent with no script: the
/// model reads, writes and runs things in its workspace through six tools and asks the
/// campaign's evaluator for judgements, until it stops calling tools. Any LlmBackend drives it.
/// Heavy (the shell tool uses Boost.Process); the backends' transport is in their own headers.

#include <algorithm>
#include <chrono>
#include <optional>
#include <regex>
#include <string>
#include <utility>
#include <vector>

#include "socratic/agents/agent_tools.hpp"
#include "socratic/agents/detail/utf8.hpp"
#include "socratic/agents/judge_guard.hpp"
#include "socratic/agents/llm_types.hpp"
#include "socratic/agents/request_hash.hpp"
#include "socratic/agents/sandbox.hpp"
#include "socratic/core/tools.hpp"
#include "socratic/agents/llm_backend.hpp"
#include "socratic/concepts.hpp"

namespace socratic {

namespace detail {

/// The prompt's common part: how to work, and what ending a turn means.
inline std::string agent_prompt_method() {
  return "Work in measured steps: form a hypothesis, change the code, evaluate, read the numbers. "
         "When you stop calling tools your turn ends and the campaign evaluates the candidate "
         "itself against the goal; if the goal does not hold you will be sent back with the "
         "unmet conditions and a question. Questions are hints about where to look: answer them "
         "with measurements, not with opinions.";
}

}  // namespace detail

/// @brief The default system prompt: the role, the rules of the workspace, and what ending a
/// turn means.
inline std::string default_agent_system_prompt() {
  return "You are an expert GPU kernel engineer working alone in a workspace folder. Your task "
         "arrives as a message. Use the tools: read and edit files, run shell commands (compile, "
         "profile, test), and call `evaluate` to have the candidate built, checked for "
         "correctness on every scenario and timed against the baseline.\n"
         "Rules: stay inside the workspace (paths are relative to it); do not modify the judge "
         "(harness, scenarios, references); libraries such as CUTLASS, CuTe, cuBLAS and cuDNN "
         "are banned and detected in the built binary.\n" +
         detail::agent_prompt_method();
}

/// @brief The default system prompt for a problem of these kinds (problem.json's `kinds`, a
/// campaign's `questions.kinds`): the GPU kernel engineer's for a `gpu` problem or one whose
/// kinds are unknown (empty), else a performance engineer's that names no GPU tool or library.
inline std::string default_agent_system_prompt(const std::vector<std::string>& problem_kinds) {
  if (problem_kinds.empty() || std::find(problem_kinds.begin(), problem_kinds.end(), "gpu") != problem_kinds.end())
    return default_agent_system_prompt();
  return "You are an expert performance engineer working alone in a workspace folder. Your task "
         "arrives as a message. Use the tools: read and edit files, run shell commands (compile, "
         "profile, test), and call `evaluate` to have the candidate built, checked for "
         "correctness on every scenario and timed against the baseline.\n"
         "Rules: stay inside the workspace (paths are relative to it); do not modify the judge "
         "(harness, scenarios, references).\n" +
         detail::agent_prompt_method();
}

/// @brief Settings of the agent.
struct LlmAgentOptions {
  std::string model;  ///< the backend's model name
  std::string system_prompt = default_agent_system_prompt();
  int max_tokens = 8192;  ///< output limit per model call
  std::optional<double> temperature;
  int max_steps_per_turn = 150;  ///< model calls in one turn before it is ended
  /// The model's context window in tokens. Before a request would exceed `shorten_at` of it,
  /// old tool outputs are shortened (the trace keeps them whole). When a server says a request
  /// overflowed, the agent learns the real window (from the server's words, or below the failed
  /// request) and goes on within it; the right value here avoids the failed calls. The tool
  /// takes it from the campaign file or the price table (PriceTable's `context_window`).
  long long context_window = 128'000;
  double shorten_at = 0.8;
  std::size_t keep_recent_tool_outputs = 6;  ///< the newest tool outputs are kept whole while the window allows
  std::size_t shortened_keep_chars = 600;    ///< head plus tail kept of a shortened output
  /// The most bytes of a model's answer text kept (in the conversation and the trace): a runaway
  /// answer would otherwise fill the memory, every later request and one enormous trace line.
  /// Beyond it the head is kept with a note, and the `llm_exchange` event says how much was dropped.
  std::size_t max_answer_bytes = std::size_t(256) << 10;
  AgentToolOptions tools;
  /// The judge's files and folders (harness, scenarios, references, bank, goal). Each must lie
  /// outside the workspace or be read-only; their hashes are taken at the first turn and checked
  /// after every turn, and a change ends the turn with an error (a backstop behind the shell's
  /// OS sandbox, and the only check when the user turned the sandbox off).
  std::vector<std::filesystem::path> judge_paths;
  /// Tools offered to the model; default AgentToolbox::specs(tools).
  std::optional<std::vector<ToolSpec>> tool_specs;
};

/// @brief The reference Agent.
///
/// @tparam Backend an LlmBackend (OpenAiBackend, AnthropicBackend, ReplayBackend or your own).
///
/// Each call to turn() appends the campaign's message to the conversation and loops: ask the
/// model, run the tools it calls, give it the results, until it answers without tool calls (the
/// turn ends with that answer) or a budget refuses more work. Every model call is recorded in
/// the trace as an `llm_exchange` event (request hash, response, usage), which ReplayBackend
/// replays; every tool call as a `tool_result` event with its whole output.
///
/// @par Example
/// @code
/// LlmAgentOptions o;
/// o.model = "gpt-4.1";
/// LlmAgent agent(OpenAiBackend(OpenAiOptions::openai()), o);
/// Campaign campaign(agent, evaluator, questions, goal, config);
/// @endcode
template <LlmBackend Backend>
class LlmAgent {
 public:
  LlmAgent(Backend backend, LlmAgentOptions options)
      : backend_(std::move(backend)), options_(std::move(options)) {
    if (options_.model.empty()) throw error("LlmAgent: LlmAgentOptions::model is empty");
    if (options_.context_window < 1024)
      throw error("LlmAgent: LlmAgentOptions::context_window is " + std::to_string(options_.context_window) +
                  " tokens; a model's window is at least 1024");
    if (!options_.tool_specs) options_.tool_specs = AgentToolbox::specs(options_.tools);
    // The answer must fit beside the prompt: a small window takes a smaller output limit.
    if (max_tokens_ > window_ / 2) max_tokens_ = static_cast<int>(std::max<long long>(256, window_ / 4));
  }

  /// @brief One turn; see the class description. Errors end the turn in TurnResult::error.
  TurnResult turn(const Message& message, Tools& tools) {
    // A backend that retries (OpenAiBackend, AnthropicBackend) reports each retry as it
    // happens: recorded in the trace now, so a campaign stuck retrying says why while it waits.
    constexpr bool observable = requires(Backend& b) { b.set_retry_observer(retry_observer{}); };
    if constexpr (observable)
      backend_.set_retry_observer([&tools](const RetryNotice& n) { tools.record(json(n)); });
    struct forget_observer {  // the Tools live for this turn only
      Backend& backend;
      ~forget_observer() {
        if constexpr (observable) backend.set_retry_observer({});
      }
    } forget{backend_};
    TurnResult result = run_turn(message, tools);
    if (judge_) {
      const auto changes = judge_->changes();
      if (!changes.empty()) {
        tools.record({{"type", "judge_modified"}, {"changes", changes}});
        std::string list;
        for (const auto& c : changes) list += (list.empty() ? "" : "; ") + c;
        result.error = "the judge's files changed during the turn (" + list + ")";
      }
    }
    return result;
  }

  /// @brief The whole conversation, tool outputs unshortened.
  const std::vector<ChatMessage>& conversation() const noexcept { return conversation_; }
  Backend& backend() noexcept { return backend_; }
  const LlmAgentOptions& options() const noexcept { return options_; }

 private:
  TurnResult run_turn(const Message& message, Tools& tools) {
    TurnResult result;
    std::optional<AgentToolbox> toolbox;
    try {
      toolbox.emplace(tools.workspace(), options_.tools);
      if (!options_.judge_paths.empty()) {
        if (!judge_) judge_.emplace(options_.judge_paths);
        judge_->check_placement(toolbox->sandbox());
      }
    } catch (const std::exception& e) {
      result.error = std::string("LlmAgent: ") + e.what();
      return result;
    }
    if (!sandbox_checked_ && !check_sandbox(*toolbox, tools, result)) return result;
    push(ChatRole::user, detail::valid_utf8(message.text));
    int overflows_in_a_row = 0;

    for (int step = 0; step < options_.max_steps_per_turn; ++step) {
      const LlmRequest request = prepare_request(tools);
      const std::string hash = llm_request_hash(request);
      LlmResponse response;
      // Which call failed, for the user: the turn, the call, the model.
      auto which = [&] {
        // The campaign's turn number, as the progress lines and the trace count turns.
        return "model call " + std::to_string(step + 1) + " of turn " + std::to_string(message.turn) + " (model " +
               options_.model + ") failed: ";
      };
      try {
        response = backend_.complete(request);
      } catch (const llm_error& e) {
        result.usage += e.billed();
        tools.add_usage(e.billed());
        tools.record({{"type", "llm_exchange"}, {"request_hash", hash}, {"step", step},
                      {"error", {{"kind", std::string(to_string(e.kind()))}, {"status", e.status()},
                                 {"message", e.what()}, {"billed", e.billed()}}}});
        if (e.kind() == LlmErrorKind::context_overflow && overflows_in_a_row < 4 &&
            recover_from_overflow(request, e.what(), tools)) {
          ++overflows_in_a_row;
          continue;
        }
        result.error = which() + e.what();
        if (e.kind() == LlmErrorKind::context_overflow) result.error += "; " + why_it_cannot_fit(request);
        return result;
      } catch (const std::exception& e) {  // a configuration error (bad URL, proxy, CA file)
        result.error = which() + e.what();
        return result;
      }
      overflows_in_a_row = 0;
      calibrate(request, response.usage);
      result.usage += response.usage;
      const std::size_t dropped = cap_answer(response.text);
      json exchange = {{"type", "llm_exchange"}, {"request_hash", hash}, {"step", step},
                       {"messages", request.messages.size()}, {"response", response}, {"usage", response.usage}};
      if (dropped > 0) exchange["answer_dropped_bytes"] = dropped;
      tools.record(std::move(exchange));
      const bool budget_left = tools.add_usage(response.usage);

      ChatMessage reply;
      reply.role = ChatRole::assistant;
      reply.content = response.text;
      reply.tool_calls = response.tool_calls;
      push(std::move(reply));
      if (response.tool_calls.empty()) {
        result.final_message = response.text;
        return result;
      }
      for (const auto& call : response.tool_calls) run_tool(call, *toolbox, tools, result, budget_left);
      if (!budget_left || tools.exhausted()) {
        result.final_message = response.text;
        return result;
      }
    }
    result.final_message = "(turn ended by the agent: " + std::to_string(options_.max_steps_per_turn) +
                           " model calls without a final answer)";
    return result;
  }

  /// Once per agent: the shell's sandbox works here (or the user chose none), recorded in the
  /// trace. A sandbox that cannot be had ends the turn with the reason: never a silent downgrade.
  bool check_sandbox(const AgentToolbox& toolbox, Tools& tools, TurnResult& result) {
    const ShellSandboxOptions& box = options_.tools.sandbox;
    const SandboxPaths paths = toolbox.shell_paths();
    json event{{"type", "shell_sandbox"}, {"kind", to_string(box.kind)}, {"network", box.network},
               {"workspace", paths.workspace.string()}};
    event["hidden"] = json::array();
    for (const auto& p : paths.hidden) event["hidden"].push_back(p.string());
    event["read_only"] = json::array();
    for (const auto& p : paths.read_only) event["read_only"].push_back(p.string());
    const std::string problem = shell_sandbox_problem(box, paths);
    if (!problem.empty()) {
      event["problem"] = problem;
      tools.record(event);
      result.error = "the agent's shell cannot be sandboxed here: " + problem +
                     ". Fix that, or choose to run without an OS sandbox (ShellSandboxKind::none; in a "
                     "campaign file, agent.sandbox \"none\")";
      return false;
    }
    if (box.kind == ShellSandboxKind::none)
      event["warning"] = "the shell runs without an OS sandbox, by the user's choice: it can reach "
                         "whatever the user running Socratic can";
    tools.record(event);
    sandbox_checked_ = true;
    return true;
  }

  void push(ChatRole role, std::string content) {
    ChatMessage m;
    m.role = role;
    m.content = std::move(content);
    push(std::move(m));
  }
  void push(ChatMessage m) {
    conversation_.push_back(std::move(m));
    shortened_.push_back(false);
  }

  void run_tool(const ToolCall& call, AgentToolbox& toolbox, Tools& tools, TurnResult& result,
                bool budget_left) {
    ToolOutcome outcome;
    const auto began = std::chrono::steady_clock::now();
    bool ran = false;
    if (!budget_left || tools.exhausted()) {
      outcome.output = "not run: a budget is spent; end your turn";
      outcome.is_error = true;
    } else if (!call.parse_error.empty()) {
      outcome = toolbox.call(call, tools);  // explains the unreadable arguments; not charged
    } else if (call.name != "evaluate" && !tools.charge(call.name)) {
      outcome.output = "not run: the tool-call budget is spent; end your turn";
      outcome.is_error = true;
    } else {
      outcome = toolbox.call(call, tools);  // evaluate charges itself through Tools::evaluate
      ran = true;
    }
    if (ran) ++result.tool_calls;
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
    tools.record({{"type", "tool_result"}, {"call_id", call.id}, {"tool", call.name},
                  {"arguments", call.parse_error.empty() ? call.arguments : json(call.raw_arguments)},
                  {"output", outcome.output}, {"is_error", outcome.is_error}, {"ran", ran},
                  {"seconds", seconds}, {"details", outcome.details}});
    ChatMessage m;
    m.role = ChatRole::tool;
    m.tool_call_id = call.id;
    m.content = std::move(outcome.output);
    m.is_error = outcome.is_error;
    push(std::move(m));
  }

  // ---- context management -------------------------------------------------------------------

  LlmRequest request_from_view() const {
    LlmRequest r;
    r.model = options_.model;
    r.system = options_.system_prompt;
    r.tools = *options_.tool_specs;
    r.max_tokens = max_tokens_;
    r.temperature = options_.temperature;
    r.messages.reserve(conversation_.size());
    for (std::size_t i = 0; i < conversation_.size(); ++i) {
      r.messages.push_back(conversation_[i]);
      if (shortened_[i]) r.messages.back().content = shorten(conversation_[i].content);
    }
    return r;
  }

  static std::size_t request_chars(const LlmRequest& r) {
    std::size_t n = r.system.size();
    for (const auto& t : r.tools) n += t.description.size() + t.parameters.dump().size() + t.name.size();
    for (const auto& m : r.messages) {
      n += m.content.size() + 16;
      for (const auto& c : m.tool_calls) n += c.raw_arguments.size() + c.name.size() + 32;
    }
    return n;
  }

  long long estimate_tokens(const LlmRequest& r) const {
    return static_cast<long long>(static_cast<double>(request_chars(r)) / chars_per_token_);
  }

  /// Learns the tokenizer's density from a call's usage (calls without retries only).
  void calibrate(const LlmRequest& r, const Usage& u) {
    const long long prompt = u.input_tokens + u.cache_read_tokens + u.cache_write_tokens;
    if (u.requests != 1 || prompt < 200) return;
    chars_per_token_ = std::clamp(static_cast<double>(request_chars(r)) / static_cast<double>(prompt), 1.0, 8.0);
  }

  std::string shorten(const std::string& text) const {
    const std::size_t keep = options_.shortened_keep_chars;
    if (text.size() <= keep + 200) return text;
    const std::size_t head = keep / 2, tail = keep - head;
    return detail::valid_utf8(text.substr(0, head)) + "\n[... " +
           std::to_string(text.size() - keep) +
           " characters of this old tool output omitted to save context; the campaign trace "
           "keeps it whole ...]\n" +
           detail::valid_utf8(text.substr(text.size() - tail));
  }

  /// Shortens old tool outputs, oldest first, while the estimate is over `limit` tokens.
  /// Returns how many were shortened.
  std::size_t shorten_until(long long limit, std::size_t keep_recent, LlmRequest& request) {
    std::vector<std::size_t> tool_messages;
    for (std::size_t i = 0; i < conversation_.size(); ++i)
      if (conversation_[i].role == ChatRole::tool) tool_messages.push_back(i);
    const std::size_t candidates = tool_messages.size() > keep_recent ? tool_messages.size() - keep_recent : 0;
    std::size_t count = 0;
    long long estimate = estimate_tokens(request);
    for (std::size_t k = 0; k < candidates && estimate > limit; ++k) {
      const std::size_t i = tool_messages[k];
      if (shortened_[i] || shorten(conversation_[i].content).size() >= conversation_[i].content.size())
        continue;
      shortened_[i] = true;
      request.messages[i].content = shorten(conversation_[i].content);
      estimate = estimate_tokens(request);
      ++count;
    }
    return count;
  }

  LlmRequest prepare_request(Tools& tools) {
    LlmRequest request = request_from_view();
    const long long limit = static_cast<long long>(options_.shorten_at * static_cast<double>(window_ - max_tokens_));
    const long long before = estimate_tokens(request);
    if (before <= limit) return request;
    std::size_t n = shorten_until(limit, options_.keep_recent_tool_outputs, request);
    // A small window may not hold even the newest outputs whole: then only the last one stays.
    if (estimate_tokens(request) > limit) n += shorten_until(limit, 1, request);
    if (n > 0)
      tools.record({{"type", "context_shortened"}, {"tool_outputs", n},
                    {"estimated_tokens_before", before}, {"estimated_tokens_after", estimate_tokens(request)},
                    {"limit", limit}});
    return request;
  }

  /// The window a server's overflow message states, if it states one: OpenAI and vLLM
  /// ("maximum context length is N tokens"), Anthropic ("... tokens > N maximum"), llama.cpp
  /// ("[n_ctx N") and wordings with "context size/window/length ... N".
  static std::optional<long long> stated_window(const std::string& text) {
    static const std::regex patterns[] = {
        std::regex(R"(maximum context length is (\d{3,}))"), std::regex(R"(> ?(\d{3,}) maximum)"),
        std::regex(R"(n_ctx[" :=]+(\d{3,}))"), std::regex(R"(context (?:size|window|length)\D{0,24}(\d{3,}))")};
    for (const auto& re : patterns) {
      std::smatch m;
      if (std::regex_search(text, m, re)) return std::stoll(m[1].str());
    }
    return std::nullopt;
  }

  /// Keeps the head of an answer longer than `max_answer_bytes`, with a note; the bytes dropped.
  std::size_t cap_answer(std::string& text) const {
    const std::size_t cap = options_.max_answer_bytes;
    if (text.size() <= cap) return 0;
    const std::size_t dropped = text.size() - cap;
    text.resize(cap);
    text = detail::valid_utf8(text);  // a cut may split a character
    text += "\n[... " + std::to_string(dropped) + " more bytes of this answer were dropped: answers are kept up to " +
            std::to_string(cap) + " bytes (LlmAgentOptions::max_answer_bytes) ...]";
    return dropped;
  }

  /// Why a request that overflowed could not be made to fit: its largest message (shortening
  /// reaches only old tool outputs) against the window the server stated or the one learned.
  std::string why_it_cannot_fit(const LlmRequest& request) const {
    std::size_t largest = 0, largest_chars = 0;
    for (std::size_t i = 0; i < request.messages.size(); ++i) {
      const ChatMessage& m = request.messages[i];
      std::size_t chars = m.content.size();
      for (const auto& c : m.tool_calls) chars += c.raw_arguments.size();
      if (chars > largest_chars) largest = i, largest_chars = chars;
    }
    auto tokens = [&](std::size_t chars) { return std::to_string(static_cast<long long>(static_cast<double>(chars) / chars_per_token_)); };
    std::string out = "shortening old tool outputs could not make the request (about " + tokens(request_chars(request)) +
                      " tokens) fit";
    if (!request.messages.empty()) {
      const ChatRole role = request.messages[largest].role;
      const std::string what = role == ChatRole::assistant ? "the model's own answer"
                               : role == ChatRole::tool    ? "a tool output"
                                                           : "a " + std::string(to_string(role)) + " message";
      out += ": its largest message, " + what + " (message " + std::to_string(largest + 1) + " of " +
             std::to_string(request.messages.size()) + "), is about " + tokens(largest_chars) + " tokens";
    }
    if (server_window_)
      out += ", and the server states a window of " + std::to_string(*server_window_) + " tokens";
    else
      out += ", and the server did not state its window (tried down to " + std::to_string(window_) + " tokens)";
    return out;
  }

  /// After the server said the context overflowed: the window is smaller than assumed. Learn
  /// it (from the server's words when it states it, else below the failed request's size), keep
  /// the output limit within it, and shorten every old output but the newest to fit. False
  /// when nothing more can be shortened.
  bool recover_from_overflow(const LlmRequest& failed, const std::string& message, Tools& tools) {
    const long long failed_estimate = estimate_tokens(failed);
    const long long before_window = window_;
    if (const auto stated = stated_window(message)) server_window_ = *stated;
    if (const auto stated = stated_window(message); stated && *stated < window_) {
      window_ = *stated;
    } else {
      // Unknown limit: the request did not fit, so the window is below it; at least a quarter
      // less each time, so that repeated overflows converge.
      window_ = std::max<long long>(1024, std::min(window_, failed_estimate) * 3 / 4);
    }
    const int before_max_tokens = max_tokens_;
    max_tokens_ = static_cast<int>(std::max<long long>(256, std::min<long long>(max_tokens_, window_ / 4)));
    // The estimate was too low as well: assume the failed request filled the window.
    chars_per_token_ = std::clamp(static_cast<double>(request_chars(failed)) / static_cast<double>(std::max<long long>(1, window_)),
                                  1.0, chars_per_token_);
    LlmRequest request = request_from_view();
    const long long limit = static_cast<long long>(0.6 * static_cast<double>(window_ - max_tokens_));
    const std::size_t n = shorten_until(limit, 1, request);
    tools.record({{"type", "context_shortened"}, {"tool_outputs", n}, {"after_overflow", true},
                  {"window_before", before_window}, {"window", window_}, {"max_tokens", max_tokens_},
                  {"estimated_tokens_after", estimate_tokens(request)}});
    return n > 0 || max_tokens_ < before_max_tokens || estimate_tokens(request) < failed_estimate;
  }

  Backend backend_;
  LlmAgentOptions options_;
  std::vector<ChatMessage> conversation_;
  std::vector<bool> shortened_;
  double chars_per_token_ = 3.5;
  std::optional<JudgeGuard> judge_;
  bool sandbox_checked_ = false;
  long long window_ = options_.context_window;  ///< the window in use: learned down from overflows
  std::optional<long long> server_window_;       ///< the window an overflow message stated
  int max_tokens_ = options_.max_tokens;         ///< the output limit in use, within the window
};

}  // namespace socratic
