// BatchSpanProcessor with a fake transport: batching by size and by delay,
// the bounded queue under 100x its capacity (drops counted, callers never
// wait, measured), accounting of every span, flush, and shutdown's
// deadline.

#include "common/otel/batch_span_processor.h"

#include <algorithm>
#include <fstream>
#include <iostream>
#include <memory>
#include <string>
#include <thread>

#include "absl/time/clock.h"
#include "gtest/gtest.h"
#include "tests/testing/status_matchers.h"
#include "tests/unit/otel/fake_otlp_transport.h"

namespace taskboard::otel {
namespace {

using ::taskboard::otel::testing::FakeOtlpTransport;
using ::taskboard::testing::StatusIs;

SpanData ASpan() {
  SpanData span;
  span.context.trace_id = NewTraceId();
  span.context.span_id = NewSpanId();
  span.context.trace_flags = kSampledFlag;
  span.name = "task";
  span.attributes.items = {{"taskboard.task", std::string("build")}};
  return span;
}

class CountingCounters : public ExportCounters {
 public:
  void SpansExported(int64_t count) override { exported += count; }
  void SpansDropped(DropReason reason, int64_t count) override {
    dropped[static_cast<int>(reason)] += count;
  }
  void ExportAttempt(AttemptOutcome outcome) override { ++attempts[static_cast<int>(outcome)]; }
  std::atomic<int64_t> exported{0};
  std::atomic<int64_t> dropped[4] = {};
  std::atomic<int64_t> attempts[4] = {};
};

class BatchSpanProcessorTest : public ::testing::Test {
 protected:
  std::unique_ptr<BatchSpanProcessor> Make(BatchOptions batch, RetryPolicy retry = {}) {
    auto transport = std::make_unique<FakeOtlpTransport>(script_);
    transport_ = transport.get();
    auto exporter = std::make_unique<OtlpHttpExporter>(
        OtlpExporterOptions{.url = "http://collector.invalid/v1/traces", .retry = retry},
        std::move(transport), &counters_);
    absl::StatusOr<std::unique_ptr<BatchSpanProcessor>> processor =
        BatchSpanProcessor::Create(batch, std::move(exporter), &counters_);
    EXPECT_TRUE(processor.ok()) << processor.status();
    return processor.ok() ? *std::move(processor) : nullptr;
  }

  std::deque<absl::StatusOr<OtlpHttpResponse>> script_;
  FakeOtlpTransport* transport_ = nullptr;
  CountingCounters counters_;
};

TEST_F(BatchSpanProcessorTest, Create_RejectsUnusableOptions) {
  auto exporter = [] {
    return std::make_unique<OtlpHttpExporter>(OtlpExporterOptions{},
                                              std::make_unique<FakeOtlpTransport>(), nullptr);
  };
  EXPECT_THAT(BatchSpanProcessor::Create({.queue_capacity = 0}, exporter(), nullptr),
              StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(
      BatchSpanProcessor::Create({.queue_capacity = 10, .max_batch = 11}, exporter(), nullptr),
      StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(
      BatchSpanProcessor::Create({.schedule_delay = absl::ZeroDuration()}, exporter(), nullptr),
      StatusIs(absl::StatusCode::kInvalidArgument));
}

TEST_F(BatchSpanProcessorTest, FullBatch_IsExportedWithoutWaitingForTheDelay) {
  auto processor = Make({.queue_capacity = 100, .max_batch = 10, .schedule_delay = absl::Hours(1)});
  for (int i = 0; i < 10; ++i) processor->OnEnd(ASpan());
  ASSERT_TRUE(transport_->WaitForPosts(1, absl::Seconds(10)));
  processor->Shutdown(absl::Seconds(10));
  EXPECT_EQ(transport_->posted_spans(), 10);
  EXPECT_EQ(processor->stats().exported, 10);
}

TEST_F(BatchSpanProcessorTest, PartialBatch_IsExportedAfterTheScheduleDelay) {
  auto processor =
      Make({.queue_capacity = 100, .max_batch = 50, .schedule_delay = absl::Milliseconds(50)});
  processor->OnEnd(ASpan());
  ASSERT_TRUE(transport_->WaitForPosts(1, absl::Seconds(10)));
  processor->Shutdown(absl::Seconds(10));
  EXPECT_EQ(processor->stats().exported, 1);
}

TEST_F(BatchSpanProcessorTest, ManySpans_GoInBatchesOfAtMostMaxBatch) {
  auto processor =
      Make({.queue_capacity = 1000, .max_batch = 64, .schedule_delay = absl::Hours(1)});
  for (int i = 0; i < 640; ++i) processor->OnEnd(ASpan());
  ASSERT_TRUE(processor->Flush(absl::Seconds(10)));
  EXPECT_EQ(processor->stats().exported, 640);
  EXPECT_GE(transport_->posts(), 10);
  EXPECT_EQ(counters_.exported.load(), 640);
}

TEST_F(BatchSpanProcessorTest, HundredTimesCapacity_DropsAndCountsWithoutBlockingCallers) {
  constexpr int kCapacity = 64;
  constexpr int kSpans = 100 * kCapacity;
  auto processor =
      Make({.queue_capacity = kCapacity, .max_batch = 16, .schedule_delay = absl::Hours(1)});
  transport_->Hold(true);  // a collector that does not answer
  absl::Duration slowest;
  const absl::Time start = absl::Now();
  for (int i = 0; i < kSpans; ++i) {
    SpanData span = ASpan();
    const absl::Time before = absl::Now();
    processor->OnEnd(std::move(span));
    slowest = std::max(slowest, absl::Now() - before);
  }
  const absl::Duration total = absl::Now() - start;
  const ExportStats stats = processor->stats();
  // The queue held its capacity, plus at most one batch taken by the stuck export.
  EXPECT_GE(stats.accepted, kCapacity);
  EXPECT_LE(stats.accepted, kCapacity + 16);
  EXPECT_EQ(stats.accepted + stats.dropped_queue_full, kSpans);
  EXPECT_EQ(counters_.dropped[static_cast<int>(DropReason::kQueueFull)].load(),
            stats.dropped_queue_full);
  // Never waiting on the export: each call is a push under a mutex. The
  // bounds are loose for a loaded 2-core machine; typical figures are a
  // microsecond per call (docs/observability.md).
  EXPECT_LT(slowest, absl::Milliseconds(50)) << "slowest OnEnd";
  EXPECT_LT(total, absl::Seconds(2)) << kSpans << " OnEnd calls";
  std::cout << "OnEnd x" << kSpans << " against a stuck export: total " << total << ", slowest "
            << slowest << "\n";

  transport_->Hold(false);
  processor->Shutdown(absl::Seconds(10));
  const ExportStats after = processor->stats();
  EXPECT_EQ(after.exported, after.accepted);
  EXPECT_EQ(after.exported + after.dropped(), kSpans);
}

TEST_F(BatchSpanProcessorTest, RefusedBatch_IsDroppedAsExportFailed) {
  script_ = {OtlpHttpResponse{.status = 400, .body = "bad"}};
  auto processor = Make({.queue_capacity = 10, .max_batch = 5, .schedule_delay = absl::Hours(1)});
  for (int i = 0; i < 5; ++i) processor->OnEnd(ASpan());
  ASSERT_TRUE(processor->Flush(absl::Seconds(10)));
  EXPECT_EQ(processor->stats().dropped_export_failed, 5);
  EXPECT_EQ(processor->stats().exported, 0);
  EXPECT_EQ(counters_.attempts[static_cast<int>(AttemptOutcome::kRefused)].load(), 1);
}

TEST_F(BatchSpanProcessorTest, Flush_ExportsWhatWasQueuedBeforeIt) {
  auto processor =
      Make({.queue_capacity = 100, .max_batch = 100, .schedule_delay = absl::Hours(1)});
  for (int i = 0; i < 7; ++i) processor->OnEnd(ASpan());
  EXPECT_TRUE(processor->Flush(absl::Seconds(10)));
  EXPECT_EQ(processor->stats().exported, 7);
  EXPECT_EQ(processor->stats().queued, 0);
}

TEST_F(BatchSpanProcessorTest, Flush_ReturnsFalseAtItsTimeoutWhenTheCollectorHangs) {
  auto processor = Make({.queue_capacity = 100, .max_batch = 10, .schedule_delay = absl::Hours(1)});
  transport_->Hold(true);
  processor->OnEnd(ASpan());
  const absl::Time start = absl::Now();
  EXPECT_FALSE(processor->Flush(absl::Milliseconds(100)));
  EXPECT_LT(absl::Now() - start, absl::Seconds(5));
  processor->Shutdown(absl::ZeroDuration());
}

TEST_F(BatchSpanProcessorTest, Shutdown_ExportsWhatIsQueued) {
  auto processor = Make({.queue_capacity = 100, .max_batch = 50, .schedule_delay = absl::Hours(1)});
  for (int i = 0; i < 30; ++i) processor->OnEnd(ASpan());
  processor->Shutdown(absl::Seconds(10));
  EXPECT_EQ(processor->stats().exported, 30);
}

TEST_F(BatchSpanProcessorTest, Shutdown_AtItsDeadlineCancelsTheExportAndDropsTheRest) {
  auto processor = Make({.queue_capacity = 100, .max_batch = 10, .schedule_delay = absl::Hours(1)});
  transport_->Hold(true);
  for (int i = 0; i < 35; ++i) processor->OnEnd(ASpan());
  ASSERT_TRUE(transport_->WaitForPosts(1, absl::Seconds(10)));
  const absl::Time start = absl::Now();
  processor->Shutdown(absl::Milliseconds(100));
  const absl::Duration took = absl::Now() - start;
  EXPECT_GE(took, absl::Milliseconds(100));
  EXPECT_LT(took, absl::Seconds(5));
  const ExportStats stats = processor->stats();
  EXPECT_EQ(stats.exported, 0);
  EXPECT_EQ(stats.dropped_shutdown, 35);
  EXPECT_EQ(counters_.dropped[static_cast<int>(DropReason::kShutdown)].load(), 35);
}

TEST_F(BatchSpanProcessorTest, SpansAfterShutdown_AreDroppedAsShutdown) {
  auto processor = Make({});
  processor->Shutdown(absl::Seconds(1));
  processor->OnEnd(ASpan());
  EXPECT_EQ(processor->stats().dropped_shutdown, 1);
  EXPECT_EQ(processor->stats().accepted, 0);
}

TEST_F(BatchSpanProcessorTest, ConcurrentCallers_EverySpanIsCountedOnce) {
  auto processor =
      Make({.queue_capacity = 256, .max_batch = 32, .schedule_delay = absl::Milliseconds(5)});
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&processor] {
      for (int i = 0; i < 2'000; ++i) processor->OnEnd(ASpan());
    });
  }
  for (std::thread& thread : threads) thread.join();
  processor->Shutdown(absl::Seconds(10));
  const ExportStats stats = processor->stats();
  EXPECT_EQ(stats.exported + stats.dropped(), 8'000);
  EXPECT_EQ(stats.exported, transport_->posted_spans());
  EXPECT_EQ(stats.accepted, stats.exported);
}

// The process's thread count (Linux: /proc/self/status).
int ThreadCount() {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);) {
    if (line.rfind("Threads:", 0) == 0) return std::stoi(line.substr(8));
  }
  return -1;
}

TEST_F(BatchSpanProcessorTest, ShutdownAndDestruction_LeaveNoThreadBehind) {
  const int before = ThreadCount();
  ASSERT_GT(before, 0);
  {
    auto shut = Make({.schedule_delay = absl::Hours(1)});
    auto destroyed = Make({.schedule_delay = absl::Hours(1)});
    EXPECT_EQ(ThreadCount(), before + 2);
    for (int i = 0; i < 10; ++i) shut->OnEnd(ASpan());
    for (int i = 0; i < 10; ++i) destroyed->OnEnd(ASpan());
    shut->Shutdown(absl::Seconds(10));
    EXPECT_EQ(ThreadCount(), before + 1);
    EXPECT_EQ(shut->stats().exported, 10);
    // `destroyed` goes without a Shutdown: its destructor joins the thread.
  }
  EXPECT_EQ(ThreadCount(), before);
}

}  // namespace
}  // namespace taskboard::otel
