// SpanQueue: a fixed ring that refuses spans when full and gives them back
// oldest first.

#include "common/otel/span_queue.h"

#include <vector>

#include "gtest/gtest.h"

namespace taskboard::otel {
namespace {

SpanData Named(const std::string& name) {
  SpanData span;
  span.name = name;
  return span;
}

TEST(SpanQueue, Full_RefusesAndLeavesTheSpanWithTheCaller) {
  SpanQueue queue(2);
  SpanData a = Named("a"), b = Named("b"), c = Named("c");
  EXPECT_TRUE(queue.Push(std::move(a)));
  EXPECT_TRUE(queue.Push(std::move(b)));
  EXPECT_FALSE(queue.Push(std::move(c)));
  EXPECT_EQ(c.name, "c");
  EXPECT_EQ(queue.size(), 2u);
}

TEST(SpanQueue, PopInto_TakesOldestFirstAcrossTheWrap) {
  SpanQueue queue(3);
  std::vector<SpanData> out;
  for (const char* name : {"a", "b", "c"}) ASSERT_TRUE(queue.Push(Named(name)));
  queue.PopInto(2, out);
  for (const char* name : {"d", "e"}) ASSERT_TRUE(queue.Push(Named(name)));
  EXPECT_FALSE(queue.Push(Named("f")));
  queue.PopInto(10, out);
  ASSERT_EQ(out.size(), 5u);
  EXPECT_EQ(out[0].name, "a");
  EXPECT_EQ(out[1].name, "b");
  EXPECT_EQ(out[2].name, "c");
  EXPECT_EQ(out[3].name, "d");
  EXPECT_EQ(out[4].name, "e");
  EXPECT_TRUE(queue.empty());
}

TEST(SpanQueue, ZeroCapacity_HoldsOne) {
  SpanQueue queue(0);
  EXPECT_EQ(queue.capacity(), 1u);
  EXPECT_TRUE(queue.Push(Named("a")));
  EXPECT_FALSE(queue.Push(Named("b")));
}

}  // namespace
}  // namespace taskboard::otel
