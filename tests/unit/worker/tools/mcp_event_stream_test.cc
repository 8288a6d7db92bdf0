// Server-sent events of Streamable HTTP MCP servers
// (worker/tools/mcp/mcp_event_stream.h): framing split anywhere, line ends,
// event types, and the size bound, as seen by the requests waiting in an
// McpInbox.

#include "worker/tools/mcp/mcp_event_stream.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/status_matchers.h"

namespace taskboard::worker {
namespace {

using ::taskboard::testing::IsOk;
using ::taskboard::testing::StatusIs;
using ::testing::HasSubstr;

class McpEventStreamTest : public ::testing::Test {
 protected:
  McpEventStreamTest()
      : inbox_(Peer(), [this](const std::string& reply) { replies_.push_back(reply); }) {}

  McpPeerOptions Peer() {
    McpPeerOptions peer;
    peer.server_name = "remote";
    peer.max_message_bytes = 1000;
    peer.on_notification = [this](const mcp::JsonRpcMessage& m) { notes_.push_back(m.method); };
    return peer;
  }

  static std::string Answer(int64_t id, const std::string& text) {
    return absl::StrCat(R"({"jsonrpc":"2.0","id":)", id, R"(,"result":{"text":")", text, R"("}})");
  }

  // The answer `id` got, or the request's state if none came.
  absl::StatusOr<Json> Outcome(int64_t id) {
    std::optional<absl::StatusOr<Json>> answer = inbox_.Close(id);
    if (!answer.has_value()) return absl::NotFoundError("no answer");
    return *answer;
  }

  McpInbox inbox_;
  std::vector<std::string> replies_;
  std::vector<std::string> notes_;
};

TEST_F(McpEventStreamTest, EventSplitAcrossFeeds_WithCrLf_IsDelivered) {
  const int64_t id = *inbox_.Open("tool 'echo'");
  McpEventStream stream(&inbox_);
  const std::string text =
      absl::StrCat("id: 7\r\nevent: message\r\ndata: ", Answer(id, "hi"), "\r\n\r\n");
  for (char c : text) stream.Feed(std::string(1, c));
  EXPECT_EQ(stream.delivered(), 1);
  absl::StatusOr<Json> answer = Outcome(id);
  ASSERT_THAT(answer.status(), IsOk());
  EXPECT_EQ((*answer)["text"], "hi");
}

TEST_F(McpEventStreamTest, NotificationsAndServerRequestsBeforeTheAnswer_AreHandled) {
  const int64_t id = *inbox_.Open("tool 'echo'");
  McpEventStream stream(&inbox_);
  stream.Feed(": keep-alive\n\n");
  stream.Feed("data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\"}\n\n");
  stream.Feed("data: {\"jsonrpc\":\"2.0\",\"id\":\"s1\",\"method\":\"ping\"}\n\n");
  stream.Feed(absl::StrCat("data: ", Answer(id, "done"), "\n\n"));
  EXPECT_THAT(notes_, ::testing::ElementsAre("notifications/progress"));
  ASSERT_EQ(replies_.size(), 1u);
  EXPECT_THAT(replies_[0], HasSubstr(R"("id":"s1")"));
  EXPECT_THAT(Outcome(id).status(), IsOk());
}

TEST_F(McpEventStreamTest, DataOnSeveralLines_IsJoinedWithNewlines) {
  const int64_t id = *inbox_.Open("tool 'echo'");
  McpEventStream stream(&inbox_);
  stream.Feed(absl::StrCat("data: {\"jsonrpc\":\"2.0\",\ndata: \"id\":", id,
                           ",\ndata: \"result\":{}}\n\n"));
  EXPECT_THAT(Outcome(id).status(), IsOk());
}

TEST_F(McpEventStreamTest, OtherEventTypesAndGarbage_AreDropped_TheRightAnswerCounts) {
  const int64_t id = *inbox_.Open("tool 'echo'");
  McpEventStream stream(&inbox_);
  stream.Feed(absl::StrCat("event: other\ndata: ", Answer(id, "wrong type"), "\n\n"));
  stream.Feed("data: not json at all\n\n");
  stream.Feed(absl::StrCat("data: ", Answer(id + 100, "wrong id"), "\n\n"));
  stream.Feed(absl::StrCat(std::string(500, 'x'), ": a long field name\n\n"));
  EXPECT_FALSE(inbox_.Answered(id));
  stream.Feed(absl::StrCat("data: ", Answer(id, "right"), "\n\n"));
  absl::StatusOr<Json> answer = Outcome(id);
  ASSERT_THAT(answer.status(), IsOk());
  EXPECT_EQ((*answer)["text"], "right");
  EXPECT_GE(inbox_.dropped(), 2);
}

TEST_F(McpEventStreamTest, EventOverTheLimit_FailsTheRequestItAnswers) {
  const int64_t id = *inbox_.Open("tool 'huge'");
  McpEventStream stream(&inbox_);
  stream.Feed(absl::StrCat("data: ", Answer(id, std::string(5000, 'x')), "\n\n"));
  EXPECT_THAT(Outcome(id), StatusIs(absl::StatusCode::kResourceExhausted,
                                    HasSubstr("MCP server 'remote', tool 'huge': the answer is "
                                              "longer than 1000 bytes")));
}

}  // namespace
}  // namespace taskboard::worker
