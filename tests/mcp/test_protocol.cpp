// mcp::Server as a state machine: both protocol eras, negotiation, tools/call's results and
// errors, and bad input, driven line by line without a process.
#include "catch.hpp"

#include "socratic/mcp/server.hpp"

using namespace socratic;
using namespace socratic::mcp;

namespace {

Server echo_server() {
  ToolDefinition echo;
  echo.name = "echo";
  echo.title = "Echo";
  echo.description = "says its text back";
  echo.input_schema = json{{"type", "object"}, {"properties", {{"text", {{"type", "string"}}}}}};
  echo.call = [](const json& args, const CallContext& ctx) {
    if (!args.contains("text")) return ToolResult::error("argument \"text\" is required");
    return ToolResult{args["text"].get<std::string>(), json{{"protocol", ctx.protocol_version}}, false};
  };
  ToolDefinition boom;
  boom.name = "boom";
  boom.call = [](const json&, const CallContext&) -> ToolResult { throw std::runtime_error("the judge is down"); };
  ServerInfo info;
  info.version = "1.2.3";
  info.instructions = "use echo";
  return Server(info, {echo, boom});
}

json line(Server& s, const json& message) {
  auto r = s.handle_line(message.dump());
  REQUIRE(r);
  return *r;
}

json request(const json& id, const std::string& method, json params = json::object()) {
  return json{{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", std::move(params)}};
}

json stateless_meta(json extra = json::object()) {
  json meta{{meta_protocol_version, stateless_version}, {meta_client_capabilities, json::object()},
            {meta_client_info, {{"name", "scripted"}, {"version", "0"}}}};
  extra["_meta"] = meta;
  return extra;
}

}  // namespace

TEST_CASE("2025-11-25: initialize, initialized, tools/list, tools/call, ping", "[mcp][protocol]") {
  Server s = echo_server();
  const json init = line(s, request(1, "initialize",
                                    {{"protocolVersion", "2025-11-25"},
                                     {"capabilities", json::object()},
                                     {"clientInfo", {{"name", "scripted"}, {"version", "0"}}}}));
  CHECK(init["id"] == 1);
  CHECK(init["result"]["protocolVersion"] == "2025-11-25");
  CHECK(init["result"]["capabilities"]["tools"].is_object());
  CHECK(init["result"]["serverInfo"]["name"] == "socratic");
  CHECK(init["result"]["serverInfo"]["version"] == "1.2.3");
  CHECK(init["result"]["instructions"] == "use echo");
  CHECK_FALSE(s.handle_line(R"({"jsonrpc":"2.0","method":"notifications/initialized"})"));
  CHECK(s.initialized());

  const json list = line(s, request(2, "tools/list"));
  REQUIRE(list["result"]["tools"].size() == 2);
  CHECK(list["result"]["tools"][0]["name"] == "echo");
  CHECK(list["result"]["tools"][0]["inputSchema"]["type"] == "object");
  CHECK_FALSE(list["result"].contains("resultType"));  // a 2026-07-28 member only

  const json call = line(s, request("c-3", "tools/call", {{"name", "echo"}, {"arguments", {{"text", "hi"}}}}));
  CHECK(call["id"] == "c-3");
  CHECK(call["result"]["isError"] == false);
  CHECK(call["result"]["content"][0]["type"] == "text");
  CHECK(call["result"]["content"][0]["text"] == "hi");
  CHECK(call["result"]["structuredContent"]["protocol"] == "2025-11-25");

  CHECK(line(s, request(4, "ping"))["result"] == json::object());
}

TEST_CASE("older clients are negotiated down; unknown versions get the newest handshake version", "[mcp][protocol]") {
  for (const std::string v : {"2025-06-18", "2025-03-26", "2024-11-05"}) {
    Server s = echo_server();
    CHECK(line(s, request(1, "initialize", {{"protocolVersion", v}}))["result"]["protocolVersion"] == v);
  }
  Server s = echo_server();
  CHECK(line(s, request(1, "initialize", {{"protocolVersion", "1999-01-01"}}))["result"]["protocolVersion"] == "2025-11-25");
  // A handshake asking for the stateless revision is answered with the newest handshake one.
  Server t = echo_server();
  CHECK(line(t, request(1, "initialize", {{"protocolVersion", "2026-07-28"}}))["result"]["protocolVersion"] == "2025-11-25");
  Server u = echo_server();
  const json bad = line(u, request(1, "initialize", json::object()));
  CHECK(bad["error"]["code"] == error_code::invalid_params);
}

TEST_CASE("2026-07-28: no handshake, _meta in every request, server/discover, resultType", "[mcp][protocol]") {
  Server s = echo_server();
  const json discover = line(s, request(1, "server/discover", stateless_meta()));
  CHECK(discover["result"]["resultType"] == "complete");
  CHECK(discover["result"]["supportedVersions"][0] == "2026-07-28");
  CHECK(discover["result"]["capabilities"]["tools"].is_object());
  CHECK(discover["result"]["serverInfo"]["name"] == "socratic");

  const json list = line(s, request(2, "tools/list", stateless_meta()));
  CHECK(list["result"]["resultType"] == "complete");
  CHECK(list["result"]["tools"].size() == 2);
  const json call = line(s, request(3, "tools/call", stateless_meta({{"name", "echo"}, {"arguments", {{"text", "x"}}}})));
  CHECK(call["result"]["resultType"] == "complete");
  CHECK(call["result"]["structuredContent"]["protocol"] == "2026-07-28");
  CHECK_FALSE(s.initialized());  // nothing was negotiated for the connection

  // ping is gone from the stateless revision.
  CHECK(line(s, request(4, "ping", stateless_meta()))["error"]["code"] == error_code::method_not_found);
  // _meta without client capabilities, or with a version not spoken statelessly.
  json meta = stateless_meta();
  meta["_meta"].erase(meta_client_capabilities);
  CHECK(line(s, request(5, "tools/list", meta))["error"]["code"] == error_code::invalid_params);
  json old = stateless_meta();
  old["_meta"][meta_protocol_version] = "2025-11-25";
  const json unsupported = line(s, request(6, "tools/list", old));
  CHECK(unsupported["error"]["code"] == error_code::unsupported_protocol_version);
  CHECK(unsupported["error"]["data"]["supportedVersions"].size() == 5);
}

TEST_CASE("a request before any handshake, without _meta, is refused with how to start", "[mcp][protocol]") {
  Server s = echo_server();
  const json r = line(s, request(1, "tools/list"));
  CHECK(r["error"]["code"] == error_code::server_not_initialized);
  CHECK(std::string(r["error"]["message"]).find("initialize") != std::string::npos);
  CHECK(line(s, request(2, "ping"))["result"] == json::object());  // ping is always answered
}

TEST_CASE("a tool's failure is an isError result; protocol faults are JSON-RPC errors", "[mcp][protocol]") {
  Server s = echo_server();
  (void)line(s, request(1, "initialize", {{"protocolVersion", "2025-11-25"}}));
  (void)s.handle_line(R"({"jsonrpc":"2.0","method":"notifications/initialized"})");

  const json failed = line(s, request(2, "tools/call", {{"name", "boom"}}));
  CHECK(failed["result"]["isError"] == true);
  CHECK(std::string(failed["result"]["content"][0]["text"]).find("the judge is down") != std::string::npos);
  const json missing = line(s, request(3, "tools/call", {{"name", "echo"}, {"arguments", json::object()}}));
  CHECK(missing["result"]["isError"] == true);
  const json not_object = line(s, request(4, "tools/call", {{"name", "echo"}, {"arguments", json::array()}}));
  CHECK(not_object["result"]["isError"] == true);

  const json unknown_tool = line(s, request(5, "tools/call", {{"name", "evaluat"}}));
  CHECK(unknown_tool["error"]["code"] == error_code::invalid_params);
  CHECK(std::string(unknown_tool["error"]["message"]).find("tools: echo, boom") != std::string::npos);
  const json unknown_method = line(s, request(6, "resources/list"));
  CHECK(unknown_method["error"]["code"] == error_code::method_not_found);
  CHECK(std::string(unknown_method["error"]["message"]).find("resources/list") != std::string::npos);

  const json huge = line(s, request(7, "tools/call", {{"name", "echo"}, {"arguments", {{"text", std::string(70000, 'x')}}}}));
  CHECK(huge["result"]["isError"] == true);
  CHECK(std::string(huge["result"]["content"][0]["text"]).find("over the limit") != std::string::npos);
}

TEST_CASE("malformed messages: each gets an error naming what is wrong, the connection goes on", "[mcp][protocol]") {
  Server s = echo_server();
  auto error_of = [&](const std::string& text) {
    auto r = s.handle_line(text);
    REQUIRE(r);
    return (*r)["error"];
  };
  CHECK(error_of("{not json")["code"] == error_code::parse_error);
  CHECK(error_of("[1,2]")["code"] == error_code::invalid_request);
  CHECK(error_of("42")["code"] == error_code::invalid_request);
  CHECK(error_of(R"({"id":1,"method":"ping"})")["code"] == error_code::invalid_request);  // no jsonrpc
  CHECK(error_of(R"({"jsonrpc":"2.0","id":{"a":1},"method":"ping"})")["code"] == error_code::invalid_request);
  CHECK(error_of(R"({"jsonrpc":"2.0","id":1,"method":7})")["code"] == error_code::invalid_request);
  CHECK(error_of(R"({"jsonrpc":"2.0","id":1,"method":"ping","params":[1]})")["code"] == error_code::invalid_params);
  CHECK(error_of(R"({"jsonrpc":"2.0","id":1})")["code"] == error_code::invalid_request);
  // The id is echoed when it could be read.
  auto r = s.handle_line(R"({"jsonrpc":"1.0","id":9,"method":"ping"})");
  REQUIRE(r);
  CHECK((*r)["id"] == 9);
  // Over the size cap: refused before parsing.
  Server small(ServerInfo{}, {}, ServerLimits{64, 64});
  auto big = small.handle_line(std::string(100, ' ') + "{}");
  REQUIRE(big);
  CHECK(std::string((*big)["error"]["message"]).find("over the limit of 64 bytes") != std::string::npos);
  // Notifications and responses are never answered.
  CHECK_FALSE(s.handle_line(R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3}})"));
  CHECK_FALSE(s.handle_line(R"({"jsonrpc":"2.0","method":"notifications/whatever"})"));
  CHECK_FALSE(s.handle_line(R"({"jsonrpc":"2.0","id":5,"result":{}})"));
  // And the connection still works.
  CHECK(line(s, request(1, "initialize", {{"protocolVersion", "2025-11-25"}}))["result"]["protocolVersion"] == "2025-11-25");
}

TEST_CASE("every tools/call reaches on_tool_call with its result", "[mcp][protocol]") {
  Server s = echo_server();
  std::vector<std::string> seen;
  s.on_tool_call = [&](const std::string& tool, const json&, const ToolResult& r, const CallContext& ctx) {
    seen.push_back(tool + (r.is_error ? ":error" : ":ok") + "@" + ctx.protocol_version);
  };
  (void)line(s, request(1, "tools/call", stateless_meta({{"name", "echo"}, {"arguments", {{"text", "a"}}}})));
  (void)line(s, request(2, "tools/call", stateless_meta({{"name", "boom"}})));
  CHECK(seen == std::vector<std::string>{"echo:ok@2026-07-28", "boom:error@2026-07-28"});
}
