#include "worker/session/output_coalescer.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace taskboard::worker {
namespace {

using ::testing::Optional;

const absl::Time kStart = absl::FromUnixSeconds(1000);

TEST(OutputCoalescer, AtMostOneTextPerInterval) {
  OutputCoalescer output(absl::Milliseconds(100));
  output.Append("a");
  EXPECT_THAT(output.Take(kStart), Optional(std::string("a")));
  output.Append("b");
  output.Append("c");
  EXPECT_EQ(output.Take(kStart + absl::Milliseconds(50)), absl::nullopt);
  EXPECT_EQ(output.next_due(), kStart + absl::Milliseconds(100));
  EXPECT_THAT(output.Take(kStart + absl::Milliseconds(100)), Optional(std::string("bc")));
  EXPECT_FALSE(output.has_pending());
  EXPECT_EQ(output.Take(kStart + absl::Seconds(10)), absl::nullopt);
}

TEST(OutputCoalescer, SplitCharacter_WaitsForItsLastByte) {
  OutputCoalescer output(absl::Milliseconds(100));
  output.Append("caf\xC3");  // the first byte of "é"
  EXPECT_THAT(output.Take(kStart), Optional(std::string("caf")));
  output.Append("\xA9!");
  EXPECT_THAT(output.Take(kStart + absl::Seconds(1)), Optional(std::string("\xC3\xA9!")));
}

TEST(OutputCoalescer, TakeAll_ReplacesInvalidBytes) {
  OutputCoalescer output(absl::Milliseconds(100));
  output.Append("end\xE2\x82");  // a truncated "€"
  EXPECT_THAT(output.TakeAll(), Optional(std::string("end\xEF\xBF\xBD\xEF\xBF\xBD")));
  EXPECT_EQ(output.TakeAll(), absl::nullopt);
}

TEST(CompleteUtf8Prefix, HoldsBackOnlyAnUnfinishedSequence) {
  EXPECT_EQ(CompleteUtf8Prefix(""), 0u);
  EXPECT_EQ(CompleteUtf8Prefix("abc"), 3u);
  EXPECT_EQ(CompleteUtf8Prefix("a\xC3\xA9"), 3u);
  EXPECT_EQ(CompleteUtf8Prefix("a\xF0\x9F\x98"), 1u);      // 3 of 4 bytes of an emoji
  EXPECT_EQ(CompleteUtf8Prefix("a\xF0\x9F\x98\x80"), 5u);  // all 4
  EXPECT_EQ(CompleteUtf8Prefix("a\xFF"), 2u);              // invalid: sent and replaced
}

}  // namespace
}  // namespace taskboard::worker
