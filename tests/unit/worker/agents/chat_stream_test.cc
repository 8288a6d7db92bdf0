#include "worker/agents/chat_stream.h"

#include <chrono>
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

// A slow or hostile server can trickle one long line in tiny pieces; each
// piece must cost its own size, not the line's so far (found by
// llm_reply_fuzzer: 1 MiB in 1-byte pieces took seconds, 4 MiB minutes).
TEST(ChatStreamAssembler, LongLineInOneBytePieces_AssemblesInLinearTime) {
  const std::string content(4 << 20, 'x');
  const std::string stream = absl::StrCat("data: {\"choices\":[{\"delta\":{\"content\":\"", content,
                                          "\"}}]}\n\ndata: [DONE]\n\n");
  ChatStreamAssembler assembler(nullptr);
  const auto start = std::chrono::steady_clock::now();
  for (char c : stream) assembler.Feed(absl::string_view(&c, 1));
  absl::StatusOr<ChatResponse> response = assembler.Finish();
  const auto elapsed = std::chrono::steady_clock::now() - start;
  ASSERT_THAT(response, IsOk());
  EXPECT_EQ(response->message.content(), content);
  // Linear takes milliseconds; the quadratic scan took minutes.
  EXPECT_LT(elapsed, std::chrono::seconds(20));
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
