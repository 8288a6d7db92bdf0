#include "common/otel/batch_span_processor.h"

#include <utility>
#include <vector>

#include "absl/time/clock.h"

namespace taskboard::otel {

absl::StatusOr<std::unique_ptr<BatchSpanProcessor>> BatchSpanProcessor::Create(
    BatchOptions options, std::unique_ptr<OtlpHttpExporter> exporter, ExportCounters* counters) {
  if (options.queue_capacity == 0 || options.max_batch == 0) {
    return absl::InvalidArgumentError("the span queue and batch size must be at least 1");
  }
  if (options.max_batch > options.queue_capacity) {
    return absl::InvalidArgumentError("the span batch size must not exceed the queue's capacity");
  }
  if (options.schedule_delay <= absl::ZeroDuration()) {
    return absl::InvalidArgumentError("the span export schedule delay must be positive");
  }
  if (exporter == nullptr) return absl::InvalidArgumentError("no span exporter");
  return std::unique_ptr<BatchSpanProcessor>(
      new BatchSpanProcessor(options, std::move(exporter), counters));
}

BatchSpanProcessor::BatchSpanProcessor(BatchOptions options,
                                       std::unique_ptr<OtlpHttpExporter> exporter,
                                       ExportCounters* counters)
    : options_(options),
      exporter_(std::move(exporter)),
      counters_(counters),
      queue_(options.queue_capacity) {
  thread_ = std::thread([this] { Run(); });
}

BatchSpanProcessor::~BatchSpanProcessor() { Shutdown(absl::ZeroDuration()); }

void BatchSpanProcessor::OnEnd(SpanData span) {
  bool full_batch = false;
  DropReason refused = DropReason::kQueueFull;
  bool accepted = false;
  {
    absl::MutexLock lock(&mu_);
    if (stopping_) {
      refused = DropReason::kShutdown;
    } else if (queue_.Push(std::move(span))) {
      accepted = true;
      ++accepted_;
      full_batch = queue_.size() == options_.max_batch;
    }
  }
  if (!accepted) {
    CountDropped(refused, 1);
    return;
  }
  // Only when a batch fills: the export thread otherwise wakes on its own.
  if (full_batch) wake_.Signal();
}

bool BatchSpanProcessor::Flush(absl::Duration timeout) {
  absl::MutexLock lock(&mu_);
  const int64_t target = accepted_;
  if (flush_target_ < target) flush_target_ = target;
  wake_.Signal();
  struct Done {
    const BatchSpanProcessor* self;
    int64_t target;
    bool operator()() const ABSL_NO_THREAD_SAFETY_ANALYSIS { return self->done_ >= target; }
  } done{this, target};
  return mu_.AwaitWithTimeout(absl::Condition(&done), timeout);
}

void BatchSpanProcessor::Shutdown(absl::Duration timeout) {
  std::call_once(shutdown_once_, [this, timeout] {
    {
      absl::MutexLock lock(&mu_);
      stopping_ = true;
    }
    wake_.SignalAll();
    if (!thread_done_.WaitForNotificationWithTimeout(timeout)) cancel_.Notify();
    thread_.join();
  });
}

ExportStats BatchSpanProcessor::stats() const {
  ExportStats stats;
  stats.exported = exported_.load(std::memory_order_relaxed);
  stats.dropped_queue_full = dropped_[static_cast<int>(DropReason::kQueueFull)].load();
  stats.dropped_export_failed = dropped_[static_cast<int>(DropReason::kExportFailed)].load();
  stats.dropped_rejected = dropped_[static_cast<int>(DropReason::kRejected)].load();
  stats.dropped_shutdown = dropped_[static_cast<int>(DropReason::kShutdown)].load();
  absl::MutexLock lock(&mu_);
  stats.accepted = accepted_;
  stats.queued = static_cast<int64_t>(queue_.size());
  return stats;
}

void BatchSpanProcessor::Run() {
  std::vector<SpanData> batch;
  batch.reserve(options_.max_batch);
  absl::Time next_export = absl::Now() + options_.schedule_delay;
  while (true) {
    {
      absl::MutexLock lock(&mu_);
      while (!stopping_ && queue_.size() < options_.max_batch && flush_target_ <= done_ &&
             absl::Now() < next_export) {
        wake_.WaitWithDeadline(&mu_, next_export);
      }
      if (queue_.empty()) {
        if (stopping_) break;
        next_export = absl::Now() + options_.schedule_delay;
        continue;
      }
      queue_.PopInto(options_.max_batch, batch);
    }
    Export(batch);
    batch.clear();
    next_export = absl::Now() + options_.schedule_delay;
  }
  thread_done_.Notify();
}

void BatchSpanProcessor::Export(std::vector<SpanData>& batch) {
  const ExportResult result = exporter_->Export(batch, cancel_);
  if (result.exported > 0) {
    exported_.fetch_add(result.exported, std::memory_order_relaxed);
    if (counters_ != nullptr) counters_->SpansExported(result.exported);
  }
  if (result.rejected > 0) CountDropped(DropReason::kRejected, result.rejected);
  if (result.failed > 0) CountDropped(DropReason::kExportFailed, result.failed);
  if (result.cancelled > 0) CountDropped(DropReason::kShutdown, result.cancelled);
  absl::MutexLock lock(&mu_);
  done_ += static_cast<int64_t>(batch.size());
}

void BatchSpanProcessor::CountDropped(DropReason reason, int64_t count) {
  dropped_[static_cast<int>(reason)].fetch_add(count, std::memory_order_relaxed);
  if (counters_ != nullptr) counters_->SpansDropped(reason, count);
}

}  // namespace taskboard::otel
