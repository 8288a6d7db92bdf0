#include "common/mcp/server_session.h"

#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/mcp/json_rpc.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace taskboard::mcp {
namespace {

using ::testing::HasSubstr;

// One tool, "echo", that answers its arguments and counts its calls.
class EchoTable : public ToolTable {
 public:
  std::vector<ToolDescription> List() const override {
    return {{"echo", "Echoes", {{"type", "object"}}}};
  }
  bool Has(const std::string& name) const override { return name == "echo"; }
  ToolResult Call(const std::string& /*name*/, const Json& arguments, const Json& meta) override {
    ++calls;
    last_meta = meta;
    if (arguments.contains("fail")) return ToolResult::Error("echo: told to fail");
    return {DumpJson(arguments), Json{{"echoed", arguments}}, false};
  }
  int calls = 0;
  Json last_meta;
};

Json Send(ServerSession& session, const std::string& text) {
  std::optional<std::string> answer = session.Handle(text);
  EXPECT_TRUE(answer.has_value()) << text;
  return answer.has_value() ? *ParseJson(*answer) : Json();
}

std::string Initialize(absl::string_view version) {
  return absl::StrCat(
      R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":")", version,
      R"(","capabilities":{},"clientInfo":{"name":"t","version":"1"}}})");
}

class ServerSessionTest : public ::testing::Test {
 protected:
  EchoTable tools_;
  ServerSession session_{ServerOptions{}, tools_};
};

TEST_F(ServerSessionTest, Initialize_SupportedVersion_IsAnsweredWithIt) {
  Json answer = Send(session_, Initialize("2025-03-26"));
  EXPECT_EQ(answer["id"], 1);
  EXPECT_EQ(answer["result"]["protocolVersion"], "2025-03-26");
  EXPECT_TRUE(answer["result"]["capabilities"].contains("tools"));
  EXPECT_EQ(answer["result"]["serverInfo"]["name"], "taskboard");
}

TEST_F(ServerSessionTest, Initialize_UnknownVersion_IsAnsweredWithTheLatest) {
  Json answer = Send(session_, Initialize("2099-01-01"));
  EXPECT_EQ(answer["result"]["protocolVersion"], kLatestProtocolVersion);
}

TEST_F(ServerSessionTest, Initialize_WithoutProtocolVersion_IsInvalidParams) {
  Json answer = Send(session_, R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{}})");
  EXPECT_EQ(answer["error"]["code"], kInvalidParams);
}

TEST_F(ServerSessionTest, ToolsList_BeforeInitialize_IsRefused) {
  Json answer = Send(session_, R"({"jsonrpc":"2.0","id":2,"method":"tools/list"})");
  EXPECT_EQ(answer["error"]["code"], kInvalidRequest);
  EXPECT_THAT(answer["error"]["message"].get<std::string>(), HasSubstr("initialize first"));
}

TEST_F(ServerSessionTest, Ping_BeforeInitialize_IsAnswered) {
  Json answer = Send(session_, R"({"jsonrpc":"2.0","id":"p","method":"ping"})");
  EXPECT_EQ(answer["id"], "p");
  EXPECT_EQ(answer["result"], Json::object());
}

TEST_F(ServerSessionTest, ToolsList_ShowsNameDescriptionAndSchema) {
  Send(session_, Initialize(kLatestProtocolVersion));
  Json answer = Send(session_, R"({"jsonrpc":"2.0","id":2,"method":"tools/list"})");
  ASSERT_EQ(answer["result"]["tools"].size(), 1u);
  EXPECT_EQ(answer["result"]["tools"][0]["name"], "echo");
  EXPECT_EQ(answer["result"]["tools"][0]["inputSchema"]["type"], "object");
}

TEST_F(ServerSessionTest, ToolsCall_ReturnsTextAndStructuredContent) {
  Send(session_, Initialize(kLatestProtocolVersion));
  Json answer = Send(
      session_,
      R"({"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"a":1}}})");
  EXPECT_EQ(answer["result"]["isError"], false);
  EXPECT_EQ(answer["result"]["content"][0]["type"], "text");
  EXPECT_EQ(answer["result"]["content"][0]["text"], R"({"a":1})");
  EXPECT_EQ(answer["result"]["structuredContent"]["echoed"]["a"], 1);
}

TEST_F(ServerSessionTest, ToolsCall_Meta_ReachesTheTool_AbsentMetaIsNull) {
  Send(session_, Initialize(kLatestProtocolVersion));
  Send(session_, R"({"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo",)"
                 R"("arguments":{},"_meta":{"taskboard/flow_state":{"run_id":"r-1"}}}})");
  EXPECT_EQ(tools_.last_meta["taskboard/flow_state"]["run_id"], "r-1");
  Send(session_,
       R"({"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"echo","arguments":{}}})");
  EXPECT_TRUE(tools_.last_meta.is_null());
}

TEST_F(ServerSessionTest, ToolsCall_ToolError_IsAResultWithIsError) {
  Send(session_, Initialize(kLatestProtocolVersion));
  Json answer = Send(
      session_,
      R"({"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"fail":true}}})");
  EXPECT_FALSE(answer.contains("error"));
  EXPECT_EQ(answer["result"]["isError"], true);
  EXPECT_EQ(answer["result"]["content"][0]["text"], "echo: told to fail");
}

TEST_F(ServerSessionTest, ToolsCall_UnknownTool_IsInvalidParamsNamingTheTools) {
  Send(session_, Initialize(kLatestProtocolVersion));
  Json answer =
      Send(session_, R"({"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"rm_rf"}})");
  EXPECT_EQ(answer["error"]["code"], kInvalidParams);
  EXPECT_THAT(answer["error"]["message"].get<std::string>(), HasSubstr("'rm_rf'"));
  EXPECT_THAT(answer["error"]["message"].get<std::string>(), HasSubstr("echo"));
  EXPECT_EQ(tools_.calls, 0);
}

TEST_F(ServerSessionTest, ToolsCall_ArgumentsNotAnObject_IsInvalidParams) {
  Send(session_, Initialize(kLatestProtocolVersion));
  Json answer = Send(
      session_,
      R"({"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"echo","arguments":[1]}})");
  EXPECT_EQ(answer["error"]["code"], kInvalidParams);
  EXPECT_EQ(tools_.calls, 0);
}

TEST_F(ServerSessionTest, UnknownMethod_IsMethodNotFound) {
  Send(session_, Initialize(kLatestProtocolVersion));
  Json answer = Send(session_, R"({"jsonrpc":"2.0","id":6,"method":"resources/list"})");
  EXPECT_EQ(answer["error"]["code"], kMethodNotFound);
}

TEST_F(ServerSessionTest, Notifications_AreNotAnswered) {
  EXPECT_FALSE(
      session_.Handle(R"({"jsonrpc":"2.0","method":"notifications/initialized"})").has_value());
  EXPECT_FALSE(
      session_.Handle(R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":{}})")
          .has_value());
}

TEST_F(ServerSessionTest, NotJson_IsAParseErrorWithANullId) {
  Json answer = Send(session_, "{\"jsonrpc\":");
  EXPECT_EQ(answer["error"]["code"], kParseError);
  EXPECT_TRUE(answer["id"].is_null());
}

TEST_F(ServerSessionTest, Batch_IsAnInvalidRequest) {
  Json answer = Send(session_, R"([{"jsonrpc":"2.0","id":1,"method":"ping"}])");
  EXPECT_EQ(answer["error"]["code"], kInvalidRequest);
}

TEST_F(ServerSessionTest, WrongVersion_IsAnInvalidRequestKeepingTheId) {
  Json answer = Send(session_, R"({"jsonrpc":"1.0","id":9,"method":"ping"})");
  EXPECT_EQ(answer["error"]["code"], kInvalidRequest);
  EXPECT_EQ(answer["id"], 9);
}

TEST_F(ServerSessionTest, DeepNesting_IsRefusedWithoutReachingATool) {
  Send(session_, Initialize(kLatestProtocolVersion));
  std::string deep =
      R"({"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"a":)";
  deep += std::string(100000, '[') + std::string(100000, ']') + "}}}";
  Json answer = Send(session_, deep);
  EXPECT_TRUE(answer.contains("error"));
  EXPECT_EQ(tools_.calls, 0);
}

TEST(ServerSession, MessageOverTheLimit_IsRefused) {
  EchoTable tools;
  ServerOptions options;
  options.max_message_bytes = 100;
  ServerSession session(options, tools);
  std::optional<std::string> answer = session.Handle(absl::StrCat(
      R"({"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":")", std::string(200, 'x'), "\"}}"));
  ASSERT_TRUE(answer.has_value());
  EXPECT_THAT(*answer, HasSubstr("more than the limit of 100"));
}

TEST(ServerSession, Stateless_ServesToolsWithoutInitialize) {
  EchoTable tools;
  ServerOptions options;
  options.require_initialize = false;
  ServerSession session(options, tools);
  Json answer = Send(session, R"({"jsonrpc":"2.0","id":2,"method":"tools/list"})");
  EXPECT_EQ(answer["result"]["tools"][0]["name"], "echo");
}

}  // namespace
}  // namespace taskboard::mcp
