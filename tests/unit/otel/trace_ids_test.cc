// Trace and span ids: random, never zero, hex round trips.

#include "common/otel/trace_ids.h"

#include <set>
#include <string>

#include "gtest/gtest.h"

namespace taskboard::otel {
namespace {

TEST(TraceIds, NewIds_AreValidAndDistinct) {
  std::set<std::string> traces;
  std::set<std::string> spans;
  for (int i = 0; i < 10'000; ++i) {
    const TraceId trace = NewTraceId();
    const SpanId span = NewSpanId();
    ASSERT_TRUE(trace.IsValid());
    ASSERT_TRUE(span.IsValid());
    traces.insert(trace.Hex());
    spans.insert(span.Hex());
  }
  EXPECT_EQ(traces.size(), 10'000u);
  EXPECT_EQ(spans.size(), 10'000u);
}

TEST(TraceIds, NewTraceIds_SpreadTheirRandomnessOverEveryByte) {
  // Each of the 16 bytes takes many values over 1,000 ids (the sampler
  // reads the last 7).
  for (size_t byte = 0; byte < 16; ++byte) {
    std::set<uint8_t> seen;
    for (int i = 0; i < 1'000; ++i) seen.insert(NewTraceId().bytes[byte]);
    EXPECT_GT(seen.size(), 200u) << "byte " << byte;
  }
}

TEST(TraceIds, Hex_RoundTrips) {
  const TraceId trace = NewTraceId();
  const SpanId span = NewSpanId();
  EXPECT_EQ(trace.Hex().size(), 32u);
  EXPECT_EQ(span.Hex().size(), 16u);
  EXPECT_EQ(TraceIdFromHex(trace.Hex()), trace);
  EXPECT_EQ(SpanIdFromHex(span.Hex()), span);
}

TEST(TraceIds, FromHex_RejectsWrongLengthAndUppercase) {
  EXPECT_EQ(TraceIdFromHex("4bf92f3577b34da6a3ce929d0e0e473"), std::nullopt);
  EXPECT_EQ(TraceIdFromHex("4BF92F3577B34DA6A3CE929D0E0E4736"), std::nullopt);
  EXPECT_EQ(SpanIdFromHex("00f067aa0ba902b7a"), std::nullopt);
  EXPECT_EQ(SpanIdFromHex("00f067aa0ba902bg"), std::nullopt);
}

TEST(TraceIds, AllZeroIds_ParseButAreInvalid) {
  std::optional<TraceId> zero = TraceIdFromHex(std::string(32, '0'));
  ASSERT_TRUE(zero.has_value());
  EXPECT_FALSE(zero->IsValid());
  EXPECT_FALSE(SpanId{}.IsValid());
}

}  // namespace
}  // namespace taskboard::otel
