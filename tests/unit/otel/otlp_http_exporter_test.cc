// The OTLP/HTTP exporter over libcurl against real local endpoints: a
// cpp-httplib receiver that decodes what arrives, one that refuses
// connections and one that accepts and never answers. Retries, Retry-After,
// partial success, the retry bound, and, through the batch processor, that
// callers never wait on a dead or stalled collector.

#include "common/otel/otlp_http_exporter.h"

#include <algorithm>
#include <iostream>
#include <memory>
#include <thread>
#include <vector>

#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "common/otel/batch_span_processor.h"
#include "common/otel/tracing.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/unit/otel/dead_endpoints.h"
#include "tests/unit/otel/otlp_receiver.h"

namespace taskboard::otel {
namespace {

using ::taskboard::otel::testing::ExportTraceServiceResponse;
using ::taskboard::otel::testing::OtlpReceiver;
using ::taskboard::otel::testing::ReceiverReply;
using ::taskboard::otel::testing::RefusingPort;
using ::taskboard::otel::testing::StalledPort;
using ::testing::HasSubstr;

std::vector<SpanData> Spans(int count) {
  std::vector<SpanData> spans;
  for (int i = 0; i < count; ++i) {
    SpanData span;
    span.context.trace_id = NewTraceId();
    span.context.span_id = NewSpanId();
    span.context.trace_flags = kSampledFlag;
    span.name = "span " + std::to_string(i);
    spans.push_back(std::move(span));
  }
  return spans;
}

// Fast retries, so failure tests take milliseconds.
RetryPolicy QuickRetries(int attempts = 3) {
  return {.max_attempts = attempts,
          .initial_backoff = absl::Milliseconds(10),
          .max_backoff = absl::Milliseconds(20),
          .max_elapsed = absl::Seconds(10)};
}

OtlpHttpExporter Exporter(const std::string& url, RetryPolicy retry = QuickRetries(),
                          absl::Duration timeout = absl::Seconds(5)) {
  return OtlpHttpExporter({.url = url,
                           .headers = {{"Authorization", "Bearer token-1"}},
                           .timeout = timeout,
                           .retry = retry,
                           .resource = {{{"service.name", std::string("taskboard-test")}}}},
                          nullptr, nullptr);
}

TEST(OtlpHttpExporter, Export_PostsProtobufWithHeadersToTheTracesUrl) {
  OtlpReceiver receiver;
  OtlpHttpExporter exporter = Exporter(receiver.traces_url());
  absl::Notification cancel;
  const ExportResult result = exporter.Export(Spans(3), cancel);
  EXPECT_EQ(result.exported, 3);
  EXPECT_EQ(result.attempts, 1);
  const auto requests = receiver.requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_TRUE(requests[0].decoded);
  EXPECT_EQ(requests[0].headers.at("Content-Type"), "application/x-protobuf");
  EXPECT_EQ(requests[0].headers.at("Authorization"), "Bearer token-1");
  const auto& resource_spans = requests[0].request.resource_spans(0);
  EXPECT_EQ(resource_spans.resource().attributes(0).value().string_value(), "taskboard-test");
  ASSERT_EQ(resource_spans.scope_spans(0).spans_size(), 3);
  EXPECT_EQ(resource_spans.scope_spans(0).spans(2).name(), "span 2");
}

TEST(OtlpHttpExporter, RetryableAnswers_AreRetriedUntilExported) {
  OtlpReceiver receiver(
      {{.status = 503}, {.status = 502}, {.status = 429}, {.status = 504}, {.status = 200}});
  OtlpHttpExporter exporter = Exporter(receiver.traces_url(), QuickRetries(5));
  absl::Notification cancel;
  const ExportResult result = exporter.Export(Spans(2), cancel);
  EXPECT_EQ(result.exported, 2);
  EXPECT_EQ(result.attempts, 5);
  EXPECT_EQ(receiver.requests_answered(), 5);
}

TEST(OtlpHttpExporter, OtherErrorAnswers_AreNotRetried) {
  OtlpReceiver receiver({{.status = 400, .body = "bad spans"}});
  OtlpHttpExporter exporter = Exporter(receiver.traces_url());
  absl::Notification cancel;
  const ExportResult result = exporter.Export(Spans(2), cancel);
  EXPECT_EQ(result.failed, 2);
  EXPECT_EQ(result.attempts, 1);
  EXPECT_THAT(result.last_error, HasSubstr("HTTP 400: bad spans"));
}

TEST(OtlpHttpExporter, RetriesSpent_FailTheBatch) {
  OtlpReceiver receiver({{.status = 503}, {.status = 503}, {.status = 503}, {.status = 200}});
  OtlpHttpExporter exporter = Exporter(receiver.traces_url(), QuickRetries(3));
  absl::Notification cancel;
  const ExportResult result = exporter.Export(Spans(4), cancel);
  EXPECT_EQ(result.failed, 4);
  EXPECT_EQ(result.attempts, 3);
  EXPECT_EQ(result.last_error, "HTTP 503");
}

TEST(OtlpHttpExporter, PartialSuccess_CountsTheRejectedSpans) {
  ExportTraceServiceResponse answer;
  answer.mutable_partial_success()->set_rejected_spans(2);
  answer.mutable_partial_success()->set_error_message("too old");
  OtlpReceiver receiver({{.status = 200, .body = answer.SerializeAsString()}});
  OtlpHttpExporter exporter = Exporter(receiver.traces_url());
  absl::Notification cancel;
  const ExportResult result = exporter.Export(Spans(5), cancel);
  EXPECT_EQ(result.exported, 3);
  EXPECT_EQ(result.rejected, 2);
}

TEST(OtlpHttpExporter, RetryAfter_IsWaitedBeforeTheNextAttempt) {
  OtlpReceiver receiver({{.status = 429, .retry_after = "1"}, {.status = 200}});
  OtlpHttpExporter exporter = Exporter(receiver.traces_url());
  absl::Notification cancel;
  const absl::Time start = absl::Now();
  const ExportResult result = exporter.Export(Spans(1), cancel);
  EXPECT_EQ(result.exported, 1);
  EXPECT_GE(absl::Now() - start, absl::Seconds(1));
}

TEST(OtlpHttpExporter, RetryAfterPastTheBound_GivesUpAtOnce) {
  OtlpReceiver receiver({{.status = 503, .retry_after = "60"}});
  RetryPolicy retry = QuickRetries(5);
  retry.max_elapsed = absl::Seconds(2);
  OtlpHttpExporter exporter = Exporter(receiver.traces_url(), retry);
  absl::Notification cancel;
  const absl::Time start = absl::Now();
  const ExportResult result = exporter.Export(Spans(1), cancel);
  EXPECT_EQ(result.failed, 1);
  EXPECT_EQ(result.attempts, 1);
  EXPECT_LT(absl::Now() - start, absl::Seconds(1));
}

TEST(OtlpHttpExporter, Cancel_EndsAWaitBetweenAttempts) {
  OtlpReceiver receiver({{.status = 503, .retry_after = "5"}});
  OtlpHttpExporter exporter = Exporter(receiver.traces_url());
  absl::Notification cancel;
  std::thread canceller([&cancel] {
    absl::SleepFor(absl::Milliseconds(200));
    cancel.Notify();
  });
  const absl::Time start = absl::Now();
  const ExportResult result = exporter.Export(Spans(2), cancel);
  canceller.join();
  EXPECT_EQ(result.cancelled, 2);
  EXPECT_LT(absl::Now() - start, absl::Seconds(2));
}

TEST(OtlpHttpExporter, DeadEndpoint_FailsAfterItsRetriesQuickly) {
  RefusingPort dead;
  OtlpHttpExporter exporter = Exporter(dead.traces_url(), QuickRetries(3));
  absl::Notification cancel;
  const absl::Time start = absl::Now();
  const ExportResult result = exporter.Export(Spans(3), cancel);
  EXPECT_EQ(result.failed, 3);
  EXPECT_EQ(result.attempts, 3);
  EXPECT_EQ(result.last_error, "connection refused");
  EXPECT_LT(absl::Now() - start, absl::Seconds(2));
}

TEST(OtlpHttpExporter, StalledEndpoint_IsBoundedByTheAttemptTimeout) {
  StalledPort stalled;
  OtlpHttpExporter exporter =
      Exporter(stalled.traces_url(), QuickRetries(2), absl::Milliseconds(200));
  absl::Notification cancel;
  const absl::Time start = absl::Now();
  const ExportResult result = exporter.Export(Spans(3), cancel);
  const absl::Duration took = absl::Now() - start;
  EXPECT_EQ(result.failed, 3);
  EXPECT_EQ(result.attempts, 2);
  EXPECT_THAT(result.last_error, HasSubstr("no complete answer within"));
  EXPECT_GE(took, absl::Milliseconds(400));
  EXPECT_LT(took, absl::Seconds(3));
}

TEST(OtlpHttpExporter, StalledEndpoint_CancelAbortsTheAttemptInFlight) {
  StalledPort stalled;
  OtlpHttpExporter exporter = Exporter(stalled.traces_url(), QuickRetries(2), absl::Seconds(30));
  absl::Notification cancel;
  std::thread canceller([&cancel] {
    absl::SleepFor(absl::Milliseconds(200));
    cancel.Notify();
  });
  const absl::Time start = absl::Now();
  const ExportResult result = exporter.Export(Spans(1), cancel);
  canceller.join();
  EXPECT_EQ(result.cancelled, 1);
  EXPECT_LT(absl::Now() - start, absl::Seconds(2));
}

// The processor in front of a collector that does not work: callers of
// OnEnd never wait, the queue drops and counts, and shutdown is bounded.
struct Flood {
  absl::Duration total;
  absl::Duration slowest;
};

Flood EndSpans(Tracing& tracing, int count) {
  Flood flood;
  const absl::Time start = absl::Now();
  for (int i = 0; i < count; ++i) {
    const absl::Time before = absl::Now();
    Span span = tracing.tracer().StartSpan("task");
    span.SetAttribute("taskboard.attempt", i);
    span.End();
    flood.slowest = std::max(flood.slowest, absl::Now() - before);
  }
  flood.total = absl::Now() - start;
  return flood;
}

TracingOptions FloodOptions(const std::string& url, absl::Duration attempt_timeout) {
  TracingOptions options;
  options.traces_url = url;
  options.export_timeout = attempt_timeout;
  options.retry = QuickRetries(2);
  options.batch = {.queue_capacity = 32, .max_batch = 8, .schedule_delay = absl::Milliseconds(10)};
  return options;
}

TEST(OtlpHttpExporter, DeadEndpoint_CallersNeverBlockAndEverySpanIsDroppedAndCounted) {
  RefusingPort dead;
  auto tracing = *Tracing::Create(FloodOptions(dead.traces_url(), absl::Seconds(5)));
  const Flood flood = EndSpans(*tracing, 3'200);
  std::cout << "3200 spans ended against a refusing endpoint: total " << flood.total << ", slowest "
            << flood.slowest << "\n";
  EXPECT_LT(flood.slowest, absl::Milliseconds(50));
  EXPECT_LT(flood.total, absl::Seconds(2));
  tracing->Shutdown(absl::Seconds(10));
  const ExportStats stats = tracing->stats();
  EXPECT_EQ(stats.exported, 0);
  EXPECT_GT(stats.dropped_queue_full, 0);
  EXPECT_GT(stats.dropped_export_failed, 0);
  EXPECT_EQ(stats.dropped(), 3'200);
}

TEST(OtlpHttpExporter, StalledEndpoint_CallersNeverBlockAndShutdownIsBounded) {
  StalledPort stalled;
  auto tracing = *Tracing::Create(FloodOptions(stalled.traces_url(), absl::Milliseconds(300)));
  const Flood flood = EndSpans(*tracing, 3'200);
  std::cout << "3200 spans ended against a stalled endpoint: total " << flood.total << ", slowest "
            << flood.slowest << "\n";
  EXPECT_LT(flood.slowest, absl::Milliseconds(50));
  EXPECT_LT(flood.total, absl::Seconds(2));
  const absl::Time start = absl::Now();
  tracing->Shutdown(absl::Milliseconds(200));
  EXPECT_LT(absl::Now() - start, absl::Seconds(2));
  const ExportStats stats = tracing->stats();
  EXPECT_EQ(stats.exported, 0);
  EXPECT_GE(stats.dropped_queue_full, 3'200 - 32 - 8);
  EXPECT_EQ(stats.dropped(), 3'200);
}

TEST(OtlpHttpExporter, LiveReceiver_GetsEverySpanThroughTheProcessor) {
  OtlpReceiver receiver;
  TracingOptions options = FloodOptions(receiver.traces_url(), absl::Seconds(5));
  options.batch = {.queue_capacity = 2048, .max_batch = 512};
  auto tracing = *Tracing::Create(options);
  EndSpans(*tracing, 1'000);
  ASSERT_TRUE(tracing->Flush(absl::Seconds(10)));
  EXPECT_TRUE(receiver.WaitForSpans(1'000, absl::Seconds(10)));
  EXPECT_EQ(tracing->stats().exported, 1'000);
}

// Orderly shutdown without a flush first: every span ended before it
// reaches the collector, through the schedule delay that has not passed.
TEST(OtlpHttpExporter, LiveReceiver_OrderlyShutdownLosesNoSpan) {
  OtlpReceiver receiver;
  TracingOptions options = FloodOptions(receiver.traces_url(), absl::Seconds(5));
  options.batch = {.queue_capacity = 4096, .max_batch = 512, .schedule_delay = absl::Hours(1)};
  auto tracing = *Tracing::Create(options);
  EndSpans(*tracing, 3'000);
  tracing->Shutdown(absl::Seconds(20));
  const ExportStats stats = tracing->stats();
  EXPECT_EQ(stats.exported, 3'000);
  EXPECT_EQ(stats.dropped(), 0);
  EXPECT_EQ(stats.queued, 0);
  EXPECT_EQ(receiver.span_count(), 3'000);
}

}  // namespace
}  // namespace taskboard::otel
