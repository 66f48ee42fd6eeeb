#pragma once
// A loopback HTTP server (Boost.Beast) that plays a model API for the real coding-agent CLIs:
// every request is recorded, and a test-provided function scripts the reply. Helpers build the
// Anthropic Messages stream (server-sent events) the way the API sends it.
#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include "socratic/core/json.hpp"

namespace scripted {

using socratic::json;
namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;

/// One request the server received.
struct Request {
  std::string method;
  std::string target;
  json body;            ///< null when the body was not JSON
  std::string api_key;  ///< the `x-api-key` header, or the bearer token of `authorization`
};

/// A reply: body and content type.
struct Reply {
  std::string content_type = "application/json";
  std::string body;
  int status = 200;
};

class Server {
 public:
  using Script = std::function<Reply(const Request&)>;

  explicit Server(Script script) : script_(std::move(script)), acceptor_(io_) {
    asio::ip::tcp::endpoint ep(asio::ip::make_address("127.0.0.1"), 0);
    acceptor_.open(ep.protocol());
    acceptor_.set_option(asio::socket_base::reuse_address(true));
    acceptor_.bind(ep);
    acceptor_.listen();
    port_ = acceptor_.local_endpoint().port();
    accept_thread_ = std::thread([this] { accept_loop(); });
  }
  ~Server() {
    stopping_ = true;
    boost::system::error_code ec;
    {  // unblock accept() by connecting once
      asio::io_context io;
      asio::ip::tcp::socket s(io);
      s.connect({asio::ip::make_address("127.0.0.1"), port_}, ec);
    }
    accept_thread_.join();
    std::lock_guard lock(mutex_);
    for (auto& s : open_sockets_) s->shutdown(asio::ip::tcp::socket::shutdown_both, ec);
    for (auto& t : connection_threads_) t.join();
  }
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  unsigned short port() const { return port_; }
  std::string base_url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  std::vector<Request> requests() const {
    std::lock_guard lock(mutex_);
    return requests_;
  }

 private:
  void accept_loop() {
    while (!stopping_) {
      auto socket = std::make_shared<asio::ip::tcp::socket>(io_);
      boost::system::error_code ec;
      acceptor_.accept(*socket, ec);
      if (ec || stopping_) break;
      std::lock_guard lock(mutex_);
      open_sockets_.push_back(socket);
      connection_threads_.emplace_back([this, socket] { serve(*socket); });
    }
  }

  void serve(asio::ip::tcp::socket& socket) {
    beast::flat_buffer buffer;
    while (true) {
      http::request_parser<http::string_body> parser;
      parser.body_limit(64 << 20);
      boost::system::error_code ec;
      http::read(socket, buffer, parser, ec);
      if (ec) return;
      const auto& req = parser.get();
      Request r{std::string(req.method_string()), std::string(req.target()), nullptr, {}};
      if (auto it = req.find("x-api-key"); it != req.end()) r.api_key = std::string(it->value());
      if (auto it = req.find(http::field::authorization); it != req.end() && r.api_key.empty()) {
        const std::string v(it->value());
        r.api_key = v.rfind("Bearer ", 0) == 0 ? v.substr(7) : v;
      }
      try {
        if (!req.body().empty()) r.body = json::parse(req.body());
      } catch (const std::exception&) {
      }
      Reply reply;
      {
        std::lock_guard lock(mutex_);
        requests_.push_back(r);
      }
      try {
        reply = script_(r);
      } catch (const std::exception& e) {
        reply = Reply{"application/json", json{{"type", "error"}, {"error", {{"type", "api_error"}, {"message", e.what()}}}}.dump(), 500};
      }
      http::response<http::string_body> res{static_cast<http::status>(reply.status), req.version()};
      res.set(http::field::content_type, reply.content_type);
      res.set("request-id", "req_" + std::to_string(requests().size()));
      res.keep_alive(req.keep_alive());
      res.body() = reply.body;
      res.prepare_payload();
      http::write(socket, res, ec);
      if (ec || !req.keep_alive()) return;
    }
  }

  Script script_;
  asio::io_context io_;
  asio::ip::tcp::acceptor acceptor_;
  unsigned short port_ = 0;
  std::atomic<bool> stopping_{false};
  std::thread accept_thread_;
  mutable std::mutex mutex_;
  std::vector<Request> requests_;
  std::vector<std::shared_ptr<asio::ip::tcp::socket>> open_sockets_;
  std::vector<std::thread> connection_threads_;
};

// ---- Anthropic Messages, streamed -------------------------------------------------------------

inline std::string sse(const std::string& event, const json& data) {
  return "event: " + event + "\ndata: " + data.dump() + "\n\n";
}

/// A streamed Messages reply with these content blocks (`{"type":"text","text":...}` or
/// `{"type":"tool_use","id":...,"name":...,"input":{...}}`); tool input is sent in two
/// `input_json_delta` fragments, as the API splits it.
inline Reply anthropic_stream(const json& blocks, const std::string& model, int n) {
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
  return Reply{"text/event-stream", out, 200};
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

}  // namespace scripted

namespace scripted {

// ---- OpenAI Responses, streamed (what Codex speaks) ----------------------------------------------

/// A streamed Responses reply with these output items (`{"type":"message",...}` with
/// `output_text` content, or `{"type":"function_call","name":...,"arguments":"<json string>"}`).
inline Reply responses_stream(const json& items, int n) {
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
  return Reply{"text/event-stream", out, 200};
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
