#include "worker/agents/chat_stream.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/status_matchers.h"

namespace taskboard::worker {
namespace {

using ::taskboard::testing::IsOk;
using ::taskboard::testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(ChatStreamAssembler, BytesSplitAnywhere_AssembleTheSameAnswer) {
  const std::string stream =
      "data: {\"choices\":[{\"delta\":{\"content\":\"ab\"}}]}\r\n\r\n"
      ": keep-alive\n\n"
      "data: {\"choices\":[{\"delta\":{\"content\":\"c\"},\"finish_reason\":\"stop\"}]}\n\n"
      "data: [DONE]\n\n";
  for (size_t split = 0; split <= stream.size(); ++split) {
    std::vector<std::string> deltas;
    ChatStreamAssembler assembler([&](absl::string_view d) { deltas.emplace_back(d); });
    assembler.Feed(stream.substr(0, split));
    assembler.Feed(stream.substr(split));
    absl::StatusOr<ChatResponse> response = assembler.Finish();
    ASSERT_THAT(response, IsOk()) << "split at " << split;
    EXPECT_EQ(response->message.content(), "abc");
    EXPECT_EQ(response->finish_reason, "stop");
    EXPECT_THAT(deltas, ElementsAre("ab", "c"));
    EXPECT_TRUE(assembler.done());
  }
}

TEST(ChatStreamAssembler, ParallelToolCalls_AreJoinedByIndex) {
  ChatStreamAssembler assembler(nullptr);
  assembler.Feed(
      "data: {\"choices\":[{\"delta\":{\"tool_calls\":["
      "{\"index\":1,\"id\":\"b\",\"function\":{\"name\":\"g\",\"arguments\":\"{\"}},"
      "{\"index\":0,\"id\":\"a\",\"function\":{\"name\":\"f\",\"arguments\":\"{}\"}}]}}]}\n\n"
      "data: {\"choices\":[{\"delta\":{\"tool_calls\":["
      "{\"index\":1,\"function\":{\"arguments\":\"}\"}}]}}]}\n\n"
      "data: [DONE]\n\n");
  absl::StatusOr<ChatResponse> response = assembler.Finish();
  ASSERT_THAT(response, IsOk());
  ASSERT_EQ(response->message.tool_calls_size(), 2);
  EXPECT_EQ(response->message.tool_calls(0).id(), "a");
  EXPECT_EQ(response->message.tool_calls(1).name(), "g");
  EXPECT_EQ(response->message.tool_calls(1).arguments_json(), "{}");
}

TEST(ChatStreamAssembler, BadChunk_FailsSayingSo) {
  ChatStreamAssembler assembler(nullptr);
  assembler.Feed("data: {not json\n\n");
  EXPECT_THAT(assembler.Finish(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("not a JSON object")));
}

TEST(ChatStreamAssembler, ErrorChunk_FailsWithTheServerMessage) {
  ChatStreamAssembler assembler(nullptr);
  assembler.Feed("data: {\"error\":{\"message\":\"overloaded\"}}\n\n");
  EXPECT_THAT(assembler.Finish(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("overloaded")));
}

TEST(ChatStreamAssembler, EmptyStream_Fails) {
  ChatStreamAssembler assembler(nullptr);
  EXPECT_THAT(assembler.Finish(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("before any chunk")));
}

}  // namespace
}  // namespace taskboard::worker
