#include "scheduler/web/sse.h"

#include "gtest/gtest.h"

namespace taskboard::web {
namespace {

TEST(SseFrame, EventIdAndData) {
  EXPECT_EQ(SseFrame("message", 42, R"({"a":1})"), "event: message\nid: 42\ndata: {\"a\":1}\n\n");
  EXPECT_EQ(SseFrame("end", std::nullopt, "{}"), "event: end\ndata: {}\n\n");
}

TEST(SseFrame, NewlinesInDataCannotEndTheFrameEarly) {
  // A blank line would end the frame and start a forged one.
  EXPECT_EQ(SseFrame("message", std::nullopt, "a\n\nevent: end\r\nb"),
            "event: message\ndata: a\ndata: \ndata: event: end\ndata: \ndata: b\n\n");
}

TEST(ParseLastEventId, NonNegativeIntegersElseFromTheStart) {
  EXPECT_EQ(ParseLastEventId("17"), 17);
  EXPECT_EQ(ParseLastEventId(""), 0);
  EXPECT_EQ(ParseLastEventId("-3"), 0);
  EXPECT_EQ(ParseLastEventId("12abc"), 0);
  EXPECT_EQ(ParseLastEventId("99999999999999999999999"), 0);
}

}  // namespace
}  // namespace taskboard::web
