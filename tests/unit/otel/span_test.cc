// Span: what a sampled span records and how it is bounded (attribute count
// and value length, events, UTF-8, the span-wide byte budget), OTel's status
// rules, End exactly once.

#include "common/otel/span.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/otel/tracer.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace taskboard::otel {
namespace {

class RecordingSink : public SpanSink {
 public:
  void OnEnd(SpanData span) override { spans.push_back(std::move(span)); }
  std::vector<SpanData> spans;
};

class SpanTest : public ::testing::Test {
 protected:
  SpanData EndAndTake(Span& span) {
    span.End(absl::FromUnixNanos(2'000));
    EXPECT_EQ(sink_.spans.size(), 1u);
    return sink_.spans.empty() ? SpanData{} : sink_.spans.back();
  }

  RecordingSink sink_;
  SpanLimits limits_{.max_attributes = 4,
                     .max_value_bytes = 8,
                     .max_array_items = 2,
                     .max_events = 2,
                     .max_event_attributes = 1};
  Tracer tracer_{Sampler(), &sink_, limits_};
};

const AttributeValue* Find(const AttributeList& list, const std::string& key) {
  for (const Attribute& attribute : list.items) {
    if (attribute.key == key) return &attribute.value;
  }
  return nullptr;
}

TEST_F(SpanTest, End_ExportsNameKindTimesAndIds) {
  Span span = tracer_.StartSpan("run", nullptr, SpanKind::kServer, absl::FromUnixNanos(1'000));
  const SpanContext context = span.context();
  const SpanData data = EndAndTake(span);
  EXPECT_EQ(data.name, "run");
  EXPECT_EQ(data.kind, SpanKind::kServer);
  EXPECT_EQ(data.start_unix_nanos, 1'000);
  EXPECT_EQ(data.end_unix_nanos, 2'000);
  EXPECT_EQ(data.context.trace_id, context.trace_id);
  EXPECT_EQ(data.context.span_id, context.span_id);
  EXPECT_FALSE(data.parent_span_id.IsValid());
}

TEST_F(SpanTest, End_TwiceExportsOnceAndKeepsTheContext) {
  Span span = tracer_.StartSpan("run");
  const SpanContext context = span.context();
  span.End();
  span.End();
  EXPECT_EQ(sink_.spans.size(), 1u);
  EXPECT_FALSE(span.recording());
  EXPECT_EQ(span.context().span_id, context.span_id);
}

TEST_F(SpanTest, DroppedWithoutEnd_ExportsNothing) {
  { Span span = tracer_.StartSpan("run"); }
  EXPECT_TRUE(sink_.spans.empty());
}

TEST_F(SpanTest, MovedSpan_EndsOnceFromItsNewOwner) {
  Span first = tracer_.StartSpan("run");
  Span second = std::move(first);
  second.End();
  EXPECT_EQ(sink_.spans.size(), 1u);
}

TEST_F(SpanTest, Attributes_KeepEveryType) {
  Span span = tracer_.StartSpan("run");
  span.SetAttribute("s", "text").SetAttribute("i", 7).SetAttribute("d", 0.5);
  span.SetAttribute("a", std::vector<std::string>{"x", "y"});
  const SpanData data = EndAndTake(span);
  ASSERT_EQ(data.attributes.items.size(), 4u);
  EXPECT_EQ(std::get<std::string>(*Find(data.attributes, "s")), "text");
  EXPECT_EQ(std::get<int64_t>(*Find(data.attributes, "i")), 7);
  EXPECT_EQ(std::get<double>(*Find(data.attributes, "d")), 0.5);
  EXPECT_EQ(std::get<std::vector<std::string>>(*Find(data.attributes, "a")),
            (std::vector<std::string>{"x", "y"}));
}

TEST_F(SpanTest, BoolAttribute_IsABoolNotAString) {
  Span span = tracer_.StartSpan("run");
  span.SetAttribute("b", true);
  const SpanData data = EndAndTake(span);
  EXPECT_EQ(std::get<bool>(*Find(data.attributes, "b")), true);
}

TEST_F(SpanTest, SameKey_ReplacesTheValueWithoutCounting) {
  Span span = tracer_.StartSpan("run");
  span.SetAttribute("k", 1).SetAttribute("k", "two");
  const SpanData data = EndAndTake(span);
  ASSERT_EQ(data.attributes.items.size(), 1u);
  EXPECT_EQ(std::get<std::string>(*Find(data.attributes, "k")), "two");
  EXPECT_EQ(data.attributes.dropped, 0u);
}

TEST_F(SpanTest, LongOrInvalidKeySetTwice_IsStoredOnceUnderItsBoundedForm) {
  Span span = tracer_.StartSpan("run");
  span.SetAttribute("0123456789", 1).SetAttribute("0123456789", 2);
  span.SetAttribute("bad\xff", 3).SetAttribute("bad\xff", 4);
  const SpanData data = EndAndTake(span);
  ASSERT_EQ(data.attributes.items.size(), 2u);
  EXPECT_EQ(std::get<int64_t>(*Find(data.attributes, "01234567")), 2);
  EXPECT_EQ(std::get<int64_t>(*Find(data.attributes, "bad\xef\xbf\xbd")), 4);
  EXPECT_EQ(data.attributes.dropped, 0u);
}

TEST_F(SpanTest, EmptyKey_IsDroppedAndCounted) {
  Span span = tracer_.StartSpan("run");
  span.SetAttribute("", "value");
  span.AddEvent("e", {{"", int64_t{1}}});
  const SpanData data = EndAndTake(span);
  EXPECT_TRUE(data.attributes.items.empty());
  EXPECT_EQ(data.attributes.dropped, 1u);
  ASSERT_EQ(data.events.size(), 1u);
  EXPECT_EQ(data.events[0].attributes.dropped, 1u);
}

TEST_F(SpanTest, AttributesPastTheLimit_AreDroppedAndCounted) {
  Span span = tracer_.StartSpan("run");
  for (int i = 0; i < 10; ++i) span.SetAttribute("k" + std::to_string(i), i);
  // Replacing a kept key still works when the list is full.
  span.SetAttribute("k0", 100);
  const SpanData data = EndAndTake(span);
  EXPECT_EQ(data.attributes.items.size(), 4u);
  EXPECT_EQ(data.attributes.dropped, 6u);
  EXPECT_EQ(std::get<int64_t>(*Find(data.attributes, "k0")), 100);
}

TEST_F(SpanTest, LongStrings_AreCutAtACharacterBoundary) {
  Span span = tracer_.StartSpan("run");
  span.SetAttribute("ascii", "0123456789");
  // Three 3-byte characters: 9 bytes, cut to the two that fit in 8.
  span.SetAttribute("utf8", "\xe2\x82\xac\xe2\x82\xac\xe2\x82\xac");
  span.SetAttribute("array", std::vector<std::string>{"0123456789", "b", "c"});
  const SpanData data = EndAndTake(span);
  EXPECT_EQ(std::get<std::string>(*Find(data.attributes, "ascii")), "01234567");
  EXPECT_EQ(std::get<std::string>(*Find(data.attributes, "utf8")), "\xe2\x82\xac\xe2\x82\xac");
  EXPECT_EQ(std::get<std::vector<std::string>>(*Find(data.attributes, "array")),
            (std::vector<std::string>{"01234567", "b"}));
}

TEST_F(SpanTest, InvalidUtf8_IsReplacedSoTheSpanStaysEncodable) {
  Span span = tracer_.StartSpan("run\xff");
  span.SetAttribute("k", "a\xc3");
  const SpanData data = EndAndTake(span);
  EXPECT_EQ(data.name, "run\xef\xbf\xbd");
  EXPECT_EQ(std::get<std::string>(*Find(data.attributes, "k")), "a\xef\xbf\xbd");
}

TEST_F(SpanTest, EventsPastTheLimit_AreDroppedAndCounted) {
  Span span = tracer_.StartSpan("run");
  span.AddEvent("queued", {{"agent", std::string("shell")}, {"extra", int64_t{1}}},
                absl::FromUnixNanos(1'500));
  span.AddEvent("dispatched");
  span.AddEvent("running");
  const SpanData data = EndAndTake(span);
  ASSERT_EQ(data.events.size(), 2u);
  EXPECT_EQ(data.dropped_events, 1u);
  EXPECT_EQ(data.events[0].name, "queued");
  EXPECT_EQ(data.events[0].time_unix_nanos, 1'500);
  EXPECT_EQ(data.events[0].attributes.items.size(), 1u);
  EXPECT_EQ(data.events[0].attributes.dropped, 1u);
}

TEST_F(SpanTest, Status_ErrorKeepsItsMessage) {
  Span span = tracer_.StartSpan("run");
  span.SetStatus(SpanStatusCode::kError, "boom");
  const SpanData data = EndAndTake(span);
  EXPECT_EQ(data.status, SpanStatusCode::kError);
  EXPECT_EQ(data.status_message, "boom");
}

TEST_F(SpanTest, Status_OkIsFinalAndUnsetIsIgnored) {
  Span span = tracer_.StartSpan("run");
  span.SetStatus(SpanStatusCode::kOk, "ignored text");
  span.SetStatus(SpanStatusCode::kError, "too late");
  span.SetStatus(SpanStatusCode::kUnset);
  const SpanData data = EndAndTake(span);
  EXPECT_EQ(data.status, SpanStatusCode::kOk);
  EXPECT_EQ(data.status_message, "");
}

TEST_F(SpanTest, DefaultSpan_IsInertAndInvalid) {
  Span span;
  span.SetAttribute("k", 1);
  span.AddEvent("e");
  span.SetStatus(SpanStatusCode::kError, "x");
  span.End();
  EXPECT_FALSE(span.recording());
  EXPECT_FALSE(span.context().IsValid());
  EXPECT_TRUE(sink_.spans.empty());
}

// The span-wide byte budget (SpanLimits::max_span_bytes).

size_t BytesHeld(const SpanData& data) {
  size_t bytes = 0;
  for (const Attribute& attribute : data.attributes.items) bytes += AttributeBytes(attribute);
  for (const SpanEvent& event : data.events) {
    bytes += sizeof(SpanEvent) + event.name.size();
    for (const Attribute& attribute : event.attributes.items) bytes += AttributeBytes(attribute);
  }
  return bytes;
}

TEST(SpanByteBudget, AttributesPastTheBudget_AreDroppedAndCounted) {
  const std::string value(100, 'x');
  const size_t each = AttributeBytes({"k10", value});
  RecordingSink sink;
  Tracer tracer(Sampler(), &sink, {.max_attributes = 1000, .max_span_bytes = 10 * each});
  Span span = tracer.StartSpan("run");
  for (int i = 10; i < 30; ++i) span.SetAttribute(absl::StrCat("k", i), value);
  span.End();
  ASSERT_EQ(sink.spans.size(), 1u);
  EXPECT_EQ(sink.spans[0].attributes.items.size(), 10u);
  EXPECT_EQ(sink.spans[0].attributes.dropped, 10u);
}

TEST(SpanByteBudget, ReplacingAValue_ChargesOnlyTheDifference) {
  const size_t each = AttributeBytes({"a", std::string(50, 'x')});
  RecordingSink sink;
  Tracer tracer(Sampler(), &sink, {.max_span_bytes = 2 * each});
  Span span = tracer.StartSpan("run");
  span.SetAttribute("a", std::string(50, 'x')).SetAttribute("b", std::string(50, 'y'));
  for (int i = 0; i < 100; ++i) span.SetAttribute("a", std::string(50, 'z'));
  // Too big for what is left even with the old value given back: the old
  // value stays.
  span.SetAttribute("a", std::string(51, 'w'));
  span.End();
  ASSERT_EQ(sink.spans.size(), 1u);
  const AttributeList& attributes = sink.spans[0].attributes;
  EXPECT_EQ(attributes.items.size(), 2u);
  EXPECT_EQ(std::get<std::string>(*Find(attributes, "a")), std::string(50, 'z'));
  EXPECT_EQ(attributes.dropped, 1u);
}

TEST(SpanByteBudget, HostileSpanAtDefaultLimits_HoldsAtMostTheBudget) {
  RecordingSink sink;
  Tracer tracer(Sampler(), &sink);
  const SpanLimits& limits = tracer.limits();
  const std::vector<std::string> huge(limits.max_array_items + 10,
                                      std::string(limits.max_value_bytes + 10, 'x'));
  Span span = tracer.StartSpan("run");
  for (size_t i = 0; i < limits.max_attributes + 10; ++i) span.SetAttribute(absl::StrCat(i), huge);
  for (size_t i = 0; i < limits.max_events + 10; ++i) {
    std::vector<Attribute> attributes;
    for (size_t j = 0; j < limits.max_event_attributes + 10; ++j) {
      attributes.push_back({absl::StrCat(j), std::string(limits.max_value_bytes + 10, 'y')});
    }
    span.AddEvent(std::string(limits.max_value_bytes, 'e'), std::move(attributes));
  }
  span.End();
  ASSERT_EQ(sink.spans.size(), 1u);
  const SpanData& data = sink.spans[0];
  EXPECT_LE(BytesHeld(data), limits.max_span_bytes);
  EXPECT_GT(data.attributes.dropped, 0u);
  EXPECT_GT(data.dropped_events, 0u);
}

TEST(SpanByteBudget, EventPastTheBudget_IsDroppedAndCounted) {
  RecordingSink sink;
  Tracer tracer(Sampler(), &sink, {.max_span_bytes = sizeof(SpanEvent) + 10});
  Span span = tracer.StartSpan("run");
  span.AddEvent("0123456789");
  span.AddEvent("x");
  span.End();
  ASSERT_EQ(sink.spans.size(), 1u);
  EXPECT_EQ(sink.spans[0].events.size(), 1u);
  EXPECT_EQ(sink.spans[0].dropped_events, 1u);
}

TEST(StartSpanWithContext, SampledContext_RecordsWithThoseIdsAndParent) {
  RecordingSink sink;
  Tracer tracer(Sampler({.parent_based = true, .ratio = 0.0}), &sink);
  SpanContext fixed{.trace_id = NewTraceId(), .span_id = NewSpanId(), .trace_flags = kSampledFlag};
  const SpanId parent = NewSpanId();
  Span span = tracer.StartSpanWithContext("run", fixed, parent, /*parent_remote=*/true,
                                          SpanKind::kServer, absl::FromUnixNanos(5));
  span.End(absl::FromUnixNanos(9));
  ASSERT_EQ(sink.spans.size(), 1u);
  EXPECT_EQ(sink.spans[0].context.trace_id, fixed.trace_id);
  EXPECT_EQ(sink.spans[0].context.span_id, fixed.span_id);
  EXPECT_EQ(sink.spans[0].parent_span_id, parent);
  EXPECT_TRUE(sink.spans[0].parent_remote);
  EXPECT_EQ(sink.spans[0].start_unix_nanos, 5);
}

TEST(StartSpanWithContext, UnsampledContextOrTracingOff_RecordsNothingButKeepsTheContext) {
  RecordingSink sink;
  Tracer on(Sampler(), &sink);
  Tracer off(Sampler(), nullptr);
  SpanContext unsampled{.trace_id = NewTraceId(), .span_id = NewSpanId()};
  Span a = on.StartSpanWithContext("run", unsampled, SpanId{}, false);
  SpanContext sampled = unsampled;
  sampled.trace_flags = kSampledFlag;
  Span b = off.StartSpanWithContext("run", sampled, SpanId{}, false);
  EXPECT_FALSE(a.recording());
  EXPECT_FALSE(b.recording());
  EXPECT_EQ(b.context().span_id, sampled.span_id);
  a.End();
  b.End();
  EXPECT_TRUE(sink.spans.empty());
}

}  // namespace
}  // namespace taskboard::otel
