// The OTLP encoding: bytes written by EncodeExportRequest decode, with the
// generated classes, into the spans, resource and scope that went in.

#include "common/otel/otlp_encoding.h"

#include <string>
#include <vector>

#include "common/otel/traceparent.h"
#include "gtest/gtest.h"

namespace taskboard::otel {
namespace {

namespace collector_pb = ::opentelemetry::proto::collector::trace::v1;
namespace trace_pb = ::opentelemetry::proto::trace::v1;

SpanData ChildSpan() {
  SpanData span;
  span.context.trace_id = *TraceIdFromHex("4bf92f3577b34da6a3ce929d0e0e4736");
  span.context.span_id = *SpanIdFromHex("a1b2c3d4e5f60718");
  span.context.trace_flags = kSampledFlag;
  span.context.trace_state = "vendor=1";
  span.parent_span_id = *SpanIdFromHex("00f067aa0ba902b7");
  span.parent_remote = true;
  span.name = "task attempt";
  span.kind = SpanKind::kConsumer;
  span.start_unix_nanos = 1'700'000'000'000'000'001;
  span.end_unix_nanos = 1'700'000'000'500'000'002;
  span.attributes.items = {{"taskboard.task", std::string("build")},
                           {"taskboard.attempt", int64_t{2}},
                           {"gen_ai.usage.cost", 0.25},
                           {"taskboard.cached", true},
                           {"gen_ai.response.finish_reasons", std::vector<std::string>{"stop"}}};
  span.attributes.dropped = 3;
  SpanEvent event;
  event.time_unix_nanos = 1'700'000'000'100'000'000;
  event.name = "dispatched";
  event.attributes.items = {{"worker", std::string("w1")}};
  event.attributes.dropped = 1;
  span.events.push_back(event);
  span.dropped_events = 4;
  span.status = SpanStatusCode::kError;
  span.status_message = "agent exited 1";
  return span;
}

collector_pb::ExportTraceServiceRequest RoundTrip(const Resource& resource,
                                                  std::vector<SpanData> spans) {
  const std::string bytes = EncodeExportRequest(resource, {"taskboard", "0.1.0"}, spans);
  collector_pb::ExportTraceServiceRequest decoded;
  EXPECT_TRUE(decoded.ParseFromString(bytes));
  return decoded;
}

TEST(OtlpEncoding, Span_RoundTripsEveryField) {
  const auto request = RoundTrip({}, {ChildSpan()});
  ASSERT_EQ(request.resource_spans_size(), 1);
  ASSERT_EQ(request.resource_spans(0).scope_spans_size(), 1);
  const auto& scope = request.resource_spans(0).scope_spans(0);
  EXPECT_EQ(scope.scope().name(), "taskboard");
  EXPECT_EQ(scope.scope().version(), "0.1.0");
  ASSERT_EQ(scope.spans_size(), 1);
  const trace_pb::Span& span = scope.spans(0);
  const SpanData want = ChildSpan();
  EXPECT_EQ(span.trace_id(), std::string(want.context.trace_id.Bytes()));
  EXPECT_EQ(span.trace_id().size(), 16u);
  EXPECT_EQ(span.span_id(), std::string(want.context.span_id.Bytes()));
  EXPECT_EQ(span.parent_span_id(), std::string(want.parent_span_id.Bytes()));
  EXPECT_EQ(span.trace_state(), "vendor=1");
  // Sampled, and the parent known to be remote.
  EXPECT_EQ(span.flags(), 0x01u | 0x100u | 0x200u);
  EXPECT_EQ(span.name(), "task attempt");
  EXPECT_EQ(span.kind(), trace_pb::Span::SPAN_KIND_CONSUMER);
  EXPECT_EQ(span.start_time_unix_nano(), 1'700'000'000'000'000'001u);
  EXPECT_EQ(span.end_time_unix_nano(), 1'700'000'000'500'000'002u);
  ASSERT_EQ(span.attributes_size(), 5);
  EXPECT_EQ(span.attributes(0).key(), "taskboard.task");
  EXPECT_EQ(span.attributes(0).value().string_value(), "build");
  EXPECT_EQ(span.attributes(1).value().int_value(), 2);
  EXPECT_EQ(span.attributes(2).value().double_value(), 0.25);
  EXPECT_TRUE(span.attributes(3).value().has_bool_value());
  EXPECT_TRUE(span.attributes(3).value().bool_value());
  ASSERT_EQ(span.attributes(4).value().array_value().values_size(), 1);
  EXPECT_EQ(span.attributes(4).value().array_value().values(0).string_value(), "stop");
  EXPECT_EQ(span.dropped_attributes_count(), 3u);
  ASSERT_EQ(span.events_size(), 1);
  EXPECT_EQ(span.events(0).name(), "dispatched");
  EXPECT_EQ(span.events(0).time_unix_nano(), 1'700'000'000'100'000'000u);
  EXPECT_EQ(span.events(0).attributes(0).value().string_value(), "w1");
  EXPECT_EQ(span.events(0).dropped_attributes_count(), 1u);
  EXPECT_EQ(span.dropped_events_count(), 4u);
  EXPECT_EQ(span.status().code(), trace_pb::Status::STATUS_CODE_ERROR);
  EXPECT_EQ(span.status().message(), "agent exited 1");
}

TEST(OtlpEncoding, RootSpan_HasNoParentAndALocalFlag) {
  SpanData root = ChildSpan();
  root.parent_span_id = SpanId{};
  root.parent_remote = false;
  root.status = SpanStatusCode::kUnset;
  const auto request = RoundTrip({}, {root});
  const trace_pb::Span& span = request.resource_spans(0).scope_spans(0).spans(0);
  EXPECT_TRUE(span.parent_span_id().empty());
  EXPECT_EQ(span.flags(), 0x01u | 0x100u);
  EXPECT_FALSE(span.has_status());
}

TEST(OtlpEncoding, Resource_CarriesServiceNameAndAttributes) {
  const Resource resource{{{"service.name", std::string("taskboard-scheduler")},
                           {"deployment.environment", std::string("test")}}};
  const auto request = RoundTrip(resource, {ChildSpan(), ChildSpan()});
  const auto& attributes = request.resource_spans(0).resource().attributes();
  ASSERT_EQ(attributes.size(), 2);
  EXPECT_EQ(attributes[0].key(), "service.name");
  EXPECT_EQ(attributes[0].value().string_value(), "taskboard-scheduler");
  EXPECT_EQ(request.resource_spans(0).scope_spans(0).spans_size(), 2);
}

TEST(OtlpEncoding, FieldNumbers_AreOtlps) {
  // A few wire-level spot checks on top of the decoding above: field
  // numbers that OTLP fixed and that a swapped declaration would change.
  const auto* span = trace_pb::Span::descriptor();
  EXPECT_EQ(span->FindFieldByName("flags")->number(), 16);
  EXPECT_EQ(span->FindFieldByName("status")->number(), 15);
  EXPECT_EQ(span->FindFieldByName("start_time_unix_nano")->type(),
            google::protobuf::FieldDescriptor::TYPE_FIXED64);
  EXPECT_EQ(trace_pb::Status::descriptor()->FindFieldByName("code")->number(), 3);
  EXPECT_EQ(collector_pb::ExportTraceServiceRequest::descriptor()->full_name(),
            "opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest");
}

}  // namespace
}  // namespace taskboard::otel
