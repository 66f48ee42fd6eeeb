#pragma once
// What a model API streams, built for the loopback server (loopback_server.hpp): the Anthropic
// Messages stream (server-sent events) and the OpenAI Responses stream that Codex reads, and
// readers of what the real CLIs send. Light: JSON only.
#include <string>
#include <vector>

#include "loopback_server.hpp"
#include "socratic/core/json.hpp"

namespace scripted {

using socratic::json;

/// A server-sent-events reply with this body.
inline socratic::testing::ScriptedReply sse_reply(const std::string& body) {
  socratic::testing::ScriptedReply r;
  r.headers.push_back({"Content-Type", "text/event-stream"});
  r.body = body;
  return r;
}

// ---- Anthropic Messages, streamed -------------------------------------------------------------

inline std::string sse(const std::string& event, const json& data) {
  return "event: " + event + "\ndata: " + data.dump() + "\n\n";
}

/// A streamed Messages reply with these content blocks (`{"type":"text","text":...}` or
/// `{"type":"tool_use","id":...,"name":...,"input":{...}}`); tool input is sent in two
/// `input_json_delta` fragments, as the API splits it.
inline socratic::testing::ScriptedReply anthropic_stream(const json& blocks, const std::string& model, int n) {
  bool tool = false;
  std::string out = sse("message_start", {{"type", "message_start"},
                                          {"message",
                                           {{"id", "msg_" + std::to_string(n)},
                                            {"type", "message"},
                                            {"role", "assistant"},
                                            {"model", model},
                                            {"content", json::array()},
                                            {"stop_reason", nullptr},
                                            {"stop_sequence", nullptr},
                                            {"usage", {{"input_tokens", 120}, {"output_tokens", 1}}}}}});
  for (std::size_t i = 0; i < blocks.size(); ++i) {
    const json& b = blocks[i];
    if (b["type"] == "text") {
      out += sse("content_block_start", {{"type", "content_block_start"}, {"index", i}, {"content_block", {{"type", "text"}, {"text", ""}}}});
      out += sse("content_block_delta", {{"type", "content_block_delta"}, {"index", i}, {"delta", {{"type", "text_delta"}, {"text", b["text"]}}}});
    } else {
      tool = true;
      out += sse("content_block_start", {{"type", "content_block_start"}, {"index", i},
                                         {"content_block", {{"type", "tool_use"}, {"id", b["id"]}, {"name", b["name"]}, {"input", json::object()}}}});
      const std::string input = b["input"].dump();
      const std::size_t half = input.size() / 2;
      for (const std::string& part : {input.substr(0, half), input.substr(half)})
        out += sse("content_block_delta", {{"type", "content_block_delta"}, {"index", i},
                                           {"delta", {{"type", "input_json_delta"}, {"partial_json", part}}}});
    }
    out += sse("content_block_stop", {{"type", "content_block_stop"}, {"index", i}});
  }
  out += sse("message_delta", {{"type", "message_delta"},
                               {"delta", {{"stop_reason", tool ? "tool_use" : "end_turn"}, {"stop_sequence", nullptr}}},
                               {"usage", {{"output_tokens", 42}}}});
  out += sse("message_stop", {{"type", "message_stop"}});
  return sse_reply(out);
}

/// The text of every user message (string content and text blocks), in order.
inline std::vector<std::string> user_texts(const json& messages) {
  std::vector<std::string> out;
  for (const auto& m : messages) {
    if (m.value("role", "") != "user") continue;
    if (m["content"].is_string()) out.push_back(m["content"]);
    else
      for (const auto& b : m["content"])
        if (b.value("type", "") == "text") out.push_back(b.value("text", ""));
  }
  return out;
}

/// Whether the last message carries a tool result.
inline bool last_is_tool_result(const json& messages) {
  if (messages.empty()) return false;
  const json& last = messages.back();
  if (!last.contains("content") || !last["content"].is_array()) return false;
  for (const auto& b : last["content"])
    if (b.value("type", "") == "tool_result") return true;
  return false;
}


// ---- OpenAI Responses, streamed (what Codex speaks) ----------------------------------------------

/// A streamed Responses reply with these output items (`{"type":"message",...}` with
/// `output_text` content, or `{"type":"function_call","name":...,"arguments":"<json string>"}`).
inline socratic::testing::ScriptedReply responses_stream(const json& items, int n) {
  auto ev = [](const json& data) { return "event: " + data["type"].get<std::string>() + "\ndata: " + data.dump() + "\n\n"; };
  const std::string id = "resp_" + std::to_string(n);
  std::string out = ev({{"type", "response.created"},
                        {"response", {{"id", id}, {"object", "response"}, {"status", "in_progress"}, {"output", json::array()}}}});
  for (std::size_t i = 0; i < items.size(); ++i) {
    out += ev({{"type", "response.output_item.added"}, {"output_index", i}, {"item", items[i]}});
    out += ev({{"type", "response.output_item.done"}, {"output_index", i}, {"item", items[i]}});
  }
  out += ev({{"type", "response.completed"},
             {"response",
              {{"id", id},
               {"object", "response"},
               {"status", "completed"},
               {"output", items},
               {"usage",
                {{"input_tokens", 150},
                 {"input_tokens_details", {{"cached_tokens", 0}}},
                 {"output_tokens", 40},
                 {"output_tokens_details", {{"reasoning_tokens", 0}}},
                 {"total_tokens", 190}}}}}});
  return sse_reply(out);
}

inline json responses_text(const std::string& text, int n) {
  return json{{"type", "message"},
              {"id", "msg_" + std::to_string(n)},
              {"role", "assistant"},
              {"status", "completed"},
              {"content", json::array({{{"type", "output_text"}, {"text", text}, {"annotations", json::array()}}})}};
}

inline json responses_call(const std::string& name, const json& arguments, int n) {
  return json{{"type", "function_call"},
              {"id", "fc_" + std::to_string(n)},
              {"call_id", "call_" + std::to_string(n)},
              {"name", name},
              {"arguments", arguments.dump()},
              {"status", "completed"}};
}

/// The text of every user message of a Responses `input`, in order.
inline std::vector<std::string> responses_user_texts(const json& input) {
  std::vector<std::string> out;
  for (const auto& item : input) {
    if (item.value("role", "") != "user") continue;
    if (item.contains("content") && item["content"].is_string()) out.push_back(item["content"]);
    else if (item.contains("content"))
      for (const auto& c : item["content"])
        if (c.contains("text")) out.push_back(c.value("text", ""));
  }
  return out;
}

inline bool responses_last_is_tool_output(const json& input) {
  return !input.empty() && input.back().value("type", "") == "function_call_output";
}

}  // namespace scripted
