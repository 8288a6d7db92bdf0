#ifndef TASKBOARD_COMMON_OTEL_BATCH_SPAN_PROCESSOR_H_
#define TASKBOARD_COMMON_OTEL_BATCH_SPAN_PROCESSOR_H_

// Between the threads that end spans and the collector: ended spans go into
// a queue of fixed capacity (span_queue.h) and one export thread of its own
// sends them in batches (otlp_http_exporter.h), when a batch is full or the
// schedule delay has passed since the last export. A caller never waits for
// the network: OnEnd takes a mutex for a push and returns, and when the
// collector is slow or down the queue fills and further spans are dropped
// and counted. Every accepted span is eventually exported or dropped, and
// counted either way (export_counters.h).
//
//   OnEnd ──push──▶ [ queue: capacity ] ──batch──▶ export thread ──POST──▶ collector
//     │ full                                          │ refused / retries spent
//     ▼                                               ▼
//   dropped{queue_full}                     dropped{export_failed, rejected}
//
// Shutdown stops taking spans, exports what is queued until its deadline,
// then cancels the export in flight and drops the rest (shutdown).
//
// Thread-safe: OnEnd, Flush and stats from any thread.

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "absl/time/time.h"
#include "common/otel/export_counters.h"
#include "common/otel/otlp_http_exporter.h"
#include "common/otel/span_data.h"
#include "common/otel/span_queue.h"
#include "common/otel/span_sink.h"

namespace taskboard::otel {

// OTel's batch span processor settings (OTEL_BSP_*), with its defaults.
struct BatchOptions {
  // OTEL_BSP_MAX_QUEUE_SIZE.
  size_t queue_capacity = 2048;
  // OTEL_BSP_MAX_EXPORT_BATCH_SIZE; at most queue_capacity.
  size_t max_batch = 512;
  // OTEL_BSP_SCHEDULE_DELAY: the longest a span waits for a batch to fill.
  absl::Duration schedule_delay = absl::Seconds(5);
};

// The processor's counts so far. accepted = exported + every dropped but
// queue_full + what is queued or in flight.
struct ExportStats {
  int64_t accepted = 0;
  int64_t exported = 0;
  int64_t dropped_queue_full = 0;
  int64_t dropped_export_failed = 0;
  int64_t dropped_rejected = 0;
  int64_t dropped_shutdown = 0;
  int64_t queued = 0;

  int64_t dropped() const {
    return dropped_queue_full + dropped_export_failed + dropped_rejected + dropped_shutdown;
  }
};

class BatchSpanProcessor : public SpanSink {
 public:
  // Starts the export thread. `counters` may be null; it outlives this.
  // INVALID_ARGUMENT: a zero capacity or batch size, a batch larger than the
  // queue, a schedule delay that is not positive.
  static absl::StatusOr<std::unique_ptr<BatchSpanProcessor>> Create(
      BatchOptions options, std::unique_ptr<OtlpHttpExporter> exporter, ExportCounters* counters);
  // Shutdown(0) unless it ran: what is still queued is dropped.
  ~BatchSpanProcessor() override;

  // Queues `span`, or drops and counts it when the queue is full or
  // Shutdown has begun. Never waits for the export.
  void OnEnd(SpanData span) override;

  // Exports every span accepted before the call; true when all of them
  // were exported or dropped within `timeout`.
  bool Flush(absl::Duration timeout);

  // Stops taking spans and exports what is queued for up to `timeout`; then
  // the export in flight is cancelled, the rest dropped, the thread joined.
  // Later calls do nothing.
  void Shutdown(absl::Duration timeout);

  ExportStats stats() const;

 private:
  BatchSpanProcessor(BatchOptions options, std::unique_ptr<OtlpHttpExporter> exporter,
                     ExportCounters* counters);

  void Run();
  void Export(std::vector<SpanData>& batch);
  void CountDropped(DropReason reason, int64_t count);

  const BatchOptions options_;
  const std::unique_ptr<OtlpHttpExporter> exporter_;
  ExportCounters* const counters_;

  mutable absl::Mutex mu_;
  // Wakes the export thread: a full batch, a flush, shutdown.
  absl::CondVar wake_;
  SpanQueue queue_ ABSL_GUARDED_BY(mu_);
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  // Accepted spans so far, and of those how many were exported or dropped.
  int64_t accepted_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t done_ ABSL_GUARDED_BY(mu_) = 0;
  // Export without waiting for a full batch until done_ reaches this.
  int64_t flush_target_ ABSL_GUARDED_BY(mu_) = 0;

  std::atomic<int64_t> exported_{0};
  std::atomic<int64_t> dropped_[4] = {};

  // Notified when shutdown's deadline passes: aborts the export in flight.
  absl::Notification cancel_;
  absl::Notification thread_done_;
  std::once_flag shutdown_once_;
  std::thread thread_;
};

}  // namespace taskboard::otel

#endif  // TASKBOARD_COMMON_OTEL_BATCH_SPAN_PROCESSOR_H_
