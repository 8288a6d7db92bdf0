#include "common/mcp/json_rpc.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/status_matchers.h"

namespace taskboard::mcp {
namespace {

using ::taskboard::testing::IsOk;
using ::taskboard::testing::StatusIs;
using ::testing::HasSubstr;

constexpr size_t kLimit = 1 << 20;

TEST(ParseJsonRpcMessage, Request_KeepsIdMethodAndParams) {
  absl::StatusOr<JsonRpcMessage> message = ParseJsonRpcMessage(
      R"({"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo"}})", kLimit);
  ASSERT_THAT(message, IsOk());
  EXPECT_EQ(message->kind, JsonRpcMessage::Kind::kRequest);
  EXPECT_EQ(message->id, 7);
  EXPECT_EQ(message->method, "tools/call");
  EXPECT_EQ(message->params["name"], "echo");
}

TEST(ParseJsonRpcMessage, NotificationHasNoId) {
  absl::StatusOr<JsonRpcMessage> message = ParseJsonRpcMessage(
      R"({"jsonrpc":"2.0","method":"notifications/tools/list_changed"})", kLimit);
  ASSERT_THAT(message, IsOk());
  EXPECT_EQ(message->kind, JsonRpcMessage::Kind::kNotification);
  EXPECT_TRUE(message->id.is_null());
  EXPECT_TRUE(message->params.is_null());
}

TEST(ParseJsonRpcMessage, ResultResponse_StringId) {
  absl::StatusOr<JsonRpcMessage> message =
      ParseJsonRpcMessage(R"({"result":{"tools":[]},"jsonrpc":"2.0","id":"a1"})", kLimit);
  ASSERT_THAT(message, IsOk());
  EXPECT_EQ(message->kind, JsonRpcMessage::Kind::kResponse);
  EXPECT_EQ(message->id, "a1");
  EXPECT_FALSE(message->error.has_value());
  EXPECT_TRUE(message->result["tools"].is_array());
}

TEST(ParseJsonRpcMessage, ErrorResponse_KeepsCodeMessageAndData) {
  absl::StatusOr<JsonRpcMessage> message = ParseJsonRpcMessage(
      R"({"jsonrpc":"2.0","id":3,"error":{"code":-32601,"message":"Method not found","data":"x"}})",
      kLimit);
  ASSERT_THAT(message, IsOk());
  ASSERT_TRUE(message->error.has_value());
  EXPECT_EQ(message->error->code, kMethodNotFound);
  EXPECT_EQ(DescribeJsonRpcError(*message->error), "code -32601: Method not found");
  EXPECT_EQ(message->error->data, "x");
}

TEST(ParseJsonRpcMessage, ErrorWithNullId_IsAnAnswerToAnUnparseableRequest) {
  absl::StatusOr<JsonRpcMessage> message = ParseJsonRpcMessage(
      R"({"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}})", kLimit);
  ASSERT_THAT(message, IsOk());
  EXPECT_TRUE(message->id.is_null());
  EXPECT_EQ(message->error->code, kParseError);
}

TEST(ParseJsonRpcMessage, HostileInputs_RefusedWithTheReason) {
  struct Case {
    std::string text;
    std::string reason;
  };
  const Case cases[] = {
      {"", "not a JSON-RPC 2.0 message"},
      {"{\"jsonrpc\":\"2.0\",", "not a JSON-RPC 2.0 message"},
      {"[{\"jsonrpc\":\"2.0\",\"method\":\"a\"}]", "batches"},
      {"42", "not an object"},
      {R"({"method":"a"})", "'jsonrpc' is not \"2.0\""},
      {R"({"jsonrpc":"1.0","method":"a"})", "'jsonrpc' is not \"2.0\""},
      {R"({"jsonrpc":"2.0","id":1.5,"method":"a"})", "'id' must be a string or an integer"},
      {R"({"jsonrpc":"2.0","id":{"x":1},"result":{}})", "'id' must be a string or an integer"},
      {R"({"jsonrpc":"2.0","id":null,"method":"a"})", "null 'id'"},
      {R"({"jsonrpc":"2.0","id":1,"method":""})", "'method' must be a non-empty string"},
      {R"({"jsonrpc":"2.0","id":1,"method":7})", "'method' must be a non-empty string"},
      {R"({"jsonrpc":"2.0","method":"a","params":"s"})", "must be an object or an array"},
      {R"({"jsonrpc":"2.0","id":1})", "exactly one of 'result' and 'error'"},
      {R"({"jsonrpc":"2.0","id":1,"result":1,"error":{}})", "exactly one of"},
      {R"({"jsonrpc":"2.0","result":{}})", "without an id"},
      {R"({"jsonrpc":"2.0","id":1,"error":"boom"})", "'error' is not an object"},
      {R"({"jsonrpc":"2.0","id":1,"error":{"message":"m"}})", "'error.code'"},
      {R"({"jsonrpc":"2.0","id":1,"error":{"code":1}})", "'error.message'"},
  };
  for (const Case& c : cases) {
    EXPECT_THAT(ParseJsonRpcMessage(c.text, kLimit),
                StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr(c.reason)))
        << c.text;
  }
}

TEST(ParseJsonRpcMessage, OverTheByteLimit_RefusedBeforeParsing) {
  const std::string big =
      absl::StrCat(R"({"jsonrpc":"2.0","id":1,"result":")", std::string(2000, 'x'), "\"}");
  EXPECT_THAT(ParseJsonRpcMessage(big, 1000), StatusIs(absl::StatusCode::kInvalidArgument,
                                                       HasSubstr("more than the limit of 1000")));
  EXPECT_THAT(ParseJsonRpcMessage(big, big.size()), IsOk());
}

TEST(ParseJsonRpcMessage, DeepNesting_RefusedByTheJsonDepthLimit) {
  const std::string deep = absl::StrCat(R"({"jsonrpc":"2.0","id":1,"result":)",
                                        std::string(100000, '['), std::string(100000, ']'), "}");
  EXPECT_THAT(ParseJsonRpcMessage(deep, 1 << 20),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("--max-json-depth")));
}

TEST(EncodeJsonRpc, RoundTripsThroughTheParser) {
  const std::string request = EncodeJsonRpcRequest(Json(5), "tools/list", Json{{"cursor", "c"}});
  EXPECT_EQ(request, R"({"jsonrpc":"2.0","id":5,"method":"tools/list","params":{"cursor":"c"}})");
  EXPECT_EQ(EncodeJsonRpcNotification("notifications/initialized", Json()),
            R"({"jsonrpc":"2.0","method":"notifications/initialized"})");
  absl::StatusOr<JsonRpcMessage> result =
      ParseJsonRpcMessage(EncodeJsonRpcResult(Json("r"), Json::object()), kLimit);
  ASSERT_THAT(result, IsOk());
  EXPECT_EQ(result->id, "r");
  absl::StatusOr<JsonRpcMessage> error = ParseJsonRpcMessage(
      EncodeJsonRpcError(Json(9), {kMethodNotFound, "no such method", Json()}), kLimit);
  ASSERT_THAT(error, IsOk());
  EXPECT_EQ(error->error->message, "no such method");
}

}  // namespace
}  // namespace taskboard::mcp
